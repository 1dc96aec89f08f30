"""Values for a record's untagged controlled fields, from its nearest tagged records.

For each field (in :func:`.structure.order`), the candidates are the tagged records that hold
the field with a value the vocabulary's structure allows for this record (given its tagged
values and the best suggestions already made for the fields the rules depend on). The
:data:`NEIGHBOURS` most similar of them (:mod:`.model`; ties by key) vote, each with weight
``similarity + 0.001`` (so that neighbours with no word in common still count, a little). A
value's score is its share of the vote, in [0, 1]; values are listed best first (ties in
taxonomy order), at most :data:`SHOWN`.

A field holding a set (``multi``) is decided value by value: a value's share of the vote is
the probability that the set holds it, the best set holds the values with a share of at least
one half, and every set is scored by the product of its values' shares (and one minus the
share of each value it lacks), the best set first and then the neighbours' own sets.

The taxonomy's own words are evidence too (:mod:`.definitions`): each allowed value's label and
definition (or, as a field's setting says, its label alone) is a text of the same model, and it
votes for its value like one more neighbour, with weight ``w * similarity`` beside the
neighbours' votes (which sum to 1). A value the definitions alone support (no neighbour holds it)
can be suggested. A field may also discount its neighbours by their distance in publication
years. All three come from the field's :class:`.tuning.Setting`, chosen by leave-one-out over the
tagged records; without one, a field is suggested from its nearest records alone.

A value a rule forces (not applicable by ``na_iff``, an implied value) is the only one allowed;
the rule is its evidence, with the neighbours that hold it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...corpus.records import UNTAGGED
from ...corpus.taxonomy import Field, Taxonomy
from . import structure, tuning

#: How many nearest tagged records vote on each field.
NEIGHBOURS = 10
#: How many values are shown per field (top-3 recall is measured on these).
SHOWN = 3
#: How many of the voting neighbours are shown as the evidence of one value.
EVIDENCE = 3
#: The weight of a neighbour is its similarity plus this.
FLOOR = 0.001


@dataclass(frozen=True)
class Neighbour:
    """A tagged record that is evidence for a value.

    Attributes:
        key: its record key. title: its title.
        similarity: cosine similarity to the record, in [0, 1], rounded to 3 decimals.
        shared: the words and phrases the two texts share, most weight first.
    """

    key: str
    title: str
    similarity: float
    shared: tuple[str, ...]


@dataclass(frozen=True)
class Definition:
    """The taxonomy's words for a value (its label and definition, or its label alone), as
    evidence for it.

    Attributes:
        text: the words as the model read them (label and definition: one line each).
        similarity: cosine similarity to the record, in [0, 1], rounded to 3 decimals.
        shared: the words and phrases the two texts share, most weight first.
        kind: ``"definition"`` (label and definition) or ``"label"`` (the label alone).
    """

    text: str
    similarity: float
    shared: tuple[str, ...]
    kind: str = "definition"


@dataclass(frozen=True)
class Suggestion:
    """One suggested value of one field.

    Attributes:
        value: a code, or for a set field a tuple of codes in taxonomy order.
        score: its share of the neighbours' vote (a set's: its probability), in [0, 1], 3 decimals.
        evidence: the most similar voting neighbours that hold it (at most :data:`EVIDENCE`).
        rules: the taxonomy rules that narrowed the allowed values (as phrases).
        given: field -> value this suggestion assumes: the fields whose value made the field
            apply (``required_when``) or narrowed its values, where that value is itself a
            suggestion (``{"field": "value"}``).
        definitions: the definitions of the value (a set's: of its members) that voted for it,
            most similar first (empty when the field's definitions weigh nothing or share no word).
    """

    value: str | tuple[str, ...]
    score: float
    evidence: tuple[Neighbour, ...]
    rules: tuple[str, ...] = ()
    given: dict = field(default_factory=dict)
    definitions: tuple[Definition, ...] = ()


@dataclass
class Tagged:
    """The tagged records a suggestion learns from, in key order.

    Attributes:
        records: the retained records that have no untagged controlled field.
        keys: their keys, in the same order.
    """

    records: list[dict]
    keys: list[str]


def tagged_records(records: list[dict], tax: Taxonomy, exclude: str | None = None) -> Tagged:
    """The records of ``records`` with every controlled field tagged (and no unconfirmed
    suggestion: a draft value is no evidence), except the one keyed ``exclude``, in key order."""
    from ...corpus.provenance import unconfirmed_fields

    names = [f.name for f in structure.fields(tax)]
    out = []
    for rec in records:
        if rec.get("key") == exclude or not isinstance(rec.get("key"), str):
            continue
        values = [rec.get(n) for n in names if n in rec]
        if any(v == UNTAGGED or (isinstance(v, list) and UNTAGGED in v) for v in values) or unconfirmed_fields(rec):
            continue
        out.append(rec)
    out.sort(key=lambda r: r["key"])
    return Tagged(out, [r["key"] for r in out])


def untagged_fields(record: dict, tax: Taxonomy) -> list[str]:
    """The controlled fields of ``record`` that are ``untagged`` (or hold it in their list) or
    hold a suggestion not yet confirmed, in taxonomy order."""
    from ...corpus.provenance import unconfirmed_fields

    draft = set(unconfirmed_fields(record))
    out = []
    for f in structure.fields(tax):
        value = record.get(f.name)
        if f.name in draft or value == UNTAGGED or (isinstance(value, list) and UNTAGGED in value):
            out.append(f.name)
    return out


def _fits(value, allowed: list[str], multi: bool) -> bool:
    if multi:
        return isinstance(value, list) and all(v in allowed for v in value)
    return value in allowed


def _neighbours(nearest: list[int], tagged: Tagged, name: str, allowed: list[str], multi: bool) -> list[int]:
    out = []
    for j in nearest:
        rec = tagged.records[j]
        if name in rec and _fits(rec[name], allowed, multi):
            out.append(j)
            if len(out) == NEIGHBOURS:
                break
    return out


def _evidence(index, query: int, tagged: Tagged, columns: list[int], holders: list[int], similarity) -> tuple[Neighbour, ...]:
    out = []
    for j in holders[:EVIDENCE]:
        rec = tagged.records[j]
        out.append(Neighbour(rec["key"], str(rec.get("title", "")), round(float(similarity[j]), 3),
                             index.shared_words(query, columns[j]) if index is not None else ()))
    return tuple(out)


def _single(field: Field, allowed: list[str], near: list[int], weights, tagged: Tagged,
            said: dict[str, float] | None = None) -> list[tuple[str, float, list[int]]]:
    """``[(value, share, holders)]`` best first: the neighbours' vote (shares summing to 1) and, with
    ``said`` (value -> weight of its definition's vote, :func:`definition_votes`), each value's
    definition voting beside them; values nobody voted for are left out."""
    total = float(sum(weights[j] for j in near)) or 1.0
    votes: dict[str, float] = {}
    holders: dict[str, list[int]] = {}
    for j in near:
        value = tagged.records[j][field.name]
        votes[value] = votes.get(value, 0.0) + float(weights[j]) / total
        holders.setdefault(value, []).append(j)
    said = {v: w for v, w in (said or {}).items() if w > 0}
    for value, w in said.items():
        votes[value] = votes.get(value, 0.0) + w
    whole = (1.0 if near else 0.0) + sum(said.values()) or 1.0
    position = {v: i for i, v in enumerate(field.values)}
    ranked = sorted(votes, key=lambda v: (-round(votes[v], 12), position.get(v, len(position))))
    return [(v, votes[v] / whole, holders.get(v, [])) for v in ranked]


def _multi(field: Field, allowed: list[str], near: list[int], weights, tagged: Tagged,
           said: dict[str, float] | None = None) -> list[tuple[tuple, float, list[int]]]:
    total = float(sum(weights[j] for j in near)) or 1.0
    said = said or {}
    share = {}
    for v in allowed:
        held = sum(float(weights[j]) for j in near if v in tagged.records[j][field.name]) / total if near else 0.0
        w = said.get(v, 0.0)
        share[v] = (held * (1.0 if near else 0.0) + w) / ((1.0 if near else 0.0) + w) if (near or w > 0) else 0.0
    best = tuple(v for v in allowed if share[v] >= 0.5)
    sets = [best] + [tuple(v for v in allowed if v in tagged.records[j][field.name]) for j in near]

    def probability(members: tuple) -> float:
        p = 1.0
        for v in allowed:
            p *= share[v] if v in members else 1.0 - share[v]
        return p

    ranked = sorted(dict.fromkeys(sets), key=lambda s: (-round(probability(s), 12), len(s), [allowed.index(v) for v in s]))
    out = []
    for members in ranked:
        exact = [j for j in near if tuple(v for v in allowed if v in tagged.records[j][field.name]) == members]
        some = [j for j in near if set(members) & set(tagged.records[j][field.name])]
        out.append((members, probability(members), exact or some))
    return out


def definition_votes(index, query: int, definitions: dict, name: str, allowed: list[str], weight: float) -> dict[str, float]:
    """value -> ``weight`` times the similarity of row ``query`` to the value's definition
    (``definitions``: ``(field, value) -> column`` of ``index``), for the ``allowed`` values that
    have one; ``{}`` when ``weight`` is 0."""
    if not weight:
        return {}
    row = index.similarity[query]
    return {v: weight * float(row[definitions[(name, v)]]) for v in allowed if (name, v) in definitions}


def _definitions(index, query: int, definitions: dict, texts: dict, name: str, value, said: dict,
                 kind: str) -> tuple[Definition, ...]:
    members = value if isinstance(value, tuple) else (value,)
    out = []
    for v in members:
        if said.get(v, 0.0) > 0:
            column = definitions[(name, v)]
            out.append(Definition(texts.get((name, v), ""), round(float(index.similarity[query][column]), 3),
                                  index.shared_words(query, column), kind))
    return tuple(sorted(out, key=lambda d: -d.similarity))


def propose(index, query: int, columns: list[int], tagged: Tagged, tax: Taxonomy, known: dict,
            wanted: list[str], shown: int = SHOWN, explain: bool = True, definitions: dict | None = None,
            settings: dict | None = None, texts: dict | None = None, year: int | None = None,
            labels: dict | None = None, label_texts: dict | None = None) -> dict[str, list[Suggestion]]:
    """Suggestions for the fields ``wanted`` of one record.

    Args:
        index: the :class:`.model.Index` whose row ``query`` is this record's text.
        query: the row of the record in ``index.similarity``.
        columns: for each of ``tagged.records``, its column in ``index.similarity``.
        tagged: the records to learn from (:func:`tagged_records`).
        tax: the vocabulary.
        known: field -> value of the record's tagged fields (they constrain the others).
        wanted: the fields to suggest (a field that does not apply to the record, by
            ``required_when``, is left out).
        shown: how many values to list per field.
        explain: False leaves the evidence out (the measurement needs only the values).
        definitions: ``(field, value) -> column`` of ``index`` holding the value's label and
            definition (:func:`.definitions.texts`); None: no definition votes.
        labels: ``(field, value) -> column`` of ``index`` holding the value's label alone
            (:func:`.definitions.labels`), for the fields whose setting compares labels.
        settings: field -> its :class:`.tuning.Setting` (:class:`.tuning.Chooser`; a field not
            given: :data:`.tuning.PLAIN`).
        texts, label_texts: ``(field, value) -> text`` of the definitions and of the labels, shown as evidence.
        year: the record's publication year (None: neighbours are not discounted by year).

    Returns:
        field -> suggestions best first, for every wanted field that applies, in
        :func:`.structure.order`; ``[]`` for a field no tagged record can inform.
    """
    text_similarity = index.similarity[query][columns] if len(columns) else np.zeros(0)
    years = [tuning.year_of(r) for r in tagged.records]
    orders: dict = {}
    context = {k: v for k, v in known.items() if v != UNTAGGED}
    assumed: dict[str, object] = {}
    out: dict[str, list[Suggestion]] = {}
    for f in structure.order(tax):
        if f.name not in wanted:
            continue
        if structure.applies(f, tax, context) is not True:
            continue
        allowed, used = structure.allowed(f, tax, context)
        depends = {r.other for r in used} | {r.other for r in structure.rules(tax) if r.field == f.name and r.kind == "required_when"}
        given = {name: assumed[name] for name in sorted(depends) if name in assumed}
        phrases = tuple(r.describe() for r in used)
        setting = (settings or {}).get(f.name, tuning.PLAIN)
        if setting.years not in orders:
            similarity = text_similarity * tuning.closeness(year, years, setting.years)
            orders[setting.years] = (similarity, sorted(range(len(tagged.records)),
                                                        key=lambda j: (-round(float(similarity[j]), 12), tagged.keys[j])))
        similarity, nearest = orders[setting.years]
        votes = similarity + FLOOR
        near = _neighbours(nearest, tagged, f.name, allowed, f.multi)
        cols, shown_texts = (labels or {}, label_texts or {}) if setting.words == "label" else (definitions or {}, texts or {})
        said = definition_votes(index, query, cols, f.name, allowed, setting.weight)
        if len(allowed) == 1 and not f.multi:  # forced by a rule: the neighbours that hold it are its evidence
            said = {}
            ranked = [(allowed[0], 1.0, near)]
        elif not near and not any(said.values()):
            # no tagged record holds an allowed value and no definition speaks for one: no vote, so no
            # suggestion (an empty set would be scored 1.000 by nobody)
            ranked = []
        else:
            ranked = (_multi if f.multi else _single)(f, allowed, near, votes, tagged, said)
        items = [Suggestion(value, round(score, 3),
                            _evidence(index, query, tagged, columns, holders, text_similarity) if explain else (),
                            phrases, dict(given),
                            _definitions(index, query, cols, shown_texts, f.name, value, said, setting.words) if explain else ())
                 for value, score, holders in ranked[:shown]]
        out[f.name] = items
        if items:
            best = items[0].value
            context[f.name] = list(best) if f.multi else best
            assumed[f.name] = context[f.name]
    return out
