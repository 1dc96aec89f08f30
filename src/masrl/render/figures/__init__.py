"""The survey's figures: registry, plotted data, footnotes, fingerprints, rendering.

Each figure is drawn from a table the text reports also use (``data`` picks
it from the build results), by the ``draw(data) -> Figure`` function of its
own module. Under every figure a footnote states its n and what it leaves
out (``notes`` computes those lines from the same results; a caller may
append more lines, e.g. a release note). This package's ``__init__`` does
not import matplotlib: the registry, the plotted data, the notes and the
fingerprints are enough for ``masrl build --check``, which compares
fingerprints recorded in ``reports/figures/manifest.json`` instead of
redrawing.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable, Sequence

import pandas as pd

from .marks import FORMATS, GAP_SYMBOL, YEARS_SHOWN  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class FigureSpec:
    """One figure.

    Attributes:
        name: file stem under ``reports/figures/``.
        caption: one line for the index (what the figure shows).
        table: name of the report table it is drawn from.
        module: module of this package whose ``draw(data)`` returns the figure.
        data: picks the plotted data (a DataFrame or a JSON-able dict) from the build results.
        notes: the footnote lines from the build results: the figure's n and
            what it leaves out (each line a sentence or two).
    """

    name: str
    caption: str
    table: str
    module: str
    data: Callable[[Any], Any]
    notes: Callable[[Any], list[str]]


# --- plotted data -------------------------------------------------------------------------------

def _table(name: str) -> Callable[[Any], Any]:
    return lambda results: results.table(name).frame


def _na_label(results: Any, field: str) -> str:
    return results.tax.fields[field].value_label("NA")


def year_bins(table: pd.DataFrame, shown: int = YEARS_SHOWN) -> pd.DataFrame:
    """``table`` (index = every year, int) with the years before the last ``shown``
    summed into one first row ``before <year>``; index = year labels (str).

    A span of at most ``shown`` years is returned with string labels only.
    """
    years = [int(y) for y in table.index]
    frame = table.copy()
    frame.index = [str(y) for y in years]
    if len(years) <= shown:
        frame.index.name = "year"
        return frame
    cut = years[-1] - shown + 1
    early = table.loc[[y for y in years if y < cut]].sum().to_frame(f"before {cut}").T.astype("int64")
    late = table.loc[[y for y in years if y >= cut]]
    late.index = [str(y) for y in late.index]
    out = pd.concat([early, late])
    out.index.name = "year"
    return out


def _years(results: Any) -> pd.DataFrame:
    """The year x category table, early years binned, category labels as column names (legend)."""
    field = results.tax.fields["category"]
    return year_bins(results.table("year_x_category").frame).rename(columns=field.value_label)


def _heatmap(results: Any) -> dict:
    """The reward type x credit unit crosstab with taxonomy labels:
    ``{"counts": [[int]], "rows": [label], "columns": [label], "row_codes", "column_codes",
    "structural": code, "row_title", "column_title"}``."""
    tax = results.tax
    frame = results.table("reward_type_x_credit_granularity").frame
    rows, cols = tax.fields["reward_type"], tax.fields["credit_granularity"]
    return {
        "counts": [[int(v) for v in row] for row in frame.to_numpy()],
        "row_codes": [str(v) for v in frame.index], "column_codes": [str(v) for v in frame.columns],
        "rows": [rows.value_label(str(v)) for v in frame.index],
        "columns": [cols.value_label(str(v)) for v in frame.columns],
        "structural": "NA", "row_title": rows.label, "column_title": cols.label,
    }


def _prisma(results: Any) -> dict:
    return results.prisma


# --- footnotes: n and what is left out ------------------------------------------------------------

def _retained(n: int) -> str:
    """``1 retained record``, ``84 retained records``."""
    return f"{n} retained record{'' if n == 1 else 's'}"


def _count(results: Any, field: str, value: str) -> int:
    frame = results.table(field).frame
    return int(frame.loc[value, "count"]) if value in frame.index else 0


def _category_notes(results: Any) -> list[str]:
    n = results.headline["retained"]
    return [f"n = {_retained(n)}, one category each; none left out."]


def _heatmap_notes(results: Any) -> list[str]:
    n = results.headline["retained"]
    na_r, na_c = _na_label(results, "reward_type"), _na_label(results, "credit_granularity")
    return [f"n = {_retained(n)}, one cell each (primary reward type × credit unit); none left out.",
            f"{GAP_SYMBOL} = empty cell, a gap (no record). Grey = the '{na_r}' row and the '{na_c}' column: "
            f"records without a reward type or a credit unit (structural, not gaps)."]


def _credit_notes(results: Any) -> list[str]:
    n = results.headline["retained"]
    na = _count(results, "credit_granularity", "NA")
    units = results.table("credit_units").frame
    return [f"n = {_retained(n)}; drawn: the {int(units['broad'].sum())} with a credit unit, each under its "
            f"finest unit. Left out: {na} with credit unit '{_na_label(results, 'credit_granularity')}'.",
            "broad = records tagged with the unit; strict = of those, an explicit (or near-strict) "
            f"credit-assignment mechanism. {GAP_SYMBOL} = no record at the unit (a gap)."]


def _subdecision_notes(results: Any) -> list[str]:
    n = results.headline["retained"]
    tagged = int(results.retained["subdecisions"].map(bool).sum()) if len(results.retained) else 0
    total = int(results.table("subdecisions_coverage").frame["records"].sum())
    several = f" (a record can address several, so the boxes sum to {total})" if total != tagged else ""
    return [f"n = {_retained(n)}; {tagged} address at least one sub-decision{several}. "
            f"Left out: {n - tagged} record{'' if n - tagged == 1 else 's'} tagged with no sub-decision.",
            f"{GAP_SYMBOL} = uncovered sub-decision (a gap): no record, or no record with explicit RL."]


def _topology_notes(results: Any) -> list[str]:
    n = results.headline["retained"]
    na = _count(results, "orchestration_form", "NA")
    return [f"n = {_retained(n)}; drawn: the {n - na} with an orchestration form. Left out: {na} with "
            f"orchestration form '{_na_label(results, 'orchestration_form')}' (no agent-team topology)."]


def _year_notes(results: Any) -> list[str]:
    n = results.headline["retained"]
    table = results.table("year_x_category").frame
    binned = year_bins(table)
    notes = [f"n = {_retained(n)}, none left out."]
    first = str(binned.index[0])
    if first.startswith("before "):
        years = [int(y) for y in table.index if int(y) < int(first.split()[-1]) and int(table.loc[y].sum())]
        early = int(binned.iloc[0].sum())
        span = f"{years[0]}–{years[-1]}" if len(years) > 1 else (str(years[0]) if years else "")
        notes.append(f"The {early} record{'' if early == 1 else 's'} published {span} share the first bar "
                     f"('{first}'); grey = a year without records." if early else
                     f"No record was published {first}; grey = a year without records.")
    else:
        notes.append("Grey = a year without records.")
    return notes


def _prisma_notes(results: Any) -> list[str]:
    flow = results.prisma
    up = flow.get("update")
    if up:
        return [f"n = {up['identified']} records identified since {up['previous']} ({up['new_included']} included, "
                f"{up['identified'] - up['new_included']} excluded); the whole review: {flow['audited']} audited records, "
                f"{flow['retained']} retained."]
    return [f"n = {flow['audited']} audited records ({flow['retained']} retained, "
            f"{flow['audited'] - flow['retained']} excluded); none left out."]


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("category_counts", "Retained records per category.", "category", "category_counts",
               _table("category"), _category_notes),
    FigureSpec("reward_credit_heatmap", "Primary reward type × credit unit, every vocabulary value on both axes; "
               "empty cells marked as gaps.", "reward_type_x_credit_granularity", "reward_credit_heatmap",
               _heatmap, _heatmap_notes),
    FigureSpec("credit_hierarchy", "The eight credit units from token (finest) to team (coarsest) with broad "
               "and strict counts.", "credit_units", "credit_hierarchy", _table("credit_units"), _credit_notes),
    FigureSpec("subdecision_chain", "Orchestration sub-decisions O1 -> O5 with records by RL status; uncovered "
               "sub-decisions marked as gaps.", "subdecisions_coverage", "subdecision_chain",
               _table("subdecisions_coverage"), _subdecision_notes),
    FigureSpec("topology_counts", "Retained records per orchestration form (topology).", "topologies",
               "topology_counts", _table("topologies"), _topology_notes),
    FigureSpec("records_per_year", "Retained records per publication year, stacked by category.",
               "year_x_category", "records_per_year", _years, _year_notes),
    FigureSpec("prisma_flow", "PRISMA 2020-style screening flow: audited records, exclusions by stage and "
               "reason class, retained records by category.", "prisma_flow", "prisma_flow", _prisma, _prisma_notes),
)


# --- fingerprints and rendering -------------------------------------------------------------------

def data_bytes(data: Any) -> bytes:
    """Canonical bytes of plotted data (CSV of a DataFrame, sorted JSON of a dict)."""
    if isinstance(data, pd.DataFrame):
        return data.to_csv(lineterminator="\n").encode("utf-8")
    return json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")


def code_fingerprint(sources: dict[str, bytes]) -> str:
    """SHA-256 over the source files of this package (``{file name: bytes}``, from
    :func:`masrl.corpus.load.package_sources`): a change to how figures are drawn makes
    every figure stale."""
    digest = hashlib.sha256()
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + sources[name])
    return digest.hexdigest()


def fingerprint(spec: FigureSpec, data: Any, code: str, notes: Sequence[str] = (), toolchain: str = "") -> str:
    """SHA-256 of what decides the figure's bytes: its name, plotted data, footnote, drawing
    code and the drawing toolchain (:func:`toolchain_text`)."""
    footnote = "\n".join(notes).encode("utf-8")
    return hashlib.sha256(spec.name.encode() + b"\0" + data_bytes(data) + b"\0" + footnote + b"\0"
                          + code.encode() + b"\0" + toolchain.encode()).hexdigest()


def toolchain_identity() -> dict[str, str]:
    """``{"matplotlib": version, "ft2font_sha256": digest}`` of the installed matplotlib,
    without importing it: the version from the package metadata, the digest of its
    compiled font module (which holds the FreeType it was built with)."""
    from importlib import metadata
    from importlib.util import find_spec

    try:
        version = metadata.version("matplotlib")
    except metadata.PackageNotFoundError:
        return {"matplotlib": "not installed", "ft2font_sha256": ""}
    spec = find_spec("matplotlib")  # a top-level package: located, not imported
    digest = hashlib.sha256()
    for folder in (spec.submodule_search_locations or []) if spec else []:
        from pathlib import Path

        for path in sorted(Path(folder).glob("ft2font*")):
            if path.suffix in (".so", ".pyd"):
                digest.update(path.read_bytes())
    return {"matplotlib": version, "ft2font_sha256": digest.hexdigest()}


def freetype_version() -> dict[str, str]:
    """``{"freetype": "2.14.3", "freetype_build": "local"}`` of matplotlib's font
    module ("local": the copy bundled in matplotlib's wheel). Imports matplotlib."""
    from matplotlib import ft2font

    return {"freetype": ft2font.__freetype_version__, "freetype_build": ft2font.__freetype_build_type__}


def toolchain_text(toolchain: dict[str, str]) -> str:
    """The toolchain as it enters every figure's fingerprint."""
    return "; ".join(f"{k}={toolchain.get(k, '')}" for k in ("matplotlib", "freetype", "freetype_build", "ft2font_sha256"))


def render_many(jobs: list[tuple[FigureSpec, Any, Sequence[str]]]) -> list[tuple[dict[str, bytes], list[str]]]:
    """:func:`render` for several ``(spec, data, notes)`` jobs; results in job order.

    Two forked workers share the jobs when the machine has a second core to
    spare (its load average leaves one idle) and the platform can fork;
    otherwise, and on a busy machine, where workers only compete for the same
    core, everything is drawn in this process. The bytes are the same either way.
    """
    workers = min(len(jobs), _spare_cores() + 1, 2)
    if workers < 2:
        return [render(spec, data, notes) for spec, data, notes in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import matplotlib  # noqa: F401  (imported once, before the fork)

    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(_render_job, [(spec.name, data, tuple(notes)) for spec, data, notes in jobs]))


def _spare_cores() -> int:
    """Cores idle beyond this process (0 where fork or the load average is unavailable)."""
    import multiprocessing
    import os

    if "fork" not in multiprocessing.get_all_start_methods() or not hasattr(os, "getloadavg"):
        return 0
    # Whole cores the recent load leaves idle, besides the one this process runs on.
    cores = os.cpu_count() or 1
    return max(0, min(cores - 1, int(cores - os.getloadavg()[0])))


def _render_job(job: tuple[str, Any, tuple[str, ...]]) -> tuple[dict[str, bytes], list[str]]:
    name, data, notes = job
    return render(next(s for s in FIGURES if s.name == name), data, notes)


def render(spec: FigureSpec, data: Any, notes: Sequence[str] = ()) -> tuple[dict[str, bytes], list[str]]:
    """Draw one figure with its footnote ``notes`` and return ``({ext: bytes}, missing glyphs)``.

    The figure is laid out once, then written in every format from that
    layout. Imports matplotlib.
    """
    from . import style
    from .save import figure_bytes

    module = import_module(f"{__name__}.{spec.module}")
    with style.style_context() as caught:
        fig = module.draw(data)
        style.add_footnote(fig, notes)
        files = figure_bytes(fig)
    return files, style.missing_glyphs(caught)
