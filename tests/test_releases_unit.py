"""Releases, populations and errata as pure functions, pinned exactly: which end of the list is
the latest, the next free name, the bytes the writer freezes (read back by the strict reader),
counts that take exclusions as well as retained records, and the clause reports print."""

from __future__ import annotations

import hashlib

import pytest

from masrl.core import clock
from masrl.corpus import errata as er
from masrl.corpus import population as pop
from masrl.corpus import releases as rel
from masrl.corpus.load import Corpus
from masrl.corpus.yamlio import parse


def _release(name="v1", date="2026-05-04", **kw) -> rel.Release:
    return rel.Release(name, date, kw.pop("search_cutoff", date), kw.pop("title", f"title {name}"), **kw)


# ------------------------------------------------------------------------------------ releases
def test_latest_is_the_last_listed_release_not_the_first():
    one, two, three = _release("v1"), _release("v2", "2026-06-01"), _release("v3", "2026-07-01")
    assert rel.latest([one, two, three]) is three
    assert rel.latest([one]) is one
    assert rel.latest([]) is None


def test_next_name_follows_the_highest_number_whatever_the_order():
    assert rel.next_name([]) == "v1"
    assert rel.next_name([_release("v1")]) == "v2"
    assert rel.next_name([_release("v9"), _release("v10"), _release("v2")]) == "v11"
    # names that are not v<n> do not count, nor do v<n> with a suffix
    assert rel.next_name([_release("draft"), _release("v3a"), _release("v0")]) == "v1"
    # without a v<n>: the latest release's last number, raised (v1 would come before 'v1.0' and '2026')
    assert rel.next_name([_release("v1.0", "2026-01-01"), _release("2026", "2026-02-01")]) == "2027"
    assert rel.next_name([_release("2026", "2026-01-01"), _release("v1.0", "2026-02-01")]) == "v1.1"
    assert rel.next_name([_release("v1.9", "2026-01-01"), _release("v1.10", "2026-02-01")]) == "v1.11"
    assert rel.next_name([_release("r09", "2026-01-01"), _release("r10", "2026-01-02")]) == "r11"
    assert rel.next_name([_release("draft")]) == "v1"
    assert rel.next_name([_release("2026-11-30", "2026-11-30")]) == clock.today_iso()  # a date name: today's date
    assert rel.next_name([_release("2099-12-31")]) == "v1"  # never 2099-12-32
    today = clock.today_iso()
    assert rel.next_name([_release("snap-2026-12-31", "2026-12-31")]) == f"snap-{today}"  # a date inside a name too
    assert rel.next_name([_release("r2026-02-28", "2026-02-28")]) == f"r{today}"  # never r2026-02-29
    assert rel.next_name([_release("r20261130", "2026-11-30")]) == f"r{today.replace('-', '')}"
    assert rel.next_name([_release("snap-2099-12-31")]) == "v1"
    y, m, d = today.split("-")
    for name, nxt in (("2026.11.30", f"{y}.{m}.{d}"), ("2026_11_30", f"{y}_{m}_{d}"), ("26-11-30", f"{y[2:]}-{m}-{d}"),
                      ("2026.12.31", f"{y}.{m}.{d}"), ("r2026-11", f"r{y}-{m}")):
        assert rel.next_name([_release(name, "2026-11-30")]) == nxt, name  # never 2026.12.32 or 2026.11.31
    assert rel.next_name([_release("v10.11")]) == "v10.12"  # a version, not a date
    for name, nxt in (("v10.20.30", "v10.20.31"), ("build-1234-56", "build-1234-57"), ("r12345678", "r12345679"),
                      ("rel-99.99.99", "rel-99.99.100")):
        assert rel.next_name([_release(name)]) == nxt, name  # numbers that are no day of the calendar
    assert rel.next_name([_release("2026-01-01-to-2026-06-30", "2026-06-30")]) == f"2026-01-01-to-{today}"


def test_release_paths_and_label():
    r = _release("v2", "2026-06-01")
    assert r.snapshot_path == "corpus/releases/v2.yaml"
    assert r.label == "v2 (2026-06-01)"


