"""Figure files of a build: reuse, redraw, or (with ``--check``) just compare fingerprints.

A figure is current when ``reports/figures/manifest.json`` records the
fingerprint of its plotted data, drawing code and drawing toolchain (matplotlib
and FreeType versions, recorded under ``toolchain``) and the SHA-256 of each
of its files, and both still match. ``--check`` never imports matplotlib: a
figure that is not current is reported stale without being drawn.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
import hashlib
import json
import sys
from typing import Mapping

from ..core.memo import MISSING, Memo
from ..corpus.load import package_sources
from ..render import figures
from ..render.figures import draw
from ..render.jsonout import json_bytes
from ..render.markdown import render_template

FOLDER = "reports/figures"
#: Where the catalogue site keeps its copy of each SVG of :data:`FOLDER` (read with the figures, see
#: :data:`masrl.corpus.load.FIGURE_FOLDERS`).
SITE_COPIES = "reports/site/figures"
MANIFEST = f"{FOLDER}/manifest.json"

#: The figures drawn in this process, by fingerprint (``(files, missing glyphs)``): a figure of the
#: same data, footnote, code and toolchain is drawn once per process, whatever tree asks for it.
DRAWN = Memo(256)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _old_manifest(existing: Mapping[str, bytes], manifest: str) -> tuple[dict, dict]:
    """``(figures, toolchain)`` of the current manifest (empty when absent or damaged)."""
    raw = existing.get(manifest)
    try:
        data = json.loads(raw) if raw else {}
        figs, tools = data.get("figures", {}), data.get("toolchain", {})
    except (ValueError, AttributeError):
        return {}, {}  # a damaged manifest only means every figure is redrawn
    figs = {k: v for k, v in figs.items() if isinstance(v, dict)} if isinstance(figs, dict) else {}
    return figs, tools if isinstance(tools, dict) else {}


@functools.lru_cache(maxsize=1)
def _identity() -> dict[str, str]:
    """:func:`masrl.render.figures.draw.toolchain_identity`, once per process (it hashes
    matplotlib's font module, about 10 ms, and a build asks once per report tree)."""
    return draw.toolchain_identity()


def _toolchain(recorded: dict, check: bool) -> dict:
    """The drawing toolchain of this environment: matplotlib and FreeType versions.

    matplotlib is imported (to ask FreeType's version) only when the installed
    matplotlib is not the one the manifest records and figures are to be drawn.
    """
    identity = dict(_identity())
    if all(recorded.get(k) == v for k, v in identity.items()) and "freetype" in recorded:
        return {**identity, "freetype": recorded["freetype"], "freetype_build": recorded.get("freetype_build", "")}
    if check:
        return {**identity, "freetype": "not probed (masrl build --check does not import matplotlib)"}
    return {**identity, **draw.freetype_version()}


def release_note(spec, results, baseline) -> str | None:
    """One footnote line when the figure's table differs in the release the pool is compared
    with: how many cells, the first of them, and where the release's own figure is."""
    from ..analyses.compare import comparable, table_changes

    if baseline is None or not results.has_table(spec.table) or not baseline.has_table(spec.table):
        return None
    if not comparable(baseline.table(spec.table), results.table(spec.table)):
        return None  # another layout (an updated review's flow counts only what came after its previous version)
    changes = table_changes(baseline.table(spec.table).frame, results.table(spec.table).frame)
    if not changes:
        return None
    shown = "; ".join(f"{c['row']}" + (f" × {c['column']}" if c["column"] else "") + f" {c['before']} → {c['after']}"
                      for c in changes[:3])
    rel = baseline.population.release
    more = f" (and {len(changes) - 3} more)" if len(changes) > 3 else ""
    return (f"Published release {rel.name} ({rel.date}) differs in {len(changes)} cell(s): {shown}{more}. "
            f"Its figure: reports/releases/{rel.name}/figures/{spec.name}.svg.")


def figure_outputs(existing: Mapping[str, bytes], results, check: bool, rerender: bool, folder: str = FOLDER,
                   cache: dict[str, dict[str, bytes]] | None = None, baseline=None) -> dict[str, bytes | None]:
    """``{path: bytes or None}`` for every figure file, the manifest and the index of one
    report tree's figure folder (``reports/figures`` or ``reports/releases/<name>/figures``):
    :func:`plan` and its :meth:`FigurePlan.finish`, the figures to draw drawn here."""
    planned = plan(existing, results, check, rerender, folder, cache, baseline)
    return planned.finish(dict(zip(planned.jobs, draw.start(list(planned.jobs.values())).results())))


@dataclass
class FigurePlan:
    """The figures of one report tree: those kept or known stale, and those to draw.

    Attributes:
        jobs: ``{fingerprint: (spec, data, notes)}`` of the figures to draw
            (:func:`masrl.render.figures.draw.start`).
    """

    folder: str
    specs: tuple
    notes_of: dict
    toolchain: dict
    outputs: dict = field(default_factory=dict)
    manifest: dict = field(default_factory=dict)
    missing_chars: set = field(default_factory=set)
    todo: list = field(default_factory=list)
    jobs: dict = field(default_factory=dict)
    cache: dict = field(default_factory=dict)
    #: ``{path: SHA-256}`` of the files ``--check`` found damaged whose right digest the manifest records
    known: dict = field(default_factory=dict)

    def finish(self, drawn: Mapping[str, tuple[dict[str, bytes], list[str]]]) -> dict[str, bytes | None]:
        """The tree's figure files, with ``drawn`` (``{fingerprint: (files, missing glyphs)}``,
        every job's drawing) in place of the figures to draw."""
        outputs, manifest, missing_chars = dict(self.outputs), dict(self.manifest), set(self.missing_chars)
        for spec, fingerprint, paths in self.todo:
            files, missing = drawn[fingerprint]
            DRAWN.put(fingerprint, (files, list(missing)))
            missing_chars.update(missing)
            outputs.update({paths[ext]: files[ext] for ext in paths})
            self.cache[fingerprint] = files
            manifest[spec.name] = {"table": spec.table, "fingerprint": fingerprint,
                                   "sha256": {ext: _sha(files[ext]) for ext in paths}}
        if missing_chars:
            print(f"note: {len(missing_chars)} character(s) are missing from the figure font and were drawn as boxes: "
                  + " ".join(sorted(missing_chars)), file=sys.stderr)
        stale = any(v is None for v in manifest.values())
        outputs[f"{self.folder}/manifest.json"] = None if stale else json_bytes({"figures": manifest, "toolchain": self.toolchain})
        outputs[f"{self.folder}/README.md"] = render_template("figures.md.j2", figures=self.specs, notes=self.notes_of).encode()
        return outputs


def _still_recorded(entry: dict, fingerprint: str, current: dict, copy: bytes | None) -> dict | None:
    """For ``--check`` (which never draws), of a figure whose files do not all match its manifest entry:
    ``{format: bytes}`` of the files that still have their recorded digest, when the entry's fingerprint is
    the figure's and it records a digest of every format (its data, code and toolchain unchanged: only the
    other files are stale, and the manifest is current); the site's copy of the SVG (``copy``) stands in
    for a damaged SVG when it has the digest. None when the fingerprint changed (every file is stale)."""
    recorded = entry.get("sha256")
    if (entry.get("fingerprint") != fingerprint or not isinstance(recorded, dict)
            or not all(isinstance(recorded.get(ext), str) for ext in current)):
        return None
    if copy is not None and (current.get("svg") is None or _sha(current["svg"]) != recorded.get("svg")):
        current = {**current, "svg": copy}
    return {ext: data for ext, data in current.items() if data is not None and _sha(data) == recorded.get(ext)}


def plan(existing: Mapping[str, bytes], results, check: bool, rerender: bool, folder: str = FOLDER,
         cache: dict[str, dict[str, bytes]] | None = None, baseline=None, jobs: dict | None = None) -> FigurePlan:
    """Which figures of one report tree are kept, known stale, or to draw.

    ``existing`` is every figure file of the survey as it is now (read by
    :func:`masrl.corpus.load.read_figure_files`): a figure whose manifest entry and files
    still match is reused, not drawn. None marks a file that is stale and was not redrawn (``check``;
    with ``rerender`` too, every figure is drawn, so that the check compares the files with what
    this code and toolchain draw). ``cache`` maps a
    figure fingerprint to its files: a figure with the same plotted data in two trees
    is drawn once per build; so is one of ``jobs`` (the jobs of another tree's plan, which this
    plan's are added to). A figure drawn earlier in this process is not drawn again (:data:`DRAWN`).
    ``baseline`` (the latest release, for the pool's tree) adds to each figure whose table differs
    from the release's a footnote line saying so.
    """
    code = figures.code_fingerprint(package_sources(figures.__name__))
    manifest_path = f"{folder}/manifest.json"
    cache = {} if cache is None else cache
    jobs = {} if jobs is None else jobs
    old, recorded = _old_manifest(existing, manifest_path)
    toolchain = _toolchain(recorded, check)
    if recorded and recorded.get("matplotlib") != toolchain["matplotlib"]:
        print(f"note: the figures were drawn with matplotlib {recorded.get('matplotlib')} (FreeType "
              f"{recorded.get('freetype')}); this environment has matplotlib {toolchain['matplotlib']}. Install the "
              "locked toolchain (pip install -c constraints.txt .) for byte-identical figures", file=sys.stderr)
    specs = figures.figures_of(results.tax)
    notes_of = {spec.name: [*spec.notes(results), *filter(None, [release_note(spec, results, baseline)])]
                for spec in specs}
    planned = FigurePlan(folder, specs, notes_of, toolchain, jobs=jobs, cache=cache)
    outputs, manifest = planned.outputs, planned.manifest
    for spec in specs:
        data = spec.data(results)
        notes = notes_of[spec.name]
        fingerprint = figures.fingerprint(spec, data, code, notes, draw.toolchain_text(toolchain))
        paths = {ext: f"{folder}/{spec.name}.{ext}" for ext in figures.FORMATS}
        entry = old.get(spec.name) or {}
        current = {ext: existing.get(rel) for ext, rel in paths.items()}
        fresh = (
            not rerender
            and entry.get("fingerprint") == fingerprint
            and isinstance(entry.get("sha256"), dict)
            and all(current[e] is not None and _sha(current[e]) == entry["sha256"].get(e) for e in paths)
        )
        if fresh:
            outputs.update({rel: current[ext] for ext, rel in paths.items()})
            manifest[spec.name] = entry
            cache.setdefault(fingerprint, {ext: current[ext] for ext in paths})
        elif fingerprint in cache and (rerender or not check):
            files = cache[fingerprint]
            outputs.update({rel: files[ext] for ext, rel in paths.items()})
            manifest[spec.name] = {"table": spec.table, "fingerprint": fingerprint,
                                   "sha256": {ext: _sha(files[ext]) for ext in paths}}
        elif check and not rerender:  # with rerender, a check draws every figure and compares its bytes
            copy = existing.get(f"{SITE_COPIES}/{spec.name}.svg") if folder == FOLDER else None
            kept = _still_recorded(entry, fingerprint, current, copy)
            outputs.update({rel: (kept or {}).get(ext) for ext, rel in paths.items()})
            manifest[spec.name] = entry if kept is not None else None
            if kept is not None:
                planned.known.update((rel, entry["sha256"][ext]) for ext, rel in paths.items() if ext not in kept)
        elif not rerender and (drawn := DRAWN.get(fingerprint)) is not MISSING:  # drawn earlier in this process
            files, missing = drawn
            planned.missing_chars.update(missing)
            cache[fingerprint] = files
            outputs.update({rel: files[ext] for ext, rel in paths.items()})
            manifest[spec.name] = {"table": spec.table, "fingerprint": fingerprint,
                                   "sha256": {ext: _sha(files[ext]) for ext in paths}}
        else:
            jobs.setdefault(fingerprint, (spec, data, notes))
            planned.todo.append((spec, fingerprint, paths))
            manifest[spec.name] = {}
    return planned
