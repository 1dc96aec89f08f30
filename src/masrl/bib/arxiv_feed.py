"""The answer of the arXiv API (``/api/query``), read strictly: an Atom 1.0 feed with OpenSearch paging.

Format (arXiv API User's Manual, https://info.arxiv.org/help/api/user-manual.html, sections 3.3
"Outline of an Atom feed", 3.4 "Errors" and 5.2 "Details of Atom Results Returned"): a ``feed``
in the Atom namespace with ``opensearch:totalResults``, ``opensearch:startIndex`` and
``opensearch:itemsPerPage`` (non-negative integers), and one ``entry`` per result with its
``id`` (``http://arxiv.org/abs/<id>v<version>``), ``title``, ``summary``, ``published`` and
``updated`` (RFC 3339), one or more ``author`` with a ``name``, and optionally
``arxiv:doi``, ``arxiv:journal_ref`` and ``arxiv:primary_category`` (one each; the category's ``term``
one of arXiv's categories, :data:`~.identifiers.ARXIV_CATEGORIES`). An error is a feed whose one
entry has an ``id`` under ``http://arxiv.org/api/errors`` and says what went wrong in its
``summary``.

The XML is parsed with ``defusedxml``: a document type declaration (and so every entity
definition, the way to an entity bomb) is refused, as the API never sends one. Anything else
than the format raises :class:`~.answers.FormatError` saying what and where (``entry 3:
published``); nothing of such an answer is kept.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from .answers import MAX_AUTHORS, FormatError, clean, day, person as person_name, source_doi
from .identifiers import IdentifierError, arxiv_category_problem, parse
from .latex import decode_latex
from ..core import clock
from ..core.text import ascii_digits

ATOM = "{http://www.w3.org/2005/Atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
ARXIV = "{http://arxiv.org/schemas/atom}"
ERRORS = ("http://arxiv.org/api/errors", "https://arxiv.org/api/errors")
#: The largest count the API can mean: it serves at most 30,000 results of one query (user manual, 3.1.1.2).
MAX_TOTAL = 30000


@dataclass(frozen=True)
class Entry:
    """One result: ``arxiv`` is the id without version, ``published`` a ``YYYY-MM-DD`` day (UTC)."""

    arxiv: str
    title: str
    summary: str
    authors: tuple[str, ...]
    published: str
    doi: str
    journal_ref: str
    primary_category: str


@dataclass(frozen=True)
class Feed:
    """One page: the OpenSearch counts and the entries in the order sent."""

    total: int
    start: int
    per_page: int
    entries: tuple[Entry, ...]


class ApiError(Exception):
    """The API answered with its error feed; ``str()`` is the error's text."""


