"""The answers of the Crossref REST API, read strictly: a work list (``GET /works``) and one work
(``GET /works/{doi}``).

Format (https://api.crossref.org/swagger-ui/index.html; the message types of
https://github.com/CrossRef/rest-api-doc/blob/master/api_format.md): ``{"status": "ok",
"message-type": "work-list" | "work", "message": ...}``; a work list's message has
``total-results`` (an integer), ``items`` (an array of works), ``items-per-page`` and, when
paged with a cursor, ``next-cursor``; a work has ``DOI`` (a string), ``title`` (an array of
strings), ``author`` (an array of ``{"given", "family"}`` or ``{"name"}``), dates as
``{"date-parts": [[year, month, day]]}``, ``subtitle`` (an array), ``container-title`` (an array), ``abstract`` (JATS
XML as a string), ``relation`` (``{"has-preprint": [{"id-type", "id"}]}``). A value of
another type (``"items": "abc"``, a title sent as a string, an author's family name as a number
or a list, ``"total-results": "lots"``) is refused with its place, as are NaN and JSON nested
deeper than any answer; text is cleaned by :func:`masrl.bib.answers.clean` (JATS tags and
HTML character references). Of ``title``, ``subtitle`` and ``container-title`` the first text is kept
(the others are its translations, or the venue's abbreviation), and a subtitle follows its title after a
colon (``Agent Swarms: Delegation Policies for Teams``) unless the title holds it already; a suffix a
publisher wrote into a family name after a comma (``Heath, Jr.``) is the author's suffix; an abstract's opening heading
"Abstract" is no word of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import msgspec

from ..core.placeholders import SUFFIXES, is_et_al, placeholder_problem
from .matching import with_subtitle
from .answers import MAX_AUTHORS, FormatError, clean, decode_json, named_authors, not_one_person, organisation_name, person, source_doi


class Author(msgspec.Struct, rename="kebab"):
    given: str | None = None
    family: str | None = None
    suffix: str | None = None  # Jr., III: BibTeX's "jr" part, "King, Jr., Martin Luther"
    name: str | None = None


class Date(msgspec.Struct, rename="kebab"):
    date_parts: list[list[int | None]] = []


class Relation(msgspec.Struct, rename="kebab"):
    id_type: str | None = None
    id: str | None = None


class Event(msgspec.Struct):
    name: str | None = None


class Work(msgspec.Struct, rename={"doi": "DOI", "container_title": "container-title", "published_print": "published-print",
                                   "published_online": "published-online"}):
    doi: str | None = None
    title: list[str] = []
    subtitle: list[str] = []
    author: list[Author] = []
    published: Date | None = None
    published_print: Date | None = None
    published_online: Date | None = None
    issued: Date | None = None
    container_title: list[str] = []
    event: Event | None = None
    abstract: str | None = None
    relation: dict[str, list[Relation]] = {}
    type: str | None = None
    publisher: str | None = None


class WorkListMessage(msgspec.Struct, rename="kebab"):
    total_results: int
    items: list[Work]
    items_per_page: int | None = None
    next_cursor: str | None = None


class WorkList(msgspec.Struct, rename="kebab"):
    status: str
    message_type: str
    message: WorkListMessage


class OneWork(msgspec.Struct, rename="kebab"):
    status: str
    message_type: str
    message: Work


@dataclass(frozen=True)
class Paper:
    """One work as masrl keeps it: ``published`` ``(year, month, day)`` or None, of which the
    source gave the first ``precision`` parts (1: a year, 2: a month; the others are 1); ``arxiv``
    the id of its preprint (``relation.has-preprint``) or ""."""

    doi: str
    title: str
    authors: tuple[str, ...]
    published: tuple[int, int, int] | None
    venue: str
    abstract: str
    arxiv: str
    type: str
    publisher: str
    precision: int = 3

    @property
    def shown_venue(self) -> str:
        """The venue every command gives the work (`masrl add`, an update round): its container,
        else its publisher, else ``arXiv`` for a work known with its preprint, else ``unpublished``."""
        return self.venue or self.publisher or ("arXiv" if self.arxiv else "unpublished")

    @property
    def identifiers(self) -> dict[str, str]:
        """Its ids as a record keeps them: its preprint's arXiv id first, then its DOI."""
        return {**({"arxiv": self.arxiv} if self.arxiv else {}), **({"doi": self.doi} if self.doi else {})}


def read_work_list(body: bytes) -> WorkList:
    """The work list ``body`` holds.

    Raises:
        FormatError: not the format (with what and where).
    """
    data = decode_json(body, WorkList)
    if data.status != "ok" or data.message_type != "work-list":
        raise FormatError(f"status {data.status!r}, message-type {data.message_type!r}: not a work list")
    if data.message.total_results < 0:
        raise FormatError(f"$.message.total-results is {data.message.total_results}, not a count")
    return data


def read_work(body: bytes) -> Work:
    """The one work ``body`` holds (``GET /works/{doi}``).

    Raises:
        FormatError: not the format.
    """
    data = decode_json(body, OneWork)
    if data.status != "ok" or data.message_type != "work":
        raise FormatError(f"status {data.status!r}, message-type {data.message_type!r}: not a work")
    return data.message


def _date(work: Work, where: str) -> tuple[tuple[int, int, int] | None, int]:
    """The work's first date of ``published``, ``published-print``, ``published-online`` and
    ``issued``, and how many of its parts the source gave."""
    for name in ("published", "published_print", "published_online", "issued"):
        value = getattr(work, name)
        if value is None or not value.date_parts or not value.date_parts[0] or value.date_parts[0][0] is None:
            continue
        given = list(value.date_parts[0][:3])
        precision = len(given) if None not in given else given.index(None)
        year, month, day = ([p if p is not None else 1 for p in given] + [1, 1])[:3]
        import datetime

        try:
            datetime.date(year, month, day)
        except (ValueError, OverflowError):
            raise FormatError(f"{where}.{name.replace('_', '-')}: {value.date_parts[0]!r} is not a date") from None
        return (year, month, day), precision
    return None, 3


