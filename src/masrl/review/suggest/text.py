"""The text of a record that the suggestion model reads.

Retained records: title, abstract (where present), one-liner, notes and venue. A stub that
``masrl add`` wrote has a title, a venue and perhaps an abstract; its one-liner is still
``untagged`` and is left out. Screening compares candidates with retained *and* excluded
records, and an excluded record has only its screening label (the title), so the screening text
of every record is its title and abstract alone: a field that only one side has (a venue, a
one-liner) would tell the sides apart without saying anything about the paper. The abstract is
read from the field the caller names: the taxonomy's
(:attr:`~masrl.corpus.taxonomy.Taxonomy.abstract_field`); None reads none.
"""

from __future__ import annotations

from ...corpus.records import UNTAGGED

#: The fields of a retained record whose text the model reads, in this order (the abstract's
#: field, wherever the taxonomy keeps it, after the title).
RECORD_TEXT_FIELDS = ("title", "one_liner", "notes", "venue")
#: What a new stub has of them (``masrl add`` writes the others as untagged or empty).
STUB_TEXT_FIELDS = ("title", "venue")


def _join(record: dict, names: tuple[str, ...]) -> str:
    parts = []
    for name in names:
        value = record.get(name)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip() not in ("", UNTAGGED):
            parts.append(str(value).strip())
    return "\n".join(parts)


def record_text(record: dict, abstract: str | None, stub: bool = False) -> str:
    """The text of a retained record: the fields of :data:`RECORD_TEXT_FIELDS` that hold text
    (``untagged`` and empty values left out), one per line, the field ``abstract`` after the
    title; with ``stub`` only those of :data:`STUB_TEXT_FIELDS` and the abstract (what a record
    has before anyone tags it)."""
    names = STUB_TEXT_FIELDS if stub else RECORD_TEXT_FIELDS
    return _join(record, (names[0], *((abstract,) if abstract else ()), *names[1:]))


def screening_text(record: dict, abstract: str | None) -> str:
    """The text screening compares: the title (an excluded record's ``screening_label``) and
    the field ``abstract`` where present."""
    title = record.get("title") if "title" in record else record.get("screening_label")
    return _join({"title": title, "text": record.get(abstract) if abstract else None}, ("title", "text"))
