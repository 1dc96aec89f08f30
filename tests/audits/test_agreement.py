"""Agreement coefficients: checked against statsmodels (live) and irrCAC (pinned values), the κ paradox."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from masrl.analyses.agreement import (
    Z95,
    agreement,
    brennan_prediger,
    gwet_ac1,
    wilson_interval,
)


# statsmodels, the reference implementation, is imported when a test first asks for it (its import
# takes a second, which every pytest-xdist worker would otherwise pay while collecting).
def aggregate_raters(*args, **kwargs):
    from statsmodels.stats.inter_rater import aggregate_raters as reference

    return reference(*args, **kwargs)


def cohens_kappa(*args, **kwargs):
    from statsmodels.stats.inter_rater import cohens_kappa as reference

    return reference(*args, **kwargs)


def fleiss_kappa(*args, **kwargs):
    from statsmodels.stats.inter_rater import fleiss_kappa as reference

    return reference(*args, **kwargs)


def proportion_confint(*args, **kwargs):
    from statsmodels.stats.proportion import proportion_confint as reference

    return reference(*args, **kwargs)


# statsmodels warns while computing the NaN standard error of a degenerate table (a reader with one value)
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

IS_RL = ("yes", "partial", "no")
ABCD = ("a", "b", "c", "d")
PARADOX = [("no", "no")] * 31 + [("yes", "no")]
TWO = [("a", "a"), ("a", "b"), ("b", "b"), ("c", "c"), ("a", "a"), ("d", "c"), ("b", "b"), ("a", "a"), ("c", "b"),
       ("d", "d"), ("a", "a"), ("b", "b")]
THREE = [("a", "a", "a"), ("a", "b", "a"), ("b", "b", "b"), ("c", "c", "b"), ("a", "a", "a"), ("d", "c", "c"),
         ("b", "b", "b"), ("a", "a", "a"), ("c", "b", "c"), ("d", "d", "d")]

# irrCAC 0.4.4 (Gwet's own Python port), CAC(pd.DataFrame(data), categories=..., digits=12).gwet() / .bp() / .fleiss():
# (coefficient, standard error). irrCAC pins scipy==1.12 and pandas<3, so it is not a test dependency.
IRRCAC = {
    "paradox": {"gwet": (0.968261839821, 0.032226076353), "bp": (0.953125, 0.046875)},
    "two": {"gwet": (0.673222390318, 0.173060255892), "bp": (0.666666666667, 0.174077655956)},
    "three": {"gwet": (0.649464459591, 0.146231160065), "bp": (0.644444444444, 0.14515494772),
              "fleiss": (0.628482972136, 0.144124923519)},
}


def _table(ratings, categories):
    frame = pd.DataFrame(ratings)
    return pd.crosstab(frame[0], frame[1]).reindex(index=list(categories), columns=list(categories), fill_value=0).values


@pytest.mark.parametrize("name, data, categories", [("paradox", PARADOX, IS_RL), ("two", TWO, ABCD), ("three", THREE, ABCD)])
def test_ac1_and_pabak_match_irrcac(name, data, categories):
    ac1, bp = gwet_ac1(data, categories), brennan_prediger(data, categories)
    assert (ac1.value, ac1.se) == pytest.approx(IRRCAC[name]["gwet"], abs=1e-11)
    assert (bp.value, bp.se) == pytest.approx(IRRCAC[name]["bp"], abs=1e-11)
    if name == "three":
        result = agreement(data, categories)
        assert (result.kappa.value, result.kappa.se) == pytest.approx(IRRCAC[name]["fleiss"], abs=1e-11)
        assert result.kappa_name == "Fleiss' κ"
        assert (result.ac1.low, result.ac1.high) == pytest.approx((ac1.value - Z95 * ac1.se, min(1.0, ac1.value + Z95 * ac1.se)))


def test_two_readers_match_statsmodels_by_hand():
    result = agreement(TWO, ABCD)
    # by hand: 9 of 12 agree; marginals a 5/4, b 3/5, c 2/2, d 2/1 (reader 1 / reader 2)
    p_o, p_e = 9 / 12, (5 * 4 + 3 * 5 + 2 * 2 + 2 * 1) / 144
    assert (result.items, result.agree, result.observed.value) == (12, 9, 0.75)
    assert result.kappa.value == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-12)
    sm = cohens_kappa(_table(TWO, ABCD))
    assert result.kappa.value == pytest.approx(sm.kappa, abs=1e-12)
    assert result.kappa.se == pytest.approx(sm.std_kappa, abs=1e-12)
    assert (result.kappa.low, result.kappa.high) == pytest.approx((sm.kappa_low, min(1.0, sm.kappa_upp)), abs=1e-12)
    assert (result.observed.low, result.observed.high) == pytest.approx(proportion_confint(9, 12, method="wilson"), abs=1e-12)
    # PABAK = (q p_o - 1)/(q - 1); its interval is the Wilson interval through the same line
    assert result.pabak.value == pytest.approx((4 * 0.75 - 1) / 3)
    low, high = proportion_confint(9, 12, method="wilson")
    assert (result.pabak.low, result.pabak.high) == pytest.approx(((4 * low - 1) / 3, (4 * high - 1) / 3), abs=1e-12)
    # AC1 by hand: pi_k = mean share of category k over both readers; p_e = sum pi_k (1 - pi_k) / (q - 1)
    pi = [9 / 24, 8 / 24, 4 / 24, 3 / 24]
    pe = sum(p * (1 - p) for p in pi) / 3
    assert result.ac1.value == pytest.approx((0.75 - pe) / (1 - pe), abs=1e-12)


def test_fleiss_kappa_matches_statsmodels():
    counts, _ = aggregate_raters(np.array([[ABCD.index(v) for v in item] for item in THREE]), n_cat=4)
    assert agreement(THREE, ABCD).kappa.value == pytest.approx(fleiss_kappa(counts), abs=1e-12)


def test_kappa_paradox_near_perfect_agreement_on_a_skewed_field():
    result = agreement(PARADOX, IS_RL)
    assert (result.items, result.agree, result.observed.value) == (32, 31, 0.96875)
    assert result.kappa.value == pytest.approx(0.0, abs=1e-12)  # p_o = p_e: one reader said 'no' throughout
    assert result.kappa.low is None and result.kappa.high is None  # statsmodels: NaN variance
    assert result.ac1.value == pytest.approx(0.968262, abs=1e-6) and result.pabak.value == pytest.approx(0.953125)
    assert result.prevalence == ("no", pytest.approx(63 / 64)) and result.paradox


@pytest.mark.parametrize("n", range(2, 120))
def test_a_reader_with_one_value_gets_no_interval_at_any_sample_size(n):
    # the variance is 0 in exact arithmetic; floating point leaves ~1e-14 at n = 11, 13, 24, 37, ...
    for first, second in ((["a"] * n, ["a"] * (n - 1) + ["b"]), (["a"] * (n - 1) + ["b"], ["a"] * n)):
        kappa = agreement(list(zip(first, second)), ("a", "b")).kappa
        assert kappa.value == pytest.approx(0.0, abs=1e-12)
        assert (kappa.low, kappa.high, kappa.se) == (None, None, None)


def test_kappa_paradox_perfect_agreement_on_one_value():
    result = agreement([("yes", "yes")] * 32, IS_RL)
    assert result.kappa.value is None  # p_e = 1: undefined
    assert (result.ac1.value, result.pabak.value) == (1.0, 1.0)
    assert (result.observed.low, result.observed.high) == pytest.approx(proportion_confint(32, 32, method="wilson"))
    assert result.pabak.low == pytest.approx((3 * result.observed.low - 1) / 2) and result.paradox


def test_no_paradox_when_kappa_is_high():
    result = agreement([(v, v) for v in ("yes", "no") * 16], IS_RL)
    assert result.kappa.value == 1.0 and not result.paradox


def test_bad_ratings_are_refused():
    with pytest.raises(ValueError, match="ratings outside the allowed values: maybe"):
        agreement([("yes", "maybe")], IS_RL)
    with pytest.raises(ValueError, match="every item needs a rating from every reader"):
        agreement([("yes", "no"), ("yes",)], IS_RL)
    with pytest.raises(ValueError, match="at least two readers"):
        agreement([("yes",)], IS_RL)


def test_wilson_interval_matches_statsmodels_at_the_edges():
    for k, n in ((0, 1), (1, 1), (0, 32), (32, 32), (31, 32), (5, 7)):
        assert wilson_interval(k, n) == pytest.approx(proportion_confint(k, n, method="wilson"), abs=1e-12)


labels = st.sampled_from(ABCD)


@settings(max_examples=examples(50), deadline=None)
@given(st.lists(st.tuples(labels, labels), min_size=2, max_size=40))
def test_two_reader_coefficients_match_statsmodels_and_are_symmetric(ratings):
    result = agreement(ratings, ABCD)
    swapped = agreement([(b, a) for a, b in ratings], ABCD)
    assert (swapped.kappa.value, swapped.ac1.value, swapped.pabak.value) == pytest.approx(
        (result.kappa.value, result.ac1.value, result.pabak.value))
    if result.kappa.value is not None:
        sm = cohens_kappa(_table(ratings, ABCD))
        assert result.kappa.value == pytest.approx(sm.kappa, abs=1e-9)
        if result.kappa.se is not None and not math.isnan(sm.std_kappa):
            assert result.kappa.se == pytest.approx(sm.std_kappa, abs=1e-9)
    for est in (result.observed, result.kappa, result.ac1, result.pabak):
        if est.low is not None:
            assert -1.0 <= est.low <= est.value + 1e-12 and est.value - 1e-12 <= est.high <= 1.0


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(labels, labels, labels), min_size=2, max_size=30))
def test_three_reader_fleiss_matches_statsmodels(ratings):
    result = agreement(ratings, ABCD)
    counts, _ = aggregate_raters(np.array([[ABCD.index(v) for v in item] for item in ratings]), n_cat=4)
    if result.kappa.value is None:
        assert len({v for item in ratings for v in item}) == 1
    else:
        assert result.kappa.value == pytest.approx(fleiss_kappa(counts), abs=1e-9)