def test_releases_from_keeps_file_order_and_skips_malformed_entries():
    data = {"releases": [
        {"name": "v2", "date": "2026-06-01", "search_cutoff": "2026-05-30", "title": "second", "source": 7,
         "content_sha256": "ab", "notes": ["n1", 2]},
        {"name": "bad", "date": "2026-06-02", "search_cutoff": "2026-06-01"},  # no title
        {"name": "v1", "date": 20260504, "search_cutoff": "x", "title": "t"},  # date not a string
        "not a mapping",
        {"name": "v3", "date": "2026-07-01", "search_cutoff": "2026-07-01", "title": "third", "notes": "not a list"},
    ]}
    got = rel.releases_from(data)
    assert got == [rel.Release("v2", "2026-06-01", "2026-05-30", "second", "7", "ab", ("n1", "2")),
                   rel.Release("v3", "2026-07-01", "2026-07-01", "third", "", "", ())]
    assert rel.releases_from(None) == [] and rel.releases_from({"releases": "x"}) == [] and rel.releases_from([1]) == []


def test_snapshot_from_reads_only_mappings():
    assert rel.snapshot_from(None) is None
    assert rel.snapshot_from({"release": "v1"}) is None  # no taxonomy
    assert rel.snapshot_from({"release": 1, "taxonomy": {}}) is None
    snap = rel.snapshot_from({"release": "v1", "taxonomy": {"a": 1}, "retained": {"c1": {"key": "c1"}, 2: {"key": "2"}, "bad": 3},
                              "excluded": {"x1": {"record_id": "x1"}, "x2": "no"}, "identification": {"records": 5}})
    assert snap == rel.Snapshot("v1", {"a": 1}, {"c1": {"key": "c1"}, "2": {"key": "2"}}, {"x1": {"record_id": "x1"}}, {"records": 5})
    bare = rel.snapshot_from({"release": "v1", "taxonomy": {}, "retained": [1], "excluded": None, "identification": [2]})
    assert bare == rel.Snapshot("v1", {}, {}, {}, None)


def test_content_digest_is_sha256_of_canonical_json():
    data = {"b": "é", "a": [1, 2]}
    expected = hashlib.sha256('{"a":[1,2],"b":"é"}'.encode("utf-8")).hexdigest()
    assert rel.content_digest(data) == expected
    assert rel.content_digest({"a": [1, 2], "b": "é"}) == expected  # key order does not count
    assert rel.content_digest({"a": [1, 2], "b": "e"}) != expected  # a value does


def test_releases_bytes_round_trip_through_the_strict_reader():
    releases = [_release("v1", "2026-05-04", search_cutoff="2026-05-01", title="the survey", source="artifact",
                         content_sha256="f" * 64, notes=("one", "two")),
                _release("v2", "2026-06-01", title="2026.10")]  # a title YAML 1.1 would read as a float
    errata = [{"release": "v1", "date": "2026-12-02", "reason": "r", "corrections": []}]
    data = rel.releases_bytes(releases, errata)
    assert data.startswith(rel.RELEASES_HEADER.encode() + b"\n")
    doc, problems = parse(data, "corpus/releases.yaml")
    assert problems == []
    assert doc.value == {"format_version": 1, "releases": [
        {"name": "v1", "date": "2026-05-04", "search_cutoff": "2026-05-01", "title": "the survey", "source": "artifact",
         "content_sha256": "f" * 64, "notes": ["one", "two"]},
        {"name": "v2", "date": "2026-06-01", "search_cutoff": "2026-06-01", "title": "2026.10"}], "errata": errata}
    assert rel.releases_from(doc.value) == releases
    assert b"\nerrata:" not in rel.releases_bytes(releases)
    assert b"\nerrata:" not in rel.releases_bytes(releases, [])


