"""Citation searching as a source of an update round (PRISMA 2020: identification "via other
methods"): the references of the retained records (backward) and the papers citing them (forward).

Format: the Semantic Scholar Academic Graph API (https://api.semanticscholar.org/api-docs/graph),
``GET <endpoint>/paper/<id>/references`` and ``/citations`` with ``fields``
(:data:`masrl.bib.s2_json.FIELDS`), ``offset`` and ``limit`` (1,000, the API's largest page); they
answer ``{"offset", "next", "data": [{"citedPaper": paper}]}`` (or ``citingPaper``) and page on
with ``next`` until an answer has none. Read strictly by :mod:`masrl.bib.s2_json`. Each later page is
asked from the last link already received, which must still be there (:func:`~.base.check_overlap`):
links that moved while they were paged are refused, not left a link short.

The seeds are the retained records that have an id Semantic Scholar takes, an arXiv id, a DOI or
an ACL Anthology id (``arXiv:<id>``, else ``DOI:<doi>``, else ``ACL:<id>``, in key order); the others
(an OpenReview id or a web page only) are named in the run's notes; the searcher's ``directions`` say which ways are searched (default
both). Each (seed, direction) is one query of the round, and every record it finds says how:
``cited by KEY`` for a reference of record KEY (KEY cites it), ``cites KEY`` for a paper that
cites KEY. Records published in the round's window are kept; the others (most references are
older) are counted and named in ``round.yaml``, as is every reference Semantic Scholar could not
resolve to a paper (counted as not matching). A seed Semantic Scholar does not know (HTTP 404 to
its first page) is recorded with no records and named in the run's notes; a 404 to a later page
breaks the paging and is refused like any other error. Each query's paging is bounded by
``max_records`` (default :data:`MAX_RECORDS`), like every source's.

Pace and terms: those of :mod:`.semanticscholar` (one connection, one request a second,
``Retry-After``; ``MASRL_S2_API_KEY``).
"""

from __future__ import annotations

from urllib.parse import quote

from msgspec import UNSET

from ....bib.answers import FormatError
from ....bib.s2_json import FIELDS, read_edges
from .base import QueryRun, SourceError, Unusable, check_overlap, failure, pages_bound, read_page, sent_at
from .pacing import PaceFile
from .semanticscholar import DELAY_SECONDS, NAME, S2Client, _keep, paper_record

LIMIT = 1000
MAX_RECORDS = 10000
#: The links of one paper the API serves at most: it answers only while offset + limit < 10,000 (Semantic Scholar's
#: documented bound of its /references and /citations), so a list that reaches 9,999 links may hold more.
API_LINKS = 9999
DIRECTIONS = ("backward", "forward")
#: How a record found in each direction names its seed, and the API's path and field.
WAYS = {"backward": ("cited by", "references", "citedPaper"), "forward": ("cites", "citations", "citingPaper")}


def seeds(corpus) -> list[tuple[str, str]]:
    """``[(record key, Semantic Scholar id)]`` of the retained records with an arXiv id, a DOI or an ACL
    Anthology id, by key."""
    from ....bib.identifiers import IdentifierError, parse

    out = []
    for rec in corpus.retained.values():
        ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
        key = str(rec.get("key") or "")
        for scheme, prefix in (("arxiv", "arXiv"), ("doi", "DOI"), ("acl", "ACL")):
            if ids.get(scheme) and key:
                try:
                    value = parse(str(ids[scheme]), scheme).key.split(":", 1)[1]
                except IdentifierError:
                    continue
                out.append((key, f"{prefix}:{value}"))
                break
    return sorted(out)


def unseeded(corpus) -> list[str]:
    """The keys of the retained records that :func:`seeds` cannot search from (no id Semantic Scholar takes)."""
    seeded = {key for key, _ in seeds(corpus)}
    return sorted(key for rec in corpus.retained.values() if (key := str(rec.get("key") or "")) and key not in seeded)


