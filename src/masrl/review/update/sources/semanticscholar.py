"""Semantic Scholar as a source of an update round: keyword search by query family.

Format: the Semantic Scholar Academic Graph API (https://api.semanticscholar.org/api-docs/graph),
``GET <endpoint>/paper/search/bulk`` with the family's query (its boolean syntax: ``"phrase"``,
``|`` for OR, ``+`` for AND), ``fields`` (:data:`masrl.bib.s2_json.FIELDS`) and
``publicationDateOrYear=<since>:<until>``; it answers ``{"total", "token", "data": [paper]}`` and
pages with ``token`` (up to 1,000 papers a page) until an answer has no token. Read strictly by
:mod:`masrl.bib.s2_json`. The paging has a bound, ``max_records`` per query (default
:data:`MAX_RECORDS`): a query with more results fails at its first page unless the run allows an
incomplete search.

A paper is named by its arXiv id when it has one, else its DOI, else its Semantic Scholar page
(``url:https://www.semanticscholar.org/paper/<paperId>``), and keeps every id the API gives, so
that a preprint and its venue version meet as duplicates. The window is the API's filter; a
paper whose ``publicationDate`` lies outside it (or that has only a year) is counted and named,
not kept.

Terms and pace (https://www.semanticscholar.org/product/api, "API License Agreement"; rate
limits): without a key the API shares a pool among all users and answers HTTP 429 when it is
busy; masrl sends one request a second on one connection and waits as ``Retry-After`` asks (or
twice the delay, then four times, ...). ``MASRL_S2_API_KEY``, when set, is sent as ``x-api-key``.
"""

from __future__ import annotations

import os

from ....bib.answers import FormatError
from ....bib.s2_json import FIELDS, UnusableValue, error_text, not_found_text, read_search, record
from .base import Found, QueryRun, SourceError, Unusable, count_text, failure, fetch_page, pages_bound, read_page, sent_at
from .pacing import PacedSession, PaceFile

DELAY_SECONDS = 1
MAX_RECORDS = 10000
NAME = "the Semantic Scholar API"
#: Semantic Scholar's ``total`` is approximate: pages that end short of it by more than this share
#: of it are a run that lost records, not an estimate that was off (one record of two is half the
#: answer, whatever the count); pages that run past it by more than this share are not its answer.
SHORTFALL_SHARE = 0.05
KEY_VARIABLE = "MASRL_S2_API_KEY"
#: The papers of a page of /paper/search/bulk ("up to 1,000"; the request bound of a query counts on it).
PAGE_SIZE = 1000
PAGE = "https://www.semanticscholar.org/paper/"


def found_of(rec, place: str) -> Found | Unusable:
    """A dated :class:`masrl.bib.s2_json.Record` as a :class:`Found` (:class:`Unusable` without a
    title or an id, named by its id or by ``place``, where the answer holds it)."""
    if not rec.title or not (rec.arxiv or rec.doi or rec.paper_id):
        return Unusable(_label(rec) if rec.arxiv or rec.doi or rec.paper_id else place, "title" if not rec.title else "id")
    ids = {}
    if rec.arxiv:
        ids["arxiv"] = rec.arxiv
    if rec.doi:
        ids["doi"] = rec.doi
    if rec.acl:
        ids["acl"] = rec.acl
    if not ids:
        ids["url"] = PAGE + rec.paper_id
    scheme, value = next(iter(ids.items()))
    ident = f"{scheme}:{value.lower() if scheme == 'doi' else value}"
    # Semantic Scholar names the preprint server "arXiv.org": the venue `masrl add` gives an arXiv paper is "arXiv"
    venue = "arXiv" if rec.venue.casefold() in ("arxiv.org", "arxiv") or (not rec.venue and rec.arxiv) else rec.venue
    return Found(ident, ids, rec.title, rec.authors, int(rec.published[:4]), venue, rec.abstract, rec.published)


