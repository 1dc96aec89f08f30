"""gaps.md: the survey's named gaps first, then only the tables whose axes combine (declared in the
taxonomy, each table left out with its reason); gaps.json keeps every cell."""

from __future__ import annotations

import json

import pytest

from masrl.load import load
from masrl.pipeline import analyse, render_text


@pytest.fixture(scope="module")
def reports(repo):
    results = analyse(load(repo), {"survey_example": True})
    return results, render_text(results)


def test_gaps_md_opens_with_the_named_gaps(reports):
    _, out = reports
    md = out["reports/gaps.md"].decode()
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings[0] == "## The gaps the survey names"
    assert headings[-2:] == ["## Empty and sparse cells in tables whose axes combine", "## Tables left out"]
    named = [line[4:] for line in md.split("## Strict vs broad")[0].splitlines() if line.startswith("### ")]
    assert named == ["Message-level credit", "Orchestrator-level credit", "The stopping decision (O5)",
                     "Token, tool-call and team credit units", "Benchmarks' joint E1-E4 coverage"]
    assert ("Supports the claim [message-credit-sparse](claims.md#message-credit-sparse) (current; holds). "
            "Source: survey: credit hierarchy figure; claim ledger.") in md
    assert "| records with message-level credit (broad tag) | 2 | c3, debate-as-reward |" in md
    assert "| of those, an explicit credit mechanism (strict) | 1 | c3 |" in md
    assert "| records training O5 with explicit RL | 0 | none |" in md


def test_only_tables_whose_axes_combine_are_listed(reports):
    results, out = reports
    md = out["reports/gaps.md"].decode()
    listed = md.split("## Empty and sparse cells in tables whose axes combine")[1].split("## Tables left out")[0]
    assert "### Primary reward type (`reward_type`)" in listed
    assert "| tool-use reward (`tool`) | 0 | empty | none |" in listed
    assert "| O5 when to stop | 0 | empty | none |" in listed
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
    assert data["named_gaps"][0]["selections"][1] == {
        "label": "of those, an explicit credit mechanism (strict)", "count": 1, "records": ["c3"],
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
