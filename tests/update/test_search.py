"""masrl update search against local servers that answer as arXiv and Crossref do: exactly the new
papers of the window, each once; duplicates with their rule; requests 3 s apart; failures that
write nothing."""

from __future__ import annotations

import csv
import io
import subprocess
import time

import pytest
import yaml

from masrl.corpus.rounds import DUPLICATE_COLUMNS, QUEUE_COLUMNS
from masrl.review.update.protocol import Family, Searcher
from masrl.review.update.sources import SourceError
from masrl.review.update.sources.arxiv import ArxivSource
from masrl.review.update.sources.crossref import CrossrefSource
from masrl.review.update.sources.pacing import PacedSession
from servers import ArxivServer, CrossrefServer, FakeClock, Served, arxiv_server, clock, crossref_server, round_survey, round_survey_tree  # noqa: F401 - fixtures

WINDOW = ("--since", "2026-05-04", "--until", "2026-06-30")
ORCHESTRATION = Family("orchestration", ("orchestrator",), "orchestration", (("orchestrator", "orchestration", "delegation"),),
                       {"arxiv": '(ti:"orchestrator" OR abs:"orchestrator" OR ti:"orchestration" OR abs:"orchestration" '
                                 'OR ti:"delegation" OR abs:"delegation")', "crossref": "orchestrator"})


