"""The one style of every masrl figure: colours, fonts, sizes, literal text, footnotes.

All figures are drawn on ``matplotlib.figure.Figure`` with the Agg canvas (no
pyplot, no GUI) inside :func:`style_context`, which also makes text literal:
``text.parse_math`` is off, so a label holding ``$``, ``#``, ``_`` or ``%``
is drawn as written and can never fail as mathtext.

Fonts are embedded deliberately: SVG text is drawn as paths (the figure
looks the same in every browser, with no font to fetch); PDF text uses
Type 3 fonts, which hold just the glyphs used and are fast to write (the
Type 42 alternative spends most of a build subsetting TrueType files).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import warnings

import matplotlib

matplotlib.use("Agg", force=False)

from matplotlib.figure import Figure  # noqa: E402

from .marks import FONT_FILES, GAP_SYMBOL  # noqa: E402,F401  (GAP_SYMBOL re-exported: the one gap mark of every figure)

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
STRUCTURAL = "#e8e8e8"  # cells that are empty by construction (not applicable), not gaps
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
    "pdf.fonttype": 3,
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "path.simplify": True,
    "hatch.linewidth": 0.7,
}


@contextlib.contextmanager
def _defaults():
    """matplotlib's own defaults (its bundled ``matplotlibrc``, never the user's) with :data:`RC`
    over them, restored to what they were on the way out."""
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        matplotlib.rcParams.update(RC)
        yield


@functools.lru_cache(maxsize=1)
def _house_entries() -> tuple:
    """matplotlib's font entries of :data:`masrl.render.figures.marks.FONT_FILES`, read from the files
    themselves (their family, weight and style as the font manager would list them)."""
    from matplotlib import font_manager, ft2font

    from .marks import font_files

    files = font_files()
    if not files:
        raise RuntimeError("matplotlib's bundled DejaVu Sans fonts are missing (mpl-data/fonts/ttf); reinstall matplotlib")
    return tuple(font_manager.ttfFontProperty(ft2font.FT2Font(str(files[name]))) for name in sorted(set(FONT_FILES.values())))


@contextlib.contextmanager
def house_fonts():
    """Within it, matplotlib finds every font among the house fonts alone, named by path
    (:data:`FONT_FILES`): not in the user's font list (``~/.cache/matplotlib``, ``MPLCONFIGDIR``),
    whose order and content other installs rewrite, and never a system font of the same name."""
    from matplotlib import font_manager

    manager = font_manager.fontManager
    saved = manager.ttflist
    manager.ttflist = list(_house_entries())
    font_manager.FontManager._findfont_cached.cache_clear()  # noqa: SLF001  (answers found in the user's list)
    try:
        yield
    finally:
        manager.ttflist = saved
        font_manager.FontManager._findfont_cached.cache_clear()  # noqa: SLF001


@contextlib.contextmanager
def style_context():
    """Draw with matplotlib's defaults and :data:`RC` (a user's matplotlibrc changes nothing) and
    the house fonts by path (:func:`house_fonts`); collapse missing-glyph warnings.

    A title in a script the font lacks (CJK, say) would make matplotlib warn
    once per glyph; inside this context those warnings are collected and
    reported once per figure batch by :func:`missing_glyphs` instead.
    """
    with _defaults(), house_fonts(), warnings.catch_warnings(record=True) as caught:
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


@functools.lru_cache(maxsize=65536)
def text_width(text: str, size: float = FONT_SIZE, weight: str = "normal") -> float:
    """Width in inches of one line of ``text`` in the house font, from the font's metrics
    (no renderer, no drawing); remembered per text, size and weight (the font files are masrl's own,
    :data:`masrl.render.figures.marks.FONT_FILES`: a figure measures its labels again at every build)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    from .marks import font_files

    name = FONT_FILES[("bold" if weight == "bold" else "normal", "normal")]
    prop = FontProperties(fname=str(font_files()[name]), size=size, weight=weight)
    width, _, _ = text_to_path.get_text_width_height_descent(text.replace(KEEP_SPACE, " "), prop, ismath=False)
    return width / 72


