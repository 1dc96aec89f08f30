"""Metadata of a paper from its public source: arXiv API, Crossref, OpenReview API, ACL Anthology.

:func:`lookup` takes one :class:`~masrl.bib.identifiers.Identifier` and returns
``{"title", "authors", "year", "venue", "abstract"?, "identifiers", "primaryclass"?}``
with authors in ``Last, First`` form. Sources and formats:

* arXiv: the ``arxiv`` package (arXiv API, Atom feed;
  https://info.arxiv.org/help/api/user-manual.html); venue is the
  ``journal_ref`` when the authors gave one, else ``arXiv``;
* DOI: Crossref REST API ``GET https://api.crossref.org/works/{doi}``
  (https://api.crossref.org/swagger-ui/index.html), JSON ``message`` with
  ``title``, ``author``, ``issued``, ``container-title``, ``abstract`` (JATS);
* OpenReview: API v2 ``GET https://api2.openreview.net/notes?id=...``
  (values under ``content.*.value``), then API v1 ``https://api.openreview.net``
  (plain values) for older venues (https://docs.openreview.net);
* ACL Anthology: the entry's own BibTeX, ``https://aclanthology.org/{id}.bib``.

Every request goes through :func:`masrl.bib.fetch.fetch` (an overall deadline,
a size limit on the compressed and the decompressed answer, no redirect to
another host) over one ``requests.Session``, so tests serve documented
responses through a mocked transport; every answer is checked against its
source's format (:mod:`.arxiv_feed`, :mod:`.crossref_json`,
:mod:`.openreview_json`), and one that is not raises :class:`BadAnswer` naming
the source and what is wrong: nothing of it is kept. Nothing here runs unless
``masrl add`` is given an identifier without ``--no-fetch``.

Each source's address can be moved (to a mirror, or a local stand-in) by the environment variable of
:data:`ENDPOINTS`, the same names ``masrl update search`` reads; an address that is not an
``http(s)`` URL without a query raises :class:`BadEndpoint` before anything is sent.
"""

from __future__ import annotations

import os
from urllib.parse import quote

from .answers import FormatError
from .fetch import ATOM_TYPES, BIBTEX_TYPES, JSON_TYPES, FetchError, Limits, endpoint_problem, fetch, host_of, media_problem
from .identifiers import Identifier

TIMEOUT = 20  # seconds for the whole of one request
LIMITS = Limits(deadline=TIMEOUT, connect=10.0, read=TIMEOUT, max_wire=4 * 1024 * 1024, max_body=8 * 1024 * 1024)
USER_AGENT = "masrl (https://github.com/xxzcc/awesome-llm-mas-rl; survey corpus tool)"
ARXIV_API = "https://export.arxiv.org/api/query"
CROSSREF_API = "https://api.crossref.org/works"
#: Each source's address and the environment variable that moves it. OpenReview is asked at API v2
#: first, then at API v1 (older venues); when only one of them is moved, the other is not asked.
ENDPOINTS = {"arxiv": ("MASRL_ARXIV_API", ARXIV_API), "doi": ("MASRL_CROSSREF_API", CROSSREF_API),
             "openreview": ("MASRL_OPENREVIEW_API", "https://api2.openreview.net/notes"),
             "openreview_v1": ("MASRL_OPENREVIEW_V1_API", "https://api.openreview.net/notes"),
             "acl": ("MASRL_ACL_URL", "https://aclanthology.org")}


class BadEndpoint(Exception):
    """An address given in the environment that masrl cannot send a request to; the message names the variable."""


def endpoint(name: str, environ=None) -> str | None:
    """The address of source ``name`` of :data:`ENDPOINTS`: its variable's value when set, else the
    public one; None for one of OpenReview's two APIs when only the other is moved.

    Raises:
        BadEndpoint: the variable's value is not an ``http(s)`` URL masrl can send to.
    """
    env = os.environ if environ is None else environ
    variable, default = ENDPOINTS[name]
    value = env.get(variable, "")
    if not value:  # unset (a value of blanks is set, and refused below as update rounds refuse it)
        other = {"openreview": "openreview_v1", "openreview_v1": "openreview"}.get(name)
        if other and env.get(ENDPOINTS[other][0], ""):
            return None  # the other OpenReview API is moved (a stand-in): this one is not asked
        return default
    why = endpoint_problem(value)
    if why is not None:
        raise BadEndpoint(f"{variable}: {why}")
    return value.rstrip("/") if name == "acl" else value


