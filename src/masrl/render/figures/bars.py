"""Figure kind ``bars``: one horizontal bar per row of a table, first row on top."""

from __future__ import annotations

from masrl.core.tabular import pd

from . import style


def draw(table: pd.DataFrame, options: dict):
    """Bars of ``table[options["values"]]`` labelled with ``table[options["labels"]]``.

    ``table``: any report table (a field's count table has the columns ``label`` and ``count``);
    ``options``: ``labels`` and ``values`` (column names), ``title``, ``xlabel`` (default
    ``records``), ``height`` (inches, default 2.6) and ``bar_height`` (share of a row, default
    0.8). Every bar carries its number, zero included.
    """
    labels = style.tick_labels(table[options["labels"]])[::-1]
    counts = [int(v) for v in table[options["values"]]][::-1]
    lines = sum(label.count("\n") + 1 for label in labels)
    height = float(options.get("height", 2.6))
    if lines > len(labels):  # wrapped labels: the rows grow so that no label runs into the next
        height = max(height, 1.2 + lines * style.line_height() * 1.6)
    fig = style.new_figure(height=height)
    ax = fig.add_subplot()
    positions = list(range(len(labels)))
    bars = ax.barh(positions, counts, color=style.ACCENT, height=float(options.get("bar_height", 0.8)))
    ax.bar_label(bars, labels=[str(c) for c in counts], padding=3, fontsize=style.FONT_SIZE)
    ax.set_yticks(positions, labels)
    ax.set_xlim(0, max(counts + [1]) * 1.12)
    style.finish_axes(ax, str(options.get("title", "")), xlabel=str(options.get("xlabel", "records")))
    return fig
