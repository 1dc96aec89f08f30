"""Counts, crosstabs and gaps on a tiny hand-made population (expected values worked out by hand)."""

from __future__ import annotations

import pandas as pd
import pytest

from masrl.analyses.agreement import UNDEFINED, agreement, brennan_prediger, fleiss_kappa
from masrl.analyses.counts import count_by, crosstab, long_values, records_per_value
from masrl.analyses.gaps import Gap, find_gaps, gaps_json
from masrl.analyses.prisma import update_table
from masrl.corpus.taxonomy import Taxonomy


def field(values, multi=False):
    return {"applies_to": "retained", "multi": multi, "values": {v: {"label": v.upper()} for v in values}}


TAX = Taxonomy({
    "format_version": 2,
    "not_applicable": "NA",
    "sparse_threshold": 1,
    "gap_analysis": {"skip_values": ["NA"]},
    "fields": {"credit": field(["agent", "message", "NA"]), "subdecisions": field(["O1", "O2", "O5"], multi=True),
               "is_core": field(["core", "other"])},
    "crosstabs": [["credit", "subdecisions"]],
})
FRAME = pd.DataFrame(
    {"credit": ["agent", "message", "message", "NA"], "subdecisions": [["O1"], ["O1", "O2"], [], ["O2"]],
     "is_core": ["core", "core", "core", "core"]},
    index=pd.Index(["a", "b", "c", "d"], name="key"),
)


def test_count_by_single_and_multi():
    counts = count_by(FRAME, "credit", TAX)
    assert counts.to_dict() == {"agent": 1, "message": 2, "NA": 1}
    assert list(counts.index) == ["agent", "message", "NA"] and counts.index.name == "credit" and counts.name == "count"
    assert str(counts.dtype) == "int64"
    assert count_by(FRAME, "subdecisions", TAX).to_dict() == {"O1": 2, "O2": 2, "O5": 0}
    assert count_by(FRAME, "is_core", TAX).to_dict() == {"core": 4, "other": 0}


def test_long_values_drop_empty_and_explode():
    frame = FRAME.assign(credit=["agent", "", "message", "NA"])
    single = long_values(frame, "credit", TAX)
    assert list(single.index) == ["a", "c", "d"] and list(single.astype(str)) == ["agent", "message", "NA"]
    assert list(single.cat.categories) == ["agent", "message", "NA"] and single.cat.ordered
    multi = long_values(FRAME, "subdecisions", TAX)
    assert list(zip(multi.index, multi.astype(str))) == [("a", "O1"), ("b", "O1"), ("b", "O2"), ("d", "O2")]
    assert multi.name == "subdecisions"


def test_crosstab_every_cell():
    table = crosstab(FRAME, "credit", "subdecisions", TAX)
    assert table.to_dict(orient="index") == {
        "agent": {"O1": 1, "O2": 0, "O5": 0},
        "message": {"O1": 1, "O2": 1, "O5": 0},
        "NA": {"O1": 0, "O2": 1, "O5": 0},
    }
    assert (table.index.name, table.columns.name) == ("credit", "subdecisions")
    assert all(str(t) == "int64" for t in table.dtypes)
    empty = crosstab(FRAME.iloc[:0], "credit", "is_core", TAX)
    assert empty.to_dict(orient="index") == {v: {"core": 0, "other": 0} for v in ("agent", "message", "NA")}


def test_crosstab_of_two_multi_valued_fields_counts_every_pair():
    tax = Taxonomy({"format_version": 2, "fields": {"subdecisions": field(["O1", "O2", "O5"], multi=True),
                                                    "eval": field(["cost", "quality"], multi=True)}})
    frame = pd.DataFrame({"subdecisions": [["O1", "O2"], ["O2"], ["O1"], ["O5"]],
                          "eval": [["cost", "quality"], ["quality"], ["cost"], []]},
                         index=pd.Index(["a", "b", "c", "d"], name="key"))
    table = crosstab(frame, "subdecisions", "eval", tax)
    assert table.to_dict(orient="index") == {"O1": {"cost": 2, "quality": 1}, "O2": {"cost": 1, "quality": 2},
                                             "O5": {"cost": 0, "quality": 0}}
    assert list(table.index) == ["O1", "O2", "O5"] and list(table.columns) == ["cost", "quality"]


