"""Local HTTP servers on 127.0.0.1 that answer in the real formats of the arXiv API (Atom, paged by
``start``/``max_results``, ``submittedDate`` windows), Crossref (``work-list``, cursors, pub-date
filters), OpenReview API v2 and the Semantic Scholar Academic Graph, over the records of
tests/data/update; each logs ``(time.monotonic(), params)`` of every request. The fixtures are
imported by the test modules (no conftest.py here: its module name would collide with the other
folders')."""

from __future__ import annotations

import contextlib
import copy
import json
import re
import threading
import time
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "update"
ATOM = "http://www.w3.org/2005/Atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
NS = {"atom": ATOM, "opensearch": OPENSEARCH}
ET.register_namespace("", ATOM)
ET.register_namespace("opensearch", OPENSEARCH)
ET.register_namespace("arxiv", "http://arxiv.org/schemas/atom")


def _matches(entry, query: str) -> bool:
    text = " ".join((entry.findtext("atom:title", "", NS) + " " + entry.findtext("atom:summary", "", NS)).lower().split())
    for group in re.findall(r"\(([^()]*)\)", query):
        terms = re.findall(r'(?:ti|abs):"([^"]+)"', group)
        if terms and not any(t.lower() in text for t in terms):
            return False
    window = re.search(r"submittedDate:\[([0-9]{8})[0-9]{4} TO ([0-9]{8})[0-9]{4}\]", query)
    if window:
        day = entry.findtext("atom:published", "", NS)[:10].replace("-", "")
        if not window.group(1) <= day <= window.group(2):
            return False
    return True


def _arxiv_id(entry) -> str:
    """The id of an entry without its version (``2606.00007``)."""
    return re.sub(r"v[0-9]+$", "", entry.findtext("atom:id", "", NS).rsplit("/abs/", 1)[-1])


class ArxivServer:
    """The fake arXiv API. ``empty_pages``: how many requests to answer with an empty page first."""

    def __init__(self, empty_pages: int = 0, status: int = 200):
        self.tree = ET.parse(DATA / "arxiv_records.xml")
        self.entries = self.tree.getroot().findall("atom:entry", NS)
        self.log: list[tuple[float, dict]] = []
        self.empty_pages = empty_pages
        self.status = status

    def page(self, params: dict) -> bytes:
        query = params.get("search_query", [""])[0]
        start = int(params.get("start", ["0"])[0])
        size = int(params.get("max_results", ["10"])[0])
        hits = sorted((e for e in self.entries if _matches(e, query)), key=lambda e: e.findtext("atom:published", "", NS))
        if params.get("id_list", [""])[0]:  # the papers named, in the order named (a lookup: `masrl add --arxiv`)
            named = params["id_list"][0].split(",")
            hits = sorted((e for e in hits if _arxiv_id(e) in named), key=lambda e: named.index(_arxiv_id(e)))
        root = copy.deepcopy(self.tree.getroot())
        for entry in root.findall("atom:entry", NS):
            root.remove(entry)
        root.find("opensearch:totalResults", NS).text = str(len(hits))
        root.find("opensearch:startIndex", NS).text = str(start)
        root.find("opensearch:itemsPerPage", NS).text = str(size)
        if self.empty_pages > 0:
            self.empty_pages -= 1
        else:
            for entry in hits[start:start + size]:
                root.append(copy.deepcopy(entry))
        return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root)

    def answer(self, path: str, params: dict) -> tuple[int, str, bytes]:
        if self.status != 200:
            return self.status, "text/plain", b"Service Unavailable"
        return 200, "application/atom+xml; charset=UTF-8", self.page(params)


