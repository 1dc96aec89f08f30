"""Figure kind ``flow``: PRISMA 2020-style flow of the screening.

A vertical chain of boxes, records audited -> assessed at each screening
stage -> records retained, with beside each stage a box of the records
excluded there, split by reason class, and under the retained box the
retained records by the values of the field that splits them (when the
taxonomy declares one). Phase labels (Identification, Screening,
Included) run down the left side as in PRISMA 2020.

For an updated review (``data["update"]``, PRISMA 2020 flow diagram for
updated systematic reviews) the chain starts from the studies included in the
previous version, follows only the records identified and screened since,
and ends with the new records included and the total included in this
version (previous - dropped + new). When the update's records come from update rounds
(``update["identification"]``), the chain starts, as PRISMA 2020 does, with the records identified
via databases (per source) and the duplicates removed beside them, then the records identified
via other methods (citation searching per method, and those added by hand) joining the chain from
beside it, and the records to screen, with those still awaiting a decision beside them (and those
an earlier version's rounds found that still await one).

The diagram is laid out in inches on one axes that fills the figure (data
units = inches, axis off), so the figure's height follows the number of
stages and reason lines. Every number is taken from the data; text is
wrapped to its box from the font's metrics (:func:`style.wrap_text`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from matplotlib.patches import FancyBboxPatch

from . import style

# Geometry (inches).
MARGIN = 0.08
TITLE_H = 0.34
PHASE_X = 0.86            # x of the phase brackets; labels end just left of it
MAIN_X, MAIN_W = 0.98, 2.80
SIDE_X, SIDE_W = 4.10, 2.82
PAD = 0.07                # inner padding of a box
INDENT = 0.08             # of the listed lines under a box's heading
ROW_GAP = 0.10            # between exclusion boxes of consecutive stages
MIN_ARROW = 0.22          # shortest vertical arrow between two boxes of the chain
SECTION_GAP = 0.26        # between phases (arrow room)
BOX_FACE = "white"
SIDE_FACE = "#f6f6f6"
RETAINED_FACE = "#e6f0f8"

PHASES = ("Identification", "Screening", "Included")


def _line_h(size: float) -> float:
    return size * 1.22 / 72


def _count(n) -> str:
    """``"(n = 12)"``, kept on one line by :func:`style.wrap_text`."""
    return f"(n{style.KEEP_SPACE}={style.KEEP_SPACE}{int(n)})"


def _wrap(text: str, width: float, size: float, weight: str = "normal") -> list[str]:
    """Lines of ``text`` fitting a box ``width`` inches wide (inner padding left free)."""
    return style.wrap_text(text, width - 2 * PAD - 0.02, size, weight)


@dataclass
class _Block:
    """A box: lines at one size (+ optional extra small lines), at ``top`` inches from the top."""

    x: float
    w: float
    lines: list[str]
    size: float = style.FONT_SIZE
    small: list[str] = field(default_factory=list)
    top: float = 0.0

    @property
    def h(self) -> float:
        small = len(self.small) * _line_h(style.SMALL_SIZE) + (0.04 if self.small else 0.0)
        return len(self.lines) * _line_h(self.size) + small + 2 * PAD


def _as_update(data: dict) -> tuple[dict, dict | None]:
    """``(the flow drawn in the chain, the update or None)``: an update's chain is its new records."""
    up = data.get("update")
    if not up:
        return data, None
    return {**data, "audited": up["identified"], "stages": up["stages"], "retained": up["new_included"],
            "retained_by_category": up["new_by_category"]}, up


def _category_columns(data: dict, width: float) -> list[list[str]]:
    """The retained counts by category as two columns of lines, each fitting ``width`` inches."""
    labels = data.get("category_labels", {})
    entries = [f"{labels.get(code, code)}:{style.KEEP_SPACE}{int(n)}"
               for code, n in data["retained_by_category"].items()]
    rows = math.ceil(len(entries) / 2)
    return [[line for entry in half for line in style.wrap_text(entry, width, style.SMALL_SIZE)]
            for half in (entries[:rows], entries[rows:])]


