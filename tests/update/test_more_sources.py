"""OpenReview, Semantic Scholar and citation searching as sources of masrl update search, each
against a local server answering in the source's real format (tests/update/servers.py), with
paging, rate limits and errors; and a whole round of a survey made with ``masrl init`` that finds,
through citations, a paper that no keyword query returns."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from masrl.review.update.protocol import Family, Searcher
from masrl.review.update.sources import SourceError
from servers import (ArxivServer, CrossrefServer, FakeClock, OpenReviewServer, Scripted, SemanticScholarServer,  # noqa: F401
                     clock, serve, small_survey)

ORCH = Family("orchestration", ("orchestrator", "orchestration", "delegation"), "orchestration",
              (("orchestrator", "orchestration", "delegation"),),
              {"semanticscholar": '"orchestrator" | "orchestration" | "delegation"'})
NOW = lambda: "2026-07-01T00:00:00Z"  # noqa: E731
WINDOW = ("2026-05-04", "2026-06-30")
VENUES = ["ICLR.cc/2026/Conference", "ICLR.cc/2026/Conference/Rejected_Submission"]


def openreview(url: str, venues=VENUES, **kwargs):
    from masrl.review.update.sources.openreview import OpenReviewSource

    fake = FakeClock()
    searcher = Searcher("openreview", "OpenReview", url, "MASRL_OPENREVIEW_API", "OpenReview", options={"venues": venues})
    return OpenReviewSource(searcher, clock=fake, sleep=fake.sleep, **kwargs)


def s2(url: str, **kwargs):
    from masrl.review.update.sources.semanticscholar import SemanticScholarSource

    fake = FakeClock()
    searcher = Searcher("semanticscholar", "Semantic Scholar", url, "MASRL_S2_API", "Semantic Scholar")
    return SemanticScholarSource(searcher, clock=fake, sleep=fake.sleep, **kwargs)


class Seeds:
    """A corpus stand-in: retained records with the ids citation searching starts from."""

    def __init__(self, **records):
        self.retained = {f"corpus/papers/{k}.yaml": {"key": k, "identifiers": ids} for k, ids in records.items()}


def citations(url: str, corpus, directions=None, **kwargs):
    from masrl.review.update.sources.citations import CitationSource

    fake = FakeClock()
    options = {"exclusion_family": "citation searching", **({"directions": directions} if directions else {})}
    searcher = Searcher("citations", "citation searching", url, "MASRL_S2_API", "Semantic Scholar", options=options)
    return CitationSource(searcher, corpus=corpus, clock=fake, sleep=fake.sleep, **kwargs)


def sheet(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


# ---------------------------------------------------------------- OpenReview

def test_openreview_pages_the_venues_notes_and_keeps_those_of_the_window_that_match(serve):
    served = serve(OpenReviewServer(page=2))
    source = openreview(f"{served.url}/notes", limit=2)
    run = source.search(ORCH, *WINDOW, NOW)
    assert [(f.identifier, f.venue, f.published) for f in run.found] == [
        ("openreview:OrchIclr01", "ICLR 2026 Poster", "2026-05-27"),
        ("openreview:RejIclr0004", "Submitted to ICLR 2026; rejected", "2026-05-28")]
    first = run.found[0]
    assert (first.title, first.authors, first.year) == (
        "Learning Whom to Call: An Orchestrator Trained with Team Rewards", ("Hopper, Grace", "Turing, Alan"), 2026)
    assert (run.total, run.returned, run.kept, run.not_matching, run.outside_window) == (
        4, 4, 2, 1, ["openreview:OldIclr0003 (2025-04-18)"])
    # 3 notes of the venue on 2 pages, read twice (the two readings hold the same notes), 1 rejected submission on 1 page
    assert (run.requests, run.pages) == (5, 5)
    # the second page from the last note received (it must still be there)
    assert [(p["content.venueid"], p["offset"], p["limit"]) for _, p in served.log] == [
        ("ICLR.cc/2026/Conference", "0", "2"), ("ICLR.cc/2026/Conference", "1", "2"),
        ("ICLR.cc/2026/Conference", "0", "2"), ("ICLR.cc/2026/Conference", "1", "2"),
        ("ICLR.cc/2026/Conference/Rejected_Submission", "0", "2")]
    assert source.session.sleeps == [1.0] * 4
    again = source.search(Family("other", ("attention",), "x", (("attention",),), {}), *WINDOW, NOW)
    assert (again.requests, [f.identifier for f in again.found], len(served.log)) == (0, ["openreview:PlainIclr02"], 5)


def test_a_venue_over_the_paging_bound_is_refused_at_its_first_page_or_counted_not_fetched(serve):
    served = serve(OpenReviewServer(page=2))
    with pytest.raises(SourceError) as err:
        openreview(f"{served.url}/notes", venues=VENUES[:1], limit=2, max_records=2).search(ORCH, *WINDOW, NOW)
    assert str(err.value).endswith("venue 'ICLR.cc/2026/Conference' has 3 notes, more than the paging bound of 2; raise "
                                   "--max-records or give --allow-incomplete")
    assert len(served.log) == 1  # the count is on the first page: nothing more fetched
    run = openreview(f"{served.url}/notes", venues=VENUES[:1], limit=2, max_records=2,
                     allow_incomplete=True).search(ORCH, *WINDOW, NOW)
    assert (run.total, run.returned, run.not_fetched, run.incomplete, len(served.log)) == (3, 2, 1, True, 2)
    assert run.stopped == "the paging bound of 2 notes per venue (--max-records)"


def test_without_a_count_a_venue_at_the_paging_bound_is_asked_whether_a_note_follows(serve):
    # the venue holds 3 notes: a bound of 3 fetches them all; a bound of 2 is reached with one more
    served = serve(OpenReviewServer(page=2, count=False))
    run = openreview(f"{served.url}/notes", venues=VENUES[:1], limit=2, max_records=3).search(ORCH, *WINDOW, NOW)
    assert (run.total, run.returned, run.not_fetched, run.incomplete, run.stopped) == (3, 3, 0, False, "")
    assert [(p["offset"], p["limit"]) for _, p in served.log] == [("0", "2"), ("1", "2"), ("2", "2")] * 2  # read twice
    with pytest.raises(SourceError) as err:
        openreview(f"{served.url}/notes", venues=VENUES[:1], limit=2, max_records=2).search(ORCH, *WINDOW, NOW)
    assert "has more notes than the paging bound of 2" in str(err.value)
    served.log.clear()
    run = openreview(f"{served.url}/notes", venues=VENUES[:1], limit=2, max_records=2,
                     allow_incomplete=True).search(ORCH, *WINDOW, NOW)
    assert (run.total, run.returned, run.not_fetched, run.incomplete, run.pages) == (3, 2, 1, True, 2)
    assert run.stopped == ("the paging bound of 2 notes per venue (--max-records); the OpenReview API gave no count, "
                           "so at least one more note")
    assert [(p["offset"], p["limit"]) for _, p in served.log] == [("0", "2"), ("1", "2")]
    # exactly as many notes as the bound: all of them, and no claim of more
    exact = serve(OpenReviewServer(page=3, count=False))
    run = openreview(f"{exact.url}/notes", venues=VENUES[:1], limit=3, max_records=3).search(ORCH, *WINDOW, NOW)
    assert (run.total, run.returned, run.not_fetched, run.incomplete) == (3, 3, 0, False)
    assert [(p["offset"], p["limit"]) for _, p in exact.log] == [("0", "3"), ("2", "2")]


BROKEN_OPENREVIEW = {
    "an HTML page": (b"<!DOCTYPE html><html></html>", "an HTML or XML page where the format has a JSON document"),
    "notes as a mapping": (b'{"notes": {"a": 1}, "count": 1}', "Expected `array`, got `object` - at `$.notes`"),
    "a title as a plain string (API v1 in v2)": (
        json.dumps({"notes": [{"id": "AbCdEf12", "content": {"title": "Orchestrators"}}], "count": 1}).encode(),
        "Expected `object | null`, got `str` - at `$.notes[0].content.title`"),
    "authors as numbers": (json.dumps({"notes": [{"id": "AbCdEf12", "content": {"authors": {"value": [42]}}}]}).encode(),
                           "Expected `str`, got `int` - at `$.notes[0].content.authors.value[0]`"),
    "count as a word": (b'{"notes": [], "count": "lots"}', "Expected `int | null`, got `str` - at `$.count`"),
    "a time that is not one": (json.dumps({"notes": [{"id": "AbCdEf12", "pdate": 10**17, "content": {
        "title": {"value": "An orchestrator"}}}], "count": 1}).encode(), "pdate: 100000000000000000 is not a time"),
    "a time in seconds": (json.dumps({"notes": [{"id": "AbCdEf12", "pdate": 1779500000, "content": {
        "title": {"value": "An orchestrator"}}}], "count": 1}).encode(),
        "pdate: 1779500000 is not a time in milliseconds of OpenReview's (as one it is 1970-01-21, before 2000: a time "
        "in seconds?)"),
    "more notes than the count": (json.dumps({"notes": [{"id": "AbCdEf12", "content": {}}, {"id": "AbCdEf13", "content": {}}],
                                              "count": 1}).encode(), "2 notes sent, but $.count says 1"),
    "two notes of one forum": (json.dumps({"notes": [{"id": "AAAAAAAAA1", "forum": "ForumXyz01", "content": {}},
                                                 {"id": "AAAAAAAAA2", "forum": "ForumXyz01", "content": {}}],
                                       "count": 2}).encode(),
                               "$.notes[1] (venue ICLR.cc/2026/Conference, offset 0): note AAAAAAAAA2 has the forum "
                               "'ForumXyz01' of note AAAAAAAAA1: each submission of a venue is its own forum, so one of "
                               "the two is no submission"),
    "an id that is not OpenReview's": (json.dumps({"notes": [{"id": "x/y", "content": {}}], "count": 1}).encode(),
                                       "'x/y' is not an OpenReview id"),
    "an id with a blank": (json.dumps({"notes": [{"id": "x y", "content": {}}], "count": 1}).encode(),
                           "the identifier 'x y' holds U+0020 SPACE (a blank); masrl keeps an identifier only as the "
                           "source sent it"),
    "an id with a hidden character": (json.dumps({"notes": [{"id": "Abc\u202e123", "content": {}}], "count": 1}).encode(),
                                      "the identifier 'Abc\\u202e123' holds U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional "
                                      "control); masrl keeps an identifier only as the source sent it"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_OPENREVIEW))
def test_a_broken_openreview_answer_is_refused_naming_the_source(serve, case):
    body, what = BROKEN_OPENREVIEW[case]
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    with pytest.raises(SourceError) as err:
        openreview(f"{served.url}/notes", venues=["ICLR.cc/2026/Conference"]).search(ORCH, *WINDOW, NOW)
    assert str(err.value).startswith(f"{served.url.removeprefix('http://')}: the OpenReview API ")
    assert what in str(err.value)


# ---------------------------------------------------------------- Semantic Scholar

def test_semantic_scholar_pages_with_tokens_and_waits_when_it_is_busy(serve):
    served = serve(SemanticScholarServer(page=1, busy=1))
    source = s2(f"{served.url}/graph/v1")
    run = source.search(ORCH, *WINDOW, NOW)
    assert [(f.identifier, f.identifiers, f.venue) for f in run.found] == [
        ("arxiv:2605.10001", {"arxiv": "2605.10001"}, "arXiv"),  # S2 says "arXiv.org": the venue masrl add gives it
        ("arxiv:2606.00007", {"arxiv": "2606.00007", "doi": "10.5555/venue.2026.12"}, "Proceedings of AAMAS 2026")]
    assert (run.total, run.returned, run.kept, run.pages, run.requests) == (2, 2, 2, 2, 3)  # one 429 answer, retried
    assert [p.get("token") for _, p in served.log] == [None, None, "1"]
    assert served.log[1][1]["publicationDateOrYear"] == "2026-05-04:2026-06-30"
    assert source.session.sleeps == [2.0, 1.0]  # Retry-After: 2, then the pace of one request a second


def test_semantic_scholar_past_its_bound_or_rate_limited_for_good_fails_naming_it(serve):
    served = serve(SemanticScholarServer(page=1))
    with pytest.raises(SourceError, match="has 2 results in the window, more than the paging bound of 1 per query"):
        s2(f"{served.url}/graph/v1", max_records=1).search(ORCH, *WINDOW, NOW)
    run = s2(f"{served.url}/graph/v1", max_records=1, allow_incomplete=True).search(ORCH, *WINDOW, NOW)
    assert (run.returned, run.not_fetched, run.incomplete) == (1, 1, True)
    busy = serve(SemanticScholarServer(busy=10))
    with pytest.raises(SourceError) as err:
        s2(f"{busy.url}/graph/v1").search(ORCH, *WINDOW, NOW)
    assert str(err.value) == (f"{busy.url.removeprefix('http://')}: the Semantic Scholar API answered HTTP 429 (rate limit) "
                              "4 time(s); it asked to wait 2 s (Retry-After); run the search again later")


def _one_paper(i: int) -> dict:
    return {"paperId": f"{i:040x}", "title": f"An orchestrator number {i}", "publicationDate": "2026-05-20", "year": 2026,
            "externalIds": {"ArXiv": f"2605.{30000 + i}"}, "authors": [{"name": "Ada Lovelace"}]}


BROKEN_S2 = {
    "data as a string": (b'{"total": 1, "data": "abc"}', "Expected `array`, got `str` - at `$.data`"),
    "a title as a list": (json.dumps({"total": 1, "data": [{"paperId": "a1" * 20, "title": ["Orchestrators"]}]}).encode(),
                          "Expected `str | null`, got `array` - at `$.data[0].title`"),
    "authors as reprs": (json.dumps({"total": 1, "data": [{"paperId": "a1" * 20, "authors": "42, ['x']"}]}).encode(),
                         "Expected `array`, got `str` - at `$.data[0].authors`"),
    "total NaN": (b'{"total": NaN, "data": []}', "not JSON"),
    "nested 200,000 deep": (b'{"total": 0, "data": [], "x": ' + b"[" * 200000 + b"]" * 200000 + b"}",
                            "JSON nested deeper than any answer of the format"),
    "a billion results": (b'{"total": 1000000000, "data": []}', "more than it holds papers"),
    "a total of 400 digits": (b'{"total": 1' + b"0" * 400 + b', "data": []}',
                              "says family 'orchestration' has about 10^400 results, more than it holds papers"),
    "far more papers than its total": (json.dumps({"total": 1, "data": [_one_paper(i) for i in range(3)]}).encode(),
                                       "3 papers sent, far more than the about 1 its total announced"),
    "more papers than a total of 1": (json.dumps({"total": 1, "data": [_one_paper(i) for i in range(2)]}).encode(),
                                      "2 papers sent, far more than the about 1 its total announced"),
    "a paper sent twice by its arXiv id": (json.dumps({"total": 2, "data": [{**_one_paper(1), "paperId": None}] * 2}).encode(),
                                           "$.data[1] (page 1): arxiv:2605.30001 is sent twice"),
    "an arXiv id as a number": (json.dumps({"total": 1, "data": [{**_one_paper(1), "externalIds": {"ArXiv": 260540001}}]}).encode(),
                                "$.data[0] (page 1).externalIds.ArXiv: 260540001 is not text"),
    "a paperId that is not one": (json.dumps({"total": 1, "data": [{**_one_paper(1), "paperId": 'a b<c>"d'}]}).encode(),
                                  "$.data[0] (page 1).paperId: 'a b<c>\"d' is not a Semantic Scholar paper id (40 hex digits)"),
    "a page without data": (b'{"total": 3, "token": "t2"}', "$.data is missing from a page of a result of 3 papers"),
    "a next page of no result": (b'{"total": 0, "token": "t2", "data": []}', "$.token pages on from a result of 0 papers"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_S2))
def test_a_broken_semantic_scholar_answer_is_refused_naming_the_source(serve, case):
    body, what = BROKEN_S2[case]
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    with pytest.raises(SourceError) as err:
        s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
    assert str(err.value).startswith(f"{served.url.removeprefix('http://')}: the Semantic Scholar API ")
    assert what in str(err.value)


def test_a_paper_with_a_value_no_record_may_hold_is_unusable_and_the_answer_is_read_on(serve):
    """Run 40: one paper with a DOI holding a blank, an arXiv id that cannot exist or a day no calendar has refused
    the whole answer, so one bad entry among a seed's thousands of citing papers stopped citation searching."""
    papers = [_one_paper(1), {**_one_paper(2), "publicationDate": "2026-02-30"},
              {**_one_paper(3), "publicationDate": "0001-01-01T00:00:00+01:00"},
              {**_one_paper(4), "externalIds": {"DOI": "10.48550/arXiv.2613.00001"}},
              {**_one_paper(5), "externalIds": {"DOI": "10.1234/abc def"}},
              {**_one_paper(6), "externalIds": {"ArXiv": "2605.30006", "DOI": "10.48550/arXiv.2605.30002"}},
              {**_one_paper(7), "externalIds": {"ACL": "not-an-id"}}, {**_one_paper(8), "year": 20260}]
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps({"total": 8, "data": papers}).encode())))
    run = s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
    assert [f.identifier for f in run.found] == ["arxiv:2605.30001"]
    page = "url:https://www.semanticscholar.org/paper/"
    assert run.unusable == [
        f"{page}{2:040x} ($.data[1] (page 1).publicationDate: '2026-02-30' is not a date (YYYY-MM-DD or an RFC 3339 "
        "date-time))",
        f"{page}{3:040x} ($.data[2] (page 1).publicationDate: '0001-01-01T00:00:00+01:00' is not a date (YYYY-MM-DD or "
        "an RFC 3339 date-time))",
        f"{page}{4:040x} ($.data[3] (page 1).externalIds.DOI: '10.48550/arXiv.2613.00001' is an arXiv DOI, but "
        "'2613.00001' is not an arXiv id)",
        f"{page}{5:040x} ($.data[4] (page 1).externalIds.DOI: the identifier '10.1234/abc def' holds U+0020 SPACE (a "
        "blank); masrl keeps an identifier only as the source sent it)",
        f"{page}{6:040x} ($.data[5] (page 1).externalIds: the DOI '10.48550/arXiv.2605.30002' names another arXiv paper "
        "than ArXiv '2605.30006')",
        f"{page}{7:040x} ($.data[6] (page 1).externalIds.ACL: 'not-an-id' is not an ACL Anthology id)",
        f"{page}{8:040x} ($.data[7] (page 1).year: 20260 is not a year)"]
    assert run.returned == 8


