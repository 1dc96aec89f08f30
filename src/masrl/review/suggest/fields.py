"""Suggestions for one record of the corpus: which fields, from which records, how sure.

:func:`suggest_record` finds the record by key, the fields to suggest (untagged, holding a
suggestion not yet confirmed, or required by ``required_when`` and missing or possibly so),
the tagged records to learn from, and marks each field whose leave-one-out top-1 accuracy
does not beat its majority baseline (:mod:`.evaluate`, computed from the same records, so
the same records give the same marks) as low confidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field as dataclass_field

from ...core.didyoumean import did_you_mean
from ...core.errors import UserError
from ...corpus import provenance
from ...corpus.load import PAPERS
from ...corpus.records import UNTAGGED
from ...corpus.taxonomy import Taxonomy
from . import evaluate, pool, propose, structure, text, tuning


@dataclass
class FieldSuggestions:
    """The suggestions of one field.

    Attributes:
        field: the field name. label: its label in the taxonomy. multi: it holds a set.
        suggestions: best first (empty when no tagged record holds an allowed value).
        score: the field's leave-one-out figures (:class:`.evaluate.FieldScore`).
        setting: how the field was suggested (:class:`.tuning.Setting`, chosen by leave-one-out).
    """

    field: str
    label: str
    multi: bool
    suggestions: list[propose.Suggestion]
    score: evaluate.FieldScore
    setting: tuning.Setting = tuning.PLAIN

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
        by_hand: the fields still to tag that the taxonomy leaves to the contributor
            (``suggest: false``: :func:`by_hand_fields`), in taxonomy order.
        drafted: field -> the value the record holds as a suggestion no person has confirmed
            (``masrl suggest --draft``; a set as a tuple), for the fields that hold one.
    """

    key: str
    file: str
    title: str
    fields: list[FieldSuggestions]
    learned_from: int
    by_hand: list[str] = dataclass_field(default_factory=list)
    drafted: dict = dataclass_field(default_factory=dict)

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
    fields they depend on are untagged, unconfirmed or already satisfy the condition. A field
    the taxonomy marks ``suggest: false`` is never among them (:func:`by_hand_fields`)."""
    wanted = [name for name in propose.untagged_fields(record, tax) if tax.fields[name].suggested]
    open_ = set(wanted)
    for f in structure.fields(tax):
        if f.name in record or f.name in open_ or not f.required_when or not f.suggested:
            continue
        others = {r.other for r in structure.rules(tax) if r.field == f.name and r.kind == "required_when"}
        known = {o: record.get(o) for o in others if o not in open_}
        if structure.applies(f, tax, known) is not False:
            wanted.append(f.name)
    return wanted


def by_hand_fields(record: dict, tax: Taxonomy) -> list[str]:
    """The untagged or unconfirmed fields of ``record`` that the taxonomy marks ``suggest: false``
    (a fact about the record itself, such as whether its metadata was verified, which no other
    record's tags can tell): the contributor tags them, ``masrl suggest`` names them only."""
    return [name for name in propose.untagged_fields(record, tax) if not tax.fields[name].suggested]


def suggest_record(corpus, key: str, fields: list[str] | None = None) -> RecordSuggestions:
    """Suggestions for the record keyed ``key`` (``fields``: the fields to suggest, default
    :func:`wanted_fields`).

    Raises:
        UserError: for an unknown key, or a record with no untagged or unconfirmed field that
            may be suggested (:func:`nothing_to_suggest` words it).
    """
    tax = Taxonomy(corpus.taxonomy)
    file, record = find_record(corpus, key)
    wanted = wanted_fields(record, tax) if fields is None else list(fields)
    if not wanted:
        raise UserError(nothing_to_suggest(file, key, record, tax))
    records = list(corpus.retained.values())
    tagged = propose.tagged_records(records, tax, exclude=key)
    counted = pool.pool(tagged.records, tax)
    index = counted.suggestions(text.record_text(record, tax.abstract_field))
    known = {f.name: record[f.name] for f in structure.fields(tax)
             if f.name in record and f.name not in wanted and not is_untagged(record[f.name])}
    chosen = evaluate.settings(records, tax)
    found = propose.propose(index, 0, list(range(len(tagged.records))), tagged, tax, known, wanted,
                            definitions=counted.columns, settings=chosen, texts=counted.texts, year=tuning.year_of(record),
                            labels=counted.labels, label_texts=counted.label_texts)
    scores = evaluate.measure(records, tax)
    by_name = {f.name: f for f in structure.fields(tax)}
    out = [FieldSuggestions(name, by_name[name].label, by_name[name].multi, items, scores[name], chosen.get(name, tuning.PLAIN))
           for name, items in found.items()]
    drafted = {name: _in_order(record[name], list(by_name[name].values)) if isinstance(record[name], list) else record[name]
               for name in provenance.unconfirmed_fields(record) if name in record and name in by_name}
    return RecordSuggestions(key, file, str(record.get("title", "")), out, len(tagged.records), by_hand_fields(record, tax),
                             drafted)


def _in_order(values: list, order: list) -> tuple:
    """A set's codes as suggestions hold them: in taxonomy order (codes it does not name last, as given)."""
    return tuple(sorted(values, key=lambda v: order.index(v) if v in order else len(order)))


def nothing_to_suggest(file: str, key: str, record: dict, tax: Taxonomy) -> str:
    """The message for a record with no field to suggest: every field tagged, or the fields left
    are those the contributor tags by hand (named with their labels and allowed values)."""
    left = by_hand_fields(record, tax)
    if not left:
        return (f"{file}: every controlled field of {key!r} is tagged; nothing to suggest "
                "(masrl suggest proposes values for untagged fields)")
    named = "; ".join(f"{name} ({tax.fields[name].label}: {', '.join(tax.fields[name].values)})" for name in left)
    return (f"{file}: nothing to suggest for {key!r}: the fields left to tag are tagged by hand, as corpus/taxonomy.yaml "
            f"says (suggest: false; no other record's tags can tell them): {named}")


def is_untagged(value) -> bool:
    """Whether a field's value is the ``untagged`` placeholder (or a list holding it)."""
    return value == UNTAGGED or (isinstance(value, list) and UNTAGGED in value)
