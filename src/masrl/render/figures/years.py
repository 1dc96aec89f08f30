"""Figure kind ``years``: retained records per publication year, stacked by the values of a field.

One slot per row of the table (the plotted data bins early years into one
first slot, ``before <year>``, so the axis goes to the years that hold the
records). Years without a record stay visible as a grey slot (a quiet year,
not a gap of the taxonomy, so not in the GAP colour, which is also kept out
of the values' colours); every non-empty slot carries its total above the bar, and
every slot its label. Each value has its own colour, the same in every figure (hatched past the palette's
colours), and the figure grows to hold its legend.
"""

from __future__ import annotations

from masrl.core.tabular import pd

from . import style
from .colours import PALETTE


#: The widest a legend entry may be (inches): a longer value label is wrapped (at most three lines, then cut with
#: an ellipsis), so that the legend never squeezes the plot until the year labels run into each other.
LEGEND_WIDTH = 1.7


def draw(table: pd.DataFrame, options: dict):
    """Stacked bars of ``table`` per slot.

    ``table``: index = year labels (str, e.g. ``before 2017``, ``2017``, ...,
    in order), columns = the values stacked (in column order, named as written
    in the legend), integer counts. ``options``: ``title``, ``legend_title`` and ``colours``
    (column -> colour: each value's own, :func:`masrl.render.figures.colours.value_colours`).
    """
    slots = [str(y) for y in table.index]
    categories = [str(c) for c in table.columns]
    totals = [int(v) for v in table.sum(axis=1)]
    xs = list(range(len(slots)))

    colours, hatches = options.get("colours") or {}, options.get("hatches") or {}
    labels = style.tick_labels(categories, LEGEND_WIDTH, style.SMALL_SIZE, 3)
    fig = style.new_figure(height=max(3.4, _legend_height(labels, str(options.get("legend_title", ""))) + 1.2))
    ax = fig.add_subplot()
    bottom = [0] * len(slots)
    for k, category in enumerate(categories):
        values = [int(v) for v in table[category]]
        ax.bar(xs, values, bottom=bottom, width=0.8, label=labels[k], hatch=hatches.get(category) or None,
               color=colours.get(category) or PALETTE[k % len(PALETTE)], edgecolor="white", linewidth=0.4)
        bottom = [b + v for b, v in zip(bottom, values)]

    top = max(totals + [1])
    for x, slot, total in zip(xs, slots, totals):
        if total:
            ax.text(x, total + top * 0.015, str(total), ha="center", va="bottom",
                    fontsize=style.SMALL_SIZE, gid=f"total:{slot}")
        else:
            ax.axvspan(x - 0.5, x + 0.5, facecolor=style.STRUCTURAL, alpha=0.6, edgecolor="none", zorder=0,
                       gid=f"empty:{slot}")

    ax.set_xlim(-0.6, len(slots) - 0.4)
    ax.set_xticks(xs, [slot.replace(" ", "\n", 1) for slot in slots])
    ax.set_ylim(0, top * 1.12)
    style.finish_axes(ax, str(options.get("title", "Retained records per publication year")), xlabel="year",
                      ylabel="records", grid_axis="y")
    # Right of the plot, where no bar can reach it.
    ax.legend(title=style.tick_label(str(options.get("legend_title", "")), LEGEND_WIDTH, style.SMALL_SIZE, 2), loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
              fontsize=style.SMALL_SIZE, title_fontsize=style.SMALL_SIZE, alignment="left")
    return fig


def _legend_height(labels: list[str], title: str) -> float:
    """Inches the legend right of the plot takes: its title and every line of its entries, with matplotlib's spacing
    between entries (``legend.labelspacing``, 0.5 of the font size). The figure grows to it, so that a field of many
    values never runs its legend off the figure."""
    lines = sum(label.count("\n") + 1 for label in labels) + (1 if title else 0)
    return lines * style.line_height(style.SMALL_SIZE) + len(labels) * 0.5 * style.SMALL_SIZE / 72 + 0.3