def _root(body: bytes):
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    if not body.strip():
        raise FormatError("an empty answer where the format has an Atom feed")
    if body.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html")):
        raise FormatError("an HTML page where the format has an Atom feed")
    try:
        return fromstring(body, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException:
        raise FormatError("an XML document type declaration (entity definitions), which the Atom feed of the API "
                          "never has") from None
    except ParseError as err:
        raise FormatError(f"not well-formed XML ({err}): a cut or broken feed") from None


def _count(feed, name: str) -> int:
    found = feed.findall(f"{OPENSEARCH}{name}")
    if len(found) != 1:
        raise FormatError(f"the feed has {len(found)} opensearch:{name} elements, not one")
    text = (found[0].text or "").strip()
    if not ascii_digits(text) or len(text) > 12:
        raise FormatError(f"opensearch:{name} is {text[:40]!r}, not a non-negative integer")
    return int(text)


def _one(entry, name: str, where: str, required: bool = True) -> str | None:
    found = entry.findall(name)
    if len(found) > 1:
        raise FormatError(f"{where}: {len(found)} {_name(name)} elements, not one")
    if not found:
        if required:
            raise FormatError(f"{where}: no {_name(name)}")
        return None
    if len(found[0]):
        raise FormatError(f"{where}: {_name(name)} holds elements, not text")
    return found[0].text or ""


def _name(tag: str) -> str:
    for ns, prefix in ((ATOM, ""), (OPENSEARCH, "opensearch:"), (ARXIV, "arxiv:")):
        if tag.startswith(ns):
            return prefix + tag[len(ns):]
    return tag


def _entry(entry, i: int) -> Entry:
    from .bibtex import record_author

    where = f"entry {i + 1}"
    ident = (_one(entry, f"{ATOM}id", where) or "").strip()
    try:
        parsed = parse(ident, "arxiv") if "arxiv.org/abs/" in ident else None
    except IdentifierError as err:  # an abstract URL naming an id arXiv never gave: why
        raise FormatError(f"{where}: {err}") from None
    if parsed is None:
        raise FormatError(f"{where}: id {ident[:80]!r} is not an arXiv abstract URL (http://arxiv.org/abs/<id>v<n>)")
    where = f"entry {i + 1} ({parsed.key})"
    title = clean(_one(entry, f"{ATOM}title", where), "title", f"{where}: title")
    if "$" in title or "\\" in title:  # arXiv writes a title in TeX ($\infty$-former): the record keeps its text
        title = " ".join(decode_latex(title).split())
    if not title:
        raise FormatError(f"{where}: an empty title")
    summary = clean(_one(entry, f"{ATOM}summary", where), "abstract", f"{where}: summary")
    published = day((_one(entry, f"{ATOM}published", where) or "").strip(), f"{where}: published")
    day((_one(entry, f"{ATOM}updated", where) or "").strip(), f"{where}: updated")
    if why := published_problem(published) or id_month_problem(published, parsed.key.split(":", 1)[1]):
        raise FormatError(f"{where}: published {published}: {why}")
    people = entry.findall(f"{ATOM}author")
    if not people:
        raise FormatError(f"{where}: no author")
    if len(people) > MAX_AUTHORS:
        raise FormatError(f"{where}: {len(people)} authors, more than the {MAX_AUTHORS} masrl keeps")
    authors = []
    for j, person in enumerate(people):
        name = person_name(_one(person, f"{ATOM}name", f"{where}: author {j + 1}"), f"{where}: author {j + 1}")
        if not name:
            raise FormatError(f"{where}: author {j + 1} has an empty name")
        authors.append(record_author(name))
    doi = ""
    # several DOIs are separated by blanks (a ',' or ';' before the next one is a separator too: no DOI ends in
    # one): each must be one; the first is kept (arXiv's own DOI of the entry is no other id; one of another
    # arXiv paper is not this entry's)
    given = _one(entry, f"{ARXIV}doi", where, required=False) or ""
    for k, value in enumerate(re.split(r"[,;]?\s+|[,;](?=10\.)", given.strip().rstrip(",;"))):
        if not value:
            continue
        found, named = source_doi(value, f"{where}: arxiv:doi" + (f" (its value {k + 1})" if k else ""))
        if named and named != parsed.key.split(":", 1)[1]:
            raise FormatError(f"{where}: arxiv:doi {value[:80]!r} names another arXiv paper")
        doi = doi or found
    journal = clean(_one(entry, f"{ARXIV}journal_ref", where, required=False), "venue", f"{where}: arxiv:journal_ref")
    primary = entry.findall(f"{ARXIV}primary_category")  # one, whose term names the paper's category
    if len(primary) > 1:
        raise FormatError(f"{where}: {len(primary)} arxiv:primary_category elements, not one")
    category = primary[0].get("term", "").strip() if primary else ""
    if primary and (why := arxiv_category_problem(category)):
        raise FormatError(f"{where}: arxiv:primary_category term {why}")
    return Entry(parsed.key.split(":", 1)[1], title, summary, tuple(authors), published, doi, journal, category)


#: How many days before the month its id names a paper's first version may have been submitted: arXiv
#: numbers a paper when it is announced, days after a submission at a month's end, or months after one
#: that its moderators held.
ID_MONTH_SLACK_DAYS = 365


def id_month_problem(published: str, arxiv: str) -> str | None:
    """Why a first version published on ``published`` (``YYYY-MM-DD``) cannot be the paper arXiv numbered
    ``arxiv`` (``2605.30001``, ``math.GT/0309136``), or None: its id names the month it was numbered in
    (``YYMM``), and a first version is submitted in that month or in the days before it
    (:data:`ID_MONTH_SLACK_DAYS`), never after it (a day of slack for the time zones)."""
    numbered = re.match(r"(?:[a-z-]+(?:\.[A-Za-z]{2})?/)?([0-9]{2})([0-9]{2})", arxiv)
    if numbered is None:
        return None
    yy, month = int(numbered[1]), int(numbered[2])
    year = (1900 if yy >= 91 else 2000) + yy
    first = datetime.date(year, month, 1)
    after = datetime.date(year + (month == 12), month % 12 + 1, 1)
    day = datetime.date.fromisoformat(published)
    if first - datetime.timedelta(days=ID_MONTH_SLACK_DAYS) <= day <= after:
        return None
    return (f"not in {year}-{month:02d}, the month arXiv numbered {arxiv} in (a first version is submitted then, or in "
            f"the {ID_MONTH_SLACK_DAYS} days before): an answer about another paper")


def published_problem(published: str) -> str | None:
    """Why an entry's first version cannot have been published on ``published`` (``YYYY-MM-DD``, UTC), or
    None: a day after today (a day of slack for the time zones)."""
    today = clock.today()
    if published > (today + datetime.timedelta(days=1)).isoformat():
        return f"after today ({today.isoformat()}): arXiv publishes nothing ahead"
    return None


def read_feed(body: bytes) -> Feed:
    """The page ``body`` holds (see the module docstring).

    Raises:
        FormatError: it is not the API's Atom feed (with what and where).
        ApiError: it is the API's error feed.
    """
    feed = _root(body)
    if feed.tag != f"{ATOM}feed":
        raise FormatError(f"the document is a {_name(feed.tag)!r} element, not an Atom feed")
    entries = feed.findall(f"{ATOM}entry")
    for entry in entries:
        ident = (entry.findtext(f"{ATOM}id") or "").strip()
        if ident.startswith(ERRORS):
            raise ApiError(clean(entry.findtext(f"{ATOM}summary") or ident, "abstract", "error"))
    total, start, per_page = _count(feed, "totalResults"), _count(feed, "startIndex"), _count(feed, "itemsPerPage")
    return Feed(total, start, per_page, tuple(_entry(e, i) for i, e in enumerate(entries)))
