"""How each field is suggested: how much its values' definitions or labels count, and whether
neighbours close in publication year count more; chosen per field by leave-one-out over the
tagged records.

A field's :class:`Setting` has three parts, each from a list fixed in advance (:data:`WEIGHTS`,
:data:`WORDS`, :data:`YEARS`), before any figure was measured:

* ``weight``: a value's definition (:mod:`.definitions`) votes for it with ``weight`` times its
  similarity to the record, beside the neighbours' votes, which sum to 1 (0: definitions left out);
* ``words``: what of the value is compared with the record: its label and definition, or its
  label alone (the name the taxonomy gives it, "web / browser", which a title may use as it is);
* ``years``: a neighbour's similarity is multiplied by ``exp(-|year difference| / years)`` before
  the nearest are taken and their votes counted (None: publication years left out). A record's
  year is known from the moment it is added; the foundations of a field and its recent methods
  are often told apart by it better than by their titles.

:class:`Chooser` predicts each tagged record holding the field from the others (its other fields
as tagged, so that the vocabulary's rules narrow its values as they would), under every setting of
:data:`SETTINGS`, and keeps the setting that predicts most of them; a tie goes to the setting
listed first, the simpler one: label and definition before the label alone, years left out before
any year scale, the widest scale first, and the smallest weight first; and a setting is kept only
when no simpler one is within one standard error of it (:func:`_simplest`). A field whose
suggestions no setting improves keeps :data:`PLAIN` (the nearest records alone).

The choice is part of the procedure, so the leave-one-out figures of :mod:`.evaluate` choose
the settings again without the record they predict (:meth:`Chooser.choose` with ``leave_out``:
nested leave-one-out): the figures are those of records the choice never saw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...corpus.taxonomy import Taxonomy
from . import structure

#: The weights a field's definitions may take: none, then doubling.
WEIGHTS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
#: The year scales a field's neighbours may be discounted by: none, then halving.
YEARS = (None, 8.0, 4.0, 2.0, 1.0)
#: What of a value votes: its label and definition, or its label alone.
WORDS = ("definition", "label")


@dataclass(frozen=True)
class Setting:
    """How one field is suggested: ``weight`` of its values' votes, ``words`` what of a value votes
    (``"definition"``: its label and definition; ``"label"``: its label alone), ``years`` the scale
    of the discount of neighbours by their distance in publication years (None: no discount)."""

    weight: float = 0.0
    years: float | None = None
    words: str = "definition"

    def describe(self) -> str:
        """The setting in words, for the suggestions' header."""
        named = "labels" if self.words == "label" else "definitions"
        parts = [f"{named} weigh {self.weight:g}" if self.weight else "definitions left out"]
        parts.append(f"neighbours discounted by exp(-years apart / {self.years:g})" if self.years else "publication years left out")
        return "; ".join(parts)


#: The nearest records alone.
PLAIN = Setting()
#: Every setting a field may take, the simpler first (the tie-break of :class:`Chooser`; a weight
#: of 0 makes the two kinds of words the same setting, and the first is kept).
SETTINGS = tuple(Setting(w, y, k) for k in WORDS for y in YEARS for w in WEIGHTS)


def year_of(record: dict) -> int | None:
    """A record's publication year as an integer, or None."""
    value = record.get("year")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def closeness(year: int | None, years: list, scale: float | None) -> np.ndarray:
    """``exp(-|year - y| / scale)`` for each ``y`` of ``years`` (1 where either year is unknown,
    and everywhere when ``scale`` is None)."""
    if scale is None or year is None:
        return np.ones(len(years))
    known = np.array([y if y is not None else year for y in years], dtype=float)
    return np.exp(-np.abs(known - year) / scale)


def _members(field, rec: dict) -> np.ndarray:
    """The record's value of ``field`` as a 0/1 vector over the field's values (a set: every member)."""
    value = rec.get(field.name)
    held = value if isinstance(value, list) else [value]
    return np.array([code in held for code in field.values], dtype=float)


@lru_cache(maxsize=64)
def _counted(size: int, neighbours: int) -> np.ndarray:
    """``(1 + min(size, neighbours), size)`` 0/1: which of ``size`` nearest records (nearest first)
    vote: the first ``neighbours``; then, for each of those left out, the others' first ``neighbours``."""
    first = min(size, neighbours)
    out = np.zeros((1 + first, size))
    out[0, :first] = 1
    for k in range(first):
        keep = [i for i in range(size) if i != k][:neighbours]
        out[1 + k, keep] = 1
    return out