def sheet(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def only_round(root):
    (folder,) = (root / "corpus" / "rounds").iterdir()
    return folder


@pytest.fixture
def small_pages(monkeypatch):
    """arXiv pages of 2 records, so that a family's five hits take three pages."""
    from masrl.review.update.sources import arxiv

    monkeypatch.setattr(arxiv, "PAGE_SIZE", 2)


def test_a_round_queues_the_new_papers_of_the_window_once_and_logs_every_duplicate(round_survey, cli, clock, arxiv_server,
                                                                                   small_pages):
    run = cli("update", "search", "--root", round_survey, *WINDOW, "--source", "arxiv")
    assert run.code == 0, run.err
    folder = only_round(round_survey)
    queue = sheet(folder / "queue.csv")
    assert list(queue[0]) == list(QUEUE_COLUMNS)
    # ranked by resemblance to the retained records against the excluded ones (review.suggest.screening)
    assert [(r["rank"], r["identifier"], r["query_families"], r["published"], r["score"], r["likely_reason"])
            for r in queue] == [
        ("1", "arxiv:2605.10002; doi:10.1145/3700001.3700002", "multi-agent LLM RL", "2026-06-01", "0.809", ""),  # every id
        ("2", "arxiv:2605.10001", "credit assignment; orchestration", "2026-05-20", "0.681", ""),
        ("3", "arxiv:2606.00007", "orchestration", "2026-06-25", "0.647", ""),
    ]
    first = queue[1]
    assert (first["title"], first["authors"], first["year"], first["venue"], first["sources"]) == (
        "Orchestrator Credit for Learned Agent Swarms", "Lovelace, Ada; Babbage, Charles", "2026", "arXiv", "arXiv")
    assert first["abstract"].startswith("We study credit assignment for the orchestrator of an agent swarm and train its")
    assert queue[0]["venue"] == "Proceedings of AAMAS 2026"
    assert all(r[c] == "" for r in queue for c in ("decision", "stage", "reason_class", "reason"))
    dups = sheet(folder / "duplicates.csv")
    assert list(dups[0]) == list(DUPLICATE_COLUMNS)
    assert [(d["identifier"], d["status"], d["matched"], d["rule"]) for d in dups] == [
        ("arxiv:2605.10003", "retained", "corpus/papers/turing2026.yaml", "same arxiv 2605.10003"),
        ("arxiv:2605.10004", "excluded", "exclusions/E033.yaml", "same arxiv 2605.10004"),
        ("arxiv:2605.10001", "this round", "queue.csv:3", "same arxiv 2605.10001"),
        ("arxiv:2606.10005", "retained", "corpus/papers/depart2026.yaml", "title 100% similar"),
    ]
    assert dups[0]["title"] == "A Retitled Second Version About Orchestration"  # the new title arXiv lists
    assert "2604.09999" not in (folder / "queue.csv").read_text() + (folder / "duplicates.csv").read_text()
    meta = yaml.safe_load((folder / "round.yaml").read_text())
    assert meta["window"] == {"since": "2026-05-04", "until": "2026-06-30"}
    assert meta["counts"]["by_source"] == {"arXiv": {"identified": 7, "duplicates": 4, "queued": 3}}
    assert meta["counts"]["by_family"]["orchestration"] == {"identified": 5, "duplicates": 4, "queued": 1}
    (arxiv,) = meta["sources"]
    assert arxiv["settings"] == {"page_size": 2, "delay_seconds": 3, "retries": 3, "max_records": 10000,
                                 "deadline_seconds": 60, "max_answer_bytes": 33554432, "max_wire_bytes": 16777216}
    orchestration = next(q for q in arxiv["queries"] if q["family"] == "orchestration")
    assert (orchestration["requests"], orchestration["pages"], orchestration["total"], orchestration["kept"]) == (3, 3, 5, 5)
    assert orchestration["query"].startswith('search_query=(ti:"orchestration" OR abs:"orchestration" OR ')
    assert orchestration["query"].endswith(" AND (cat:cs.AI OR cat:cs.CL OR cat:cs.LG OR cat:cs.MA) AND "
                                           "submittedDate:[202605040000 TO 202606302359]&sortBy=submittedDate&sortOrder=ascending")
    # 7 families: 4 with no hit (1 request each), 1 + 1 + 3 pages: 9 requests, each 3 s after the one before
    assert len(arxiv_server.log) == 9 == sum(q["requests"] for q in arxiv["queries"])
    assert clock.sleeps == [3.0] * 8
    assert run.out.strip() == (f"round {folder.name} (2026-05-04 .. 2026-06-30): 7 queries, 9 requests; 7 records found "
                               f"(arXiv 7), 4 duplicates, 3 queued -> corpus/rounds/{folder.name}/queue.csv")
    assert cli("validate", "--root", round_survey).code == 0


@pytest.mark.parametrize(("family", "scope", "sent"), [
    ('(ti:"a" OR ti:"b") OR (abs:"c")', "cat:cs.AI OR cat:cs.CL",
     '((ti:"a" OR ti:"b") OR (abs:"c")) AND (cat:cs.AI OR cat:cs.CL) AND W'),
    ('ti:"multi agent"', "(cat:cs.MA)", 'ti:"multi agent" AND (cat:cs.MA) AND W'),
    ('abs:orchestrator ANDNOT ti:survey', "", "(abs:orchestrator ANDNOT ti:survey) AND W"),
    ('ti:"a (b" OR ti:c', "cat:cs.AI", '(ti:"a (b" OR ti:c) AND cat:cs.AI AND W'),
])
def test_the_scope_and_the_window_bind_to_the_whole_family_query(family, scope, sent):
    """arXiv's AND binds no tighter than its OR: each part goes in as one operand, or the scope and the window
    would narrow only the query's last term and the round would queue papers outside them."""
    from masrl.review.update.sources.arxiv import operand

    parts = [operand(family)] + ([operand(scope)] if scope else [])
    assert " AND ".join([*parts, "W"]) == sent


def test_searching_again_queues_nothing_twice(round_survey, cli, clock, arxiv_server):
    assert cli("update", "search", "--root", round_survey, *WINDOW, "--source", "arxiv").code == 0
    first = only_round(round_survey).name
    run = cli("update", "search", "--root", round_survey, *WINDOW, "--source", "arxiv")
    assert run.code == 0, run.err
    second = round_survey / "corpus" / "rounds" / f"{first}-2"
    assert sheet(second / "queue.csv") == []
    dups = sheet(second / "duplicates.csv")
    queued = {d["identifier"].split("; ")[0]: d["matched"] for d in dups if d["status"] == "queued"}
    assert queued == {"arxiv:2605.10002": f"corpus/rounds/{first}/queue.csv:2",
                      "arxiv:2605.10001": f"corpus/rounds/{first}/queue.csv:3",
                      "arxiv:2606.00007": f"corpus/rounds/{first}/queue.csv:4"}
    assert "3 queued" not in run.out and ", 0 queued" in run.out


def test_requests_are_three_seconds_apart_across_pages_and_queries(arxiv_server):
    fake = FakeClock()
    source = ArxivSource(Searcher("arxiv", "arXiv", f"{arxiv_server.url}/api/query", "MASRL_ARXIV_API", "arXiv"),
                         page_size=1, clock=fake, sleep=fake.sleep)
    first = source.search(ORCHESTRATION, "2026-05-04", "2026-06-30", lambda: "2026-07-01T00:00:00Z")
    second = source.search(ORCHESTRATION, "2026-06-01", "2026-06-30", lambda: "2026-07-01T00:00:00Z")
    assert [f.identifier for f in first.found] == ["arxiv:2605.10003", "arxiv:2605.10004", "arxiv:2605.10001",
                                                   "arxiv:2606.10005", "arxiv:2606.00007"]
    assert (first.requests, first.pages, second.requests) == (5, 5, 2)
    starts = source.session.started
    assert len(starts) == 7 and all(b - a >= 3.0 for a, b in zip(starts, starts[1:]))
    assert fake.sleeps == [3.0] * 6


def test_the_pace_holds_on_the_real_clock(arxiv_server):
    source = ArxivSource(Searcher("arxiv", "arXiv", f"{arxiv_server.url}/api/query", "MASRL_ARXIV_API", "arXiv"),
                         delay=0.25, page_size=2)
    source.search(ORCHESTRATION, "2026-05-04", "2026-06-30", lambda: "2026-07-01T00:00:00Z")
    times = [t for t, _ in arxiv_server.log]
    assert len(times) == 3 and all(b - a >= 0.25 for a, b in zip(times, times[1:]))


def test_empty_pages_are_retried_first_page_included(no_network):
    api = ArxivServer(empty_pages=2)
    served = Served(api)
    no_network.add_passthru(served.url)
    try:
        fake = FakeClock()
        source = ArxivSource(Searcher("arxiv", "arXiv", f"{served.url}/api/query", "MASRL_ARXIV_API", "arXiv"),
                             page_size=2, retries=3, clock=fake, sleep=fake.sleep)
        run = source.search(ORCHESTRATION, "2026-05-04", "2026-06-30", lambda: "2026-07-01T00:00:00Z")
        assert run.kept == 5 and run.requests == 5  # two empty first pages, then three full ones
        api.empty_pages = 10
        with pytest.raises(SourceError) as err:
            source.search(ORCHESTRATION, "2026-05-04", "2026-06-30", lambda: "2026-07-01T00:00:00Z")
        assert str(err.value) == (f"{served.url.removeprefix('http://')}: the arXiv API answered 0 of the 2 records of the "
                                  "page from 0 for family 'orchestration' after 3 retries; run the search again later")
    finally:
        served.close()


def test_arxiv_through_a_mocked_transport(no_network):
    page = ArxivServer().page({"search_query": ['(ti:"orchestrator" OR abs:"orchestrator")'], "start": ["0"],
                               "max_results": ["10"]})
    no_network.get("https://export.arxiv.org/api/query", body=page, content_type="application/atom+xml")
    fake = FakeClock()
    source = ArxivSource(Searcher("arxiv", "arXiv", "https://export.arxiv.org/api/query", "MASRL_ARXIV_API", "arXiv"),
                         clock=fake, sleep=fake.sleep)
    run = source.search(ORCHESTRATION, "2026-05-01", "2026-06-30", lambda: "2026-07-01T00:00:00Z")
    assert [f.identifier for f in run.found] == ["arxiv:2605.10003", "arxiv:2605.10001", "arxiv:2606.10005", "arxiv:2606.00007"]
    assert run.found[1].authors == ("Lovelace, Ada", "Babbage, Charles")


CREDIT = Family("credit assignment", ("counterfactual credit", "credit assignment"), "credit assignment",
                (("counterfactual credit", "credit assignment"),), {"crossref": "counterfactual credit credit assignment"})
MA_RL = Family("multi-agent LLM RL", ("multi-agent LLM", "reinforcement learning"), "multi-agent LLM",
               (("multi-agent LLM",), ("reinforcement learning",)), {"crossref": "multi-agent LLM reinforcement learning"})


def test_crossref_pages_with_cursors_and_stops_at_a_page_that_keeps_nothing(crossref_server):
    fake = FakeClock()
    source = CrossrefSource(Searcher("crossref", "Crossref", f"{crossref_server.url}/works", "MASRL_CROSSREF_API", "Crossref"),
                            rows=2, clock=fake, sleep=fake.sleep, mailto="screening@example.org")
    run = source.search(MA_RL, "2026-05-04", "2026-06-30", lambda: "2026-07-01T00:00:00Z")
    assert [f.identifier for f in run.found] == ["doi:10.1145/3700001.3700002"]
    assert run.found[0].identifiers == {"arxiv": "2605.10002", "doi": "10.1145/3700001.3700002"}
    assert (run.requests, run.pages, run.total, run.returned, run.kept) == (2, 2, 3, 3, 1)
    assert [p["cursor"] for _, p in crossref_server.log] == ["*", "page-2"]
    assert crossref_server.log[0][1]["mailto"] == "screening@example.org"
    assert crossref_server.log[0][1]["filter"] == ("from-pub-date:2026-05-04,until-pub-date:2026-06-30,"
                                                   "type:proceedings-article,type:journal-article")
    assert fake.sleeps == [1.0]
    credit = source.search(CREDIT, "2026-05-04", "2026-06-30", lambda: "2026-07-01T00:00:00Z")
    acl = credit.found[0]
    assert (acl.identifier, acl.title, acl.venue, acl.published, acl.authors) == (
        "doi:10.18653/v1/2026.acl-long.101", "Counterfactual Credit for Message Passing Agents",
        "Proceedings of the 64th Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
        "2026-06-15", ("Lovelace, Ada", "Babbage, Charles"))
    assert acl.abstract == "We assign counterfactual credit to each message of a team of agents."


def test_crossref_through_a_mocked_transport(no_network):
    body = (CrossrefServer().data)
    body["message"]["next-cursor"] = "x"
    no_network.get("https://api.crossref.org/works", json=body)
    fake = FakeClock()
    source = CrossrefSource(Searcher("crossref", "Crossref", "https://api.crossref.org/works", "MASRL_CROSSREF_API", "Crossref"),
                            clock=fake, sleep=fake.sleep)
    run = source.search(CREDIT, "2026-05-04", "2026-06-30", lambda: "2026-07-01T00:00:00Z")
    assert [f.identifier for f in run.found] == ["doi:10.18653/v1/2026.acl-long.101"]
    assert run.returned == 3 and run.requests == 1


def test_a_venue_paper_whose_preprint_was_found_on_arxiv_is_a_duplicate(round_survey, cli, clock, arxiv_server,
                                                                       crossref_server):
    run = cli("update", "search", "--root", round_survey, *WINDOW, "--source", "arxiv", "--source", "crossref")
    assert run.code == 0, run.err
    folder = only_round(round_survey)
    queue = {r["identifier"].split("; ")[0]: r for r in sheet(folder / "queue.csv")}
    assert set(queue) == {"arxiv:2606.00007", "arxiv:2605.10002", "arxiv:2605.10001", "doi:10.18653/v1/2026.acl-long.101"}
    assert queue["arxiv:2605.10002"]["sources"] == "arXiv; Crossref"
    assert queue["doi:10.18653/v1/2026.acl-long.101"]["sources"] == "Crossref"
    dup = next(d for d in sheet(folder / "duplicates.csv") if d["identifier"].split("; ")[0] == "doi:10.1145/3700001.3700002")
    assert (dup["source"], dup["status"], dup["rule"]) == ("Crossref", "this round", "same arxiv 2605.10002")
    assert "Soil Moisture" not in (folder / "queue.csv").read_text()


def _git_clean(root) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True,
                          text=True, check=True).stdout


