"""Constants every figure shares, in a module of their own so that the drawing
modules (which import matplotlib) and the registry (which must not) both import them; and where
the house fonts are (found without importing matplotlib)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

#: File formats written for every figure.
FORMATS = ("svg", "pdf", "png")

#: The mark of a gap (an empty cell, an uncovered unit or sub-decision) in every figure.
GAP_SYMBOL = "×"

#: Years drawn one bar each by a figure of kind ``years``; earlier years share one bar.
YEARS_SHOWN = 10

#: The font files of every figure, by (weight, style), named by their path in matplotlib's own data
#: folder (``mpl-data/fonts/ttf``, which the locked matplotlib wheel bundles): DejaVu Sans, regular,
#: bold, oblique and bold oblique. masrl never searches for a font: the user's font cache
#: (``~/.cache/matplotlib``, ``MPLCONFIGDIR``), system fonts of the same name and matplotlibrc
#: never decide a figure's bytes (:func:`masrl.render.figures.style.style_context`).
FONT_FILES = {
    ("normal", "normal"): "DejaVuSans.ttf",
    ("bold", "normal"): "DejaVuSans-Bold.ttf",
    ("normal", "oblique"): "DejaVuSans-Oblique.ttf",
    ("bold", "oblique"): "DejaVuSans-BoldOblique.ttf",
}
#: matplotlib's last-resort font (boxes for characters the house font lacks), also by path.
LAST_RESORT_FONT = "LastResortHE-Regular.ttf"
#: Where the font files are, inside matplotlib's package folder.
FONT_FOLDER = ("mpl-data", "fonts", "ttf")


def font_files(folders=None) -> dict[str, Path]:
    """``{file name: path}`` of the house fonts and the last-resort font, in matplotlib's own data
    folder (``folders``: matplotlib's package folders; found without importing it when None, once
    per process)."""
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

    spec = find_spec("matplotlib")
    return tuple(font_files([Path(folder) for folder in (spec.submodule_search_locations or [])] if spec else []).items())


def font_digests(folders=None) -> dict[str, str]:
    """``{file name: SHA-256}`` of :func:`font_files` (empty when matplotlib lacks one of them)."""
    return {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in font_files(folders).items()}
