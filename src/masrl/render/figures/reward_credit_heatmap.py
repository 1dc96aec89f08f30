"""Figure: reward type x credit granularity, every vocabulary value on both axes.

The counts are one ``imshow`` array (so the plotted numbers can be read back
from ``ax.images[0]``). An empty cell is a gap of the field and is drawn as a
hatched cell in the GAP colour with an "×"; a cell in the ``NA`` row or
column (no reward / no credit unit reported) is structural, not a gap, and is
greyed instead.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.colors import Normalize
from matplotlib.patches import Patch, Rectangle

from . import style

#: The vocabulary value meaning "not applicable / not reported" on either axis.
NA_VALUE = "NA"
CMAP = "Blues"


def _is_structural(reward: str, credit: str) -> bool:
    return reward == NA_VALUE or credit == NA_VALUE


def draw(table: pd.DataFrame):
    """Heatmap of ``table``: index = every ``reward_type`` value (taxonomy order, rows),
    columns = every ``credit_granularity`` value (columns), integer counts.

    Non-empty cells carry their count; empty cells outside the ``NA`` row and
    column are hatched gaps; ``NA`` cells are greyed (their count, if any, shown).
    """
    rewards = [str(v) for v in table.index]
    credits = [str(v) for v in table.columns]
    counts = table.to_numpy(dtype=np.int64)

    # Colour scale from the substantive cells, so the NA x NA mass does not wash them out.
    substantive = [counts[i, j] for i, r in enumerate(rewards) for j, c in enumerate(credits)
                   if not _is_structural(r, c)]
    vmax = max(substantive + [1])
    norm = Normalize(vmin=0, vmax=vmax)

    fig = style.new_figure(height=4.6)
    ax = fig.add_subplot()
    ax.imshow(counts, cmap=CMAP, norm=norm, aspect="auto", interpolation="nearest")

    cmap = ax.images[0].get_cmap()
    for i, reward in enumerate(rewards):
        for j, credit in enumerate(credits):
            value = int(counts[i, j])
            cell = dict(xy=(j - 0.5, i - 0.5), width=1, height=1)
            if _is_structural(reward, credit):
                ax.add_patch(Rectangle(**cell, facecolor=style.STRUCTURAL, edgecolor="none",
                                       gid=f"structural:{reward}:{credit}"))
                if value:
                    ax.text(j, i, str(value), ha="center", va="center", color=style.MUTED,
                            fontsize=style.FONT_SIZE)
            elif value == 0:
                ax.add_patch(Rectangle(**cell, facecolor=style.GAP_FILL, edgecolor=style.GAP,
                                       hatch=style.GAP_HATCH, linewidth=0, gid=f"gap:{reward}:{credit}"))
                ax.text(j, i, "×", ha="center", va="center", color=style.GAP,
                        fontsize=style.FONT_SIZE, fontweight="bold")
            else:
                r, g, b, _ = cmap(norm(value))
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
                ax.text(j, i, str(value), ha="center", va="center", fontsize=style.FONT_SIZE,
                        fontweight="bold", color="white" if dark else style.INK)

    # White cell borders.
    ax.set_xticks(np.arange(len(credits) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(rewards) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    ax.tick_params(which="major", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)

    ax.set_xticks(range(len(credits)), credits, rotation=30, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(len(rewards)), rewards)
    ax.set_xlim(-0.5, len(credits) - 0.5)
    ax.set_ylim(len(rewards) - 0.5, -0.5)
    style.finish_axes(ax, f"Reward type × credit granularity (n = {int(counts.sum())})",
                      xlabel=str(table.columns.name or "").replace("_", " "),
                      ylabel=str(table.index.name or "").replace("_", " "), grid_axis="")

    handles = [
        Patch(facecolor=style.GAP_FILL, edgecolor=style.GAP, hatch=style.GAP_HATCH, linewidth=0,
              label="× empty cell: gap (no record)"),
        Patch(facecolor=style.STRUCTURAL, edgecolor="none",
              label=f"{NA_VALUE} row / column: structural, not a gap"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, frameon=False,
               fontsize=style.SMALL_SIZE, handlelength=1.6, handleheight=1.2)
    return fig