def draw(data: dict, options: dict | None = None):
    """PRISMA flow diagram of ``data``; ``options["by"]``: what splits the retained records
    (``category``: "Retained by category"), empty when nothing does.

    ``data``: ``{"audited": int, "stages": [{"stage", "label", "assessed",
    "excluded", "remaining", "by_reason_class": {class: int}}, ...],
    "retained": int, "retained_by_category": {code: int},
    "reason_classes": {class: name}, "category_labels": {code: label}}``.
    Reason classes with a zero count are left out of the exclusion boxes. With
    ``"update"`` (see :func:`masrl.analyses.prisma.screening_flow`) the diagram follows the
    template for updated reviews.
    """
    data, update = _as_update(data)
    reasons = data.get("reason_classes", {})
    by = str((options or {}).get("by") or "")

    # Layout, top to bottom.
    y = MARGIN + TITLE_H
    previous_box = None
    if update:
        previous_box = _Block(MAIN_X, MAIN_W, _wrap(f"Studies included in the previous version, {update['previous']} "
                                                    f"{_count(update['previous_included'])}", MAIN_W, style.FONT_SIZE))
        previous_box.top = y
        y += previous_box.h + SECTION_GAP
    ident = (update or {}).get("identification")
    ident_box = dup_box = awaiting_box = other_box = None
    if ident:
        # as PRISMA 2020: the records identified via databases (each source the update rounds
        # searched) in the chain, with the duplicates removed beside them; below those, the records
        # identified via other methods (citation searching, added by hand), joining the chain
        found = sum(ident["identified_by_source"].values())
        lines = [f"{source} (update rounds):{style.KEEP_SPACE}{int(n)}" for source, n in ident["identified_by_source"].items()]
        ident_box = _Block(MAIN_X, MAIN_W, _wrap(f"Records identified via databases and registers {_count(found)}", MAIN_W,
                                                 style.FONT_SIZE),
                           small=[line for item in lines for line in _wrap(item, MAIN_W - INDENT, style.SMALL_SIZE)])
        dup_box = _Block(SIDE_X, SIDE_W, _wrap(f"Duplicates removed before screening {_count(ident['duplicates_removed'])}",
                                               SIDE_W, style.FONT_SIZE))
        row_h = max(ident_box.h, dup_box.h)
        ident_box.top, dup_box.top = y + (row_h - ident_box.h) / 2, y + (row_h - dup_box.h) / 2
        y += row_h + SECTION_GAP
        by_other = ident.get("identified_by_other_method") or {}
        others = [f"{method} (update rounds):{style.KEEP_SPACE}{int(n)}" for method, n in by_other.items()]
        others.append(f"added by hand:{style.KEEP_SPACE}{int(ident['other_methods'])}")
        other_box = _Block(SIDE_X, SIDE_W, _wrap("Records identified via other methods "
                                                 f"{_count(sum(by_other.values()) + int(ident['other_methods']))}",
                                                 SIDE_W, style.FONT_SIZE),
                           small=[line for item in others for line in _wrap(item, SIDE_W - INDENT, style.SMALL_SIZE)])
        other_box.top = y - SECTION_GAP / 2
        y = other_box.top + other_box.h + SECTION_GAP / 2
    first_label = "New records identified and screened" if update else "Records audited"
    first_count = data["audited"]
    if ident:
        first_label, first_count = "Records to screen", ident["screened"]
    carried = int((ident or {}).get("carried_over", 0))
    audited = _Block(MAIN_X, MAIN_W, _wrap(f"{first_label} {_count(first_count)}", MAIN_W, style.FONT_SIZE),
                     small=_wrap(f"of which awaiting a decision at the previous version:{style.KEEP_SPACE}{carried}",
                                 MAIN_W - INDENT, style.SMALL_SIZE) if carried else [])
    audited.top = y
    earlier = int((ident or {}).get("awaiting_earlier", 0))
    if ident and (ident["awaiting"] or earlier):
        awaiting_box = _Block(SIDE_X, SIDE_W, _wrap(f"Awaiting a screening decision {_count(ident['awaiting'])}", SIDE_W,
                                                    style.FONT_SIZE),
                              small=_wrap(f"and still awaiting since an earlier version:{style.KEEP_SPACE}{earlier}",
                                          SIDE_W - INDENT, style.SMALL_SIZE) if earlier else [])
        awaiting_box.top = audited.top + (audited.h - awaiting_box.h) / 2
    y += max(audited.h, awaiting_box.h if awaiting_box else 0) + SECTION_GAP
    screening_top = y - SECTION_GAP / 2
    rows = []
    for stage in data["stages"]:
        main = _Block(MAIN_X, MAIN_W, _wrap(f"Assessed at {stage['label']} {_count(stage['assessed'])}",
                                            MAIN_W, style.FONT_SIZE))
        keep = style.KEEP_SPACE  # the count stays on the line of the reason's last word
        listed = [f"{cls} {reasons[cls]}:{keep}{int(n)}" if reasons.get(cls) else f"{cls}:{keep}{int(n)}"
                  for cls, n in stage["by_reason_class"].items() if int(n)]
        side = _Block(SIDE_X, SIDE_W,
                      _wrap(f"Excluded at {stage['label']} {_count(stage['excluded'])}", SIDE_W, style.FONT_SIZE),
                      small=[line for item in listed for line in _wrap(item, SIDE_W - INDENT, style.SMALL_SIZE)])
        row_h = max(main.h + MIN_ARROW - ROW_GAP, side.h)
        main.top = y + (row_h - main.h) / 2
        side.top = y + (row_h - side.h) / 2
        rows.append((stage, main, side))
        y += row_h + ROW_GAP
    y += SECTION_GAP - ROW_GAP
    screening_bottom = y - SECTION_GAP / 2
    retained_label = "New records included" if update else "Records retained"
    retained = _Block(MAIN_X, MAIN_W, _wrap(f"{retained_label} {_count(data['retained'])}", MAIN_W, style.FONT_SIZE,
                                            "bold"))
    retained.top = y
    y += retained.h + 0.12
    column_w = (MAIN_W - 2 * PAD - INDENT) / 2
    columns = _category_columns(data, column_w - 0.1)
    categories = None
    if by:
        categories = _Block(MAIN_X, MAIN_W, [f"New records by {by}" if update else f"Retained by {by}"],
                            size=style.SMALL_SIZE, small=[""] * max(len(c) for c in columns))
        categories.top = y
        y += categories.h
    total = None
    if update:
        y += SECTION_GAP
        total = _Block(MAIN_X, MAIN_W, _wrap(
            f"Total studies included in this version {_count(update['total_included'])}", MAIN_W, style.FONT_SIZE, "bold"),
            small=_wrap(f"= {update['previous_included']} previous - {len(update['dropped'])} dropped + "
                        f"{update['new_included']} new", MAIN_W, style.SMALL_SIZE))
        total.top = y
        y += total.h
    height = y + MARGIN
    width = style.WIDTH

    fig, ax = style.inch_canvas(height, width)

    def Y(top: float) -> float:  # inches from the top -> data y
        return height - top

    def box(block: _Block, gid: str, face: str = BOX_FACE, edge: str = style.INK, weight: str = "normal",
            align: str = "center") -> None:
        ax.add_patch(FancyBboxPatch((block.x, Y(block.top + block.h)), block.w, block.h,
                                    boxstyle="round,pad=0,rounding_size=0.05", facecolor=face,
                                    edgecolor=edge, linewidth=0.9, gid=f"box:{gid}"))
        x = block.x + block.w / 2 if align == "center" else block.x + PAD
        ax.text(x, Y(block.top + PAD), "\n".join(block.lines), ha=align, va="top", fontsize=block.size,
                fontweight=weight, linespacing=1.22, gid=gid)

    def arrow(x0: float, y0: float, x1: float, y1: float) -> None:
        ax.annotate("", xy=(x1, Y(y1)), xytext=(x0, Y(y0)),
                    arrowprops=dict(arrowstyle="-|>", color=style.INK, linewidth=1.0, shrinkA=0, shrinkB=0,
                                    mutation_scale=10))

    title = "Screening flow of this update (PRISMA 2020 for updated reviews)" if update else "Screening flow (PRISMA 2020)"
    ax.text(MARGIN, Y(MARGIN), title, ha="left", va="top", fontsize=style.TITLE_SIZE, fontweight="bold")

    centre = MAIN_X + MAIN_W / 2
    if previous_box is not None:
        box(previous_box, "previous", face=SIDE_FACE, edge=style.MUTED)
    if ident_box is not None:
        box(ident_box, "identified")
        ax.text(ident_box.x + PAD + INDENT, Y(ident_box.top + PAD + len(ident_box.lines) * _line_h(ident_box.size) + 0.04),
                "\n".join(ident_box.small), ha="left", va="top", fontsize=style.SMALL_SIZE, color=style.INK,
                linespacing=1.22, gid="identified:sources")
        box(dup_box, "duplicates", face=SIDE_FACE, edge=style.MUTED, align="left")
        mid = ident_box.top + ident_box.h / 2
        arrow(MAIN_X + MAIN_W, mid, SIDE_X, mid)
        arrow(centre, ident_box.top + ident_box.h, centre, audited.top)
        box(other_box, "identified:other", align="left")
        ax.text(other_box.x + PAD + INDENT, Y(other_box.top + PAD + len(other_box.lines) * _line_h(other_box.size) + 0.04),
                "\n".join(other_box.small), ha="left", va="top", fontsize=style.SMALL_SIZE, color=style.INK,
                linespacing=1.22, gid="identified:other_methods")
        mid = other_box.top + other_box.h / 2
        arrow(SIDE_X, mid, centre, mid)
    box(audited, "audited")
    if audited.small:  # centred under the count, as the total's sum is
        ax.text(centre, Y(audited.top + PAD + len(audited.lines) * _line_h(audited.size) + 0.04),
                "\n".join(audited.small), ha="center", va="top", fontsize=style.SMALL_SIZE, color=style.INK,
                linespacing=1.22, gid="audited:carried_over")
    if awaiting_box is not None:
        box(awaiting_box, "awaiting", face=SIDE_FACE, edge=style.MUTED, align="left")
        if awaiting_box.small:
            ax.text(awaiting_box.x + PAD + INDENT,
                    Y(awaiting_box.top + PAD + len(awaiting_box.lines) * _line_h(awaiting_box.size) + 0.04),
                    "\n".join(awaiting_box.small), ha="left", va="top", fontsize=style.SMALL_SIZE, color=style.INK,
                    linespacing=1.22, gid="awaiting:earlier")
        mid = audited.top + audited.h / 2
        arrow(MAIN_X + MAIN_W, mid, SIDE_X, mid)
    previous = audited
    for stage, main, side in rows:
        arrow(centre, previous.top + previous.h, centre, main.top)
        box(main, f"assessed:{stage['stage']}")
        box(side, f"excluded:{stage['stage']}", face=SIDE_FACE, edge=style.MUTED, align="left")
        if side.small:
            ax.text(side.x + PAD + INDENT, Y(side.top + PAD + len(side.lines) * _line_h(side.size) + 0.04),
                    "\n".join(side.small), ha="left", va="top", fontsize=style.SMALL_SIZE, color=style.INK,
                    linespacing=1.22, gid=f"reasons:{stage['stage']}")
        mid = main.top + main.h / 2
        arrow(MAIN_X + MAIN_W, mid, SIDE_X, mid)
        previous = main
    arrow(centre, previous.top + previous.h, centre, retained.top)
    box(retained, "retained", face=RETAINED_FACE, edge=style.ACCENT, weight="bold")

    if categories is not None:
        box(categories, "categories_header", face=BOX_FACE, edge=style.ACCENT, align="left")
        ax.plot([centre, centre], [Y(retained.top + retained.h), Y(categories.top)], color=style.ACCENT,
                linewidth=1.0)
        list_top = Y(categories.top + PAD + _line_h(categories.size) + 0.04)
        for k, column in enumerate(columns):
            ax.text(categories.x + PAD + INDENT + k * column_w, list_top, "\n".join(column), ha="left",
                    va="top", fontsize=style.SMALL_SIZE, linespacing=1.22, gid=f"retained_by_category:{k}")
    last = categories or retained

    if total is not None:
        box(total, "total", face=RETAINED_FACE, edge=style.ACCENT, weight="bold")
        ax.text(total.x + total.w / 2, Y(total.top + PAD + len(total.lines) * _line_h(total.size) + 0.04),
                "\n".join(total.small), ha="center", va="top", fontsize=style.SMALL_SIZE, color=style.INK,
                linespacing=1.22, gid="total:sum")
        arrow(centre, last.top + last.h, centre, total.top)

    # Phase brackets and labels on the left.
    spans = [(PHASES[0], (ident_box or audited).top, audited.top + audited.h),
             (PHASES[1], screening_top + 0.04, screening_bottom - 0.04),
             (PHASES[2], retained.top, (total or last).top + (total or last).h)]
    if previous_box is not None:
        spans.insert(0, ("Previous", previous_box.top, previous_box.top + previous_box.h))
    for name, first, last in spans:
        ax.plot([PHASE_X, PHASE_X], [Y(first), Y(last)], color=style.ACCENT, linewidth=2.0,
                solid_capstyle="butt")
        ax.text(PHASE_X - 0.06, Y((first + last) / 2), name, ha="right", va="center",
                fontsize=style.SMALL_SIZE, color=style.ACCENT)
    return fig