def test_records_per_value():
    assert records_per_value(FRAME, "credit", TAX) == {"agent": ["a"], "message": ["b", "c"], "NA": ["d"]}
    assert records_per_value(FRAME, "subdecisions", TAX) == {"O1": ["a", "b"], "O2": ["b", "d"], "O5": []}


def test_find_gaps():
    gaps = find_gaps(FRAME, TAX)
    assert gaps == [
        Gap("credit", "agent", "", 1, "sparse", ("a",)),
        Gap("subdecisions", "O5", "", 0, "empty", ()),
        Gap("is_core", "other", "", 0, "empty", ()),
        Gap("credit_x_subdecisions", "agent", "O1", 1, "sparse", ("a",)),
        Gap("credit_x_subdecisions", "agent", "O2", 0, "empty", ()),
        Gap("credit_x_subdecisions", "agent", "O5", 0, "empty", ()),
        Gap("credit_x_subdecisions", "message", "O1", 1, "sparse", ("b",)),
        Gap("credit_x_subdecisions", "message", "O2", 1, "sparse", ("b",)),
        Gap("credit_x_subdecisions", "message", "O5", 0, "empty", ()),
    ]


def test_find_gaps_skips_fields_and_threshold():
    tax = Taxonomy({**TAX.data, "sparse_threshold": 2, "gap_analysis": {"skip_fields": ["is_core", "subdecisions"]}})
    gaps = find_gaps(FRAME, tax)
    # NA is skipped by default; the crosstab names a skipped field, so it is left out
    assert [(g.table, g.row, g.count, g.status) for g in gaps] == [("credit", "agent", 1, "sparse"),
                                                                    ("credit", "message", 2, "sparse")]


NTAX = Taxonomy({"format_version": 2, "fields": {
    "credit_granularity": field(["token", "agent", "NA"]),
    "credit_mechanism": field(["strict", "broad", "unassessed", "NA"]),
    "category": field(["benchmark", "rl_method"]),
    "eval_measures": field(["E1", "E2"], multi=True),
}})
NFRAME = pd.DataFrame(
    {"credit_granularity": ["agent", "agent", "agent", "NA", "agent"],
     "credit_mechanism": ["strict", "broad", "unassessed", "NA", "strict"],
     "category": ["rl_method", "rl_method", "benchmark", "benchmark", "benchmark"],
     "eval_measures": [[], [], ["E1", "E2"], ["E2"], []]},
    index=pd.Index(["p", "q", "r", "s", "t"], name="key"),
)


NARROWING = {"kind": "values", "field": "credit_granularity", "index": "unit", "skip": ["NA"], "columns": [
    {"name": "broad", "count": {}}, {"name": "strict", "count": {"credit_mechanism": "strict"}},
    {"name": "strict records", "keys": {"credit_mechanism": "strict"}},
    {"name": "records without an explicit mechanism", "keys": {"credit_mechanism": "broad"}},
    {"name": "unassessed records", "keys": {"credit_mechanism": "unassessed"}}]}


def test_a_declared_values_table_narrows_broad_to_strict():
    from masrl.analyses.declared import declared_table
    from masrl.corpus.declarations import table_of

    table = declared_table(table_of(NARROWING, name="narrow"), NFRAME, [], NTAX).frame
    assert list(table.index) == ["token", "agent"] and table.index.name == "unit"
    assert table.loc["token"].to_dict() == {"broad": 0, "strict": 0, "strict records": "none",
                                            "records without an explicit mechanism": "none", "unassessed records": "none"}
    assert table.loc["agent"].to_dict() == {"broad": 4, "strict": 2, "strict records": "p, t",
                                            "records without an explicit mechanism": "q", "unassessed records": "r"}


def test_coverage_and_json_sections():
    from masrl.analyses.gaps import coverage, sections

    joint = coverage(NFRAME, {"category": "benchmark"}, "eval_measures", NTAX)
    assert joint == {"measures": ["E1", "E2"], "joint": ["r"], "by_benchmark": {"r": ["E1", "E2"], "s": ["E2"], "t": []}}
    tax = Taxonomy({**NTAX.data, "gap_analysis": {"sections": [
        {"kind": "table", "json": "narrow", "title": "Narrow", "table": NARROWING},
        {"kind": "coverage", "json": "cover", "title": "Cover", "where": {"category": "benchmark"}, "field": "eval_measures"}]}})
    found = sections(NFRAME, [], tax)
    doc = gaps_json([Gap("t", "r", "", 1, "sparse", ("a",))], 2, tax=tax, sections=found)
    assert doc["sparse_threshold"] == 2
    assert doc["cells"] == [{"table": "t", "row": "r", "column": "", "count": 1, "status": "sparse", "records": ["a"],
                             "table_axes_combine": False}]
    assert doc["narrow"][1] == {"unit": "agent", "broad": 4, "strict": 2, "strict records": "p, t",
                                "records without an explicit mechanism": "q", "unassessed records": "r"}
    assert doc["cover"] == joint
    assert "strict_vs_broad" not in doc and "benchmark_joint_coverage" not in doc