def test_a_paper_naming_no_author_is_unusable_not_a_candidate_no_one_could_decide(serve):
    """`update apply` refuses a record whose authors are only 'others' (or none), so the search does not queue it."""
    papers = [_one_paper(1), {**_one_paper(2), "authors": [{"name": None}]}, {**_one_paper(3), "authors": []}]
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps({"total": 3, "data": papers}).encode())))
    run = s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
    assert [f.identifier for f in run.found] == ["arxiv:2605.30001"]
    assert run.unusable == ["arxiv:2605.30002 (no author named)", "arxiv:2605.30003 (no author named)"]


def test_an_empty_result_may_leave_out_its_data_and_an_html_page_is_refused_by_its_type(serve):
    served = serve(Scripted(lambda path, params: (200, "application/json", b'{"total": 0}')))
    assert s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW).found == []
    page = json.dumps({"total": 1, "data": [_one_paper(1)]}).encode()
    served = serve(Scripted(lambda path, params: (200, "text/html; charset=utf-8", page)))
    with pytest.raises(SourceError) as err:
        s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
    assert str(err.value) == (f"{served.url.removeprefix('http://')}: the Semantic Scholar API answered 'text/html' where its "
                              "documented format is application/json, so nothing of it was kept")


@pytest.mark.parametrize(("total", "sent", "short"), [(500, 1, 499), (40, 25, 15), (11, 1, 10), (12, 10, 2), (100, 96, None),
                                                     (20, 19, None)])
