"""gaps.md: the survey's named gaps first, then only the tables whose axes combine (declared in the
taxonomy, each table left out with its reason); gaps.json keeps every cell."""

from __future__ import annotations

import json

import pytest

from masrl.build.outputs import render_text


@pytest.fixture(scope="module")
def reports(published_build):
    return published_build.pool, render_text(published_build)


def keys_where(results, mask) -> str:
    keys = sorted(results.retained.index[mask])
    return f"{len(keys)} | {', '.join(keys) or 'none'}"


def test_gaps_md_opens_with_the_named_gaps(reports):
    results, out = reports
    frame = results.retained
    md = out["reports/gaps.md"].decode()
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings[0] == "## The gaps the survey names"
    assert headings[-2:] == ["## Empty and sparse cells in tables whose axes combine", "## Tables left out"]
    named = [line[4:] for line in md.split("## Strict vs broad")[0].splitlines() if line.startswith("### ")]
    assert named == ["Message-level credit", "Orchestrator-level credit", "The stopping decision (O5)",
                     "Token, tool-call and team credit units", "Benchmarks' joint E1-E4 coverage"]
    assert ("Supports the claim [message-credit-sparse](claims.md#message-credit-sparse) (current; holds). "
            "Source: survey: credit hierarchy figure; claim ledger.") in md
    message = frame["credit_granularity"].astype(str) == "message"
    strict = frame["credit_mechanism"].astype(str) == "strict"
    o5_rl = frame["subdecisions"].map(lambda tags: "O5" in tags) & (frame["is_rl"].astype(str) == "yes")
    assert f"| records with message-level credit (broad tag) | {keys_where(results, message)} |" in md
    assert f"| of those, an explicit credit mechanism (strict) | {keys_where(results, message & strict)} |" in md
    assert f"| records training O5 with explicit RL | {keys_where(results, o5_rl)} |" in md


def test_only_tables_whose_axes_combine_are_listed(reports):
    results, out = reports
    md = out["reports/gaps.md"].decode()
    listed = md.split("## Empty and sparse cells in tables whose axes combine")[1].split("## Tables left out")[0]
    assert "### Primary reward type (`reward_type`)" in listed
    tool = next(g for g in results.gaps if (g.table, g.row) == ("reward_type", "tool"))
    assert f"| tool-use reward (`tool`) | {tool.count} | {tool.status} | {', '.join(tool.records) or 'none'} |" in listed
    # the meaningless cells of the reward x credit table (role-specific reward x token) are not listed
    assert "reward_type_x_credit_granularity" not in listed and "role-specific reward" not in listed
    left = md.split("## Tables left out")[1]
    assert ("| Primary reward type × Credit unit (`reward_type_x_credit_granularity`) | a reward family largely "
            "fixes its credit unit") in left
    plan = results.tax.gap_analysis
    assert left.count("\n| ") - 1 == len(plan["left_out"])  # one row per table left out (after the header)


def test_gaps_json_keeps_every_cell(reports):
    results, out = reports
    data = json.loads(out["reports/gaps.json"])
    assert len(data["cells"]) == len(results.gaps)
    role_token = next(c for c in data["cells"] if (c["table"], c["row"], c["column"]) ==
                      ("reward_type_x_credit_granularity", "role", "token"))
    assert role_token == {"table": "reward_type_x_credit_granularity", "row": "role", "column": "token", "count": 0,
                          "status": "empty", "records": [], "table_axes_combine": False}
    assert [g["id"] for g in data["named_gaps"]][:2] == ["message-credit", "orchestrator-credit"]
    frame = results.retained
    strict = sorted(frame.index[(frame["credit_granularity"].astype(str) == "message")
                                & (frame["credit_mechanism"].astype(str) == "strict")])
    assert data["named_gaps"][0]["selections"][1] == {
        "label": "of those, an explicit credit mechanism (strict)", "count": len(strict), "records": strict,
        "where": {"credit_granularity": "message", "credit_mechanism": "strict"}}
    assert set(data["tables_left_out"]) & set(data["tables_combine"]) == set()


def test_every_gap_table_must_be_declared(survey, cli):
    path = survey / "corpus/taxonomy.yaml"
    text = path.read_text()
    text = text.replace("    scenario: task domains record where methods were tried; the survey draws no gap from them\n", "")
    text = text.replace("    mas_native: a property of benchmarks, not a design option\n",
                        "    mas_native: a property of benchmarks, not a design option\n    scenarios: typo\n")
    path.write_text(text)
    run = cli("validate", "--root", survey)
    assert run.code == 1
    lines = [line for line in run.err.splitlines() if "gap_analysis" in line]
    assert any(line.endswith("gap_analysis: table 'scenario' is in neither combine nor left_out; "
                             "say whether its axes combine, or why it is left out") for line in lines), lines
    assert any("gap_analysis.left_out.scenarios: 'scenarios' is not a table of the gap analysis; tables: category, "
               in line for line in lines), lines


def test_a_table_of_excluded_records_is_no_table_of_the_gap_analysis():
    """``stage`` (a field of excluded records) under left_out: the report had said its cells were in gaps.json,
    where none of them is; the declaration is refused by name."""
    from masrl.analyses.gap_plan import declaration_problems
    from masrl.corpus.taxonomy import Taxonomy

    tax = Taxonomy({"fields": {"method": {"applies_to": "retained", "values": {"a": {}, "b": {}}},
                               "stage": {"applies_to": "excluded", "values": {"title": {}, "full": {}}}},
                    "crosstabs": [["stage", "stage"]],
                    "gap_analysis": {"combine": {"method": "x"}, "left_out": {"stage": "bookkeeping", "stage_x_stage": "x"}}})
    assert declaration_problems(tax) == [
        (("gap_analysis", "left_out", "stage"), "'stage' is a table of excluded records; the gap analysis reads the "
                                                "retained records only (remove it)"),
        (("gap_analysis", "left_out", "stage_x_stage"), "'stage_x_stage' is a table of excluded records; the gap "
                                                        "analysis reads the retained records only (remove it)")]
