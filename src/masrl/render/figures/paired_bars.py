"""Figure kind ``paired_bars``: two series of counts per row of a table, in table order.

Paired horizontal bars give each row's two counts, top to bottom; every bar
carries its number, zero included, so a row without records is drawn as zero.
Such a row is a gap: its tick label carries the gap mark
(:data:`style.GAP_SYMBOL`) in the GAP colour. Consecutive rows of one group
(the ``groups`` column) form alternately shaded bands, named in the margin
right of the plot so no bar can run into a name.
"""

from __future__ import annotations

from masrl.core.tabular import pd

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


def draw(table: pd.DataFrame, options: dict):
    """Paired bars of the two ``options["series"]`` columns of ``table`` per row.

    ``options``: ``labels`` (the column of tick labels), ``groups`` (the column of group
    names; consecutive rows of one group form a band; optional), ``series`` (the two count
    columns, also the legend's labels; a zero in the first marks the row as a gap),
    ``title``, ``xlabel`` (default ``records``) and ``ylabel``.
    """
    series_a, series_b = (list(options["series"]) * 2)[:2]
    labels = [str(v) for v in table[options["labels"]]]
    brackets = [str(v) for v in table[options["groups"]]] if options.get("groups") else [""] * len(labels)
    broad = [int(v) for v in table[series_a]]
    strict = [int(v) for v in table[series_b]]
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
            rows = 2 * (last - first + 1)  # the lines its band holds, at least two: a longer name is cut with "…"
            ax.text(1.02, first - 0.42, style.tick_label(name, BRACKET_WIDTH, style.SMALL_SIZE, max(rows, 2)),
                    transform=ax.get_yaxis_transform(), ha="left", va="top", fontsize=style.SMALL_SIZE,
                    color=style.INK, linespacing=1.1, gid=f"bracket:{k}")

    broad_bars = ax.barh([y - BAR / 2 for y in ys], broad, height=BAR, color=style.ACCENT, label=series_a)
    strict_bars = ax.barh([y + BAR / 2 for y in ys], strict, height=BAR, color=style.ACCENT_2, label=series_b)
    ax.bar_label(broad_bars, labels=[str(v) for v in broad], padding=3, fontsize=style.SMALL_SIZE)
    ax.bar_label(strict_bars, labels=[str(v) for v in strict], padding=3, fontsize=style.SMALL_SIZE)

    ticks = style.tick_labels(f"{style.GAP_SYMBOL} {label}" if b == 0 else label for label, b in zip(labels, broad))
    ax.set_yticks(ys, ticks)
    for tick, unit, b in zip(ax.get_yticklabels(), table.index, broad):
        if b == 0:
            tick.set_color(style.GAP)
            tick.set_fontweight("bold")
            tick.set_gid(f"gap:{unit}")
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(0, top * 1.15)
    # The legend sits just above the plot, on its right; the title is lifted over it.
    style.finish_axes(ax, str(options.get("title", "")), xlabel=str(options.get("xlabel", "records")),
                      ylabel=str(options.get("ylabel", "")), title_pad=LEGEND_PAD)
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=2, frameon=False, fontsize=style.SMALL_SIZE,
              borderaxespad=0.2, borderpad=0.1)
    return fig
