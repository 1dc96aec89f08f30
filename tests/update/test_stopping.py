"""When to stop screening a ranked queue: the hypergeometric test of Callaghan & Müller-Hansen
(masrl.review.update.stopping), checked against scipy's hypergeometric distribution and the
authors' own formula, and as `masrl update show` states it for a round's queue."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from scipy.stats import hypergeom

from masrl.cli import main
from masrl.review.update import stopping
from masrl.review.update.dedupe import Candidate
from masrl.review.update.model import SourceRuns, round_files
from masrl.review.update.sources.base import Found


def buscar_h0(labels, total, recall=0.95):
    """The p-value as the authors' implementation computes it (buscar's calculate_h0, bias 1), with scipy.
    Where the hypothesis needs more relevant candidates than an urn's population holds, scipy answers
    nan (buscar's minimum then is nan, and never stops); the hypothesis is impossible there, so its
    probability is 0, as masrl has it."""
    labels = np.asarray(labels, dtype=int)
    relevant = labels.sum()
    urns = labels[::-1]
    sizes = np.arange(len(urns)) + 1
    k_hat = np.floor(relevant / recall + 1 - (relevant - urns.cumsum()))
    return float(np.nan_to_num(hypergeom.cdf(urns.cumsum(), total - (len(urns) - sizes), k_hat, sizes), nan=0.0).min())


def test_the_hypergeometric_distribution_is_scipys():
    rng = np.random.default_rng(7)
    population = rng.integers(1, 400, 3000)
    successes = rng.integers(0, 400, 3000)
    draws = np.minimum(rng.integers(0, 400, 3000), population)
    k = rng.integers(-3, 80, 3000)
    ours = stopping.hypergeom_cdf(k, population, successes, draws)
    theirs = np.where(successes <= population, np.nan_to_num(hypergeom.cdf(k, population, np.minimum(successes, population), draws)), 0.0)
    assert np.abs(ours - theirs).max() < 1e-9
    # edges: a count below the fewest possible, at the most possible, an urn with more successes than items
    assert stopping.hypergeom_cdf(0, 10, 8, 5)[()] == 0.0  # 5 draws from 8 of 10 hold at least 3
    assert stopping.hypergeom_cdf(5, 10, 8, 5)[()] == 1.0
    assert stopping.hypergeom_cdf(1, 10, 11, 5)[()] == 0.0
    assert stopping.hypergeom_cdf(2, 1000, 40, 200)[()] == pytest.approx(hypergeom.cdf(2, 1000, 40, 200), abs=1e-12)


def test_the_p_value_is_the_authors_formula():
    rng = np.random.default_rng(11)
    for _ in range(150):
        total = int(rng.integers(5, 300))
        read = int(rng.integers(1, total + 1))
        labels = list(rng.random(read) < rng.random())
        recall = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        assert stopping.p_value(labels, total, recall) == pytest.approx(buscar_h0(labels, total, recall), abs=1e-9)
    assert stopping.p_value([], 10) == 1.0


def test_a_long_run_of_irrelevant_candidates_allows_stopping_and_a_short_one_does_not():
    found = [True] * 20 + [False] * 5
    short = stopping.assess(found + [False] * 10, 400)
    long = stopping.assess(found + [False] * 350, 400)
    assert not short.stop and short.p > 0.05
    assert long.stop and long.p < 0.05
    # the bound: at most this many relevant are unread; zero is never excluded, and it shrinks with reading
    assert 0 <= long.bound < short.bound <= 400 - 35
    assert long.recall_at_least == pytest.approx(20 / (20 + long.bound))
    assert long.recall_at_least >= 0.95
    assert long.estimate == 0.0 and long.window_relevant == 0
    # the same test rejects one more than the bound, and not the bound itself
    labels = found + [False] * 350
    k = np.cumsum(labels[::-1])
    population = 400 - len(labels) + np.arange(1, len(labels) + 1)
    sizes = np.arange(1, len(labels) + 1)
    assert (hypergeom.cdf(k, population, k + long.bound + 1, sizes) < 0.05).any()
    assert not (hypergeom.cdf(k, population, k + long.bound, sizes) < 0.05).any()


@pytest.mark.parametrize("total", [20, 40, 60, 100, 200, 1000, 2000])
def test_a_p_value_exactly_at_the_threshold_does_not_reject(total):
    """Nothing relevant in the first 95% of a queue: p is exactly (N - n) / N = 1/20, and stopping needs p < 0.05. In
    floating point p came out 0.05000000000000003, below 1 - 0.95 = 0.050000000000000044: 'you may stop', and at most
    0 unread, where one relevant candidate unread is not rejected."""
    read = total * 19 // 20
    at = stopping.assess([False] * read, total)
    assert at.p == pytest.approx(0.05, abs=1e-12) and not at.stop and at.bound >= 1, at
    past = stopping.assess([False] * (read + 1), total)
    assert past.stop and past.bound == 0, past
    assert stopping.stopping_point([False] * total) == read + 1
    assert stopping.assess([False] * (total * 9 // 10), total, confidence=0.9).stop is False  # 1 - 0.9 = 0.09999999999999998


def test_nothing_read_everything_read_and_bad_targets():
    empty = stopping.assess([], 50)
    assert (empty.p, empty.bound, empty.stop, empty.recall_at_least) == (1.0, 50, False, None)
    done = stopping.assess([True, False, True], 3)
    assert done.bound == 0 and done.estimate == 0.0
    for recall, confidence in ((1.0, 0.95), (0.95, 0.0), (0.0, 0.5)):
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            stopping.assess([True], 5, recall, confidence)
    with pytest.raises(ValueError, match="4 candidates read out of 3"):
        stopping.assess([True] * 4, 3)


def test_the_stopping_point_of_a_ranked_list():
    labels = [True] * 30 + [False] * 10 + [True] + [False] * 400
    point = stopping.stopping_point(labels)
    assert point is not None and 41 < point < len(labels)
    assert stopping.p_value(labels[:point], len(labels)) < 0.05 <= stopping.p_value(labels[:point - 1], len(labels))
    assert stopping.stopping_point(labels, every=50) % 50 == 0
    assert stopping.stopping_point([True] * 5) == 5  # five relevant of five: it stops only when everything is read
    assert stopping.stopping_point([False] * 3 + [True] * 3) == 6


# ---------------------------------------------------------------- masrl update show
ROUND = "2026-07-01"


def _found(i: int, title: str) -> Found:
    return Found(f"arxiv:2606.{i:05d}", {"arxiv": f"2606.{i:05d}"}, title, ("Doe, Jane",), 2026, "arXiv",
                 f"An abstract about {title.lower()}.", f"2026-06-{i % 28 + 1:02d}")


@pytest.fixture
def ranked_round(survey):
    """The bundled survey with a round of 40 candidates ranked 1..40 (written as `masrl update search` writes them)."""
    candidates = [Candidate(_found(i, f"Candidate paper number {i}"), ["multi-agent LLM RL"], ["arXiv"]) for i in range(1, 41)]
    ranks = [(i, f"{1 - i / 100:.3f}", "") for i in range(1, 41)]
    files = round_files(ROUND, ("2026-05-04", "2026-06-30"), "2026-07-01T00:00:00Z", "2026-07-01T00:01:00Z", "0" * 64,
                        [SourceRuns("arxiv", "arXiv", "http://127.0.0.1/", {}, ())], candidates, [], ranks, {}, {})
    for rel, data in files.items():
        (survey / rel).parent.mkdir(parents=True, exist_ok=True)
        (survey / rel).write_bytes(data)
    return survey, survey / "corpus" / "rounds" / ROUND / "queue.csv"


def decide(queue, decisions: dict[int, dict]) -> None:
    """Fill the screener's cells of the rows of the given ranks."""
    with open(queue, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row.update(decisions.get(int(row["rank"]), {}))
    with open(queue, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


INCLUDE = {"decision": "include"}
EXCLUDE = {"decision": "exclude", "stage": "abstract_screen", "reason_class": "X1", "reason": "prompted only"}
LATER = {"decision": "exclude", "stage": "full_text_screen", "reason_class": "X2", "reason": "single-agent RL"}


def _block(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("when to stop screening"))
    return lines[start:-1]


def test_show_says_how_far_screening_is_and_whether_to_stop(ranked_round, cli):
    root, queue = ranked_round
    decide(queue, {**{r: INCLUDE for r in range(1, 6)}, 6: LATER, **{r: EXCLUDE for r in range(7, 31)}})
    run = cli("update", "show", "--root", root, ROUND)
    assert run.code == 0, run.err
    labels = [True] * 6 + [False] * 24
    a = stopping.assess(labels, 40)
    block = _block(run.out)
    assert block[0] == ("when to stop screening (hypergeometric stopping test of Callaghan & Müller-Hansen (2020, Systematic "
                        "Reviews 9:273), for a list screened in rank order):")
    assert block[1] == "  screened 30 of 40 candidates, 6 relevant (passed the abstract screen: included, or excluded at a later stage)"
    assert block[2] == (f"  relevant candidates still unscreened: about {a.estimate:.1f} at the rate of the last {a.window} screened "
                        f"({a.window_relevant} relevant); at most {a.bound} with 95% confidence (recall at least "
                        f"{6 / (6 + a.bound):.0%})")
    assert block[3] == (f"  recall target 95% at 95% confidence: p = {a.p:.3f} for \"recall is still below 95%\"; "
                        f"{'you may stop screening' if a.stop else 'keep screening'} (stopping needs p < 0.05)")
    assert block[4].startswith("  assumes: candidates screened in rank order and judged right;")
    assert run.out.splitlines()[-1].startswith(f"round {ROUND} (2026-05-04 .. 2026-06-30): 40 candidates; 10 still to decide")
    # a looser target allows stopping where 95% did not
    loose = cli("update", "show", "--root", root, ROUND, "--recall", "0.5", "--confidence", "0.5")
    assert "you may stop screening (stopping needs p < 0.50)" in loose.out
    assert stopping.assess(labels, 40, 0.5, 0.5).stop


def test_show_says_keep_screening_when_p_is_exactly_the_threshold(ranked_round, cli):
    root, queue = ranked_round
    decide(queue, {r: EXCLUDE for r in range(1, 39)})  # 38 of 40, none relevant: p = 2/40 = 0.05
    block = _block(cli("update", "show", "--root", root, ROUND).out)
    assert block[2].endswith("at most 1 with 95% confidence"), block
    assert block[3] == ("  recall target 95% at 95% confidence: p = 0.050 for \"recall is still below 95%\"; keep screening "
                        "(stopping needs p < 0.05)"), block


def test_show_before_any_decision_and_out_of_rank_order(ranked_round, cli):
    root, queue = ranked_round
    block = _block(cli("update", "show", "--root", root, ROUND).out)
    assert block[1:3] == ["  screened 0 of 40 candidates, 0 relevant (passed the abstract screen: included, or excluded at a later stage)",
                          "  nothing screened yet: screen in rank order (rank 1 first); the test needs decisions"]
    decide(queue, {1: INCLUDE, 4: EXCLUDE})
    block = _block(cli("update", "show", "--root", root, ROUND).out)
    assert block[2] == ("  2 candidate(s) ranked above the last one screened are not screened yet: the test counts the screened "
                        "ones as read in rank order; screen in rank order")


@pytest.mark.parametrize("option, value", [("--recall", "1"), ("--recall", "high"), ("--confidence", "0"),
                                           ("--recall", "1e-320"), ("--recall", "0.999999999999999999")])
def test_show_refuses_a_target_that_is_no_proportion(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as done:
        main(["update", "show", "--root", str(tmp_path), ROUND, option, value])
    assert done.value.code == 2
    assert f"argument {option}: {value!r} is not a proportion from 0.000001 to 0.999999 (e.g. 0.95)" in capsys.readouterr().err