def test_semantic_scholar_pages_that_end_far_short_of_its_total_are_records_lost(serve, total, sent, short):
    """Its total is approximate: a record or 5% short is an estimate that was off, more is a run
    that lost records (refused unless --allow-incomplete, then counted as not fetched)."""
    body = json.dumps({"total": total, "data": [_one_paper(i) for i in range(sent)]}).encode()
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    if short is None:
        run = s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
        assert (run.returned, run.not_fetched, run.incomplete) == (sent, 0, False)
        return
    run = s2(f"{served.url}/graph/v1", allow_incomplete=True).search(ORCH, *WINDOW, NOW)
    assert (run.returned, run.not_fetched, run.incomplete) == (sent, short, True)
    assert run.stopped == (f"the pages ended with {short:,} of the about {total:,} results it announced not sent "
                           "(its total is approximate, but not by more than 5%)")


@pytest.mark.parametrize("path", ["search", "citations"])
def test_a_long_error_message_of_semantic_scholar_is_left_out_not_a_traceback(serve, path):
    body = json.dumps({"error": "x" * 5000}).encode()
    served = serve(Scripted(lambda p, params: (500, "application/json", body)))
    with pytest.raises(SourceError) as err:
        if path == "search":
            s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
        else:
            citations(f"{served.url}/graph/v1", Seeds(lovelace2026={"arxiv": "2605.10001"})).search_all([], *WINDOW, NOW)
    assert str(err.value).endswith("the Semantic Scholar API answered HTTP 500")


NOT_ONE_PERSON = ["['Ada Lovelace', 'Alan Turing']", "{'name': 'Ada'}", "Turing, Alan and Hopper, Grace",
                  "Lovelace, Ada, Countess, of Lovelace"]
#: Names of one record that no record may hold: that record is counted unusable, the answer kept.
ONE_RECORDS_PROBLEM = ["Grace Hopper; Alan Turing", "Grace <Hopper>", "Grace Hopper <grace@example.org>", "-", "TODO"]


@pytest.mark.parametrize("name", NOT_ONE_PERSON + ONE_RECORDS_PROBLEM)
@pytest.mark.parametrize("source", ["openreview", "semanticscholar"])
def test_an_author_that_is_not_one_person_is_refused_naming_where(serve, source, name):
    """A list or mapping written as text, or a list of names in one, is a broken answer; a name that is one record's
    problem (a placeholder, two people, an address) is kept for the round to count that record unusable: one such
    record among hundreds made every round impossible."""
    if source == "openreview":
        note = {"id": "ur295YVtmt", "forum": "ur295YVtmt", "pdate": 1779000000000,
                "content": {"title": {"value": "An orchestrator"}, "authors": {"value": ["Ada Lovelace", name]},
                            "venueid": {"value": VENUES[0]}, "venue": {"value": "ICLR 2026 Poster"}}}
        body = json.dumps({"notes": [note], "count": 1}).encode()
        make = lambda url: openreview(f"{url}/notes", venues=VENUES[:1])  # noqa: E731
        where = ".content.authors[1]: "
    else:
        paper = {**_one_paper(1), "authors": [{"name": "Ada Lovelace"}, {"name": name}]}
        body = json.dumps({"total": 1, "data": [paper]}).encode()
        make = lambda url: s2(f"{url}/graph/v1")  # noqa: E731
        where = ".authors[1].name: "
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    if name in ONE_RECORDS_PROBLEM:
        (found,) = make(served.url).search(ORCH, *WINDOW, NOW).found
        assert len(found.authors) == 2 and found.authors[0] == "Lovelace, Ada", found.authors
        return
    with pytest.raises(SourceError) as err:
        make(served.url).search(ORCH, *WINDOW, NOW)
    assert "answered something that is not its documented format" in str(err.value)
    assert str(err.value).endswith(f"{where}{name!r} is not one person's name") or (
        len(repr(name)) > 40 and f"{where}{repr(name)[:37]}..." in str(err.value))


PLAIN_TITLES = ["An orchestrator emitting <think> tokens", "Orchestrator bounds when n<k and k>m",
                "Delegation with <b>bold</b> claims", "Q&A for an orchestrator"]


@pytest.mark.parametrize("source", ["openreview", "semanticscholar"])
def test_a_plain_text_format_keeps_angle_brackets_as_text(serve, source):
    """OpenReview's and Semantic Scholar's titles and abstracts are plain text: ``<...>`` in them is
    text, kept as sent (it used to be taken for markup and dropped, with the words inside it)."""
    if source == "openreview":
        notes = [{"id": f"note{k:05d}", "forum": f"note{k:05d}", "pdate": 1779000000000,
                  "content": {"title": {"value": title}, "abstract": {"value": f"About {title}."},
                              "authors": {"value": ["Ada Lovelace"]}, "venueid": {"value": VENUES[0]}}}
                 for k, title in enumerate(PLAIN_TITLES)]
        body = json.dumps({"notes": notes, "count": len(notes)}).encode()
        make = lambda url: openreview(f"{url}/notes", venues=VENUES[:1])  # noqa: E731
    else:
        papers = [{**_one_paper(k), "title": title, "abstract": f"About {title}."} for k, title in enumerate(PLAIN_TITLES)]
        body = json.dumps({"total": len(papers), "data": papers}).encode()
        make = lambda url: s2(f"{url}/graph/v1")  # noqa: E731
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    found = make(served.url).search(ORCH, *WINDOW, NOW).found
    assert sorted((f.title, f.abstract) for f in found) == sorted((t, f"About {t}.") for t in PLAIN_TITLES)


def test_an_openreview_count_that_shrinks_between_pages_loses_no_note(serve):
    def note(i):
        return {"id": f"note{i:05d}", "forum": f"note{i:05d}", "pdate": 1779000000000,
                "content": {"title": {"value": f"An orchestrator {i}"}, "authors": {"value": ["Ada Lovelace"]},
                            "venueid": {"value": VENUES[0]}}}

    def reply(path, params):
        offset = int(params["offset"])
        notes = [note(i) for i in range(offset, min(offset + 2, 3))] if offset == 0 else []
        return 200, "application/json", json.dumps({"notes": notes, "count": 3 if offset == 0 else 2}).encode()

    served = serve(Scripted(reply))
    with pytest.raises(SourceError, match=r"the result set moved while it was paged: the record at position 1 was "
                                          r"note00001, and is now missing; .* run the search again$"):
        openreview(f"{served.url}/notes", venues=VENUES[:1], limit=2).search(ORCH, *WINDOW, NOW)


@pytest.mark.parametrize("count", [True, False])
def test_openreview_notes_that_move_while_they_are_paged_are_refused_not_left_a_note_short(serve, count):
    """Between the two pages note 1 is withdrawn and note 9 joins at the end: the count stays 4, and note 2 slides
    from offset 2 to 1, where plain paging from offset 2 would never see it (nor, without a count, would it know)."""
    def note(i):
        return {"id": f"note{i:05d}", "forum": f"note{i:05d}", "pdate": 1779000000000,
                "content": {"title": {"value": f"An orchestrator {i}"}, "authors": {"value": ["Ada Lovelace"]},
                            "venueid": {"value": VENUES[0]}}}

    def reply(path, params):
        offset, limit = int(params["offset"]), int(params["limit"])
        held = [0, 1, 2, 3] if offset == 0 else [0, 2, 3, 9]
        body = {"notes": [note(i) for i in held[offset:offset + limit]], **({"count": 4} if count else {})}
        return 200, "application/json", json.dumps(body).encode()

    served = serve(Scripted(reply))
    with pytest.raises(SourceError, match=r"the result set moved while it was paged: the record at position 1 was "
                                          r"note00001, and is now note00002; "):
        openreview(f"{served.url}/notes", venues=VENUES[:1], limit=2).search(ORCH, *WINDOW, NOW)


