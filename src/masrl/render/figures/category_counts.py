"""Figure: retained records per category (horizontal bars, taxonomy order)."""

from __future__ import annotations

import pandas as pd

from . import style


def draw(table: pd.DataFrame):
    """Bars of ``table["count"]`` labelled with ``table["label"]`` (index = category codes,
    the count table of ``category``); every bar carries its number, zero included."""
    fig = style.new_figure(height=2.6)
    ax = fig.add_subplot()
    labels = list(table["label"])[::-1]
    counts = [int(v) for v in table["count"]][::-1]
    positions = list(range(len(labels)))
    bars = ax.barh(positions, counts, color=style.ACCENT)
    ax.bar_label(bars, labels=[str(c) for c in counts], padding=3, fontsize=style.FONT_SIZE)
    ax.set_yticks(positions, labels)
    ax.set_xlim(0, max(counts + [1]) * 1.12)
    style.finish_axes(ax, "Retained records by category", xlabel="records")
    return fig
