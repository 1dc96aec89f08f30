"""Release v1 reproduces every number the survey publishes (upstream STATS.md and
the artifact README), copied here as literals.

Every test reads release v1, computed from its frozen snapshot, never the current pool: on the
frozen test survey, on the same survey grown by every workflow (adding papers, freezing releases
and applying audits never changes it), and on the repository's own corpus (``live``)."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from masrl.build.outputs import render_tree
from masrl.build.pipeline import build
from masrl.corpus.load import load

_BUILDS: dict = {}


@pytest.fixture(scope="module", params=["published", "grown", pytest.param("live", marks=pytest.mark.live)])
def release_v1(request):
    """``(build, release v1's results)`` of the test survey, the grown one, or the repository's corpus."""
    root = request.getfixturevalue("repo" if request.param == "live" else f"{request.param}_tree")
    if root not in _BUILDS:
        built = build(load(root), {"survey_example": True})
        _BUILDS[root] = built, built.population("v1")
    return _BUILDS[root]


@pytest.fixture(scope="module")
def results(release_v1):
    return release_v1[1]


@pytest.fixture(scope="module")
def files(release_v1):
    return render_tree(*release_v1)


def counts(results, name) -> dict:
    return {str(k): int(v) for k, v in results.table(name).frame["count"].items()}


def test_headline_counts(results):
    assert results.headline == {"retained": 84, "excluded": 32, "audited": 116}


def test_category_counts(results):
    assert counts(results, "category") == {
        "rl_method": 42, "framework": 3, "benchmark": 18, "industry": 6, "classical_marl": 10, "survey": 5,
    }


def test_reward_type_counts_including_empty_tool(results):
    assert counts(results, "reward_type") == {
        "shared": 10, "individual": 4, "role": 3, "process": 2, "tool": 0, "debate": 4, "verifier": 6,
        "orchestration": 7, "hybrid": 15, "NA": 33,
    }


def test_credit_granularity_counts_keep_the_empty_units(results):
    # the upstream snapshot drops token, tool and team; they are the finding
    assert counts(results, "credit_granularity") == {
        "token": 0, "tool": 0, "message": 2, "turn": 5, "agent": 23, "role": 10, "orchestrator": 8, "team": 0, "NA": 36,
    }


def test_orchestration_form_counts(results):
    assert counts(results, "orchestration_form") == {
        "centralized": 18, "planner_executor_critic": 4, "debate": 8, "swarm": 4, "hierarchical": 13, "harness": 3, "NA": 34,
    }


def test_exclusion_stage_counts(results):
    assert counts(results, "stage") == {"abstract_screen": 16, "full_text_screen": 9, "artifact_screen": 6, "duplicate_screen": 1}


# upstream STATS.md "Reward Type x Credit Granularity" (non-zero cells; every other cell is 0)
REWARD_X_CREDIT = {
    ("NA", "NA"): 32, ("NA", "orchestrator"): 1,
    ("debate", "agent"): 3, ("debate", "message"): 1,
    ("hybrid", "agent"): 6, ("hybrid", "orchestrator"): 1, ("hybrid", "role"): 4, ("hybrid", "turn"): 4,
    ("individual", "agent"): 4,
    ("orchestration", "orchestrator"): 6, ("orchestration", "role"): 1,
    ("process", "agent"): 1, ("process", "turn"): 1,
    ("role", "role"): 3,
    ("shared", "agent"): 9, ("shared", "message"): 1,
    ("verifier", "NA"): 4, ("verifier", "role"): 2,
}

# upstream STATS.md "Orchestration Form x Credit Granularity"
FORM_X_CREDIT = {
    ("NA", "NA"): 31, ("NA", "agent"): 3,
    ("centralized", "agent"): 14, ("centralized", "message"): 1, ("centralized", "orchestrator"): 3,
    ("debate", "NA"): 1, ("debate", "agent"): 3, ("debate", "message"): 1, ("debate", "role"): 1, ("debate", "turn"): 2,
    ("harness", "NA"): 2, ("harness", "agent"): 1,
    ("hierarchical", "agent"): 2, ("hierarchical", "orchestrator"): 3, ("hierarchical", "role"): 5, ("hierarchical", "turn"): 3,
    ("planner_executor_critic", "role"): 4,
    ("swarm", "NA"): 2, ("swarm", "orchestrator"): 2,
}


@pytest.mark.parametrize("name, cells", [
    ("reward_type_x_credit_granularity", REWARD_X_CREDIT),
    ("orchestration_form_x_credit_granularity", FORM_X_CREDIT),
])
def test_crosstabs_match_the_snapshot_cell_by_cell(results, name, cells):
    table = results.table(name).frame
    assert list(table.columns) == ["token", "tool", "message", "turn", "agent", "role", "orchestrator", "team", "NA"]
    for row in table.index:
        for col in table.columns:
            assert table.loc[row, col] == cells.get((row, col), 0), (row, col)


def test_crosstab_csv_keeps_NA_and_zero_columns(files):
    csv = files["reports/releases/v1/tables/reward_type_x_credit_granularity.csv"].decode()
    assert csv.splitlines()[0] == "reward_type,token,tool,message,turn,agent,role,orchestrator,team,NA"
    assert csv.splitlines()[-1] == "NA,0,0,0,0,0,0,1,0,32"
    frame = pd.read_csv(io.StringIO(csv), keep_default_na=False, index_col=0)
    assert frame.loc["NA", "NA"] == 32 and "NA" in frame.index


def test_stats_md_shows_the_published_headline(files):
    text = files["reports/releases/v1/STATS.md"].decode()
    assert "- Retained records: 84\n- Excluded records: 32\n- Audited records: 116 (retained + excluded" in text
    assert "| tool | tool call | 0 |" in text and "| team | team | 0 |" in text


def test_category_x_verified(results):
    table = results.table("category_x_verified").frame
    # counted from upstream papers.csv with the csv module
    assert table.loc["rl_method"].to_dict() == {"yes": 35, "partial": 7, "no": 0}
    assert table.loc["framework"].to_dict() == {"yes": 2, "partial": 1, "no": 0}
    assert int(table.to_numpy().sum()) == 84
    assert table["partial"].sum() == 8


def test_exclusion_log_by_source_and_query_family(results):
    assert counts(results, "source") == {
        "arXiv": 24, "ACL Anthology": 1, "OpenReview": 2, "GitHub/project page": 1, "company docs": 3, "company blog": 1,
    }
    assert counts(results, "query_family") == {
        "multi-agent LLM": 8, "agent swarm": 1, "reinforcement learning": 2, "post-training": 2, "credit assignment": 2,
        "orchestration": 3, "tool use": 2, "benchmark": 3, "safety": 2, "prompt injection": 2, "classical MARL": 2,
        "industrial agent system": 3,
    }
