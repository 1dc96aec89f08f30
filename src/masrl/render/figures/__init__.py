"""The survey's figures: registry, plotted data, fingerprints, rendering.

Each figure is drawn from a table the text reports also use (``data`` picks
it from the build results), by the ``draw(data) -> Figure`` function of its
own module. This package's ``__init__`` does not import matplotlib: the
registry, the plotted data and the fingerprints are enough for
``masrl build --check``, which compares fingerprints recorded in
``reports/figures/manifest.json`` instead of redrawing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable

import pandas as pd

from ..jsonout import json_bytes

#: File formats written for every figure.
FORMATS = ("svg", "pdf", "png")


@dataclass(frozen=True)
class FigureSpec:
    """One figure.

    Attributes:
        name: file stem under ``reports/figures/``.
        caption: one line for the index (what the figure shows).
        table: name of the report table it is drawn from.
        module: module of this package whose ``draw(data)`` returns the figure.
        data: picks the plotted data (a DataFrame or dict) from the build results.
    """

    name: str
    caption: str
    table: str
    module: str
    data: Callable[[Any], Any]


def _table(name: str) -> Callable[[Any], Any]:
    return lambda results: results.table(name).frame


def _years(results: Any) -> pd.DataFrame:
    """The year x category table with category labels as column names (for the legend)."""
    field = results.tax.fields["category"]
    return results.table("year_x_category").frame.rename(columns=field.value_label)


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("category_counts", "Retained records per category.", "category", "category_counts", _table("category")),
    FigureSpec("reward_credit_heatmap", "Reward type x credit unit, every vocabulary value on both axes; empty cells marked as gaps.",
               "reward_type_x_credit_granularity", "reward_credit_heatmap", _table("reward_type_x_credit_granularity")),
    FigureSpec("credit_hierarchy", "The eight credit units from token (finest) to team (coarsest) with broad and strict counts.",
               "credit_units", "credit_hierarchy", _table("credit_units")),
    FigureSpec("subdecision_chain", "Orchestration sub-decisions O1 -> O5 with records by RL status; the uncovered sub-decision highlighted.",
               "subdecisions_coverage", "subdecision_chain", _table("subdecisions_coverage")),
    FigureSpec("topology_counts", "Retained records per orchestration form (topology).", "topologies", "topology_counts", _table("topologies")),
    FigureSpec("records_per_year", "Retained records per publication year, stacked by category.", "year_x_category", "records_per_year", _years),
    FigureSpec("prisma_flow", "PRISMA 2020-style screening flow: audited records, exclusions by stage and reason class, retained records by category.",
               "prisma_flow", "prisma_flow", lambda results: results.prisma),
)


def data_bytes(data: Any) -> bytes:
    """Canonical bytes of plotted data (CSV of a DataFrame, JSON of a dict)."""
    if isinstance(data, pd.DataFrame):
        return data.to_csv(lineterminator="\n").encode("utf-8")
    return json_bytes(data)


def code_fingerprint(sources: dict[str, bytes]) -> str:
    """SHA-256 over the source files of this package (``{file name: bytes}``, from
    :func:`masrl.load.package_sources`): a change to how figures are drawn makes
    every figure stale."""
    digest = hashlib.sha256()
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + sources[name])
    return digest.hexdigest()


def fingerprint(spec: FigureSpec, data: Any, code: str, toolchain: str = "") -> str:
    """SHA-256 of what decides the figure's bytes: its name, plotted data, drawing code
    and the drawing toolchain (:func:`toolchain_text`)."""
    return hashlib.sha256(spec.name.encode() + b"\0" + data_bytes(data) + b"\0" + code.encode()
                          + b"\0" + toolchain.encode()).hexdigest()


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


def render_many(jobs: list[tuple[FigureSpec, Any]]) -> list[tuple[dict[str, bytes], list[str]]]:
    """:func:`render` for several figures, on up to two CPU cores (fork workers on
    platforms that have fork; one process elsewhere). Results in job order."""
    import multiprocessing
    import os

    workers = min(len(jobs), os.cpu_count() or 1, 2)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [render(spec, data) for spec, data in jobs]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(_render_job, [(spec.name, data) for spec, data in jobs]))


def _render_job(job: tuple[str, Any]) -> tuple[dict[str, bytes], list[str]]:
    name, data = job
    return render(next(s for s in FIGURES if s.name == name), data)


def render(spec: FigureSpec, data: Any) -> tuple[dict[str, bytes], list[str]]:
    """Draw one figure and return ``({ext: bytes}, missing glyphs)``. Imports matplotlib."""
    from . import style
    from .save import figure_bytes

    module = import_module(f"{__name__}.{spec.module}")
    with style.style_context() as caught:
        fig = module.draw(data)
        files = figure_bytes(fig)
    return files, style.missing_glyphs(caught)
