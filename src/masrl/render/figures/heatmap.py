"""Figure kind ``heatmap``: a crosstab, every vocabulary value on both axes.

The counts are one ``imshow`` array (so the plotted numbers can be read back
from ``ax.images[0]``). An empty cell is a gap and is drawn as a hatched
cell in the GAP colour with the gap mark (:data:`style.GAP_SYMBOL`); a cell
in the structural row or column (the not-applicable value of the taxonomy) is
not a gap and is greyed instead. The footnote says what the marks mean.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle

from . import style

CMAP = "Blues"


def draw(data: dict, options: dict | None = None):
    """Heatmap of ``data["counts"]`` (rows = values of the crosstab's row field, columns = values of
    its column field, int). ``options``: the declaration's ``title`` (default: the row field's label
    × the column field's, from the data).

    ``data``: ``{"counts": [[int]], "rows": [label], "columns": [label], "row_codes": [code],
    "column_codes": [code], "structural": code of the not-applicable value, "row_title": str,
    "column_title": str}``, rows and columns in taxonomy order. Non-empty cells
    carry their count; empty cells outside the structural row and column are
    hatched gaps; structural cells are greyed (their count, if any, shown).
    """
    rows, cols = list(data["row_codes"]), list(data["column_codes"])
    counts = np.asarray(data["counts"], dtype=np.int64).reshape(len(rows), len(cols))
    structural = data.get("structural")

    def is_structural(r: str, c: str) -> bool:
        return r == structural or c == structural

    # Colour scale from the substantive cells, so the mass of the structural cells does not wash them out.
    substantive = [counts[i, j] for i, r in enumerate(rows) for j, c in enumerate(cols) if not is_structural(r, c)]
    norm = Normalize(vmin=0, vmax=max(substantive + [1]))

    row_labels, col_labels = style.tick_labels(data["rows"]), style.tick_labels(data["columns"], width=1.6)
    width, height = _size(row_labels, col_labels)
    fig = style.new_figure(height=height, width=width)
    ax = fig.add_subplot()
    ax.imshow(counts, cmap=CMAP, norm=norm, aspect="auto", interpolation="nearest")

    cmap = ax.images[0].get_cmap()
    for i, reward in enumerate(rows):
        for j, credit in enumerate(cols):
            value = int(counts[i, j])
            cell = dict(xy=(j - 0.5, i - 0.5), width=1, height=1)
            if is_structural(reward, credit):
                ax.add_patch(Rectangle(**cell, facecolor=style.STRUCTURAL, edgecolor="none",
                                       gid=f"structural:{reward}:{credit}"))
                if value:
                    ax.text(j, i, str(value), ha="center", va="center", color=style.MUTED,
                            fontsize=style.FONT_SIZE)
            elif value == 0:
                ax.add_patch(Rectangle(**cell, facecolor=style.GAP_FILL, edgecolor=style.GAP,
                                       hatch=style.GAP_HATCH, linewidth=0, gid=f"gap:{reward}:{credit}"))
                ax.text(j, i, style.GAP_SYMBOL, ha="center", va="center", color=style.GAP,
                        fontsize=style.FONT_SIZE, fontweight="bold")
            else:
                r, g, b, _ = cmap(norm(value))
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
                ax.text(j, i, str(value), ha="center", va="center", fontsize=style.FONT_SIZE,
                        fontweight="bold", color="white" if dark else style.INK)

    # White cell borders.
    ax.set_xticks(np.arange(len(cols) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(rows) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    ax.tick_params(which="major", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)

    # Upright column labels: a slanted label's box would reach over its neighbour's.
    ax.set_xticks(range(len(cols)), col_labels, rotation=90)
    ax.set_yticks(range(len(rows)), row_labels)
    ax.set_xlim(-0.5, len(cols) - 0.5)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    row_title, col_title = str(data.get("row_title", "")), str(data.get("column_title", ""))
    title = f"{row_title} × {col_title.lower()}" if row_title and col_title else "Records per cell"
    title = str((options or {}).get("title") or title)
    style.finish_axes(ax, title, xlabel=col_title.lower(), ylabel=row_title.lower(), grid_axis="")
    return fig


#: The least room of a cell (inches) and the house size of the figure, which grows past it for many values.
CELL = 0.26
HEIGHT = 4.6


def _size(row_labels: list[str], col_labels: list[str]) -> tuple[float, float]:
    """``(width, height)`` in inches: the house size, or more where the rows' and columns' labels need it (each row
    and column as tall or wide as its label's lines, every cell at least :data:`CELL`), so that labels of many values
    never print over each other."""
    line = style.line_height(style.FONT_SIZE)
    lines = lambda label: label.count("\n") + 1  # noqa: E731
    widest = lambda labels: max((style.text_width(part) for label in labels for part in label.split("\n")), default=0)  # noqa: E731
    rows = sum(max(CELL, lines(label) * line * 1.15) for label in row_labels)
    cols = sum(max(CELL, lines(label) * line * 1.15) for label in col_labels)
    height = max(HEIGHT, rows + widest(col_labels) + 0.8)
    width = max(style.WIDTH, cols + widest(row_labels) + 1.0)
    return width, height
