"""When to stop screening a ranked queue: the hypergeometric test of Callaghan & Müller-Hansen.

Method: M. W. Callaghan and F. Müller-Hansen, "Statistical stopping criteria for automated
screening in systematic reviews", *Systematic Reviews* 9:273 (2020), doi:10.1186/s13643-020-01521-4;
the form for a ranked list is that of the authors' own implementation (buscar, ``calculate_h0``,
with no bias). Pure functions; the hypergeometric distribution is computed exactly up to
floating point from log-factorials (the tests compare it with scipy's).

The screener reads the ``N`` candidates of a queue in rank order and has read ``n`` of them, ``r``
relevant. The null hypothesis is that recall is below the target ``τ``: the queue holds at least
``⌊r / τ⌋ + 1`` relevant candidates. For every ``m`` from 1 to ``n``, the last ``m`` candidates read
are taken as a sample drawn without replacement from themselves and the ``N - n`` unread ones; if
the null hypothesis held, that population would hold at least ``K = ⌊r / τ⌋ + 1 - (r - k)``
relevant candidates, where ``k`` of the ``m`` were relevant, and finding ``k`` or fewer has
probability ``P(X ≤ k)``, ``X`` hypergeometric (population ``N - n + m``, ``K`` successes, ``m``
draws). ``p`` is the smallest of these; screening may stop when ``p < 1 - confidence``: then
recall is at least ``τ`` at that confidence (a ``p`` at the threshold does not reject, whatever
floating point makes of it: :data:`ROUNDING`).

Assumptions (as the method states them, and as masrl applies it):

* the candidates were read in rank order, every decision is right, and the queue is the whole
  population (the recall is that of this queue's relevant candidates, not of the literature:
  what the searches missed is another matter);
* the last candidates read are no more likely to be relevant than a random draw from them and
  the unread ones: the ranking does not put relevant candidates after irrelevant ones more than
  chance would. A ranking that works puts them earlier, which makes the test conservative (it
  stops later than it could); a ranking worse than random makes it unsafe;
* the target and the confidence are chosen before screening, and the test is run after each
  decision as the authors' retrospective procedure does.

The unread relevant candidates are estimated two ways (:func:`assess`): at most ``bound`` with the
same confidence (the largest count whose hypothesis "at least this many are unread" the same test
does not reject: :func:`upper_bound`), and about ``estimate`` at the rate of the last ``m`` read,
the ``m`` that rejects one more than the bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: The authors' own defaults: a recall target of 95%, at a confidence of 95%.
RECALL = 0.95
CONFIDENCE = 0.95
#: How the method is named wherever its result is shown.
METHOD = ("hypergeometric stopping test of Callaghan & Müller-Hansen (2020, Systematic Reviews 9:273), "
          "for a list screened in rank order")


#: How far below ``1 - confidence`` a p-value must lie, relatively, to reject: p is computed in floating
#: point (from log-factorials), so a p exactly at the threshold (1/20 against 0.05) can come out a
#: rounding error below it, and ``1 - 0.95`` is itself 0.050000000000000044. The test needs p < 1 -
#: confidence: a p at the threshold does not reject.
ROUNDING = 1e-9


def threshold(confidence: float) -> float:
    """The largest p-value that rejects at ``confidence``, short of its threshold by :data:`ROUNDING`."""
    return round(1.0 - confidence, 12) * (1.0 - ROUNDING)


@lru_cache(maxsize=8)
def _log_factorials(n: int) -> np.ndarray:
    """``log(i!)`` for ``i`` in ``0..n``."""
    return np.array([math.lgamma(i + 1) for i in range(n + 1)])


def _log_choose(table: np.ndarray, a, b):
    return table[a] - table[b] - table[a - b]


def hypergeom_cdf(k, population, successes, draws) -> np.ndarray:
    """``P(X ≤ k)`` for ``X`` hypergeometric: ``draws`` taken without replacement from
    ``population`` items of which ``successes`` count (arrays broadcast together). 1 where ``k``
    reaches every possible count, 0 where ``successes`` exceeds ``population`` (no such urn)."""
    k, population, successes, draws = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (k, population, successes, draws)))
    out = np.zeros(k.shape)
    if not k.size:
        return out
    table = _log_factorials(int(max(population.max(), 1)))
    valid = (successes <= population) & (successes >= 0) & (draws <= population)
    low = np.maximum(0, draws - (population - successes))  # fewest successes a draw can hold
    high = np.minimum(draws, successes)
    upto = np.minimum(k, high)
    whole = np.where(valid, _log_choose(table, population, np.clip(draws, 0, population)), 0.0)
    longest = int((upto - low).max()) + 1 if valid.any() else 0
    for step in range(max(longest, 0)):
        i = low + step
        take = valid & (i <= upto)
        if not take.any():
            continue
        ii = np.where(take, i, 0)
        term = (_log_choose(table, np.where(take, successes, 0), ii)
                + _log_choose(table, np.where(take, population - successes, 0), np.where(take, draws - ii, 0)) - whole)
        out += np.where(take, np.exp(term), 0.0)
    out = np.where(valid & (k >= high), 1.0, out)
    return np.clip(np.where(valid, out, 0.0), 0.0, 1.0)


def _urns(labels: list[bool], total: int):
    """Per urn (the last ``m`` read, ``m`` = 1..n): relevant in it, its population, its size."""
    read = len(labels)
    tail = np.cumsum(np.asarray(labels[::-1], dtype=np.int64))  # relevant among the last m
    sizes = np.arange(1, read + 1)
    return tail, total - read + sizes, sizes


def p_value(labels: list[bool], total: int, recall: float = RECALL) -> float:
    """``p`` of the null hypothesis "recall is below ``recall``" after reading ``labels`` (True:
    relevant) in rank order out of ``total`` candidates (1.0 when nothing was read)."""
    if not labels:
        return 1.0
    relevant = int(sum(labels))
    k, population, sizes = _urns(labels, total)
    needed = math.floor(relevant / recall) + 1 - (relevant - k)
    return float(hypergeom_cdf(k, population, needed, sizes).min())


def upper_bound(labels: list[bool], total: int, confidence: float = CONFIDENCE) -> tuple[int, int]:
    """``(bound, m)``: at most ``bound`` relevant candidates are unread, at ``confidence``: the largest
    count ``u`` whose hypothesis "at least ``u`` relevant candidates are unread" the same test does not
    reject (``p ≥ 1 - confidence``, the last ``m`` read as the sample), and the ``m`` that rejects
    ``bound + 1`` (0 when nothing rejects it: nothing was read, or ``bound`` is every unread one)."""
    unread = total - len(labels)
    if not labels or unread <= 0:
        return max(unread, 0), 0
    k, population, sizes = _urns(labels, total)
    alpha = threshold(confidence)

    def rejected(u: int) -> bool:
        return bool((hypergeom_cdf(k, population, k + u, sizes) < alpha).any())

    lo, hi = 0, unread + 1  # the bound is the largest u not rejected, in [0, unread]; u = 0 is never rejected
    if not rejected(unread):
        return unread, 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if rejected(mid):
            hi = mid
        else:
            lo = mid
    ps = hypergeom_cdf(k, population, k + hi, sizes)
    return lo, int(np.argmin(ps)) + 1


@dataclass(frozen=True)
class Assessment:
    """Where the screening of a ranked queue stands, by :data:`METHOD`.

    Attributes:
        total: candidates in the queue. read: read so far, in rank order. relevant: relevant among them.
        recall, confidence: the target and the confidence of the test.
        p: the test's p-value for "recall is below the target".
        bound: at most this many relevant candidates are unread, at the confidence.
        estimate: about this many, at the rate of the last ``window`` read (the ``m`` that bounds
            them most tightly; the whole list read when nothing bounds them).
        window: that ``m``. window_relevant: relevant among those ``m``.
    """

    total: int
    read: int
    relevant: int
    recall: float
    confidence: float
    p: float
    bound: int
    estimate: float
    window: int
    window_relevant: int

    @property
    def stop(self) -> bool:
        """Whether screening may stop: the test rejects "recall is below the target"."""
        return self.read > 0 and self.p < threshold(self.confidence)

    @property
    def recall_at_least(self) -> float | None:
        """The recall the bound guarantees at the confidence: ``relevant / (relevant + bound)``
        (None when nothing relevant was found)."""
        return self.relevant / (self.relevant + self.bound) if self.relevant else None


def assess(labels: list[bool], total: int, recall: float = RECALL, confidence: float = CONFIDENCE) -> Assessment:
    """The :class:`Assessment` after reading ``labels`` (True: relevant) in rank order out of ``total``.

    Raises:
        ValueError: for a target or a confidence outside (0, 1), or more labels than candidates.
    """
    if not 0.0 < recall < 1.0 or not 0.0 < confidence < 1.0:
        raise ValueError("the recall target and the confidence are proportions strictly between 0 and 1")
    if len(labels) > total:
        raise ValueError(f"{len(labels)} candidates read out of {total}")
    bound, window = upper_bound(labels, total, confidence)
    if window == 0:
        window = len(labels)
    found = int(sum(labels[len(labels) - window:])) if window else 0
    estimate = found / window * (total - len(labels)) if window else 0.0
    return Assessment(total, len(labels), int(sum(labels)), recall, confidence, p_value(labels, total, recall),
                      bound, estimate, window, found)


def stopping_point(labels: list[bool], recall: float = RECALL, confidence: float = CONFIDENCE, every: int = 1) -> int | None:
    """How many candidates of the fully labelled ranked list ``labels`` are read when the test
    first allows stopping, testing after every ``every`` candidates (and after the last); None
    when it never does."""
    total = len(labels)
    alpha = threshold(confidence)
    checks = list(range(every, total + 1, every))
    if not checks or checks[-1] != total:
        checks.append(total)
    for read in checks:
        if p_value(labels[:read], total, recall) < alpha:
            return read
    return None
