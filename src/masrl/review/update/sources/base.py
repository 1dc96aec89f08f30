"""What every source of an update round returns: the records found, the run of one query, and its failure."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ....core.text import unsafe_characters


@dataclass(frozen=True)
class Found:
    """One record a source returned, in the form of a queue row.

    Attributes:
        identifier: ``scheme:value`` (``arxiv:2605.08686``, ``doi:10.18653/v1/...``), the canonical id.
        identifiers: scheme -> stored value, every id the source gave (for duplicates and stubs).
        title, venue, abstract: one line each (whitespace collapsed).
        authors: ``Last, First`` each.
        year: publication year; published: ``YYYY-MM-DD`` (first version or publication).
    """

    identifier: str
    identifiers: dict
    title: str
    authors: tuple[str, ...]
    year: int
    venue: str
    abstract: str
    published: str


@dataclass
class QueryRun:
    """One query sent to one source, paged to its end.

    Attributes:
        family: the query family's name.
        query: the query exactly as sent (the request's parameters without the paging ones).
        sent: when its first request went out (``YYYY-MM-DDTHH:MM:SSZ``).
        requests: HTTP requests sent (retries included); pages: result pages read.
        total: how many records the source said the query has; returned: records it returned;
        kept: those in the round's window (and, for Crossref, matching the family), in ``found``.
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
    text = " ".join(str(text or "").split())
    drop = {ch for ch, _ in unsafe_characters(text)}
    return " ".join("".join(ch for ch in text if ch not in drop).split()) if drop else text