def test_count_and_crosstab_tables():
    from masrl.analyses.stats import count_table, crosstab_table, headline, stats_tables

    tax = Taxonomy({"fields": {
        "credit": {**field(["agent", "message", "NA"]), "label": "Credit unit", "source": "survey: figure 3"},
        "subdecisions": {**field(["O1", "O2", "O5"], multi=True), "label": "Sub-decisions"},
        "stage": {"applies_to": "excluded", "label": "Stage", "values": {"abstract": {"label": "abstract screen"}}},
    }, "crosstabs": [["credit", "subdecisions"]]})
    table = count_table(FRAME, "credit", tax, "retained")
    assert (table.name, table.title, table.source, table.note) == (
        "credit", "Credit unit (credit) of retained records", "survey: figure 3", "")
    assert table.frame.to_dict(orient="index") == {"agent": {"label": "AGENT", "count": 1},
                                                   "message": {"label": "MESSAGE", "count": 2}, "NA": {"label": "NA", "count": 1}}
    multi = count_table(FRAME, "subdecisions", tax, "retained")
    assert (multi.source, multi.note) == ("", "A record counts once under each value it carries.")
    cross = crosstab_table(FRAME, "credit", "subdecisions", tax)
    assert (cross.name, cross.title, cross.source) == ("credit_x_subdecisions", "Credit unit x Sub-decisions (retained records)",
                                                       "crosstab of corpus fields")
    excluded = pd.DataFrame({"stage": ["abstract"]}, index=pd.Index(["E1"], name="record_id"))
    assert [t.name for t in stats_tables(FRAME, excluded, tax)] == ["credit", "subdecisions", "credit_x_subdecisions", "stage"]
    assert stats_tables(FRAME, excluded, tax)[-1].title == "Stage (stage) of excluded records"
    assert headline(FRAME, excluded) == {"retained": 4, "excluded": 1, "audited": 5}
    tax.data["crosstabs"] = [["stage", "stage"]]
    assert crosstab_table(excluded, "stage", "stage", tax).title == "Stage x Stage (excluded records)"


def test_update_table_rows_cells_and_source():
    flow = {"reason_classes": ["R1", "R2"], "audited": 9, "update": {
        "previous": "release v1", "previous_included": 5, "identified": 4, "new_included": 2, "total_included": 6,
        "dropped": ["x"], "stages": [{"label": "abstract", "excluded": 2, "by_reason_class": {"R2": 2}}],
        "identification": {"identified_by_source": {"arXiv": 6}, "duplicates_removed": 1, "other_methods": 1,
                           "screened": 6, "awaiting": 2, "rounds": ["r1", "r2"], "found_again": 3}}}
    t = update_table(flow)
    assert t.frame.reset_index().values.tolist() == [
        ["included in the previous version", 5, "", ""],
        ["records identified from arXiv (update rounds)", 6, "", ""],
        ["duplicates removed before screening", 1, "", ""],
        ["records identified by other methods (added by hand)", 1, "", ""],
        ["records to screen", 6, "", ""],
        ["awaiting a screening decision", 2, "", ""],
        ["new records with a screening decision", 4, "", ""],
        ["excluded at abstract", 2, "0", "2"],
        ["new records included", 2, "", ""],
        ["dropped since the previous version (moved to the exclusion log)", 1, "", ""],
        ["total included in this version", 6, "", ""],
    ]
    assert list(t.frame.columns) == ["records", "R1", "R2"]
    assert t.source == ("computed from the records: those of the previous version (its frozen snapshot) and those added "
                        "since; identification from the update rounds r1, r2 (corpus/rounds/); 3 record(s) that a later "
                        "round found again are counted once, where they were first identified")
    assert t.note == ("Previous version: release v1. Total included = 5 - 1 + 2 = 6; 9 records audited over all versions.")
    del flow["update"]["identification"]
    assert update_table(flow).frame.index[1] == "new records identified and screened"


