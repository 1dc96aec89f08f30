"""Inter-reader agreement with 95% confidence intervals (pure functions, standard library only).

Input: the ratings of one field, one tuple per item with one label per reader
(every reader rated every item), and the field's allowed values (the
controlled vocabulary; ``q`` = their number). Output: an :class:`Agreement`.

Coefficients and their sources:

* observed agreement: share of items on which the readers agree. Two readers:
  agreements / items with the Wilson score interval (Wilson 1927), which stays
  informative at 32/32 where a normal interval collapses. More readers: the
  mean pairwise agreement p_a over items (Fleiss 1971) with a normal interval.
* Cohen's κ for two readers (Cohen 1960), κ = (p_o − p_e) / (1 − p_e) with p_e
  from the two readers' marginals; standard error from the large-sample
  variance of Fleiss, Cohen & Everitt (1969); undefined (None) when p_e = 1,
  and without an interval when that variance is 0 below κ = 1 (a reader who
  gave one value to every item, where statsmodels returns NaN).
  For three or more readers Fleiss' κ (Fleiss 1971) with the standard error of
  Gwet (2014, ch. 5) instead.
* Gwet's AC1 (Gwet 2008), the prevalence-robust coefficient: chance agreement
  p_e = Σ_k π_k (1 − π_k) / (q − 1); standard error from Gwet (2008, 2014) with
  an infinite population of items.
* PABAK, the prevalence- and bias-adjusted κ (Byrt, Bishop & Carlin 1993),
  generalised to q categories and r readers as Brennan & Prediger's (1981)
  coefficient (p_a − 1/q) / (1 − 1/q). Two readers: its interval is the Wilson
  interval of p_o mapped through that linear function; more readers: normal
  interval with Gwet's standard error.

Normal intervals are estimate ± 1.959964 × SE, clipped to [−1, 1]. When the
readers agree on every item (or disagree on every item the same way) the standard
error is 0 and such an interval would be one point ([1, 1]) whatever the number of
items: it is not estimable (``low`` and ``high`` None, ``se`` 0) and reports say so. The Wilson interval of observed
agreement (and so PABAK's, for two readers) reflects the number of items: 20 of 20
gives [0.839, 1].

The tests check every value against statsmodels (``cohens_kappa``,
``fleiss_kappa``, ``proportion_confint(method="wilson")``) and irrCAC
(``CAC.gwet``, ``CAC.bp``, ``CAC.fleiss``); those libraries are not imported
here because importing them costs more start-up time than a whole
``masrl build --check``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

#: z quantile of a two-sided 95% interval: statistics.NormalDist().inv_cdf(0.975).
Z95 = 1.959963984540054

#: Observed agreement at least this high with κ at most :data:`KAPPA_LOW` is flagged as the κ paradox
#: (high agreement, low κ: Feinstein & Cicchetti 1990).
HIGH_AGREEMENT = 0.8
#: κ at or below this ("moderate" or less, Landis & Koch 1977) next to high agreement is flagged.
KAPPA_LOW = 0.6


@dataclass(frozen=True)
class Estimate:
    """One coefficient with its 95% interval.

    ``value``, ``low``, ``high`` are None when the coefficient is undefined
    (e.g. κ when chance agreement is 1); ``se`` is the standard error of a
    normal interval, None for a Wilson-based interval or with a single item.
    """

    value: float | None
    low: float | None = None
    high: float | None = None
    se: float | None = None


UNDEFINED = Estimate(None)


@dataclass(frozen=True)
class Agreement:
    """Agreement of ``readers`` readers on ``items`` items of one field.

    Attributes:
        readers, items: counts.
        agree: items on which every reader gave the same value.
        categories: q, the number of allowed values of the field.
        observed: observed agreement (see the module doc), in [0, 1].
        kappa: Cohen's κ (two readers) or Fleiss' κ (more), named by ``kappa_name``.
        ac1: Gwet's AC1.
        pabak: PABAK (Brennan–Prediger).
        prevalence: the most frequent value over all ratings and its share of them.
    """

    readers: int
    items: int
    agree: int
    categories: int
    observed: Estimate
    kappa: Estimate
    kappa_name: str
    ac1: Estimate
    pabak: Estimate
    prevalence: tuple[str, float] | None

    @property
    def paradox(self) -> bool:
        """True when agreement is high (≥ 0.8) but κ is undefined or ≤ 0.6: the κ paradox
        of a skewed field, where AC1 and PABAK are the coefficients to read."""
        if self.items == 0 or self.observed.value is None or self.observed.value < HIGH_AGREEMENT:
            return False
        return self.kappa.value is None or self.kappa.value <= KAPPA_LOW


def _clip(x: float, low: float = -1.0, high: float = 1.0) -> float:
    return min(high, max(low, x))


def _wald(value: float, variance: float | None, n: int, floor: float = -1.0) -> Estimate:
    """A normal interval, or none where it cannot be estimated: a single item, or a standard error
    of 0 (every reader agrees on every item), where estimate ± 1.96 SE would be one point whatever
    the number of items, a certainty that 20 items cannot give."""
    if variance is None or n < 2:
        return Estimate(value)
    se = math.sqrt(max(variance, 0.0))
    if se <= 1e-12:
        return Estimate(value, se=0.0)
    return Estimate(value, _clip(value - Z95 * se, floor), _clip(value + Z95 * se, floor), se)


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``successes / n`` (n ≥ 1)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _check(ratings: list[tuple[str, ...]], categories: tuple[str, ...]) -> int:
    widths = {len(r) for r in ratings}
    if len(widths) > 1:
        raise ValueError("every item needs a rating from every reader")
    readers = widths.pop() if widths else 2
    if readers < 2:
        raise ValueError("agreement needs at least two readers")
    unknown = sorted({v for r in ratings for v in r} - set(categories))
    if unknown:
        raise ValueError(f"ratings outside the allowed values: {', '.join(unknown)}")
    return readers


def cohen_kappa(first: list[str], second: list[str], categories: tuple[str, ...]) -> Estimate:
    """Cohen's κ of two readers with the Fleiss–Cohen–Everitt (1969) standard error.

    Undefined (``UNDEFINED``) without items or when chance agreement p_e = 1.
    """
    n = len(first)
    if n == 0 or n != len(second):
        return UNDEFINED
    cells = Counter(zip(first, second))
    rows, cols = Counter(first), Counter(second)
    p_o = sum(cells[(c, c)] for c in categories) / n
    p_e = sum(rows[c] * cols[c] for c in categories) / (n * n)
    if p_e >= 1.0:
        return UNDEFINED
    kappa = (p_o - p_e) / (1 - p_e)
    row = {c: rows[c] / n for c in categories}
    col = {c: cols[c] / n for c in categories}
    term_a = sum(cells[(c, c)] / n * (1 - (row[c] + col[c]) * (1 - kappa)) ** 2 for c in categories)
    term_b = (1 - kappa) ** 2 * sum(count / n * (col[a] + row[b]) ** 2 for (a, b), count in cells.items() if a != b)
    term_c = (kappa - p_e * (1 - kappa)) ** 2
    spread = term_a + term_b - term_c
    one_value = len(rows) == 1 or len(cols) == 1
    if kappa < 1.0 and (one_value or spread <= 1e-12 * (term_a + term_b + term_c)):
        # a reader who used one value throughout: the large-sample variance is 0 in exact arithmetic
        # (what floating point leaves of it, ~1e-14 at some n, is no interval either)
        return Estimate(kappa)
    return _wald(kappa, spread / ((1 - p_e) ** 2 * n), n)


def _gwet_terms(ratings: list[tuple[str, ...]], categories: tuple[str, ...]):
    """Per-item agreement p_a,i, per-item category shares r_ik / r and the mean shares π_k."""
    r = len(ratings[0])
    counts = [Counter(item) for item in ratings]
    pa_i = [sum(k * (k - 1) for k in c.values()) / (r * (r - 1)) for c in counts]
    shares = [{k: c[k] / r for k in categories} for c in counts]
    pi = {k: sum(s[k] for s in shares) / len(ratings) for k in categories}
    return pa_i, shares, pi


def _chance_corrected(pa_i, pe, pe_i) -> Estimate:
    """A coefficient (p_a − p_e)/(1 − p_e) with Gwet's linearised variance; pe_i None for a fixed p_e."""
    n = len(pa_i)
    pa = sum(pa_i) / n
    if pe >= 1.0:
        return UNDEFINED
    value = (pa - pe) / (1 - pe)
    if n < 2:
        return Estimate(value)
    terms = []
    for i in range(n):
        t = (pa_i[i] - pe) / (1 - pe)
        if pe_i is not None:
            t -= 2 * (1 - value) * (pe_i[i] - pe) / (1 - pe)
        terms.append(t)
    variance = sum((t - value) ** 2 for t in terms) / (n * (n - 1))
    return _wald(value, variance, n)


