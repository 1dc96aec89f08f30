"""OpenReview as a source of an update round: the papers of the protocol's venues (ICLR, NeurIPS, COLM).

Format: the OpenReview API v2 ``GET /notes`` (https://docs.openreview.net, "Using the API: notes";
https://docs.openreview.net/reference/api-v2/entities/note), ``{"notes": [...], "count": n}``,
read strictly by :mod:`masrl.bib.openreview_json`. For each venue id of the searcher's
``venues`` (``ICLR.cc/2026/Conference``, or ``ICLR.cc/2026/Conference/Rejected_Submission`` for
the rejected submissions a venue makes public) masrl asks for every note whose
``content.venueid`` is that id, ``limit`` 1000 (the API's largest page) from ``offset`` 0 on,
sorted by ``number``, until ``offset`` reaches ``count`` (or a page is short when the API gives
no count), within the paging bound of ``max_records`` per venue. A bound reached with no count is
followed by one request for the note after the last one received: whether it exists tells whether
more follow. Each later page is asked from the last note already received, which must still be
there (:func:`~.base.check_overlap`): notes that moved while they were paged are refused, not left
a note short. A venue of more than one page is read again until two readings hold the same notes
(three readings at most): a note withdrawn and another decided into the venue before a page's start
leave that page's first note where it was, and one of them unseen.

The API v2 has no boolean search, so masrl's reading: a note is kept when its publication date
(``pdate``, else ``odate``, ``cdate``) lies in the round's window and its title and abstract match
the family (:meth:`~masrl.review.update.protocol.Family.matches`, the protocol's ``all_of``). The
notes of a venue are fetched once per run and matched to every family; the first family's query
records the requests. Each record keeps its venue as OpenReview shows it (``ICLR 2026 Poster``)
and, where the decision is public and is not an acceptance, the decision
(``Submitted to ICLR 2026; rejected``).

Pace: OpenReview asks clients to keep to a moderate rate and answers HTTP 429 with
``Retry-After`` beyond it; masrl sends one request a second on one connection and waits as asked.
"""

from __future__ import annotations

from ....bib.answers import FormatError
from ....bib.identifiers import IdentifierError, parse
from ....bib.openreview_json import paper, read_notes, shown_venue
from .base import Found, QueryRun, SourceError, Unusable, check_overlap, failure, fetch_page, read_page
from .pacing import PacedSession, PaceFile

DELAY_SECONDS = 1
LIMIT = 1000
MAX_RECORDS = 20000
NAME = "the OpenReview API"


