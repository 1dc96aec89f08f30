"""Figure: retained records per publication year, stacked by category.

Every year of the table is a slot on the x axis, so years without a record
stay visible: each run of empty years is shaded grey and a long run is
labelled with its span (a quiet period, not a gap of the taxonomy, so not in
the GAP colour, which is also kept out of the category palette). Year labels are thinned to keep ~30+ years readable; each
non-empty year carries its total above the bar.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.ticker import FixedLocator, MultipleLocator

from . import style

LABEL_EVERY = 5  # label years divisible by this (plus the first and last year)


def _empty_runs(years: list[int], totals: list[int]) -> list[tuple[int, int]]:
    """``(first, last)`` year of each run of consecutive years with no record."""
    runs: list[tuple[int, int]] = []
    for year, total in zip(years, totals):
        if total:
            continue
        if runs and runs[-1][1] == year - 1:
            runs[-1] = (runs[-1][0], year)
        else:
            runs.append((year, year))
    return runs


def draw(table: pd.DataFrame):
    """Stacked bars of ``table`` per year.

    ``table``: index = year (int, every year from the earliest to the latest,
    empty years included), columns = category codes (stacked in column order,
    named as written in the legend), integer counts.
    """
    years = [int(y) for y in table.index]
    categories = [str(c) for c in table.columns]
    totals = [int(v) for v in table.sum(axis=1)]

    fig = style.new_figure(height=3.4)
    ax = fig.add_subplot()
    palette = [c for c in style.CATEGORICAL if c != style.GAP]
    bottom = [0] * len(years)
    for k, category in enumerate(categories):
        values = [int(v) for v in table[category]]
        ax.bar(years, values, bottom=bottom, width=0.8, label=category,
               color=palette[k % len(palette)], edgecolor="white", linewidth=0.4)
        bottom = [b + v for b, v in zip(bottom, values)]

    top = max(totals + [1])
    for year, total in zip(years, totals):
        if total:
            ax.text(year, total + top * 0.015, str(total), ha="center", va="bottom",
                    fontsize=style.SMALL_SIZE, gid=f"total:{year}")

    for first, last in _empty_runs(years, totals):
        ax.axvspan(first - 0.5, last + 0.5, facecolor=style.STRUCTURAL, alpha=0.6, edgecolor="none", zorder=0,
                   gid=f"empty:{first}-{last}")
        if last - first >= 3:
            ax.text((first + last) / 2, top * 0.5, f"no records\n{first}-{last}", ha="center", va="center",
                    fontsize=style.SMALL_SIZE, color=style.MUTED)

    if years:
        ax.set_xlim(years[0] - 0.7, years[-1] + 0.7)
        labelled = sorted({years[0], years[-1]} | {y for y in years if y % LABEL_EVERY == 0
                                                   and years[0] + 2 <= y <= years[-1] - 2})
        ax.xaxis.set_major_locator(FixedLocator(labelled))
        ax.xaxis.set_minor_locator(MultipleLocator(1))
    ax.set_ylim(0, top * 1.12)
    style.finish_axes(ax, f"Retained records per publication year (n = {sum(totals)})",
                      xlabel="year", ylabel="records", grid_axis="y")
    ax.legend(title="category", loc="upper left", frameon=True, facecolor="white", edgecolor="none",
              framealpha=1.0, fontsize=style.SMALL_SIZE,
              title_fontsize=style.SMALL_SIZE, ncol=2)
    return fig