class CrossrefServer:
    """The fake Crossref API; ``rows`` per page unless the request asks for fewer."""

    def __init__(self):
        self.data = json.loads((DATA / "crossref_works.json").read_text(encoding="utf-8"))
        self.log: list[tuple[float, dict]] = []

    def answer(self, path: str, params: dict) -> tuple[int, str, bytes]:
        filters = dict(f.split(":", 1) for f in params.get("filter", [""])[0].split(",") if ":" in f)
        items = [i for i in self.data["message"]["items"]
                 if filters.get("from-pub-date", "0000") <= "-".join(f"{p:02d}" for p in i["published"]["date-parts"][0])
                 <= filters.get("until-pub-date", "9999") + "-99"]
        rows = int(params.get("rows", ["20"])[0])
        cursor = params.get("cursor", ["*"])[0]
        start = 0 if cursor == "*" else int(cursor.removeprefix("page-"))
        body = copy.deepcopy(self.data)
        body["message"].update({"items": items[start:start + rows], "total-results": len(items), "items-per-page": rows,
                                "next-cursor": f"page-{start + rows}"})
        return 200, "application/json;charset=utf-8", json.dumps(body).encode()


class Served:
    """A running server: ``url`` (``http://127.0.0.1:PORT``), ``log`` (its api's) of ``(time, params)``, ``close()``."""

    def __init__(self, api):
        self.api, self.log = api, api.log
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                parts = urlsplit(self.path)
                params = parse_qs(parts.query)
                outer.api.log.append((time.monotonic(), {k: v[0] for k, v in params.items()}))
                status, kind, body, *more = outer.api.answer(parts.path, params)
                headers = more[0] if more else {}
                self.send_response(status)
                self.send_header("Content-Type", kind)
                if isinstance(body, bytes):
                    self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    if isinstance(body, bytes):
                        self.wfile.write(body)
                    else:  # (chunk, pause) pairs: a server that trickles its answer
                        for chunk, pause in body:
                            self.wfile.write(chunk)
                            self.wfile.flush()
                            if outer.closing.wait(pause):
                                return
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.closing = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # polled every 10 ms for the shutdown of close() (the default, half a second, was paid by every test)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


class FakeClock:
    """A monotonic clock that only moves when slept on: ``sleep(s)`` adds ``s`` (and records it)."""

    def __init__(self, start: float = 1000.0):
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


# ---------------------------------------------------------------- fixtures

def fake_clock(patch) -> FakeClock:
    """A fake clock used by every :class:`PacedSession` built without its own (no test waits 3 s)."""
    from masrl.review.update.sources import pacing

    fake = FakeClock()
    patch.setattr(pacing, "CLOCK", fake)
    patch.setattr(pacing, "SLEEP", fake.sleep)
    return fake


@contextlib.contextmanager
def endpoint(mock, patch, api, variable: str, path: str):
    """``api`` served, let through the HTTP mock and named by the environment variable ``variable``."""
    with contextlib.closing(Served(api)) as served:
        mock.add_passthru(served.url)
        patch.setenv(variable, served.url + path)
        yield served


@pytest.fixture
def clock(monkeypatch):
    return fake_clock(monkeypatch)


@pytest.fixture
def arxiv_server(no_network, monkeypatch):
    with endpoint(no_network, monkeypatch, ArxivServer(), "MASRL_ARXIV_API", "/api/query") as served:
        yield served


@pytest.fixture
def crossref_server(no_network, monkeypatch):
    with endpoint(no_network, monkeypatch, CrossrefServer(), "MASRL_CROSSREF_API", "/works") as served:
        yield served


@pytest.fixture(scope="session")
def round_survey_tree(published_tree, request):
    """The survey (release v1's pool) plus a retained paper 2605.10003 ("An Old Title of a Retained
    Paper") and an excluded paper 2605.10004, both of which the arXiv server also lists; made
    once per tree and run through the CLI (:func:`trees.made_once`). Read-only: take ``round_survey``."""
    from grow import PAPERS, add_paper, run_captured
    from trees import copy_tree, made_once

    def make(root):
        copy_tree(published_tree, root)
        add_paper(run_captured, root, {"key": "turing2026", "arxiv": "2605.10003v1", "title": "An Old Title of a Retained Paper",
                                       "authors": ["Turing, Alan"], "year": 2026, "venue": "arXiv", "tags": PAPERS[0]["tags"]})
        run = run_captured("exclude", "--root", root, "--title", "Prompted Delegation Without Training", "--arxiv", "2605.10004",
                           "--author", "Liskov, Barbara", "--year", "2026", "--stage", "abstract_screen", "--reason",
                           "prompted framework only", "--reason-class", "X1", "--source", "arXiv", "--query-family", "orchestration")
        assert run.code == 0, run.err

    return made_once(request.config, "round", make)


