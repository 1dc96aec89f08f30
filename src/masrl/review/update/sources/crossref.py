"""Crossref as a source of an update round: conference and journal papers with a DOI.

Format: the Crossref REST API ``GET /works`` (https://api.crossref.org/swagger-ui/index.html;
https://www.crossref.org/documentation/retrieve-metadata/rest-api/), JSON
``{"status": "ok", "message-type": "work-list", "message": {"total-results", "items",
"items-per-page", "next-cursor"}}``, read strictly by :mod:`masrl.bib.crossref_json`; deep
paging with ``cursor=*`` and then each answer's ``next-cursor``. Parameters: the family's query
(``query``), the window and the kinds of work (``filter=from-pub-date:..,until-pub-date:..,
type:proceedings-article,type:journal-article``), ``rows``, ``select`` (the fields read here),
and ``mailto`` when given (Crossref's "polite pool"). A work of another type than the filter asks
for is not this query's answer: the whole answer is refused, naming it.

Crossref's ``query`` ranks every work that has any of the words (relevance, not a boolean
match), so a result set runs to the whole window. masrl's reading: a record is kept when its
title and abstract match the family (:meth:`~masrl.review.update.protocol.Family.matches`, the
protocol's ``all_of`` groups); paging stops at the first page on which no work matches the
family, whether kept or not (the pages after it rank lower still: this stated rule leaves the
rest of the result set, counted as not fetched and named in the run's notes), at the end of the
result set, or, losing records, at the paging bound of ``max_pages`` pages or at an empty page
before ``total-results`` is reached: then the run fails unless it allows an incomplete search. A
work without a DOI or a title is counted as unusable, one without a date (or whose year or month
the window does not wholly hold) outside the window, each named. Each work's
``relation.has-preprint`` arXiv id is kept, so that a
venue paper whose preprint is on arXiv meets its arXiv record as a duplicate.
"""

from __future__ import annotations

from ....bib.answers import FormatError
from ....bib.crossref_json import paper, read_work_list
from .base import Found, QueryRun, SourceError, Unusable, count_text, failure, fetch_page, read_page, sent_at
from .pacing import PacedSession, PaceFile

#: Seconds between two requests: Crossref's public pool allows a few list requests a second
#: and one at a time; one a second stays well inside it.
DELAY_SECONDS = 1
ROWS = 100
MAX_PAGES = 20
TYPES = ("proceedings-article", "journal-article")
SELECT = "DOI,title,subtitle,author,published,issued,container-title,event,publisher,abstract,relation,type"
_PAGING = {"cursor", "rows"}
NAME = "the Crossref API"
#: The most results a query can claim: more than every work Crossref registers is not an answer of it.
MAX_TOTAL = 1_000_000_000 - 1