def test_freeze_sorts_records_and_reads_back_exactly():
    r = _release("v2", "2026-06-01")
    retained = {"zz": {"key": "zz", "year": 2026, "arxiv": "2510.10"}, "aa": {"key": "aa", "year": 2025, "verified": "yes"}}
    excluded = {"x2": {"record_id": "x2"}, "x10": {"record_id": "x10"}}
    data = rel.freeze(r, {"fields": {}}, retained, excluded, {"records": 3})
    head = "# Frozen snapshot of release v2 (2026-06-01), written by `masrl release`.\n"
    assert data.startswith(head.encode())
    assert data.startswith(rel.SNAPSHOT_HEADER.format(name="v2", date="2026-06-01").encode() + b"\n")
    doc, problems = parse(data, "corpus/releases/v2.yaml")
    assert problems == []
    assert doc.value == {"format_version": 1, "release": "v2", "date": "2026-06-01", "search_cutoff": "2026-06-01",
                         "taxonomy": {"fields": {}},
                         "retained": {"aa": retained["aa"], "zz": retained["zz"]},
                         "excluded": {"x10": excluded["x10"], "x2": excluded["x2"]}, "identification": {"records": 3}}
    assert list(doc.value["retained"]) == ["aa", "zz"] and list(doc.value["excluded"]) == ["x10", "x2"]
    assert "identification" not in parse(rel.freeze(r, {}, {}, {}), "f")[0].value
    assert rel.snapshot_from(doc.value).retained["zz"]["arxiv"] == "2510.10"


# ---------------------------------------------------------------------------------- populations
def _pop(name="pool", retained=(), excluded=(), taxonomy=None, release=None) -> pop.Population:
    return pop.Population(name, name, taxonomy or {}, tuple(retained), tuple(excluded), release)


def test_population_keys_and_kind():
    p = _pop(retained=[{"key": "a"}, {"key": "b"}], excluded=[{"record_id": "x1"}])
    assert p.keys == frozenset({"a", "b"}) and p.record_ids == frozenset({"x1"})
    assert not p.is_release and _pop(release=_release()).is_release


def test_pending_counts_new_exclusions_as_well_as_new_retained_records():
    earlier = _pop("v1", [{"key": "a", "year": 1}, {"key": "gone"}], [{"record_id": "x1"}], {"fields": {"m": 1}})
    current = _pop("pool", [{"key": "a", "year": 2}, {"key": "new1"}, {"key": "new2"}],
                   [{"record_id": "x1"}, {"record_id": "x2"}], {"fields": {"m": 1}})
    p = pop.pending(current, earlier)
    assert p == pop.Pending(("new1", "new2"), ("x2",), ("gone",), ("a",), (), (("a", ("year",)),))
    assert p.count == 3
    assert bool(p)
    assert p.describe("release v1") == ("2 retained records and 1 excluded record added since release v1, 1 record dropped, "
                                        "1 record changed in the field year")


def test_pending_without_an_earlier_population_is_every_record():
    current = _pop(retained=[{"key": "b"}, {"key": "a"}], excluded=[{"record_id": "x1"}])
    p = pop.pending(current, None)
    assert p == pop.Pending(("a", "b"), ("x1",), (), (), (), ())
    assert p.count == 3


def test_pending_only_exclusions_is_not_empty():
    earlier = _pop("v1")
    current = _pop(excluded=[{"record_id": "x1"}])
    p = pop.pending(current, earlier)
    assert p.count == 1 and bool(p)
    assert p.describe("v1") == "0 retained records and 1 excluded record added since v1"


def test_identical_populations_say_so():
    a = _pop("v1", [{"key": "a"}], [{"record_id": "x"}], {"fields": {"f": {"values": {"a": {}}}}})
    p = pop.pending(_pop("pool", a.retained, a.excluded, a.taxonomy), a)
    assert not p and p.count == 0
    assert p.describe("release v1") == "identical to release v1"