def test_a_semantic_scholar_token_given_again_is_refused_not_paged_for_ever(serve):
    pages = iter(range(1, 100))
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(
        {"total": 50, "token": "same", "data": [_one_paper(next(pages))]}).encode())))
    with pytest.raises(SourceError, match=r"page 2 gives a token \('same'\) that an earlier page gave: its pages would never end"):
        s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
    assert len(served.log) == 2


def test_an_empty_link_page_that_says_more_follow_is_not_the_end(serve):
    pages = {"0": {"offset": 0, "next": 2, "data": [{"citedPaper": _one_paper(k)} for k in (1, 2)]},
             "1": {"offset": 1, "next": 3, "data": [{"citedPaper": _one_paper(2)}]}}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(pages[params["offset"]]).encode())))
    source = citations(f"{served.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"])
    with pytest.raises(SourceError, match=r"cited by a2026: the Semantic Scholar API answered no link from offset 2 on, "
                                          r"yet says more links follow \(\$.next is 3\); run the search again later"):
        source.search_all([], *WINDOW, NOW)
    pages["1"]["data"] = []  # not even the last link received: the links moved
    with pytest.raises(SourceError, match=r"the record at position 1 was paper .*, and is now missing"):
        source.search_all([], *WINDOW, NOW)


def test_a_link_date_that_its_offset_moves_past_year_9999_makes_that_paper_unusable_by_name(serve):
    page = {"offset": 0, "data": [{"citedPaper": {**_one_paper(1), "publicationDate": "9999-12-31T23:59:59-05:00"}},
                                  {"citedPaper": _one_paper(2)}]}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(page).encode())))
    source = citations(f"{served.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"])
    (run,) = source.search_all([], *WINDOW, NOW)
    assert [f.identifier for f in run.found] == ["arxiv:2605.30002"]
    assert len(run.unusable) == 1 and "publicationDate: '9999-12-31T23:59:59-05:00' is not a date" in run.unusable[0]


@pytest.mark.parametrize(("source", "names", "kept"), [
    ("s2", [{"name": "Ada Lovelace"}, {"name": None}, {"name": ""}], ("Lovelace, Ada", "others")),
    ("openreview", ["Ada Lovelace", ""], ("Lovelace, Ada", "others"))])
def test_an_author_the_answer_does_not_name_is_kept_as_others_not_dropped(serve, source, names, kept):
    if source == "openreview":
        note = {"id": "AbCdEf12", "forum": "AbCdEf12", "pdate": 1779000000000,
                "content": {"title": {"value": "An orchestrator"}, "authors": {"value": names}, "venueid": {"value": VENUES[0]}}}
        body, make = json.dumps({"notes": [note], "count": 1}).encode(), lambda url: openreview(f"{url}/notes", venues=VENUES[:1])
    else:
        body, make = json.dumps({"total": 1, "data": [{**_one_paper(1), "authors": names}]}).encode(), \
            lambda url: s2(f"{url}/graph/v1")
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    (found,) = make(served.url).search(ORCH, *WINDOW, NOW).found
    assert found.authors == kept


def test_an_openreview_note_without_a_date_is_counted_outside_the_window_and_named(serve):
    notes = [{"id": f"OrchNote0{i}", "forum": f"OrchNote0{i}", **({"pdate": 1779000000000} if i == 1 else {}),
              "content": {"title": {"value": f"An orchestrator {i}"}, "authors": {"value": ["Ada Lovelace"]},
                          "venueid": {"value": VENUES[0]}, "venue": {"value": "ICLR 2026 Poster"}}} for i in (1, 2)]
    body = json.dumps({"notes": notes, "count": 2}).encode()
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    run = openreview(f"{served.url}/notes", venues=VENUES[:1]).search(ORCH, *WINDOW, NOW)
    assert [f.identifier for f in run.found] == ["openreview:OrchNote01"]
    assert (run.returned, run.not_matching, run.outside_window) == (2, 0, ["openreview:OrchNote02 (no date)"])


def test_a_record_without_what_a_candidate_needs_is_counted_unusable_and_named(serve):
    """A note without a title, a paper without a title or without any id, a citation link without
    its paper: each is counted under ``unusable`` and named (by its id, or its place in the answer)."""
    note = {"id": "OrchNote01", "forum": "OrchNote01", "pdate": 1779000000000,
            "content": {"authors": {"value": ["Ada Lovelace"]}, "venueid": {"value": VENUES[0]}}}
    body = json.dumps({"notes": [note], "count": 1}).encode()
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    run = openreview(f"{served.url}/notes", venues=VENUES[:1]).search(ORCH, *WINDOW, NOW)
    assert (run.returned, run.kept, run.not_matching, run.unusable) == (1, 0, 0, ["openreview:OrchNote01 (no title)"])
    assert run.as_dict()["unusable_records"] == ["openreview:OrchNote01 (no title)"] and run.as_dict()["unusable"] == 1

    papers = [_one_paper(1), {**_one_paper(2), "title": None}, {**_one_paper(3), "paperId": None, "externalIds": None}]
    body = json.dumps({"total": 3, "data": papers}).encode()
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    run = s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
    assert [f.identifier for f in run.found] == ["arxiv:2605.30001"]
    assert (run.returned, run.not_matching, run.unusable) == (3, 0, ["arxiv:2605.30002 (no title)", "paper 2 of page 1 (no id)"])

    links = {"offset": 0, "data": [{"citingPaper": None}, {"citingPaper": _one_paper(4)}]}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(links).encode())))
    source = citations(f"{served.url}/graph/v1", Seeds(lovelace2026={"arxiv": "2605.10001"}), directions=["forward"])
    (run,) = source.search_all([], *WINDOW, NOW)
    assert ([f.identifier for f in run.found], run.unusable) == (["arxiv:2605.30004"], ["link 0 (no paper)"])


def test_an_openreview_note_of_another_venue_than_asked_is_refused(serve):
    note = {"id": "OrchNote01", "forum": "OrchNote01", "pdate": 1779000000000,
            "content": {"title": {"value": "An orchestrator"}, "authors": {"value": ["Ada Lovelace"]},
                        "venueid": {"value": "NeurIPS.cc/2026/Conference"}}}
    body = json.dumps({"notes": [note], "count": 1}).encode()
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    with pytest.raises(SourceError) as err:
        openreview(f"{served.url}/notes", venues=VENUES[:1]).search(ORCH, *WINDOW, NOW)
    assert str(err.value).endswith(".content.venueid: 'NeurIPS.cc/2026/Conference', but the notes of "
                                   "'ICLR.cc/2026/Conference' were asked for")


# ---------------------------------------------------------------- citation searching

def test_citation_searching_follows_references_and_citations_within_the_window(serve):
    served = serve(SemanticScholarServer(page=2))
    corpus = Seeds(lovelace2026={"arxiv": "2605.10001v2"}, hopper2026={"doi": "10.5555/teams.2026.7"}, nolink2026={})
    source = citations(f"{served.url}/graph/v1", corpus)
    assert source.seeds == [("hopper2026", "DOI:10.5555/teams.2026.7"), ("lovelace2026", "arXiv:2605.10001")]
    runs = {run.family: run for run in source.search_all([], *WINDOW, NOW)}
    assert list(runs) == ["cited by hopper2026", "cites hopper2026", "cited by lovelace2026", "cites lovelace2026"]
    cited_by = runs["cited by lovelace2026"]  # the references of lovelace2026: old, unresolved, undated
    assert (cited_by.returned, cited_by.kept, cited_by.not_matching, cited_by.unusable, cited_by.outside_window,
            cited_by.pages) == (3, 0, 0, ["link 1 (no id)"], ["arxiv:1706.02275 (2017-06-07)", "url:https://www.semanticscholar.org/paper/"
                  "e5f0000000000000000000000000000000000005 (no date, year 2026)"], 2)
    cites = runs["cites lovelace2026"]
    assert [(f.identifier, f.identifiers) for f in cites.found] == [
        ("arxiv:2605.40001", {"arxiv": "2605.40001", "doi": "10.5555/teams.2026.7"}),
        ("arxiv:2606.00007", {"arxiv": "2606.00007", "doi": "10.5555/venue.2026.12"})]
    assert cites.query.startswith("/paper/arXiv:2605.10001/citations?fields=paperId,externalIds,")
    assert [f.identifier for f in runs["cited by hopper2026"].found] == ["arxiv:2605.10001"]
    assert runs["cites hopper2026"].returned == 0
    forward = citations(f"{served.url}/graph/v1", corpus, directions=["forward"])
    assert [r.family for r in forward.search_all([], *WINDOW, NOW)] == ["cites hopper2026", "cites lovelace2026"]


def test_a_seeds_doi_is_one_segment_of_the_path_whatever_it_holds(serve):
    """A DOI may hold '?', '#', '%' or a segment '..': each request asks for that seed, under the API's path."""
    paths = []

    def reply(path, params):
        paths.append(path)
        return 200, "application/json", b'{"offset": 0, "data": []}'

    served = serve(Scripted(reply))
    seeds = Seeds(a2026={"doi": "10.1000/orch?x=1#frag"}, b2026={"doi": "10.1000/../../../admin"},
                  c2026={"doi": "10.1000/100%done"})
    source = citations(f"{served.url}/graph/v1", seeds, directions=["backward"])
    runs = source.search_all([], *WINDOW, NOW)
    assert paths == ["/graph/v1/paper/DOI:10.1000/orch%3Fx%3D1%23frag/references",
                     "/graph/v1/paper/DOI:10.1000%2F..%2F..%2F..%2Fadmin/references",
                     "/graph/v1/paper/DOI:10.1000/100%25done/references"]
    assert [run.query.split("?fields=")[0] for run in runs] == [p.removeprefix("/graph/v1") for p in paths]


