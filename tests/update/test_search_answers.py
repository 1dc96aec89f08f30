"""masrl update search never loses or invents a record, whatever the server answers.

Each kind of fault has its tests: records lost without a word (kind 1), broken answers taken
for a search (2), rounds that masrl's own checks refuse (3), tracebacks (4), and the network's
own tricks (5): redirects to another host, servers that trickle, the pace across runs, an
endpoint that is not a URL. Every server is local (tests/update/servers.py), every survey is made
with ``masrl init`` (its protocol: tests/data/update/protocol_basic.yaml), every wait is on a fake clock.
"""

from __future__ import annotations

import contextlib
import csv
import datetime
import gzip
import json
import re
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest
import yaml

from masrl.review.update.protocol import Family, Searcher
from masrl.review.update.sources import SourceError
from masrl.review.update.sources.arxiv import ArxivSource
from masrl.review.update.sources.crossref import CrossrefSource
from servers import ATOM, DATA, ArxivServer, FakeClock, Scripted, atom, clock, entry, serve, small_survey  # noqa: F401

ARXIV = ("--source", "arxiv")
WINDOW = ("--since", "2026-05-04", "--until", "2026-06-30")
ORCH = Family("orchestration", ("orchestrator",), "orchestration", (("orchestrator", "orchestration", "delegation"),),
              {"arxiv": '(ti:"orchestrator" OR abs:"orchestrator")', "crossref": "orchestrator"})
NOW = lambda: "2026-07-01T00:00:00Z"  # noqa: E731


@pytest.fixture
def basic_survey(small_survey):
    """``small_survey`` with the protocol of ``tests/data/update/protocol_basic.yaml``: arXiv and Crossref only."""
    (small_survey / "corpus" / "protocol.yaml").write_bytes((DATA / "protocol_basic.yaml").read_bytes())
    return small_survey


class SyntheticArxiv(ArxivServer):
    """The fake arXiv API holding ``n`` matching records ("Orchestrator study i", by "Ada Orchestra" and i's digits
    as letters, a name having no digit), one a day from ``first`` on (wrapping over 50 days), and nothing else."""

    def __init__(self, n: int, first: str = "2026-05-05", **kwargs):
        super().__init__(**kwargs)
        self.entries = []
        self.first = datetime.date.fromisoformat(first)
        for i in range(n):
            day = self.day(i)
            entry = ET.fromstring(
                f'<entry xmlns="{ATOM}"><id>http://arxiv.org/abs/{self.ident(i)}v1</id>'
                f"<updated>{day}T10:00:00Z</updated><published>{day}T10:00:00Z</published>"
                f"<title>Orchestrator study {i}</title><summary>We train an orchestrator, number {i}.</summary>"
                f"<author><name>Ada Orchestra{''.join('abcdefghij'[int(d)] for d in str(i))}</name></author></entry>")
            self.entries.append(entry)

    def day(self, i: int) -> str:
        return (self.first + datetime.timedelta(days=i % 50)).isoformat()

    def ident(self, i: int) -> str:
        """Record ``i``'s arXiv id: numbered in the month of its day, as arXiv numbers a paper."""
        day = self.day(i)
        return f"{day[2:4]}{day[5:7]}.{20000 + i:05d}"


def rounds(root: Path) -> list[Path]:
    folder = root / "corpus" / "rounds"
    return sorted(folder.iterdir()) if folder.exists() else []


def queue(root: Path) -> list[str]:
    (folder,) = rounds(root)
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        return [row["identifier"].split("; ")[0] for row in csv.DictReader(handle)]  # the id each is named by


def meta(root: Path) -> dict:
    (folder,) = rounds(root)
    return yaml.safe_load((folder / "round.yaml").read_text(encoding="utf-8"))


def write_rows(path: Path, rows: list[dict]) -> None:
    """A round's sheet written back with ``rows`` (a screener's decisions filled in)."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def point(monkeypatch, served, name: str = "MASRL_ARXIV_API", path: str = "/api/query") -> None:
    monkeypatch.setenv(name, f"{served.url}{path}")


def arxiv_source(url: str, **kwargs) -> ArxivSource:
    fake = FakeClock()
    return ArxivSource(Searcher("arxiv", "arXiv", url, "MASRL_ARXIV_API", "arXiv"), clock=fake, sleep=fake.sleep, **kwargs)


def crossref_source(url: str, **kwargs) -> CrossrefSource:
    fake = FakeClock()
    return CrossrefSource(Searcher("crossref", "Crossref", url, "MASRL_CROSSREF_API", "Crossref"), clock=fake,
                          sleep=fake.sleep, **kwargs)


# ---------------------------------------------------------------- kind 1: no record lost without a word

def test_a_thousand_records_in_the_window_are_all_queued_and_the_run_says_how_many_requests(basic_survey, cli, clock,
                                                                                              serve, monkeypatch):
    served = serve(SyntheticArxiv(1000))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 0, run.err
    assert len(queue(basic_survey)) == 1000 == len(set(queue(basic_survey)))
    (query,) = meta(basic_survey)["sources"][0]["queries"]
    assert (query["total"], query["returned"], query["kept"], query["requests"], query["pages"], query["not_fetched"]) == (
        1000, 1000, 1000, 10, 10, 0)
    assert ": 1 queries, 10 requests; 1000 records found (arXiv 1000), 0 duplicates, 1000 queued" in run.out
    # each later page is asked from the last record received (it must still be there: the set did not move)
    assert [(int(p["start"]), int(p["max_results"])) for _, p in served.log] == [(0, 100)] + [(k * 100 - 1, 101)
                                                                                            for k in range(1, 10)]
    assert cli("validate", "--root", basic_survey).code == 0


def test_a_result_set_past_the_paging_bound_fails_naming_the_counts_unless_allowed(basic_survey, cli, clock, serve,
                                                                                    monkeypatch):
    served = serve(SyntheticArxiv(30))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV, "--max-records", "20")
    assert run.code == 1 and rounds(basic_survey) == []
    assert run.err.splitlines() == [
        f"masrl: error: cannot search arXiv: {served.url.removeprefix('http://')}: family 'orchestration' has 30 results in "
        "the window, more than the paging bound of 20 per query: nothing was fetched past the first page; narrow the window "
        "(--since/--until), raise --max-records (arXiv serves at most 30,000), or give --allow-incomplete; nothing was written"]
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV, "--max-records", "20", "--allow-incomplete")
    assert run.code == 0, run.err
    (query,) = meta(basic_survey)["sources"][0]["queries"]
    assert (query["total"], query["returned"], query["kept"], query["not_fetched"]) == (30, 20, 20, 10)
    assert query["stopped"] == "the paging bound of 20 records per query (--max-records)"
    assert "warning: arXiv, orchestration: 10 of 30 record(s) not fetched: the paging bound of 20 records per query" in run.err
    assert len(queue(basic_survey)) == 20
    assert cli("validate", "--root", basic_survey).code == 0


def test_crossref_past_its_page_bound_fails_unless_allowed(basic_survey, cli, clock, serve, monkeypatch):
    items = [{"DOI": f"10.5555/orch.{i}", "title": [f"An orchestrator {i}"], "published": {"date-parts": [[2026, 6, 1]]},
              "author": [{"family": "Lovelace", "given": "Ada"}], "type": "proceedings-article"} for i in range(5)]

    def reply(path, params):
        start = 0 if params["cursor"] == "*" else int(params["cursor"])
        rows = int(params["rows"])
        return 200, "application/json", json.dumps({"status": "ok", "message-type": "work-list", "message": {
            "total-results": 5, "items": items[start:start + rows], "items-per-page": rows,
            "next-cursor": str(start + rows)}}).encode()

    served = serve(Scripted(reply))
    point(monkeypatch, served, "MASRL_CROSSREF_API", "/works")
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref", "--max-records", "200")
    assert run.code == 0, run.err  # 2 pages of 100 allowed, 5 records: complete
    source = crossref_source(f"{served.url}/works", rows=2, max_pages=2)
    found = source.search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert (found.returned, found.not_fetched, found.incomplete) == (4, 1, True)
    assert found.stopped == "the paging bound of 2 pages of 2 per query"


def test_a_server_claiming_a_billion_results_is_refused_by_name(basic_survey, cli, clock, serve, monkeypatch):
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", atom(entry(), 10**9))))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 1 and rounds(basic_survey) == []
    assert run.err.splitlines()[-1].endswith(
        "the arXiv API says family 'orchestration' has 1,000,000,000 results, more than the 30,000 the API serves for one "
        "query: not an answer of arXiv (is the endpoint right?); nothing was written")
    assert len(served.log) == 1


class ShiftingArxiv(SyntheticArxiv):
    """After its first page, one record already sent is withdrawn and one joins at the end: the total stays
    the same, and the record at the first page's boundary slides back into that page, unseen by plain paging."""

    def page(self, params: dict) -> bytes:
        if self.log and len(self.log) == 2 and not getattr(self, "moved", False):  # the second request is being answered
            self.moved = True
            del self.entries[5]
            self.entries.append(ET.fromstring(
                f'<entry xmlns="{ATOM}"><id>http://arxiv.org/abs/2606.39999v1</id><updated>2026-06-20T10:00:00Z</updated>'
                "<published>2026-06-20T10:00:00Z</published><title>Orchestrator study late</title>"
                "<summary>We train an orchestrator.</summary><author><name>Late Author</name></author></entry>"))
        return super().page(params)


def test_a_result_set_that_moves_while_it_is_paged_is_refused_not_left_a_record_short(basic_survey, cli, clock, serve,
                                                                                         monkeypatch):
    served = serve(ShiftingArxiv(150))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 1 and rounds(basic_survey) == [], run.err
    assert run.err.splitlines()[-1].endswith(
        "the arXiv API: the result set moved while it was paged: the record at position 99 was arxiv:2606.20033, and is "
        "now arxiv:2606.20083; a record may have slid between two pages unseen, so nothing was kept: run the search "
        "again; nothing was written")
    still = SyntheticArxiv(150)
    served.api.entries = still.entries  # the same set, standing still: every record, each once
    assert cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV).code == 0
    assert sorted(queue(basic_survey)) == sorted(f"arxiv:{still.ident(i)}" for i in range(150))


def test_an_arxiv_entry_sent_twice_in_one_page_is_named_as_such(serve):
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", atom(entry() + entry(), 2))))
    with pytest.raises(SourceError) as err:
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert str(err.value).endswith("arxiv:2605.30001 is sent twice in the page from 0")


def test_records_returned_outside_the_window_are_counted_and_named(basic_survey, cli, clock, serve, monkeypatch):
    page = atom(entry("2605.30001") + entry("2604.09999", published="2026-04-30T10:00:00Z"), 2)
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", page)))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 0, run.err
    assert queue(basic_survey) == ["arxiv:2605.30001"]
    (query,) = meta(basic_survey)["sources"][0]["queries"]
    assert (query["returned"], query["kept"], query["outside_window"]) == (2, 1, 1)
    assert query["outside_window_records"] == ["arxiv:2604.09999 (2026-04-30)"]
    assert ("warning: arXiv, orchestration: 1 record(s) returned outside the window, not queued: "
            "arxiv:2604.09999 (2026-04-30)") in run.err
    assert cli("validate", "--root", basic_survey).code == 0


def test_the_network_dependencies_are_locked():
    root = Path(__file__).resolve().parents[2]
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    deps = dict(re.findall(r'^\s+"([A-Za-z0-9_-]+)([^"]*)",', text.split("[project.optional-dependencies]")[0], re.M))
    assert "arxiv" not in deps  # its defaults changed between majors (4.x pages 100 results unless told)
    assert [name for name, spec in deps.items() if "<" not in spec] == []  # every one in a tested range
    pins = {name.lower() for name, _ in (line.split("==") for line in (root / "constraints.txt").read_text().splitlines()
                                         if "==" in line and not line.startswith("#"))}
    assert {name.lower() for name in deps} <= pins


