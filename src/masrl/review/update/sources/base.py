"""What every source of an update round returns: the records found, the run of one query, and its failure."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ....core.text import without_unsafe


@dataclass(frozen=True)
class Found:
    """One record a source returned, in the form of a queue row.

    Attributes:
        identifier: ``scheme:value`` (``arxiv:2605.08686``, ``doi:10.18653/v1/...``), the canonical id.
        identifiers: scheme -> stored value, every id the source gave (for duplicates and stubs).
        title, venue, abstract: one line each (whitespace collapsed).
        authors: ``Last, First`` each.
        year: publication year; published: ``YYYY-MM-DD`` (first version or publication).
        arxiv_category: the primary arXiv category an arXiv record names (``cs.CL``), else empty.
    """

    identifier: str
    identifiers: dict
    title: str
    authors: tuple[str, ...]
    year: int
    venue: str
    abstract: str
    published: str
    arxiv_category: str = ""


@dataclass(frozen=True)
class Unusable:
    """A record a source returned without what a candidate needs: ``label`` names it as well as
    the answer allows (an id, or its place in the answer); ``missing`` says what it lacks, or ``why`` which of its
    values no record may hold (an id that cannot exist, a day no calendar has)."""

    label: str
    missing: str = ""
    why: str = ""


@dataclass
class QueryRun:
    """One query sent to one source, paged to its end (or to the bound, which it then says).

    Attributes:
        family: how the records were found: the query family's name, or for citation searching
            ``cites KEY`` (the papers citing retained record KEY) / ``cited by KEY`` (its references).
        query: the query exactly as sent (the request's parameters without the paging ones).
        sent: when its first request went out (``YYYY-MM-DDTHH:MM:SSZ``).
        requests: HTTP requests sent (retries included); pages: result pages read.
        total: how many records the source said the query has; returned: records it returned;
        kept: those in the round's window (and matching the family where the source ranks by
        relevance), in ``found``.
        outside_window: ``identifier (published)`` of each record returned but published outside
            the window (counted, named, not kept).
        not_matching: records returned in the window that do not match the family's ``all_of``.
        unusable: ``label (no title)`` (or id, paper, author named) of each record returned without what a
            candidate needs (counted, named, not kept).
        not_fetched: records the source holds for the query that were not fetched (paging stopped);
        stopped: why paging stopped before ``total`` ("" when every record was fetched);
        incomplete: whether ``not_fetched`` are records lost to a bound (the run then fails unless
            allowed), rather than left by the source's stated stopping rule.
    """

    family: str
    query: str = ""
    sent: str = ""
    requests: int = 0
    pages: int = 0
    total: int = 0
    returned: int = 0
    kept: int = 0
    found: list[Found] = field(default_factory=list)
    outside_window: list[str] = field(default_factory=list)
    not_matching: int = 0
    unusable: list[str] = field(default_factory=list)
    not_fetched: int = 0
    stopped: str = ""
    incomplete: bool = False
    #: False where the source gives no count of the query's records (Semantic Scholar's links): ``total`` is then
    #: what was returned, never a count the source announced.
    counted: bool = True

    def take(self, found: "Found | Unusable", since: str, until: str, family=None) -> bool:
        """Count one record returned and sort it: kept (in ``found``) when it is published in
        ``[since, until]`` and, with ``family``, matches its ``all_of``; else counted outside the
        window (and named), as unusable (and named) or as not matching. Returns whether it was kept."""
        self.returned += 1
        if isinstance(found, Unusable):
            self.unusable.append(f"{found.label} ({found.why or 'no ' + found.missing})")
        elif not any(a != "others" for a in found.authors):  # a record `update apply` could neither include nor exclude
            self.unusable.append(f"{found.identifier} (no author named)")
        elif not in_window(found.published, since, until):
            self.outside_window.append(f"{found.identifier} ({found.published})")
        elif family is None or family.matches(f"{found.title} {found.abstract}"):
            self.found.append(found)
            return True
        else:
            self.not_matching += 1
        return False

    def undated(self, label: str, year: int | None = None) -> None:
        """Count one record returned without a publication date: outside the window (no day to
        place it in), named ``LABEL (no date[, year N])``."""
        self._outside(f"{label} (no date{f', year {year}' if year else ''})")

    def imprecise(self, label: str, given: str, missing: str) -> None:
        """Count one record whose date the source gives only as ``given`` (a year, or a month),
        a period not wholly inside the window: outside it (it may or may not hold the record),
        named ``LABEL (GIVEN, no MISSING)``."""
        self._outside(f"{label} ({given}, no {missing})")

    def _outside(self, named: str) -> None:
        self.returned += 1
        self.outside_window.append(named)

    def as_dict(self) -> dict:
        """The run as ``round.yaml`` records it."""
        out = {"family": self.family, "query": self.query, "sent": self.sent, "requests": self.requests, "pages": self.pages,
               "total": self.total, "returned": self.returned, "kept": self.kept,
               "outside_window": len(self.outside_window), "not_matching": self.not_matching,
               "not_fetched": self.not_fetched}
        if self.outside_window:
            out["outside_window_records"] = list(self.outside_window)
        if self.unusable:
            out["unusable"] = len(self.unusable)
            out["unusable_records"] = list(self.unusable)
        if self.stopped:
            out["stopped"] = self.stopped
        return out


class SourceError(Exception):
    """A source could not be searched. ``str()`` is one line naming the host and what happened."""

    def __init__(self, endpoint: str, what: str):
        self.host = urlsplit(endpoint).netloc or endpoint
        super().__init__(f"{self.host}: {what}")


def one_line(text: object) -> str:
    """Whitespace (line breaks included) collapsed to single spaces, and without the characters
    masrl's text policy refuses (:mod:`masrl.core.text`: control, bidirectional and zero-width
    characters, which a source's metadata sometimes carries from a web page): what a search
    finds goes into queue.csv as text a screener sees as it is, and a record can be made of it."""
    return without_unsafe(str(text or ""))


def sent_at(now, session, first: int) -> str:
    """When request ``first`` of ``session`` went out, as ``now()`` gives UTC (``YYYY-MM-DDTHH:MM:SSZ``):
    ``now()`` less the time since, by the session's clock (the source's pacing may hold a request
    seconds after its query began); ``now()`` when that request was never sent."""
    import datetime

    stamp = now()
    if len(session.started) <= first:
        return stamp
    ago = max(0.0, session.clock() - session.started[first])
    moment = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ") - datetime.timedelta(seconds=ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def pages_bound(max_records: int, page: int) -> int:
    """The most pages one query reads: the paging bound over a page's size, and two more (a last
    short page, a retry). A source whose pages are far shorter than asked reaches it long before
    its records run out: the run then stops as incomplete rather than paging for hours."""
    return -(-max_records // max(page, 1)) + 2


def count_text(n: int) -> str:
    """A count a source announced, for a message: ``12,345``, or ``about 10^400`` past 15 digits."""
    return f"{n:,}" if abs(n) < 10**15 else f"about 10^{len(str(abs(n))) - 1}"


def in_window(published: str, since: str, until: str) -> bool:
    """Whether a ``YYYY-MM-DD`` day lies in ``[since, until]``."""
    return since <= published <= until


def check_overlap(source: str, endpoint: str, position: int, now: str | None, before: str) -> None:
    """Offset paging asks each page from one record before the next one it needs (``position``): that record
    must be the last one received (``before``). When it is not (``now``: what is there instead, None for
    nothing), the result set moved while it was paged, so that a record could have slid past a page's
    boundary unseen (one withdrawn before it, one added after: the total stays the same). Raises
    :class:`SourceError` then."""
    if now != before:
        raise SourceError(endpoint, f"{source}: the result set moved while it was paged: the record at position "
                                    f"{position} was {before}, and is now {now or 'missing'}; a record may have slid "
                                    "between two pages unseen, so nothing was kept: run the search again")


def failure(source: str, endpoint: str, err: Exception) -> SourceError:
    """A :class:`SourceError` for a failed request: a :class:`~masrl.bib.fetch.FetchError`, a
    :class:`~.pacing.RateLimited` or a format error of ``source``'s answer (named as ``source``)."""
    from ....bib.answers import FormatError
    from ....bib.fetch import FetchError
    from .pacing import RateLimited

    if isinstance(err, FetchError):
        if err.kind == "unreachable":
            return SourceError(endpoint, f"{source} {err.what}; no network?")
        return SourceError(endpoint, f"{source} {err.what}")
    if isinstance(err, RateLimited):
        return SourceError(endpoint, f"{source} {str(err).split(': ', 1)[1]}; run the search again later")
    if isinstance(err, FormatError):
        return SourceError(endpoint, f"{source} answered something that is not its documented format: {err}")
    return SourceError(endpoint, f"{source}: {err}")


