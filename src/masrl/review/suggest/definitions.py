"""The taxonomy's own words as evidence: each value's label and definition, and how much they count.

A value of a controlled field is described in ``corpus/taxonomy.yaml`` by its ``label`` and its
``definition`` (``turn``: "credit assigned per dialogue turn or trajectory segment"). Those words
are one more text of the model (:mod:`.model`), so a record whose title says "Turn-level credit"
is similar to the definition of ``turn`` even when no tagged record near it holds ``turn``. The
definition votes for its value beside the nearest tagged records (:mod:`.propose`).

A value's label alone is a text too (:func:`labels`): the name the taxonomy gives the value ("web /
browser", "tool call"), which titles may use as it is, without the words its definition shares
with every other value's ("credit assigned to ..."). Which of the two a field compares, and how
much they count, is its setting (:mod:`.tuning` chooses it per field): their vote is ``w`` times
their similarity, beside the neighbours' votes that sum to 1.

The not-applicable value has neither text here: its definition says what a record lacks, so its
words are those of the field, not of the records that hold it.
"""

from __future__ import annotations

from ...corpus.taxonomy import Taxonomy
from . import structure


def text(tax: Taxonomy, name: str, code: str) -> str:
    """The words of value ``code`` of field ``name``: its label and its definition, one line
    each (the code when the value has neither)."""
    spec = tax.fields[name].value_spec(code)
    parts = [str(spec[k]).strip() for k in ("label", "definition") if isinstance(spec.get(k), str) and str(spec[k]).strip()]
    return "\n".join(parts) or code


def texts(tax: Taxonomy) -> dict[tuple[str, str], str]:
    """``(field, value) -> text`` of every value of every controlled field of retained records
    that ``masrl suggest`` may suggest (taxonomy order), except the not-applicable value, whose
    definition says what a record lacks rather than what it is about."""
    out = {}
    for f in structure.fields(tax):
        if not f.suggested:
            continue
        for code in f.values:
            if code != tax.not_applicable:
                out[(f.name, code)] = text(tax, f.name, code)
    return out


def labels(tax: Taxonomy) -> dict[tuple[str, str], str]:
    """``(field, value) -> label`` (the code when the value has none), for the same values as :func:`texts`."""
    out = {}
    for name, code in texts(tax):
        spec = tax.fields[name].value_spec(code)
        label = spec.get("label")
        out[(name, code)] = str(label).strip() if isinstance(label, str) and str(label).strip() else code
    return out
