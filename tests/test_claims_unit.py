"""The claim checker on a tiny hand-made population: every operator, every expectation."""

from __future__ import annotations

import pandas as pd
import pytest

from masrl.analyses.claims import (
    CheckResult,
    ClaimResult,
    claim_results,
    evaluate_check,
    failing_current,
    select,
)
from masrl.corpus.taxonomy import Taxonomy

TAX = Taxonomy({"fields": {
    "credit": {"applies_to": "retained", "values": {"agent": {}, "message": {}, "NA": {}}},
    "subdecisions": {"applies_to": "retained", "multi": True, "values": {"O1": {}, "O2": {}, "O5": {}}},
}})
FRAME = pd.DataFrame(
    {"credit": ["agent", "message", "message", "NA"], "subdecisions": [["O1"], ["O1", "O2"], [], ["O2"]],
     "year": [2024, 2025, 2025, 2026]},
    index=pd.Index(["a", "b", "c", "d"], name="key"),
)
POPS = {"retained": FRAME, "excluded": FRAME.iloc[:0]}


@pytest.mark.parametrize("where, keys", [
    ({}, ["a", "b", "c", "d"]),
    ({"credit": "message"}, ["b", "c"]),
    ({"credit": ["agent", "NA"]}, ["a", "d"]),
    ({"credit": {"in": ["agent"]}}, ["a"]),
    ({"credit": {"not": "message"}}, ["a", "d"]),
    ({"credit": {"not_in": ["message", "NA"]}}, ["a"]),
    ({"credit": {"in": ["message", "agent"], "not": "agent"}}, ["b", "c"]),
    ({"subdecisions": "O1"}, ["a", "b"]),
    ({"subdecisions": {"any": ["O2", "O5"]}}, ["b", "d"]),
    ({"subdecisions": {"all": ["O1", "O2"]}}, ["b"]),
    ({"subdecisions": {"all": "O1"}}, ["a", "b"]),
    ({"subdecisions": {"not": "O1"}}, ["c", "d"]),
    ({"credit": {"all": ["message"]}}, ["b", "c"]),
    ({"credit": {"all": ["message", "agent"]}}, []),
    ({"key": ["a", "c"]}, ["a", "c"]),
    ({"year": 2025}, ["b", "c"]),
    ({"year": {"not": [2025, 2026]}}, ["a"]),
    ({"credit": "message", "subdecisions": "O2"}, ["b"]),
])
def test_select(where, keys):
    assert select(FRAME, where, TAX) == keys


def test_a_conditional_field_selects_only_the_records_it_applies_to():
    """``native`` applies to benchmarks only (required_when): a negation of it counts the benchmarks whose value is
    not the one negated, never the records the field does not apply to ("" in the frame)."""
    tax = Taxonomy({"fields": {
        "category": {"applies_to": "retained", "values": {"benchmark": {}, "method": {}}},
        "native": {"applies_to": "retained", "required_when": {"category": ["benchmark"]}, "values": {"yes": {}, "no": {}}},
    }})
    frame = pd.DataFrame({"category": ["benchmark", "benchmark", "method", "method"], "native": ["yes", "no", "", ""]},
                         index=pd.Index(["a", "b", "c", "d"], name="key"))
    assert select(frame, {"native": {"not": "yes"}}, tax) == ["b"]
    assert select(frame, {"native": {"not_in": ["yes", "no"]}}, tax) == []
    assert select(frame, {"native": "no"}, tax) == ["b"] and select(frame, {"category": {"not": "benchmark"}}, tax) == ["c", "d"]


def test_a_conditional_list_field_selects_only_the_records_it_applies_to():
    """``data`` (a list) applies to learned methods only: a negation of it counts the learned records whose list
    lacks the value, never the records without the field (``()`` in the frame; they had been counted)."""
    tax = Taxonomy({"fields": {
        "method": {"applies_to": "retained", "values": {"learned": {}, "hand": {}}},
        "data": {"applies_to": "retained", "multi": True, "required_when": {"method": ["learned"]},
                 "values": {"D1": {}, "D2": {}}},
    }})
    frame = pd.DataFrame({"method": ["learned", "learned", "hand", "hand"], "data": [("D1",), ("D2",), (), ()]},
                         index=pd.Index(["a", "b", "c", "d"], name="key"))
    assert select(frame, {"data": {"not": "D1"}}, tax) == ["b"]
    assert select(frame, {"data": {"not_in": ["D1", "D2"]}}, tax) == []
    assert select(frame, {"data": "D2"}, tax) == ["b"]