def test_a_seed_semantic_scholar_does_not_know_is_named_and_a_broken_link_page_refused(serve):
    served = serve(SemanticScholarServer())
    (run, _) = citations(f"{served.url}/graph/v1", Seeds(ghost2026={"arxiv": "2612.99999"})).search_all([], *WINDOW, NOW)
    assert (run.family, run.returned, run.requests, run.stopped) == (
        "cited by ghost2026", 0, 1, "Semantic Scholar has no such paper")
    assert run.query.startswith("/paper/arXiv:2612.99999/references?")
    broken = serve(Scripted(lambda path, params: (200, "application/json",
                                                  b'{"offset": 0, "data": [{"citedPaper": {"title": 7}}]}')))
    with pytest.raises(SourceError, match=r"Expected `str \| null`, got `int` - at `\$.data\[0\].citedPaper.title`"):
        citations(f"{broken.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"})).search_all([], *WINDOW, NOW)
    jump = serve(Scripted(lambda path, params: (200, "application/json", b'{"offset": 5, "data": []}')))
    with pytest.raises(SourceError, match="a page from 5 of 0 links, asked from 0"):
        citations(f"{jump.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"})).search_all([], *WINDOW, NOW)


def test_a_not_found_answer_to_a_later_link_page_is_broken_paging_not_an_unknown_seed(serve):
    """Only the first page can say that Semantic Scholar does not know a seed: a 404 to a later page
    (the seed's links vanished while they were paged) would lose every link after the first page."""
    def reply(path, params):
        if params["offset"] == "0":
            return 200, "application/json", json.dumps({"offset": 0, "next": 2, "data": [
                {"citedPaper": _one_paper(i)} for i in (1, 2)]}).encode()
        return 404, "application/json", json.dumps({"error": f"Paper with id {path} not found"}).encode()

    served = serve(Scripted(reply))
    source = citations(f"{served.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"], limit=2)
    with pytest.raises(SourceError) as err:
        source.search_all([], *WINDOW, NOW)
    assert str(err.value).endswith("cited by a2026: the Semantic Scholar API answered that it has no such paper when asked for its "
                                   "links from 1, after it had sent 2: the paging broke, so nothing of it was kept; run "
                                   "the search again later")
    assert [p["offset"] for _, p in served.log] == ["0", "1"]


@pytest.mark.parametrize(("status", "body", "what"), [
    (404, b"<html>Not Found</html>", "the Semantic Scholar API answered HTTP 404"),  # another server's page: no such seed?
    (404, b'{"message": "Not Found"}', "the Semantic Scholar API answered HTTP 404: Not Found"),  # a wrong base URL
    (400, b'{"error": "offset + limit must be < 10000"}',  # run 41: the API's reason was dropped
     "the Semantic Scholar API answered HTTP 400: offset + limit must be < 10000"),
    (200, json.dumps({"offset": 0, "data": [{"citingPaper": _one_paper(1)}]}).encode(),
     "$.data[0] (cited by a2026, offset 0): a link without citedPaper, which the API sends with every link of /references"),
    (200, json.dumps({"offset": -5, "data": [{"citedPaper": _one_paper(1)}]}).encode(),
     "$.offset is -5, not a position (one counted from 0)"),
    (200, json.dumps({"offset": 0, "next": 0, "data": [{"citedPaper": _one_paper(1)}]}).encode(),
     "$.next is 0 after $.offset 0: not a next page")])
def test_a_link_page_that_is_not_the_apis_answer_is_refused(serve, status, body, what):
    """Only the API's own "not found" (its JSON error) names a seed it does not know; a link keyed
    for the other direction is not its answer either."""
    served = serve(Scripted(lambda path, params: (status, "text/html" if status == 404 else "application/json", body)))
    source = citations(f"{served.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"])
    with pytest.raises(SourceError) as err:
        source.search_all([], *WINDOW, NOW)
    assert str(err.value).endswith(what), str(err.value)


def test_a_paper_linked_twice_is_kept_twice_for_the_round_to_count_once(serve):
    """Semantic Scholar's link lists may name a paper twice (one id twice; a preprint and its venue version, two ids
    with one DOI): the links are what it sent, and the round's duplicate removal counts the paper once."""
    venue = {**_one_paper(1), "paperId": "f" * 40, "externalIds": {"DOI": "10.5555/one"}}
    first = {**_one_paper(1), "externalIds": {**_one_paper(1)["externalIds"], "DOI": "10.5555/one"}}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(
        {"offset": 0, "data": [{"citedPaper": first}, {"citedPaper": first}, {"citedPaper": venue}]}).encode())))
    source = citations(f"{served.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"])
    (run,) = source.search_all([], *WINDOW, NOW)
    assert (run.returned, run.kept, run.incomplete) == (3, 3, False)


def test_semantic_scholar_and_citation_searching_never_read_past_max_records(serve):
    papers = {"total": 5, "data": [_one_paper(i) for i in range(1, 6)]}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(papers).encode())))
    run = s2(f"{served.url}/graph/v1", max_records=2, allow_incomplete=True).search(ORCH, *WINDOW, NOW)
    assert (run.returned, run.not_fetched, run.incomplete) == (2, 3, True)
    links = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(
        {"offset": 0, "next": int(params["limit"]),
         "data": [{"citedPaper": _one_paper(i)} for i in range(1, int(params["limit"]) + 1)][:5]}).encode())))
    source = citations(f"{links.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"], max_records=3,
                       allow_incomplete=True)
    (run,) = source.search_all([], *WINDOW, NOW)
    assert ([p["limit"] for _, p in links.log], run.returned, run.incomplete) == (["3"], 3, True)


@pytest.mark.parametrize(("total", "sent", "page", "bound", "lost"), [
    (3, 4, 2, 3, 1),  # a total below what it holds: page 2's second paper was sent and not read
    (3, 4, 4, 3, 1),  # one page of four, read to the bound of 3: the fourth is not fetched, whatever the total says
    (4, 6, 2, 4, 1),  # the bound reached with a token for more: at least one is not fetched
    (3, 6, 2, 3, 2),  # one sent past the bound, and a token for more
])
def test_a_semantic_scholar_total_below_what_it_holds_never_makes_records_lost_at_the_bound_zero(
        serve, total, sent, page, bound, lost):
    """Its total is approximate: at the bound, papers past it (sent and not read, or behind a token) were counted
    'max(0, total - returned)' = 0 not fetched, and --allow-incomplete wrote the round without a word."""
    def reply(path, params):
        start = int(params.get("token", "t0")[1:])
        more = start + page < sent
        return 200, "application/json", json.dumps({"total": total, "data": [_one_paper(i) for i in range(start + 1,
                                                   min(start + page, sent) + 1)], **({"token": f"t{start + page}"} if more
                                                                                     else {})}).encode()

    served = serve(Scripted(reply))
    run = s2(f"{served.url}/graph/v1", max_records=bound, allow_incomplete=True).search(ORCH, *WINDOW, NOW)
    assert (run.returned, run.not_fetched, run.incomplete) == (bound, lost, True), run.stopped
    from masrl.review.update.search import lost_text
    assert lost_text(run) == f"at least {lost} record(s) not fetched ({bound} fetched; the source announced about {total})"


def test_pages_far_shorter_than_asked_stop_at_a_page_bound_not_hours_later(serve):
    """One record a page, with a token or an offset for more: the run stops at the paging bound over
    a page's size (and two more pages), as incomplete, instead of paging one record a second."""
    s2_pages = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(
        {"total": 2000, "token": f"t{int(params.get('token', 't0')[1:]) + 1}",
         "data": [_one_paper(int(params.get("token", "t0")[1:]) + 1)]}).encode())))
    run = s2(f"{s2_pages.url}/graph/v1", max_records=3000).search(ORCH, *WINDOW, NOW)
    assert (run.pages, run.returned, run.not_fetched, run.incomplete) == (5, 5, 1995, True)
    assert run.stopped == ("the bound of 5 pages per query (--max-records over the 1,000 papers of a page, and two more): "
                           "its pages were shorter than the API's")
    links = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(  # two links a page: one is new
        {"offset": int(params["offset"]), "next": int(params["offset"]) + 2,
         "data": [{"citedPaper": _one_paper(int(params["offset"]) + k)} for k in (1, 2)]}).encode())))
    source = citations(f"{links.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"],
                       max_records=3000)
    with pytest.raises(SourceError, match=r"the bound of 5 pages per query \(--max-records over the 1,000 links asked a "
                                          r"page, and two more\): its pages were shorter than asked; give --allow-incomplete"):
        source.search_all([], *WINDOW, NOW)
    assert len(links.log) == 5