def test_a_record_without_a_date_is_counted_outside_the_window_and_named(serve):
    """Crossref works without any date: no day to place them in the window, so named, not dropped."""
    undated = {k: v for k, v in work(DOI="10.5555/orch.2").items() if k != "published"}
    served = serve(Scripted(lambda path, params: (200, "application/json", work_list([work(), undated]))))
    run = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert [f.identifier for f in run.found] == ["doi:10.5555/orch.1"]
    assert (run.returned, run.not_matching, run.outside_window) == (2, 0, ["doi:10.5555/orch.2 (no date)"])


@pytest.mark.parametrize(("parts", "since", "kept", "outside"), [
    ([2026], "2026-05-04", None, "doi:10.5555/orch.2 (2026, no month)"),
    ([2026, 5], "2026-05-04", None, "doi:10.5555/orch.2 (2026-05, no day)"),
    ([2026, 5], "2026-05-01", "2026-05-01", None),
    ([2026], "2026-01-01", "2026-01-01", None),
    ([2026, 5, 20], "2026-05-04", "2026-05-20", None)])
def test_a_crossref_date_given_as_a_year_or_a_month_is_kept_only_when_the_window_holds_all_of_it(serve, parts, since, kept,
                                                                                                  outside):
    dated = work(DOI="10.5555/orch.2", published={"date-parts": [parts]})
    served = serve(Scripted(lambda path, params: (200, "application/json", work_list([dated]))))
    run = crossref_source(f"{served.url}/works").search(ORCH, since, "2026-12-31", NOW)
    assert [f.published for f in run.found] == ([kept] if kept else [])
    assert run.outside_window == ([outside] if outside else [])


def test_crossref_pages_on_past_a_page_whose_matching_works_were_not_kept(serve):
    """The relevance rule stops at a page with no work matching the family; works that match but
    are not kept (a year-only date, no title's worth of id) do not end the search."""
    first = [work(DOI=f"10.5555/year.{i}", published={"date-parts": [[2026]]}) for i in (1, 2)]

    def reply(path, params):
        page = first if params.get("cursor") == "*" else [work(DOI="10.5555/orch.9")]
        return 200, "application/json", work_list(page, total=3, **{"next-cursor": "c1"})

    served = serve(Scripted(reply))
    run = crossref_source(f"{served.url}/works", rows=2).search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert ([f.identifier for f in run.found], run.pages, run.not_fetched, run.stopped) == (["doi:10.5555/orch.9"], 2, 0, "")
    assert run.outside_window == ["doi:10.5555/year.1 (2026, no month)", "doi:10.5555/year.2 (2026, no month)"]


def test_crossref_never_fetches_past_max_records(serve):
    """The last page asks only for what the bound leaves (--max-records 3 with pages of 2: 2 + 1)."""
    works = [work(DOI=f"10.5555/orch.{i}") for i in range(1, 6)]

    def reply(path, params):
        start = 0 if params["cursor"] == "*" else int(params["cursor"])
        page = works[start:start + int(params["rows"])]
        return 200, "application/json", work_list(page, total=5, **{"next-cursor": str(start + len(page))})

    served = serve(Scripted(reply))
    run = crossref_source(f"{served.url}/works", rows=2, max_records=3, allow_incomplete=True).search(
        ORCH, "2026-05-04", "2026-06-30", NOW)
    assert [p["rows"] for _, p in served.log] == ["2", "1"]
    assert (run.returned, run.not_fetched, run.incomplete) == (3, 2, True)
    assert run.stopped == "the paging bound of 3 records per query (--max-records)"