class S2Client:
    """The paced connection to the API shared by keyword search and citation searching."""

    def __init__(self, endpoint: str, delay: float, clock, sleep, on_request, on_page, pace, limits):
        self.endpoint = endpoint.rstrip("/")
        self.session = PacedSession(delay, clock, sleep, on_request, pace, limits)
        self.on_page = on_page
        key = os.environ.get(KEY_VARIABLE, "").strip()
        self.headers = {"x-api-key": key} if key else {}

    def get(self, path: str, params: dict, missing_ok: bool = False):
        """The body of ``GET endpoint/path?params`` (None for the API's own "paper not found" 404
        when ``missing_ok``).

        Raises:
            SourceError: unreachable, rate-limited past the retries, an HTTP error.
        """
        return fetch_page(self.session, f"{self.endpoint}{path}", NAME, params, self.headers, self.on_page,
                          error_text, missing_ok, missing=not_found_text if missing_ok else None)


class SemanticScholarSource:
    """Searches Semantic Scholar for one query family at a time, over one paced connection.

    Args:
        searcher: the protocol's searcher (endpoint: the API's base, ``.../graph/v1``).
        delay, max_records: request spacing (seconds), the paging bound per query.
        clock, sleep, on_request, on_page, pace, limits, allow_incomplete: as for :class:`~.arxiv.ArxivSource`.
    """

    name = "semanticscholar"

    def __init__(self, searcher, delay: float | None = None, max_records: int | None = None, clock=None, sleep=None,
                 on_request=None, on_page=None, allow_incomplete: bool = False, pace: PaceFile | None = None, limits=None):
        delay = DELAY_SECONDS if delay is None else delay
        self.searcher = searcher
        self.endpoint = searcher.endpoint
        self.client = S2Client(searcher.endpoint, delay, clock, sleep, on_request, on_page, pace, limits)
        self.session = self.client.session
        self.max_records = int(max_records or MAX_RECORDS)
        self.allow_incomplete = allow_incomplete
        self.settings = {"max_records": self.max_records, "delay_seconds": int(delay) if float(delay).is_integer() else str(delay),
                         "api_key": bool(self.client.headers), **self.session.limits.settings()}

    def search(self, family, since: str, until: str, now) -> QueryRun:
        """Every paper of ``family``'s query published in ``[since, until]``.

        Raises:
            SourceError: one line naming the host and what happened.
        """
        run = QueryRun(family.name)
        run.sent = now()
        fixed = {"query": family.queries[self.name], "fields": FIELDS, "publicationDateOrYear": f"{since}:{until}"}
        run.query = "&".join(f"{k}={v}" for k, v in fixed.items())
        first = len(self.session.started)
        token = None
        seen: set[str] = set()
        tokens: set[str] = set()
        while True:
            if run.returned >= self.max_records and token:  # a token: at least one more is due, whatever the total says
                run.not_fetched = max(1, run.total - run.returned)
                run.stopped = f"the paging bound of {self.max_records:,} records per query (--max-records)"
                run.incomplete = True
                break
            body = self.client.get("/paper/search/bulk", {**fixed, **({"token": token} if token else {})})
            page = read_page(read_search, body, NAME, self.endpoint)
            run.pages += 1
            if run.pages == 1:
                run.total = page.total
                if page.total > 100_000_000:
                    raise SourceError(self.endpoint, f"{NAME} says family {family.name!r} has {count_text(page.total)} results, "
                                                     "more than it holds papers: not an answer of Semantic Scholar")
                if page.total > self.max_records and not self.allow_incomplete:
                    raise SourceError(self.endpoint, f"family {family.name!r} has {page.total:,} results in the window, "
                                                     f"more than the paging bound of {self.max_records:,} per query; narrow "
                                                     "the window, raise --max-records or give --allow-incomplete")
            room = self.max_records - run.returned  # the API's pages have a fixed size: read no more than the bound
            for i, paper in enumerate(page.data[:room]):
                where = f"$.data[{i}] (page {run.pages})"
                rec = read_page(paper_record, paper, NAME, self.endpoint, where)
                if isinstance(rec, Unusable):
                    run.take(rec, since, until)
                    continue
                once(rec, where, seen, self.endpoint)
                _keep(run, rec, since, until, f"paper {i} of page {run.pages}")
            if len(page.data) > room:  # those past the bound were sent and not read, and a token promises more
                run.not_fetched = max(len(page.data) - room + bool(page.token), run.total - run.returned)
                run.stopped = f"the paging bound of {self.max_records:,} records per query (--max-records)"
                run.incomplete = True
                break
            if run.returned > run.total and run.returned - run.total > SHORTFALL_SHARE * run.total:
                raise failure(NAME, self.endpoint, FormatError(
                    f"{run.returned:,} papers sent, far more than the about {run.total:,} its total announced"))
            token = page.token  # paging ends where the API gives no token ($.total is documented as approximate)
            if token and page.data and token in tokens:
                raise failure(NAME, self.endpoint, FormatError(
                    f"page {run.pages} gives a token ({token[:40]!r}) that an earlier page gave: its pages would never end"))
            tokens.add(token)
            if token and not page.data:  # more are due, and none came: no estimate explains that
                run.not_fetched = max(1, run.total - run.returned)
                run.stopped = (f"page {run.pages} sent no paper but a token for more, at {run.returned:,} of the about "
                               f"{run.total:,} results it announced")
                run.incomplete = True
                break
            if not token:
                short = run.total - run.returned
                if short > SHORTFALL_SHARE * run.total:
                    run.not_fetched = short
                    run.stopped = (f"the pages ended with {short:,} of the about {run.total:,} results it announced not sent "
                                   f"(its total is approximate, but not by more than {SHORTFALL_SHARE:.0%})")
                    run.incomplete = True
                elif short:  # within the approximation: said, in round.yaml and on the terminal
                    run.stopped = (f"the pages ended at {run.returned:,} results, {abs(short):,} "
                                   f"{'fewer' if short > 0 else 'more'} than the {run.total:,} its approximate total "
                                   f"announced (taken as its estimate: within {SHORTFALL_SHARE:.0%})")
                break
            if run.pages >= pages_bound(self.max_records, PAGE_SIZE):  # pages far shorter than the API's would never end
                run.not_fetched = max(1, run.total - run.returned)
                run.stopped = (f"the bound of {pages_bound(self.max_records, PAGE_SIZE):,} pages per query (--max-records "
                               f"over the {PAGE_SIZE:,} papers of a page, and two more): its pages were shorter than the API's")
                run.incomplete = True
                break
        run.requests = len(self.session.started) - first
        run.sent = sent_at(now, self.session, first)
        run.kept = len(run.found)
        return run