def test_a_semantic_scholar_total_off_by_a_little_is_said_not_hidden(serve):
    """Its search's total is documented as approximate: pages that end within 5% of it are its whole
    answer, and the run says by how much they differ (round.yaml's ``stopped``)."""
    for total, sent, said in ((21, 20, "1 fewer than the 21"), (20, 21, "1 more than the 20")):
        body = json.dumps({"total": total, "data": [_one_paper(i) for i in range(1, sent + 1)]}).encode()
        served = serve(Scripted(lambda path, params, body=body: (200, "application/json", body)))
        run = s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
        assert (run.returned, run.not_fetched, run.incomplete) == (sent, 0, False)
        assert run.stopped == (f"the pages ended at {sent} results, {said} its approximate total announced (taken as its "
                               "estimate: within 5%)")


@pytest.mark.parametrize(("total", "pages", "stopped"), [
    (2, [([1], "t1"), ([], None)], "the pages ended with 1 of the about 2 results it announced not sent (its total is "
                                   "approximate, but not by more than 5%)"),
    (4, [([1, 2, 3], None)], "the pages ended with 1 of the about 4 results it announced not sent (its total is "
                             "approximate, but not by more than 5%)"),
    (2, [([1], "t1"), ([], "t2")], "page 2 sent no paper but a token for more, at 1 of the about 2 results it announced"),
])
def test_a_semantic_scholar_shortfall_beyond_5_percent_is_incomplete_however_small_the_total(serve, total, pages, stopped):
    """One paper of two is half the answer: no approximation of the total explains it; nor does an empty page
    that gives a token for more."""
    def reply(path, params):
        data, token = pages[int(params.get("token", "t0")[1:])]
        return 200, "application/json", json.dumps({"total": total, "data": [_one_paper(i) for i in data],
                                                    **({"token": token} if token else {})}).encode()

    served = serve(Scripted(reply))
    run = s2(f"{served.url}/graph/v1", allow_incomplete=True).search(ORCH, *WINDOW, NOW)
    assert (run.incomplete, run.not_fetched, run.stopped) == (True, 1, stopped)


@pytest.mark.parametrize("echoed", ["k3y/SECRET+abc==", "k3y%2FSECRET%2Babc%3D%3D", "K3Y/SECRET+ABC=="])
def test_a_key_the_server_repeats_in_its_error_is_not_printed(small_survey, cli, clock, serve, monkeypatch, echoed):
    """As sent, URL-encoded or in capitals."""
    message = json.dumps({"message": f"Invalid API key {echoed} for this endpoint"}).encode()
    served = serve(Scripted(lambda path, params: (403, "application/json", message)))
    monkeypatch.setenv("MASRL_S2_API", f"{served.url}/graph/v1")
    monkeypatch.setenv("MASRL_S2_API_KEY", "k3y/SECRET+abc==")
    run = cli("update", "search", "--root", small_survey, "--since", WINDOW[0], "--until", WINDOW[1], "--source",
              "semanticscholar")
    assert run.code == 1 and "SECRET" not in run.err.upper() + run.out.upper()
    assert "answered HTTP 403: Invalid API key <MASRL_S2_API_KEY> for this endpoint" in run.err, run.err


@pytest.mark.parametrize(("field", "echoed"), [("title", "k3y/SECRET+abc=="), ("abstract", "K3Y%2FSECRET%2BABC%3D%3D")])
def test_a_key_the_server_repeats_in_a_record_is_never_written(small_survey, cli, clock, serve, monkeypatch, field, echoed):
    """A record that holds the key (a server that repeats what it was sent) would put it into queue.csv, a file
    that is committed: the round is refused, naming the file and line, and nothing is written or printed of it."""
    paper = {**_one_paper(1), field: f"An orchestrator {echoed}"}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps({"total": 1, "data": [paper]}).encode())))
    monkeypatch.setenv("MASRL_S2_API", f"{served.url}/graph/v1")
    monkeypatch.setenv("MASRL_S2_API_KEY", "k3y/SECRET+abc==")
    run = cli("update", "search", "--root", small_survey, "--since", WINDOW[0], "--until", WINDOW[1], "--source",
              "semanticscholar")
    assert run.code == 1 and "K3Y" not in run.err.upper() + run.out.upper()
    assert run.err.splitlines() == [
        f"{Path('corpus/rounds/2026-06-30/queue.csv')}:2: holds the value of MASRL_S2_API_KEY, a key masrl sends (a source "
        "repeated it in its answer, or it was written into a record); masrl writes no secret into a file",
        "masrl: error: a file masrl would write holds a secret; nothing was written"], run.err
    assert not (small_survey / "corpus" / "rounds").exists()


def test_a_semantic_scholar_paper_whose_doi_and_acl_id_name_two_papers_is_unusable_not_the_answer(
        small_survey, cli, clock, serve, monkeypatch):
    """10.18653/v1/<id> is the DOI of ACL Anthology <id>: beside another ACL id the paper is two papers. That is the
    paper's problem: it is counted unusable and named; the rest of the answer is queued (it refused the whole round)."""
    odd = {**_one_paper(1), "externalIds": {"DOI": "10.18653/v1/2026.acl-long.5", "ACL": "2026.acl-long.6"}}
    body = json.dumps({"total": 2, "data": [odd, _one_paper(2)]}).encode()
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    monkeypatch.setenv("MASRL_S2_API", f"{served.url}/graph/v1")
    run = cli("update", "search", "--root", small_survey, "--since", WINDOW[0], "--until", WINDOW[1], "--source",
              "semanticscholar")
    assert run.code == 0, run.err
    (folder,) = (small_survey / "corpus" / "rounds").iterdir()
    (query,) = yaml.safe_load((folder / "round.yaml").read_text())["sources"][0]["queries"]
    assert (query["returned"], query["kept"], query["unusable"]) == (2, 1, 1)
    assert query["unusable_records"] == ["doi:10.18653/v1/2026.acl-long.5 (identifier: two different acl ids, "
                                         "2026.acl-long.5 (DOI 10.18653/v1/2026.acl-long.5) and 2026.acl-long.6: which "
                                         "paper is it?)"], query["unusable_records"]


def test_a_semantic_scholar_doi_that_is_arxivs_own_names_the_preprint(serve):
    paper = {**_one_paper(1), "externalIds": {"DOI": "10.48550/arXiv.2605.30001"}}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps({"total": 1, "data": [paper]}).encode())))
    (found,) = s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW).found
    assert (found.identifier, found.identifiers) == ("arxiv:2605.30001", {"arxiv": "2605.30001"})
    other = {**_one_paper(1), "externalIds": {"ArXiv": "2605.30001", "DOI": "10.48550/arXiv.2605.30002"}}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps({"total": 1, "data": [other]}).encode())))
    run = s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
    assert run.found == [] and "the DOI '10.48550/arXiv.2605.30002' names another arXiv paper than ArXiv" in run.unusable[0]


# ---------------------------------------------------------------- a whole round

@pytest.fixture
def every_source(serve, monkeypatch):
    """Local servers for the five sources, the endpoints pointed at them."""
    servers = {"arxiv": serve(ArxivServer()), "crossref": serve(CrossrefServer()), "openreview": serve(OpenReviewServer()),
               "s2": serve(SemanticScholarServer(page=2))}
    monkeypatch.setenv("MASRL_ARXIV_API", f"{servers['arxiv'].url}/api/query")
    monkeypatch.setenv("MASRL_CROSSREF_API", f"{servers['crossref'].url}/works")
    monkeypatch.setenv("MASRL_OPENREVIEW_API", f"{servers['openreview'].url}/notes")
    monkeypatch.setenv("MASRL_S2_API", f"{servers['s2'].url}/graph/v1")
    return servers


def test_a_round_finds_through_citations_a_paper_no_keyword_query_returns(small_survey, cli, clock, every_source):
    run = cli("add", "--root", small_survey, "--no-fetch", "--arxiv", "2605.10001", "--title",
              "Orchestrator Credit for Learned Agent Swarms", "--author", "Lovelace, Ada", "--year", "2026")
    assert run.code == 0, run.err
    run = cli("update", "search", "--root", small_survey, "--since", "2026-05-04", "--until", "2026-06-30")
    assert run.code == 0, run.err
    (folder,) = (small_survey / "corpus" / "rounds").iterdir()
    queue = {r["identifier"].split("; ")[0]: r for r in sheet(folder / "queue.csv")}
    chased = queue["arxiv:2605.40001"]
    assert chased["title"] == "Credit Routing Between Cooperative Language Agents"
    assert (chased["sources"], chased["query_families"]) == ("citation searching", "cites lovelace2026")
    meta = yaml.safe_load((folder / "round.yaml").read_text(encoding="utf-8"))
    by_name = {s["name"]: s for s in meta["sources"]}
    assert list(by_name) == ["arxiv", "crossref", "openreview", "semanticscholar", "citations"]
    assert by_name["citations"]["method"] == "other" and "method" not in by_name["arxiv"]
    # no keyword query of any source returned it
    dups = sheet(folder / "duplicates.csv")
    assert not [d for d in dups if d["identifier"] == "arxiv:2605.40001"]
    assert meta["counts"]["by_family"]["cites lovelace2026"] == {"identified": 2, "duplicates": 1, "queued": 1}
    # the venue version (another title, found by Semantic Scholar and by citation) meets its arXiv preprint by id
    venue = [d for d in dups if d["identifier"].split("; ")[0] == "arxiv:2606.00007"]
    assert {(d["source"], d["status"], d["rule"]) for d in venue} == {
        ("Semantic Scholar", "this round", "same arxiv 2606.00007"), ("citation searching", "this round", "same arxiv 2606.00007")}
    assert queue["arxiv:2606.00007"]["sources"] == "arXiv; Semantic Scholar; citation searching"
    assert queue["arxiv:2606.00007"]["query_families"] == "orchestration; cites lovelace2026"
    # the seed itself, found by keyword, is a duplicate of the retained record
    assert ("arxiv:2605.10001", "retained", "corpus/papers/lovelace2026.yaml") in {
        (d["identifier"], d["status"], d["matched"]) for d in dups}
    assert queue["openreview:OrchIclr01"]["sources"] == "OpenReview"
    assert "Semantic Scholar: " not in run.err  # citation searching's outside-window records: few queries, named each
    assert "warning: citation searching, cited by lovelace2026: 2 record(s) returned outside the window" in run.err
    checked = cli("validate", "--root", small_survey)  # the stub is still to tag; the round has no problem
    assert "corpus/rounds/" not in checked.err and "protocol" not in checked.err
    assert checked.err.splitlines()[-1] == "3 errors in 1 file; no file was changed."