def test_a_query_records_when_its_first_request_went_out(serve):
    """``sent`` is the first request's moment, not the query's start: the pace holds it back."""
    import datetime

    served = serve(Scripted(lambda path, params: (200, "application/json", work_list([work()], total=1))))
    source = crossref_source(f"{served.url}/works")
    clock = source.session.clock
    clock.now = 1_790_000_000.0

    def now():
        return datetime.datetime.fromtimestamp(clock(), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    source.search(ORCH, "2026-05-04", "2026-06-30", now)
    began = now()  # the next query begins at once; its request waits for the pace
    run = source.search(ORCH, "2026-05-04", "2026-06-30", now)
    first_request = datetime.datetime.fromtimestamp(source.session.started[-1], datetime.timezone.utc)
    assert run.sent == first_request.strftime("%Y-%m-%dT%H:%M:%SZ") != began


def test_a_crossref_work_without_a_title_or_a_doi_is_counted_unusable_and_named(serve):
    untitled, no_doi = work(DOI="10.5555/orch.2", title=[]), {k: v for k, v in work(DOI="x").items() if k != "DOI"}
    served = serve(Scripted(lambda path, params: (200, "application/json", work_list([work(), untitled, no_doi]))))
    run = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert [f.identifier for f in run.found] == ["doi:10.5555/orch.1"]
    assert (run.returned, run.not_matching, run.unusable) == (3, 0, ["doi:10.5555/orch.2 (no title)",
                                                                    "item 2 of page 1 (no DOI)"])



def test_the_run_names_on_the_terminal_the_records_it_could_not_queue(basic_survey, cli, clock, serve, monkeypatch):
    untitled, no_doi = work(DOI="10.5555/orch.2", title=[]), {k: v for k, v in work(DOI="x").items() if k != "DOI"}
    served = serve(Scripted(lambda path, params: (200, "application/json", work_list([work(), untitled, no_doi]))))
    point(monkeypatch, served, "MASRL_CROSSREF_API", "/works")
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref")
    assert run.code == 0, run.err
    assert ("Crossref, orchestration: 2 record(s) returned without what a candidate needs, or with a value no record may hold, not "
            "queued: doi:10.5555/orch.2 "
            "(no title), item 2 of page 1 (no DOI)") in run.out + run.err



PREPRINT = [{"id-type": "arxiv", "id": "2605.30001", "asserted-by": "subject"}]


def test_every_id_of_a_candidate_is_queued_so_a_later_round_and_its_record_know_them(basic_survey, cli, clock, serve,
                                                                                     monkeypatch):
    """A venue version names its preprint: the queue keeps both ids, so the preprint found by a later round is a
    duplicate of the queued candidate (not a second candidate), and the record made from it carries both."""
    venue = work(DOI="10.5555/conf.77", title=["CREDO: Counterfactual Credit for Orchestrator Teams"],
                 relation={"has-preprint": PREPRINT})
    point(monkeypatch, serve(Scripted(lambda path, params: (200, "application/json", work_list([venue])))),
          "MASRL_CROSSREF_API", "/works")
    assert cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref").code == 0
    (first,) = rounds(basic_survey)
    with open(first / "queue.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["identifier"] for row in rows] == ["doi:10.5555/conf.77; arxiv:2605.30001"]
    preprint = atom(entry("2605.30001", title="Learning to Assign Credit Among Talking Agents"), 1)
    point(monkeypatch, serve(Scripted(lambda path, params: (200, "application/atom+xml", preprint))))
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 0, run.err
    (second,) = [folder for folder in rounds(basic_survey) if folder != first]
    assert (second / "queue.csv").read_text(encoding="utf-8").count("\n") == 1  # the header: nothing new
    with open(second / "duplicates.csv", encoding="utf-8", newline="") as handle:
        (dup,) = csv.DictReader(handle)
    assert (dup["identifier"], dup["status"], dup["matched"], dup["rule"]) == (
        "arxiv:2605.30001", "queued", f"corpus/rounds/{first.name}/queue.csv:2", "same arxiv 2605.30001")
    rows[0]["decision"] = "include"
    write_rows(first / "queue.csv", rows)
    run = cli("update", "apply", "--root", basic_survey, first.name)
    assert run.code == 0, run.err
    (made,) = re.findall(r"created (corpus/papers/\S+\.yaml)", run.out + run.err)
    record = yaml.safe_load((basic_survey / made).read_text(encoding="utf-8"))
    assert record["identifiers"] == {"arxiv": "2605.30001", "doi": "10.5555/conf.77"}


def test_a_duplicate_gives_its_ids_to_the_candidate_so_a_third_record_with_one_of_them_is_found_the_same():
    """arXiv's preprint, then its venue version naming the preprint and its DOI, then a record with that DOI alone
    (and another title): one candidate, with both ids, and two duplicates of it."""
    from types import SimpleNamespace

    from masrl.review.update.dedupe import deduplicate
    from masrl.review.update.sources.base import Found

    def found(ident, ids, title):
        return Found(ident, ids, title, ("Lovelace, Ada",), 2026, "", "", "2026-06-01")

    runs = [("arXiv", [found("arxiv:2605.30001", {"arxiv": "2605.30001"}, "Learning to assign credit among talking agents")]),
            ("Crossref", [found("doi:10.5555/conf.77", {"arxiv": "2605.30001", "doi": "10.5555/conf.77"},
                                "CREDO: Counterfactual Message Credit for LLM Teams")]),
            ("Semantic Scholar", [found("doi:10.5555/conf.77", {"doi": "10.5555/CONF.77"},
                                        "CREDO: Counterfactual Message Credit for Language-Model Teams")])]
    corpus = SimpleNamespace(retained={}, excluded={}, rounds={})
    candidates, duplicates, _, _ = deduplicate(corpus, [(label, SimpleNamespace(family="credit", found=records))
                                                        for label, records in runs])
    assert [(c.identifiers, c.sources) for c in candidates] == [
        (["arxiv:2605.30001", "doi:10.5555/conf.77"], ["arXiv", "Crossref", "Semantic Scholar"])]
    assert [(d.source, d.status, d.rule) for d in duplicates] == [
        ("Crossref", "this round", "same arxiv 2605.30001"), ("Semantic Scholar", "this round", "same doi 10.5555/conf.77")]
    # a record that joins two records' ids (no id or title in common) makes them one paper, whatever order they come in:
    # the screener once saw two rows of one paper
    for order in ((0, 1, 2), (2, 1, 0), (1, 2, 0)):
        runs = [("arXiv", [found("arxiv:2605.30001", {"arxiv": "2605.30001"}, "Learning to assign credit among talking agents")]),
                ("Crossref", [found("doi:10.5555/conf.77", {"doi": "10.5555/conf.77"}, "CREDO: Counterfactual Message Credit")]),
                ("Semantic Scholar", [found("arxiv:2605.30001", {"arxiv": "2605.30001", "doi": "10.5555/conf.77"},
                                            "Credit talk")])]
        runs = [runs[k] for k in order]
        candidates, duplicates, tallies, _ = deduplicate(corpus, [(label, SimpleNamespace(family="credit", found=records))
                                                                  for label, records in runs])
        assert len(candidates) == 1 and sorted(candidates[0].identifiers) == ["arxiv:2605.30001", "doi:10.5555/conf.77"]
        assert candidates[0].sources == [label for label, _ in runs] and len(duplicates) == 2
        assert sum(t.queued for t in tallies.values()) == 1 and sum(t.duplicates for t in tallies.values()) == 2
    # a second DOI (a journal version's, by a title this similar) is not one the record could keep: not taken
    runs = [("Crossref", [found("doi:10.5555/conf.77", {"arxiv": "2605.30001", "doi": "10.5555/conf.77"}, "CREDO: Credit")]),
            ("Semantic Scholar", [found("doi:10.5555/jour.78", {"doi": "10.5555/jour.78"}, "CREDO: Credit!")])]
    candidates, duplicates, _, _ = deduplicate(corpus, [(label, SimpleNamespace(family="credit", found=records))
                                                        for label, records in runs])
    assert [c.identifiers for c in candidates] == [["doi:10.5555/conf.77", "arxiv:2605.30001"]]
    assert [(d.source, d.rule) for d in duplicates] == [("Semantic Scholar", "title 100% similar")]


def test_a_doi_holding_a_semicolon_is_one_id_of_the_queue(basic_survey, cli, clock, serve, monkeypatch):
    """Ids of a queue cell are separated by ``;`` and a space; a DOI may hold a ``;`` (never a space)."""
    from masrl.corpus.rounds import split_identifiers

    assert split_identifiers("arxiv:2606.04321; doi:10.5555/c.88;") == ["arxiv:2606.04321", "doi:10.5555/c.88"]  # the end
    doi = "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O"
    body = work_list([work(DOI=doi, title=["Orchestrator teams in information science"])])
    point(monkeypatch, serve(Scripted(lambda path, params: (200, "application/json", body))), "MASRL_CROSSREF_API", "/works")
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref")
    assert run.code == 0, run.err
    (folder,) = rounds(basic_survey)
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["identifier"] for row in rows] == [f"doi:{doi}"]
    rows[0]["identifier"] = f"doi:{doi}; arxiv:2605.30001; arxiv:2605.30002; url:https://x.org/a;openreview:abc; "  # by hand
    with open(folder / "queue.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    run = cli("validate", "--root", basic_survey)
    assert run.code == 1 and run.err.splitlines()[:-1] == [
        f"corpus/rounds/{folder.name}/queue.csv:2: identifier: 'url:https://x.org/a;openreview:abc' is two ids written as "
        "one: separate them with '; ' (a semicolon and a space)",
        f"corpus/rounds/{folder.name}/queue.csv:2: identifier: arxiv:2605.30001 and arxiv:2605.30002 are two arxiv ids: a "
        "row is one paper, and its record keeps one id of each scheme (several URLs); keep this paper's"], run.err

# ---------------------------------------------------------------- kind 2: a broken answer is not a search

BROKEN_ARXIV = {
    "an HTML page": (b"<!DOCTYPE html><html><body><h1>Service moved</h1></body></html>",
                     "an HTML page where the format has an Atom feed"),
    "an empty body": (b"", "an empty answer where the format has an Atom feed"),
    "a cut feed": (atom(entry() + entry("2605.30002"), 2)[:-200], "not well-formed XML"),
    "an entry too many": (atom(entry("2605.30001") + entry("2605.30002") + entry("2605.30003") + entry("2605.30004"), 3),
                          "the page from 0 has 4 entries, more than the 3 left of the 3 results the feed says it has"),
    "a total in superscript digits": (atom(entry(), "\u00b2"), "opensearch:totalResults is '\u00b2', not a non-negative integer"),
    "a total in Arabic-Indic digits": (atom(entry(), "\u0661"), "opensearch:totalResults is '\u0661', not a non-negative integer"),
    "an entry lost": (atom(entry("2605.30001") + entry("2605.30002"), 3),
                      "answered 2 of the 3 records of the page from 0 for family 'orchestration' after 3 retries"),
    "an entry without authors": (atom(entry(authors=""), 1), "entry 1 (arxiv:2605.30001): no author"),
    "an entry with an empty title": (atom(entry(title=""), 1), "entry 1 (arxiv:2605.30001): an empty title"),
    "a second DOI that is not one": (atom(entry(extra="<arxiv:doi>10.1234/abc.1 notadoi</arxiv:doi>"), 1),
                                     "entry 1 (arxiv:2605.30001): arxiv:doi (its value 2): 'notadoi' is not a DOI"),
    "a DOI naming another arXiv paper": (atom(entry(extra="<arxiv:doi>10.1234/abc.1 10.48550/arXiv.2605.39999</arxiv:doi>"), 1),
                                         "entry 1 (arxiv:2605.30001): arxiv:doi '10.48550/arXiv.2605.39999' names another "
                                         "arXiv paper"),
    "a primary category that is not one": (atom(entry(extra='<arxiv:primary_category term="cs.CL}{\\x" scheme="s"/>'), 1),
                                          "entry 1 (arxiv:2605.30001): arxiv:primary_category term 'cs.CL}{\\\\x' is not "
                                          "an arXiv category"),
    "a primary category arXiv has not": (atom(entry(extra='<arxiv:primary_category term="cs.cl"/>'), 1),
                                        "entry 1 (arxiv:2605.30001): arxiv:primary_category term 'cs.cl' is not an arXiv "
                                        "category (did you mean 'cs.CL'?)"),
    "a primary category without its term": (atom(entry(extra='<arxiv:primary_category term=""/>'), 1),
                                            "entry 1 (arxiv:2605.30001): arxiv:primary_category term '' is not an arXiv "
                                            "category"),
    "two primary categories": (atom(entry(extra='<arxiv:primary_category term="cs.MA"/><arxiv:primary_category '
                                                'term="math.AG"/>'), 1),
                               "entry 1 (arxiv:2605.30001): 2 arxiv:primary_category elements, not one"),
    "a first version after its id's month": (atom(entry(arxiv="2401.00001"), 1),
                                             "entry 1 (arxiv:2401.00001): published 2026-05-20: not in 2024-01, the month "
                                             "arXiv numbered 2401.00001 in"),
    "an id that is not arXiv's": (atom(entry().replace("http://arxiv.org/abs/2605.30001v1", "urn:x"), 1),
                                  "entry 1: id 'urn:x' is not an arXiv abstract URL"),
    # run 44: an abstract URL of an id no month has yet was called no abstract URL
    "an id of a month to come": (atom(entry().replace("http://arxiv.org/abs/2605.30001v1", "http://arxiv.org/abs/2612.00001v1"), 1),
                                 "entry 1: 'http://arxiv.org/abs/2612.00001v1' names no arXiv paper: 2612 is 2026-12, after "),
    **{f"a name that is {why}": (atom(entry(authors=f"<author><name>{xml}</name></author>"), 1),
                                 f"author 1: {text!r} is not one person's name")
       for why, xml, text in [("a Python list", "['Ada Lovelace', 'Alan Turing']", "['Ada Lovelace', 'Alan Turing']"),
                              ("a mapping", "{'name': 'Ada'}", "{'name': 'Ada'}")]},
}


@pytest.mark.parametrize("case", sorted(BROKEN_ARXIV))
def test_a_broken_arxiv_answer_is_refused_naming_the_source_and_nothing_is_written(basic_survey, cli, clock, serve,
                                                                                     monkeypatch, case):
    body, what = BROKEN_ARXIV[case]
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", body)))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 1 and rounds(basic_survey) == []
    (line,) = run.err.splitlines()
    assert line.startswith(f"masrl: error: cannot search arXiv: {served.url.removeprefix('http://')}: the arXiv API ")
    assert what in line and line.endswith("; nothing was written")


@pytest.mark.parametrize(("source", "kind", "body"), [
    ("arxiv", "text/html; charset=utf-8", atom(entry(), 1)),
    ("crossref", "text/html", None),
    ("crossref", "application/atom+xml", None),
])
def test_an_answer_declaring_another_media_type_is_refused_by_name(basic_survey, cli, clock, serve, monkeypatch, source,
                                                                   kind, body):
    """A valid-looking body under another media type (an HTML error page of a proxy, another API) is not the source's
    answer; one that declares none is judged by its body alone."""
    body = body or work_list([work()])
    served = serve(Scripted(lambda path, params: (200, kind, body)))
    point(monkeypatch, served, *(() if source == "arxiv" else ("MASRL_CROSSREF_API", "/works")))
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", source)
    expected = "application/atom+xml or application/xml or text/xml" if source == "arxiv" else "application/json"
    assert run.code == 1 and rounds(basic_survey) == []
    assert f"answered {kind.split(';')[0]!r} where its documented format is {expected}, so nothing of it was kept" in run.err
    served = serve(Scripted(lambda path, params: (200, "", body)))
    point(monkeypatch, served, *(() if source == "arxiv" else ("MASRL_CROSSREF_API", "/works")))
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", source)
    assert run.code == 0, run.err
    assert len(rounds(basic_survey)) == 1


def work(**fields) -> dict:
    return {"DOI": "10.5555/orch.1", "title": ["An Orchestrator"], "published": {"date-parts": [[2026, 6, 1]]},
            "author": [{"family": "Lovelace", "given": "Ada"}], "type": "proceedings-article", **fields}


def work_list(items, total=None, **message) -> bytes:
    return json.dumps({"status": "ok", "message-type": "work-list", "message": {
        "total-results": len(items) if total is None else total, "items": items, "items-per-page": 100,
        "next-cursor": "c1", **message}}).encode()


BROKEN_CROSSREF = {
    "a work of a type the filter left out": (work_list([work(type="peer-review")]),
                                             "$.message.items[0] (page 1).type: 'peer-review', a type the query's filter "
                                             "left out (it asks for proceedings-article, journal-article)"),
    "an organisation's name that is a list": (work_list([work(author=[{"name": "['Agents Lab', 'Tools Lab']"}])]),
                                              "$.message.items[0] (page 1).author[0].name: \"['Agents Lab', 'Tools "
                                              "Lab']\" is not one organisation's name"),
    "items as a string": (work_list([]).replace(b'"items": []', b'"items": "abc"'),
                          "Expected `array`, got `str` - at `$.message.items`"),
    "a title sent as a string": (work_list([work(title="Credit for agents")]),
                                 "Expected `array`, got `str` - at `$.message.items[0].title`"),
    "an author as a number and a list": (work_list([work(author=[{"family": 42, "given": ["x"]}])]),
                                         "Expected `str | null`, got `int` - at `$.message.items[0].author[0].family`"),
    "total-results as a word": (work_list([work()]).replace(b'"total-results": 1', b'"total-results": "lots"'),
                                "Expected `int`, got `str` - at `$.message.total-results`"),
    "total-results NaN": (work_list([work()]).replace(b'"total-results": 1', b'"total-results": NaN'), "not JSON"),
    "JSON nested 200,000 deep": (work_list([]).replace(b'"items": []', b'"items": [], "facets": ' + b"[" * 200000 + b"]" * 200000),
                                 "JSON nested deeper than any answer of the format"),
    "an HTML page": (b"<html><body>Rate limited</body></html>", "an HTML or XML page where the format has a JSON document"),
    "an empty body": (b"", "an empty answer where the format has a JSON document"),
    "a published date that is not a day": (work_list([work(published={"date-parts": [[2026, 6, 45]]})]),
                                           "$.message.items[0] (page 1).published: [2026, 6, 45] is not a date"),
    "more items than the total": (work_list([work(), work(DOI="10.5555/orch.2")], total=1),
                                  "2 items returned, but total-results says 1"),
    "given names as a Python list": (work_list([work(author=[{"family": "Lovelace", "given": "['Ada', 'Bob']"}])]),
                                     "$.message.items[0] (page 1).author[0].given: \"['Ada', 'Bob']\" is not one person's name"),
    "a DOI holding a hidden character": (work_list([work(DOI="10.1234/ab\u202ecd")]),
                                         "$.message.items[0] (page 1).DOI: the identifier '10.1234/ab\\u202ecd' holds U+202E "
                                         "RIGHT-TO-LEFT OVERRIDE (a bidirectional control); masrl keeps an identifier only as "
                                         "the source sent it"),
    "a DOI ending in a no-break space": (work_list([work(DOI="10.1234/abc.1\u00a0")]),
                                         "the identifier '10.1234/abc.1\\xa0' holds U+00A0 NO-BREAK SPACE (a blank)"),
    "a DOI holding a percent-escape": (work_list([work(DOI="10.1234/%41bc")]),
                                       "the DOI '10.1234/%41bc' holds percent-escapes; masrl keeps an identifier only"),
    "a DOI after a control character": (work_list([work(DOI="\u001f10.1234/abc.1")]),
                                        "the identifier '\\x1f10.1234/abc.1' holds U+001F"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_CROSSREF))
def test_a_broken_crossref_answer_is_refused_naming_the_source_and_nothing_is_written(basic_survey, cli, clock, serve,
                                                                                        monkeypatch, case):
    body, what = BROKEN_CROSSREF[case]
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    point(monkeypatch, served, "MASRL_CROSSREF_API", "/works")
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref")
    assert run.code == 1 and rounds(basic_survey) == []
    (line,) = run.err.splitlines()
    assert line.startswith(f"masrl: error: cannot search Crossref: {served.url.removeprefix('http://')}: the Crossref API ")
    assert what in line and line.endswith("; nothing was written"), line


def test_an_identifier_is_kept_as_the_source_sent_it_and_arxivs_own_doi_names_the_preprint(serve):
    """Character references are text to decode in a title, not in an identifier; arXiv's own DOI
    (10.48550/arXiv.<id>) is the preprint's arXiv id, never a ``doi:`` of that id."""
    body = work_list([work(DOI="10.1234/a&amp;b"), work(DOI="10.48550/arXiv.2605.20001", title=["Another orchestrator"])])
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    run = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert [(f.identifier, f.identifiers) for f in run.found] == [
        ("doi:10.1234/a&amp;b", {"doi": "10.1234/a&amp;b"}), ("arxiv:2605.20001", {"arxiv": "2605.20001"})]


@pytest.mark.parametrize(("given", "kept"), [
    ("10.1234/abc.1, 10.5678/def", "10.1234/abc.1"), ("10.1234/abc.1;10.5678/def", "10.1234/abc.1"),
    ("10.1234/abc.1,", "10.1234/abc.1"), ("10.48550/arXiv.2605.30001v2 10.1234/abc.1", "10.1234/abc.1"),
    ("10.1234/a(b;c)d", "10.1234/a(b;c)d")])
def test_several_dois_of_an_arxiv_entry_are_read_one_by_one_whatever_separates_them(given, kept):
    """A ',' or ';' between two DOIs separates them (no DOI ends in one): kept as a DOI, '10.1234/abc.1,' would be
    an identifier no resolver knows; arXiv's own DOI of the entry, versioned, is the entry itself."""
    from masrl.bib.arxiv_feed import read_feed

    (found,) = read_feed(atom(entry(extra=f"<arxiv:doi>{given}</arxiv:doi>"), 1)).entries
    assert found.doi == kept


def test_a_json_answer_holding_a_key_twice_is_refused(serve):
    """JSON's readers keep one of two values of a key, each its own: which title is the answer's is not said."""
    body = work_list([work()]).replace(b'"title": ["An Orchestrator"]', b'"title": ["An Orchestrator"], "title": ["Other"]')
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    with pytest.raises(SourceError, match="an object holds the key 'title' twice: not one answer"):
        crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW)


def test_character_references_and_markup_are_decoded_not_kept(serve):
    title = "Q&amp;A &lt;b&gt;for&lt;/b&gt; <i>orchestrator</i> teams &amp;amp; more"
    body = work_list([work(title=[title], abstract="<jats:p>An orchestrator &amp; its &#8220;workers&#8221;.</jats:p>")])
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    run = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    (found,) = run.found
    assert found.title == "Q&A for orchestrator teams & more"
    assert found.abstract == "An orchestrator & its \u201cworkers\u201d."
    page = atom(entry(title="Tools &amp;amp; Orchestrator", summary="A &lt;i&gt;b&lt;/i&gt; c"), 1)
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", page)))
    (found,) = arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW).found
    assert (found.title, found.abstract) == ("Tools & Orchestrator", "A <i>b</i> c")



