"""The answers of the OpenReview API, read strictly: ``GET /notes`` of API v2 (and of API v1, for
the older venues ``masrl add`` looks up).

Format (https://docs.openreview.net/reference/api-v2/entities/note; "Using the API: notes"):
``{"notes": [note, ...], "count": n}``; a note has ``id``, ``forum``, ``number``, the times
``cdate``, ``tcdate``, ``odate``, ``pdate``, ``mdate`` (milliseconds since 1970) and
``content``, whose fields are ``{"value": ...}`` in API v2 (``title``, ``authors`` (a list),
``abstract``, ``venue``, ``venueid``) and plain values in API v1. A value of another type, a
time that is not a time, NaN or JSON nested deeper than any answer is refused with its place.

A note's decision, where it is public, is read from its ``venueid``: the venue's own id for an
accepted paper, ``.../Rejected_Submission``, ``.../Withdrawn_Submission`` or
``.../Desk_Rejected_Submission`` otherwise (:func:`decision`).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

import msgspec

from .answers import MAX_AUTHORS, FormatError, clean, decode_json, named_authors, person

#: Milliseconds of 2100-01-01: a later time is not a time of a note.
_MAX_MS = 4102444800000
#: The earliest time a note can carry: OpenReview began in 2013; before 2000 is no time of its, in milliseconds.
_MIN_MS = 946_684_800_000


class Text(msgspec.Struct):
    value: str | None = None


class Names(msgspec.Struct):
    value: list[str] = []


class Content(msgspec.Struct):
    title: Text | None = None
    authors: Names | None = None
    abstract: Text | None = None
    venue: Text | None = None
    venueid: Text | None = None


class ContentV1(msgspec.Struct):
    title: str | None = None
    authors: list[str] = []
    abstract: str | None = None
    venue: str | None = None
    venueid: str | None = None


class Note(msgspec.Struct):
    id: str
    content: Content
    forum: str | None = None
    number: int | None = None
    cdate: int | None = None
    tcdate: int | None = None
    odate: int | None = None
    pdate: int | None = None


class NoteV1(msgspec.Struct):
    id: str
    content: ContentV1
    forum: str | None = None
    cdate: int | None = None
    tcdate: int | None = None
    odate: int | None = None
    pdate: int | None = None


class Notes(msgspec.Struct):
    notes: list[Note]
    count: int | None = None


class NotesV1(msgspec.Struct):
    notes: list[NoteV1]
    count: int | None = None


@dataclass(frozen=True)
class Paper:
    """One note as masrl keeps it; ``published`` ``YYYY-MM-DD`` (UTC) of its publication date
    (``pdate``, else ``odate``, ``cdate``, ``tcdate``), ``decision`` as :func:`decision` says."""

    id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    venue: str
    venueid: str
    published: str
    decision: str


def read_notes(body: bytes, v1: bool = False):
    """The notes ``body`` holds (API v2; ``v1=True``: API v1).

    Raises:
        FormatError: not the format (with what and where).
    """
    data = decode_json(body, NotesV1 if v1 else Notes)
    if data.count is not None and data.count < 0:
        raise FormatError(f"$.count is {data.count}, not a count")
    return data


def decision(venueid: str, venue: str) -> str:
    """``rejected``, ``withdrawn`` or ``desk rejected`` for a ``venueid`` ending in the group of those
    submissions; ``accepted`` when it is the venue's own id ``venue``; "" otherwise (not public,
    under review)."""
    tail = venueid.rsplit("/", 1)[-1]
    public = {"Rejected_Submission": "rejected", "Withdrawn_Submission": "withdrawn",
              "Desk_Rejected_Submission": "desk rejected"}
    if tail in public:
        return public[tail]
    return "accepted" if venueid and venueid == venue else ""


def shown_venue(found: Paper) -> str:
    """The venue a record of the note names, whichever command made it (``masrl add``, an update round):
    its own ``venue`` (``ICLR 2026 Poster``), else the conference and year of its ``venueid``
    (``ICLR 2026`` of ``ICLR.cc/2026/Conference``), else ``OpenReview``; with a public decision other
    than acceptance after it (``Submitted to ICLR 2026; rejected``)."""
    named = re.match(r"([A-Za-z][A-Za-z0-9-]*)\.(?:cc|org|net|com)/([0-9]{4})(?:/|$)", found.venueid)
    shown = found.venue or (f"{named.group(1)} {named.group(2)}" if named else "OpenReview")
    said = found.decision or decision(found.venueid, "")
    return f"{shown}; {said}" if said and said != "accepted" else shown


def _day(millis: int | None, where: str) -> str | None:
    if millis is None:
        return None
    if not 0 <= millis < _MAX_MS:
        raise FormatError(f"{where}: {millis} is not a time in milliseconds")
    if millis < _MIN_MS:  # 1970-01-21 for a 2026 time in seconds: no note of OpenReview's is that old
        day = datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.timezone.utc).date().isoformat()
        raise FormatError(f"{where}: {millis} is not a time in milliseconds of OpenReview's (as one it is {day}, before "
                          "2000: a time in seconds?)")
    return datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.timezone.utc).date().isoformat()


def paper(note, where: str, venue: str = "") -> Paper:
    """``note`` (API v2, or v1) as a :class:`Paper`; ``venue`` is the venue group it was listed under.

    Raises:
        FormatError: a text too long, a time that is not one, no id.
    """
    from .bibtex import record_author

    content = note.content
    v2 = isinstance(content, Content)

    def text(name: str) -> object:
        item = getattr(content, name)
        return (item.value if item is not None else None) if v2 else item

    names = (content.authors.value if content.authors is not None else []) if v2 else content.authors
    if len(names) > MAX_AUTHORS:
        raise FormatError(f"{where}.content.authors: {len(names)} authors, more than the {MAX_AUTHORS} masrl keeps")
    authors = named_authors(record_author(cleaned) if (cleaned := person(name, f"{where}.content.authors[{j}]")) else ""
                            for j, name in enumerate(names))
    ident = clean(note.forum or note.id, "identifier", f"{where}.forum")
    if not ident:
        raise FormatError(f"{where}: a note without an id")
    published = None
    for name in ("pdate", "odate", "cdate", "tcdate"):
        published = _day(getattr(note, name), f"{where}.{name}")
        if published:
            break
    venueid = clean(text("venueid"), "venue", f"{where}.content.venueid")
    return Paper(ident, clean(text("title"), "title", f"{where}.content.title"), tuple(authors),
                 clean(text("abstract"), "abstract", f"{where}.content.abstract"),
                 clean(text("venue"), "venue", f"{where}.content.venue"), venueid, published or "",
                 decision(venueid, venue) if venue else "")
