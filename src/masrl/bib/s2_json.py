"""The answers of the Semantic Scholar Academic Graph API, read strictly.

Format (https://api.semanticscholar.org/api-docs/graph): a paper is ``{"paperId", "externalIds":
{"ArXiv", "DOI", "CorpusId", ...}, "title", "abstract", "venue", "year", "publicationDate"
("YYYY-MM-DD" or null), "authors": [{"authorId", "name"}]}`` with the fields asked for in
``fields``; ``GET /graph/v1/paper/search/bulk`` answers ``{"total", "token", "data": [paper]}``
(``token`` pages on, absent on the last page; ``data`` may be left out only when ``total`` is 0); ``GET /graph/v1/paper/{id}/references`` and
``/citations`` answer ``{"offset", "next", "data": [{"citedPaper": paper}]`` or
``[{"citingPaper": paper}]}`` (``next`` absent on the last page). An error is ``{"error"}`` or
``{"message"}`` with an HTTP status. A value of another type, NaN or JSON nested deeper than any
answer is refused with its place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import msgspec

from .answers import MAX_AUTHORS, FormatError, clean, day, decode_json, named_authors, person, source_doi

#: A paper's ``paperId``: the SHA-1 the API gives as 40 hex digits.
PAPER_ID = re.compile(r"[0-9a-f]{40}")
#: The fields masrl asks for (``fields=``).
FIELDS = "paperId,externalIds,title,abstract,venue,year,publicationDate,authors"


class Author(msgspec.Struct):
    authorId: str | None = None  # noqa: N815 - the API's name
    name: str | None = None


class Paper(msgspec.Struct):
    paperId: str | None = None  # noqa: N815
    externalIds: dict[str, str | int | None] | None = None  # noqa: N815
    title: str | None = None
    abstract: str | None = None
    venue: str | None = None
    year: int | None = None
    publicationDate: str | None = None  # noqa: N815
    authors: list[Author] = []


class Search(msgspec.Struct):
    total: int
    data: list[Paper] | msgspec.UnsetType = msgspec.UNSET  # UNSET: not sent (only an empty result may omit it)
    token: str | None = None


class Edge(msgspec.Struct):
    citedPaper: Paper | None | msgspec.UnsetType = msgspec.UNSET  # noqa: N815 - UNSET: not sent at all
    citingPaper: Paper | None | msgspec.UnsetType = msgspec.UNSET  # noqa: N815


class Edges(msgspec.Struct):
    data: list[Edge]
    offset: int  # the API states it on every page of links: an answer without it is no such page
    next: int | None = None
    total: object = msgspec.UNSET  # a search answer's, never a page of links'
    token: object = msgspec.UNSET


class Error(msgspec.Struct):
    error: str | None = None
    message: str | None = None


@dataclass(frozen=True)
class Record:
    """One paper as masrl keeps it: ``arxiv`` and ``doi`` as the API gives them ("" when absent),
    ``published`` ``YYYY-MM-DD`` or "" (the API has no date for it)."""

    paper_id: str
    arxiv: str
    doi: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    venue: str
    year: int | None
    published: str
    acl: str = ""  # the ACL Anthology id (``externalIds.ACL``), "" when absent


def read_search(body: bytes) -> Search:
    """A page of ``/paper/search/bulk``. Raises :class:`FormatError`."""
    data = decode_json(body, Search)
    if data.total < 0:
        raise FormatError(f"$.total is {data.total}, not a count")
    if data.total == 0 and data.token:
        raise FormatError("$.token pages on from a result of 0 papers")
    if data.data is msgspec.UNSET:
        if data.total > 0 or data.token:
            raise FormatError(f"$.data is missing from a page of a result of {data.total} papers")
        data.data = []
    return data


def read_edges(body: bytes) -> Edges:
    """A page of ``/paper/{id}/references`` or ``/citations``. Raises :class:`FormatError`."""
    data = decode_json(body, Edges)
    said = [f"$.{name}" for name in ("total", "token") if getattr(data, name) is not msgspec.UNSET]
    if said:
        raise FormatError(f"{' and '.join(said)}: a search answer's, not a page of references or citations")
    if data.offset < 0:
        raise FormatError(f"$.offset is {data.offset}, not a position (one counted from 0)")
    if data.next is not None and data.next <= data.offset:
        raise FormatError(f"$.next is {data.next} after $.offset {data.offset}: not a next page")
    return data


def error_text(body: bytes) -> str:
    """The API's error message in ``body``, or ""."""
    try:
        data = decode_json(body, Error)
        return clean(data.error or data.message or "", "venue", "$.error")
    except FormatError:  # not the API's error shape, or a message too long or not text: the status says enough
        return ""