def test_only_complete_character_references_are_decoded(serve):
    """``&not=2`` in a URL is text (HTML's legacy names without ``;`` are not references here), and so
    is ``&notit;``; ``&amp;`` and ``&#38;`` in the same field are decoded."""
    summary = "See https://x.org/r?a=1&amp;amp;not=2&amp;amp;sect=3 &amp;amp; &amp;notit; &amp;#38; for the orchestrator."
    page = atom(entry(title="Orchestrators &amp;amp; tools", summary=summary), 1)
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", page)))
    (found,) = arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW).found
    assert found.abstract == "See https://x.org/r?a=1&not=2&sect=3 & &notit; & for the orchestrator."


def test_crossref_keeps_the_first_title_and_venue_and_no_abstract_heading(serve):
    """A work's ``title`` lists its translations after it, its ``container-title`` the venue's abbreviation
    after its name: neither is joined to the first; the JATS heading "Abstract" is no word of the abstract."""
    body = work_list([work(title=["Credit for orchestrator teams", "Attribution du cr\u00e9dit"],
                           **{"container-title": ["Proceedings of AgentConf", "Proc. AgentConf"]},
                           abstract="<jats:sec><jats:title>Abstract</jats:title><jats:p>Abstract orchestrators.</jats:p></jats:sec>")])
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    (found,) = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW).found
    assert (found.title, found.venue, found.abstract) == (
        "Credit for orchestrator teams", "Proceedings of AgentConf", "Abstract orchestrators.")
    body = work_list([work(title=["<jats:i> </jats:i>", "Orchestrator teams"], **{"container-title": ["&amp;nbsp;", "AgentConf"]},
                           abstract='<jats:sec id="s1"><jats:title>Abstract:</jats:title><jats:p>We train.</jats:p></jats:sec>'),
                      work(DOI="10.5555/orch.2", title=["Orchestrator teams 2"], abstract="<p><bold>Abstract</bold> We delegate.</p>")])
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    found = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW).found
    assert [(f.title, f.venue, f.abstract) for f in found] == [
        ("Orchestrator teams", "AgentConf", "We train."), ("Orchestrator teams 2", "unpublished", "We delegate.")]

CROSSREF_MARKUP = [
    ("Orchestrators that emit &lt;think&gt; tokens", "Orchestrators that emit <think> tokens"),  # escaped text, not markup
    ("Orchestrating CO<sub>2</sub>-aware agents", "Orchestrating CO2-aware agents"),  # inline markup: no space added
    ("Orchestration when x<y and y>z holds", "Orchestration when x<y and y>z holds"),  # no tag at all
    ("Teams of <i>n</i><sup>2</sup> agents", "Teams of n2 agents"),
    ("A <font face=\"Symbol\">a</font>-orchestrator", "A a-orchestrator"),
    ("x <b and c> y", "x <b and c> y"),  # not a tag: its attributes are not name="value"
    ("The <mml:math><mml:mi>k</mml:mi></mml:math>-agent team", "The k-agent team"),
    ("Orchestrators for the &lt;i&gt; element and &lt;sub&gt;", "Orchestrators for the <i> element and <sub>"),  # lone: text
    ("Orchestrators that emit &lt;b&gt; and &lt;think&gt; tags", "Orchestrators that emit <b> and <think> tags"),
    ("Orchestration for &lt;i&gt;E. coli&lt;/i&gt;", "Orchestration for E. coli"),  # escaped twice, a pair: markup
    ("Orchestration, <i>nested <b>badly</i> here</b>", "Orchestration, <i>nested <b>badly</i> here</b>"),
]


@pytest.mark.parametrize(("sent", "kept"), CROSSREF_MARKUP, ids=[kept for _, kept in CROSSREF_MARKUP])
def test_crossref_markup_is_taken_out_and_other_angle_brackets_are_text(serve, sent, kept):
    body = work_list([work(title=[sent], abstract="<jats:p>An orchestrator.</jats:p><jats:p>Two <jats:italic>x</jats:italic>y.</jats:p>",
                           author=[{"given": "Ada", "family": "Lo<b>ve</b>lace"}])])
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    (found,) = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW).found
    assert (found.title, found.abstract, found.authors) == (kept, "An orchestrator. Two xy.", ("Lovelace, Ada",))


# ---------------------------------------------------------------- kind 3: nothing written that validate refuses

BOMB = ('<?xml version="1.0"?>\n<!DOCTYPE feed [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>').encode()


#: Authors no record may hold, each as an arXiv answer writes it (XML), and what the round says of it.
ODD_NAMES = {"-": "is only punctuation, a placeholder", "TODO": "a placeholder",
             "Ada Lovelace (MIT)": "holds a parenthesis", "Ada Lovelace/Charles Babbage": "is not one person's name",
             "Ada Lovelace | Charles Babbage": "is not one person's name", "=cmd|' /C calc'!A0": "is not one person's name",
             "Ada Lovelace and Alan Turing": "is not one person's name", "Ada \\Lovelace\\": "authors[1]: ",
             "Ada &amp; Bob": "is not one person's name", "Ada Lovelace et al.": "is not one person's name",
             "A. Smith; B. Jones": "is not one person's name", "Ada Lovelace et.al.": "is not one person's name",
             "Ada Lovelace and others": "is not one person's name", "TODO, Ada": "where the last name goes",
             "{Unbalanced": "is not one person's name", "TODO Lovelace": "holds a placeholder ('TODO')",
             "Ada Lovelace1": "holds 'Lovelace1', a footnote or affiliation mark", "@lovelace": "begins with '@'"}


def test_a_record_no_decision_could_make_a_record_is_counted_unusable_not_queued(basic_survey, cli, clock, serve,
                                                                                   monkeypatch):
    """A row's cells are what the source sent, and the screener may not change them: a record whose title,
    year or authors no record may have (as `update apply` judges an include and an exclude alike) would be
    a row that no decision clears. It is counted unusable, with its reason; the round queues the others,
    and a cleaning that uncovers a character to take out goes on until none is left."""
    taxonomy = basic_survey / "corpus/taxonomy.yaml"
    taxonomy.write_text(re.sub(r"(?m)^year_minimum: .*$", "year_minimum: 2026", taxonomy.read_text()))
    lovelace = "<author><name>Ada Lovelace</name></author>"
    entries = (entry("2605.30001", "An Orchestrator")
               + entry("2605.30002", "Untitled")
               + entry("2512.30003", "An Orchestrator of Last Year", published="2025-12-15T10:00:00Z")
               + entry("2605.30004", "An Orchestrator Among Others",
                       authors=lovelace + "<author><name>others</name></author><author><name>Bob Smith</name></author>")
               + entry("2605.30005", "Code review 가\u200d\u3164 with an orchestrator")
               + "".join(entry(f"2605.{30006 + k}", f"An Orchestrator by Author {k}", authors=lovelace + f"<author><name>{name}"
                                                                                     "</name></author>")
                         for k, name in enumerate(ODD_NAMES))
               + entry("2605.30099", "An orchestrator " + "and its abstract " * 300))  # 5,416 characters in the title
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", atom(entries, 6 + len(ODD_NAMES)))))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, "--since", "2025-12-01", "--until", "2026-06-30", *ARXIV)
    assert run.code == 0, run.err
    assert sorted(queue(basic_survey)) == ["arxiv:2605.30001", "arxiv:2605.30005"]
    (query,) = meta(basic_survey)["sources"][0]["queries"]
    assert (query["returned"], query["kept"], query["unusable"]) == (6 + len(ODD_NAMES), 2, 4 + len(ODD_NAMES))
    assert query["unusable_records"][-1] == ("arxiv:2605.30099 (title: longer than the 1,000 characters a title may have (an "
                                             "abstract in the title field?))")
    assert query["unusable_records"][:3] == [
        "arxiv:2605.30002 (title: 'Untitled' is a placeholder)",
        "arxiv:2512.30003 (year: 2025 is out of range; allowed: 2026 to 2027)",
        "arxiv:2605.30004 (authors: 'others' (et al.) stands for the authors not named and ends the list; move it last (once))"]
    for k, (name, why) in enumerate(ODD_NAMES.items()):  # one odd name counts its record unusable, not the answer broken
        assert query["unusable_records"][3 + k].startswith(f"arxiv:2605.{30006 + k} (authors: authors[1]: "), k
        assert why in query["unusable_records"][3 + k], (k, query["unusable_records"][3 + k])
        if ("(" in name or ";" in name or "et" in name or " and " in name or "TODO " in name) and "&amp;" not in name:
            assert repr(name) in query["unusable_records"][3 + k], query["unusable_records"][3 + k]
    assert cli("validate", "--root", basic_survey).code == 0
    (folder,) = rounds(basic_survey)
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        titles = [row["title"] for row in csv.DictReader(handle)]
    assert "Code review 가 with an orchestrator" in titles


