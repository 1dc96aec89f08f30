"""The order in which the screener sees a round's candidates.

One function, :func:`rank`, so that a relevance model can replace its body without touching
the rest of the round: it returns, for each candidate, its rank (1 = first to screen), a score
and a likely exclusion-reason class. Until a model fills them, the order is by date, newest
first (``published``, then the identifier), the score and the likely reason are empty.
"""

from __future__ import annotations


def rank(corpus, candidates: list) -> list[tuple[int, str, str]]:
    """``[(rank, score, likely_reason)]``, one per candidate in the order given.

    ``corpus`` is the :class:`~masrl.corpus.load.Corpus` (the retained and excluded records a
    model could learn from); ``candidates`` have ``found.published`` (``YYYY-MM-DD``) and
    ``found.identifier``. Ranks are 1..n, each once; ``score`` is a decimal number as text or
    ""; ``likely_reason`` an exclusion-reason class (X1-X5) or "".
    """
    order = sorted(range(len(candidates)), key=lambda i: candidates[i].found.identifier)
    order.sort(key=lambda i: candidates[i].found.published, reverse=True)
    ranks = {index: position + 1 for position, index in enumerate(order)}
    return [(ranks[i], "", "") for i in range(len(candidates))]