ABCD = ("a", "b", "c", "d")
# Pinned by irrCAC 0.4.4 (tests/audits/test_agreement.py): 3 readers, 10 items, 4 categories.
THREE = [("a", "a", "a"), ("a", "b", "a"), ("b", "b", "b"), ("c", "c", "b"), ("a", "a", "a"), ("d", "c", "c"),
         ("b", "b", "b"), ("a", "a", "a"), ("c", "b", "c"), ("d", "d", "d")]


def test_fleiss_and_brennan_prediger_values_and_no_ratings():
    kappa, bp = fleiss_kappa(THREE, ABCD), brennan_prediger(THREE, ABCD)
    assert (round(kappa.value, 12), round(kappa.se, 12)) == (0.628482972136, 0.144124923519)
    assert (round(bp.value, 12), round(bp.se, 12)) == (0.644444444444, 0.14515494772)
    assert fleiss_kappa([], ABCD) == brennan_prediger([], ABCD) == UNDEFINED


def test_a_named_gap_selecting_on_an_unknown_field_is_named_at_its_place():
    """The plan's own declarations are the analysis's; a named gap's selections are judged as claims' filters
    (masrl.checks.taxonomy.gap_declarations), at the condition's place."""
    import copy
    from pathlib import Path

    import yaml

    from masrl.analyses.gap_plan import declaration_problems
    from masrl.checks import taxonomy as tchecks
    from masrl.checks.collector import Checker
    from masrl.corpus.load import Corpus

    data = yaml.safe_load((Path(__file__).parent / "data/survey/corpus/taxonomy.yaml").read_text(encoding="utf-8"))
    assert declaration_problems(Taxonomy(data)) == []
    bad = copy.deepcopy(data)
    bad["gap_analysis"]["named"][1]["selections"][0]["where"] = {"credit_granularit": "orchestrator"}
    assert declaration_problems(Taxonomy(bad)) == []
    c = Checker(Corpus(taxonomy=bad))
    tchecks.gap_declarations(c)
    assert [(p.field, p.message) for p in c.problems] == [
        ("gap_analysis.named[1].selections[0].where.credit_granularit",
         "unknown field 'credit_granularit' (did you mean 'credit_granularity'?)")]


def test_an_identifier_only_the_bibtex_entry_gives_is_a_mismatch_with_none_on_the_record_side():
    from masrl.analyses.audit import bibtex_mismatches

    rec = {"key": "doe2026", "bibtex_key": "Doe2026", "title": "An Orchestrator", "year": 2026, "venue": "arXiv",
           "authors": ["Doe, Jane"], "first_author": "Doe, Jane", "identifiers": {"arxiv": "2605.10001"},
           "bibtex": {"title": "An Orchestrator", "year": "2026", "doi": "10.5555/orch.1", "eprint": "2605.10002"}}
    found = {m["field"]: (m["record"], m["bibtex"]) for m in bibtex_mismatches([rec])}
    assert found["identifiers.doi"] == ("(none)", "10.5555/orch.1")
    assert found["identifiers.arxiv"] == ("2605.10001", "2605.10002")


ABCD = ("a", "b", "c", "d")
#: Two readers on 12 items, 9 agreements (the hand count of tests/audits/test_agreement.py).
PAIRS = [("a", "a"), ("a", "b"), ("b", "b"), ("c", "c"), ("a", "a"), ("d", "c"), ("b", "b"), ("a", "a"), ("c", "b"),
         ("d", "d"), ("a", "a"), ("b", "b")]


def test_no_items_name_the_coefficient_of_two_readers_and_leave_everything_undefined():
    empty = agreement([], ABCD)
    assert (empty.readers, empty.items, empty.kappa_name, empty.kappa.value, empty.pabak.value) == (2, 0, "Cohen's κ", None, None)


def test_two_readers_pabak_is_brennan_prediger_with_the_wilson_interval_mapped():
    result, bp = agreement(PAIRS, ABCD), brennan_prediger(PAIRS, ABCD)
    assert result.pabak.value == pytest.approx(bp.value, abs=1e-12) == pytest.approx((4 * 9 / 12 - 1) / 3)
    low, high = result.observed.low, result.observed.high
    assert (result.pabak.low, result.pabak.high) == pytest.approx(((4 * low - 1) / 3, (4 * high - 1) / 3))