@pytest.mark.parametrize("key", ["\u043a\u043b\u044e\u0447", "ab\ncd", "ab cd", "ab\x1b[2Jcd"])
@pytest.mark.parametrize("source", ["semanticscholar", "citations"])
def test_a_semantic_scholar_key_no_header_can_carry_is_named_and_not_printed(small_survey, cli, monkeypatch, key, source):
    monkeypatch.setenv("MASRL_S2_API_KEY", key)
    monkeypatch.setenv("MASRL_S2_API", "http://127.0.0.1:9/graph/v1")
    run = cli("update", "search", "--root", small_survey, "--since", "2026-05-04", "--until", "2026-06-30", "--source", source)
    assert run.code == 1 and not (small_survey / "corpus/rounds").exists()
    assert run.err == ("masrl: error: MASRL_S2_API_KEY: holds characters an HTTP header cannot carry (a space, a control "
                       "character or a letter outside ASCII); give the key as Semantic Scholar issued it; nothing was "
                       "searched\n")


def test_the_protocol_marks_every_source_searched_by_masrl_or_by_hand(small_survey, cli):
    protocol = small_survey / "corpus" / "protocol.yaml"
    text = protocol.read_text()
    protocol.write_text(text.replace("searched_by: by hand}", "searched_by: null}")
                        .replace("searched_by: [semanticscholar, citations]}", "searched_by: [semanticscholar, citation]}")
                        .replace("    venues: [ICLR.cc/2026/Conference]\n", "")
                        .replace("      semanticscholar: '\"orchestrator\"",
                                 "      openreview: x\n      semanticscholar: '\"orchestrator\""))
    run = cli("validate", "--root", small_survey)
    assert run.code == 1
    assert [line.split(": ", 1)[1] for line in run.err.splitlines() if line.startswith("corpus/protocol.yaml")] == [
        "sources[3].searched_by: 'citation' is not a source under searchers, nor 'by hand'; allowed: arxiv, crossref, "
        "openreview, semanticscholar, citations, by hand (did you mean 'citations'?)",
        "sources[4].searched_by: is empty: write the searcher of `masrl update search` that covers 'project pages' (one of "
        "arxiv, crossref, openreview, semanticscholar, citations, or a list), or 'by hand'",
        "searchers.openreview.venues: required field is missing: the venue ids whose notes are searched "
        "(ICLR.cc/2026/Conference)",
        "searchers.citations: covers no source of the protocol: name it in the searched_by of the source it searches",
        "query_families[0].queries.openreview: openreview is sent no query (it lists the notes of its venues and keeps "
        "the records that match all_of): remove it",
    ]


def test_an_exclusion_found_by_citation_records_the_citation_searchers_family(small_survey):
    from masrl.corpus.load import load
    from masrl.review.update.protocol import protocol_of

    protocol = protocol_of(load(small_survey), {})
    assert protocol.exclusion_family_of("cites lovelace2026") == "citation searching"
    assert protocol.exclusion_family_of("cited by lovelace2026") == "citation searching"
    assert protocol.exclusion_family_of("orchestration") == "orchestration"
    with pytest.raises(KeyError):
        protocol.exclusion_family_of("nothing")


def test_the_prisma_flow_shows_citation_searching_as_identification_via_other_methods():
    from masrl.analyses.prisma import update_table
    from masrl.analyses.rounds import identification, round_states
    from masrl.corpus.rounds import RoundFolder

    meta = {"window": {"since": "2026-05-04", "until": "2026-06-30"}, "started": "2026-07-01T00:00:00Z",
            "sources": [{"name": "arxiv", "label": "arXiv"}, {"name": "citations", "label": "citation searching",
                                                               "method": "other"}],
            "counts": {"duplicates": 3, "by_source": {"arXiv": {"identified": 5}, "citation searching": {"identified": 4}}}}
    states = round_states({"2026-07-01": RoundFolder("2026-07-01", meta)}, {}, {})
    ident = identification(states)
    assert (ident["identified_by_source"], ident["identified_by_other_method"]) == ({"arXiv": 5}, {"citation searching": 4})
    flow = {"reason_classes": {}, "audited": 0, "update": {
        "previous": "release v1", "previous_included": 10, "identified": 0, "stages": [], "new_included": 0,
        "new_by_category": {}, "dropped": [], "total_included": 10,
        "identification": {**ident, "other_methods": 1, "screened": 7, "awaiting": 7, "found_again": 0}}}
    rows = list(update_table(flow).frame["records"].items())
    assert rows[:5] == [("included in the previous version", 10), ("records identified from arXiv (update rounds)", 5),
                        ("records identified by citation searching (update rounds; other methods)", 4),
                        ("duplicates removed before screening", 3),
                        ("records identified by other methods (added by hand)", 1)]
    from masrl.render.figures import flow as figure

    drawn = figure.draw({**flow, "stages": [], "retained": 0, "retained_by_category": {}, "category_labels": {}})
    texts = {t.get_gid(): t.get_text().replace("\u00a0", " ") for t in drawn.axes[0].texts if t.get_gid()}
    assert texts["identified"] == "Records identified via databases and\nregisters (n = 5)"
    assert texts["identified:other"] == "Records identified via other methods\n(n = 5)"
    assert texts["identified:other_methods"] == "citation searching (update rounds): 4\nadded by hand: 1"


class Limited:
    """A server that answers its first request HTTP 429 with ``Retry-After: 5``, then as ``api``, and
    every request HTTP 500 once ``broken`` is set."""

    def __init__(self, api):
        self.api, self.log, self.calls, self.broken = api, [], 0, False

    def answer(self, path, params):
        self.calls += 1
        if self.broken:
            return 500, "text/html", b"<html>Internal Server Error</html>"
        if self.calls == 1:
            return 429, "application/json", b'{"message": "Too Many Requests"}', {"Retry-After": "5"}
        return self.api.answer(path, params)


@pytest.mark.parametrize("name", ["openreview", "semanticscholar", "citations"])
def test_each_new_source_waits_out_a_rate_limit_and_names_a_server_error(serve, name):
    api = Limited(OpenReviewServer() if name == "openreview" else SemanticScholarServer())
    served = serve(api)
    make = {"openreview": lambda: openreview(f"{served.url}/notes", venues=["ICLR.cc/2026/Conference"]),
            "semanticscholar": lambda: s2(f"{served.url}/graph/v1"),
            "citations": lambda: citations(f"{served.url}/graph/v1", Seeds(lovelace2026={"arxiv": "2605.10001"}),
                                           directions=["forward"])}[name]
    source = make()
    runs = source.search_all([], *WINDOW, NOW) if name == "citations" else [source.search(ORCH, *WINDOW, NOW)]
    assert sum(len(r.found) for r in runs) == {"openreview": 1, "semanticscholar": 2, "citations": 2}[name]
    assert source.session.sleeps[0] == 5.0 and source.session.rate_limited == 1
    api.broken = True
    label = {"openreview": "the OpenReview API", "semanticscholar": "the Semantic Scholar API",
             "citations": "the Semantic Scholar API"}[name]
    with pytest.raises(SourceError) as err:
        fresh = make()
        fresh.search_all([], *WINDOW, NOW) if name == "citations" else fresh.search(ORCH, *WINDOW, NOW)
    assert str(err.value).endswith(f"{label} answered HTTP 500")


def test_many_queries_that_end_for_one_reason_are_one_line():
    """Citation searching of 84 seeds Semantic Scholar does not know: one line, not 168."""
    from masrl.review.update.search import _notes
    from masrl.review.update.sources.base import QueryRun

    def ended(family, why):
        run = QueryRun(family)
        run.stopped = why
        return ("citation searching", run)

    many = [ended(f"{way} k{i}", "Semantic Scholar has no such paper") for i in range(84) for way in ("cites", "cited by")]
    assert _notes(many) == ["citation searching: 168 queries ended early: Semantic Scholar has no such paper "
                            "(round.yaml names each query)"]
    assert _notes(many[:2]) == ["citation searching, cites k0: Semantic Scholar has no such paper",
                                "citation searching, cited by k0: Semantic Scholar has no such paper"]


