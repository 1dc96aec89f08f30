"""arXiv as a source of an update round: the arXiv API (``/api/query``), paged by masrl itself.

Format: an Atom 1.0 feed per page with OpenSearch ``totalResults``, ``startIndex`` and
``itemsPerPage``, read strictly by :mod:`masrl.bib.arxiv_feed` (arXiv API User's Manual,
https://info.arxiv.org/help/api/user-manual.html). The query is the family's ``search_query``
AND the protocol's ``scope`` AND ``submittedDate:[<since>0000 TO <until>2359]``, sorted by
submission date, oldest first, so that papers submitted while a search runs join the end of the
result set instead of shifting its pages.

arXiv's terms (https://info.arxiv.org/help/api/tou.html) are kept: one request every 3 seconds
on one connection, within a run and across runs (:class:`~.pacing.PacedSession`).

Every record of the result set is fetched: pages of ``page_size`` (``start``, ``max_results``)
until ``start`` reaches ``totalResults``. The paging has a stated bound, ``max_records`` per query
(default :data:`MAX_RECORDS`): a query with more results is refused at its first page, naming
the count, unless the run allows an incomplete search (then the records past the bound are
counted as not fetched). A feed claiming more than the 30,000 results the API serves for one
query is not an answer of arXiv and is refused. Each later page is asked from the last record already
received, which must still be there (:func:`~.base.check_overlap`): a result set that moved while it
was paged (one record withdrawn before a page's boundary and one added after it keep the total, and
slide a record past the boundary unseen) is refused. Each page is checked against what was asked: its
``startIndex``, no more entries than asked for or than are left, no record twice. A page with
fewer entries than are left (the API answers empty pages now and then: arxiv.py issues #43 and
#129) is asked for again, ``retries`` times, then the run fails naming it. Records returned
with a ``published`` day outside the window are counted and named, not kept.
"""

from __future__ import annotations

from ....bib.answers import FormatError
from ....bib.arxiv_feed import MAX_TOTAL, ApiError, read_feed
from ....bib.fetch import ATOM_TYPES
from .base import Found, QueryRun, SourceError, check_overlap, count_text, failure, fetch_page, read_page, sent_at
from .pacing import PacedSession, PaceFile

#: arXiv's terms of use: at most one request every three seconds.
DELAY_SECONDS = 3
PAGE_SIZE = 100
RETRIES = 3
#: The most records masrl pages through for one query (the API serves at most 30,000).
MAX_RECORDS = 10000
NAME = "the arXiv API"


def operand(text: str) -> str:
    """``text`` as one operand of an AND: in parentheses unless it is one term (a quoted phrase counts as
    one) or one group already, so that the scope and the window bind to the whole of a query written
    ``A OR B`` or ``(A OR B) OR (C)`` (the API's AND binds no tighter than its OR)."""
    text = text.strip()
    depth, quoted = 0, False
    for k, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and k < len(text) - 1:
                return f"({text})"  # the first group closes before the end: two operands or more
        elif ch.isspace() and depth == 0:
            return f"({text})"  # terms at the top level
    return text

class Incomplete(SourceError):
    """A query whose result set is larger than the paging bound, in a run that does not allow it."""