@pytest.mark.parametrize("pending, text", [
    (pop.Pending(dropped=("a", "b")), "2 records dropped since v1"),
    (pop.Pending(changed=("a",), changed_fields=(("a", ("year",)),)), "1 record changed since v1 in the field year"),
    (pop.Pending(changed=("a", "b"), changed_fields=(("a", ("year", "venue")), ("b", ("method",)))),
     "2 records changed since v1 in the fields method, venue and year"),
    (pop.Pending(changed=("a",)), "1 record changed since v1"),
    (pop.Pending(vocabulary=("fields.method", "gap_analysis.combine", "gap_analysis.other", "survey")),
     "the vocabulary changed since v1 in fields.method, gap_analysis and survey"),
    (pop.Pending(dropped=("a",), vocabulary=("fields.m",)), "1 record dropped since v1, the vocabulary changed in fields.m"),
    (pop.Pending(retained=("a",), changed=("b",)), "1 retained record and 0 excluded records added since v1, 1 record changed"),
])
def test_describe_names_what_changed(pending, text):
    assert pending.describe("v1") == text


def test_counted_and_and():
    assert pop.counted(1, "record") == "1 record" and pop.counted(0, "record") == "0 records"
    assert pop.counted(1, "retained") == "1 retained record" and pop.counted(2, "excluded") == "2 excluded records"
    assert pop._and([]) == "" and pop._and(["a"]) == "a" and pop._and(["a", "b"]) == "a and b"
    assert pop._and(["a", "b", "c"]) == "a, b and c"


def test_vocabulary_changes_two_levels_deep_in_order():
    before = {"fields": {"m": 1, "gone": 2, "same": 3}, "survey": "a", "old": 1, "same": {"x": 1}}
    after = {"survey": "b", "fields": {"new": 0, "m": 2, "same": 3}, "same": {"x": 1}, "top": {"k": 1}}
    assert pop.vocabulary_changes(before, after) == ("survey", "fields.new", "fields.m", "fields.gone", "top", "old")
    assert pop.vocabulary_changes(after, after) == ()


def test_fields_changed_is_the_sorted_union():
    p = pop.Pending(changed=("a", "b"), changed_fields=(("a", ("year", "b")), ("b", ("a", "year"))))
    assert p.fields_changed == ("a", "b", "year")


# ------------------------------------------------------------------------------------- errata
TAX = {"fields": {"method": {"label": "Method", "values": {
    "role": {"definition": "rewards that differ by role (planner", "executor": None, "critic)": None, "source": "s"},
    "other": {"label": "Other"}}}}}


def _erratum(corrections, release="v1", date="2026-12-02") -> er.Erratum:
    return er.Erratum(release, date, "cut at a comma", tuple(corrections))


FIX = er.Correction("method", "role", "definition", "rewards that differ by role (planner",
                    "rewards that differ by role (planner, executor, critic)", ("executor", "critic)", "source", "absent"))


def test_corrected_replaces_the_text_and_drops_only_keys_without_a_value():
    out = er.corrected(TAX, [_erratum([FIX])], "v1")
    assert out["fields"]["method"]["values"]["role"] == {"definition": "rewards that differ by role (planner, executor, critic)",
                                                         "source": "s"}
    assert TAX["fields"]["method"]["values"]["role"]["executor"] is None  # the input is not changed
    assert er.corrected(TAX, [_erratum([FIX], release="v2")], "v1") == TAX  # another release's erratum


def test_corrected_skips_a_stale_or_foreign_correction():
    stale = er.Correction("method", "role", "definition", "other text", "new", ())
    label = er.Correction("method", None, "label", "Method", "Method (RL)", ())
    code = er.Correction("method", "other", "code", "Other", "x", ())
    nowhere = er.Correction("method", "missing", "label", "Other", "x", ())
    out = er.corrected(TAX, [_erratum([stale, label, code, nowhere])], "v1")
    assert out["fields"]["method"]["label"] == "Method (RL)"
    assert out["fields"]["method"]["values"] == TAX["fields"]["method"]["values"]


def test_corrections_apply_in_order():
    first = er.Correction("method", "other", "label", "Other", "Second", ())
    second = er.Correction("method", "other", "label", "Second", "Third", ())
    assert er.corrected(TAX, [_erratum([first]), _erratum([second])], "v1")["fields"]["method"]["values"]["other"]["label"] == "Third"
    assert er.corrected(TAX, [_erratum([second]), _erratum([first])], "v1")["fields"]["method"]["values"]["other"]["label"] == "Second"


