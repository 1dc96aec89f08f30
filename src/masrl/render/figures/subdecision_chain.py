"""Figure: the chain of orchestration sub-decisions O1 -> O2 -> ... with records by RL status.

Each sub-decision is a box (id, name, number of records, anchor records) with
a small stacked bar of its records by RL status (explicit RL / partial /
none) on one scale shared by all boxes; arrows link the boxes in order. A
sub-decision whose ``gap`` is non-empty (uncovered) is drawn in the GAP
colour (filled, dashed outline) with its gap note instead of a bar.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.patches import FancyBboxPatch, Patch, Rectangle

from . import style

#: RL-status columns in stacking order, with their colours.
STATUSES = (("explicit RL", style.ACCENT), ("partial", style.ACCENT_2), ("none", "#b3b3b3"))

BOX_W = 0.80      # box width, in units of one chain step
BOX_Y0, BOX_Y1 = 0.06, 0.97
BAR_Y, BAR_H = 0.40, 0.11
SIDE_MARGIN = 0.10  # inches the constrained layout leaves around the (axis-off) axes
TEXT_PAD = 0.05     # inches kept free inside a box on each side of its text


def draw(table: pd.DataFrame):
    """Chain of boxes, one per row of ``table`` in order.

    ``table``: index = sub-decision ids (O1..O5), columns ``sub-decision``
    (name), ``anchors`` (str), ``records`` (int), ``explicit RL``, ``partial``,
    ``none`` (int counts by RL status) and ``gap`` (str; non-empty = uncovered).
    """
    ids = [str(v) for v in table.index]
    n = len(ids)
    stacked = table[[status for status, _ in STATUSES]].sum(axis=1)
    top = max([int(v) for v in table["records"]] + [int(v) for v in stacked] + [1])
    inner = BOX_W * 0.86
    unit = inner / top  # width of one record in the stacked bars

    box_w = BOX_W * (style.WIDTH - SIDE_MARGIN) / max(n, 1)  # inches
    text_w = box_w - 2 * TEXT_PAD

    fig = style.new_figure(height=2.9)
    ax = fig.add_subplot()
    ax.set_xlim(0, max(n, 1))
    ax.set_ylim(0, 1)
    ax.axis("off")

    for k, (oid, row) in enumerate(zip(ids, table.itertuples(index=False))):
        values = dict(zip(table.columns, row))
        left = k + (1 - BOX_W) / 2
        centre = k + 0.5
        gap = str(values["gap"] or "").strip()
        ax.add_patch(FancyBboxPatch(
            (left, BOX_Y0), BOX_W, BOX_Y1 - BOX_Y0, boxstyle="round,pad=0,rounding_size=0.04",
            facecolor=style.GAP_FILL if gap else "white", edgecolor=style.GAP if gap else style.MUTED,
            linewidth=1.8 if gap else 0.9, linestyle=(0, (5, 2)) if gap else "solid", gid=f"box:{oid}"))
        ink = style.GAP if gap else style.INK
        ax.text(centre, BOX_Y1 - 0.05, oid, ha="center", va="top", fontweight="bold",
                fontsize=style.TITLE_SIZE, color=ink)
        ax.text(centre, BOX_Y1 - 0.19, "\n".join(style.wrap_text(str(values["sub-decision"]), text_w)),
                ha="center", va="top", color=ink, linespacing=1.1)
        records = int(values["records"])
        ax.text(centre, BAR_Y + BAR_H + 0.03, f"{records} record{'' if records == 1 else 's'}",
                ha="center", va="bottom", fontsize=style.SMALL_SIZE, color=ink, gid=f"records:{oid}")
        if gap:
            ax.text(centre, BAR_Y + BAR_H / 2, gap, ha="center", va="center", color=style.GAP,
                    fontweight="bold", fontsize=style.SMALL_SIZE,
                    bbox=dict(facecolor="white", edgecolor=style.GAP, boxstyle="round,pad=0.25"))
        x = centre - inner / 2
        for status, colour in STATUSES:
            count = int(values[status])
            if count == 0:
                continue
            ax.add_patch(Rectangle((x, BAR_Y), count * unit, BAR_H, facecolor=colour, edgecolor="white",
                                   linewidth=0.8, gid=f"bar:{oid}:{status}"))
            ax.text(x + count * unit / 2, BAR_Y + BAR_H / 2, str(count), ha="center", va="center",
                    fontsize=style.SMALL_SIZE, fontweight="bold", color="white" if status != "none" else style.INK)
            x += count * unit
        anchors = "\n".join(style.wrap_text(f"anchors: {values['anchors']}", text_w, style.SMALL_SIZE))
        ax.text(centre, BAR_Y - 0.06, anchors, ha="center", va="top", fontsize=style.SMALL_SIZE,
                color=style.MUTED, linespacing=1.1)
        if k + 1 < n:
            ax.annotate("", xy=(k + 1 + (1 - BOX_W) / 2, 0.5 * (BOX_Y0 + BOX_Y1)),
                        xytext=(left + BOX_W, 0.5 * (BOX_Y0 + BOX_Y1)),
                        arrowprops=dict(arrowstyle="-|>", color=style.INK, linewidth=1.2,
                                        shrinkA=1, shrinkB=1, mutation_scale=12))

    ax.set_title(f"Orchestration sub-decisions {ids[0]} to {ids[-1]}: records by RL status" if ids
                 else "Orchestration sub-decisions", loc="left")
    handles = [Patch(facecolor=c, label=s) for s, c in STATUSES]
    handles.append(Patch(facecolor=style.GAP_FILL, edgecolor=style.GAP, linestyle=(0, (3, 1)),
                         label="uncovered sub-decision (gap)"))
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), frameon=False,
               fontsize=style.SMALL_SIZE, handlelength=1.6)
    return fig
