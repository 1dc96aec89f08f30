"""Everything ``masrl build`` generates, in memory: validated corpus -> ``{path: bytes}``.

Shared by ``masrl build`` (write or ``--check``) and ``masrl resolve`` (regenerate
after a merge). Reads nothing and writes nothing: the loader (:mod:`masrl.corpus.load`,
:mod:`masrl.corpus.readcache`) reads the corpus, the generated files as they are and the build
cache, and :mod:`masrl.build.write` writes.

Only what changed is computed. Each output is keyed by what it reads
(:func:`masrl.build.outputs.tree_units`): an output rendered earlier in this process under the
same key is taken from memory, one whose key and file digests the build cache recorded
(:mod:`masrl.build.cache`) is taken from its files on disk, and only the others are rendered,
computing the analyses they need and no others. A frozen release's tree whose manifest
(:mod:`masrl.build.manifest`) records the fingerprint of its inputs and code, and whose files
have the recorded digests, is taken as it is; a figure whose fingerprint and files match its
manifest entry is not drawn (:mod:`masrl.build.figures`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from . import cache, write
from .cache import Identity
from ..core.errors import UserError
from ..corpus.load import Corpus
from ..corpus.taxonomy import Taxonomy


@dataclass(frozen=True)
class Generated:
    """The outputs of one build and the build they were rendered from.

    ``outputs`` maps every generated path to its bytes, or to None for a figure
    known to be stale that ``--check`` did not redraw. ``cache`` holds the build-cache
    entries (:mod:`masrl.build.cache`) that were missing or outdated, for the writer.
    ``rendered``: the outputs (unit ids, :func:`masrl.build.outputs.tree_units`) that were
    rendered in this build rather than kept; ``confirmed``: the releases whose trees their
    manifests confirmed.
    """

    outputs: dict
    build: object
    cache: dict = field(default_factory=dict)
    rendered: tuple[str, ...] = ()
    confirmed: tuple[str, ...] = ()


def generate(corpus: Corpus, existing: Mapping[str, bytes], check: bool = False, rerender: bool = False,
             identity: Identity | None = None, figures: bool = True) -> Generated:
    """Render every generated file of a corpus that validates.

    ``existing`` are the generated files as they are now (every file under ``reports/``:
    :func:`masrl.corpus.readcache.read_reports`; the figure files alone will do, at the cost of
    rendering what they cannot confirm): outputs, release trees and figures that they show to be
    current are kept instead of computed. With ``identity`` (the code's and toolchain's digest and
    the build cache's entries), an output whose key the cache recorded with the digests of its
    files on disk is kept too. ``rerender`` draws every figure, and so renders every release's
    tree instead of taking it from its manifest, so that a check compares the files with what this
    code and toolchain draw (with the cache off too, ``MASRL_CACHE=off``, nothing is kept).
    Without ``figures``, no figure is planned or drawn: the files of every figure folder, the site's
    copies of the figures and the manifest of every release tree that is rendered are ``existing``'s
    (those absent stay absent), so that a later build with figures finds them stale.

    Raises:
        UserError: if README.md is missing or lacks the paper-list markers.
    """
    from .figures import plan as plan_figures
    from ..render.figures.draw import start as start_drawing
    from .examples import examples_valid, trace_report_files, validated_examples
    from .outputs import readme_file, rendered, tree, tree_units
    from .pipeline import build
    from ..render.readme import MarkersMissing
    from ..render.site import figure_files as site_figure_files

    traces = Taxonomy(corpus.taxonomy).traces
    validated = validated_examples() if traces else {}
    result = build(corpus, examples_valid(validated))
    if corpus.readme is None:
        raise UserError("README.md is missing at the survey root; it holds the generated paper list")
    recorded = cache.recorded_outputs(identity.entries.get(cache.OUTPUTS), identity.digest) if identity else {}
    outputs: dict[str, bytes | None] = {}
    try:
        outputs["README.md"] = readme_file(result, corpus.readme)
    except MarkersMissing as err:
        raise UserError(str(err)) from err
    units: dict[str, tuple[str, dict[str, str]]] = {}
    done: list[str] = []
    confirmed: list[str] = []
    drawn_once: dict = {}
    jobs: dict = {}
    trees = []  # (results, folder, fingerprint of a release or None, its figure plan)
    for results in (*result.releases, result.pool):
        folder = tree(results)
        fingerprint = None
        if results is not result.pool:
            fingerprint = _release_fingerprint(result, results)
            kept_tree = None if rerender else _manifest().confirmed(existing, folder, fingerprint)
            if kept_tree is not None:
                outputs.update(kept_tree)
                confirmed.append(results.name)
                continue
        planned = None if not figures else plan_figures(
            existing, results, check, rerender, folder=f"{folder}figures", cache=drawn_once,
            baseline=None if fingerprint is not None else result.baseline, jobs=jobs)
        trees.append((results, folder, fingerprint, planned))
    drawing = start_drawing(list(jobs.values()))  # drawn beside the text reports, where cores allow
    texts = []
    for results, folder, fingerprint, planned in trees:
        files: dict[str, bytes | None] = {}
        for unit in tree_units(result, results):
            kept = cache.kept(recorded, unit.id, unit.key, existing)
            if kept is None:
                kept = rendered(unit)
                done.append(unit.id)
            units[unit.id] = (unit.key, cache.digests(kept))
            files.update(kept)
        texts.append(files)
    drawn = dict(zip(jobs, drawing.results()))
    for (results, folder, fingerprint, planned), text in zip(trees, texts):
        if planned is None:  # figures off: the figure folder and the release's manifest as they are
            kept = (f"{folder}figures/", *([_manifest().path(folder)] if fingerprint is not None else []))
            outputs.update({**text, **{rel: data for rel, data in existing.items() if rel.startswith(kept)}})
            continue
        files = {**text, **planned.finish(drawn)}
        if fingerprint is not None:
            files[_manifest().path(folder)] = _manifest().manifest_bytes(fingerprint, files, folder, planned.known)
        outputs.update(files)
    if traces:  # a survey with orchestration traces (taxonomy ``traces: true``) gets their report and schema
        outputs.update(trace_report_files(validated))
    copies = site_figure_files(outputs, result.pool.tax)
    outputs.update(copies if figures else {rel: existing[rel] for rel in copies if rel in existing})
    outputs[write.GENERATED] = write.generated_list(outputs)
    entries: dict[str, bytes] = {}
    if identity is not None and units:
        if cache.recorded_outputs(identity.entries.get(cache.OUTPUTS), identity.digest) != units:
            entries[cache.OUTPUTS] = cache.outputs_entry(identity.digest, units)
    return Generated(outputs, result, entries, tuple(done), tuple(confirmed))


def _manifest():
    from . import manifest

    return manifest


def _release_fingerprint(result, results) -> str:
    """:func:`masrl.build.manifest.fingerprint` of one release's tree with this code and toolchain."""
    from ..corpus.load import package_sources
    from ..corpus.readcache import code_digest
    from ..render import figures
    from ..render.figures import draw
    from .figures import _identity

    toolchain = f"{figures.code_fingerprint(package_sources(figures.__name__))}; {draw.toolchain_text(_identity())}"
    return _manifest().fingerprint(result, results, code_digest(), toolchain)
