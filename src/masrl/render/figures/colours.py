"""The colour of each value of a field, the same in every figure that draws the field's values.

A value's colour follows the value, never its place in one figure: it is the value's position among
its field's values in the taxonomy (the not-applicable value left out), in a colour-blind-safe
qualitative palette (Okabe-Ito, then Paul Tol's muted scheme for fields with more values; past its twelve
colours, each round of them again hatched: :func:`value_hatches`), so that
the same value has the same colour in a stacked bar, a chain's bars and their legends, whichever
values a figure shows. The not-applicable value (taxonomy ``not_applicable``) is always grey. The
vermilion of gaps (:data:`masrl.render.figures.style.GAP`) and that grey are in no value's colours.
"""

from __future__ import annotations

#: Colours of values, in the order of a field's values (then again from the first).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442",
           "#882255", "#117733", "#44AA99", "#999933", "#AA4499", "#332288")
#: The colour of the not-applicable value, in every figure.
NOT_APPLICABLE = "#b3b3b3"
#: Hatches of the values past the palette, one per round of its colours (the 13th value has the 1st value's colour,
#: hatched ``//``), so that no two values of a field look alike in a figure.
HATCHES = ("", "//", "\\\\", "xx", "--", "||", "++")


def value_colours(field, not_applicable: str | None) -> dict[str, str]:
    """``{label: colour}`` of every value of ``field`` (a :class:`masrl.corpus.taxonomy.Field`), in
    the field's order: the figures name a value by its label (a legend entry, a column)."""
    out: dict[str, str] = {}
    k = 0
    for code in field.values:
        if code == not_applicable:
            out[field.value_label(code)] = NOT_APPLICABLE
        else:
            out[field.value_label(code)] = PALETTE[k % len(PALETTE)]
            k += 1
    return out


def value_hatches(field, not_applicable: str | None) -> dict[str, str]:
    """``{label: hatch}`` of the values of ``field`` that share their colour with an earlier value (a field of more
    values than :data:`PALETTE` has colours); empty for a field the palette covers."""
    out: dict[str, str] = {}
    k = 0
    for code in field.values:
        if code == not_applicable:
            continue
        if k >= len(PALETTE):  # lines, which read in a legend's small swatch too; denser in each later round of them
            again, kind = divmod(k // len(PALETTE) - 1, len(HATCHES) - 1)
            out[field.value_label(code)] = HATCHES[1 + kind] * (1 + again)
        k += 1
    return out
