"""Drawing the figures (imports matplotlib when called, not when imported): the drawing toolchain's
identity, and one figure or a batch of them to ``{format: bytes}``. Re-exported by the package.
"""

from __future__ import annotations

import hashlib
from importlib import import_module
from typing import TYPE_CHECKING, Any, Sequence

from ...core.errors import UserError
from .marks import font_digests, font_files  # noqa: F401  (font_files re-exported)

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

    Forked workers share the jobs where the machine has more than one core and the platform
    can fork (:func:`workers`); otherwise everything is drawn in this process. The bytes are the
    same either way."""
    return _begin(jobs, at_least=2).results()


class Drawing:
    """Figures being drawn: by forked workers while the caller does its own work (the text
    reports), or in this process when :meth:`results` is first asked for."""

    def __init__(self, compute, pool=None):
        self._compute, self._pool, self._done = compute, pool, None

    def results(self) -> list[tuple[dict[str, bytes], list[str]]]:
        """``[(files by format, missing glyphs)]`` in job order (waits for the workers)."""
        if self._done is None:
            try:
                self._done = self._compute()
            finally:
                if self._pool is not None:
                    self._pool.shutdown(wait=True)
        return self._done


def start(jobs: list[tuple[FigureSpec, Any, Sequence[str]]]) -> Drawing:
    """Begin drawing ``jobs`` (:func:`render_many`'s) in forked workers, so that the caller's own
    work runs beside them; the :class:`Drawing` gives the results. Where :func:`render_many` was
    replaced in this process (a test's memo), it draws them, when the results are asked for."""
    if render_many is not _RENDER_MANY:
        many = render_many
        return Drawing(lambda: many(jobs))
    return _begin(jobs, at_least=1)


def workers(jobs: int) -> int:
    """How many forked workers draw ``jobs`` figures: ``MASRL_DRAW_WORKERS`` when set (0: draw in
    this process); else one per core, at most one per job, none on a machine of one core or where
    the platform cannot fork."""
    import multiprocessing
    import os

    setting = os.environ.get("MASRL_DRAW_WORKERS", "").strip()
    if setting:
        if not (setting.isascii() and setting.isdigit()):
            raise UserError(f"MASRL_DRAW_WORKERS={setting!r} is not a number of workers: give 0 (draw in masrl's own "
                            "process) or a whole number such as 2, or leave it unset (one worker per core)")
        return min(jobs, int(setting))
    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    cores = os.cpu_count() or 1
    return min(jobs, cores) if cores > 1 else 0


def _begin(jobs, at_least: int) -> Drawing:
    count = workers(len(jobs)) if len(jobs) >= at_least else 0
    if count < 1:
        return Drawing(lambda: [render(spec, data, notes) for spec, data, notes in jobs])
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    _import_drawing({spec.module for spec, _, _ in jobs})

    try:
        pool = ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("fork"))
        futures = [pool.submit(_render_job, (spec.module, spec.options, data, tuple(notes))) for spec, data, notes in jobs]
    except (OSError, BrokenProcessPool):  # no process to fork (a limit of the machine): drawn here
        return Drawing(lambda: [render(spec, data, notes) for spec, data, notes in jobs])

    def results():
        try:
            return [future.result() for future in futures]
        except BrokenProcessPool:  # a worker died (killed, out of memory): what it had is drawn here
            return [render(spec, data, notes) for spec, data, notes in jobs]

    return Drawing(results, pool)


def _import_drawing(modules: set[str]) -> None:
    """Import the drawing code of ``modules`` (figure modules of this package), matplotlib's canvases
    and every format's backend in this process, before the fork: each forked worker then starts
    with them imported instead of importing them itself, once per build (about half a second each).
    A process that builds more than once (a long-lived caller of the API) imports them once."""
    for name in ("matplotlib.backends.backend_agg", "matplotlib.backends.backend_pdf", "matplotlib.backends.backend_svg",
                 f"{__package__}.style", f"{__package__}.save", *(f"{__package__}.{module}" for module in sorted(modules))):
        import_module(name)


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


_RENDER_MANY = render_many