def test_two_organisations_in_one_name_count_their_record_unusable_and_a_percent_sign_is_a_character(
        basic_survey, cli, clock, serve, monkeypatch):
    """'Agents Lab; Tools Lab' and 'The 100% Open Consortium' ended the whole Crossref run: the first is one record's
    problem (counted unusable, named as Crossref wrote it), the second an organisation like any other."""
    items = [work(DOI="10.5555/orch.4", title=["An Orchestrator of Nobody"], author=[{"name": "-"}]),
             work(DOI="10.5555/orch.1", title=["An Orchestrator of Two Labs"], author=[{"name": "Agents Lab; Tools Lab"}]),
             work(DOI="10.5555/orch.2", title=["An Orchestrator of a Consortium"],
                  author=[{"name": "The 100% Open Consortium"}]),
             work(DOI="10.5555/orch.3")]
    served = serve(Scripted(lambda path, params: (200, "application/json", work_list(items))))
    point(monkeypatch, served, "MASRL_CROSSREF_API", "/works")
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref")
    assert run.code == 0, run.err
    assert sorted(queue(basic_survey)) == ["doi:10.5555/orch.2", "doi:10.5555/orch.3"]
    (query,) = meta(basic_survey)["sources"][0]["queries"]
    assert query["unusable_records"] == [
        "doi:10.5555/orch.4 (authors: authors[0]: '-' is only punctuation, a placeholder)",  # as sent, not '{-}'
        "doi:10.5555/orch.1 (authors: authors[0]: 'Agents Lab; Tools Lab' is not one organisation's name)"]
    (folder,) = rounds(basic_survey)
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        assert "{The 100% Open Consortium}" in [row["authors"] for row in csv.DictReader(handle)]
    assert cli("validate", "--root", basic_survey).code == 0


def test_a_crossref_authors_suffix_is_kept_as_bibtexs_jr_part(basic_survey, cli, clock, serve, monkeypatch):
    """Crossref writes Jr. in its own 'suffix': it was dropped ('King, Martin Luther'), where arXiv's 'Robert W. Heath
    Jr.' keeps it."""
    items = [work(author=[{"given": "Martin Luther", "family": "King", "suffix": "Jr."}, {"family": "Lovelace",
                                                                                         "given": "Ada"}]),
             work(DOI="10.5555/orch.2", title=["An Orchestrator by Some"],  # 'et al.' as a person, however split: others
                  author=[{"family": "Lovelace", "given": "Ada"}, {"given": "et", "family": "al."}]),
             work(DOI="10.5555/orch.3", title=["An Orchestrator by Others"],
                  author=[{"family": "Lovelace", "given": "Ada"}, {"family": "et al."}])]
    served = serve(Scripted(lambda path, params: (200, "application/json", work_list(items))))
    point(monkeypatch, served, "MASRL_CROSSREF_API", "/works")
    assert cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref").code == 0
    (folder,) = rounds(basic_survey)
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        assert sorted(row["authors"] for row in csv.DictReader(handle)) == [
            "King, Jr., Martin Luther; Lovelace, Ada", "Lovelace, Ada; others", "Lovelace, Ada; others"]
    assert cli("validate", "--root", basic_survey).code == 0


def test_a_crossref_subtitle_is_part_of_the_title_and_a_jr_in_the_family_name_is_its_suffix(basic_survey, cli, clock,
                                                                                            serve, monkeypatch):
    """Run 33: Crossref's `subtitle` was never asked for, so a work whose query words were in its subtitle was counted
    not matching and lost, and a matching one was queued with half its title. A family name written 'Heath, Jr.'
    (publishers do) refused the whole answer: "is not one person's name"."""
    items = [work(title=["Agent Swarms"], subtitle=["Orchestrator Policies for Hierarchical Teams"]),
             work(DOI="10.5555/orch.2", title=["An Orchestrator of Tools"],
                  author=[{"given": "Robert W.", "family": "Heath, Jr."}, {"given": "Ada", "family": "Lovelace"}]),
             work(DOI="10.5555/orch.3", title=["Orchestrator Learning: A Study"], subtitle=["a study"]),
             # run 34: a title's own closing mark takes no colon; a suffix given twice is one; a part with a comma that
             # is no suffix (a degree) is that record's problem, not the answer's
             work(DOI="10.5555/orch.4", title=["Do Orchestrators Help?"], subtitle=["Delegation in Agent Teams"],
                  author=[{"given": "Robert W.", "family": "Heath, Jr.", "suffix": "Jr."}]),
             work(DOI="10.5555/orch.5", title=["Orchestrator Swarms:"], subtitle=["Delegation Policies"]),
             work(DOI="10.5555/orch.6", title=["An Orchestrator by a Doctor"], author=[{"given": "John", "family": "Smith, PhD"}]),
             work(DOI="10.5555/orch.7", title=["An Orchestrator by a Knight"],
                  author=[{"given": "Robert, Jr.", "family": "Heath", "suffix": "III"}]),
             # run 35: the suffix in the family name without a comma, and a suffix written 2nd
             work(DOI="10.5555/orch.8", title=["An Orchestrator by a Preacher"],
                  author=[{"given": "Martin Luther", "family": "King Jr.", "suffix": "Jr."},
                          {"given": "Carl", "family": "Fisher", "suffix": "2nd"}, {"given": "Ada", "family": "Byron Sr"}])]
    asked = []
    served = serve(Scripted(lambda path, params: asked.append(params) or (200, "application/json", work_list(items))))
    point(monkeypatch, served, "MASRL_CROSSREF_API", "/works")
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref")
    assert run.code == 0, run.err
    assert "subtitle" in asked[0]["select"].split(",")
    (folder,) = rounds(basic_survey)
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        rows = {row["identifier"]: row for row in csv.DictReader(handle)}
    assert {k: (r["title"], r["authors"]) for k, r in rows.items()} == {
        "doi:10.5555/orch.1": ("Agent Swarms: Orchestrator Policies for Hierarchical Teams", "Lovelace, Ada"),
        "doi:10.5555/orch.2": ("An Orchestrator of Tools", "Heath, Jr., Robert W.; Lovelace, Ada"),
        "doi:10.5555/orch.3": ("Orchestrator Learning: A Study", "Lovelace, Ada"),  # a subtitle the title holds: once
        "doi:10.5555/orch.4": ("Do Orchestrators Help? Delegation in Agent Teams", "Heath, Jr., Robert W."),
        "doi:10.5555/orch.5": ("Orchestrator Swarms: Delegation Policies", "Lovelace, Ada"),
        "doi:10.5555/orch.8": ("An Orchestrator by a Preacher", "King, Jr., Martin Luther; Fisher, 2nd, Carl; Byron, Sr, Ada")}
    (query,) = meta(basic_survey)["sources"][0]["queries"]
    assert query["unusable_records"] == [
        "doi:10.5555/orch.6 (authors: authors[0]: 'Smith, PhD, John' is not one person's name: only a generational "
        "suffix (Jr., Sr., II, III, IV, 2nd, 3rd) stands between two commas, as in Last, Jr, First)",
        "doi:10.5555/orch.7 (authors: authors[0]: 'Heath, III, Robert, Jr.' is not one person's name: it has more commas "
        "than a name written Last, Jr, First)"]
    assert cli("validate", "--root", basic_survey).code == 0


def test_an_organisation_a_source_names_stays_one_name_through_the_queue(basic_survey, cli, clock, serve, monkeypatch):
    """Crossref names an organisation in ``name``: queued in braces, it is kept whole by `update apply`, not split
    into a person "DeepMind, Google"."""
    served = serve(Scripted(lambda path, params: (200, "application/json", work_list([work(author=[{"name": "Google DeepMind"}])]))))
    point(monkeypatch, served, "MASRL_CROSSREF_API", "/works")
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref")
    assert run.code == 0, run.err
    (folder,) = rounds(basic_survey)
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["authors"] for r in rows] == ["{Google DeepMind}"]
    rows[0]["decision"] = "include"
    write_rows(folder / "queue.csv", rows)
    run = cli("update", "apply", "--root", basic_survey, folder.name)
    assert run.code == 0 and "warning" not in run.err, run.err
    (record,) = (basic_survey / "corpus/papers").glob("*.yaml")
    assert record.name == "googledeepmind2026.yaml" and yaml.safe_load(record.read_text())["authors"] == ["{Google DeepMind}"]


def test_an_entity_bomb_is_refused_not_read_as_an_empty_title(serve):
    page = BOMB + atom(entry(title="&c;"), 1).split(b"\n", 1)[1]
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", page)))
    with pytest.raises(SourceError, match="an XML document type declaration"):
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)


def test_an_answer_past_the_size_limits_is_refused_compressed_or_not(serve):
    huge = atom(entry(summary="x" * (20 * 1024 * 1024)), 1)
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", huge)))
    with pytest.raises(SourceError, match=r"announced an answer of 20,972,\d+ bytes, more than the limit of 16,777,216"):
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    bomb = packer.compress(atom(entry(), 1)[:-7]) + b"".join(packer.compress(b" " * (1 << 20)) for _ in range(40))
    bomb += packer.compress(b"</feed>") + packer.flush()
    assert len(bomb) < 200_000
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", bomb, {"Content-Encoding": "gzip"})))
    with pytest.raises(SourceError, match="sent an answer that decompresses to more than the limit of 33,554,432 bytes"):
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    small = gzip.compress(atom(entry(), 1))
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", small, {"Content-Encoding": "gzip"})))
    assert arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW).kept == 1


def test_a_gzip_answer_of_several_members_is_read_whole_and_bytes_after_its_end_are_refused(serve):
    """RFC 1952 lets a gzip stream hold several members: all are read. Bytes after the end of the
    stream that begin no member are not part of the answer: refused, not dropped."""
    feed = atom(entry(), 1)
    members = gzip.compress(feed[:100]) + gzip.compress(feed[100:])
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", members, {"Content-Encoding": "gzip"})))
    assert arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW).kept == 1
    for trailing, encoding in ((gzip.compress(feed) + b"garbage", "gzip"), (zlib.compress(feed) + b"garbage", "deflate")):
        served = serve(Scripted(lambda path, params, t=trailing, e=encoding: (200, "application/atom+xml", t,
                                                                              {"Content-Encoding": e})))
        with pytest.raises(SourceError, match="sent bytes after the end of its compressed answer"):
            arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)


def test_a_text_longer_than_a_sheet_cell_is_refused(basic_survey, cli, clock, serve, monkeypatch):
    page = atom(entry(summary="An orchestrator. " * 2000), 1)
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", page)))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 1 and rounds(basic_survey) == []
    assert ("entry 1 (arxiv:2605.30001): summary: an abstract of 33,999 characters, more than the 20,000 masrl keeps"
            in run.err)


@pytest.mark.parametrize("published, why", [("2026-06-45T10:00:00Z", "'2026-06-45T10:00:00Z' is not a date"),
                                            ("yesterday", "'yesterday' is not a date"),
                                            ("0001-01-01T00:00:00+01:00", "'0001-01-01T00:00:00+01:00' is not a date"),
                                            ("9999-12-31T23:30:00-01:00", "'9999-12-31T23:30:00-01:00' is not a date")])
