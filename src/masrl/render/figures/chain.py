"""Figure kind ``chain``: a chain of boxes, one per value of a list field, with its records split by another field.

Each value is a box (joined to the next by an arrow when the field's values are steps in order,
taxonomy ``ordered``); top to bottom it holds the code, the name, the number of
records, a bar of the records by the split field's values (its columns of the
table) on one scale shared by all boxes (an empty track is zero), one line per
split value with its count, the gap note if any, and the anchor records. A
value whose flag column is non-empty (uncovered) is drawn in the GAP colour
(filled, dashed outline) and its note carries the gap mark.

The figure is laid out in inches on one axes that fills it (data units =
inches, axis off), from the font's metrics: every text block is wrapped to
the box width (long words broken) and the blocks are stacked, never
overlaid, so no label can run into another or out of its box whatever the
counts, names and anchors are. All boxes share the height of the fullest
one, and the figure's height follows.
"""

from __future__ import annotations

from masrl.core.tabular import pd
from matplotlib.patches import FancyBboxPatch, Patch, Rectangle

from . import style
from .colours import PALETTE


# Geometry (inches).
MARGIN = 0.08
BOX_SHARE = 0.80    # of one chain step; the rest is the arrow between two boxes
PAD = 0.07          # inside a box, around its content
SPACE = 0.05        # between two blocks of a box
BAR_H = 0.13
LINE = 1.22         # line spacing of every text block
LEGEND_H = 0.24
LEGEND_LINE = 1.9   # line spacing of the rows of a legend that needs more than one


def _height(lines: list[str], size: float) -> float:
    return len(lines) * style.line_height(size, LINE)


def _statuses(options: dict) -> list[tuple[str, str]]:
    """``(column, colour)`` of each split column, in stacking order: the colour of its value
    (``options["colours"]``, :func:`masrl.render.figures.colours.value_colours`)."""
    colours = options.get("colours") or {}
    return [(str(s), colours.get(str(s)) or PALETTE[k % len(PALETTE)]) for k, s in enumerate(options.get("split_columns") or [])]


def _blocks(values: dict, text_w: float, options: dict) -> list[tuple[str, list[str], float, dict]]:
    """The text blocks of one box, top to bottom: ``(kind, lines, size, text kwargs)``;
    the kind ``bar`` stands for the bar (no lines)."""
    flag, anchors = options.get("flag_column"), options.get("anchors_column")
    gap = str(values[flag] or "").strip() if flag else ""
    ink = style.GAP if gap else style.INK

    def wrap(text: str, size: float, weight: str = "normal") -> list[str]:
        return style.wrap_text(text, text_w, size, weight, break_words=True)

    records = int(values[options["count_column"]])
    blocks = [
        ("id", wrap(str(values["id"]), style.TITLE_SIZE, "bold"), style.TITLE_SIZE,
         dict(fontweight="bold", color=ink)),
        ("name", wrap(str(values[options["name_column"]]), style.FONT_SIZE), style.FONT_SIZE, dict(color=ink)),
        ("records", wrap(f"{records} record{'' if records == 1 else 's'}", style.SMALL_SIZE), style.SMALL_SIZE,
         dict(color=ink)),
        ("bar", [], 0.0, {}),
        ("statuses", [line for status, _ in _statuses(options)
                      for line in wrap(f"{status}: {int(values[status])}", style.SMALL_SIZE)],
         style.SMALL_SIZE, dict(color=style.INK)),
    ]
    if gap:
        blocks.append(("gap", wrap(f"{style.GAP_SYMBOL} {gap}", style.SMALL_SIZE, "bold"), style.SMALL_SIZE,
                       dict(fontweight="bold", color=style.GAP)))
    if anchors:
        blocks.append(("anchors", wrap(f"{anchors}: {values[anchors]}", style.SMALL_SIZE), style.SMALL_SIZE,
                       dict(color=style.MUTED)))
    return blocks