@pytest.fixture
def committed(round_survey):
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=round_survey, check=True, capture_output=True)
    return round_survey


def test_an_unreachable_api_exits_1_naming_it_and_writes_nothing(committed, cli, clock, no_network, monkeypatch):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/api/query"
    no_network.add_passthru(url)
    monkeypatch.setenv("MASRL_ARXIV_API", url)
    run = cli("update", "search", "--root", committed, "--source", "arxiv")
    assert run.code == 1
    assert run.err.splitlines() == [f"masrl: error: cannot search arXiv: 127.0.0.1:{port}: the arXiv API cannot be "
                                    "reached (ConnectionError); no network?; nothing was written"]
    assert _git_clean(committed) == ""


def test_a_source_that_fails_halfway_leaves_no_partial_round(committed, cli, clock, arxiv_server, no_network, monkeypatch):
    failing = Served(ArxivServer(status=503))
    no_network.add_passthru(failing.url)
    monkeypatch.setenv("MASRL_CROSSREF_API", f"{failing.url}/works")
    try:
        run = cli("update", "search", "--root", committed, *WINDOW)
    finally:
        failing.close()
    assert run.code == 1
    host = failing.url.removeprefix("http://")
    assert run.err.splitlines() == [f"masrl: error: cannot search Crossref: {host}: the Crossref API answered HTTP 503; "
                                    "nothing was written"]
    assert len(arxiv_server.log) >= 7  # arXiv was searched whole first
    assert _git_clean(committed) == ""