def test_a_date_that_is_not_a_day_is_refused_by_name(basic_survey, cli, clock, serve, monkeypatch, published, why):
    page = atom(entry(published=published), 1)
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", page)))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 1 and rounds(basic_survey) == [] and "Traceback" not in run.err
    assert f"entry 1 (arxiv:2605.30001): published: {why}" in run.err


def test_a_round_its_own_checks_refuse_is_never_written(basic_survey, cli, clock, serve, monkeypatch):
    from masrl.review.update import model

    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", atom(entry(), 1))))
    point(monkeypatch, served)
    real = model.queue_rows
    monkeypatch.setattr(model, "queue_rows", lambda *a: [{**row, "year": "26"} for row in real(*a)])
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 1 and rounds(basic_survey) == []
    assert "queue.csv:2: year: '26' is not a four-digit year" in run.err
    assert "masrl would write a round its own checks refuse; nothing was written" in run.err


# ---------------------------------------------------------------- kind 5: the network

def test_a_connection_broken_mid_answer_is_named_as_such_not_as_no_network(serve):
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", [(b"<?xml version=", 0)],
                                                  {"Content-Length": "1000"})))
    with pytest.raises(SourceError) as err:
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert str(err.value).startswith(f"{served.url.removeprefix('http://')}: the arXiv API broke the connection while "
                                     "answering (")
    assert "no network" not in str(err.value)


def test_a_server_that_closes_the_connection_without_answering_is_named_as_such(no_network):
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    no_network.add_passthru(url)

    def close_each():
        with contextlib.suppress(OSError):  # the listener closed when the test ends
            while True:
                connection, _ = listener.accept()
                connection.recv(65536)
                connection.close()

    threading.Thread(target=close_each, daemon=True).start()
    try:
        with pytest.raises(SourceError) as err:
            arxiv_source(f"{url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    finally:
        listener.close()
    assert "the arXiv API closed the connection without answering (ProtocolError)" in str(err.value)
    assert "no network" not in str(err.value)


def test_an_https_endpoint_on_a_plain_http_server_is_named_as_such_not_as_no_network(serve, no_network):
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", atom(entry(), 1))))
    https = served.url.replace("http://", "https://")
    no_network.add_passthru(https)
    with pytest.raises(SourceError) as err:
        arxiv_source(f"{https}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert "the arXiv API answered an https:// request with something that is not TLS (SSLError: " in str(err.value)
    assert "a plain http:// server? (then write its endpoint with http://)" in str(err.value)
    assert "no network" not in str(err.value) and served.log == [], str(err.value)


def test_a_redirect_to_another_host_is_refused_and_one_to_the_same_host_followed(serve):
    other = serve(Scripted(lambda path, params: (200, "application/atom+xml", atom(entry(), 1))))
    away = serve(Scripted(lambda path, params: (302, "text/plain", b"", {"Location": f"{other.url}/api/query"})))
    with pytest.raises(SourceError) as err:
        arxiv_source(f"{away.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert str(err.value) == (f"{away.url.removeprefix('http://')}: the arXiv API answered HTTP 302 with a redirect to "
                              f"'{other.url}/api/query', another host; masrl does not follow a source to "
                              "another host (point the endpoint there if that is the source's new address)")
    assert other.log == []

    def same(path, params):
        if path == "/old":
            return 301, "text/plain", b"", {"Location": "/api/query?" + "&".join(f"{k}={v}" for k, v in params.items())}
        return 200, "application/atom+xml", atom(entry(), 1)

    here = serve(Scripted(same))
    assert arxiv_source(f"{here.url}/old").search(ORCH, "2026-05-04", "2026-06-30", NOW).kept == 1


@pytest.mark.parametrize("stall", ["body", "headers"])
def test_a_server_that_trickles_is_given_up_at_the_deadline(serve, stall):
    from masrl.bib.fetch import Limits

    body = atom(entry(), 1)

    def reply(path, params):
        if stall == "headers":
            served.closing.wait(5)
            return 200, "application/atom+xml", body
        return 200, "application/atom+xml", [(body[i:i + 1], 0.05) for i in range(len(body))], {"Content-Length": str(len(body))}

    served = serve(Scripted(reply))
    source = arxiv_source(f"{served.url}/api/query", limits=Limits(deadline=0.4))
    with pytest.raises(SourceError) as err:
        source.search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert str(err.value).endswith("the arXiv API gave no complete answer within 0.4 s (masrl's deadline for one request)")


def test_a_server_that_goes_silent_while_answering_is_said_to_stop_sending_not_to_break_the_connection(serve):
    """Run 45: a server that sent its headers and 100 bytes, then nothing while keeping the connection open, was said
    to have "broke the connection"."""
    from masrl.bib.fetch import Limits

    body = atom(entry(), 1)
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", [(body[:100], 5.0)],
                                                  {"Content-Length": str(len(body))})))
    source = arxiv_source(f"{served.url}/api/query", limits=Limits(read=0.3, deadline=4))
    with pytest.raises(SourceError) as err:
        source.search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert "stopped sending for 0.3 s while answering (" in str(err.value) and "broke" not in str(err.value), str(err.value)


def test_a_rate_limit_without_a_retry_after_is_waited_out_as_masrls_own_back_off(serve, capsys):
    """Run 45: a plain HTTP 429 (no Retry-After) was waited out "as it asks", though it asked for nothing."""
    from masrl.review.update.sources.pacing import PacedSession, PaceFile

    answers = iter([(429, "text/plain", b""), (200, "text/plain", b"ok")])
    served = serve(Scripted(lambda path, params: next(answers)))
    clock = FakeClock()
    assert PacedSession(6, clock=clock, sleep=clock.sleep, pace=PaceFile(None)).answer(f"{served.url}/x").status == 200
    host = served.url.removeprefix("http://")
    assert capsys.readouterr().err.splitlines() == [
        f"note: {host} limits the rate (HTTP 429); waiting 12 s (masrl's back-off: it gave no Retry-After masrl can read)"]


def test_two_searches_back_to_back_keep_the_pace(basic_survey, cli, clock, serve, monkeypatch):
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", atom(entry(), 1))))
    point(monkeypatch, served)
    assert cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV).code == 0
    assert clock.sleeps == []
    clock.now += 1.5  # the second run starts 1.5 s after the first one's request ended
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 0, run.err
    assert clock.sleeps == [1.5]  # the rest of arXiv's 3 s
    kept = json.loads((basic_survey / ".masrl-cache" / "pace.json").read_text())
    assert list(kept) == [served.url.removeprefix("http://")]


def test_a_retry_after_that_is_no_number_of_seconds_is_no_retry_after():
    from masrl.bib.fetch import retry_after

    assert [retry_after({"retry-after": v}) for v in ("7", "\u00b2", "\u0661", "-5", "")] == [7.0, None, None, None, None]


def test_a_rate_limit_with_a_retry_after_masrl_cannot_read_says_so(serve):
    served = serve(Scripted(lambda path, params: (429, "text/plain", b"", {"Retry-After": "-5"})))
    with pytest.raises(SourceError, match=r"answered HTTP 429 \(rate limit\) \d+ time\(s\); it gave no Retry-After that is a "
                                          r"number of seconds or an HTTP date"):
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)


def test_a_rate_limit_is_waited_on_as_the_source_asks(serve):
    answers = iter([(429, "text/plain", b"slow down", {"Retry-After": "7"}),
                    (200, "application/atom+xml", atom(entry(), 1))])
    served = serve(Scripted(lambda path, params: next(answers)))
    source = arxiv_source(f"{served.url}/api/query")
    run = source.search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert run.kept == 1 and run.requests == 2
    assert sum(source.session.sleeps) == pytest.approx(7.0)
    served = serve(Scripted(lambda path, params: (429, "text/plain", b"", {"Retry-After": "3600"})))
    with pytest.raises(SourceError, match=r"answered HTTP 429 \(rate limit\) 1 time\(s\); it asked to wait 3600 s "
                                          r"\(Retry-After\); run the search again later"):
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)


def test_a_run_waits_for_rate_limits_fifteen_minutes_in_all_and_says_each_long_wait(serve, capsys):
    """Every wait a source asks for is within the bound of one wait (300 s), but a run waits 900 s in all, whatever
    source asks: two waits of 299 s answer one source's first request, a third another source's (the sessions of a
    run share its pace); that source's next wait is refused by name. Each wait is said on stderr."""
    from masrl.review.update.sources.pacing import PacedSession, PaceFile, RateLimited

    answers = iter([*[(429, "text/plain", b"", {"Retry-After": "299"})] * 2, (200, "text/plain", b"ok"),
                    (429, "text/plain", b"", {"Retry-After": "299"}), (200, "text/plain", b"ok")])
    served = serve(Scripted(lambda path, params: next(answers, (429, "text/plain", b"", {"Retry-After": "299"}))))
    clock, pace = FakeClock(), PaceFile(None)
    first, second = (PacedSession(0, clock=clock, sleep=clock.sleep, pace=pace) for _ in range(2))
    assert first.answer(f"{served.url}/x").status == 200
    assert second.answer(f"{served.url}/y").status == 200
    with pytest.raises(RateLimited) as refused:
        second.answer(f"{served.url}/y")
    host = served.url.removeprefix("http://")
    assert str(refused.value) == (f"{host}: answered HTTP 429 (rate limit) 1 time(s); it asked to wait 299 s (Retry-After), "
                                  "after masrl had waited 897 s for rate limits in this run, every source's (it waits at "
                                  "most 900 s in all)")
    assert clock.sleeps == [299.0] * 3
    assert capsys.readouterr().err.splitlines() == [f"note: {host} limits the rate (HTTP 429); waiting 299 s as it asks"] * 3


def refused_search(root, cli, monkeypatch, variable: str, endpoint: str, *args: str):
    """``masrl update search ARGS`` with ``variable`` set to ``endpoint``: refused, no round written; the run."""
    monkeypatch.setenv(variable, endpoint)
    run = cli("update", "search", "--root", root, *args)
    assert run.code == 1 and rounds(root) == [], run.err
    return run


@pytest.mark.parametrize(("value", "why"), [
    ("not-a-url", "it must start with https:// or http://"), ("ftp://example.org/api", "it must start with https:// or http://"),
    ("http:///query", "it names no host"), ("http://exa mple.org/api", "it holds a space"),
    ("https://[::1/api", "its host has an unbalanced '[' or ']'"),
    ("http://127.0.0.1:99999/api", "its port is out of range 1-65535"),
    ("http://127.0.0.1:0/api", "its port '0' is out of range 1-65535"),
    ("http://\uff45xample.com/api", "its host is not ASCII; write it in its IDNA form, xn--..."),
    ("http://127.0.0.1/ap%ZZi", "a '%' not followed by two hex digits"),
    ("http://127.0.0.1:eighty/api", "its port is not a number"),
    ("http://127.0.0.1:\u00b2/api", "its port is not a number"),
    ("http://evil\x1bQhost\x07/api", "it holds a control or invisible character"),
    ("http://127.0.0.1/api\u202e", "it holds a control or invisible character")])
def test_an_endpoint_that_is_not_a_url_is_named_as_such(basic_survey, cli, monkeypatch, value, why):
    """Named up to what is wrong with it: what follows a blank or a control character, and a port
    that is not one, may be a secret written in the wrong place, and are not shown."""
    run = refused_search(basic_survey, cli, monkeypatch, "MASRL_ARXIV_API", value, *ARXIV)
    (line,) = run.err.splitlines()
    cut = next((i for i, ch in enumerate(value) if ch.isspace() or not ch.isprintable()), None)
    shown = value[:cut] + "…" if cut is not None else "http://127.0.0.1:…" if "port" in why and "'0'" not in why else value
    assert line == f"masrl: error: MASRL_ARXIV_API: {shown!r} is not a URL ({why}); nothing was searched"