@pytest.fixture
def round_survey(round_survey_tree, tmp_path):
    """A copy of ``round_survey_tree`` to modify freely."""
    from trees import copy_tree

    return copy_tree(round_survey_tree, tmp_path / "survey")


# ---------------------------------------------------------------- scripted and synthetic servers

class Scripted:
    """A server that answers each request with ``reply(path, params)``: ``(status, content type,
    body)`` or ``(status, content type, body, headers)``; ``body`` is bytes, or ``(chunk, pause)``
    pairs sent one after the other (a server that trickles)."""

    def __init__(self, reply):
        self.reply = reply
        self.log: list[tuple[float, dict]] = []

    def answer(self, path: str, params: dict):
        return self.reply(path, {k: v[0] for k, v in params.items()})


def atom(entries: str, total: int, start: int = 0, per_page: int = 10) -> bytes:
    """An arXiv API page holding ``entries`` (Atom ``<entry>`` elements as text)."""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="{ATOM}" xmlns:opensearch="{OPENSEARCH}" '
            f'xmlns:arxiv="http://arxiv.org/schemas/atom"><title>arXiv Query</title><id>http://arxiv.org/api/x</id>'
            f"<updated>2026-06-30T00:00:00Z</updated><opensearch:totalResults>{total}</opensearch:totalResults>"
            f"<opensearch:startIndex>{start}</opensearch:startIndex><opensearch:itemsPerPage>{per_page}"
            f"</opensearch:itemsPerPage>{entries}</feed>").encode()


def entry(arxiv: str = "2605.30001", title: str = "An Orchestrator", published: str = "2026-05-20T10:00:00Z",
          authors: str = "<author><name>Ada Lovelace</name></author>", summary: str = "We train an orchestrator.",
          extra: str = "") -> str:
    """One Atom entry of an arXiv API page, its parts replaceable."""
    return (f"<entry><id>http://arxiv.org/abs/{arxiv}v1</id><updated>{published}</updated><published>{published}"
            f"</published><title>{title}</title><summary>{summary}</summary>{authors}{extra}</entry>")


@pytest.fixture
def serve(no_network):
    """``serve(api) -> Served``: a local server of ``api`` that the HTTP mock lets through,
    closed after the test."""
    with contextlib.ExitStack() as running:
        def start(api):
            served = running.enter_context(contextlib.closing(Served(api)))
            no_network.add_passthru(served.url)
            return served

        yield start


SMALL_PROTOCOL = DATA / "protocol_small.yaml"


@pytest.fixture
def small_survey(tmp_path, cli, monkeypatch):
    """A survey made with ``masrl init`` and the protocol of ``tests/data/update/protocol_small.yaml``
    (one family, every source), today 2026-06-30; nothing of the repository's corpus."""
    monkeypatch.setenv("MASRL_TODAY", "2026-06-30")
    root = tmp_path / "small"
    run = cli("init", root, "--title", "A small survey")
    assert run.code == 0, run.err
    (root / "corpus" / "protocol.yaml").write_bytes(SMALL_PROTOCOL.read_bytes())
    return root


