"""Screening rank: order candidate papers by how much they resemble the retained records
against the excluded ones, with the likely exclusion-reason class where exclusion is the
better guess.

The model reads each record's title and abstract (:func:`.text.screening_text`; an excluded
record has only its screening label and perhaps an abstract, so nothing else is compared).
The :data:`NEIGHBOURS` most similar judged records of a candidate (:mod:`.model`; ties by key
or record id) vote with weight ``similarity + 0.001``; each side's vote is divided by the
number of records on that side, so that the larger side does not win by its size alone. The
score is the retained side's share of the two, in [0, 1]: above 0.5 the candidate resembles
the retained records more. Below 0.5, the likely reason is the reason class (a value of the
excluded records' reason-class field, the taxonomy's ``screening.reasons``) with the largest vote among the excluded
neighbours (ties in taxonomy order). Candidates are ranked by score, best first (ties in the
order given). The same pool and candidates give the same ranks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...corpus.taxonomy import Taxonomy
from . import model, text
from ...core.names import record_id_order

#: How many nearest judged records vote on a candidate.
NEIGHBOURS = 10
#: The weight of a neighbour is its similarity plus this.
FLOOR = 0.001
#: How many retained and how many excluded neighbours are shown as evidence.
EVIDENCE = 2


@dataclass(frozen=True)
class Judged:
    """A judged record shown as evidence: ``ident`` is a retained key or an excluded record id."""

    ident: str
    title: str
    retained: bool
    similarity: float
    shared: tuple[str, ...]
    reason: str | None = None


@dataclass(frozen=True)
class Ranked:
    """One candidate's place in the screening order.

    Attributes:
        index: the candidate's position in the list given to :func:`rank_candidates`.
        rank: 1 for the candidate most like the retained records.
        score: resemblance to the retained records against the excluded ones, in [0, 1], 3 decimals.
        likely_reason: the likely exclusion-reason class when the score is below 0.5, else None.
        evidence: the nearest retained and excluded records (at most :data:`EVIDENCE` of each).
    """

    index: int
    rank: int
    score: float
    likely_reason: str | None
    evidence: tuple[Judged, ...]


@dataclass
class Pool:
    """The judged records: ``records`` (retained first, by key; then excluded, by record id),
    ``retained`` (True for each retained one), the reason classes in taxonomy order and the field
    of excluded records that holds them (the taxonomy's ``screening.reasons``; None without one),
    and the field that holds a record's abstract (the taxonomy's; None: none is read)."""

    records: list[dict]
    retained: list[bool]
    reasons: tuple[str, ...]
    reason_field: str | None = None
    abstract: str | None = None

    def __post_init__(self):
        idents = [_ident(r) for r in self.records]
        order = sorted(range(len(idents)), key=lambda i: idents[i])
        #: position of each record when all are sorted by key or record id (the tie-break)
        self.ident_rank = np.empty(len(idents), dtype=int)
        self.ident_rank[order] = np.arange(len(idents))


def judged_pool(corpus) -> Pool:
    """The retained and excluded records of ``corpus`` (a :class:`masrl.corpus.load.Corpus`) with a
    key or record id, for :func:`score`."""
    tax = Taxonomy(corpus.taxonomy)
    kept = sorted((r for r in corpus.retained.values() if isinstance(r.get("key"), str)), key=lambda r: r["key"])
    out = sorted((r for r in corpus.excluded.values() if isinstance(r.get("record_id"), str)), key=lambda r: record_id_order(r["record_id"]))
    reason = tax.role("reasons")
    return Pool(kept + out, [True] * len(kept) + [False] * len(out), tax.values(reason) if reason else (), reason,
                tax.abstract_field)


def _ident(rec: dict) -> str:
    return str(rec.get("key") or rec.get("record_id"))


def score(pool: Pool, index, query: int, columns: list[int], explain: bool = True) -> tuple[float, str | None, tuple[Judged, ...]]:
    """``(score, likely reason or None, evidence)`` of row ``query`` of ``index`` against the
    judged records ``columns`` (positions in ``pool.records``, which are also the index's
    columns). With no record on one side, the score is 1.0 (no excluded record) or 0.0."""
    sims = index.similarity[query]
    cols = np.asarray(columns, dtype=int)
    # most similar first, ties by key or record id (pool.records is in that order within each side)
    ranks = pool.ident_rank[cols] if len(cols) else cols
    nearest = [int(j) for j in cols[np.lexsort((ranks, -np.round(sims[cols], 12)))][:NEIGHBOURS]] if len(cols) else []
    sides = {True: sum(1 for j in columns if pool.retained[j]), False: sum(1 for j in columns if not pool.retained[j])}
    if not sides[False] or not sides[True]:
        value = 1.0 if sides[True] else 0.0
    else:
        vote = {side: sum(float(sims[j]) + FLOOR for j in nearest if pool.retained[j] == side) / sides[side] for side in (True, False)}
        value = vote[True] / (vote[True] + vote[False]) if vote[True] + vote[False] else 0.5
    reason = None
    if value < 0.5 and pool.reason_field:
        votes: dict[str, float] = {}
        for j in nearest:
            cls = pool.records[j].get(pool.reason_field)
            if not pool.retained[j] and isinstance(cls, str):
                votes[cls] = votes.get(cls, 0.0) + float(sims[j]) + FLOOR
        position = {c: i for i, c in enumerate(pool.reasons)}
        if votes:
            reason = min(votes, key=lambda c: (-round(votes[c], 12), position.get(c, len(position)), c))
    evidence: list[Judged] = []
    if explain:
        for side in (True, False):
            for j in [j for j in nearest if pool.retained[j] == side][:EVIDENCE]:
                rec = pool.records[j]
                evidence.append(Judged(_ident(rec), str(rec.get("title") or rec.get("screening_label") or ""), side,
                                       round(float(sims[j]), 3), index.shared_words(query, j),
                                       None if side or not pool.reason_field else rec.get(pool.reason_field)))
    return round(value, 3), reason, tuple(evidence)


def rank_candidates(corpus, candidates: list[dict]) -> list[Ranked]:
    """Rank ``candidates`` for screening against the judged records of ``corpus``.

    Args:
        corpus: a :class:`masrl.corpus.load.Corpus` (its retained and excluded records).
        candidates: mappings shaped as records: ``title`` (or ``screening_label``) and
            optionally the abstract in the taxonomy's field for it (``Taxonomy.abstract_field``);
            other keys (``venue``, ``authors``) are accepted and not read (see :mod:`.text`).

    Returns:
        one :class:`Ranked` per candidate, best first (``rank`` 1, 2, ...); ``index`` maps
        each back to ``candidates``. An empty list for no candidates.
    """
    if not candidates:
        return []
    pool = judged_pool(corpus)
    index = model.build([text.screening_text(r, pool.abstract) for r in pool.records],
                        [text.screening_text(c, pool.abstract) for c in candidates])
    columns = list(range(len(pool.records)))
    scored = [(i, *score(pool, index, i, columns)) for i in range(len(candidates))]
    scored.sort(key=lambda item: (-item[1], item[0]))
    return [Ranked(i, rank, value, reason, evidence) for rank, (i, value, reason, evidence) in enumerate(scored, 1)]