def test_a_variable_two_sources_read_is_named_once(small_survey, cli, monkeypatch):
    """Semantic Scholar's search and its citation links both read MASRL_S2_API: a bad value is one problem."""
    run = refused_search(small_survey, cli, monkeypatch, "MASRL_S2_API", "not-a-url", "--source", "semanticscholar",
                         "--source", "citations")
    assert run.err == ("masrl: error: MASRL_S2_API: 'not-a-url' is not a URL (it must start with https:// or http://); "
                       "nothing was searched\n")


@pytest.mark.parametrize(("value", "shown"), [
    ("http://127.0.0.1:9/works?api_key=SECRETKEY", "'http://127.0.0.1:9/works?…': an endpoint with a query or a fragment"),
    ("http://127.0.0.1:9/works#SECRETKEY", "'http://127.0.0.1:9/works#…': an endpoint with a query or a fragment"),
    ("http://127.0.0.1:9/works#x?SECRETKEY", "'http://127.0.0.1:9/works#…': an endpoint with a query or a fragment"),
    ("http://user:SECRETKEY@127.0.0.1:99999/x", "'http://…@127.0.0.1:99999/x': an endpoint holding '@' (a user name or password"),
    ("http://user:SECRETKEY@127.0.0.1/x y", "'http://…@127.0.0.1/x…': an endpoint holding '@' (a user name or password"),
    ("http://user:SECRETKEY@[::1/x", "'http://…@[::1/x': an endpoint holding '@' (a user name or password"),
    ("http://user:pa/SECRETKEY@127.0.0.1/x", "'http://…@127.0.0.1/x': an endpoint holding '@' (a user name or password"),
    ("http://user:pa#SECRETKEY@127.0.0.1:1/x", "'http://…@127.0.0.1:1/x': an endpoint holding '@' (a user name or password"),
    ("http://user:pa?SECRETKEY@127.0.0.1:1/x", "'http://…@127.0.0.1:1/x': an endpoint holding '@' (a user name or password"),
    ("ftp://127.0.0.1/x?api_key=SECRETKEY", "'ftp://127.0.0.1/x?…' is not a URL (it must start with"),
    ("http://127.0.0.1:abc/x?token=SECRETKEY", "'http://127.0.0.1:…' is not a URL (its port is not a number)"),
    ("http://127.0.0.1:SECRETKEY/works", "'http://127.0.0.1:…' is not a URL (its port is not a number)"),
    ("http://127.0.0.1:9/works;key=SECRETKEY", "'http://127.0.0.1:9/works;…': an endpoint with ';' parameters"),
    ("http://user%3ASECRETKEY%40127.0.0.1:9/works", "'http://user%…' is not a URL (its host holds '%'"),
    ("http://127.0.0.1:9/works SECRETKEY", "'http://127.0.0.1:9/works…' is not a URL (it holds a space)"),
    ("http://127.0.0.1:9/works\x1bSECRETKEY", "'http://127.0.0.1:9/works…' is not a URL (it holds a control"),
    ("http://127.0.0.1:9/works\u200bSECRETKEY", "'http://127.0.0.1:9/works…' is not a URL (it holds a control"),
    ("http://127.0.0.1:9/works\u202eSECRETKEY", "'http://127.0.0.1:9/works…' is not a URL (it holds a control"),
    ("http://127.0.0.1:9/works%3Bkey=SECRETKEY", "'http://127.0.0.1:9/works%3B…': an endpoint with ';' parameters"),
    ("http://127.0.0.1:0/x#SECRETKEY", "'http://127.0.0.1:0/x#…' is not a URL (its port '0'"),
    ("http://ex\u00e4mple.org/?k=SECRETKEY", "'http://ex\u00e4mple.org/?…' is not a URL (its host is not ASCII"),
    ("http://127.0.0.1/w?key=SECRETKEY%zz", "'http://127.0.0.1/w?…' is not a URL (a '%' not followed"),
    ("http://a..b/works?k=SECRETKEY", "'http://a..b/works?…' is not a URL ('a..b' is not a host name"),
    ("http://1.2.3.4.5/works", "'http://1.2.3.4.5/works' is not a URL ('1.2.3.4.5' is not an IPv4 address)")])
def test_an_endpoint_with_a_secret_and_another_fault_is_named_without_the_secret(basic_survey, cli, monkeypatch, value, shown):
    run = refused_search(basic_survey, cli, monkeypatch, "MASRL_CROSSREF_API", value, *WINDOW, "--source", "crossref")
    assert "SECRETKEY" not in run.err + run.out
    assert run.err.startswith(f"masrl: error: MASRL_CROSSREF_API: {shown}")


@pytest.mark.parametrize(("location", "why"), [
    ("http://[::1/x", "answered with something that is not HTTP (ValueError: 'Invalid IPv6 URL')"),
    ("http://h:99999999999999999999/x", "'http://h:99999999999999999999/x', which is not a URL; masrl does not follow it"),
    ("/api/query?x=1#y", None),  # the same host: followed
    ("//user:SECRETKEY@{host}/api/query", "'//…@{host}/api/query', a URL with a user name or password; masrl does not "
                                          "follow it"),
    ("https://{host}/api/query", "'https://{host}/api/query', another scheme (http to https); masrl does not follow it "
                                 "(point the endpoint at the new URL if that is the source's address)")])
def test_a_redirect_masrl_does_not_follow_is_named_for_what_it_is(serve, location, why):
    answers = []
    served = serve(Scripted(lambda path, params: answers.pop(0) if answers else (200, "application/atom+xml", atom(entry(), 1))))
    host = served.url.removeprefix("http://")
    answers.append((302, "text/plain", b"", {"Location": location.format(host=host)}))
    source = arxiv_source(f"{served.url}/api/query")
    if why is None:  # followed: two HTTP requests, as round.yaml counts them
        run = source.search(ORCH, "2026-05-04", "2026-06-30", NOW)
        assert (run.kept, run.requests, len(served.log)) == (1, 2, 2)
        return
    with pytest.raises(SourceError) as err:
        source.search(ORCH, "2026-05-04", "2026-06-30", NOW)
    said = why.format(host=host)
    assert str(err.value) == f"{host}: the arXiv API {said if said.startswith('answered with') else 'answered HTTP 302 with a redirect to ' + said}"
    assert "SECRETKEY" not in str(err.value)


@pytest.mark.parametrize(("headers", "what"), [
    ({"Content-Length": "9" * 5000}, "announced an answer of about 10^4999 bytes, more than the limit of"),
    ({**{f"X-{i}": "1" for i in range(120)}}, "answered with something that is not HTTP (HTTPException: 'got more than 100 "
                                              "headers')"),
    ({"Content-Length": "5", "content-length": "7"},  # not "cannot be reached ...; no network?": it answered
     "answered with a header that is not valid HTTP (InvalidHeader: 'Content-Length contained multiple unmatching values "
     "(5, 7)')")])
def test_an_answer_whose_headers_no_one_can_read_is_named_not_a_traceback(serve, headers, what):
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", [(atom(entry(), 1), 0)], headers)))
    with pytest.raises(SourceError) as err:
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert what in str(err.value)


@pytest.mark.parametrize("digits", [400, 5000])
def test_a_retry_after_of_hundreds_of_digits_is_a_wait_too_long_not_a_traceback(serve, digits):
    served = serve(Scripted(lambda path, params: (429, "text/plain", b"", {"Retry-After": "9" * digits})))
    with pytest.raises(SourceError, match=r"answered HTTP 429 \(rate limit\) 1 time\(s\); it asked to wait over 10\^15 s "
                                          r"\(Retry-After\); run the search again later"):
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)


def test_a_redirect_to_another_scheme_is_named_as_such(serve):
    served = serve(Scripted(lambda path, params: (302, "text/plain", b"", {"Location": "file:///etc/passwd"})))
    with pytest.raises(SourceError, match=r"answered HTTP 302 with a redirect to 'file:///etc/passwd', which is not an "
                                          r"http\(s\) URL; masrl does not follow it"):
        arxiv_source(f"{served.url}/api/query").search(ORCH, "2026-05-04", "2026-06-30", NOW)


def test_an_endpoint_with_a_password_is_refused_without_printing_it(basic_survey, cli, monkeypatch):
    monkeypatch.setenv("MASRL_CROSSREF_API", "http://user:secret@127.0.0.1:9/works")
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref")
    assert run.code == 1 and rounds(basic_survey) == [] and "secret" not in run.err + run.out
    assert "an endpoint holding '@' (a user name or password, or an e-mail address in a query) is refused" in run.err
    monkeypatch.setenv("MASRL_CROSSREF_API", "http://127.0.0.1:9/works?mailto=ada@example.org")
    run = cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref")
    assert run.code == 1 and "ada" not in run.err and "in MASRL_MAILTO" in run.err


def test_a_doi_is_kept_as_sent_and_its_landing_page_percent_encoded(serve):
    from masrl.corpus.stubs import landing
    from masrl.corpus.taxonomy import Taxonomy

    body = work_list([work(DOI="10.1002/(SICI)1099-1409(199908/10)3:6/7<672::AID-JPP192>3.0.CO;2-8")])
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    (found,) = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW).found
    assert found.identifiers["doi"] == "10.1002/(SICI)1099-1409(199908/10)3:6/7<672::AID-JPP192>3.0.CO;2-8"
    tax = Taxonomy({"identifier_schemes": {"doi": {"resolver": "https://doi.org/{id}"}}})
    assert landing({"doi": '10.5555/a"b<c>%d'}, tax) == "https://doi.org/10.5555/a%22b%3Cc%3E%25d"


def test_a_crossref_author_named_by_one_part_or_none_is_kept_not_dropped(serve):
    body = work_list([work(author=[{"given": "Ada"}, {"family": "Turing", "given": "Alan"}, {"sequence": "first"},
                                   {"name": "Agents Lab"}])])
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    (found,) = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW).found
    assert found.authors == ("Ada", "Turing, Alan", "Agents Lab", "others")


def test_an_empty_crossref_page_before_the_total_is_not_the_end(serve):
    body = work_list([], total=250)
    served = serve(Scripted(lambda path, params: (200, "application/json", body)))
    run = crossref_source(f"{served.url}/works").search(ORCH, "2026-05-04", "2026-06-30", NOW)
    assert (run.returned, run.not_fetched, run.incomplete) == (0, 250, True)
    assert run.stopped == "page 1 came back empty with 250 results left"


@pytest.mark.parametrize(("header", "kind"), [
    ('application/json; profile="a,b"', "application/json"), ("application/json, application/json", "application/json"),
    ("Application/JSON;charset=UTF-8", "application/json"), ("text/html, application/json", "application/json, text/html")])
def test_the_media_type_of_an_answer_is_read_as_http_writes_it(header, kind):
    """A ',' inside a quoted parameter joins nothing; one type sent twice is that type; two types are both named."""
    from masrl.bib.fetch import Answer

    assert Answer("http://127.0.0.1/x", 200, {"content-type": header}).content_type == kind


def _found(ident, ids, title, authors=("Lovelace, Ada",)):
    from masrl.review.update.sources.base import Found

    return Found(ident, ids, title, tuple(authors), 2026, "", "", "2026-06-01")


def _dedupe(corpus, runs):
    from types import SimpleNamespace

    from masrl.review.update.dedupe import deduplicate

    return deduplicate(corpus, [(label, SimpleNamespace(family="credit", found=records)) for label, records in runs])