def paper_record(paper, where: str):
    """:func:`masrl.bib.s2_json.record` of one paper, or an :class:`Unusable` naming the paper and the value of it no
    record may hold (:class:`masrl.bib.s2_json.UnusableValue`): the rest of the answer is read on."""
    try:
        return record(paper, where)
    except UnusableValue as err:
        return Unusable(f"url:{PAGE}{paper.paperId}" if paper.paperId else where, why=str(err))


def once(rec, where: str, seen: set, endpoint: str) -> None:
    """Refuse a paper sent twice in one result set (by its paperId, arXiv id or DOI); ``seen``
    holds what was sent before."""
    keys = {f"paper {rec.paper_id}" if rec.paper_id else "", f"arxiv:{rec.arxiv}" if rec.arxiv else "",
            f"doi:{rec.doi.lower()}" if rec.doi else ""} - {""}
    twice = sorted(keys & seen)
    if twice:
        raise failure(NAME, endpoint, FormatError(f"{where}: {twice[0]} is sent twice"))
    seen |= keys


def _label(rec) -> str:
    return f"arxiv:{rec.arxiv}" if rec.arxiv else f"doi:{rec.doi}" if rec.doi else f"url:{PAGE}{rec.paper_id}"


def _keep(run: QueryRun, rec, since: str, until: str, place: str) -> None:
    """Count and sort one paper (:meth:`QueryRun.take`); one without a date is counted outside the
    window and named ``(no date, year N)``."""
    if not rec.published and rec.title and (rec.arxiv or rec.doi or rec.paper_id):
        run.undated(_label(rec), rec.year)
        return
    run.take(found_of(rec, place), since, until)
