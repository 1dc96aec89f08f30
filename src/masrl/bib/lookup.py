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

HTTP goes through one ``requests.Session`` (the one the ``arxiv`` package
uses too), so tests serve documented responses through a mocked transport.
Nothing here runs unless ``masrl add`` is given an identifier without
``--no-fetch``.
"""

from __future__ import annotations

import re

from .identifiers import Identifier

TIMEOUT = 20  # seconds per request
USER_AGENT = "masrl (https://github.com/xxzcc/awesome-llm-mas-rl; survey corpus tool)"


class Unreachable(Exception):
    """The source could not be reached (no network, DNS, timeout, HTTP 5xx); the message names the host."""


class NotFound(Exception):
    """The source answered, but has no paper with this id."""


def _session():
    import requests

    session = requests.Session()
    session.headers["User-Agent"] = USER_AGENT
    return session


def _get(session, url: str, host: str, **params):
    import requests

    try:
        response = session.get(url, params=params or None, timeout=TIMEOUT)
    except requests.RequestException as err:
        raise Unreachable(host) from err
    if response.status_code == 404:
        raise NotFound(url)
    if response.status_code >= 500 or response.status_code == 429:
        raise Unreachable(f"{host} (HTTP {response.status_code})")
    if response.status_code != 200:
        raise NotFound(f"{url} (HTTP {response.status_code})")
    return response


def _person(name: str) -> str:
    from .bibtex import record_author

    return record_author(name)


def _arxiv(ident: Identifier, session) -> dict:
    import arxiv
    import requests

    client = arxiv.Client(page_size=1, delay_seconds=0, num_retries=0)
    client._session = session  # one transport for every source (and for the tests' mock)
    search = arxiv.Search(id_list=[ident.value])
    try:
        result = next(client.results(search), None)
    except (requests.RequestException, arxiv.HTTPError, arxiv.UnexpectedEmptyPageError) as err:
        if isinstance(err, arxiv.HTTPError) and 400 <= err.status < 500:
            raise NotFound(ident.value) from err
        raise Unreachable("export.arxiv.org") from err
    if result is None:
        raise NotFound(ident.value)
    ids = {"arxiv": ident.value}
    if result.doi:
        ids["doi"] = result.doi
    return {"title": " ".join(result.title.split()), "authors": [_person(a.name) for a in result.authors],
            "year": result.published.year, "venue": " ".join((result.journal_ref or "arXiv").split()),
            "abstract": " ".join(result.summary.split()), "identifiers": ids,
            "primaryclass": result.primary_category}


def _crossref(ident: Identifier, session) -> dict:
    data = _get(session, f"https://api.crossref.org/works/{ident.value}", "api.crossref.org").json()
    msg = data.get("message") or {}
    authors = []
    for a in msg.get("author") or []:
        if a.get("family"):
            authors.append(f"{a['family']}, {a.get('given', '')}".strip().rstrip(","))
        elif a.get("name"):
            from .bibtex import organisation

            authors.append(organisation(a["name"]))
    parts = ((msg.get("issued") or {}).get("date-parts") or [[None]])[0]
    abstract = re.sub(r"<[^>]+>", " ", msg.get("abstract") or "")
    out = {"title": " ".join(" ".join(msg.get("title") or [""]).split()), "authors": authors,
           "year": parts[0], "venue": " ".join(" ".join(msg.get("container-title") or [""]).split()) or msg.get("publisher", ""),
           "identifiers": {"doi": msg.get("DOI") or ident.value}, "crossref_type": msg.get("type", "")}
    if abstract.strip():
        out["abstract"] = " ".join(abstract.split())
    return out


def _openreview(ident: Identifier, session) -> dict:
    for base, versioned in (("https://api2.openreview.net", True), ("https://api.openreview.net", False)):
        data = _get(session, f"{base}/notes", base.split("//")[1], id=ident.value).json()
        notes = data.get("notes") or []
        if not notes:
            continue
        note = notes[0]
        content = note.get("content") or {}

        def value(name):
            item = content.get(name)
            return item.get("value") if versioned and isinstance(item, dict) else item

        millis = note.get("pdate") or note.get("odate") or note.get("cdate") or note.get("tcdate")
        import datetime

        year = datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.timezone.utc).year if millis else None
        out = {"title": " ".join(str(value("title") or "").split()), "authors": [_person(a) for a in value("authors") or []],
               "year": year, "venue": str(value("venue") or "OpenReview"), "identifiers": {"openreview": note.get("forum") or ident.value}}
        if value("abstract"):
            out["abstract"] = " ".join(str(value("abstract")).split())
        return out
    raise NotFound(ident.value)


def _acl(ident: Identifier, session) -> dict:
    from .bibimport import import_entries
    from .bibtex import parse

    text = _get(session, f"https://aclanthology.org/{ident.value}.bib", "aclanthology.org").text
    result = import_entries(parse(text, f"{ident.value}.bib"), f"{ident.value}.bib")
    if not result.papers:
        raise NotFound(ident.value)
    paper = result.papers[0]
    ids = dict(paper["identifiers"])
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
        Unreachable: the source could not be reached.
        NotFound: the source has no such paper.
    """
    if ident.scheme not in SOURCES:
        raise ValueError(f"no public source for {ident.scheme} identifiers")
    return SOURCES[ident.scheme][1](ident, session or _session())
