"""The rules of the taxonomy and of the releases, called on small corpora without reading a tree:
cross-references inside the taxonomy (crosstabs, conditions, implied values, representatives),
release order and dates (a bound reached exactly passes), digests, and the exact messages."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from masrl.core import clock
from masrl.checks import releases as rchecks
from masrl.checks import taxonomy as tchecks
from masrl.checks.collector import Checker
from masrl.corpus.load import Corpus, read_taxonomy
from masrl.corpus.releases import content_digest

TODAY = clock.today().isoformat()


@pytest.fixture(scope="module")
def taxonomy(published_tree) -> dict:
    """The bundled vocabulary (the code's own example of a valid one); each test injects its
    own mistakes into a copy."""
    return read_taxonomy(published_tree)


def found(rule, tax: dict, *args) -> list[tuple[str | None, str]]:
    c = Checker(Corpus(taxonomy=tax))
    rule(c, *args)
    return [(p.field, p.message) for p in c.problems]


# ------------------------------------------------------------------------------- the taxonomy
def test_the_bundled_taxonomy_passes_every_rule(taxonomy):
    for rule in (tchecks.crosstabs, tchecks.identifier_schemes, tchecks.year_minimum, tchecks.conditions,
                 tchecks.value_keys, tchecks.gap_declarations, tchecks.derived_names, tchecks.value_codes,
                 tchecks.survey_links):
        assert found(rule, taxonomy) == [], rule.__name__
    assert tchecks.format_version(Checker(Corpus(taxonomy=taxonomy)))


def test_crosstab_cross_references(taxonomy):
    tax = copy.deepcopy(taxonomy)
    first = tax["crosstabs"][0]
    excluded = next(n for n, f in tax["fields"].items() if f.get("applies_to") == "excluded")
    tax["crosstabs"] += [["reward_typo", "category"], ["category", "category"], list(first), ["category", excluded]]
    n = len(taxonomy["crosstabs"])
    assert found(tchecks.crosstabs, tax) == [
        (f"crosstabs[{n}]", "crosstab names unknown field 'reward_typo' (did you mean 'reward_type'?)"),
        (f"crosstabs[{n + 1}]", "crosstab [category, category] crosses a field with itself; its count table already has every value"),
        (f"crosstabs[{n + 2}]", f"crosstab [{first[0]}, {first[1]}] is listed twice"),
        (f"crosstabs[{n + 3}]", f"crosstab [category, {excluded}] mixes a field of retained records with one of excluded records"),
    ]


def test_conditions_name_real_fields_and_values(taxonomy):
    tax = copy.deepcopy(taxonomy)
    fields = tax["fields"]
    fields["domain"]["required_when"] = {"nofield": ["x"], "category": ["rl_method", "nocat"]}
    fields["verified"]["na_iff"] = {"category": "nocat2"}
    fields["category"]["values"]["benchmark"]["implies"] = {"inclusion_criterion": "I9", "category": "survey", "stage": "x"}
    allowed = ", ".join(fields["inclusion_criterion"]["values"])
    assert found(tchecks.conditions, tax) == [
        ("fields.category.values.benchmark.implies", f"'I9' is not a value of inclusion_criterion; allowed: {allowed}"),
        ("fields.category.values.benchmark.implies", "implies names 'category', which is no other field of retained records"),
        ("fields.category.values.benchmark.implies", "implies names 'stage', which is no other field of retained records"),
        ("fields.verified.na_iff", "'nocat2' is not a value of category"),
        ("fields.verified.na_iff", "na_iff says when the field is not applicable: declare not_applicable (the code) and give "
                                   "the field that value"),
        ("fields.domain.required_when", "names unknown field 'nofield'"),
        ("fields.domain.required_when", "'nocat' is not a value of category"),
    ]


def test_a_condition_or_an_implication_naming_a_list_field_is_refused(taxonomy):
    """A list field holds no one value to compare: a required_when or na_iff over it, an na_iff on it and a value
    implying one of it could never be kept by a record (valid records had been refused): named in the taxonomy."""
    tax = copy.deepcopy(taxonomy)
    fields = tax["fields"]
    fields["domain"]["required_when"] = {"subdecisions": ["O1"]}
    fields["verified"]["na_iff"] = {"subdecisions": "O1"}
    fields["eval_measures"]["na_iff"] = {"category": "survey"}
    fields["category"]["values"]["benchmark"]["implies"] = {"subdecisions": "O1"}
    assert found(tchecks.conditions, tax) == [
        ("fields.category.values.benchmark.implies", "implies names 'subdecisions', a list field; a value implies the "
                                                     "value of a single-valued field"),
        ("fields.verified.na_iff", "names 'subdecisions', a list field; na_iff names single-valued fields"),
        ("fields.verified.na_iff", "na_iff says when the field is not applicable: declare not_applicable (the code) and give "
                                   "the field that value"),
        ("fields.domain.required_when", "names 'subdecisions', a list field; required_when names single-valued fields"),
        ("fields.eval_measures.na_iff", "a list field has no na_iff (its not-applicable value would sit in a list); give "
                                        "it to a single-valued field"),
    ]


def test_implies_to_an_unknown_field(taxonomy):
    tax = copy.deepcopy(taxonomy)
    tax["fields"]["category"]["values"]["benchmark"]["implies"] = {"nofield": "I2"}
    assert found(tchecks.conditions, tax) == [
        ("fields.category.values.benchmark.implies", "implies names 'nofield', which is no other field of retained records")]


def test_na_iff_needs_the_not_applicable_code(taxonomy):
    tax = copy.deepcopy(taxonomy)
    del tax["not_applicable"]
    names = [n for n, f in taxonomy["fields"].items() if f.get("na_iff")]
    assert names
    assert found(tchecks.conditions, tax) == [
        (f"fields.{n}.na_iff", "na_iff says when the field is not applicable: declare not_applicable (the code) and give "
                               "the field that value") for n in names]


def test_value_keys_name_a_cut_text_and_unknown_keys(taxonomy):
    tax = copy.deepcopy(taxonomy)
    values = tax["fields"]["verified"]["values"]
    values["yes"] = {"definition": "verified against arXiv", "the venue": None, "or the vendor page": None, "source": "s"}
    values["no"] = {"colour": None, "lable": "x", "label": "unverified"}
    values["partial"] = {"label": "partly", "x1": None}
    assert found(tchecks.value_keys, tax) == [
        ("fields.verified.values.yes.definition",
         "the text was cut at a comma: YAML read 'verified against arXiv' and made 'the venue', 'or the vendor page' keys "
         "without a value; quote the whole text: definition: \"verified against arXiv, the venue, or the vendor page\""),
        ("fields.verified.values.partial.label",
         "the text was cut at a comma: YAML read 'partly' and made 'x1' a key without a value; quote the whole text: "
         "label: \"partly, x1\""),
        ("fields.verified.values.no.colour", "'colour' is a key without a value; allowed: " + ", ".join(_value_keys())
         + " (a field adds its own in value_attributes)"),
        ("fields.verified.values.no.lable", "'lable' is an unknown key; allowed: " + ", ".join(_value_keys())
         + " (a field adds its own in value_attributes) (did you mean 'label'?)"),
    ]


def _value_keys():
    from masrl.corpus.schema import VALUE_KEYS
    return VALUE_KEYS


def test_value_attributes_extend_the_allowed_keys(taxonomy):
    tax = copy.deepcopy(taxonomy)
    tax["fields"]["verified"]["value_attributes"] = ["bracket", 3]
    tax["fields"]["verified"]["values"]["yes"]["bracket"] = "b"
    tax["fields"]["verified"]["values"]["no"]["bracket"] = None  # an attribute may be empty
    assert found(tchecks.value_keys, tax) == []
    tax["fields"]["verified"]["values"]["no"]["3"] = "x"
    assert [f for f, _ in found(tchecks.value_keys, tax)] == ["fields.verified.values.no.3"]


def test_editorial_keys_are_retained_records(taxonomy):
    tax = copy.deepcopy(taxonomy)
    tax["fields"]["subdecisions"]["values"]["O5"]["anchors"] = ["puppeter", "c3"]
    tax["fields"]["orchestration_form"]["values"]["swarm"]["representatives"] = ["zzz"]
    table = next(i for i, t in enumerate(tax["tables"]) if t.get("kind") == "families")
    family = next(iter(tax["tables"][table]["families"]))
    tax["tables"][table]["families"][family]["representatives"] = ["c3", "fam-missing"]
    keys = {"puppeteer", "c3", "kimi-k2-5"}
    problems = found(tchecks.editorial_keys, tax, keys)
    assert problems[0] == (f"tables[{table}].families.{family}.representatives",
                           "names record 'fam-missing', which is not a retained record")
    assert ("fields.subdecisions.values.O5.anchors", "names record 'puppeter', which is not a retained record (did you mean "
            "'puppeteer'?)") in problems
    assert ("fields.orchestration_form.values.swarm.representatives", "names record 'zzz', which is not a retained record") in problems
    assert not any("'c3'" in m or "'kimi-k2-5'" in m for _, m in problems)


def test_identifier_schemes_patterns_and_resolvers(taxonomy):
    tax = copy.deepcopy(taxonomy)
    tax["identifier_schemes"] = {"arxiv": {}, "mine": {"pattern": "[a-z", "resolver": "https://x.org/{id}/{other}"},
                                 "nopat": {"resolver": "https://x.org/"}, "ok": {"pattern": "x+", "resolver": "https://x.org/{id}"},
                                 "idx": {"pattern": "x", "resolver": "https://x.org/{0}{id}"}}
    problems = found(tchecks.identifier_schemes, tax)
    assert problems[0] == ("identifier_schemes.mine.pattern", problems[0][1])
    assert problems[0][1].startswith("not a valid regular expression: ")
    assert problems[1:] == [
        ("identifier_schemes.mine.resolver", "'https://x.org/{id}/{other}' must be a URL with the placeholder {id} and no other braces"),
        ("identifier_schemes.nopat", "masrl does not know the scheme 'nopat': give its pattern (a regular expression of its ids)"),
        ("identifier_schemes.nopat.resolver", "'https://x.org/' must be a URL with the placeholder {id} and no other braces"),
        ("identifier_schemes.idx.resolver", "'https://x.org/{0}{id}' must be a URL with the placeholder {id} and no other braces"),
    ]


def test_year_minimum_this_year_passes_next_year_does_not(taxonomy):
    tax = copy.deepcopy(taxonomy)
    year = clock.today().year
    tax["year_minimum"] = year
    assert found(tchecks.year_minimum, tax) == []
    tax["year_minimum"] = year + 1
    assert found(tchecks.year_minimum, tax) == [("year_minimum", f"{year + 1} is after this year; no record could be valid")]


def test_format_version_messages(taxonomy):
    from masrl.corpus.migrate import FORMAT
    for value, message in ((FORMAT + 1, f"format {FORMAT + 1} is not one masrl reads; this masrl reads format {FORMAT}"),
                           ("two", f"must be an integer, the format of the file ({FORMAT})")):
        tax = {**taxonomy, "format_version": value}
        c = Checker(Corpus(taxonomy=tax))
        assert tchecks.format_version(c) is False
        assert [(p.field, p.message) for p in c.problems] == [("format_version", message)]


# ------------------------------------------------------------------------------- the releases
def _snapshot(name="v1", date="2026-05-04", retained=None, excluded=None) -> dict:
    tax = {"fields": {"method": {"applies_to": "retained", "values": {"a": {}, "b": {}}},
                      "stage": {"applies_to": "excluded", "values": {"title": {}}}}}
    return {"format_version": 1, "release": name, "date": date, "taxonomy": tax,
            "retained": retained if retained is not None else {"k1": {"key": "k1", "year": 2026, "method": "a"}},
            "excluded": excluded if excluded is not None else {"E1": {"record_id": "E1", "stage": "title"}}}


def _entry(name, date, cutoff=None, snap=None, **kw) -> dict:
    out = {"name": name, "date": date, "search_cutoff": cutoff or date, "title": f"release {name}"}
    if snap is not None:
        out["content_sha256"] = content_digest(snap)
    return {**out, **kw}


def run_releases(releases, snapshots, retained=None, excluded=None) -> tuple[dict, list[str]]:
    if isinstance(releases, dict):
        releases = {"format_version": 1, **releases}
    corpus = Corpus(releases=releases, snapshots=snapshots, retained=retained or {}, excluded=excluded or {})
    c = Checker(corpus)
    valid = rchecks.check_releases(c)
    return valid, [f"{p.file}: {p.field}: {p.message}" if p.field else f"{p.file}: {p.message}" for p in c.problems]


def test_valid_releases_on_the_same_day_pass():
    one, two = _snapshot("v1", "2026-05-04"), _snapshot("v2", "2026-05-04")
    valid, problems = run_releases({"releases": [_entry("v1", "2026-05-04", snap=one), _entry("v2", "2026-05-04", snap=two)]},
                                   {"corpus/releases/v1.yaml": one, "corpus/releases/v2.yaml": two})
    assert problems == []
    assert sorted(valid) == ["v1", "v2"] and valid["v2"].retained == {"k1": {"key": "k1", "year": 2026, "method": "a"}}


def test_release_order_reserved_names_and_cutoffs():
    snaps = {f"corpus/releases/{n}.yaml": _snapshot(n, d) for n, d in (("v1", "2026-05-04"), ("v2", "2026-05-01"),
                                                                      ("pool", "2026-06-01"))}
    data = {"releases": [_entry("v1", "2026-05-04", "2026-05-04"), _entry("v2", "2026-05-01", "2026-05-02"),
                         _entry("pool", "2026-06-01", "2026-04-01"), _entry("v1", "2026-06-02")]}
    valid, problems = run_releases(data, snaps)
    assert problems == [
        "corpus/releases.yaml: releases[1].date: 2026-05-01 is before the previous release v1 (2026-05-04); list releases in date order",
        "corpus/releases.yaml: releases[1].search_cutoff: 2026-05-02 is after the release date 2026-05-01",
        "corpus/releases.yaml: releases[2].name: 'pool' is reserved (it names another population); choose e.g. v2",
        "corpus/releases.yaml: releases[2].search_cutoff: 2026-04-01 is before the search cutoff of the previous release v2 (2026-05-02)",
        "corpus/releases.yaml: releases[3].name: release 'v1' is listed twice",
        "corpus/releases.yaml: releases[3].date: '2026-06-02', but the frozen snapshot corpus/releases/v1.yaml says "
        "'2026-05-04': a release's date never changes (its reports state it)",
    ]
    assert sorted(valid) == ["pool", "v1", "v2"]


def test_an_edited_snapshot_is_refused_by_its_digest():
    snap = _snapshot()
    entry = _entry("v1", "2026-05-04", snap=snap)
    edited = copy.deepcopy(snap)
    edited["retained"]["k1"]["method"] = "b"
    valid, problems = run_releases({"releases": [entry]}, {"corpus/releases/v1.yaml": edited})
    old, new = entry["content_sha256"][:12], content_digest(edited)[:12]
    assert problems == [f"corpus/releases/v1.yaml: the frozen snapshot of release v1 was edited: its content no longer has the digest "
                        f"corpus/releases.yaml records ({old}…, now {new}…). A release never changes: restore it "
                        "(git checkout -- corpus/releases/v1.yaml) and edit the records instead"]
    assert valid == {}


def test_snapshot_records_carry_what_reports_need():
    snap = _snapshot(retained={"k1": {"key": "k2", "year": "2026", "method": "c"}, "k3": {"key": "k3", "year": 2026,
                                                                                     "method": ["a"]}},
                     excluded={"E1": {"record_id": "E1"}})
    valid, problems = run_releases({"releases": [_entry("v1", "2026-05-04")]}, {"corpus/releases/v1.yaml": snap})
    assert problems == [
        "corpus/releases/v1.yaml: retained.k1.key: the record is filed under 'k1' but its key is 'k2'",
        "corpus/releases/v1.yaml: retained.k1.year: a frozen retained record needs its year (an integer)",
        "corpus/releases/v1.yaml: retained.k1.method: 'c' is not in the release's vocabulary; allowed: a, b",
        "corpus/releases/v1.yaml: retained.k3.method: ['a'] is not in the release's vocabulary; allowed: a, b",
        "corpus/releases/v1.yaml: excluded.E1.stage: missing in the frozen record",
    ]
    _, problems = run_releases({"releases": [_entry("v1", "2026-05-04")]}, {})
    assert problems == ["corpus/releases.yaml: releases[0].name: release v1 has no snapshot corpus/releases/v1.yaml"]
    assert valid == {}


def test_a_snapshot_must_match_its_file_and_be_listed():
    snaps = {"corpus/releases/v2.yaml": _snapshot("v1"), "corpus/releases/v3.yaml": _snapshot("v3")}
    valid, problems = run_releases({"releases": []}, snaps)
    assert problems == [
        "corpus/releases/v2.yaml: release: 'v1' does not match the file name; a snapshot of release v1 is corpus/releases/v1.yaml",
        "corpus/releases/v3.yaml: release v3 is not listed in corpus/releases.yaml: list it there or remove the snapshot",
    ]
    _, problems = run_releases(None, {"corpus/releases/v3.yaml": _snapshot("v3")})
    assert problems == ["corpus/releases/v3.yaml: a snapshot without corpus/releases.yaml: list its release there (or remove the file)"]


def test_an_empty_frozen_vocabulary_is_refused():
    snap = _snapshot()
    snap["taxonomy"] = {"fields": {}}
    _, problems = run_releases({"releases": [_entry("v1", "2026-05-04")]}, {"corpus/releases/v1.yaml": snap})
    assert "corpus/releases/v1.yaml: taxonomy: the frozen vocabulary has no fields" in problems


def test_dates_added_on_the_release_day_pass_a_day_later_does_not():
    snap = _snapshot(excluded={"E1": {"record_id": "E1", "stage": "title"}})
    retained = {"corpus/papers/a0.yaml": {"key": "a0"}, "corpus/papers/a1.yaml": {"key": "a1", "date_added": "2026-5-4"},
                "corpus/papers/k1.yaml": {"key": "k1", "date_added": "2026-05-04"},
                "corpus/papers/k9.yaml": {"key": "k9", "date_added": "2999-01-01"}}
    excluded = {"exclusions/E1.yaml": {"record_id": "E1", "date_added": "2026-05-05"}}
    _, problems = run_releases({"releases": [_entry("v1", "2026-05-04", snap=snap)]}, {"corpus/releases/v1.yaml": snap},
                               retained, excluded)
    assert problems == [
        "corpus/papers/k9.yaml: date_added: 2999-01-01 is in the future (today is " + TODAY + ")",
        "exclusions/E1.yaml: date_added: 2026-05-05 is after 2026-05-04, the date of the first release that holds this record",
    ]


def test_dates_added_are_judged_against_the_first_release_that_holds_the_record():
    one, two = _snapshot("v1", "2026-05-04"), _snapshot("v2", "2026-06-01")
    retained = {"corpus/papers/k1.yaml": {"key": "k1", "date_added": "2026-05-10"}}
    _, problems = run_releases({"releases": [_entry("v1", "2026-05-04", snap=one), _entry("v2", "2026-06-01", snap=two)]},
                               {"corpus/releases/v1.yaml": one, "corpus/releases/v2.yaml": two}, retained)
    assert problems == ["corpus/papers/k1.yaml: date_added: 2026-05-10 is after 2026-05-04, the date of the first release that "
                        "holds this record"]


def _errata_run(errata, snap=None):
    snap = snap or _snapshot()
    snap["taxonomy"]["fields"]["method"]["values"]["a"] = {"definition": "cut (x", "y)": None, "source": "s"}
    data = {"format_version": 1, "releases": [_entry("v1", "2026-05-04", snap=snap)], "errata": errata}
    corpus = Corpus(releases=data, snapshots={"corpus/releases/v1.yaml": snap})
    c = Checker(corpus)
    rchecks.check_errata(c, rchecks.check_releases(c))
    assert {p.file for p in c.problems} <= {"corpus/releases.yaml"}
    return [f"{p.field}: {p.message}" for p in c.problems]


def _err(date="2026-05-04", release="v1", **correction):
    c = {"field": "method", "value": "a", "key": "definition", "was": "cut (x", "now": "cut (x, y)", **correction}
    return {"release": release, "date": date, "reason": "cut", "corrections": [c]}


def test_an_erratum_on_the_release_day_with_the_right_text_passes():
    assert _errata_run([_err(drop=["y)"])]) == []
    assert _errata_run([_err(date=TODAY)]) == []


@pytest.mark.parametrize("erratum, message", [
    (_err(date="2026-05-03"), "errata[0].date: 2026-05-03 is before the release date of v1 (2026-05-04)"),
    (_err(date="2999-01-01"), f"errata[0].date: 2999-01-01 is in the future (today is {TODAY})"),
    (_err(release="v9"), "errata[0].release: 'v9' is not a release with a valid snapshot (releases: v1)"),
    (_err(was="other"), "errata[0].corrections[0].was: the snapshot of v1 holds 'cut (x' at method: a (definition), not 'other'; "
                        "an erratum states the text it replaces"),
    (_err(now="cut (x"), "errata[0].corrections[0].now: is the text the snapshot holds; an erratum changes it"),
    (_err(now="two\nlines"), "errata[0].corrections[0].now: must be one line of printable text, without leading or trailing spaces"),
    (_err(now=" padded"), "errata[0].corrections[0].now: must be one line of printable text, without leading or trailing spaces"),
    (_err(field="nofield"), "errata[0].corrections[0].field: 'nofield' is not a field of release v1's vocabulary"),
    (_err(value="c"), "errata[0].corrections[0].value: 'c' is not a value of method in release v1's vocabulary"),
    (_err(drop=["zz"]), "errata[0].corrections[0].drop: 'zz' is not a key at method: a"),
    (_err(drop=["source"]), "errata[0].corrections[0].drop: 'source' holds a value; an erratum drops only keys without one "
                            "(the rest of a text YAML cut at a comma)"),
])
def test_erratum_messages(erratum, message):
    assert _errata_run([erratum]) == [message]


def test_a_second_erratum_states_the_text_the_first_left():
    second = _err(date="2026-06-01", was="cut (x, y)", now="cut (x, y, z)")
    assert _errata_run([_err(), second]) == []
    assert _errata_run([_err(), _err(date="2026-06-01")]) == [  # the snapshot holds 'cut (x': the first erratum changed it
        "errata[1].corrections[0].was: errata[0] made the text at method: a (definition) of release v1 read 'cut (x, y)', "
        "not 'cut (x'; an erratum states the text it replaces, as the errata before it leave it"]


# ---------------------------------------------------------------------------- a problem's one line
@pytest.mark.parametrize("message, line", [
    ("plain text, é and 漢字", "corpus/papers/c3.yaml:4: title: plain text, é and 漢字"),
    ("two\nlines", "corpus/papers/c3.yaml:4: title: two\\nlines"),
    ("a\u2028b\ttab\x00", "corpus/papers/c3.yaml:4: title: a\\u2028b\\ttab\\x00"),
])
def test_a_problem_is_one_printable_line(message, line):
    from masrl.core.errors import Problem

    assert str(Problem("corpus/papers/c3.yaml", 4, "title", message)) == line


@settings(max_examples=examples(200))
@given(st.text(), st.one_of(st.none(), st.text()), st.one_of(st.none(), st.integers(1, 10**6)))
def test_a_problem_of_any_text_is_each_character_printable_or_escaped(message, field, line):
    from masrl.core.errors import Problem

    where = "f.yaml" if line is None else f"f.yaml:{line}"
    text = f"{where}: {field}: {message}" if field else f"{where}: {message}"
    escaped = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)
    shown = str(Problem("f.yaml", line, field, message))
    assert shown == escaped and shown.isprintable()


def test_a_value_code_is_no_placeholder_and_is_written_composed(taxonomy):
    """'untagged' is masrl's word for a field not tagged yet; a decomposed 'café' would be a twin of the composed one."""
    tax = copy.deepcopy(taxonomy)
    values = tax["fields"]["verified"]["values"]
    values["untagged"] = {"label": "not known"}
    values["cafe\u0301"] = {"label": "b"}
    values["caf\u00e9"] = {"label": "a"}  # composed: fine
    assert found(tchecks.value_codes, tax) == [
        ("fields.verified.values.untagged", "'untagged' is masrl's placeholder for a field not tagged yet, so no value's "
                                            "code; name this value otherwise (e.g. unknown)"),
        ("fields.verified.values.cafe\u0301", "'cafe\u0301' is written decomposed ('cafe\\u0301': a letter and a combining "
                                              "mark); write it composed (NFC: 'caf\\xe9'), as a keyboard does, so that "
                                              "records that write it the usual way match it")]


@pytest.mark.parametrize("link", ["javascript:alert(1)", "not a url", "ftp://example.org/x"])
def test_the_survey_links_are_http_urls(taxonomy, link):
    tax = copy.deepcopy(taxonomy)
    tax["survey"] = {**tax["survey"], "link": link, "site_url": "https://example.org/survey/"}
    assert found(tchecks.survey_links, tax) == [
        ("survey.link", f"{link!r} is not an http(s) URL (it must start with http:// or https://)")]


@pytest.mark.parametrize("site, arxiv, expected", [
    ("https://you.github.io/s/index.html?v=1#top", "2605.02801", [
        ("survey.site_url", "'https://you.github.io/s/index.html?v=1#top' has a query ('?') or a fragment ('#'): site_url "
                            "is the address of the folder the catalogue is published in, under which its index.html and "
                            "feed.xml are found, such as https://you.github.io/survey/")]),
    ("https://you.github.io/s/", "see below #1 <x>", [
        ("survey.arxiv", "'see below #1 <x>': not an arXiv id: YYMM.NNNNN (from 2015), YYMM.NNNN (April 2007 to 2014) or "
                         "archive/YYMMNNN (before April 2007, such as cs/0506042), with an optional version vN; it is the "
                         "survey's own arXiv id (such as 2605.02801): leave it out when the survey is not on arXiv")]),
    ("https://you.github.io/s/", "2605.02801v2", []),
])
def test_the_site_is_a_folder_and_the_arxiv_id_one(taxonomy, site, arxiv, expected):
    """The feed's own address and its ids are made of these: a query, a fragment or free text would break them."""
    tax = copy.deepcopy(taxonomy)
    tax["survey"] = {**tax["survey"], "site_url": site, "arxiv": arxiv}
    assert found(tchecks.survey_links, tax) == expected


def test_two_values_of_one_field_have_two_labels(taxonomy):
    """A figure, a table and the site show a value by its label (its code without one)."""
    tax = copy.deepcopy(taxonomy)
    values = tax["fields"]["verified"]["values"]
    first = next(iter(values))
    label = values[first].get("label", first)
    values["twin"] = {"label": f" {label} "}
    values[label] = {"definition": "a value whose code is the other's label"}
    assert found(tchecks.value_labels, tax) == [
        ("fields.verified.values.twin.label", f"the label ' {label} ' is also {first!r}'s: tables, figures and the site "
                                              "show a value by its label, so give each value of the field its own"),
        (f"fields.verified.values.{label}", f"the label {label!r} is also {first!r}'s: tables, figures and the site "
                                            "show a value by its label, so give each value of the field its own")]


def test_a_name_or_code_with_an_invisible_character_is_refused_where_it_is(taxonomy):
    from masrl.checks import portable

    tax = copy.deepcopy(taxonomy)
    tax["fields"]["verified"]["values"]["lea\u200brned"] = {"label": "x"}
    assert found(portable.taxonomy_text, tax) == [
        ("fields.verified.values.lea\u200brned", "the name 'lea\\u200brned' contains a character that is invisible or "
                                                 "changes how the text shows (U+200B ZERO WIDTH SPACE, zero-width); "
                                                 "remove it")]


def test_a_named_gaps_selection_and_the_skip_lists_name_the_taxonomys_fields_and_values(taxonomy):
    """The gap analysis publishes the counts of its named gaps: a selection's value is checked as a claim's filter
    (it had counted 0 records for a misspelt value), and the fields and values it never counts are the taxonomy's."""
    tax = copy.deepcopy(taxonomy)
    plan = tax["gap_analysis"]
    field, cond = next(iter(plan["named"][0]["selections"][0]["where"].items()))
    plan["named"][0]["selections"][0]["where"][field] = "mesage"
    plan["skip_fields"] = [*plan["skip_fields"], "bogusfield"]
    plan["skip_values"] = [*plan["skip_values"], "bogusvalue"]
    pairs = found(tchecks.gap_declarations, tax)
    said = dict(pairs)
    assert len(pairs) == 3, pairs
    assert said[f"gap_analysis.named[0].selections[0].where.{field}"].startswith(f"'mesage' is not a value of {field}; allowed: ")
    assert said[f"gap_analysis.skip_fields[{len(plan['skip_fields']) - 1}]"] == "'bogusfield' is not a field of the taxonomy"
    assert said[f"gap_analysis.skip_values[{len(plan['skip_values']) - 1}]"] == \
        "'bogusvalue' is not a value of any field of the taxonomy"


def test_a_list_holding_the_not_applicable_value_beside_others_is_refused(taxonomy):
    """``[O1, NA]``: NA says no value applies, so the record cannot also carry O1 (it had been counted under both)."""
    from masrl.checks import records

    tax = copy.deepcopy(taxonomy)
    tax["fields"]["subdecisions"]["values"]["NA"] = {"label": "not applicable", "definition": "d", "source": "s"}
    assert found(records.cross_fields, tax, "corpus/papers/x.yaml", {"subdecisions": ["O1", "NA"]}, "retained") == [
        ("subdecisions", "lists 'NA' beside other values (O1, NA): 'NA' says no value applies; give ['NA'] alone, or the "
                         "values without it")]
    assert found(records.cross_fields, tax, "corpus/papers/x.yaml", {"subdecisions": ["NA"]}, "retained") == []
    assert found(records.cross_fields, tax, "corpus/papers/x.yaml", {"subdecisions": ["O1", "O2"]}, "retained") == []