class ArxivSource:
    """Searches arXiv for one query family at a time, over one paced connection.

    Args:
        searcher: the protocol's :class:`~masrl.review.update.protocol.Searcher` (endpoint, scope).
        delay: seconds between two requests (default :data:`DELAY_SECONDS`, arXiv's 3).
        page_size: records per request (default :data:`PAGE_SIZE`).
        retries: tries after an unexpectedly short page or a rate-limit answer (default :data:`RETRIES`).
        max_records: the paging bound per query (default :data:`MAX_RECORDS`).
        allow_incomplete: page to the bound and count the rest as not fetched, instead of failing.
        clock, sleep, pace, limits: see :class:`~.pacing.PacedSession`.
        session: the transport to use (default: a new :class:`~.pacing.PacedSession`).
    """

    name = "arxiv"

    def __init__(self, searcher, delay: float | None = None, page_size: int | None = None, retries: int | None = None,
                 clock=None, sleep=None, session: PacedSession | None = None, on_request=None, on_page=None,
                 max_records: int | None = None, allow_incomplete: bool = False, pace: PaceFile | None = None, limits=None):
        delay = DELAY_SECONDS if delay is None else delay
        self.page_size = int(page_size or PAGE_SIZE)
        self.retries = RETRIES if retries is None else int(retries)
        self.max_records = int(max_records or MAX_RECORDS)
        self.allow_incomplete = allow_incomplete
        self.searcher = searcher
        self.endpoint = searcher.endpoint
        self.session = session or PacedSession(delay, clock, sleep, on_request, pace, limits, self.retries)
        self.on_page = on_page
        self.settings = {"page_size": self.page_size, "delay_seconds": int(delay) if float(delay).is_integer() else str(delay),
                         "retries": self.retries, "max_records": self.max_records, **self.session.limits.settings()}

    def query(self, family_query: str, since: str, until: str) -> str:
        """The ``search_query`` sent for a family: its query, the scope and the window."""
        window = f"submittedDate:[{since.replace('-', '')}0000 TO {until.replace('-', '')}2359]"
        parts = [operand(family_query)]
        if self.searcher.scope:
            parts.append(operand(self.searcher.scope))
        parts.append(window)
        return " AND ".join(parts)

    def _page(self, params: dict):
        body = fetch_page(self.session, self.endpoint, NAME, params, on_page=self.on_page, explain=_error_text,
                          media=ATOM_TYPES)
        try:
            return read_page(read_feed, body, NAME, self.endpoint)
        except ApiError as err:
            raise SourceError(self.endpoint, f"{NAME} refused the query: {err}") from None

    def search(self, family, since: str, until: str, now) -> QueryRun:
        """Every record of ``family``'s arXiv query submitted in ``[since, until]`` (dates
        ``YYYY-MM-DD``); ``now()`` gives the UTC time for the run's record.

        Raises:
            SourceError: one line naming the host and what happened (unreachable, an HTTP error,
                an answer that is not the format, pages still short after every retry, more
                results than the bound).
        """
        run = QueryRun(family.name)
        text = self.query(family.queries[self.name], since, until)
        fixed = {"search_query": text, "sortBy": "submittedDate", "sortOrder": "ascending"}
        run.query = "&".join(f"{k}={v}" for k, v in fixed.items())
        run.sent = now()
        first = len(self.session.started)
        total: int | None = None
        start = 0
        seen: dict[str, int] = {}
        last = ""  # the last record received (each later page starts with it)
        short = 0
        while total is None or start < total:
            if total is not None and start >= self.max_records:
                run.not_fetched = total - start
                run.stopped = f"the paging bound of {self.max_records:,} records per query (--max-records)"
                run.incomplete = True
                break
            size = min(self.page_size, self.max_records - start, *(() if total is None else (total - start,)))
            back = 1 if start else 0  # each later page from the last record received: it must still be there
            feed = self._page({**fixed, "start": str(start - back), "max_results": str(size + back)})
            run.pages += 1
            if feed.total > MAX_TOTAL:
                raise SourceError(self.endpoint, f"{NAME} says family {family.name!r} has {count_text(feed.total)} results, more "
                                                 f"than the {MAX_TOTAL:,} the API serves for one query: not an answer "
                                                 "of arXiv (is the endpoint right?)")
            if feed.start != start - back:
                raise failure(NAME, self.endpoint, FormatError(f"opensearch:startIndex is {feed.start} for a page asked "
                                                               f"from {start - back}"))
            if total is None and feed.total > self.max_records and not self.allow_incomplete:
                raise Incomplete(self.endpoint, f"family {family.name!r} has {feed.total:,} results in the window, more "
                                                f"than the paging bound of {self.max_records:,} per query: nothing was "
                                                "fetched past the first page; narrow the window (--since/--until), raise "
                                                "--max-records (arXiv serves at most 30,000), or give --allow-incomplete")
            total = feed.total if total is None else max(total, feed.total)
            left = total - start
            if back and feed.entries:
                check_overlap(NAME, self.endpoint, start - 1, f"arxiv:{feed.entries[0].arxiv}", f"arxiv:{last}")
            entries = feed.entries[back:] if feed.entries else []
            if len(entries) > min(size, left):
                raise failure(NAME, self.endpoint, FormatError(
                    f"the page from {start - back} has {len(feed.entries)} entries, but {size + back} were asked for"
                    if left >= size else
                    f"the page from {start - back} has {len(feed.entries)} entries, more than the {left + back} left of "
                    f"the {total} results the feed says it has"))
            if len(entries) < min(size, left):
                short += 1
                if short > self.retries:
                    raise SourceError(self.endpoint, f"{NAME} answered {len(entries)} of the {min(size, left)} "
                                                     f"records of the page from {start} for family {family.name!r} after "
                                                     f"{self.retries} retries; run the search again later")
                continue
            for entry in entries:
                if entry.arxiv in seen:
                    raise failure(NAME, self.endpoint, FormatError(
                        f"arxiv:{entry.arxiv} is sent twice in the page from {start}" if seen[entry.arxiv] == start else
                        f"arxiv:{entry.arxiv} is sent twice in one result set (pages from {seen[entry.arxiv]} and "
                        f"{start}): the result set moved while it was paged; run the search again"))
                seen[entry.arxiv] = start
                run.take(_found(entry), since, until)
                last = entry.arxiv
            start += len(entries)
        run.requests = len(self.session.started) - first
        run.sent = sent_at(now, self.session, first)
        run.total = total or 0
        run.kept = len(run.found)
        return run


def _error_text(body: bytes) -> str:
    """The message of the API's error feed in ``body`` ("" when it is not one)."""
    try:
        read_feed(body)
    except ApiError as err:
        return str(err)
    except FormatError:
        pass
    return ""


def _found(entry) -> Found:
    """One feed entry as a :class:`Found`."""
    ids = {"arxiv": entry.arxiv}
    if entry.doi:
        ids["doi"] = entry.doi
    return Found(f"arxiv:{entry.arxiv}", ids, entry.title, entry.authors, int(entry.published[:4]),
                 entry.journal_ref or "arXiv", entry.summary, entry.published, entry.primary_category)
