"""Crossref as a source of an update round: conference and journal papers with a DOI.

Format: the Crossref REST API ``GET /works`` (https://api.crossref.org/swagger-ui/index.html;
https://www.crossref.org/documentation/retrieve-metadata/rest-api/), JSON
``{"status": "ok", "message-type": "work-list", "message": {"total-results", "items",
"items-per-page", "next-cursor"}}``; deep paging with ``cursor=*`` and then each answer's
``next-cursor`` until a page has no items. Parameters: the family's query (``query``), the
window and the kinds of work (``filter=from-pub-date:..,until-pub-date:..,
type:proceedings-article,type:journal-article``), ``rows``, ``select`` (the fields read here),
and ``mailto`` when given (Crossref's "polite pool").

Crossref's ``query`` ranks every work that has any of the words (relevance, not a boolean
match), so a result set runs to the whole window. masrl's reading: a record is kept when its
title and abstract match the family (:meth:`~masrl.review.update.protocol.Family.matches`, the
protocol's ``all_of`` groups), and paging stops at the first page that keeps nothing (the pages
after it rank lower still) or after ``max_pages``. Each work's ``relation.has-preprint`` arXiv
id is kept, so that a venue paper whose preprint is on arXiv meets its arXiv record as a duplicate.
"""

from __future__ import annotations

import re

from ....bib.bibtex import organisation
from ....bib.identifiers import IdentifierError, parse
from .base import Found, QueryRun, SourceError, one_line
from .pacing import PacedSession

#: Seconds between two requests: Crossref's public pool allows a few list requests a second
#: and one at a time; one a second stays well inside it.
DELAY_SECONDS = 1
ROWS = 100
MAX_PAGES = 20
TYPES = ("proceedings-article", "journal-article")
SELECT = "DOI,title,author,published,issued,container-title,event,abstract,relation,type"
_PAGING = {"cursor", "rows"}


class CrossrefSource:
    """Searches Crossref for one query family at a time, over one paced connection.

    Args:
        searcher: the protocol's searcher (endpoint).
        delay, rows, max_pages: request spacing (seconds), records per page, most pages per query.
        mailto: an e-mail address for Crossref's polite pool, or None (public pool).
        clock, sleep, session, on_request, on_page: as for :class:`~.arxiv.ArxivSource`.
    """

    name = "crossref"

    def __init__(self, searcher, delay: float | None = None, rows: int | None = None, max_pages: int | None = None,
                 mailto: str | None = None, clock=None, sleep=None, session: PacedSession | None = None,
                 on_request=None, on_page=None):
        delay = DELAY_SECONDS if delay is None else delay
        rows, max_pages = rows or ROWS, max_pages or MAX_PAGES
        self.searcher = searcher
        self.endpoint = searcher.endpoint
        self.session = session or PacedSession(delay, clock, sleep, on_request)
        self.rows, self.max_pages, self.mailto = int(rows), int(max_pages), mailto
        self.on_page = on_page
        self.settings = {"rows": self.rows, "max_pages": self.max_pages,
                         "delay_seconds": int(delay) if float(delay).is_integer() else str(delay),
                         "polite_pool": bool(mailto)}

    def _params(self, family, since: str, until: str, cursor: str) -> dict:
        filters = [f"from-pub-date:{since}", f"until-pub-date:{until}", *(f"type:{t}" for t in TYPES)]
        params = {"query": family.queries[self.name], "filter": ",".join(filters), "select": SELECT, "sort": "score",
                  "order": "desc", "rows": str(self.rows), "cursor": cursor}
        if self.mailto:
            params["mailto"] = self.mailto
        return params

    def _page(self, params: dict) -> dict:
        import requests

        try:
            response = self.session.get(self.endpoint, params=params)
        except requests.RequestException as err:
            raise SourceError(self.endpoint, f"cannot reach the Crossref API ({type(err).__name__}); no network?") from None
        if response.status_code != 200:
            raise SourceError(self.endpoint, f"the Crossref API answered HTTP {response.status_code}")
        if self.on_page is not None:
            self.on_page()
        try:
            data = response.json()
        except ValueError:
            raise SourceError(self.endpoint, "the Crossref API answered something that is not JSON") from None
        message = data.get("message") if isinstance(data, dict) else None
        if not isinstance(message, dict) or data.get("message-type") != "work-list":
            raise SourceError(self.endpoint, "the Crossref API answered something other than a work list")
        return message

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
        while run.pages < self.max_pages:
            message = self._page(self._params(family, since, until, cursor))
            run.pages += 1
            run.total = int(message.get("total-results") or 0)
            items = [i for i in message.get("items") or [] if isinstance(i, dict)]
            run.returned += len(items)
            kept = 0
            for item in items:
                found = _found(item)
                if found is not None and since <= found.published <= until and family.matches(f"{found.title} {found.abstract}"):
                    run.found.append(found)
                    kept += 1
            cursor = message.get("next-cursor")
            if not items or not kept or not cursor or cursor in seen_cursors or run.returned >= run.total:
                break
            seen_cursors.add(cursor)
        run.requests = len(self.session.started) - first
        run.kept = len(run.found)
        return run


def _date(item: dict) -> tuple[int, int, int] | None:
    for name in ("published", "published-print", "published-online", "issued"):
        parts = ((item.get(name) or {}).get("date-parts") or [[None]])[0]
        if parts and isinstance(parts[0], int):
            year, month, day = (list(parts) + [1, 1])[:3]
            return int(year), int(month or 1), int(day or 1)
    return None


def _authors(item: dict) -> tuple[str, ...]:
    out = []
    for a in item.get("author") or []:
        if not isinstance(a, dict):
            continue
        if a.get("family"):
            out.append(f"{one_line(a['family'])}, {one_line(a.get('given'))}".strip().rstrip(","))
        elif a.get("name"):
            out.append(organisation(one_line(a["name"])))
    return tuple(out)


def _preprint(item: dict) -> str | None:
    """The arXiv id of the work's preprint (``relation.has-preprint``), if Crossref names one."""
    for rel in ((item.get("relation") or {}).get("has-preprint") or []):
        if isinstance(rel, dict) and rel.get("id"):
            try:
                ident = parse(str(rel["id"]))
            except IdentifierError:
                continue
            if ident.scheme == "arxiv":
                return ident.key.split(":", 1)[1]
    return None


def _found(item: dict) -> Found | None:
    """One Crossref work as a :class:`Found` (None without a DOI, a title or a date)."""
    title = one_line(re.sub(r"<[^>]+>", " ", " ".join(item.get("title") or [])))
    date = _date(item)
    if not item.get("DOI") or not title or date is None:
        return None
    try:
        doi = parse(str(item["DOI"]), "doi")
    except IdentifierError:
        return None
    ids = {"doi": doi.value}
    if arxiv_id := _preprint(item):
        ids = {"arxiv": arxiv_id, **ids}
    year, month, day = date
    venue = one_line(" ".join(item.get("container-title") or [])) or one_line((item.get("event") or {}).get("name"))
    abstract = one_line(re.sub(r"<[^>]+>", " ", item.get("abstract") or ""))
    return Found(f"doi:{doi.value}", ids, title, _authors(item), year, venue or "unpublished", abstract,
                 f"{year:04d}-{month:02d}-{day:02d}")