def check(**kw):
    return evaluate_check({"label": "l", "where": {"credit": "message"}, **kw}, POPS, TAX, {"ok": True, "bad": False})


def test_keys_compare_which_records_not_how_many():
    same_count = check(keys=["a", "b"])  # the data selects b and c: two records, but not these two
    assert (same_count.count, same_count.keys, same_count.holds) == (2, ("b", "c"), False)
    assert same_count.stated() == "{a, b}" and same_count.computed() == "2 {b, c}"
    assert same_count.drift() == 0
    assert check(keys=["c", "b"]).holds is True  # order does not matter
    assert check(keys=["b"]).holds is False and check(keys=["b"]).drift() == 1
    assert check(keys=["b", "c", "d"]).holds is False and check(keys=["b", "c", "d"]).drift() == -1


@pytest.mark.parametrize("kw, holds, stated", [
    ({"count": 2}, True, "= 2"),
    ({"count": 1}, False, "= 1"),
    ({"count": 3}, False, "= 3"),
    ({"min_count": 2}, True, ">= 2"),
    ({"min_count": 3}, False, ">= 3"),
    ({"max_count": 2}, True, "<= 2"),
    ({"max_count": 1}, False, "<= 1"),
    ({"min_count": 1, "max_count": 2}, True, ">= 1; <= 2"),
    ({"min_count": 3, "max_count": 5}, False, ">= 3; <= 5"),
    ({"count": 2, "keys": ["b", "c"]}, True, "= 2; {b, c}"),
    ({"count": 2, "keys": ["b", "d"]}, False, "= 2; {b, d}"),
])
def test_count_expectations(kw, holds, stated):
    result = check(**kw)
    assert (result.holds, result.stated(), result.count) == (holds, stated, 2)
    assert result.computed() == ("2 {b, c}" if "keys" in kw else "2")


@pytest.mark.parametrize("count, denominator, bound, holds, shown", [
    (16, 84, 19, False, "19.05%"),      # 19.047...% > 19%: not "19%", which would read as within the bound
    (16, 84, 19.05, True, "19%"),       # within the bound, and so is "19%": one place, as always
    (16, 84, 19.04, False, "19.05%"),   # "19%" would read as within 19.04%
    (19049, 100000, 19.04, False, "19.05%"),
    (190401, 1000000, 19.04, False, "19.0401%"),
    (1, 3, 33.3, False, "33.33%"),
    (1, 10, 10, True, "10%"),
    (2, 3, 70, True, "66.7%"),          # far from the bound: one place, as always
    (0, 7, 0, True, "0%"),
])
def test_a_shown_share_falls_on_the_side_of_its_bound_the_share_does(count, denominator, bound, holds, shown):
    result = CheckResult("s", "a share", "retained", {}, {"max_percent": bound}, count, (), holds, of={},
                         denominator=denominator)
    assert result.computed() == f"{count} of {denominator} = {shown}"
    assert (float(shown[:-1]) > bound) == (count * 100 > bound * denominator) == (not holds)


def test_drift_only_for_exact_expectations():
    assert check(count=5).drift() == -3
    assert check(min_count=1).drift() is None
    assert check(max_count=9).drift() is None