def test_target_finds_field_or_value_mapping():
    assert er.target(TAX, er.Correction("method", None, "label", "", "")) is TAX["fields"]["method"]
    assert er.target(TAX, er.Correction("method", "other", "label", "", "")) is TAX["fields"]["method"]["values"]["other"]
    assert er.target(TAX, er.Correction("nope", None, "label", "", "")) is None
    assert er.target({"fields": {"m": {"values": {"v": "text"}}}}, er.Correction("m", "v", "label", "", "")) is None
    assert er.target({"fields": {"m": {"values": []}}}, er.Correction("m", "v", "label", "", "")) is None
    assert er.target({"fields": []}, er.Correction("m", None, "label", "", "")) is None
    assert er.target([], er.Correction("m", None, "label", "", "")) is None


def test_errata_from_and_items():
    data = {"errata": [
        {"release": "v1", "date": "2026-12-02", "reason": "why", "corrections": [
            {"field": "method", "value": 3, "key": "label", "was": "a", "now": "b", "drop": ["k", 1]},
            {"field": "method", "key": "definition", "was": "c", "now": "d", "drop": "not a list"},
            {"field": "method", "key": "label", "was": "a"},  # no now
            "not a mapping"]},
        {"release": "v1", "date": "2026-12-03"},  # no reason
        {"release": "v2", "date": "2026-12-04", "reason": "r", "corrections": "none"},
    ]}
    got = er.errata_from(data)
    assert got == [er.Erratum("v1", "2026-12-02", "why", (er.Correction("method", "3", "label", "a", "b", ("k", "1")),
                                                          er.Correction("method", None, "definition", "c", "d", ()))),
                   er.Erratum("v2", "2026-12-04", "r", ())]
    assert got[0].corrections[0].where == "method: 3 (label)" and got[0].corrections[1].where == "method (definition)"
    assert er.errata_items(got[:1]) == [{"release": "v1", "date": "2026-12-02", "reason": "why", "corrections": [
        {"where": "method: 3 (label)", "was": "a", "now": "b"}, {"where": "method (definition)", "was": "c", "now": "d"}]}]
    assert er.errata_from(None) == [] and er.errata_from({"errata": {}}) == []


def test_pool_sorts_records_by_key_and_id():
    corpus = Corpus(taxonomy={"t": 1}, retained={"corpus/papers/b.yaml": {"key": "b"}, "corpus/papers/a.yaml": {"key": "a"}},
                    excluded={"exclusions/E2.yaml": {"record_id": "E2"}, "exclusions/E1.yaml": {"record_id": "E1"}})
    p = pop.pool(corpus)
    assert p == pop.Population("pool", "current pool", {"t": 1}, ({"key": "a"}, {"key": "b"}),
                               ({"record_id": "E1"}, {"record_id": "E2"}))