def not_found_text(body: bytes) -> str:
    """The API's error message when it is its documented "not found" of a paper
    (``{"error": "Paper with id ... not found"}``), else "" (another 404 is another server's)."""
    text = error_text(body)
    return text if re.fullmatch(r"Paper with id .+ not found", text) else ""


class UnusableValue(FormatError):
    """A value of one paper that no record may hold (an id that cannot exist, a DOI with a blank, a day no calendar
    has, a year out of range) in an answer of the documented form: Semantic Scholar gathers its papers' ids and dates
    from many sources, so that paper is counted unusable and named, and the answer is read on."""


def record(paper: Paper, where: str) -> Record:
    """``paper`` as a :class:`Record`, its text cleaned.

    Raises:
        UnusableValue: an id that is not one, a date that is not one, a year out of range (that paper's problem).
        FormatError: a text too long, a value of the wrong type, a paperId that is not one (the answer's).
    """
    from .bibtex import record_author

    ids = paper.externalIds or {}
    for name in ("ArXiv", "DOI", "ACL"):
        if ids.get(name) is not None and not isinstance(ids[name], str):
            raise FormatError(f"{where}.externalIds.{name}: {str(ids[name])[:40]} is not text")
    if paper.paperId is not None and not PAPER_ID.fullmatch(paper.paperId):
        raise FormatError(f"{where}.paperId: {paper.paperId[:60]!r} is not a Semantic Scholar paper id (40 hex digits)")
    if len(paper.authors) > MAX_AUTHORS:
        raise FormatError(f"{where}.authors: {len(paper.authors)} authors, more than the {MAX_AUTHORS} masrl keeps")
    try:
        arxiv, doi, acl = _identifiers(ids, where)
        published = day(paper.publicationDate, f"{where}.publicationDate") if paper.publicationDate else ""
        if paper.year is not None and not 1000 <= paper.year <= 2999:
            raise FormatError(f"{where}.year: {paper.year} is not a year")
    except FormatError as err:
        raise UnusableValue(str(err)) from None
    authors = named_authors(record_author(name) if (name := person(a.name, f"{where}.authors[{j}].name")) else ""
                            for j, a in enumerate(paper.authors))
    return Record(clean(paper.paperId, "identifier", f"{where}.paperId"), arxiv, doi, clean(paper.title, "title", f"{where}.title"),
                  tuple(authors), clean(paper.abstract, "abstract", f"{where}.abstract"), clean(paper.venue, "venue", f"{where}.venue"),
                  paper.year, published, acl)


def _identifiers(ids: dict, where: str) -> tuple[str, str, str]:
    """``(arxiv, doi, acl)`` of a paper's ``externalIds`` ("" when absent). Raises :class:`FormatError`."""
    from .identifiers import IdentifierError, parse

    arxiv = doi = acl = ""
    if isinstance(ids.get("ArXiv"), str) and ids["ArXiv"]:
        try:
            arxiv = parse(clean(ids["ArXiv"], "identifier", f"{where}.externalIds.ArXiv"), "arxiv").key.split(":", 1)[1]
        except IdentifierError:
            raise FormatError(f"{where}.externalIds.ArXiv: {ids['ArXiv'][:80]!r} is not an arXiv id") from None
    if isinstance(ids.get("DOI"), str) and ids["DOI"]:
        doi, named = source_doi(ids["DOI"], f"{where}.externalIds.DOI")  # arXiv's own DOI names its preprint
        if named and arxiv and named != arxiv:
            raise FormatError(f"{where}.externalIds: the DOI {ids['DOI'][:80]!r} names another arXiv paper than ArXiv "
                              f"{arxiv!r}")
        arxiv = arxiv or named
    if isinstance(ids.get("ACL"), str) and ids["ACL"]:
        try:
            acl = parse(clean(ids["ACL"], "identifier", f"{where}.externalIds.ACL"), "acl").value
        except IdentifierError:
            raise FormatError(f"{where}.externalIds.ACL: {ids['ACL'][:80]!r} is not an ACL Anthology id") from None
    return arxiv, doi, acl