#: The heading "Abstract" that opens many JATS abstracts (``<jats:title>Abstract</jats:title>``, also bold, with
#: attributes or without the prefix), after the element tags that open it (kept, so that they still pair up):
#: no word of the abstract.
_HEADING = re.compile(r"^(\s*(?:<(?:jats:)?[a-z]+(?:\s[^<>]*)?>\s*)*)<((?:jats:)?(?:title|bold))(?:\s[^<>]*)?>\s*abstract\s*[.:]?\s*"
                      r"</\2>", re.IGNORECASE)


def _first(texts: list[str], what: str, where: str) -> str:
    """The first text of a Crossref array of texts that is not blank once cleaned (:func:`clean`): its ``title``
    holds the title and then its translations, its ``container-title`` the venue's name and then its abbreviation."""
    for k, text in enumerate(texts):
        if cleaned := clean(text, what, f"{where}[{k}]", markup=True):
            return cleaned
    return ""


def paper(work: Work, where: str) -> Paper:
    """``work`` as a :class:`Paper`, its text cleaned.

    Raises:
        FormatError: a text too long, a date that is not one, a DOI or preprint id that is not one.
    """
    from .bibtex import organisation
    from .identifiers import IdentifierError, parse

    doi, arxiv = source_doi(work.doi, f"{where}.DOI")  # arXiv's own DOI names its preprint
    title = _first(work.title, "title", f"{where}.title")
    title = with_subtitle(title, _first(work.subtitle, "title", f"{where}.subtitle"))
    if len(work.author) > MAX_AUTHORS:
        raise FormatError(f"{where}.author: {len(work.author)} authors, more than the {MAX_AUTHORS} masrl keeps")
    authors = []
    for j, a in enumerate(work.author):
        a_family, a_given, a_suffix = _suffix_apart(a)
        family = person(a_family, f"{where}.author[{j}].family", part=True, markup=True)
        given = person(a_given, f"{where}.author[{j}].given", part=True, markup=True)
        suffix = person(a_suffix, f"{where}.author[{j}].suffix", part=True, markup=True)
        name = organisation_name(a.name, f"{where}.author[{j}].name", markup=True)
        if is_et_al(f"{family}, {given}" if family and given else family or given):  # "et al." as a person: others
            authors.append("")
            continue
        family = f"{family}, {suffix}" if family and suffix and given else family  # Last, Jr, First
        # a person, an organisation, or one name only (in the part where CSL-JSON put it)
        authors.append((f"{family}, {given}" if given else family) if family else _organisation(name) if name else given)
    authors = named_authors(authors)
    preprints = [] if arxiv else work.relation.get("has-preprint", [])  # an arXiv DOI has named the preprint already
    for rel in preprints:
        if rel.id:
            try:
                ident = parse(clean(rel.id, "identifier", f"{where}.relation.has-preprint"))
            except IdentifierError:
                continue
            if ident.scheme == "arxiv":
                arxiv = ident.key.split(":", 1)[1]
                break
    venue = _first(work.container_title, "venue", f"{where}.container-title")
    if not venue and work.event is not None:
        venue = clean(work.event.name, "venue", f"{where}.event.name", markup=True)
    abstract = clean(_HEADING.sub(r"\1", work.abstract) if isinstance(work.abstract, str) else work.abstract, "abstract",
                     f"{where}.abstract", markup=True)
    published, precision = _date(work, where)
    return Paper(doi, title, tuple(authors), published, venue, abstract, arxiv, clean(work.type, "venue", f"{where}.type"),
                 clean(work.publisher, "venue", f"{where}.publisher"), precision)


def _suffix_apart(author: Author) -> tuple:
    """``(family, given, suffix)`` of a Crossref author, a suffix a publisher wrote into the family or given name after
    a comma or a blank (``"family": "Heath, Jr."``, ``"King Jr."``) taken out into the suffix it is, or dropped where
    the suffix says it already.
    A part with another comma (``"Smith, PhD"``) is kept: the name it makes is that record's problem."""
    family, given, suffix = author.family, author.given, author.suffix
    for part in ("family", "given"):
        text = family if part == "family" else given
        head, comma, tail = text.rpartition(",") if isinstance(text, str) else ("", "", "")
        if not comma and isinstance(text, str) and " " in text.strip():  # "King Jr.": the last word
            head, comma, tail = text.strip().rpartition(" ")
        if (comma and head.strip() and "," not in head and tail.strip().lower() in SUFFIXES
                and (not suffix or tail.strip().lower().rstrip(".") == suffix.strip().lower().rstrip("."))):
            family, given = (head.strip(), given) if part == "family" else (family, head.strip())  # written twice: once
            return family, given, tail.strip() if not suffix else suffix
    return family, given, suffix


def _organisation(name: str) -> str:
    """An organisation Crossref names as a record author: one name whatever it holds, braced where a
    person's name could not hold it (``{The 100% Open Consortium}``)."""
    from .bibtex import organisation

    if is_et_al(name):  # "et al." as an organisation: the list goes on unnamed (others)
        return ""
    if placeholder_problem(name):  # '-': no organisation; kept as sent, for the round to name it so
        return name
    org = organisation(name)
    return org if org.startswith("{") or not not_one_person(org) else "{" + name + "}"