def test_bad_arguments_are_named_at_once(round_survey, cli):
    run = cli("update", "search", "--root", round_survey, "--since", "2026-13-01", "--source", "arxv",
              "--family", "orchestraton")
    assert run.code == 1
    assert run.err.splitlines() == [
        "command line: --family: 'orchestraton' is not a query family of the protocol; allowed: multi-agent LLM RL, "
        "credit assignment, orchestration, tool and software agents, safety, classical MARL, industrial systems "
        "(did you mean 'orchestration'?)",
        "command line: --since: '2026-13-01' names no day of the calendar: a month is 01 to 12",
        "command line: --source: 'arxv' is not a source of the protocol; allowed: arxiv, crossref, openreview, "
        "semanticscholar, citations (did you mean 'arxiv'?)",
        "masrl: error: 3 errors in the command line; nothing was searched.",
    ]


def test_the_session_uses_one_connection():
    session = PacedSession(3)
    adapter = session.get_adapter("https://export.arxiv.org/api/query")
    assert (adapter._pool_connections, adapter._pool_maxsize) == (1, 1)
    assert time.monotonic() > 0


def test_what_a_source_returns_loses_the_characters_the_text_policy_refuses():
    from masrl.review.update.sources.base import one_line

    assert one_line("\u200bOrchestrator\u202e Credit\x07 for\n  Swarms") == "Orchestrator Credit for Swarms"
    assert one_line(None) == "" and one_line("plain") == "plain"