def test_a_paper_known_by_one_id_is_known_by_every_id_a_source_links_to_it_in_any_order(tmp_path):
    """An excluded preprint (arXiv id only); S2 names it with its venue DOI; Crossref returns the DOI alone. The
    Crossref record was queued as new (apply then made a second record of the paper), before or after S2's."""
    from types import SimpleNamespace

    corpus = SimpleNamespace(retained={}, excluded={"exclusions/E034.yaml": {
        "screening_label": "Learned Orchestrator Gamma Delegation", "identifiers": {"arxiv": "2605.30003"}}}, rounds={})
    s2 = ("Semantic Scholar", [_found("arxiv:2605.30003", {"arxiv": "2605.30003", "doi": "10.5555/venue.77"},
                                      "Learned Orchestrator Gamma Delegation")])
    crossref = ("Crossref", [_found("doi:10.5555/venue.77", {"doi": "10.5555/venue.77"},
                                    "Message Passing Orchestrator under Partial Observability")])
    for runs in ([crossref, s2], [s2, crossref]):
        candidates, duplicates, _, _ = _dedupe(corpus, runs)
        assert candidates == []
        assert sorted((d.source, d.status, d.matched, d.rule) for d in duplicates) == [
            ("Crossref", "excluded", "exclusions/E034.yaml", "same doi 10.5555/venue.77 as arxiv:2605.30003"),
            ("Semantic Scholar", "excluded", "exclusions/E034.yaml", "same arxiv 2605.30003")]


def test_a_similar_title_by_other_authors_is_another_paper_and_gives_it_no_id():
    """arXiv's "... for Traffic Signal Control" by Lovelace and Crossref's "... for Traffic Light Control" by Hopper
    (94% similar): one candidate carried Hopper's DOI, and apply wrote it into Lovelace's record."""
    from types import SimpleNamespace

    corpus = SimpleNamespace(retained={}, excluded={}, rounds={})
    runs = [("arXiv", [_found("arxiv:2612.00601", {"arxiv": "2612.00601"},
                              "Multi-Agent Reinforcement Learning for Traffic Signal Control")]),
            ("Crossref", [_found("doi:10.5555/traffic.light", {"doi": "10.5555/traffic.light"},
                                 "Multi-Agent Reinforcement Learning for Traffic Light Control", ("Hopper, Grace",))])]
    candidates, duplicates, _, _ = _dedupe(corpus, runs)
    assert [c.identifiers for c in candidates] == [["arxiv:2612.00601"], ["doi:10.5555/traffic.light"]] and duplicates == []
    # the same title by an author the two share is one paper, as before (a preprint and its venue version)
    runs[1] = ("Crossref", [_found("doi:10.5555/traffic.light", {"doi": "10.5555/traffic.light"},
                                   "Multi-Agent Reinforcement Learning for Traffic Light Control",
                                   ("Hopper, Grace", "Lovelace, A."))])
    candidates, duplicates, _, _ = _dedupe(corpus, runs)
    assert [c.identifiers for c in candidates] == [["arxiv:2612.00601", "doi:10.5555/traffic.light"]]
    assert [(d.source, d.rule) for d in duplicates] == [("Crossref", "title 94% similar")]


def test_a_record_one_paper_with_a_queued_one_through_a_third_is_that_rows_duplicate_and_the_round_validates(
        basic_survey, cli, clock, serve, monkeypatch):
    """An earlier round queued a venue paper by its DOI; now Crossref names its preprint and arXiv returns the
    preprint under another title: both are duplicates of the queued row (the preprint through the venue record),
    and validate accepts the duplicate that shares neither id nor title with the row it names."""
    venue = work(DOI="10.5555/conf.77", title=["CREDO: Counterfactual Credit for Orchestrator Teams"])
    point(monkeypatch, serve(Scripted(lambda path, params: (200, "application/json", work_list([venue])))),
          "MASRL_CROSSREF_API", "/works")
    assert cli("update", "search", "--root", basic_survey, *WINDOW, "--source", "crossref").code == 0
    (first,) = rounds(basic_survey)
    linked = work(DOI="10.5555/conf.77", title=["CREDO: Counterfactual Credit for Orchestrator Teams"],
                  relation={"has-preprint": PREPRINT})
    point(monkeypatch, serve(Scripted(lambda path, params: (200, "application/json", work_list([linked])))),
          "MASRL_CROSSREF_API", "/works")
    preprint = atom(entry("2605.30001", title="Learning to Assign Credit Among Talking Agents"), 1)
    point(monkeypatch, serve(Scripted(lambda path, params: (200, "application/atom+xml", preprint))))
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV, "--source", "crossref")
    assert run.code == 0, run.err
    (second,) = [folder for folder in rounds(basic_survey) if folder != first]
    assert (second / "queue.csv").read_text(encoding="utf-8").count("\n") == 1  # the header: nothing new
    with open(second / "duplicates.csv", encoding="utf-8", newline="") as handle:
        rows = sorted((d["identifier"], d["status"], d["matched"], d["rule"]) for d in csv.DictReader(handle))
    assert rows == [("arxiv:2605.30001", "queued", f"corpus/rounds/{first.name}/queue.csv:2",
                     "same arxiv 2605.30001 as doi:10.5555/conf.77"),
                    ("doi:10.5555/conf.77; arxiv:2605.30001", "queued", f"corpus/rounds/{first.name}/queue.csv:2",
                     "same doi 10.5555/conf.77")]  # every id the source gave: the preprint is one paper with it
    assert cli("validate", "--root", basic_survey).code == 0


def test_a_name_written_last_jr_first_is_one_person_from_every_source(basic_survey, cli, clock, serve, monkeypatch):
    """'King, Jr., Martin Luther' (BibTeX's "Last, Jr, First", as Crossref's suffix gives it) from arXiv refused the
    whole answer as a list of names; names with commas that are no such form still do."""
    from masrl.bib.answers import FormatError, person

    assert person("King, Jr., Martin Luther", "x") == "King, Jr., Martin Luther"
    assert person("Heath, III, Robert W.", "x") == "Heath, III, Robert W."
    for text in ("Lovelace, Ada, Babbage", "King, Jr., Martin, Luther", ", Jr., Martin"):
        with pytest.raises(FormatError, match="is not one person's name"):
            person(text, "x")
    assert person("King, Jr.", "x", part=True) == "King, Jr."  # a part: the name it makes is the record's problem
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", atom(
        entry("2605.30001", authors="<author><name>King, Jr., Martin Luther</name></author>"), 1))))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *WINDOW, *ARXIV)
    assert run.code == 0, run.err
    (folder,) = rounds(basic_survey)
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        assert [row["authors"] for row in csv.DictReader(handle)] == ["King, Jr., Martin Luther"]


def test_the_default_window_reaches_back_by_the_protocols_overlap_and_validate_names_a_bad_one(basic_survey, cli, clock,
                                                                                                 serve, monkeypatch):
    """A paper arXiv lists days after its date (announced late) fell before the next round's window, which started at
    the last cutoff: never searched, never named. The protocol's window_overlap_days reaches back."""
    protocol = basic_survey / "corpus" / "protocol.yaml"
    text = protocol.read_text(encoding="utf-8")
    cutoff = re.search(r"(?m)^date_cutoff: '?([0-9-]{10})", text).group(1)
    protocol.write_text(text + "window_overlap_days: 14\n", encoding="utf-8")
    served = serve(Scripted(lambda path, params: (200, "application/atom+xml", atom("", 0))))
    point(monkeypatch, served)
    run = cli("update", "search", "--root", basic_survey, *ARXIV)
    assert run.code == 0, run.err
    (folder,) = rounds(basic_survey)
    since = yaml.safe_load((folder / "round.yaml").read_text(encoding="utf-8"))["window"]["since"]
    assert str(since) == (datetime.date.fromisoformat(cutoff) - datetime.timedelta(days=14)).isoformat()
    assert f"submittedDate:[{str(since).replace('-', '')}0000 TO " in served.log[0][1]["search_query"]
    for bad in ("-1", "'two weeks'", "400"):
        protocol.write_text(text + f"window_overlap_days: {bad}\n", encoding="utf-8")
        run = cli("validate", "--root", basic_survey)
        assert run.code == 1 and "corpus/protocol.yaml" in run.err and "window_overlap_days" in run.err, run.err


def test_a_server_that_takes_the_connection_and_never_shakes_hands_is_named_by_its_own_wait(no_network):
    """An https endpoint whose server accepts and says nothing gave up after the 10 s connect limit, yet said "did not
    begin to answer within 30 s"."""
    import socket
    import threading

    import requests

    from masrl.bib.fetch import FetchError, Limits, fetch

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    held = []

    def take():  # every connection, held open without a word
        while True:
            try:
                held.append(listener.accept())
            except OSError:
                return

    threading.Thread(target=take, daemon=True).start()
    no_network.add_passthru(f"https://127.0.0.1:{listener.getsockname()[1]}")
    try:
        with pytest.raises(FetchError) as err:
            fetch(requests.Session(), f"https://127.0.0.1:{listener.getsockname()[1]}/x",
                  limits=Limits(connect=0.3, read=5, deadline=10))
        assert "did not complete the TLS handshake within 0.3 s" in str(err.value)
    finally:
        listener.close()
        for conn, _ in held:
            conn.close()


def test_an_id_a_record_shares_with_a_known_paper_of_another_arxiv_id_is_left_out_not_followed():
    """S2 gave a new preprint (2606.04001) the DOI of a retained paper (arXiv 2302.12173): both records of the new
    paper were filed as duplicates of the retained one, and the new paper was lost."""
    from types import SimpleNamespace

    corpus = SimpleNamespace(retained={"corpus/papers/greshake2023.yaml": {
        "title": "Not What You've Signed Up For", "authors": ["Greshake, Kai"],
        "identifiers": {"arxiv": "2302.12173", "doi": "10.1145/3605764.3623985"}}}, excluded={}, rounds={})
    runs = [("arXiv", [_found("arxiv:2606.04001", {"arxiv": "2606.04001"},
                              "Orchestrator Attacks on LLM-Integrated Applications")]),
            ("Semantic Scholar", [_found("arxiv:2606.04001", {"arxiv": "2606.04001", "doi": "10.1145/3605764.3623985"},
                                         "Orchestrator Attacks on LLM-Integrated Applications")])]
    notes: list[str] = []
    from masrl.review.update.dedupe import deduplicate

    candidates, duplicates, _, _ = deduplicate(corpus, [(label, SimpleNamespace(family="credit", found=records))
                                                        for label, records in runs], notes)
    assert [c.identifiers for c in candidates] == [["arxiv:2606.04001"]]
    assert [(d.source, d.status) for d in duplicates] == [("Semantic Scholar", "this round")]
    assert notes == ["Semantic Scholar: arxiv:2606.04001 is given the doi 10.1145/3605764.3623985 of "
                     "corpus/papers/greshake2023.yaml (arxiv 2302.12173), another paper by its arXiv id; the doi is left "
                     "out of the round"]


def test_a_record_of_another_arxiv_id_than_the_known_paper_its_group_matched_is_queued():
    """A retained paper (arXiv 2604.00005); arXiv's 2605.30020 of the same title; an S2 record with a DOI alone joining
    them: the new arXiv paper was filed as the retained one's duplicate, and whether it was depended on the sources."""
    from types import SimpleNamespace

    corpus = SimpleNamespace(retained={"corpus/papers/smith2026.yaml": {
        "title": "Team Credit Assignment for Learned Orchestrators", "authors": ["Smith, John"],
        "identifiers": {"arxiv": "2604.00005"}}}, excluded={}, rounds={})
    title = "Team Credit Assignment for Learned Orchestrators"
    runs = [("arXiv", [_found("arxiv:2605.30020", {"arxiv": "2605.30020"}, title, ("Smith, John",))]),
            ("Semantic Scholar", [_found("doi:10.5555/z.1", {"doi": "10.5555/z.1"}, title, ("Smith, John",))])]
    candidates, duplicates, _, _ = _dedupe(corpus, runs)
    assert [c.identifiers for c in candidates] == [["arxiv:2605.30020"]]
    assert [(d.source, d.status) for d in duplicates] == [("Semantic Scholar", "retained")]