class OpenReviewSource:
    """Searches the notes of the protocol's venues, over one paced connection.

    Args:
        searcher: the protocol's searcher (endpoint, ``options["venues"]``).
        delay, limit, max_records: request spacing (seconds), notes per page, the paging bound per venue.
        clock, sleep, session, on_request, on_page, pace, limits, allow_incomplete: as for
            :class:`~.arxiv.ArxivSource`.
    """

    name = "openreview"

    def __init__(self, searcher, delay: float | None = None, limit: int | None = None, max_records: int | None = None,
                 clock=None, sleep=None, session: PacedSession | None = None, on_request=None, on_page=None,
                 allow_incomplete: bool = False, pace: PaceFile | None = None, limits=None):
        delay = DELAY_SECONDS if delay is None else delay
        self.searcher = searcher
        self.endpoint = searcher.endpoint
        self.venues = tuple(searcher.options.get("venues") or ())
        self.limit = int(limit or LIMIT)
        self.max_records = int(max_records or MAX_RECORDS)
        self.allow_incomplete = allow_incomplete
        self.session = session or PacedSession(delay, clock, sleep, on_request, pace, limits)
        self.on_page = on_page
        self.settings = {"venues": "; ".join(self.venues), "limit": self.limit, "max_records": self.max_records,
                         "delay_seconds": int(delay) if float(delay).is_integer() else str(delay),
                         **self.session.limits.settings()}
        self._notes: dict | None = None  # venue -> (notes, total, pages, requests, not fetched, why)

    def _page(self, params: dict):
        body = fetch_page(self.session, self.endpoint, NAME, params, on_page=self.on_page)
        return read_page(read_notes, body, NAME, self.endpoint)

    def _venue(self, venue: str) -> tuple:
        """``(notes, total, pages, requests, not fetched, why)`` of ``venue``: read once, and when it took more
        than one page, read again until two readings hold the same notes (three at most): a note that leaves
        and another that joins before a page's start leave the note it starts from where it was, unseen."""
        first = len(self.session.started)
        notes, total, pages, left, why, ids, paged = self._read(venue)
        if paged and not left:
            for _ in range(2):
                again = self._read(venue)
                pages += again[2]
                if again[5] == ids:
                    break
                notes, total, _, left, why, ids, _ = again
            else:
                raise SourceError(self.endpoint, f"{NAME}'s notes of venue {venue!r} changed while they were paged, in "
                                                 "three readings (notes withdrawn or decided meanwhile?); run the search "
                                                 "again later")
        return notes, total, pages, len(self.session.started) - first, left, why

    def _read(self, venue: str) -> tuple:
        """One reading of ``venue``'s notes: ``(notes, total, pages, not fetched, why, note ids in order, whether
        they took more than one page)``."""
        notes, offset, pages, total, listed = [], 0, 0, None, 0
        order: list[str] = []
        seen: set[str] = set()
        last = ""  # the last note received (each later page starts with it)
        forums: dict[str, str] = {}  # forum -> the note whose forum it is
        while total is None or offset < total:
            if offset >= self.max_records:
                why = f"the paging bound of {self.max_records:,} notes per venue (--max-records)"
                if total is None:  # no count: one note past the bound tells whether any follow
                    total, pages = self._past_bound(venue, offset, last), pages + 1
                    if total == offset:
                        break
                    why += f"; {NAME} gave no count, so at least one more note"
                left = total - offset
                if not self.allow_incomplete:
                    raise SourceError(self.endpoint, f"venue {venue!r} has more notes than the paging bound of "
                                                     f"{self.max_records:,}; raise --max-records or give --allow-incomplete")
                return notes, total, pages, left, why, order, listed > 1
            back = 1 if offset else 0  # each later page from the last note received: it must still be there
            asked = min(self.limit - back, self.max_records - offset)  # never past the bound
            data = self._page({"content.venueid": venue, "limit": str(asked + back), "offset": str(offset - back),
                               "sort": "number:asc"})
            pages, listed = pages + 1, listed + 1
            if len(data.notes) > asked + back:
                raise failure(NAME, self.endpoint, FormatError(f"a page of {len(data.notes)} notes, but {asked + back} "
                                                               "were asked for"))
            if back:
                check_overlap(NAME, self.endpoint, offset - 1, data.notes[0].id if data.notes else None, last)
            page = data.notes[back:]
            if data.count is not None:
                if data.count > self.max_records * 100:
                    raise SourceError(self.endpoint, f"{NAME} says venue {venue!r} has {data.count:,} notes: not an "
                                                     "answer of OpenReview (is the endpoint right?)")
                total = data.count if total is None else max(total, data.count)  # a count that shrinks loses nothing
                if total > self.max_records and not self.allow_incomplete:  # known on the first page: fetch no more
                    raise SourceError(self.endpoint, f"venue {venue!r} has {total:,} notes, more than the paging bound of "
                                                     f"{self.max_records:,}; raise --max-records or give --allow-incomplete")
            for i, note in enumerate(page, back):
                where = f"$.notes[{i}] (venue {venue}, offset {offset - back})"
                if note.id in seen:
                    raise failure(NAME, self.endpoint, FormatError(f"{where}: note {note.id} is sent twice"))
                seen.add(note.id)
                order.append(note.id)
                forum = note.forum or note.id
                if forums.setdefault(forum, note.id) != note.id:  # a venue's submissions are each the root of its forum
                    raise failure(NAME, self.endpoint, FormatError(
                        f"{where}: note {note.id} has the forum {forum[:40]!r} of note {forums[forum]}: each submission "
                        "of a venue is its own forum, so one of the two is no submission"))
                notes.append(_paper(note, where, venue, self.endpoint))
                last = note.id
            offset += len(page)
            if total is not None and offset > total:
                raise failure(NAME, self.endpoint, FormatError(f"{offset} notes sent, but $.count says {total}"))
            if len(page) < asked:
                if total is not None and offset < total:
                    raise SourceError(self.endpoint, f"{NAME} answered a short page ({len(page)} notes) at offset "
                                                     f"{offset - len(page)} of {total}; run the search again later")
                total = offset
        return notes, total or 0, pages, 0, "", order, listed > 1

    def _past_bound(self, venue: str, offset: int, last: str) -> int:
        """How many notes ``venue`` holds when the API gave no count and ``offset`` notes (the paging
        bound) came: ``offset``, or ``offset + 1`` (at least) when a note follows the last one received."""
        data = self._page({"content.venueid": venue, "limit": "2", "offset": str(offset - 1), "sort": "number:asc"})
        if len(data.notes) > 2:
            raise failure(NAME, self.endpoint, FormatError(f"a page of {len(data.notes)} notes, but 2 were asked for"))
        check_overlap(NAME, self.endpoint, offset - 1, data.notes[0].id if data.notes else None, last)
        if data.count is not None:
            return max(data.count, offset)
        return offset + (len(data.notes) > 1)

    def search(self, family, since: str, until: str, now) -> QueryRun:
        """The notes of the venues published in ``[since, until]`` that match ``family``.

        Raises:
            SourceError: one line naming the host (unreachable, an HTTP error, not the format).
        """
        run = QueryRun(family.name)
        run.sent = now()
        run.query = "; ".join(f"content.venueid={v}&sort=number:asc" for v in self.venues) + " (every note, kept when " \
                                                                                            "it matches the family)"
        fresh = self._notes is None
        if fresh:
            self._notes = {venue: self._venue(venue) for venue in self.venues}
        for venue, (notes, total, pages, requests, left, why) in self._notes.items():
            run.total += total
            if fresh:
                run.pages += pages
                run.requests += requests
            if left:
                run.not_fetched += left
                run.stopped = why
                run.incomplete = True
            for found in notes:
                run.undated(found) if isinstance(found, str) else run.take(found, since, until, family)
        run.kept = len(run.found)
        return run


def _paper(note, where: str, venue: str, endpoint: str) -> Found | Unusable | str:
    got = read_page(paper, note, NAME, endpoint, where, venue)
    try:
        ident = parse(got.id, "openreview")
    except IdentifierError:
        raise failure(NAME, endpoint, FormatError(f"{where}.forum: {got.id[:40]!r} is not an OpenReview id")) from None
    if got.venueid and got.venueid != venue:
        raise failure(NAME, endpoint, FormatError(f"{where}.content.venueid: {got.venueid[:80]!r}, but the notes of "
                                                  f"{venue!r} were asked for"))
    if got.title and not got.published:
        return ident.key  # no publication, online or creation date: named as undated
    if not got.title:
        return Unusable(ident.key, "title")
    return Found(ident.key, {"openreview": ident.value}, got.title, got.authors, int(got.published[:4]), shown_venue(got),
                 got.abstract, got.published)
