"""Figure: the credit units from finest (token) to coarsest (team).

Paired horizontal bars give each unit's broad and strict record counts, in
the table's order top to bottom; the units are grouped by their ``bracket``
(e.g. "mostly inherited" from single-agent RL vs "new in LLM-MAS") with a
labelled band, and a unit without any record (broad == 0) is marked as a gap.
"""

from __future__ import annotations

import pandas as pd

from . import style

BAR = 0.38  # height of one bar; a unit's pair takes 2 * BAR


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

    # Bracket bands: alternate shading, name at the band's right end.
    for k, (name, first, last) in enumerate(_runs(brackets)):
        if k % 2 == 0:
            ax.axhspan(first - 0.5, last + 0.5, color="#f3f6f9", zorder=0, linewidth=0)
        if k > 0:
            ax.axhline(first - 0.5, color=style.MUTED, linewidth=0.8, linestyle=(0, (4, 3)))
        ax.text(0.99, (first - 0.5 + 0.12), name, transform=ax.get_yaxis_transform(),
                ha="right", va="top", fontsize=style.SMALL_SIZE, color=style.INK)

    broad_bars = ax.barh([y - BAR / 2 for y in ys], broad, height=BAR, color=style.ACCENT, label="broad")
    strict_bars = ax.barh([y + BAR / 2 for y in ys], strict, height=BAR, color=style.ACCENT_2, label="strict")
    ax.bar_label(broad_bars, labels=[str(v) if v else "" for v in broad], padding=3, fontsize=style.SMALL_SIZE)
    ax.bar_label(strict_bars, labels=[str(v) if v else "" for v in strict], padding=3, fontsize=style.SMALL_SIZE)

    for y, unit, b, st in zip(ys, table.index, broad, strict):
        if b == 0:
            ax.axhspan(y - 0.42, y + 0.42, xmax=0.32, facecolor=style.GAP_FILL, edgecolor=style.GAP,
                       hatch=style.GAP_HATCH, linewidth=0, zorder=0.5, gid=f"gap:{unit}")
            ax.text(top * 0.02, y, f"gap: {b} broad / {st} strict", va="center", ha="left", color=style.GAP,
                    fontsize=style.SMALL_SIZE, fontweight="bold",
                    bbox=dict(facecolor="white", edgecolor="none", pad=1.0))

    ax.set_yticks(ys, labels)
    for tick, b in zip(ax.get_yticklabels(), broad):
        if b == 0:
            tick.set_color(style.GAP)
            tick.set_fontweight("bold")
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(0, top * 1.25)
    style.finish_axes(ax, "Credit units, finest (top) to coarsest (bottom)", xlabel="records",
                      ylabel="credit unit")
    ax.legend(loc="lower right", frameon=False, fontsize=style.SMALL_SIZE, title="records",
              title_fontsize=style.SMALL_SIZE)
    return fig