@pytest.mark.parametrize(("given", "shown"), [("not an email", "'not an email'"), ("a@b\r\nX-Evil: 1", "'a@b\\r\\nX-Evil: 1'"),
                                              ("me@localhost", "'me@localhost'"), ("you@-example.org", "'you@-example.org'")])
def test_a_mailto_that_is_not_an_email_address_is_refused_before_any_request(round_survey, cli, given, shown):
    run = cli("update", "search", "--root", round_survey, *WINDOW, "--source", "crossref", "--mailto", given)
    assert (run.code, run.err) == (1, f"masrl: error: --mailto: {shown} is not an e-mail address (name@host.domain, no "
                                      "blank or control character): Crossref's polite pool asks for one; nothing was searched\n")
    assert not (round_survey / "corpus" / "rounds").exists()


def test_the_standin_script_serves_every_source_under_its_endpoints_path(repo):
    """scripts/standin_sources.py prints one export per source the protocol redirects, with the endpoint's path."""
    import importlib.util

    import yaml

    spec = importlib.util.spec_from_file_location("standin_sources", repo / "scripts/standin_sources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    protocol = yaml.safe_load((repo / "tests/data/survey/corpus/protocol.yaml").read_text(encoding="utf-8"))
    wanted = {s["endpoint_env"]: "/" + s["endpoint"].split("/", 3)[3] for s in protocol["searchers"].values()}
    assert {variable: path for variable, _, path in module.SOURCES} == wanted