def _legend_columns(labels: list[str], available: float) -> tuple[int, int]:
    """``(columns, rows)`` of the legend: one row when its entries fit ``available`` inches,
    else as many columns as the widest entry allows."""
    em = style.SMALL_SIZE / 72
    widths = [(1.6 + 0.8 + 2.0) * em + style.text_width(label, style.SMALL_SIZE) for label in labels]
    if not labels or sum(widths) <= available:
        return max(len(labels), 1), 1
    columns = max(1, int(available // max(widths)))
    return columns, -(-len(labels) // columns)


def _block_height(kind: str, lines: list[str], size: float) -> float:
    return BAR_H if kind == "bar" else _height(lines, size)


def draw(table: pd.DataFrame, options: dict):
    """Chain of boxes, one per row of ``table`` in order.

    ``table``: index = the values (codes), a name column, a count column, one count column
    per split value, and optionally a flag column (str; non-empty = uncovered) and an anchors
    column (str). ``options``: ``name_column``, ``count_column``, ``split_columns`` (in
    stacking order) and ``colours`` (split column -> colour), ``flag_column``, ``anchors_column``,
    ``title`` (``{first}`` and ``{last}``: the first and last codes), ``empty_title`` (without rows),
    ``gap_legend`` and ``arrows`` (an arrow from each box to the next: the values are steps in order).
    """
    statuses = _statuses(options)
    ids = [str(v) for v in table.index]
    n = max(len(ids), 1)
    width = style.WIDTH
    step = (width - 2 * MARGIN) / n
    box_w = step * BOX_SHARE
    text_w = box_w - 2 * PAD
    inner = text_w  # bar track width
    stacked = table[[status for status, _ in statuses]].sum(axis=1) if len(table) else pd.Series(dtype=int)
    top = max([int(v) for v in table[options["count_column"]]] + [int(v) for v in stacked] + [1])
    unit = inner / top  # inches per record in the bars

    rows = [dict(zip(table.columns, row), id=oid) for oid, row in zip(ids, table.itertuples(index=False))]
    blocks = [_blocks(values, text_w, options) for values in rows]
    content = max([sum(_block_height(k, lines, size) for k, lines, size, _ in b) + SPACE * (len(b) - 1)
                   for b in blocks] + [0.5])
    box_h = content + 2 * PAD

    title = str(options.get("empty_title", options.get("title", "")))
    if ids:
        title = str(options.get("title", "")).replace("{first}", ids[0]).replace("{last}", ids[-1])
    title_lines = style.wrap_text(title, width - 2 * MARGIN, style.TITLE_SIZE, "bold")
    title_h = _height(title_lines, style.TITLE_SIZE)
    box_top = MARGIN + title_h + 0.12
    legend_top = box_top + box_h + 0.08
    labels = [s for s, _ in statuses] + ([f"{style.GAP_SYMBOL} {options['gap_legend']}"] if options.get("gap_legend") else [])
    ncol, legend_rows = _legend_columns(labels, width - 2 * MARGIN)
    height = legend_top + LEGEND_H + (legend_rows - 1) * style.line_height(style.SMALL_SIZE, LEGEND_LINE) + MARGIN

    fig, ax = style.inch_canvas(height, width)

    def Y(top: float) -> float:  # inches from the top -> data y
        return height - top

    ax.text(MARGIN, Y(MARGIN), "\n".join(title_lines), ha="left", va="top", fontsize=style.TITLE_SIZE,
            fontweight="bold", linespacing=LINE)

    for k, (values, box_blocks) in enumerate(zip(rows, blocks)):
        oid = values["id"]
        left = MARGIN + k * step + (step - box_w) / 2
        centre = left + box_w / 2
        gap = str(values[options["flag_column"]] or "").strip() if options.get("flag_column") else ""
        ax.add_patch(FancyBboxPatch(
            (left, Y(box_top + box_h)), box_w, box_h, boxstyle="round,pad=0,rounding_size=0.06",
            facecolor=style.GAP_FILL if gap else "white", edgecolor=style.GAP if gap else style.MUTED,
            linewidth=1.8 if gap else 0.9, linestyle=(0, (5, 2)) if gap else "solid", gid=f"box:{oid}"))
        y = box_top + PAD
        for kind, lines, size, kwargs in box_blocks:
            if kind == "bar":
                x = centre - inner / 2
                ax.add_patch(Rectangle((x, Y(y + BAR_H)), inner, BAR_H, facecolor="#f2f2f2",
                                       edgecolor=style.GRID, linewidth=0.6, gid=f"track:{oid}"))
                for status, colour in statuses:
                    count = int(values[status])
                    if count:
                        ax.add_patch(Rectangle((x, Y(y + BAR_H)), count * unit, BAR_H, facecolor=colour,
                                               hatch=(options.get("hatches") or {}).get(status) or None,
                                               edgecolor="white", linewidth=0.6, gid=f"bar:{oid}:{status}"))
                        x += count * unit
            else:
                ax.text(centre, Y(y), "\n".join(lines), ha="center", va="top", fontsize=size,
                        linespacing=LINE, gid=f"{kind}:{oid}", **kwargs)
            y += _block_height(kind, lines, size) + SPACE
        if k + 1 < len(rows) and options.get("arrows"):  # only between steps of a sequence (an ordered field)
            mid = Y(box_top + box_h / 2)
            ax.annotate("", xy=(left + step, mid), xytext=(left + box_w, mid),
                        arrowprops=dict(arrowstyle="-|>", color=style.INK, linewidth=1.2,
                                        shrinkA=1, shrinkB=1, mutation_scale=12))

    hatches = options.get("hatches") or {}
    handles = [Patch(facecolor=c, label=s, **({"hatch": hatches[s], "edgecolor": "white"} if hatches.get(s) else {}))
               for s, c in statuses]
    if options.get("gap_legend"):
        handles.append(Patch(facecolor=style.GAP_FILL, edgecolor=style.GAP, linestyle=(0, (3, 1)),
                             label=f"{style.GAP_SYMBOL} {options['gap_legend']}"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(width / 2, Y(legend_top)),
              bbox_transform=ax.transData, ncol=ncol, frameon=False, fontsize=style.SMALL_SIZE,
              handlelength=1.6, borderaxespad=0, borderpad=0)
    return fig