def test_three_readers_who_agree_on_every_item_have_a_standard_error_of_zero_and_no_interval():
    observed = agreement([("a", "a", "a")] * 5, ABCD).observed
    assert (observed.value, observed.se, observed.low, observed.high) == (1.0, 0.0, None, None)


def test_round_states_count_a_record_found_again_once_and_what_each_round_identified():
    from types import SimpleNamespace

    from masrl.analyses.rounds import boundary, round_states
    from masrl.corpus.rounds import RoundFolder, Row

    def meta(started, **counts):
        return {"window": {"since": "2026-05-04", "until": "2026-06-30"}, "started": started,
                "sources": [{"name": "arxiv", "label": "arXiv"}, {"name": "citations", "label": "citations", "method": "other"}],
                "counts": {"duplicates": 1, "by_source": counts}}

    first = RoundFolder("r1", meta("2026-07-01T00:00:00Z", arXiv={"identified": 2}),
                        queue=[Row(2, {"identifier": "arxiv:2605.10001"}), Row(3, {"identifier": "arxiv:2605.10002",
                                                                                    "decision": "exclude"})])
    second = RoundFolder("r2", meta("2026-07-02T00:00:00Z", arXiv={"identified": 3}, citations={"identified": 1}),
                         duplicates=[Row(2, {"identifier": "arxiv:2605.10001v2", "source": "arXiv"})])
    one, two = round_states({"r2": second, "r1": first}, {"corpus/papers/a.yaml": {"identifiers": {"arxiv": "2605.10001"}}}, {})
    assert (one.round_id, one.identified, one.duplicates, dict(one.applied), one.unapplied) == (
        "r1", {"arXiv": 2}, 1, {2: "corpus/papers/a.yaml"}, ((3, "arxiv:2605.10002", "exclude"),))
    assert (two.identified, two.again, two.found_again, two.other_methods) == (
        {"arXiv": 3, "citations": 1}, {"arXiv": 1}, 1, frozenset({"citations"}))
    release = SimpleNamespace(search_cutoff="2026-06-30", date="2026-07-01")
    covered = boundary([SimpleNamespace(release=release, identification={"rounds": ["r1"]})])
    assert (covered.covered, covered.listed) == (frozenset({"r1"}), True)
    assert [s.round_id for s in round_states({"r1": first, "r2": second}, {}, {}, covered)] == ["r2"]


def test_a_paper_that_two_merged_rounds_queue_is_queued_once_and_found_again_or_a_duplicate():
    """Round r2 (a merged branch's) queues what r1 queued: by an id in another form, and by a title 90%+ similar
    with no id that proves the two distinct. In one update r2's rows are found again; after a release that froze r1
    they are duplicates removed. A distinct paper of a similar title with another arXiv id stays queued."""
    from types import SimpleNamespace

    from masrl.analyses.rounds import boundary, identification, queued_again, round_states
    from masrl.corpus.rounds import RoundFolder, Row

    def meta(started, identified, queued):
        return {"window": {"since": "2026-05-04", "until": "2026-06-30"}, "started": started,
                "counts": {"duplicates": identified - queued, "by_source": {"arXiv": {"identified": identified}}}}

    first = RoundFolder("r1", meta("2026-07-01T00:00:00Z", 3, 3), queue=[
        Row(2, {"identifier": "arxiv:2605.10001", "title": "Credit Assignment for Teams", "sources": "arXiv"}),
        Row(3, {"identifier": "doi:10.1/abc", "title": "Learning to Delegate with Rewards", "sources": "arXiv"}),
        Row(4, {"identifier": "arxiv:2605.10009", "title": "Stopping Rules for Orchestrators", "sources": "arXiv"})])
    second = RoundFolder("r2", meta("2026-07-02T00:00:00Z", 5, 4), queue=[
        Row(2, {"identifier": "arxiv:2605.10001v2; doi:10.48550/arXiv.2605.10001", "title": "Credit assignment", "sources": "arXiv"}),
        Row(3, {"identifier": "url:https://example.org/delegate", "title": "Learning to delegate with rewards.",
                "sources": "arXiv; Crossref", "decision": "include"}),
        Row(4, {"identifier": "arxiv:2605.20009", "title": "Stopping Rules for Orchestrators", "sources": "arXiv"}),
        Row(5, {"identifier": "arxiv:2605.10005", "title": "A New Paper", "sources": "arXiv"})])
    hits = queued_again({"r2": second, "r1": first})
    assert {k: (h.earlier, h.rule, h.source, h.name) for k, h in hits.items()} == {
        ("r2", 2): ("corpus/rounds/r1/queue.csv:2", "same arxiv 2605.10001", "arXiv", "arxiv:2605.10001v2"),
        ("r2", 3): ("corpus/rounds/r1/queue.csv:3", "title 100% similar", "arXiv", "url:https://example.org/delegate")}
    one, two = round_states({"r1": first, "r2": second}, {}, {})
    assert (two.queued, two.duplicates, two.again, two.undecided, two.unapplied) == (
        2, 3, {"arXiv": 2}, ((4, "arxiv:2605.20009"), (5, "arxiv:2605.10005")), ())
    assert identification([one, two]) == {
        "rounds": ["r1", "r2"], "identified_by_source": {"arXiv": 6}, "duplicates_removed": 1, "found_again": 2,
        "queued": 5, "applied": 0, "awaiting": 5}
    release = SimpleNamespace(search_cutoff="2026-06-30", date="2026-07-01")
    covered = boundary([SimpleNamespace(release=release, identification={"rounds": ["r1"]})])
    (after,) = round_states({"r1": first, "r2": second}, {}, {}, covered)
    assert (after.queued, after.duplicates, after.found_again, identification([after])["identified_by_source"]) == (
        2, 3, 0, {"arXiv": 5})