def wrap_text(text: str, width: float, size: float = FONT_SIZE, weight: str = "normal",
              break_words: bool = False) -> list[str]:
    """Lines of ``text`` no wider than ``width`` inches (greedy, at spaces; line breaks kept).

    Words joined by :data:`KEEP_SPACE` stay on one line. A single word wider
    than ``width`` gets a line of its own, or with ``break_words`` is cut into
    pieces that fit.
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
            while break_words and len(line) > 1 and text_width(line, size, weight) > width:
                cut = len(line) - 1
                while cut > 1 and text_width(line[:cut], size, weight) > width:
                    cut -= 1
                lines.append(line[:cut])
                line = line[cut:]
        lines.append(line)
    return [line.replace(KEEP_SPACE, " ") for line in lines]


#: The widest a tick label may be (inches), and its most lines: a longer value label is wrapped, then cut
#: with an ellipsis, so that one long label never crops the others (a constrained layout gives the axes
#: what is left).
TICK_WIDTH = 3.0
TICK_LINES = 2


def tick_label(text: str, width: float = TICK_WIDTH, size: float = FONT_SIZE, lines: int = TICK_LINES) -> str:
    """``text`` wrapped to ``width`` inches in at most ``lines`` lines, the last cut with ``…`` when
    more would be needed (the tables keep the whole label)."""
    wrapped = wrap_text(text, width, size, break_words=True)
    if len(wrapped) <= lines:
        return "\n".join(wrapped)
    last = " ".join(wrapped[lines - 1:])
    while last and text_width(last + "…", size) > width:
        last = last[:-1]
    return "\n".join([*wrapped[:lines - 1], last.rstrip() + "…"])


def tick_labels(texts, width: float = TICK_WIDTH, size: float = FONT_SIZE, lines: int = TICK_LINES) -> list[str]:
    """:func:`tick_label` of each of ``texts``, told apart: two labels that would be cut to the same text (they
    differ only at their ends: "... laboratory A", "... laboratory B") keep their ends instead, the cut in the
    middle (``near-infrared…laboratory A``)."""
    texts = [str(t) for t in texts]
    fitted = [tick_label(t, width, size, lines) for t in texts]
    seen: dict[str, set[str]] = {}
    for text, label in zip(texts, fitted):
        seen.setdefault(label, set()).add(text)
    out = [_middle_cut(text, width, size, lines) if len(seen[label]) > 1 else label for text, label in zip(texts, fitted)]
    told: dict[str, list[str]] = {}
    for text, label in zip(texts, out):
        told.setdefault(label, [])
        if text not in told[label]:
            told[label].append(text)
    # still alike (they differ only in their middle): numbered in order, as a legend's or an axis's reader counts them
    return [f"{label} [{told[label].index(text) + 1}]" if len(told[label]) > 1 else label for text, label in zip(texts, out)]


def _middle_cut(text: str, width: float, size: float, lines: int) -> str:
    """``text`` with as much of its start and of its end as fits ``lines`` lines of ``width``, cut in the middle
    (the most characters kept that fit, found by halving)."""
    def cut(keep: int) -> str:
        return f"{text[:keep // 2].rstrip()}…{text[len(text) - (keep - keep // 2):].lstrip()}"

    def fits(keep: int) -> bool:
        return len(wrap_text(cut(keep), width, size, break_words=True)) <= lines

    low, high = 2, len(text) - 1  # low: nothing kept fits anyway; high: one character cut
    if not fits(low):
        return tick_label(text, width, size, lines)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return "\n".join(wrap_text(cut(low), width, size, break_words=True))


def line_height(size: float = FONT_SIZE, spacing: float = 1.22) -> float:
    """Height in inches of one line of text at ``size`` points with line ``spacing``."""
    return size * spacing / 72


def new_figure(height: float, width: float = WIDTH, layout: str | None = "constrained") -> Figure:
    """A figure of the house size; with constrained layout (labels never cut off) unless
    ``layout`` is None (a figure that places everything itself, in inches)."""
    return Figure(figsize=(width, height), layout=layout)


FOOTNOTE_PAD = 0.08     # inches around the footnote block
FOOTNOTE_GAP = 0.06     # inches between the figure's content and its footnote


def add_footnote(fig: Figure, lines) -> None:
    """Write ``lines`` (n, what is left out, other notes) under everything else of ``fig``.

    The figure grows by the height of the wrapped lines, so nothing it holds
    moves or shrinks: a constrained layout keeps the old area (its ``rect``),
    axes placed by hand keep their size in inches. Legends of the figure must
    not be placed at its bottom (they would sit on the footnote); every masrl
    figure places them elsewhere. The text carries the gid ``footnote``.
    """
    lines = [str(line) for line in lines if str(line).strip()]
    if not lines:
        return
    width, height = fig.get_size_inches()
    wrapped = [part for line in lines for part in wrap_text(line, width - 2 * FOOTNOTE_PAD, SMALL_SIZE)]
    extra = len(wrapped) * line_height(SMALL_SIZE) + 2 * FOOTNOTE_PAD + FOOTNOTE_GAP
    total = height + extra
    fig.set_size_inches(width, total)
    engine = fig.get_layout_engine()
    if engine is not None and hasattr(engine, "set") and "rect" in engine.get():
        engine.set(rect=(0, extra / total, 1, height / total))
    for ax in fig.axes:
        if ax.get_subplotspec() is None:  # placed by hand: keep its inches, above the footnote
            x0, y0, w, h = ax.get_position().bounds
            ax.set_position((x0, (y0 * height + extra) / total, w, h * height / total))
    fig.text(FOOTNOTE_PAD / width, FOOTNOTE_PAD / total, "\n".join(wrapped), ha="left", va="bottom",
             fontsize=SMALL_SIZE, color=MUTED, linespacing=1.22, gid="footnote")


def finish_axes(ax, title: str, xlabel: str = "", ylabel: str = "", grid_axis: str = "x",
                counts: bool = True, title_pad: float | None = None) -> None:
    """House look of one axes: title, labels, light grid behind the data.

    ``grid_axis`` is the value axis ("x", "y" or "" for none); with ``counts``
    its ticks are whole numbers (no "2.5 records"). ``title_pad`` (points)
    lifts the title, e.g. over a legend placed just above the axes.
    """
    from matplotlib.ticker import MaxNLocator

    ax.set_title(_fitted_title(ax, title, ylabel), loc="left", pad=title_pad)
    if counts and grid_axis in ("x", "y"):
        getattr(ax, f"{grid_axis}axis").set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if grid_axis:
        ax.grid(axis=grid_axis, color=GRID, linewidth=0.6)
        ax.set_axisbelow(True)


def _fitted_title(ax, title: str, ylabel: str) -> str:
    """``title`` wrapped to the width left of the figure right of the axes' labels (the title starts where
    the axes do): one left-aligned line that long labels push past the figure's edge is wrapped instead."""
    labels = [t.get_text() for t in ax.get_yticklabels()]
    left = max((text_width(line) for label in labels for line in label.split("\n")), default=0.0)
    left += (line_height() + 0.06 if ylabel else 0.0) + 0.1  # the axis label and its pad, the tick pad, the margin
    room = ax.figure.get_size_inches()[0] - left - 0.05
    if text_width(title, TITLE_SIZE, "bold") <= room:
        return title
    return "\n".join(wrap_text(title, max(room - 0.2, 1.0), TITLE_SIZE, "bold", break_words=True))  # with room to spare


def inch_canvas(height: float, width: float):
    """``(fig, ax)``: a figure of ``width`` x ``height`` inches whose one axes spans it, with data
    coordinates in inches from the bottom-left and no axis drawn (for figures laid out box by box:
    the flow diagram, the chain)."""
    fig = new_figure(height=height, width=width, layout=None)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")
    return fig, ax
