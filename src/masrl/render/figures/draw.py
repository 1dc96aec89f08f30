"""Drawing the figures (imports matplotlib when called, not when imported): the drawing toolchain's
identity, and one figure or a batch of them to ``{format: bytes}``. Re-exported by the package.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import import_module
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from . import FigureSpec


def toolchain_identity() -> dict:
    """``{"matplotlib": version, "ft2font_sha256": digest, "fonts": {file name: SHA-256}}`` of the
    installed matplotlib, without importing it: the version from the package metadata, the digest
    of its compiled font module (which holds the FreeType it was built with), and the digest of
    every font file a figure is drawn with (:data:`masrl.render.figures.marks.FONT_FILES`, found by
    path in matplotlib's own folder, never by a search of the user's fonts)."""
    from importlib import metadata
    from importlib.util import find_spec
    from pathlib import Path

    try:
        version = metadata.version("matplotlib")
    except metadata.PackageNotFoundError:
        return {"matplotlib": "not installed", "ft2font_sha256": "", "fonts": {}}
    spec = find_spec("matplotlib")  # a top-level package: located, not imported
    folders = [Path(folder) for folder in (spec.submodule_search_locations or [])] if spec else []
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.glob("ft2font*")):
            if path.suffix in (".so", ".pyd"):
                digest.update(path.read_bytes())
    return {"matplotlib": version, "ft2font_sha256": digest.hexdigest(), "fonts": font_digests(folders)}


def font_files(folders=None) -> dict[str, "Path"]:
    """``{file name: path}`` of the house fonts and the last-resort font, in matplotlib's own data
    folder (``folders``: matplotlib's package folders; found without importing it when None, once
    per process)."""
    from pathlib import Path

    from .marks import FONT_FILES, FONT_FOLDER, LAST_RESORT_FONT

    if folders is None:
        return dict(_located_fonts())
    names = sorted({*FONT_FILES.values(), LAST_RESORT_FONT})
    for folder in folders:
        base = Path(folder).joinpath(*FONT_FOLDER)
        if all((base / name).is_file() for name in names):
            return {name: base / name for name in names}
    return {}


@functools.lru_cache(maxsize=1)
def _located_fonts() -> tuple:
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec("matplotlib")
    return tuple(font_files([Path(folder) for folder in (spec.submodule_search_locations or [])] if spec else []).items())


def font_digests(folders=None) -> dict[str, str]:
    """``{file name: SHA-256}`` of :func:`font_files` (empty when matplotlib lacks one of them)."""
    return {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in font_files(folders).items()}


def freetype_version() -> dict[str, str]:
    """``{"freetype": "2.14.3", "freetype_build": "local"}`` of matplotlib's font
    module ("local": the copy bundled in matplotlib's wheel). Imports matplotlib."""
    from matplotlib import ft2font

    return {"freetype": ft2font.__freetype_version__, "freetype_build": ft2font.__freetype_build_type__}


def toolchain_text(toolchain: dict) -> str:
    """The toolchain as it enters every figure's fingerprint: versions, the font module's digest and
    the digest of every font file."""
    fonts = toolchain.get("fonts")
    fonts = ",".join(f"{name}:{sha}" for name, sha in sorted(fonts.items())) if isinstance(fonts, dict) else ""
    return "; ".join([*(f"{k}={toolchain.get(k, '')}" for k in ("matplotlib", "freetype", "freetype_build", "ft2font_sha256")),
                      f"fonts={fonts}"])


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
        return list(pool.map(_render_job, [(spec.module, spec.options, data, tuple(notes)) for spec, data, notes in jobs]))


def _spare_cores() -> int:
    """Cores idle beyond this process (0 where fork or the load average is unavailable)."""
    import multiprocessing
    import os

    if "fork" not in multiprocessing.get_all_start_methods() or not hasattr(os, "getloadavg"):
        return 0
    # Whole cores the recent load leaves idle, besides the one this process runs on.
    cores = os.cpu_count() or 1
    return max(0, min(cores - 1, int(cores - os.getloadavg()[0])))


def _render_job(job: tuple[str, dict, Any, tuple[str, ...]]) -> tuple[dict[str, bytes], list[str]]:
    module, options, data, notes = job
    return _draw(module, options, data, notes)


def render(spec: FigureSpec, data: Any, notes: Sequence[str] = ()) -> tuple[dict[str, bytes], list[str]]:
    """Draw one figure with its footnote ``notes`` and return ``({ext: bytes}, missing glyphs)``.

    The figure is laid out once, then written in every format from that
    layout. Imports matplotlib.
    """
    return _draw(spec.module, spec.options, data, notes)


def _draw(module_name: str, options: dict, data: Any, notes: Sequence[str]) -> tuple[dict[str, bytes], list[str]]:
    from . import style
    from .save import figure_bytes

    module = import_module(f"{__package__}.{module_name}")
    with style.style_context() as caught:
        fig = module.draw(data, options)
        style.add_footnote(fig, notes)
        files = figure_bytes(fig)
    return files, style.missing_glyphs(caught)
