"""Leave-one-out measurement of the suggestions, per controlled field.

Each tagged record in turn becomes a stub: every controlled field is hidden and its text is
what a stub has (title, abstract where present, venue: :data:`.text.STUB_TEXT_FIELDS`; its
one-liner and notes are written when it is tagged). Its fields are suggested from all the
other tagged records exactly as ``masrl suggest`` does (:func:`.propose.propose`, the same
rules and order): its stub is compared with the others under the TF-IDF ``masrl suggest`` would
fit for it, never under one that saw its own full text (:meth:`.pool.Pool.held_out`), and each
field's setting is chosen again without it (nested leave-one-out: :meth:`.tuning.Chooser.choose`
with ``leave_out``; the choice compares the records as the measurement does, each stub under
the fit made without its own full text). Each field the record holds is compared with its value:

* top-1 accuracy: the best suggestion is the record's value (for a set field, the same set);
* top-3 recall: the value is among the :data:`.propose.SHOWN` values listed;
* majority baseline, leave-one-out too: the share of the records holding the field whose value
  is the most common value (for a set field, the most common set) of the *other* records,
  i.e. the accuracy of always suggesting the most common value, measured as the suggestions are.

A field that the record holds but that was not suggested (a conditional field whose
condition was not the best suggestion) counts as a miss. A field whose top-1 accuracy does
not exceed its baseline is *low confidence*; ``masrl suggest`` says so beside it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ...core.memo import MISSING, Memo, content_key
from ...corpus.taxonomy import Taxonomy
from . import model, pool, propose, structure, text, tuning

#: Leave-one-out figures by the tagged records and vocabulary they were measured on: a process
#: that suggests several times (a record after another, the test suite) measures a pool once.
_MEASURED = Memo(16)
#: The fields' settings chosen over the same records, by the same key (computed together).
_CHOSEN = Memo(16)


@dataclass(frozen=True)
class FieldScore:
    """Leave-one-out figures of one field.

    Attributes:
        field: the field name.
        n: records holding the field (each predicted once).
        top1: hits of the best suggestion. top3: hits among the values shown.
        majority: the most common value over all the records (a set field's: its most common set, as a tuple).
        baseline_hits: records whose value is the most common one of the other records (leave-one-out).
        right: the keys of the records whose best suggestion was their value (``top1`` of them).
    """

    field: str
    n: int
    top1: int
    top3: int
    majority: object
    baseline_hits: int
    right: tuple[str, ...] = ()

    @property
    def accuracy(self) -> float:
        """Top-1 accuracy in [0, 1] (0 when n is 0)."""
        return self.top1 / self.n if self.n else 0.0

    @property
    def recall3(self) -> float:
        """Top-3 recall in [0, 1] (0 when n is 0)."""
        return self.top3 / self.n if self.n else 0.0

    @property
    def baseline(self) -> float:
        """Leave-one-out majority-class accuracy in [0, 1] (0 when n is 0)."""
        return self.baseline_hits / self.n if self.n else 0.0

    @property
    def low_confidence(self) -> bool:
        """True when the model's top-1 accuracy does not beat the majority baseline (or nothing was measured)."""
        return self.n == 0 or self.top1 <= self.baseline_hits


def _most_common(counts: Counter, field):
    """The most common value of ``counts`` (ties: taxonomy order; a set field's sets: by their codes)."""
    position = {v: i for i, v in enumerate(field.values)}
    return min(counts, key=lambda v: (-counts[v], str(v) if field.multi else position.get(v, len(position))))


def majority_baseline(values: list, field) -> tuple[object, int]:
    """``(most common value of all, hits)``: how many of ``values`` equal the most common value of
    the others (each left out in turn); ``(None, 0)`` for no value."""
    counts = Counter(values)
    if not counts:
        return None, 0
    hits = 0
    for value in values:
        counts[value] -= 1
        rest = +counts
        hits += bool(rest) and _most_common(rest, field) == value
        counts[value] += 1
    return _most_common(counts, field), hits


def _value(record: dict, field) -> object:
    value = record[field.name]
    if field.multi:
        return tuple(v for v in field.values if v in value) if isinstance(value, list) else None
    return value


def measure(records: list[dict], tax: Taxonomy) -> dict[str, FieldScore]:
    """Leave-one-out figures of every controlled field, over the tagged records of ``records``.

    Returns field -> :class:`FieldScore`, in taxonomy order (fields no record holds have n 0).
    Deterministic: the same records give the same figures, which the process remembers by the
    tagged records (all that is measured) and the vocabulary (:data:`_MEASURED`).
    """
    return dict(_measured(records, tax)[0])


def settings(records: list[dict], tax: Taxonomy) -> dict[str, tuning.Setting]:
    """field -> its :class:`.tuning.Setting`, chosen by leave-one-out over all the tagged records
    of ``records`` (:class:`.tuning.Chooser`): what ``masrl suggest`` uses."""
    return dict(_measured(records, tax)[1])


def _measured(records: list[dict], tax: Taxonomy) -> tuple[dict, dict]:
    tagged = propose.tagged_records(records, tax)
    key = content_key(tax.data, tagged.records)
    scores, chosen = _MEASURED.get(key), _CHOSEN.get(key)
    if scores is MISSING or chosen is MISSING:
        scores, chosen = _measure_all(tagged, tax)
        _MEASURED.put(key, scores)
        _CHOSEN.put(key, chosen)
    return scores, chosen


def _measure(tagged: propose.Tagged, tax: Taxonomy) -> dict[str, FieldScore]:
    """The leave-one-out figures of ``tagged`` (:func:`_measure_all`'s first half)."""
    return _measure_all(tagged, tax)[0]


def _measure_all(tagged: propose.Tagged, tax: Taxonomy) -> tuple[dict[str, FieldScore], dict[str, tuning.Setting]]:
    """The figures of every field by nested leave-one-out, and the settings chosen over all of ``tagged``."""
    counted = pool.pool(tagged.records, tax)
    columns, rows = counted.columns, counted.held_out()
    # the settings are chosen on the comparisons they will be used in: each record as a stub under
    # the fit `masrl suggest` would make for it, never its own full text
    index = model.Index(rows, np.array([], dtype=object), None, None)
    chooser = tuning.Chooser(index, tagged, tax, columns, propose.NEIGHBOURS, propose.FLOOR, labels=counted.labels)
    fields = structure.fields(tax)
    names = [f.name for f in fields]
    hits = {n: [0, 0, 0] for n in names}
    right: dict[str, list[str]] = {n: [] for n in names}
    everyone = list(range(len(tagged.records)))
    for i, rec in enumerate(tagged.records):
        others = everyone[:i] + everyone[i + 1:]
        rest = propose.Tagged([tagged.records[j] for j in others], [tagged.keys[j] for j in others])
        held_out = model.Index(rows[i][None, :], index.words, None, None)
        found = propose.propose(held_out, 0, others, rest, tax, {}, names, explain=False, definitions=columns,
                                labels=counted.labels, settings=chooser.choose(leave_out=i), year=tuning.year_of(rec))
        for f in fields:
            if f.name not in rec:
                continue
            truth = _value(rec, f)
            values = [s.value for s in found.get(f.name, [])]
            hits[f.name][0] += 1
            hits[f.name][1] += bool(values) and values[0] == truth
            hits[f.name][2] += truth in values
            if values and values[0] == truth:
                right[f.name].append(tagged.keys[i])
    out = {}
    for f in fields:
        values = [_value(r, f) for r in tagged.records if f.name in r]
        majority, loo = majority_baseline(values, f)
        out[f.name] = FieldScore(f.name, hits[f.name][0], hits[f.name][1], hits[f.name][2], majority, loo, tuple(right[f.name]))
    return out, chooser.choose()


@dataclass(frozen=True)
class ScreeningScore:
    """Leave-one-out figures of the screening rank over the judged records.

    Attributes:
        n: judged records (retained + excluded). relevant: the retained ones.
        wss95: work saved over sampling at 95% recall (Cohen et al. 2006): the share of the list
            not read when reading in rank order until 95% of the retained records are found,
            minus 0.05. random_wss95: its expectation in random order.
        recall50: share of the retained records in the first half of the list (``n // 2``
            records). random_recall50: its expectation in random order.
    """

    n: int
    relevant: int
    wss95: float
    recall50: float
    random_wss95: float
    random_recall50: float


def measure_screening(corpus) -> ScreeningScore:
    """Each judged record of ``corpus`` in turn is scored against all the others
    (:func:`.screening.score`); the records are then read in score order (best first, ties by
    key or record id). The random-order figures are exact expectations: the ``k``-th of ``r``
    relevant records among ``n`` is expected at position ``k (n + 1) / (r + 1)``."""
    import math

    from . import screening

    pool = screening.judged_pool(corpus)
    n = len(pool.records)
    relevant = sum(pool.retained)
    if not n or not relevant:
        return ScreeningScore(n, relevant, 0.0, 0.0, 0.0, 0.0)
    texts = [text.screening_text(r, pool.abstract) for r in pool.records]
    index = model.build(texts, texts)
    everyone = list(range(n))
    scores = [screening.score(pool, index, i, everyone[:i] + everyone[i + 1:], explain=False)[0] for i in everyone]
    order = sorted(everyone, key=lambda i: (-scores[i], screening._ident(pool.records[i])))
    need = math.ceil(0.95 * relevant)
    found = read = 0
    for read, i in enumerate(order, 1):
        found += pool.retained[i]
        if found >= need:
            break
    half = n // 2
    recall50 = sum(pool.retained[i] for i in order[:half]) / relevant
    random_read = need * (n + 1) / (relevant + 1)
    return ScreeningScore(n, relevant, (n - read) / n - 0.05, recall50, (n - random_read) / n - 0.05, half / n)