def test_releases_in_release_order_skip_a_missing_snapshot_and_apply_their_errata():
    tax = {"fields": {"m": {"label": "M", "values": {"a": {"label": "cut (x", "y)": None}}}}}
    snap = lambda name: {"release": name, "taxonomy": tax, "retained": {"z": {"key": "z"}, "b": {"key": "b"}},  # noqa: E731
                         "excluded": {"E2": {"record_id": "E2"}, "E1": {"record_id": "E1"}}, "identification": {"n": name}}
    listed = [{"name": n, "date": d, "search_cutoff": d, "title": n} for n, d in
              (("v1", "2026-05-04"), ("gone", "2026-05-05"), ("v2", "2026-06-01"))]
    errata = [{"release": "v2", "date": "2026-12-02", "reason": "r", "corrections": [
        {"field": "m", "value": "a", "key": "label", "was": "cut (x", "now": "cut (x, y)", "drop": ["y)"]}]}]
    corpus = Corpus(releases={"releases": listed, "errata": errata},
                    snapshots={"corpus/releases/v2.yaml": snap("v2"), "corpus/releases/v1.yaml": snap("v1"),
                               "corpus/releases/bad.yaml": {"release": 3}})
    assert sorted(pop.snapshots(corpus)) == ["v1", "v2"]
    got = pop.releases(corpus)
    assert [p.name for p in got] == ["v1", "v2"]
    one, two = got
    assert one.label == "release v1 (2026-05-04)" and one.release == rel.releases_from(corpus.releases)[0]
    assert one.retained == ({"key": "b"}, {"key": "z"}) and one.excluded == ({"record_id": "E1"}, {"record_id": "E2"})
    assert one.identification == {"n": "v1"} and one.errata == () and one.taxonomy == tax
    assert two.taxonomy == {"fields": {"m": {"label": "M", "values": {"a": {"label": "cut (x, y)"}}}}}
    assert two.errata == tuple(er.errata_from(corpus.releases))
    assert pop.latest_release(corpus).name == "v2"
    assert pop.latest_release(Corpus()) is None


def test_insert_keeping_adds_masrls_lines_beside_a_persons_and_refuses_what_is_not_an_insertion():
    from masrl.corpus.keepedit import insert_keeping

    before = "a: 1\nlist:\n  - x\nb: 2\n"
    after = "a: 1\nlist:\n  - x\n  - y\nb: 2\n"
    actual = "# mine\na: 1   # one\nlist:\n  - x\n# about b\nb: 2"
    assert insert_keeping(actual, before, after) == "# mine\na: 1   # one\nlist:\n  - x\n  - y\n# about b\nb: 2\n"
    assert insert_keeping(actual, before, before) == actual
    assert insert_keeping(actual, before, "a: 1\nlist:\n  - z\nb: 2\n") is None  # a replacement, not an insertion
    assert insert_keeping("a: 1\nlist:\n  -   x\nb: 2\n", before, after) is None  # the line before it, edited by hand
    assert insert_keeping(actual, before, "z: 0\n" + before) is None  # before the first line: no line to follow


def _state(round_id: str, until: str):
    from masrl.analyses.rounds import RoundState
    return RoundState(round_id, "2026-05-04", until, {"arXiv": 1}, 0, 1)


def test_a_release_cutoff_defaults_to_the_end_of_the_latest_round_window_and_never_passes_the_date():
    from argparse import Namespace

    from masrl.commands.release import _cutoff
    from masrl.core.errors import UserError

    v1 = rel.Release("v1", "2026-05-10", "2026-05-04", "First")
    rounds = [_state("2026-07-01", "2026-06-30"), _state("2026-08-01", "2026-07-31"), _state("2026-06-01", "2026-05-31")]
    args = Namespace(cutoff=None, date="2026-12-01")
    assert _cutoff(args, [v1], rounds) == (
        "2026-07-31", "the end of the window of round 2026-08-01, the latest update round since release v1")
    assert _cutoff(Namespace(cutoff=None, date="2026-07-15"), [v1], rounds)[0] == "2026-07-15"  # never after the date
    assert _cutoff(args, [v1], []) == ("2026-12-01", "the release date: no update round ran since release v1 (its cutoff: "
                                        "2026-05-04); if no search covered the days since, give that cutoff")  # said, with v1's
    assert _cutoff(args, [], [])[1] == "the release date: no update round ran since the start; if the search stopped earlier, give that day"
    assert _cutoff(Namespace(cutoff="2026-11-30", date="2026-12-01"), [v1], rounds) == ("2026-11-30", "")  # as given
    assert _cutoff(args, [], rounds)[1].endswith("the latest update round since the start")
    with pytest.raises(UserError) as refused:
        _cutoff(args, [rel.Release("v1", "2026-09-10", "2026-09-01", "First")], rounds)
    assert str(refused.value) == (
        "the update rounds since release v1 searched up to 2026-07-31 (round 2026-08-01), before its search cutoff "
        "2026-09-01: give the search cutoff of this release with --cutoff; nothing was written")