def in_path(paper_id: str) -> str:
    """A paper id as it goes into a request's path: percent-encoded (a DOI may hold ``?``, ``#`` or ``%``),
    its ``/`` kept as the API's examples write a DOI, unless a segment is ``.`` or ``..``: then every ``/`` is
    encoded too, so that no client, proxy or server takes the id for steps up the API's path."""
    steps = any(part in (".", "..") for part in paper_id.split("/"))
    return quote(paper_id, safe=":" if steps else ":/")


class CitationSource:
    """Searches the citation links of the retained records, over one paced connection.

    Args:
        searcher: the protocol's searcher (endpoint: the API's base; ``options["directions"]``).
        corpus: the survey whose retained records are the seeds.
        delay, limit, max_records: request spacing, links per page, the paging bound per query.
        clock, sleep, on_request, on_page, pace, limits, allow_incomplete: as for :class:`~.arxiv.ArxivSource`.
    """

    name = "citations"

    def __init__(self, searcher, corpus=None, delay: float | None = None, limit: int | None = None,
                 max_records: int | None = None, clock=None, sleep=None, on_request=None, on_page=None,
                 allow_incomplete: bool = False, pace: PaceFile | None = None, limits=None):
        delay = DELAY_SECONDS if delay is None else delay
        self.searcher = searcher
        self.endpoint = searcher.endpoint
        self.client = S2Client(searcher.endpoint, delay, clock, sleep, on_request, on_page, pace, limits)
        self.session = self.client.session
        self.seeds = seeds(corpus) if corpus is not None else []
        self.unseeded = unseeded(corpus) if corpus is not None else []
        self.directions = tuple(d for d in DIRECTIONS if d in (searcher.options.get("directions") or DIRECTIONS))
        self.limit = int(limit or LIMIT)
        self.max_records = int(max_records or MAX_RECORDS)
        self.allow_incomplete = allow_incomplete
        self.settings = {"directions": "; ".join(self.directions), "seeds": len(self.seeds), "limit": self.limit,
                         "max_records": self.max_records, "delay_seconds": int(delay) if float(delay).is_integer() else str(delay),
                         "api_key": bool(self.client.headers), **self.session.limits.settings()}

    def queries(self) -> list[tuple[str, str, str]]:
        """``[(how, seed key, direction)]``: the queries of a run, seed by seed."""
        return [(f"{WAYS[d][0]} {key}", key, d) for key, _ in self.seeds for d in self.directions]

    def search_all(self, families, since: str, until: str, now, on_query=None) -> list[QueryRun]:
        """One :class:`QueryRun` per (seed, direction); ``families`` are not used (citation
        searching has no query family); ``on_query(how)`` is told before each.

        Raises:
            SourceError: one line naming the host and what happened.
        """
        ids = dict(self.seeds)
        runs = []
        for how, key, direction in self.queries():
            if on_query is not None:
                on_query(how)
            runs.append(self._one(how, ids[key], direction, since, until, now))
        return runs

    def _one(self, how: str, paper_id: str, direction: str, since: str, until: str, now) -> QueryRun:
        _, path, field = WAYS[direction]
        paper_id = in_path(paper_id)
        run = QueryRun(how)
        run.sent = now()
        run.query = f"/paper/{paper_id}/{path}?fields={FIELDS}"
        first = len(self.session.started)
        offset = 0
        last = ""  # the last link received (each later page starts with it)
        while True:
            if offset >= self.max_records:
                run.stopped = f"the paging bound of {self.max_records:,} links per query (--max-records)"
                run.incomplete = True
                run.not_fetched = 1  # at least: the API gives no count of links
                if not self.allow_incomplete:
                    raise SourceError(self.endpoint, f"{how}: more than the paging bound of {self.max_records:,} links; "
                                                     "raise --max-records or give --allow-incomplete")
                break
            if offset >= API_LINKS:
                run.stopped = (f"{NAME} serves at most {API_LINKS:,} links of one paper (it answers only while "
                               "offset + limit < 10,000): the links past them cannot be fetched")
                run.incomplete = True
                run.not_fetched = 1  # at least: the API gives no count of links
                if not self.allow_incomplete:
                    raise SourceError(self.endpoint, f"{how}: {run.stopped}; give --allow-incomplete to keep the "
                                                     f"{API_LINKS:,} it sent (and search the rest by keyword)")
                break
            back = 1 if offset else 0  # each later page from the last link received: it must still be there
            asked = min(self.limit - back, self.max_records - offset, API_LINKS - offset)  # never past a bound
            body = self.client.get(f"/paper/{paper_id}/{path}", {"fields": FIELDS, "offset": str(offset - back),
                                                                  "limit": str(asked + back)}, missing_ok=True)
            if body is None and offset:  # the seed is gone after its first pages: what follows would be lost
                raise SourceError(self.endpoint, f"{how}: {NAME} answered that it has no such paper when asked for its "
                                                 f"links from {offset - back}, after it had sent {offset}: the paging "
                                                 "broke, so nothing of it was kept; run the search again later")
            if body is None:
                run.requests = len(self.session.started) - first
                run.sent = sent_at(now, self.session, first)
                run.stopped = "Semantic Scholar has no such paper"  # the query names it
                return run
            page = read_page(read_edges, body, NAME, self.endpoint)
            run.pages += 1
            if page.offset != offset - back or len(page.data) > asked + back:
                raise failure(NAME, self.endpoint, FormatError(
                    f"a page from {page.offset} of {len(page.data)} links, asked from {offset - back} for {asked + back}"))
            if back:
                check_overlap(NAME, self.endpoint, offset - 1, _link(page.data[0], field) if page.data else None, last)
            for i, edge in enumerate(page.data[back:], back):
                paper = getattr(edge, field)
                if paper is UNSET:
                    raise failure(NAME, self.endpoint, FormatError(
                        f"$.data[{i}] ({how}, offset {offset}): a link without {field}, which the API sends with every "
                        f"link of /{path}"))
                last = _link(edge, field)
                if paper is None:
                    run.take(Unusable(f"link {offset + i - back}", "paper"), since, until)
                    continue
                where = f"$.data[{i}].{field} ({how}, offset {offset - back})"
                rec = read_page(paper_record, paper, NAME, self.endpoint, where)
                if isinstance(rec, Unusable):
                    run.take(rec, since, until)
                    continue
                # a link list may name one paper twice (a preprint and its venue version, or one id twice: both
                # seen in Semantic Scholar's answers): each is kept, and the round counts the second as a duplicate
                _keep(run, rec, since, until, f"link {offset + i - back}")
            offset += len(page.data) - back
            if page.next is None:
                if offset >= API_LINKS:
                    continue  # at the API's bound, which it may not say: what it could not send is named above
                break
            if len(page.data) <= back:
                raise SourceError(self.endpoint, f"{how}: {NAME} answered no link from offset {offset} on, yet says more "
                                                 f"links follow ($.next is {page.next}); run the search again later")
            if run.pages >= pages_bound(self.max_records, self.limit):  # pages far shorter than asked would never end
                run.stopped = (f"the bound of {pages_bound(self.max_records, self.limit):,} pages per query (--max-records "
                               f"over the {self.limit:,} links asked a page, and two more): its pages were shorter than asked")
                run.incomplete = True
                run.not_fetched = 1  # at least: the API gives no count of links
                if not self.allow_incomplete:
                    raise SourceError(self.endpoint, f"{how}: {run.stopped}; give --allow-incomplete to keep what it sent")
                break
            if page.next != offset:
                raise failure(NAME, self.endpoint, FormatError(f"$.next is {page.next}, but {offset} links were sent"))
        run.total, run.counted = run.returned, False
        run.requests = len(self.session.started) - first
        run.sent = sent_at(now, self.session, first)
        run.kept = len(run.found)
        return run


def _link(edge, field: str) -> str:
    """What names a link where pages overlap: its paper's id (or title), or that it is unresolved."""
    paper = getattr(edge, field, None)
    if paper is None or paper is UNSET:
        return "a link Semantic Scholar could not resolve"
    return f"paper {paper.paperId}" if paper.paperId else f"{str(paper.title)[:60]!r}"
