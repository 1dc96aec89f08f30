"""What `masrl diff` compares, on hand-made build results."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from masrl.analyses.claims import CheckResult, ClaimResult
from masrl.analyses.compare import (
    cell_changes,
    claim_changes,
    gap_changes,
    record_changes,
)
from masrl.analyses.gaps import Gap
from masrl.analyses.table import Table


def test_record_changes_order_and_absent_fields():
    before = {"k": {"title": "T", "reward_type": "shared", "notes": "n", "ids": {"arxiv": "1"}, "tags": ["a", "b"]},
              "gone": {"title": "G"}}
    after = {"k": {"title": "T2", "reward_type": "hybrid", "credit": "agent", "ids": {"arxiv": "2"}, "tags": ["a"]},
             "new": {"title": "N"}}
    assert record_changes(before, after, ["credit", "reward_type"]) == [
        {"key": "k", "field": "credit", "before": "(absent)", "after": "agent"},
        {"key": "k", "field": "reward_type", "before": "shared", "after": "hybrid"},
        {"key": "k", "field": "ids.arxiv", "before": "1", "after": "2"},
        {"key": "k", "field": "notes", "before": "n", "after": "(absent)"},
        {"key": "k", "field": "tags", "before": "a, b", "after": "a"},
        {"key": "k", "field": "title", "before": "T", "after": "T2"},
    ]


def results(headline, tables, gaps=(), claims=()):
    """A build whose pool has these headline counts, tables and gaps (what the comparisons read)."""
    pool = SimpleNamespace(headline=headline, all_tables=lambda: list(tables), gaps=list(gaps))
    return SimpleNamespace(pool=pool, claims=list(claims))


def table(name, rows):
    return Table(name, name, pd.DataFrame(rows).set_index("v"), "")


def test_cell_changes():
    old = results({"retained": 2, "excluded": 1, "audited": 3},
                  [table("gone", {"v": ["x"], "count": [1]}), table("t", {"v": ["a", "b"], "count": [1, 1]})])
    new = results({"retained": 3, "excluded": 1, "audited": 4},
                  [table("t", {"v": ["a", "c"], "count": [2, 1]}), table("added", {"v": ["x"], "count": [0]})])
    assert cell_changes(old, new) == [
        {"table": "headline", "row": "retained", "column": "count", "before": "2", "after": "3"},
        {"table": "headline", "row": "audited", "column": "count", "before": "3", "after": "4"},
        {"table": "t", "row": "a", "column": "count", "before": "1", "after": "2"},
        {"table": "t", "row": "b", "column": "count", "before": "1", "after": "(absent)"},
        {"table": "t", "row": "c", "column": "count", "before": "(absent)", "after": "1"},
        {"table": "added", "row": "x", "column": "count", "before": "(absent)", "after": "0"},
        {"table": "gone", "row": "(table)", "column": "", "before": "present", "after": "(absent)"},
    ]


def test_gap_and_claim_changes():
    old = results({}, [], gaps=[Gap("t", "a", "", 0, "empty", ()), Gap("x", "r", "c", 1, "sparse", ("k",)),
                                Gap("y", "s", "", 1, "sparse", ("k",))])
    new = results({}, [], gaps=[Gap("t", "a", "", 1, "sparse", ("k",)), Gap("y", "s", "", 2, "sparse", ("k", "l"))])
    assert gap_changes(old, new) == [  # y/s stays sparse with another count: it has not moved
        {"table": "t", "cell": "a", "before": "empty (0)", "after": "sparse (1)"},
        {"table": "x", "cell": "r × c", "before": "sparse (1)", "after": "not a gap"},
    ]

    def claim(cid, label, count, holds):
        check = CheckResult(None, label, "retained", {}, {"count": 1}, count, (), holds)
        return ClaimResult(cid, "s", "e", "src", "current", "pool", (check,))

    old = results({}, [], claims=[claim("c", "same", 1, True), claim("c", "moved", 1, True), claim("d", "gone", 1, True)])
    new = results({}, [], claims=[claim("c", "same", 1, True), claim("c", "moved", 2, False), claim("e", "new", 1, True)])
    assert claim_changes(old, new) == [
        {"claim": "c", "check": "moved", "before": "1", "after": "2", "holds_before": True, "holds_after": False},
        {"claim": "d", "check": "gone", "before": "1", "after": "(absent)", "holds_before": True, "holds_after": None},
        {"claim": "e", "check": "new", "before": "(absent)", "after": "1", "holds_before": None, "holds_after": True},
    ]


def test_tables_of_other_layouts_are_not_compared_cell_by_cell():
    head = {"retained": 2, "excluded": 1, "audited": 3}
    plain = table("flow", {"v": ["abstract_screen"], "records": [3]})
    update = Table("flow", "flow", pd.DataFrame({"v": ["new records identified and screened", "excluded at abstract"],
                                                  "records": [1, 0], "X1": ["", "0"]}).set_index("v"), "", "",
                   "update of release v1 (2026-05-04)")
    assert cell_changes(results(head, [plain]), results(head, [update])) == [
        {"table": "flow", "row": "(layout)", "column": "", "before": "whole review", "after": "update of release v1 (2026-05-04)"}]
    grown = Table("flow", "flow", pd.DataFrame({"v": ["new records identified and screened", "excluded at abstract",
                                                      "excluded at full text"],
                                                "records": [2, 1, 0], "X1": ["", "1", "0"]}).set_index("v"), "", "", update.layout)
    # a blank cell on one side and an absent row on the other are no change
    assert cell_changes(results(head, [update]), results(head, [grown])) == [
        {"table": "flow", "row": "new records identified and screened", "column": "records", "before": "1", "after": "2"},
        {"table": "flow", "row": "excluded at abstract", "column": "records", "before": "0", "after": "1"},
        {"table": "flow", "row": "excluded at abstract", "column": "X1", "before": "0", "after": "1"},
        {"table": "flow", "row": "excluded at full text", "column": "records", "before": "(absent)", "after": "0"},
        {"table": "flow", "row": "excluded at full text", "column": "X1", "before": "(absent)", "after": "0"},
    ]
