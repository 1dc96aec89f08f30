"""Suggestions for one record of the corpus: which fields, from which records, how sure.

:func:`suggest_record` finds the record by key, the fields to suggest (untagged, holding a
suggestion not yet confirmed, or required by ``required_when`` and missing or possibly so),
the tagged records to learn from, and marks each field whose leave-one-out top-1 accuracy
does not beat its majority baseline (:mod:`.evaluate`, computed from the same records, so
the same records give the same marks) as low confidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.didyoumean import did_you_mean
from ...core.errors import UserError
from ...corpus.load import PAPERS
from ...corpus.records import UNTAGGED
from ...corpus.taxonomy import Taxonomy
from . import evaluate, model, propose, structure, text


@dataclass
class FieldSuggestions:
    """The suggestions of one field.

    Attributes:
        field: the field name. label: its label in the taxonomy. multi: it holds a set.
        suggestions: best first (empty when no tagged record holds an allowed value).
        score: the field's leave-one-out figures (:class:`.evaluate.FieldScore`).
    """

    field: str
    label: str
    multi: bool
    suggestions: list[propose.Suggestion]
    score: evaluate.FieldScore

    @property
    def low_confidence(self) -> bool:
        """The model did not beat the majority baseline on this field (leave-one-out)."""
        return self.score.low_confidence


@dataclass
class RecordSuggestions:
    """Everything ``masrl suggest KEY`` shows.

    Attributes:
        key: the record key. file: its path from the survey root. title: its title.
        fields: one entry per suggested field, in :func:`.structure.order`.
        learned_from: how many tagged records the model learned from.
    """

    key: str
    file: str
    title: str
    fields: list[FieldSuggestions]
    learned_from: int

    def best(self) -> dict[str, propose.Suggestion]:
        """field -> its best suggestion (fields without one are left out)."""
        return {f.field: f.suggestions[0] for f in self.fields if f.suggestions}

    def find(self, field: str, value) -> propose.Suggestion | None:
        """The suggestion of ``field`` with ``value`` (a code, or a tuple of codes), or None."""
        for f in self.fields:
            if f.field == field:
                return next((s for s in f.suggestions if s.value == value), None)
        return None


def find_record(corpus, key: str) -> tuple[str, dict]:
    """``(file, record)`` of the retained record keyed ``key``.

    Raises:
        UserError: naming the key, the closest key, and where excluded records live.
    """
    for file, rec in sorted(corpus.retained.items()):
        if rec.get("key") == key:
            return file, rec
    keys = sorted(r.get("key") for r in corpus.retained.values() if isinstance(r.get("key"), str))
    excluded = any(r.get("record_id") == key for r in corpus.excluded.values())
    hint = " (it is an excluded record: suggestions are for retained records)" if excluded else did_you_mean(key, keys)
    raise UserError(f"no retained record has the key {key!r}{hint}; the keys are the file names under {PAPERS}")


def wanted_fields(record: dict, tax: Taxonomy) -> list[str]:
    """The fields to suggest for ``record``: untagged or unconfirmed ones
    (:func:`.propose.untagged_fields`), and the ``required_when`` fields it lacks while the
    fields they depend on are untagged, unconfirmed or already satisfy the condition."""
    wanted = propose.untagged_fields(record, tax)
    open_ = set(wanted)
    for f in structure.fields(tax):
        if f.name in record or f.name in open_ or not f.required_when:
            continue
        others = {r.other for r in structure.rules(tax) if r.field == f.name and r.kind == "required_when"}
        known = {o: record.get(o) for o in others if o not in open_}
        if structure.applies(f, tax, known) is not False:
            wanted.append(f.name)
    return wanted


def suggest_record(corpus, key: str, fields: list[str] | None = None) -> RecordSuggestions:
    """Suggestions for the record keyed ``key`` (``fields``: the fields to suggest, default
    :func:`wanted_fields`).

    Raises:
        UserError: for an unknown key, or a record with no untagged or unconfirmed field.
    """
    tax = Taxonomy(corpus.taxonomy)
    file, record = find_record(corpus, key)
    wanted = wanted_fields(record, tax) if fields is None else list(fields)
    if not wanted:
        raise UserError(f"{file}: every controlled field of {key!r} is tagged; nothing to suggest "
                        "(masrl suggest proposes values for untagged fields)")
    records = list(corpus.retained.values())
    tagged = propose.tagged_records(records, tax, exclude=key)
    index = model.build([text.record_text(r) for r in tagged.records], [text.record_text(record)])
    known = {f.name: record[f.name] for f in structure.fields(tax) if f.name in record and f.name not in wanted}
    found = propose.propose(index, 0, list(range(len(tagged.records))), tagged, tax, known, wanted)
    scores = evaluate.measure(records, tax)
    by_name = {f.name: f for f in structure.fields(tax)}
    out = [FieldSuggestions(name, by_name[name].label, by_name[name].multi, items, scores[name])
           for name, items in found.items()]
    return RecordSuggestions(key, file, str(record.get("title", "")), out, len(tagged.records))


def is_untagged(value) -> bool:
    """Whether a field's value is the ``untagged`` placeholder (or a list holding it)."""
    return value == UNTAGGED or (isinstance(value, list) and UNTAGGED in value)
