"""What `masrl diff` compares, on hand-made build results."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from masrl.analyses.claims import CheckResult, ClaimResult
from masrl.analyses.compare import (
    cell_changes,
    claim_changes,
    claim_edits,
    gap_changes,
    record_changes,
    verdict,
)
from masrl.analyses.frozen import Side, frozen_changes
from masrl.analyses.gaps import Gap
from masrl.analyses.table import Table
from masrl.corpus.releases import content_digest
from trees import published_only  # noqa: F401 - the published tree only


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
    ]  # run 42: a new row of 0 records ("excluded at full text") is no change, as a year without records is not


def test_claim_edits_and_verdicts():
    def claim(cid, status, statement, *checks, scope="pool"):
        """A claim of the ledger with these checks (``(label, stated count, computed count, holds[, where])``)."""
        return ClaimResult(cid, statement, "e", "src", status, scope,
                           tuple(CheckResult(None, label, "retained", where[0] if where else {}, {"count": want}, got, (), holds)
                                 for label, want, got, holds, *where in checks))

    old = results({}, [], claims=[claim("a", "superseded", "A", ("n", 1, 1, True)),
                                  claim("b", "current", "B", ("n", 2, 2, True), ("m", 3, 3, True)),
                                  claim("gone", "current", "G"), claim("c", "current", "C", ("x", 1, 1, True), ("y", 1, 1, True))])
    new = results({}, [], claims=[claim("new", "current", "N", scope="release"),
                                  claim("a", "superseded", "A", ("n", 1, 2, False)),
                                  claim("b", "superseded", "B2", ("n", 4, 2, False), ("m", 3, 3, True), ("k", 1, 1, True),
                                        scope="release"),
                                  claim("c", "current", "C", ("x", 1, 1, True, {"f": ["a", "b"]}))])
    assert claim_edits(old, new) == [
        {"claim": "new", "edit": "added", "before": "(absent)", "after": "current, about release: N"},
        {"claim": "a", "edit": "verdict", "before": "matches the data", "after": "drifted"},
        {"claim": "b", "edit": "status", "before": "current", "after": "superseded"},
        {"claim": "b", "edit": "scope", "before": "pool", "after": "release"},
        {"claim": "b", "edit": "statement", "before": "B", "after": "B2"},
        {"claim": "b", "edit": "stated value of 'n'", "before": "= 2", "after": "= 4"},
        {"claim": "b", "edit": "check 'k' added", "before": "(absent)", "after": "retained where {}; = 1"},
        {"claim": "b", "edit": "verdict", "before": "holds", "after": "drifted"},
        # what a check selects, and a check dropped, are edits of the claim whatever they do to its counts
        {"claim": "c", "edit": "selection of 'x'", "before": "retained where {}", "after": 'retained where {"f": ["a", "b"]}'},
        {"claim": "c", "edit": "check 'y' removed", "before": "retained where {}; = 1", "after": "(absent)"},
        {"claim": "gone", "edit": "removed", "before": "current, about pool: G", "after": "(absent)"},
    ]
    assert [verdict(c) for c in (None, *new.claims, *old.claims[1:])] == [
        "(absent)", "holds", "drifted", "drifted", "holds", "holds", "holds", "holds"]


def test_frozen_changes_digest_records_and_reports():
    def releases(*named):
        """A parsed corpus/releases.yaml of these ``(name, content_sha256)`` releases."""
        return {"releases": [{"name": n, "date": "2026-05-04", "search_cutoff": "2026-05-04", "title": n,
                              "content_sha256": sha} for n, sha in named]}

    snap = {"release": "v1", "taxonomy": {"fields": {"f": {"label": "F"}}}, "retained": {"a": {"title": "A"}}}
    snap2 = {"release": "v2", "taxonomy": {}, "retained": {"a": {"title": "A"}}}
    snaps = {"corpus/releases/v1.yaml": snap, "corpus/releases/v2.yaml": snap2}
    tree = "reports/releases/v1/"
    before = Side(releases(("v1", "d1"), ("v2", "d2")), snaps,
                  {tree + "same.md": "b1", tree + "edited.md": "b2", tree + "gone.md": "b3", "reports/other.md": "o"})
    after = Side(releases(("v1", "d1"), ("v2", "d2x"), ("v3", "d3")), dict(snaps),
                 {tree + "same.md": "b1", tree + "edited.md": "c2", tree + "new.md": "b4"})
    actual = content_digest(snap2)
    assert frozen_changes(before, after) == [
        {"release": "v1", "unlisted": None, "digest": None, "vocabulary": [], "retained": None, "excluded": None,
         "snapshot_changed": False, "errata": None,
         "reports": {"added": [tree + "new.md"], "removed": [tree + "gone.md"], "changed": [tree + "edited.md"]},
         "listing": None, "claims": None},
        {"release": "v2", "unlisted": None, "digest": {"recorded_before": "d2", "recorded_after": "d2x", "actual_before": actual,
                                     "actual_after": actual},
         "vocabulary": [], "retained": None, "excluded": None, "snapshot_changed": True, "errata": None, "reports": None,
         "listing": None, "claims": None},
    ]


# ---------------------------------------------------------------------------- table_changes against loc


def _loc_changes(old, new):
    """What table_changes computed before it read each frame once: every cell through ``loc``."""
    changes = []
    rows = list(dict.fromkeys([*(old.index if old is not None else []), *new.index]))
    cols = list(dict.fromkeys([*(old.columns if old is not None else []), *new.columns]))
    for r in rows:
        for c in cols:
            a = str(old.loc[r, c]) if old is not None and r in old.index and c in old.columns else "(absent)"
            b = str(new.loc[r, c]) if r in new.index and c in new.columns else "(absent)"
            if a != b and {a, b} != {"", "(absent)"} and (old is None or {a, b} != {"0", "(absent)"}):
                changes.append({"row": str(r), "column": str(c), "before": a, "after": b})
    return changes


def test_table_changes_of_cells_of_every_kind():
    import numpy as np

    from masrl.analyses.compare import table_changes

    old = pd.DataFrame({"n": [1, 2], "f": [0.5, np.nan], "s": pd.array(["a", None], dtype="string"), "gone": ["x", "y"],
                        "f32": np.array([0.1, 0.1], dtype="float32")}, index=["r1", "r2"])
    new = pd.DataFrame({"n": [1, 3], "f": [0.5, 0.25], "s": pd.array(["a", ""], dtype="string"), "extra": [True, False],
                        "f32": np.array([0.2, 0.1], dtype="float32")}, index=["r1", "r3"])
    assert table_changes(old, new) == _loc_changes(old, new) == [  # columns: the old ones, then the new ones
        {"row": "r1", "column": "gone", "before": "x", "after": "(absent)"},
        {"row": "r1", "column": "f32", "before": "0.1", "after": "0.2"},  # numpy's float32, not a double's digits
        {"row": "r1", "column": "extra", "before": "(absent)", "after": "True"},
        {"row": "r2", "column": "n", "before": "2", "after": "(absent)"},
        {"row": "r2", "column": "f", "before": "nan", "after": "(absent)"},
        {"row": "r2", "column": "s", "before": "<NA>", "after": "(absent)"},
        {"row": "r2", "column": "gone", "before": "y", "after": "(absent)"},
        {"row": "r2", "column": "f32", "before": "0.1", "after": "(absent)"},
        {"row": "r3", "column": "n", "before": "(absent)", "after": "3"},
        {"row": "r3", "column": "f", "before": "(absent)", "after": "0.25"},  # r3's s is blank: not a change
        {"row": "r3", "column": "f32", "before": "(absent)", "after": "0.1"},
        {"row": "r3", "column": "extra", "before": "(absent)", "after": "False"}]


def test_table_changes_of_a_float_index_with_a_nan_label():
    """A float index makes a new NaN object at every read, which no dict finds again: such a
    frame is read cell by cell through ``loc`` (NaN labels only in the rows here, not in the
    columns). The row is named twice, as ``loc`` names it: two reads, two distinct NaN keys."""
    import numpy as np

    from masrl.analyses.compare import table_changes

    old = pd.DataFrame({"n": [1, 2]}, index=pd.Index([1.0, np.nan]))
    new = pd.DataFrame({"n": [1, 3]}, index=pd.Index([1.0, np.nan]))
    assert table_changes(old, new) == _loc_changes(old, new) == [{"row": "nan", "column": "n", "before": "2", "after": "3"}] * 2


LABEL = st.one_of(st.sampled_from(["a", "b", "c", "", "1"]), st.integers(0, 3), st.just(float("nan")))
CELL = st.one_of(st.text(alphabet="ab ", max_size=2), st.integers(-3, 3), st.floats(allow_infinity=True), st.none(), st.booleans())


@st.composite
def frames(draw):
    rows = draw(st.lists(LABEL, max_size=4))
    cols = draw(st.lists(LABEL, max_size=3))
    kind = draw(st.sampled_from(["int", "float", "float32", "mixed", "string", "Int64"]))
    cells = {"int": st.integers(-3, 3), "float": st.floats(allow_infinity=True), "float32": st.floats(width=32),
             "mixed": CELL, "string": st.one_of(st.none(), st.text(alphabet="ab", max_size=2)),
             "Int64": st.one_of(st.none(), st.integers(-3, 3))}[kind]
    frame = pd.DataFrame([[draw(cells) for _ in cols] for _ in rows], index=pd.Index(rows, dtype=object),
                         columns=pd.Index(cols, dtype=object))
    if kind in ("float32", "string", "Int64") and len(cols):
        frame = frame.astype(kind)
    return frame


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(st.none(), frames()), frames())
def test_table_changes_reads_every_cell_as_loc_does(old, new):
    """Unique and duplicate labels, NaN labels, numeric, nullable, string and mixed columns."""
    from masrl.analyses.compare import table_changes

    try:
        expected = _loc_changes(old, new)
    except Exception as err:  # noqa: BLE001 - what loc refuses, table_changes refuses alike
        with pytest.raises(type(err)):
            table_changes(old, new)
        return
    assert table_changes(old, new) == expected


def test_table_changes_of_every_table_of_a_build_against_its_release_is_what_loc_reads(survey_tree):
    """Every table of the pool against the same table of every release, and every table of a
    build against the next one (other rows and columns), published and grown trees."""
    from masrl.analyses.compare import table_changes
    from masrl.build.pipeline import build
    from masrl.corpus.load import load

    result = build(load(survey_tree), {})
    pairs = [(release.table(t.name).frame if release.has_table(t.name) else None, t.frame)
             for release in result.releases for t in result.pool.all_tables()]
    frames = [t.frame for results in [result.pool, *result.releases] for t in results.all_tables()]
    pairs += list(zip(frames, frames[1:]))
    assert len(pairs) >= 90
    for old, new in pairs:
        assert table_changes(old, new) == _loc_changes(old, new)
    assert sum(bool(_loc_changes(old, new)) for old, new in pairs) >= 60


def test_a_release_table_is_compared_value_by_value_when_a_label_was_reworded():
    """Field 'mode' value 'p' was labelled 'partial' in the release and is 'partly RL' now: the release's column
    'partial' is compared with 'partly RL' (no cell changed); a label that now names a value that exists beside
    it, or that names values of two fields now labelled apart, stays as it is."""
    from masrl.analyses.compare import relabelled, table_changes
    from masrl.corpus.taxonomy import Taxonomy

    def tax(p_label, q_label="other", other_field_label="partial"):
        return Taxonomy({"fields": {
            "mode": {"values": {"p": {"label": p_label}, "q": {"label": q_label}}},
            "kind": {"values": {"k": {"label": other_field_label}}}}})

    old = Table("t", "T", pd.DataFrame({"partial": [2, 1], "other": [0, 3]}, index=pd.Index(["O1", "O2"], name="sub")))
    new = Table("t", "T", pd.DataFrame({"partly RL": [2, 1], "other": [0, 4]}, index=pd.Index(["O1", "O2"], name="sub")))
    before, now = tax("partial", other_field_label="x"), tax("partly RL", other_field_label="x")
    assert [(c["row"], c["column"], c["before"], c["after"]) for c in table_changes(old.frame, new.frame)] == [
        ("O1", "partial", "2", "(absent)"), ("O1", "partly RL", "(absent)", "2"), ("O2", "partial", "1", "(absent)"),
        ("O2", "other", "3", "4"), ("O2", "partly RL", "(absent)", "1")]
    base = relabelled(old, new, before, now)
    assert list(base.frame.columns) == ["partly RL", "other"] and base.frame.index.name == "sub"
    assert [(c["row"], c["column"], c["before"], c["after"]) for c in table_changes(base.frame, new.frame)] == [
        ("O2", "other", "3", "4")]
    # 'partial' labelled a value of two fields that are now labelled apart: ambiguous, left as it is
    assert relabelled(old, new, tax("partial"), tax("partly RL", other_field_label="whole")) is old
    # the old label is still a column of the new table: nothing to rename
    assert relabelled(old, Table("t", "T", old.frame), before, now) is old
    assert relabelled(None, new, before, now) is None


def test_a_count_table_beside_a_release_keeps_a_value_renamed_since_with_the_release_s_count():
    """The code ``hand`` was renamed ``rules`` after the release: the pool's table keeps ``hand``'s row (no record
    now, the release's 2), and ``rules``, which the release's vocabulary lacked, has no release count (blank, not
    0), so the release's column adds up to its records."""
    from masrl.analyses.compare import beside_release

    def table(counts: dict) -> Table:
        return Table("method", "Method", pd.DataFrame({"label": list(counts), "count": list(counts.values())},
                                                      index=pd.Index(list(counts), name="method")))

    shown = beside_release(table({"learned": 1, "rules": 2}), table({"learned": 1, "hand": 2}), "v1")
    assert shown.frame.to_dict(orient="index") == {
        "learned": {"label": "learned", "count": 1, "v1": 1, "change": 0},
        "rules": {"label": "rules", "count": 2, "v1": "", "change": ""},
        "hand": {"label": "hand", "count": 0, "v1": 2, "change": -2}}
    assert shown.note == ("v1: the count in release v1; change: this pool minus it. A blank: a value release v1's "
                          "vocabulary did not have. hand: no longer in the vocabulary, shown for release v1's count.")
    same = table({"learned": 1, "hand": 2})
    assert beside_release(same, table({"learned": 1, "hand": 2}), "v1") is same
    added = table({"learned": 1, "hand": 2, "rules": 0})  # a value added since, that no record holds: nothing to show
    assert beside_release(added, table({"learned": 1, "hand": 2}), "v1") is added


def test_a_year_without_records_that_the_release_lacks_is_no_change():
    """Run 42: a release's years table against the pool's, which reaches to a newer year, listed every empty year
    as '(absent) -> 0' and buried the one real change (the figure note: "differs in 12 cell(s)")."""
    from masrl.analyses.compare import table_changes

    old = pd.DataFrame({"learned": [2, 1], "NA": [0, 1]}, index=["2021", "2022"])
    new = pd.DataFrame({"learned": [2, 1, 0, 0, 1], "NA": [0, 1, 0, 0, 0]}, index=["2021", "2022", "2023", "2024", "2025"])
    assert table_changes(old, new) == [{"row": "2025", "column": "learned", "before": "(absent)", "after": "1"}]
    assert table_changes(new, old) == [{"row": "2025", "column": "learned", "before": "1", "after": "(absent)"}]