class Unreachable(Exception):
    """The source could not be reached (no network, DNS, timeout, HTTP 5xx); the message names the host."""


class NotFound(Exception):
    """The source answered, but has no paper with this id."""


class BadAnswer(Exception):
    """The source answered something that is not its documented format (or too large, too slow,
    or from another host); the message names the host and what is wrong."""


def _session():
    import requests

    session = requests.Session()
    session.headers["User-Agent"] = USER_AGENT
    return session


def _get(session, url: str, host: str, media: tuple[str, ...] = JSON_TYPES, **params):
    try:
        response = fetch(session, url, params or None, limits=LIMITS)
    except FetchError as err:
        if err.kind == "unreachable":
            raise Unreachable(host) from None
        raise BadAnswer(f"{host}: {err.what}") from None
    if response.status == 404 and response.content_type in ("text/html", "application/xhtml+xml"):
        raise BadAnswer(f"{host} answered HTTP 404 with an HTML page, not the source's own \"not found\" (a wrong "
                        "address?)")
    if response.status == 404:
        raise NotFound(url)
    if response.status == 429:
        raise BadAnswer(f"{host} answered HTTP 429 (rate limit): it asks to be asked later")
    if response.status >= 500:
        raise BadAnswer(f"{host} answered HTTP {response.status} (a server error): try again later")
    if response.status != 200:
        raise BadAnswer(f"{host} answered HTTP {response.status}, not the paper's metadata")
    wrong = media_problem(response, media)
    if wrong is not None:
        raise BadAnswer(f"{host} {wrong}")
    return response


def _same(host: str, got: str, wanted: str, scheme: str) -> None:
    """Refuse an answer about another paper than the one asked for: DOIs are compared without case
    (the DOI system ignores it), every other id exactly (``openreview:AbC`` and ``openreview:aBc`` are
    two notes)."""
    if (got.lower() != wanted.lower()) if scheme == "doi" else (got != wanted):
        raise BadAnswer(f"{host} answered about {scheme}:{got[:80]!r} when asked for {scheme}:{wanted}")


def _checked(host: str, read, *args):
    try:
        return read(*args)
    except FormatError as err:
        raise BadAnswer(f"{host} answered something that is not its documented format: {err}") from None


def _arxiv(ident: Identifier, session) -> dict:
    from .arxiv_feed import ApiError, read_feed

    url = endpoint("arxiv")
    host = host_of(url)
    try:
        feed = _checked(host, read_feed, _get(session, url, host, ATOM_TYPES, id_list=ident.value, max_results="1").body)
    except ApiError:
        raise NotFound(ident.value) from None
    if not feed.entries:
        raise NotFound(ident.value)
    entry = feed.entries[0]
    wanted = ident.key.split(":", 1)[1]
    if len(feed.entries) != 1 or entry.arxiv != wanted:
        raise BadAnswer(f"{host} answered {len(feed.entries)} entries (first arxiv:{entry.arxiv}) for arxiv:{wanted}")
    ids = {"arxiv": ident.value}
    if entry.doi:
        ids["doi"] = entry.doi
    return {"title": entry.title, "authors": list(entry.authors), "year": int(entry.published[:4]),
            "venue": entry.journal_ref or "arXiv", "abstract": entry.summary, "identifiers": ids,
            "primaryclass": entry.primary_category}


def _crossref(ident: Identifier, session) -> dict:
    from .crossref_json import paper, read_work

    base = endpoint("doi")
    host = host_of(base)
    # the DOI percent-encoded in the path ('?', '#', '%'): the work asked for, never another path; a '.' or '..'
    # segment has no address HTTP keeps as it is (it is resolved away even when encoded)
    if any(seg in (".", "..") for seg in ident.value.split("/")):
        raise BadAnswer(f"the DOI {ident.value} holds a '.' or '..' segment, which no address at {host} keeps")
    work = _checked(host, read_work, _get(session, f"{base.rstrip('/')}/{quote(ident.value, safe='/')}", host).body)
    found = _checked(host, paper, work, "$.message")
    _same(host, found.doi, ident.value, "doi")
    if not found.title or found.published is None:
        raise BadAnswer(f"{host} answered a work without a title or a date for doi:{ident.value}")
    # the ids and venue an update round gives the same work (its preprint's arXiv id kept)
    out = {"title": found.title, "authors": list(found.authors), "year": found.published[0],
           "venue": found.shown_venue, "identifiers": found.identifiers or {"doi": ident.value},
           "crossref_type": found.type}
    if found.abstract:
        out["abstract"] = found.abstract
    return out