class CrossrefSource:
    """Searches Crossref for one query family at a time, over one paced connection.

    Args:
        searcher: the protocol's searcher (endpoint).
        delay, rows, max_pages: request spacing (seconds), records per page, the paging bound.
        mailto: an e-mail address for Crossref's polite pool, or None (public pool).
        clock, sleep, session, on_request, on_page, pace, limits, allow_incomplete: as for
            :class:`~.arxiv.ArxivSource`.
    """

    name = "crossref"

    def __init__(self, searcher, delay: float | None = None, rows: int | None = None, max_pages: int | None = None,
                 mailto: str | None = None, clock=None, sleep=None, session: PacedSession | None = None,
                 on_request=None, on_page=None, allow_incomplete: bool = False, pace: PaceFile | None = None, limits=None,
                 max_records: int | None = None):
        delay = DELAY_SECONDS if delay is None else delay
        rows = rows or ROWS
        self.searcher = searcher
        self.endpoint = searcher.endpoint
        self.session = session or PacedSession(delay, clock, sleep, on_request, pace, limits)
        self.rows, self.mailto = int(rows), mailto
        self.max_pages = int(max_pages or (-(-max_records // self.rows) if max_records else MAX_PAGES))
        self.max_records = int(max_records or self.max_pages * self.rows)  # the last page asks for what is left
        self.records_given = bool(max_records)
        self.allow_incomplete = allow_incomplete
        self.on_page = on_page
        self.settings = {"rows": self.rows, "max_pages": self.max_pages,
                         "delay_seconds": int(delay) if float(delay).is_integer() else str(delay),
                         "polite_pool": bool(mailto), **self.session.limits.settings()}

    def _params(self, family, since: str, until: str, cursor: str, rows: int | None = None) -> dict:
        filters = [f"from-pub-date:{since}", f"until-pub-date:{until}", *(f"type:{t}" for t in TYPES)]
        params = {"query": family.queries[self.name], "filter": ",".join(filters), "select": SELECT, "sort": "score",
                  "order": "desc", "rows": str(rows or self.rows), "cursor": cursor}
        if self.mailto:
            params["mailto"] = self.mailto
        return params

    def _page(self, params: dict):
        body = fetch_page(self.session, self.endpoint, NAME, params, on_page=self.on_page)
        return read_page(read_work_list, body, NAME, self.endpoint).message

    def search(self, family, since: str, until: str, now) -> QueryRun:
        """The works of ``family``'s Crossref query published in ``[since, until]`` that match the
        family (see the module docstring); ``now()`` gives the UTC time for the run's record.

        Raises:
            SourceError: one line naming the host (unreachable, an HTTP error, not a work list).
        """
        run = QueryRun(family.name)
        run.sent = now()
        first = len(self.session.started)
        cursor = "*"
        params = self._params(family, since, until, cursor)
        run.query = "&".join(f"{k}={v}" for k, v in params.items() if k not in _PAGING and k != "mailto")
        seen_cursors = set()
        seen_dois: set[str] = set()
        while True:
            if run.pages >= self.max_pages or run.returned >= self.max_records:
                run.not_fetched = max(0, run.total - run.returned)
                run.stopped = (f"the paging bound of {self.max_records:,} records per query (--max-records)"
                               if run.returned >= self.max_records and self.records_given else
                               f"the paging bound of {self.max_pages} pages of {self.rows} per query")
                run.incomplete = True
                break
            asked = min(self.rows, self.max_records - run.returned)
            message = self._page(self._params(family, since, until, cursor, asked))
            run.pages += 1
            if message.total_results > MAX_TOTAL:
                raise SourceError(self.endpoint, f"{NAME} says family {family.name!r} has {count_text(message.total_results)} "
                                                 "results, more than Crossref registers: not an answer of Crossref")
            run.total = max(run.total, message.total_results)
            if len(message.items) > asked:
                raise failure(NAME, self.endpoint, FormatError(f"a page of {len(message.items)} items, but {asked} "
                                                               "were asked for"))
            matching = 0
            for i, item in enumerate(message.items):
                where = f"$.message.items[{i}] (page {run.pages})"
                work = read_page(paper, item, NAME, self.endpoint, where)
                if work.type not in TYPES:  # the filter asked for these types only: another is not this query's answer
                    raise failure(NAME, self.endpoint, FormatError(
                        f"{where}.type: {work.type!r}, a type the query's filter left out (it asks for {', '.join(TYPES)})"))
                label = _label(work)
                if label and label.lower() in seen_dois:
                    raise failure(NAME, self.endpoint, FormatError(f"{where}: {label} is sent twice in one result set"))
                seen_dois.add(label.lower())
                matching += family.matches(f"{work.title} {work.abstract}")  # for the relevance rule, whatever else it lacks
                if label and work.title and work.published is None:
                    run.undated(label)
                    continue
                if label and work.title and work.precision < 3 and not _within(work, since, until):
                    year, month, _ = work.published
                    run.imprecise(label, f"{year:04d}-{month:02d}" if work.precision == 2 else f"{year:04d}",
                                  "day" if work.precision == 2 else "month")
                    continue
                run.take(_found(work, f"item {i} of page {run.pages}"), since, until, family)
            if run.returned > run.total:
                raise failure(NAME, self.endpoint, FormatError(
                    f"{run.returned} items returned, but total-results says {run.total}"))
            cursor = message.next_cursor
            if run.returned >= run.total:
                break
            if not message.items:
                run.not_fetched = run.total - run.returned
                run.stopped = f"page {run.pages} came back empty with {run.not_fetched:,} results left"
                run.incomplete = True
                break
            if not cursor or cursor in seen_cursors:
                raise failure(NAME, self.endpoint, FormatError(
                    f"page {run.pages} has no new next-cursor, with {run.total - run.returned} results left"))
            if not matching:
                run.not_fetched = run.total - run.returned
                run.stopped = (f"page {run.pages} held no record matching the family; the results are ranked by "
                               "relevance, so the rest rank lower still")
                break
            seen_cursors.add(cursor)
        run.requests = len(self.session.started) - first
        run.sent = sent_at(now, self.session, first)
        run.kept = len(run.found)
        return run


def _within(work, since: str, until: str) -> bool:
    """Whether the whole period of a date given as a year or a month lies in ``[since, until]``."""
    import calendar

    year, month, _ = work.published
    last = (12, 31) if work.precision == 1 else (month, calendar.monthrange(year, month)[1])
    return since <= f"{year:04d}-{month:02d}-01" and f"{year:04d}-{last[0]:02d}-{last[1]:02d}" <= until


def _label(work) -> str:
    """How a work is named: ``doi:<its DOI>``; a work whose DOI is arXiv's own (10.48550/arXiv.<id>)
    by that arXiv id; "" without either."""
    return f"doi:{work.doi}" if work.doi else f"arxiv:{work.arxiv}" if work.arxiv else ""


def _found(work, place: str) -> Found | Unusable:
    """One dated Crossref work as a :class:`Found` (:class:`Unusable` without a DOI or a title,
    named by its DOI or by ``place``, its item in the answer)."""
    label = _label(work)
    if not label or not work.title:
        return Unusable(label or place, "title" if label else "DOI")
    year, month, day = work.published
    # the ids and venue `masrl add` gives the same work (masrl.bib.lookup)
    return Found(label, work.identifiers, work.title, work.authors, year, work.shown_venue, work.abstract,
                 f"{year:04d}-{month:02d}-{day:02d}")
