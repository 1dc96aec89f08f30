"""Figure: the credit units from finest (token) to coarsest (team).

Paired horizontal bars give each unit's broad and strict record counts, in
the table's order top to bottom; every bar carries its number, zero
included, so a unit without records is drawn as zero. Such a unit is a gap:
its tick label carries the gap mark (:data:`style.GAP_SYMBOL`) in the GAP
colour. The units are grouped by their ``bracket`` (e.g. "mostly inherited"
from single-agent RL vs "new in LLM-MAS") with alternately shaded bands,
named in the margin right of the plot so no bar can run into a name.
"""

from __future__ import annotations

import pandas as pd

from . import style

BAR = 0.38            # height of one bar; a unit's pair takes 2 * BAR
BRACKET_WIDTH = 1.0   # inches the bracket names may take right of the plot
LEGEND_PAD = 20       # points between the plot and its title, room for the one-row legend


def _runs(values: list[str]) -> list[tuple[str, int, int]]:
    """``(value, first, last)`` index ranges of consecutive equal values."""
    runs: list[tuple[str, int, int]] = []
    for i, v in enumerate(values):
        if runs and runs[-1][0] == v:
            runs[-1] = (v, runs[-1][1], i)
        else:
            runs.append((v, i, i))
    return runs


def draw(table: pd.DataFrame):
    """Paired bars of ``table["broad"]`` and ``table["strict"]`` per unit.

    ``table``: index = credit units finest -> coarsest, columns ``label`` (tick
    label), ``bracket`` (group name; consecutive units of one bracket form a
    band), ``broad`` and ``strict`` (int counts), ``representatives`` (not drawn).
    """
    labels = [str(v) for v in table["label"]]
    brackets = [str(v) for v in table["bracket"]]
    broad = [int(v) for v in table["broad"]]
    strict = [int(v) for v in table["strict"]]
    n = len(labels)
    ys = list(range(n))
    top = max(broad + strict + [1])

    fig = style.new_figure(height=3.8)
    ax = fig.add_subplot()

    # Bracket bands: alternate shading; the name in the right margin, at the band's top.
    for k, (name, first, last) in enumerate(_runs(brackets)):
        if k % 2 == 0:
            ax.axhspan(first - 0.5, last + 0.5, color="#f3f6f9", zorder=0, linewidth=0)
        if k > 0:
            ax.axhline(first - 0.5, color=style.MUTED, linewidth=0.8, linestyle=(0, (4, 3)))
        if name:
            ax.text(1.02, first - 0.42, "\n".join(style.wrap_text(name, BRACKET_WIDTH, style.SMALL_SIZE)),
                    transform=ax.get_yaxis_transform(), ha="left", va="top", fontsize=style.SMALL_SIZE,
                    color=style.INK, linespacing=1.1, gid=f"bracket:{k}")

    broad_bars = ax.barh([y - BAR / 2 for y in ys], broad, height=BAR, color=style.ACCENT, label="broad")
    strict_bars = ax.barh([y + BAR / 2 for y in ys], strict, height=BAR, color=style.ACCENT_2, label="strict")
    ax.bar_label(broad_bars, labels=[str(v) for v in broad], padding=3, fontsize=style.SMALL_SIZE)
    ax.bar_label(strict_bars, labels=[str(v) for v in strict], padding=3, fontsize=style.SMALL_SIZE)

    ticks = [f"{style.GAP_SYMBOL} {label}" if b == 0 else label for label, b in zip(labels, broad)]
    ax.set_yticks(ys, ticks)
    for tick, unit, b in zip(ax.get_yticklabels(), table.index, broad):
        if b == 0:
            tick.set_color(style.GAP)
            tick.set_fontweight("bold")
            tick.set_gid(f"gap:{unit}")
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(0, top * 1.15)
    # The legend sits just above the plot, on its right; the title is lifted over it.
    style.finish_axes(ax, "Credit units, finest (top) to coarsest (bottom)", xlabel="records",
                      ylabel="credit unit", title_pad=LEGEND_PAD)
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=2, frameon=False, fontsize=style.SMALL_SIZE,
              borderaxespad=0.2, borderpad=0.1)
    return fig
