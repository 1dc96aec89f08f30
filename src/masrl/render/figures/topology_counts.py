"""Figure: retained records per orchestration form (topology), horizontal bars in table order."""

from __future__ import annotations

import pandas as pd

from . import style


def draw(table: pd.DataFrame):
    """Bars of ``table["count"]`` labelled with ``table["topology"]``, first row on top.

    ``table``: index = orchestration forms (centralized, planner_executor_critic, ...),
    columns ``topology`` (display name), ``defining feature`` (str), ``count``
    (int) and ``representatives`` (str); only ``topology`` and ``count`` are
    drawn. Each bar carries its number, zero included. Records without a form
    are not in the table; the footnote says how many.
    """
    names = [str(v) for v in table["topology"]][::-1]
    counts = [int(v) for v in table["count"]][::-1]
    fig = style.new_figure(height=2.8)
    ax = fig.add_subplot()
    positions = list(range(len(names)))
    bars = ax.barh(positions, counts, color=style.ACCENT, height=0.7)
    ax.bar_label(bars, labels=[str(c) for c in counts], padding=3, fontsize=style.FONT_SIZE)
    ax.set_yticks(positions, names)
    ax.set_xlim(0, max(counts + [1]) * 1.12)
    style.finish_axes(ax, "Retained records by orchestration form (topology)", xlabel="records")
    return fig