@pytest.mark.parametrize(("dropped", "moved", "step"), [
    (["x"], ["x"], "dropped since the previous version (moved to the exclusion log)"),
    (["x"], [], "dropped since the previous version (removed from the records)"),
    (["x", "y"], ["y"], "dropped since the previous version (1 moved to the exclusion log, 1 removed from the records)"),
])
def test_the_update_flow_says_how_a_record_was_dropped(dropped, moved, step):
    """A record deleted by hand is not one moved to the exclusion log (it had been labelled so)."""
    flow = {"reason_classes": [], "audited": 5, "update": {
        "previous": "release v1", "previous_included": 5, "identified": 0, "new_included": 0,
        "total_included": 5 - len(dropped), "dropped": dropped, "dropped_moved": moved, "stages": []}}
    assert step in update_table(flow).frame.index


def test_an_updated_flow_says_its_second_readers_in_its_note():
    """An updated review's flow counts only the records added since, so the exclusions a second reader checked
    over the whole log are said in its note, per stage (they had vanished from every report once a release existed)."""
    from masrl.analyses.prisma import second_reader_note
    from masrl.analyses.table import Table
    from masrl.corpus.taxonomy import Taxonomy

    tax = Taxonomy({"fields": {"stage": {"applies_to": "excluded", "values": {"abstract": {"label": "abstract screen"},
                                                                             "full": {"label": "full text"}}}},
                    "screening": {"stages": "stage"}})
    table = Table("prisma_flow", "Flow", pd.DataFrame({"records": [5]}, index=pd.Index(["x"], name="step")), "src", "Note.")
    noted = second_reader_note(table, {"abstract": {"checked": 3, "confirmed": 2}, "full": {"checked": 1, "confirmed": 1}}, tax)
    assert noted.note == ("Note. Second reader, over the whole exclusion log: abstract screen 3 checked, 2 confirmed; full "
                          "text 1 checked, 1 confirmed (exclusions a screening audit re-read at each stage, and those the "
                          "reader also excluded or adjudication kept excluded).")
    assert noted.frame is table.frame and second_reader_note(table, {}, tax) is table


def test_an_author_is_shown_as_the_site_shows_it_in_the_feed_and_the_exclusion_log():
    """An organisation with a comma, a name with a Jr part, a name in Han characters: the feed and the exclusion
    log's first author read them as the site does (before, the name was cut at its first comma)."""
    from masrl.analyses.stats import _authors_short
    from masrl.render.site.feed import _full_name

    assert [_full_name(a) for a in ("{Agents and Tools Lab, Inc.}", "Smith, Jr., John", "李, 小龙", "Lovelace, Ada")] == [
        "Agents and Tools Lab, Inc.", "John Smith Jr.", "李 小龙", "Ada Lovelace"]
    assert _authors_short(["{Agents and Tools Lab, Inc.}", "Lovelace, Ada"]) == "Agents and Tools Lab, Inc. et al."
    assert _authors_short(["Smith, Jr., John"]) == "Smith"
