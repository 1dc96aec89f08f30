"""arXiv as a source of an update round: the arXiv API through the ``arxiv`` package's ``Client``.

Format: an Atom 1.0 feed per page with OpenSearch ``totalResults``, ``startIndex`` and
``itemsPerPage`` (https://info.arxiv.org/help/api/user-manual.html, "Details of Atom Results
Returned"); the query is the family's ``search_query`` AND the protocol's ``scope`` AND
``submittedDate:[<since>0000 TO <until>2359]``, sorted by submission date, oldest first, so
that papers submitted while a search runs join the end of the result set instead of shifting
its pages.

arXiv's terms (https://info.arxiv.org/help/api/tou.html) are kept:

* **one request every 3 seconds, on one connection**: the client's transport is a
  :class:`~.pacing.PacedSession` with ``delay`` 3 s that spaces *every* request of the run
  (pages, retries, and the first page of the next query: one session serves all queries). The
  ``Client`` gets ``delay_seconds=0`` because its own timer would be a second one, on the wall
  clock, that the tests could not replace without sleeping;
* **paging to the end**: ``Client.results`` reads page after page (``page_size`` records
  each) until it has the feed's ``totalResults``;
* **empty pages**: the API is known to answer a page with no entries now and then (arxiv.py
  issues #43 and #129); the client retries such a page ``num_retries`` times
  (``UnexpectedEmptyPageError``). An empty *first* page ends the package's generator silently,
  so an empty first page whose ``totalResults`` is not 0 is retried here, as often.

Records outside the round's window (a ``published`` date before ``since`` or after ``until``)
are counted as returned but not kept.
"""

from __future__ import annotations

import datetime
import re
from urllib.parse import parse_qsl, urlsplit

from ....bib.bibtex import record_author
from ....bib.identifiers import IdentifierError, parse
from .base import Found, QueryRun, SourceError, one_line
from .pacing import PacedSession

#: arXiv's terms of use: at most one request every three seconds.
DELAY_SECONDS = 3
PAGE_SIZE = 100
RETRIES = 3
_PAGING = {"start", "max_results"}
_TOTAL = re.compile(rb"<(?:\w+:)?totalResults[^>]*>\s*([0-9]+)\s*<")


class ArxivSource:
    """Searches arXiv for one query family at a time, over one paced connection.

    Args:
        searcher: the protocol's :class:`~masrl.review.update.protocol.Searcher` (endpoint, scope).
        delay: seconds between two requests (default :data:`DELAY_SECONDS`, arXiv's 3).
        page_size: records per request (default :data:`PAGE_SIZE`).
        retries: tries after a failed or unexpectedly empty page (default :data:`RETRIES`).
        clock, sleep: injected time (see :class:`~.pacing.PacedSession`).
        session: the transport to use (default: a new :class:`~.pacing.PacedSession`).
    """

    name = "arxiv"

    def __init__(self, searcher, delay: float | None = None, page_size: int | None = None, retries: int | None = None,
                 clock=None, sleep=None, session: PacedSession | None = None, on_request=None, on_page=None):
        import arxiv

        delay = DELAY_SECONDS if delay is None else delay
        page_size = page_size or PAGE_SIZE
        retries = RETRIES if retries is None else retries
        self.searcher = searcher
        self.endpoint = searcher.endpoint
        self.session = session or PacedSession(delay, clock, sleep, on_request)
        self.settings = {"page_size": int(page_size), "delay_seconds": int(delay) if float(delay).is_integer() else str(delay),
                         "retries": int(retries)}
        self.retries = int(retries)
        self.on_page = on_page
        self.client = arxiv.Client(page_size=int(page_size), delay_seconds=0, num_retries=int(retries))
        self.client._session = self.session  # the package's transport; one connection for every query
        self.client.query_url_format = self.endpoint + "?{}"
        self._responses: list = []
        self.session.hooks["response"].append(self._seen)

    def _seen(self, response, *args, **kwargs):
        self._responses.append(response)
        if self.on_page is not None:
            self.on_page()
        return response

    def query(self, family_query: str, since: str, until: str) -> str:
        """The ``search_query`` sent for a family: its query, the scope and the window."""
        window = f"submittedDate:[{since.replace('-', '')}0000 TO {until.replace('-', '')}2359]"
        parts = [f"({family_query})" if " OR " in family_query and not family_query.startswith("(") else family_query]
        if self.searcher.scope:
            parts.append(self.searcher.scope)
        parts.append(window)
        return " AND ".join(parts)

    def search(self, family, since: str, until: str, now) -> QueryRun:
        """Every record of ``family``'s arXiv query submitted in ``[since, until]`` (dates
        ``YYYY-MM-DD``); ``now()`` gives the UTC time for the run's record.

        Raises:
            SourceError: one line naming the host: unreachable (no network, refused, timeout),
                an HTTP error, or empty pages after every retry.
        """
        import arxiv
        import requests

        run = QueryRun(family.name)
        text = self.query(family.queries[self.name], since, until)
        search = arxiv.Search(query=text, sort_by=arxiv.SortCriterion.SubmittedDate, sort_order=arxiv.SortOrder.Ascending)
        first = len(self.session.started)
        run.sent = now()
        try:
            for attempt in range(self.retries + 1):
                self._responses.clear()
                results = list(self.client.results(search))
                if results or self._first_total() == 0:
                    break
            else:
                raise SourceError(self.endpoint, f"the arXiv API answered empty pages for family {family.name!r} "
                                                 f"after {self.retries} retries; run the search again later")
        except requests.RequestException as err:
            raise SourceError(self.endpoint, f"cannot reach the arXiv API ({type(err).__name__}); no network?") from None
        except arxiv.HTTPError as err:
            raise SourceError(self.endpoint, f"the arXiv API answered HTTP {err.status}") from None
        except arxiv.UnexpectedEmptyPageError:
            raise SourceError(self.endpoint, f"the arXiv API answered empty pages for family {family.name!r} after "
                                             f"{self.retries} retries; run the search again later") from None
        run.requests = len(self.session.started) - first
        run.pages = sum(1 for r in self._responses if r.status_code == 200)
        run.total = self._first_total()
        run.query = _as_sent(self._responses[0].url if self._responses else "")
        run.returned = len(results)
        for result in results:
            found = _found(result)
            if found is not None and since <= found.published <= until:
                run.found.append(found)
        run.kept = len(run.found)
        return run

    def _first_total(self) -> int:
        first = next((r for r in self._responses if r.status_code == 200), None)
        match = _TOTAL.search(first.content) if first is not None else None
        return int(match.group(1)) if match else 0


def _as_sent(url: str) -> str:
    """The request's parameters without the paging ones, decoded (``search_query=...&sortBy=...``)."""
    return "&".join(f"{k}={v}" for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=False) if k not in _PAGING)


def _found(result) -> Found | None:
    """One ``arxiv.Result`` as a :class:`Found` (None when its id is not an arXiv id)."""
    try:
        ident = parse(result.get_short_id(), "arxiv")
    except IdentifierError:
        return None
    canonical = ident.key.split(":", 1)[1]
    ids = {"arxiv": canonical}
    if result.doi:
        try:
            ids["doi"] = parse(result.doi, "doi").value
        except IdentifierError:
            pass
    published = result.published.astimezone(datetime.timezone.utc).date() if result.published else None
    if published is None:
        return None
    return Found(ident.key, ids, one_line(result.title), tuple(record_author(one_line(a.name)) for a in result.authors),
                 published.year, one_line(result.journal_ref) or "arXiv", one_line(result.summary), published.isoformat())