@pytest.mark.parametrize(("venue", "venueid", "asked", "shown"), [
    ("", "ICLR.cc/2026/Conference", "ICLR.cc/2026/Conference", "ICLR 2026"),  # a venue id is no venue's name
    ("ICLR 2026 Poster", "ICLR.cc/2026/Conference", "ICLR.cc/2026/Conference", "ICLR 2026 Poster"),
    ("Submitted to ICLR 2026", "ICLR.cc/2026/Conference/Rejected_Submission",
     "ICLR.cc/2026/Conference/Rejected_Submission", "Submitted to ICLR 2026; rejected"),
    ("", "ICLR.cc/2026/Conference/Withdrawn_Submission", "ICLR.cc/2026/Conference/Withdrawn_Submission", "ICLR 2026; withdrawn"),
    ("", "", "", "OpenReview")])
def test_a_note_names_one_venue_whether_an_update_round_or_masrl_add_reads_it(venue, venueid, asked, shown):
    """The venue of a record made of a note is the same through `update apply` (the note listed under the venue
    asked) and `masrl add` (the note asked for by id, no venue)."""
    from masrl.bib.openreview_json import Paper, decision, shown_venue

    listed = Paper("OrNote0001", "An Orchestrator", ("Lovelace, Ada",), "", venue, venueid, "2026-05-20",
                   decision(venueid, asked) if asked else "")
    by_id = Paper("OrNote0001", "An Orchestrator", ("Lovelace, Ada",), "", venue, venueid, "2026-05-20", "")
    assert shown_venue(listed) == shown_venue(by_id) == shown


def test_a_crossref_work_without_a_container_names_its_publisher_as_masrl_add_does(serve):
    from masrl.review.update.sources.crossref import CrossrefSource

    work = {"DOI": "10.5555/orch.9", "title": ["An Orchestrator"], "published": {"date-parts": [[2026, 5, 21]]},
            "author": [{"family": "Lovelace", "given": "Ada"}], "type": "proceedings-article", "publisher": "Orchestra Press"}
    body = json.dumps({"status": "ok", "message-type": "work-list", "message": {
        "total-results": 1, "items": [work], "items-per-page": 100, "next-cursor": "c1"}}).encode()
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    fake = FakeClock()
    source = CrossrefSource(Searcher("crossref", "Crossref", f"{served.url}/works", "MASRL_CROSSREF_API", "Crossref"),
                            clock=fake, sleep=fake.sleep)
    family = Family("orchestration", ("orchestrator",), "orchestration", (("orchestrator",),), {"crossref": "orchestrator"})
    (found,) = source.search(family, *WINDOW, NOW).found
    assert found.venue == "Orchestra Press"
    assert "publisher" in served.log[0][1]["select"].split(",")


def test_a_semantic_scholar_acl_id_is_kept_with_the_paper(serve):
    """externalIds.ACL is one of the API's documented ids, and a record holds an acl scheme: kept, as the DOI is."""
    paper = {**_one_paper(1), "externalIds": {"ACL": "2026.acl-long.5", "DOI": "10.18653/v1/2026.acl-long.5"}}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps({"total": 1, "data": [paper]}).encode())))
    (found,) = s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW).found
    assert found.identifiers == {"doi": "10.18653/v1/2026.acl-long.5", "acl": "2026.acl-long.5"}
    bad = {**_one_paper(1), "externalIds": {"ACL": "not-an-id"}}
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps({"total": 1, "data": [bad]}).encode())))
    run = s2(f"{served.url}/graph/v1").search(ORCH, *WINDOW, NOW)
    assert run.found == [] and "externalIds.ACL: 'not-an-id' is not an ACL Anthology id" in run.unusable[0]


def test_a_note_withdrawn_and_another_decided_before_a_page_start_are_both_seen(serve):
    """Between pages 1 and 2 note 1 leaves and note 5 joins before the page's start: the note page 2 starts from
    stays where it was and the count stays 5, so one reading missed note 5 without a word. A second reading holds
    other notes, a third the same as the second: that one is kept. Notes that keep changing are refused."""
    def note(i):
        return {"id": f"note{i:05d}", "forum": f"note{i:05d}", "pdate": 1779000000000,
                "content": {"title": {"value": f"An orchestrator {i}"}, "authors": {"value": ["Ada Lovelace"]},
                            "venueid": {"value": VENUES[0]}}}

    asked = []

    def reply(path, params):
        offset, limit = int(params["offset"]), int(params["limit"])
        asked.append(offset)
        held = [0, 1, 2, 3, 4] if len(asked) == 1 else [0, 5, 2, 3, 4]  # by number: note 5 was number 1's neighbour
        body = {"notes": [note(i) for i in held[offset:offset + limit]], "count": 5}
        return 200, "application/json", json.dumps(body).encode()

    served = serve(Scripted(reply))
    run = openreview(f"{served.url}/notes", venues=VENUES[:1], limit=3).search(ORCH, *WINDOW, NOW)
    assert sorted(f.identifier for f in run.found) == [f"openreview:note{i:05d}" for i in (0, 2, 3, 4, 5)]
    assert (run.total, run.requests) == (5, 6) and asked == [0, 2, 0, 2, 0, 2]
    flip = iter(range(1000))
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(
        {"notes": [note(i) for i in ([0, 1, 2] if next(flip) % 4 < 2 else [0, 5, 2])[int(params["offset"]):]
                   [:int(params["limit"])]], "count": 3}).encode())))
    with pytest.raises(SourceError, match=r"notes of venue 'ICLR.cc/2026/Conference' changed while they were paged, "
                                          r"in three readings"):
        openreview(f"{served.url}/notes", venues=VENUES[:1], limit=2).search(ORCH, *WINDOW, NOW)


def test_a_record_known_by_its_acl_id_is_a_seed_and_one_no_seed_can_be_made_of_is_named(small_survey, cli, clock,
                                                                                         every_source):
    """A retained record with only an ACL Anthology id was never searched (Semantic Scholar takes ACL:<id>), and the
    records with only an OpenReview id or a web page were left out without a word (round.yaml said only `seeds: N`)."""
    from masrl.review.update.sources.citations import seeds, unseeded

    corpus = Seeds(a2026={"arxiv": "2605.10001"}, b2025={"acl": "2025.acl-long.476"}, c2026={"openreview": "Q4Nk6PlZYH"},
                   d2024={"url": ["https://example.org/post"]}, e2023={"doi": "10.5555/x.1", "acl": "2023.acl-long.1"})
    assert seeds(corpus) == [("a2026", "arXiv:2605.10001"), ("b2025", "ACL:2025.acl-long.476"), ("e2023", "DOI:10.5555/x.1")]
    assert unseeded(corpus) == ["c2026", "d2024"]
    run = cli("add", "--root", small_survey, "--no-fetch", "--openreview", "Q4Nk6PlZYH", "--title", "A Paper Known by "
              "Its Forum Only", "--author", "Hopper, Grace", "--year", "2026")
    assert run.code == 0, run.err
    run = cli("update", "search", "--root", small_survey, "--since", "2026-05-04", "--until", "2026-06-30")
    assert run.code == 0, run.err
    (note,) = [line for line in run.err.splitlines() if "no id Semantic Scholar takes" in line]
    assert note.startswith("warning: citation searching: 1 retained record(s) have no id") and note.endswith(
        "their citations are not searched: hopper2026")


@pytest.mark.parametrize("body", [{"total": 5, "data": []}, {"offset": 0, "data": [], "total": 7, "token": "abc"},
                                  {"data": [], "next": 3}])
def test_a_links_answer_without_its_offset_or_with_a_search_answers_total_is_refused(serve, body):
    """A search answer served for /references was read as "no links", and the round written as if the seed had none."""
    served = serve(Scripted(lambda path, params: (200, "application/json", json.dumps(body).encode())))
    source = citations(f"{served.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"])
    with pytest.raises(SourceError, match=r"(\$\.total|\$\.offset|offset)"):
        source.search_all([], *WINDOW, NOW)


@pytest.mark.parametrize("says_next", [True, False])
def test_a_link_list_at_the_apis_bound_of_9999_is_not_taken_for_whole(serve, says_next):
    """Run 41: the API serves a paper's links only while offset + limit < 10,000, so a seed cited 60,000 times gave
    9,999 links and the round recorded it as complete (not_fetched 0) without a word; masrl's last page also asked
    past that bound."""
    def reply(path, params):
        offset, limit = int(params["offset"]), int(params["limit"])
        assert offset + limit <= 9999, (offset, limit)  # never asks past the API's bound
        end = min(offset + limit, 9999)
        page = {"offset": offset, "data": [{"citedPaper": {**_one_paper(i), "publicationDate": "2020-01-01"}}
                                           for i in range(offset, end)]}
        if says_next or end < 9999:
            page["next"] = end
        return 200, "application/json", json.dumps(page).encode()

    served = serve(Scripted(reply))
    source = citations(f"{served.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"],
                       delay=0)
    with pytest.raises(SourceError, match="serves at most 9,999 links of one paper"):
        source.search_all([], *WINDOW, NOW)
    source = citations(f"{served.url}/graph/v1", Seeds(a2026={"arxiv": "2605.10001"}), directions=["backward"],
                       delay=0, allow_incomplete=True)
    (run,) = source.search_all([], *WINDOW, NOW)
    assert (run.returned, run.not_fetched, run.incomplete) == (9999, 1, True)
    assert run.stopped.startswith("the Semantic Scholar API serves at most 9,999 links of one paper (it answers only")
    from masrl.review.update.search import lost_text

    assert lost_text(run) == "at least 1 record(s) not fetched (9,999 fetched; the source gives no count)"  # run 42
