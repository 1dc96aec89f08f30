"""The order in which the screener sees a round's candidates.

Candidates are ranked by how much they resemble the retained records against the excluded ones
(:func:`masrl.review.suggest.screening.rank_candidates`: TF-IDF nearest neighbours over the
records already judged; its measured screening figures are in the README). Each gets its rank
(1 = first to screen), its score and, where exclusion is the better guess, the likely
exclusion-reason class. Ties keep date order, newest first (``published``, then the identifier).
"""

from __future__ import annotations

from ...corpus.taxonomy import Taxonomy
from ..suggest.screening import rank_candidates


def rank(corpus, candidates: list) -> list[tuple[int, str, str]]:
    """``[(rank, score, likely_reason)]``, one per candidate in the order given.

    ``corpus`` is the :class:`~masrl.corpus.load.Corpus` whose retained and excluded records the
    ranking learns from; ``candidates`` have ``found`` (:class:`~.sources.base.Found`: title,
    abstract, venue, authors, published, identifier). Ranks are 1..n, each once; ``score`` is the
    resemblance in [0, 1] written with 3 decimals; ``likely_reason`` an exclusion-reason class or "".
    """
    order = sorted(range(len(candidates)), key=lambda i: candidates[i].found.identifier)
    order.sort(key=lambda i: candidates[i].found.published, reverse=True)
    abstract = Taxonomy(corpus.taxonomy).abstract_field
    texts = [{"title": candidates[i].found.title, abstract: candidates[i].found.abstract,
              "venue": candidates[i].found.venue, "authors": list(candidates[i].found.authors)} for i in order]
    out: dict[int, tuple[int, str, str]] = {}
    for ranked in rank_candidates(corpus, texts):
        out[order[ranked.index]] = (ranked.rank, f"{ranked.score:.3f}", ranked.likely_reason or "")
    return [out[i] for i in range(len(candidates))]