class OpenReviewServer:
    """The fake OpenReview API v2: ``GET /notes?content.venueid=V&limit=&offset=`` over the notes of
    ``tests/data/update/openreview_notes.json``, with ``count`` (``count=False``: without it, which the
    API's format allows); ``limit`` per page unless the request asks for fewer (``page``: the server's
    own largest page)."""

    def __init__(self, page: int = 1000, count: bool = True):
        self.data = json.loads((DATA / "openreview_notes.json").read_text(encoding="utf-8"))
        self.page, self.count = page, count
        self.log: list[tuple[float, dict]] = []

    def answer(self, path: str, params: dict):
        venue = params.get("content.venueid", [""])[0]
        notes = [n for n in self.data["notes"] if n["content"]["venueid"]["value"] == venue]
        offset, limit = int(params.get("offset", ["0"])[0]), min(int(params.get("limit", ["1000"])[0]), self.page)
        body = {"notes": notes[offset:offset + limit], **({"count": len(notes)} if self.count else {})}
        return 200, "application/json; charset=utf-8", json.dumps(body).encode()


class SemanticScholarServer:
    """The fake Semantic Scholar Academic Graph API over ``tests/data/update/s2_graph.json``:

    * ``/graph/v1/paper/search/bulk``: the papers whose title or abstract holds a quoted term of
      ``query`` and whose ``publicationDate`` (or year) lies in ``publicationDateOrYear``, ``page``
      papers a request, paged with ``token``;
    * ``/graph/v1/paper/<id>/references`` and ``/citations`` (``<id>``: a paperId, ``arXiv:...``
      or ``DOI:...``), paged with ``offset``, ``limit`` and ``next``; 404 for an unknown paper;
    * the first ``busy`` requests are answered HTTP 429 with ``Retry-After: 2``.
    """

    def __init__(self, page: int = 2, busy: int = 0):
        self.data = json.loads((DATA / "s2_graph.json").read_text(encoding="utf-8"))
        self.papers = {p["paperId"]: p for p in self.data["papers"]}
        self.page, self.busy = page, busy
        self.log: list[tuple[float, dict]] = []

    def _find(self, ident: str):
        if ident in self.papers:
            return ident
        kind, _, value = ident.partition(":")
        field = {"arXiv": "ArXiv", "DOI": "DOI"}.get(kind)
        return next((pid for pid, p in self.papers.items() if field and str(p["externalIds"].get(field, "")).lower() == value.lower()),
                    None)

    def answer(self, path: str, params: dict):
        if self.busy > 0:
            self.busy -= 1
            return 429, "application/json", b'{"message": "Too Many Requests"}', {"Retry-After": "2"}
        one = {k: v[0] for k, v in params.items()}
        if path.endswith("/paper/search/bulk"):
            terms = [t.lower() for t in re.findall(r'"([^"]+)"', one.get("query", ""))]
            since, _, until = one.get("publicationDateOrYear", ":").partition(":")
            hits = [p for p in self.data["papers"]
                    if any(t in f"{p['title']} {p['abstract']}".lower() for t in terms)
                    and since <= (p["publicationDate"] or f"{p['year']}-06-01") <= until]
            start = int(one.get("token", "0"))
            body = {"total": len(hits), "data": hits[start:start + self.page]}
            if start + self.page < len(hits):
                body["token"] = str(start + self.page)
            return 200, "application/json", json.dumps(body).encode()
        match = re.fullmatch(r".*/paper/(.+)/(references|citations)", path)
        pid = self._find(match.group(1)) if match else None
        if pid is None:
            return 404, "application/json", json.dumps({"error": f"Paper with id {path} not found"}).encode()
        if match.group(2) == "references":
            edges = [{"citedPaper": self.papers[r] if r else {"paperId": None, "title": "Unresolved reference",
                                                              "externalIds": None, "authors": []}}
                     for r in self.data["references"].get(pid, [])]
        else:
            edges = [{"citingPaper": self.papers[c]} for c, refs in self.data["references"].items() if pid in refs]
        offset, limit = int(one.get("offset", "0")), min(int(one.get("limit", "100")), self.page)
        body = {"offset": offset, "data": edges[offset:offset + limit]}
        if offset + limit < len(edges):
            body["next"] = offset + limit
        return 200, "application/json", json.dumps(body).encode()