def test_a_superseded_claim_that_fails_names_its_drift_whatever_its_checks_expect():
    """A failing superseded claim said 'Drift from the data: none (the stated figures still match the data)' for a
    share, a bound, and a key set that changed at the same size: only exact counts were compared."""
    from masrl.build.outputs import claim_drift

    def claim(*checks):
        return ClaimResult("c", "s", "b", "src", "superseded", "pool", tuple(checks))

    share = CheckResult(None, "user studies", "retained", {}, {"max_percent": 30}, 4, ("a", "b", "c", "d"), False, of={},
                        denominator=13)
    bound = CheckResult(None, "user studies", "retained", {}, {"max_count": 1}, 4, ("a", "b", "c", "d"), False)
    keys = CheckResult(None, "the two", "retained", {}, {"keys": ["r02", "r13"]}, 2, ("r02", "r10"), False)
    exact = CheckResult(None, "broad", "retained", {}, {"count": 7}, 8, (), False)
    assert claim_drift(claim(share)) == "user studies: stated <= 30%, computed 4 of 13 = 30.8%"
    assert claim_drift(claim(bound)) == "user studies: stated <= 1, computed 4"
    assert claim_drift(claim(keys)) == "+0 (the two: stated 2 keys, computed 2; added: r10; gone: r13)"
    assert claim_drift(claim(exact, bound)) == "+1 (broad: stated 7, computed 8); user studies: stated <= 1, computed 4"
    holding = CheckResult(None, "fine", "retained", {}, {"count": 2}, 2, (), True)
    assert claim_drift(claim(holding)) == "none (the stated figures still match the data)"


def test_trace_checks_and_populations():
    ok = evaluate_check({"label": "t", "trace_valid": "ok"}, POPS, TAX, {"ok": True})
    assert (ok.holds, ok.count, ok.keys, ok.stated(), ok.computed()) == (True, None, (), "trace ok valid", "valid")
    missing = evaluate_check({"label": "t", "trace_valid": "nope"}, POPS, TAX, {"ok": True})
    assert (missing.holds, missing.computed(), missing.drift()) == (False, "invalid", None)
    empty = evaluate_check({"label": "e", "population": "excluded", "count": 0}, POPS, TAX, {})
    assert (empty.holds, empty.population, empty.where) == (True, "excluded", {})
    macro = evaluate_check({"label": "m", "count": 4, "macro": "AllRecords"}, POPS, TAX, {})
    assert (macro.macro, macro.count, macro.holds) == ("AllRecords", 4, True)


def test_claim_results_and_failing_current():
    ledger = [
        {"id": "x", "statement": "s", "evidence_boundary": "e", "source": "src", "status": "current",
         "checks": [{"label": "one", "count": 4}, {"label": "two", "where": {"credit": "NA"}, "count": 1}]},
        {"id": "y", "statement": "s2", "evidence_boundary": "e2", "source": "src2", "status": "current",
         "checks": [{"label": "one", "count": 4}, {"label": "two", "count": 3}]},
        {"id": "z", "statement": "s3", "evidence_boundary": "e3", "source": "src3", "status": "superseded",
         "superseded_by": "x", "checks": [{"label": "one", "count": 0}]},
    ]
    results = claim_results(ledger, POPS, TAX, {})
    assert [(r.id, r.holds, r.status, r.superseded_by) for r in results] == [
        ("x", True, "current", None), ("y", False, "current", None), ("z", False, "superseded", "x")]
    assert [(c.label, c.holds) for c in results[1].checks] == [("one", True), ("two", False)]
    assert (results[0].statement, results[0].evidence_boundary, results[0].source) == ("s", "e", "src")
    assert [r.id for r in failing_current(results)] == ["y"]
    assert ClaimResult("q", "s", "e", "src", "current", "pool").holds is True  # no check: nothing fails


def test_a_share_placeholder_followed_by_a_percent_sign_is_written_with_one():
    """Run 38: "At most {p}% of ..." rendered "At most 50%% of ..." in claims.md, on the site and in build's error."""
    from masrl.analyses.claims import render_statement

    share = CheckResult("p", "a share", "retained", {}, {"max_percent": 50}, 1, (), True, of={}, denominator=4)
    count = CheckResult("c", "a count", "retained", {}, {"count": 3}, 3, (), True)
    checks = {"p": share, "c": count}
    assert render_statement("At most {p}% of records; {p} in all; {c}% more", checks) == (
        "At most 50% of records; 50% in all; 3% more")