def gwet_ac1(ratings: list[tuple[str, ...]], categories: tuple[str, ...]) -> Estimate:
    """Gwet's AC1 of r ≥ 2 readers with Gwet's standard error (infinite item population)."""
    q = len(categories)
    if not ratings or q < 2:
        return UNDEFINED
    pa_i, shares, pi = _gwet_terms(ratings, categories)
    pe = sum(p * (1 - p) for p in pi.values()) / (q - 1)
    pe_i = [sum(s[k] * (1 - pi[k]) for k in categories) / (q - 1) for s in shares]
    return _chance_corrected(pa_i, pe, pe_i)


def brennan_prediger(ratings: list[tuple[str, ...]], categories: tuple[str, ...]) -> Estimate:
    """Brennan & Prediger's coefficient (PABAK for two readers) with Gwet's standard error."""
    q = len(categories)
    if not ratings or q < 2:
        return UNDEFINED
    pa_i, shares, _ = _gwet_terms(ratings, categories)
    return _chance_corrected(pa_i, 1 / q, None)


def fleiss_kappa(ratings: list[tuple[str, ...]], categories: tuple[str, ...]) -> Estimate:
    """Fleiss' κ of r ≥ 2 readers with Gwet's standard error; undefined when p_e = 1."""
    if not ratings:
        return UNDEFINED
    pa_i, shares, pi = _gwet_terms(ratings, categories)
    pe = sum(p * p for p in pi.values())
    pe_i = [sum(s[k] * pi[k] for k in categories) for s in shares]
    return _chance_corrected(pa_i, pe, pe_i)