def _openreview(ident: Identifier, session) -> dict:
    from .openreview_json import paper, read_notes, shown_venue

    for url, v1 in ((endpoint("openreview"), False), (endpoint("openreview_v1"), True)):
        if url is None:
            continue
        host = host_of(url)
        data = _checked(host, read_notes, _get(session, url, host, id=ident.value).body, v1)
        if not data.notes:
            continue
        if len(data.notes) > 1:  # a request by id is answered with one note: more is not the documented answer
            raise BadAnswer(f"{host} answered {len(data.notes)} notes (first openreview:{data.notes[0].id}) for "
                            f"openreview:{ident.value}")
        _same(host, str(data.notes[0].id), ident.value, "openreview")
        if data.notes[0].forum and data.notes[0].forum != data.notes[0].id:  # a paper is the note that opens its forum
            raise BadAnswer(f"{host} answered a note of the forum openreview:{str(data.notes[0].forum)[:80]!r}, not a paper, "
                            f"for openreview:{ident.value} (a paper's note opens its own forum)")
        note = _checked(host, paper, data.notes[0], "$.notes[0]")
        if not note.title:
            raise BadAnswer(f"{host} answered a note without a title for openreview:{ident.value}")
        out = {"title": note.title, "authors": list(note.authors), "year": int(note.published[:4]) if note.published else None,
               "venue": shown_venue(note), "identifiers": {"openreview": note.id or ident.value}}
        if note.abstract:
            out["abstract"] = note.abstract
        return out
    raise NotFound(ident.value)


def _acl(ident: Identifier, session) -> dict:
    from .bibimport import import_entries
    from .bibtex import parse

    base = endpoint("acl")
    host = host_of(base)
    answer = _get(session, f"{base}/{ident.value}.bib", host, BIBTEX_TYPES)
    try:
        text = answer.body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadAnswer(f"{host} answered something that is not UTF-8 BibTeX") from None
    result = import_entries(parse(text, f"{ident.value}.bib"), f"{ident.value}.bib")
    found = [p.message for _, _, problems in result.refused for p in problems] + [p.message for p in result.problems]
    if len(result.papers) + len(result.refused) > 1:
        raise BadAnswer(f"{host} answered {len(result.papers) + len(result.refused)} BibTeX entries for acl:{ident.value}, "
                        "not one")
    if not result.papers and found:
        raise BadAnswer(f"{host} answered a BibTeX entry masrl cannot read for acl:{ident.value}: {found[0]}")
    if not result.papers:
        raise BadAnswer(f"{host} answered no BibTeX entry for acl:{ident.value} (an HTML page or an empty answer?)")
    paper = result.papers[0]
    ids = dict(paper["identifiers"])
    if str(ids.get("doi", "")).lower().startswith("10.18653/"):  # the Anthology's own DOIs are 10.18653/v1/<id>
        _same(host, ids["doi"], f"10.18653/v1/{ident.value}", "doi")
    if ids.get("acl"):  # the paper's own page (its url), which names its Anthology id
        _same(host, str(ids["acl"]), ident.value, "acl")
    ids["acl"] = ident.value
    out = {k: paper[k] for k in ("title", "authors", "year", "venue")}
    out["identifiers"] = ids
    if paper.get("abstract"):
        out["abstract"] = paper["abstract"]
    return out


SOURCES = {"arxiv": ("the arXiv API", _arxiv), "doi": ("Crossref", _crossref),
           "openreview": ("the OpenReview API", _openreview), "acl": ("the ACL Anthology", _acl)}


def lookup(ident: Identifier, session=None) -> dict:
    """Metadata of one paper (see the module docstring).

    Raises:
        ValueError: for a scheme without a public source (a plain URL).
        BadEndpoint: the environment moves the source to an address that is not a URL.
        Unreachable: the source could not be reached.
        NotFound: the source has no such paper.
        BadAnswer: the source's answer is not its format, too large, too slow or from another host.
    """
    if ident.scheme not in SOURCES:
        raise ValueError(f"no public source for {ident.scheme} identifiers")
    return SOURCES[ident.scheme][1](ident, session or _session())