def _hits(field, shares: np.ndarray, said: np.ndarray, allowed: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Whether the best value of each vote is the truth, for every kind of words of :data:`WORDS`
    and every weight of :data:`WEIGHTS`.

    ``shares``: ``(..., values)`` neighbours' votes; ``said``: ``(words, values)`` the similarity of
    each value's words; ``allowed``, ``truth``: ``(values,)``. Returns ``(..., words, weights)``
    booleans. The best value is the one :mod:`.propose` ranks first: the largest score (ties: the
    first in taxonomy order; none when no value has a vote); for a set field, the set of the values
    whose share, with the vote of their words, is at least one half.
    """
    w = np.asarray(WEIGHTS)[None, :, None] * said[:, None, :]  # (words, weights, values)
    shares = shares[..., None, None, :]
    if field.multi:
        held = np.where(w > 0, (shares + w) / (1.0 + w), shares)
        chosen = (held >= 0.5) & (allowed > 0)
        return np.all(chosen == (truth > 0), axis=-1)
    score = np.round((shares + w) * allowed, 12)
    best = np.argmax(score, axis=-1)
    return (np.max(score, axis=-1) > 0) & (truth[best] > 0)


class Chooser:
    """Chooses each field's :class:`Setting` by leave-one-out over a pool of tagged records,
    optionally as if one of them were not in the pool (:meth:`choose`).

    Every holder of a field is predicted from the :data:`.propose.NEIGHBOURS` nearest other holders
    of a value its other fields allow, under each setting; leaving a record out of the pool changes
    only the votes of the holders it is a neighbour of (they take the next nearest instead) and
    removes its own, so the choice without each record is computed once, here, from those changes.

    Args:
        index: the model whose rows are the tagged records as stubs, each under the fit made
            without its own full text, and whose first columns are the same records in full, then
            the definitions and the labels (:meth:`.pool.Pool.held_out`).
        tagged: the tagged records (:class:`.propose.Tagged`).
        tax: the vocabulary.
        definitions, labels: ``(field, value) -> column`` of ``index`` holding the value's label
            and definition, and its label alone.
        neighbours, floor: how many nearest records vote, and what is added to their similarity
            (:data:`.propose.NEIGHBOURS`, :data:`.propose.FLOOR`).
    """

    def __init__(self, index, tagged, tax: Taxonomy, definitions: dict, neighbours: int, floor: float,
                 labels: dict | None = None):
        fields = [f for f in structure.fields(tax) if f.suggested]
        n = len(tagged.records)
        words = {"definition": definitions, "label": labels or {}}
        years = [year_of(r) for r in tagged.records]
        near_by_year = {scale: np.array([closeness(years[q], years, scale) for q in range(n)]) for scale in YEARS}
        tie = np.empty(n, dtype=int)
        tie[np.argsort(np.array(tagged.keys, dtype=object), kind="stable")] = np.arange(n)
        #: field -> (settings,) holders predicted right; field -> (rows, settings) the change without each row
        self.counts: dict[str, np.ndarray] = {}
        self.changes: dict[str, np.ndarray] = {}
        self.sizes: dict[str, set[int]] = {}
        for f in fields:
            rows = [i for i in range(n) if f.name in tagged.records[i]]
            self.sizes[f.name] = set(rows)
            values = np.array([_members(f, tagged.records[j]) for j in range(n)])
            # the column of each value's words in the index, per kind (-1: the value has none)
            where = np.array([[words[k].get((f.name, c), -1) for c in f.values] for k in WORDS])
            counts = np.zeros((len(WORDS), len(YEARS), len(WEIGHTS)))
            changes = np.zeros((n, len(WORDS), len(YEARS), len(WEIGHTS)))
            holders = np.array(rows, dtype=int)
            for q in rows:
                rec = tagged.records[q]
                codes, _ = structure.allowed(f, tax, {g.name: rec[g.name] for g in fields if g.name in rec and g.name != f.name})
                allowed = np.array([c in codes for c in f.values], dtype=float)
                fits = holders[(holders != q) & ~(values[holders] @ (1 - allowed) > 0)]
                said = np.where(where >= 0, index.similarity[q][where], 0.0) * allowed  # (words, values)
                truth = values[q]
                shares, firsts = [], []
                for scale in YEARS:
                    sims = index.similarity[q][:n] * near_by_year[scale][q]
                    near = fits[np.lexsort((tie[fits], -np.round(sims[fits], 12)))][: neighbours + 1] if len(fits) else fits
                    # the vote, and the vote without each of the first neighbours (the next one takes its place)
                    counted = _counted(len(near), neighbours) * (sims[near] + floor)  # (1 + neighbours, near)
                    totals = counted.sum(axis=1, keepdims=True)
                    shares.append((counted @ values[near]) / np.where(totals > 0, totals, 1.0) * allowed)
                    firsts.append(near[:neighbours])
                hit = _hits(f, np.array(shares), said, allowed, truth).astype(float)  # (years, 1 + neighbours, words, weights)
                counts += hit[:, 0].transpose(1, 0, 2)
                changes[q] -= hit[:, 0].transpose(1, 0, 2)  # without q, q is not predicted
                for y, first in enumerate(firsts):
                    changes[first, :, y] += hit[y, 1:] - hit[y, 0]  # without a neighbour, the next one votes
            self.counts[f.name] = counts.reshape(-1)
            self.changes[f.name] = changes.reshape(n, len(SETTINGS))  # n may be 0

    def choose(self, leave_out: int | None = None) -> dict[str, Setting]:
        """field -> the setting of :data:`SETTINGS` that predicts most of its holders, or the first
        setting within one standard error of it (:func:`_simplest`), each holder predicted from
        the others; with ``leave_out`` (a row of the tagged records), as if that record were not
        in the pool."""
        out = {}
        for name, counts in self.counts.items():
            if leave_out is not None:
                counts = counts + self.changes[name][leave_out]
            size = len(self.sizes[name]) - (leave_out in self.sizes[name])
            out[name] = SETTINGS[_simplest(np.round(counts).astype(int), size)]
        return out


def _simplest(counts: np.ndarray, n: int) -> int:
    """The first setting whose count of the ``n`` holders predicted right is within one standard
    error of the best count (the one-standard-error rule of Breiman et al., *Classification and
    Regression Trees*, 1984: a setting that does not measurably beat a simpler one is not taken)."""
    best = int(counts.max())
    error = math.sqrt(best * (n - best) / n) if n else 0.0
    return int(np.argmax(counts >= best - error))