def agreement(ratings: list[tuple[str, ...]], categories: tuple[str, ...]) -> Agreement:
    """Every coefficient of the module for one field.

    Args:
        ratings: one tuple per item, one label per reader (same reader order in every tuple).
        categories: the field's allowed values (q = their number).

    Raises:
        ValueError: if tuples differ in length, there are fewer than two
            readers, or a label is not an allowed value.
    """
    readers = _check(ratings, categories)
    n = len(ratings)
    q = len(categories)
    agree = sum(len(set(item)) == 1 for item in ratings)
    tally = Counter(v for item in ratings for v in item)
    prevalence = None
    if tally:
        top = max(categories, key=lambda c: (tally[c], -categories.index(c)))
        prevalence = (top, tally[top] / (n * readers))
    if n == 0:
        return Agreement(readers, 0, 0, q, UNDEFINED, UNDEFINED, "Cohen's κ" if readers == 2 else "Fleiss' κ",
                         UNDEFINED, UNDEFINED, None)
    if readers == 2:
        low, high = wilson_interval(agree, n)
        observed = Estimate(agree / n, low, high)
        kappa = cohen_kappa([a for a, _ in ratings], [b for _, b in ratings], categories)
        name = "Cohen's κ"
        if q >= 2:
            def scale(p: float) -> float:
                return (q * p - 1) / (q - 1)
            pabak = Estimate(scale(agree / n), scale(low), scale(high))
        else:
            pabak = UNDEFINED
    else:
        pa_i, _, _ = _gwet_terms(ratings, categories)
        pa = sum(pa_i) / n
        variance = sum((p - pa) ** 2 for p in pa_i) / (n * (n - 1)) if n > 1 else None
        observed = _wald(pa, variance, n, floor=0.0)
        kappa = fleiss_kappa(ratings, categories)
        name = "Fleiss' κ"
        pabak = brennan_prediger(ratings, categories)
    return Agreement(readers, n, agree, q, observed, kappa, name, gwet_ac1(ratings, categories), pabak, prevalence)
