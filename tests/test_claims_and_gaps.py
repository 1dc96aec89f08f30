"""The survey's claim figures, the claim ledger's semantics, the taxonomy tables and the gap analysis.

Published numbers are read from release v1 (its frozen snapshot), so that adding
papers to the pool never breaks these tests."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from masrl.analyses.claims import evaluate_check, select
from masrl.build.outputs import render_tree
from masrl.build.pipeline import build
from masrl.corpus.load import load


@pytest.fixture
def results(published):
    return published


def check(built, claim_id, label):
    claim = next(c for c in built.claims if c.id == claim_id)
    return next(k for k in claim.checks if k.label == label)


def test_message_credit_two_broad_one_strict(built):
    assert check(built, "message-credit-v1", "records with message-level credit (broad tag)").keys == ("c3", "debate-as-reward")
    assert check(built, "message-credit-v1", "records with strict explicit message credit").keys == ("c3",)
    claim = next(c for c in built.claims if c.id == "message-credit-v1")
    assert claim.text == ("In the published pool, 2 records carry message-level credit and 1 of them (c3) "
                          "with an explicit credit mechanism.")


def test_orchestrator_credit_eight_broad_five_strict(built):
    broad = check(built, "orchestrator-credit-v1", "records with orchestrator-level credit (broad tag)")
    strict = check(built, "orchestrator-credit-v1", "records with strict or near-strict orchestrator credit")
    assert broad.count == 8
    assert strict.keys == ("kimi-k2-5", "owl2025", "paramanager", "puppeteer", "wideseek-r1-2026")


def test_o1_to_o4_anchored_and_o5_empty(results):
    table = results.table("subdecisions_coverage").frame
    assert table["records"].to_dict() == {"O1": 3, "O2": 2, "O3": 2, "O4": 2, "O5": 0}
    assert table.loc["O1", ["explicit RL", "partial", "none"]].tolist() == [1, 2, 0]
    assert table.loc["O3", ["explicit RL", "partial", "none"]].tolist() == [1, 0, 1]
    assert table["gap"].to_dict() == {"O1": "", "O2": "", "O3": "", "O4": "", "O5": "gap: no record"}


def test_kimi_anchor(results, built):
    frame = results.retained
    assert (frame.loc["kimi-k2-5", "is_rl"], frame.loc["kimi-k2-5", "reward_type"]) == ("yes", "orchestration")
    assert (frame.loc["kimi-k2-6", "is_rl"], frame.loc["kimi-k2-6", "reward_type"]) == ("partial", "NA")
    assert next(c for c in built.claims if c.id == "kimi-industrial-anchor").holds


def test_no_benchmark_covers_e1_to_e4(results):
    assert results.section("benchmark_joint_coverage").coverage["joint"] == []
    assert results.table("benchmark_gap").frame["all of E1-E4"].sum() == 0


def test_every_current_claim_holds_each_in_its_scope(built):
    current = [(c.id, c.scope) for c in built.claims if c.status == "current"]
    assert current == [
        ("message-credit-sparse", "pool"), ("orchestrator-credit-sparse", "pool"), ("o5-stopping-uncovered", "pool"),
        ("kimi-industrial-anchor", "pool"), ("mas-native-eval-incomplete", "pool"), ("trace-inspectable", "pool"),
        ("near-miss-robust", "pool"), ("message-credit-v1", "v1"), ("orchestrator-credit-v1", "v1"),
        ("subdecision-coverage-v1", "v1"), ("mas-native-eval-v1", "v1"), ("near-miss-robust-v1", "v1"), ("headline-sparsity", "v1")]
    assert [c.id for c in built.claims if c.status == "current" and not c.holds] == []


def test_headline_sparsity_statement_quotes_its_checks(built):
    claim = next(c for c in built.claims if c.id == "headline-sparsity")
    assert claim.text == ("Sparsity signals of the survey artifact's README: reward hybrid 15, shared 10, orchestration 7; "
                          "credit agent 23, role 10, orchestrator 8, message 2; form centralized 18, hierarchical 13, debate 8.")


def test_stale_stress_test_statement_is_superseded_with_its_drift(built, published):
    md = render_tree(built, published)["reports/releases/v1/claims.md"].decode()
    assert ("| [orchestrator-credit-stress-test-2026-05-03](#orchestrator-credit-stress-test-2026-05-03) | release v1 (2026-05-04) | "
            "superseded | drifted from the data | The orchestrator cell holds 7 broad and 4 strict entries. |") in md
    assert ("- Drift from the data: +1 (records with orchestrator-level credit (broad tag): stated 7, computed 8); "
            "+1 (records with strict or near-strict orchestrator credit: stated 4, computed 5)") in md


def test_trace_claim_fails_when_the_example_does_not_validate(published_tree):
    res = build(load(published_tree), {"survey_example": False})
    assert [c.id for c in res.claims if c.status == "current" and not c.holds] == ["trace-inspectable"]


def test_filter_operators():
    from masrl.corpus.taxonomy import Taxonomy

    tax = Taxonomy({"fields": {
        "a": {"applies_to": "retained", "values": {"x": {}, "y": {}, "z": {}}},
        "m": {"applies_to": "retained", "multi": True, "values": {"O1": {}, "O2": {}}},
    }})
    frame = pd.DataFrame({"a": ["x", "y", "z"], "m": [("O1",), ("O1", "O2"), ()]}, index=pd.Index(["k1", "k2", "k3"], name="key"))
    assert select(frame, {"a": "x"}, tax) == ["k1"]
    assert select(frame, {"a": ["x", "z"]}, tax) == ["k1", "k3"]
    assert select(frame, {"a": {"not": "x"}}, tax) == ["k2", "k3"]
    assert select(frame, {"a": {"not_in": ["x", "y"]}}, tax) == ["k3"]
    assert select(frame, {"m": "O1"}, tax) == ["k1", "k2"]
    assert select(frame, {"m": {"all": ["O1", "O2"]}}, tax) == ["k2"]
    assert select(frame, {"m": {"any": ["O2"]}, "a": "y"}, tax) == ["k2"]
    assert select(frame, {"key": "k3"}, tax) == ["k3"]
    result = evaluate_check({"label": "l", "where": {"a": "x"}, "min_count": 2}, {"retained": frame}, tax, {})
    assert (result.count, result.holds) == (1, False)


def test_reward_families_table(results):
    table = results.table("reward_families").frame
    assert table["primary-tag count"].to_dict() == {"R1": 10, "R2": 4, "R3": 3, "R4": 2, "R5": 0, "R6": 10, "R7": 7, "R8": 15}
    assert table.loc["R6", "reward_type codes"] == "debate, verifier"
    assert table.loc["R7", "RL-trained"] == 4


def test_credit_units_table_runs_finest_to_coarsest(results):
    table = results.table("credit_units").frame
    assert list(table.index) == ["token", "tool", "message", "turn", "agent", "role", "orchestrator", "team"]
    assert table["broad"].tolist() == [0, 0, 2, 5, 23, 10, 8, 0]
    assert table["strict"].tolist()[2] == 1 and table["strict"].tolist()[6] == 5
    assert table.loc["team", "bracket"] == "new in LLM-MAS" and table.loc["token", "bracket"] == "mostly inherited"


def test_topologies_and_envelopes(results):
    assert results.table("topologies").frame["count"].to_dict() == {
        "centralized": 18, "planner_executor_critic": 4, "debate": 8, "swarm": 4, "hierarchical": 13, "harness": 3}
    env = results.table("deployment_envelopes").frame
    assert env.loc["kimi-k2-5", "max sub-agents"] == 100 and env.loc["kimi-k2-6", "max steps"] == 4000


def test_gaps_list_empty_and_sparse_cells_with_their_records(results):
    cells = {(g.table, g.row, g.column): g for g in results.gaps}
    assert cells[("credit_granularity", "token", "")].status == "empty"
    assert cells[("credit_granularity", "team", "")].records == ()
    assert cells[("credit_granularity", "message", "")].records == ("c3", "debate-as-reward")
    assert cells[("reward_type", "tool", "")].status == "empty"
    assert cells[("subdecisions", "O5", "")].status == "empty"
    assert cells[("credit_granularity_x_credit_mechanism", "message", "strict")].records == ("c3",)
    assert ("credit_granularity", "agent", "") not in cells  # 23 records: neither empty nor sparse
    assert not any("NA" in (g.row, g.column) for g in results.gaps)


def test_gaps_json_and_narrowing(built, results):
    data = json.loads(render_tree(built, results)["reports/releases/v1/gaps.json"])
    assert data["sparse_threshold"] == 2
    orchestrator = next(r for r in data["strict_vs_broad"] if r["unit"] == "orchestrator")
    assert (orchestrator["broad"], orchestrator["strict"]) == (8, 5)
    assert orchestrator["records without an explicit mechanism"] == "agentspawn, hera, mas-zero2025"
    assert data["benchmark_joint_coverage"]["joint"] == []


def test_sparse_threshold_is_data(survey):
    before = build(load(survey), {"survey_example": True}).pool
    turn = int((before.retained["credit_granularity"].astype(str) == "turn").sum())
    assert ("credit_granularity", "turn", "") not in {(g.table, g.row, g.column) for g in before.gaps} or turn <= 2
    path = survey / "corpus/taxonomy.yaml"
    path.write_text(path.read_text().replace("sparse_threshold: 2", f"sparse_threshold: {turn}"))
    res = build(load(survey), {"survey_example": True}).pool
    cells = {(g.table, g.row, g.column): g for g in res.gaps}
    assert (cells[("credit_granularity", "turn", "")].count, cells[("credit_granularity", "turn", "")].status) == (turn, "sparse")


def test_a_near_miss_is_selected_by_the_year_its_exclusion_records(published_tree):
    """A claim's `where: {year: ...}` on near misses reads each exclusion's year (it had read 0 for every one)."""
    result = build(load(published_tree), {})
    pool = result.pool
    excluded = {r["record_id"]: r for r in pool.excluded_records}
    near = pool.populations()["near_misses"]
    years = {key: excluded[key].get("year") for key in near.index}
    year = next(y for y in years.values() if isinstance(y, int))
    expected = sorted(k for k, y in years.items() if y == year)
    for population in ("near_misses", "retained_with_near_misses"):
        found = evaluate_check({"label": "l", "population": population, "where": {"year": year}, "min_count": 0},
                               pool.populations(), pool.tax, {})
        assert sorted(k for k in found.keys if k in years) == expected


def test_a_declared_tables_filter_reads_a_conditional_field_as_a_claim_does(published_tree):
    """mas_native applies to benchmarks only (required_when): a record it does not apply to meets no condition on it,
    not even {not: yes}, in a declared table's count as in a claim (the table had counted every such record)."""
    from masrl.analyses.claims import where_mask
    from masrl.analyses.declared import Rows
    from masrl.corpus.taxonomy import Taxonomy

    tax = Taxonomy(load(published_tree).taxonomy)
    assert tax.fields["mas_native"].required_when is not None
    frame = pd.DataFrame({"mas_native": ["yes", "no", ""]}, index=["k1", "k2", "k3"])
    where = {"mas_native": {"not": "yes"}}
    assert Rows.of(frame, {"mas_native"}).mask(where, tax) == where_mask(frame, where, tax).tolist() == [False, True, False]
