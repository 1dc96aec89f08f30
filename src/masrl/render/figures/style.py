"""The one style of every masrl figure: colours, fonts, sizes, literal text.

All figures are drawn on ``matplotlib.figure.Figure`` with the Agg canvas (no
pyplot, no GUI) inside :func:`style_context`, which also makes text literal:
``text.parse_math`` is off, so a label holding ``$``, ``#``, ``_`` or ``%``
is drawn as written and can never fail as mathtext.
"""

from __future__ import annotations

import contextlib
import logging
import re
import warnings

import matplotlib

matplotlib.use("Agg", force=False)

from matplotlib.figure import Figure  # noqa: E402

#: Colours (colour-blind-safe Okabe-Ito palette where categorical).
INK = "#222222"
MUTED = "#6b6b6b"
GRID = "#d9d9d9"
ACCENT = "#0072B2"      # main bars
ACCENT_2 = "#E69F00"    # second series (strict, partial)
ACCENT_3 = "#009E73"    # third series
GAP = "#D55E00"         # empty / uncovered cells
GAP_FILL = "#fbe3d6"
GAP_HATCH = "//"        # hatch of a gap (empty cell, uncovered unit), drawn in GAP
STRUCTURAL = "#e8e8e8"  # cells that are empty by construction (NA), not gaps
CATEGORICAL = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"]

#: Sizes (inches) and resolution.
WIDTH = 7.0
DPI = 150
FONT_SIZE = 9
SMALL_SIZE = 7.5        # in-box notes, cell numbers, legends of dense figures
TITLE_SIZE = 11

RC = {
    "font.family": "DejaVu Sans",
    "font.size": FONT_SIZE,
    "axes.titlesize": TITLE_SIZE,
    "axes.titleweight": "bold",
    "axes.edgecolor": MUTED,
    "axes.labelcolor": INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.color": INK,
    "ytick.color": INK,
    "text.color": INK,
    "text.parse_math": False,
    "text.usetex": False,
    "svg.hashsalt": "masrl",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "path.simplify": True,
    "hatch.linewidth": 0.7,
}


@contextlib.contextmanager
def style_context():
    """Apply :data:`RC` for the figures drawn inside; collapse missing-glyph warnings.

    A title in a script the font lacks (CJK, say) would make matplotlib warn
    once per glyph; inside this context those warnings are collected and
    reported once per figure batch by :func:`missing_glyphs` instead.
    """
    with matplotlib.rc_context(RC), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
        yield caught


def missing_glyphs(caught: list) -> list[str]:
    """The distinct characters reported missing from the font in ``caught`` warnings.

    Matplotlib words them ``Glyph 22810 (\\N{CJK UNIFIED IDEOGRAPH-591A}) missing
    from font(s) ...``; the code point gives the character itself ("多").
    """
    chars = set()
    for w in caught:
        text = str(w.message)
        if "missing from font" in text and "Glyph" in text:
            code = re.match(r"Glyph (\d+)", text)
            chars.add(chr(int(code.group(1))) if code else text.split("(", 1)[-1].split(")", 1)[0])
    return sorted(chars)


#: A space that :func:`wrap_text` never breaks at (drawn as a plain space).
KEEP_SPACE = "\u00a0"


def text_width(text: str, size: float = FONT_SIZE, weight: str = "normal") -> float:
    """Width in inches of one line of ``text`` in the house font, from the font's metrics
    (no renderer, no drawing)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    prop = FontProperties(family=RC["font.family"], size=size, weight=weight)
    width, _, _ = text_to_path.get_text_width_height_descent(text.replace(KEEP_SPACE, " "), prop, ismath=False)
    return width / 72


def wrap_text(text: str, width: float, size: float = FONT_SIZE, weight: str = "normal") -> list[str]:
    """Lines of ``text`` no wider than ``width`` inches (greedy, at spaces; line breaks kept).

    Words joined by :data:`KEEP_SPACE` stay on one line; a single word wider than
    ``width`` gets a line of its own.
    """
    lines: list[str] = []
    for part in text.split("\n"):
        if text_width(part, size, weight) <= width:
            lines.append(part)
            continue
        line = ""
        for word in part.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and text_width(candidate, size, weight) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return [line.replace(KEEP_SPACE, " ") for line in lines]


def new_figure(height: float, width: float = WIDTH) -> Figure:
    """A figure of the house size with constrained layout (labels never cut off)."""
    return Figure(figsize=(width, height), layout="constrained")


def finish_axes(ax, title: str, xlabel: str = "", ylabel: str = "", grid_axis: str = "x",
                counts: bool = True) -> None:
    """House look of one axes: title, labels, light grid behind the data.

    ``grid_axis`` is the value axis ("x", "y" or "" for none); with ``counts``
    its ticks are whole numbers (no "2.5 records").
    """
    from matplotlib.ticker import MaxNLocator

    ax.set_title(title, loc="left")
    if counts and grid_axis in ("x", "y"):
        getattr(ax, f"{grid_axis}axis").set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if grid_axis:
        ax.grid(axis=grid_axis, color=GRID, linewidth=0.6)
        ax.set_axisbelow(True)