def fetch_page(session, url: str, name: str, params: dict | None = None, headers: dict | None = None, on_page=None,
               explain=None, missing_ok: bool = False, media: tuple[str, ...] | None = None,
               missing=None) -> bytes | None:
    """The body of a 200 answer to ``GET url?params`` through the paced ``session``
    (:meth:`~.pacing.PacedSession.answer`); ``name`` names the source in errors; ``explain(body)``
    reads the source's error message from another answer ("" if none); ``on_page()`` is told of
    each page; None for a 404 when ``missing_ok`` (with ``explain``, only a 404 in the source's
    own error format: another server's "not found" page is an error; with ``missing(body)``, only a 404 it finds the
    source's "no such item" in, ``explain`` then reading every other error). ``media``: the media types the
    answer may declare (default JSON's); another one (an HTML page) is refused by name.

    Raises:
        SourceError: unreachable, past a limit, rate-limited after every retry, or another status.
    """
    from ....bib.fetch import JSON_TYPES, FetchError, media_problem
    from .pacing import RateLimited

    try:
        answer = session.answer(url, params, headers)
    except (FetchError, RateLimited) as err:
        raise failure(name, url, err) from None
    if answer.status == 404 and missing_ok and ((missing or explain) is None or (missing or explain)(answer.body)):
        return None  # the source's own "not found" (a 404 page of another server is an error below)
    if answer.status != 200:
        said = explain(answer.body) if explain is not None else ""
        raise SourceError(url, f"{name} answered HTTP {answer.status}" + (f": {said}" if said else ""))
    wrong = media_problem(answer, media or JSON_TYPES)
    if wrong is not None:
        raise SourceError(url, f"{name} {wrong}, so nothing of it was kept")
    if on_page is not None:
        on_page()
    return answer.body


def read_page(read, body: bytes, name: str, url: str, *args):
    """``read(body, *args)``, a format's reader, its :class:`~masrl.bib.answers.FormatError` as a
    :class:`SourceError` naming the source."""
    from ....bib.answers import FormatError

    try:
        return read(body, *args)
    except FormatError as err:
        raise failure(name, url, err) from None
