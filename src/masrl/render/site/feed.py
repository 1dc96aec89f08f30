"""The catalogue's Atom 1.0 feed (``reports/site/feed.xml``): the records added to the living review,
newest first, so that readers learn of new papers in their feed reader.

Format: Atom 1.0, RFC 4287 (https://www.rfc-editor.org/rfc/rfc4287): a ``feed`` with ``id``,
``title``, ``updated``, ``author``, a ``link`` to the survey and a ``rel="self"`` link to the feed
itself (``<survey.site_url>/feed.xml`` when the taxonomy says where the site is published, else
``feed.xml``, which a reader resolves against the address it fetched the feed from); one ``entry`` per
record added since the first release (the survey as first published: a retained record that release
does not hold), whether a later release holds it or it is pending for the next one, so that a
release never empties the feed: at most :data:`ENTRIES`, newest ``date_added`` first. Without a
release every record is an entry. An entry has ``id``, ``title``, ``updated`` and ``published``
(the record's ``date_added``), its authors, a ``link`` to the paper (http(s) URLs only), its category
as ``category`` and a ``summary`` (authors, year, venue, one-liner, and the release it entered or
"pending"). Ids are the survey's arXiv URL with a fragment per record key
(``https://arxiv.org/abs/2605.02801#record-c3``; a survey not on arXiv: its site's address, else a
URN of its title, :func:`feed_base`), so an entry keeps its id across builds and releases and two
surveys' feeds never share one. Dates are days at 00:00 UTC; ``updated`` of the feed is the newest entry's or the latest
release's date, whichever is later: the same records give the same bytes. Text is stripped of
characters XML cannot hold (:func:`masrl.render.escape.xml_text`) and escaped by ElementTree.
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from ...bib import venues
from ..escape import xml_text
from .data import safe_url

ATOM = "http://www.w3.org/2005/Atom"


def _el(parent, tag: str, text: object = None, **attrs) -> ET.Element:
    node = ET.SubElement(parent, tag, {k: xml_text(v) for k, v in attrs.items()})
    if text is not None:
        node.text = xml_text(text)
    return node


def _full_name(author: str) -> str:
    """A record author as the site and the README show it (:func:`masrl.bib.bibtex.display_name`)."""
    from ...bib.bibtex import display_name

    return display_name(author)


#: The most entries the feed holds (the newest; feed readers keep what they have seen).
ENTRIES = 50


@dataclass(frozen=True)
class Release:
    """One release as the feed needs it: its ``name``, ``label``, ``date`` and the ``keys`` of the
    retained records it holds."""

    name: str
    label: str
    date: str
    keys: frozenset


def new_records(results, releases: list[Release]) -> list[tuple[dict, Release | None]]:
    """``(record, release it entered or None while pending)`` of every retained record of ``results``
    that the first of ``releases`` does not hold (every record without a release), newest
    ``date_added`` first, then by key; at most :data:`ENTRIES`."""
    first = releases[0].keys if releases else frozenset()
    records = sorted((r for r in results.retained_records if r["key"] not in first), key=lambda r: r["key"])
    records.sort(key=lambda r: str(r.get("date_added", "")), reverse=True)
    later = releases[1:]
    return [(r, next((rel for rel in later if r["key"] in rel.keys), None)) for r in records[:ENTRIES]]


def feed_base(survey: dict) -> str:
    """What the feed's ids are made of, one per survey: its arXiv abstract page, else the address its site is
    published at, else a URN of its title (two surveys' feeds never share an id, which readers merge)."""
    if survey.get("arxiv"):
        return f"https://arxiv.org/abs/{survey['arxiv']}"
    site = safe_url(str(survey.get("site_url", ""))) if survey.get("site_url") else None
    if site:
        return site.rstrip("/") + "/"
    title = " ".join(str(survey.get("title", "")).split())
    return f"urn:masrl:survey:{hashlib.sha256(title.encode('utf-8')).hexdigest()[:16]}"


def feed_xml(results, releases: list[Release]) -> bytes:
    """The feed's bytes for the pool's ``results`` and the ``releases`` of the review, in order."""
    tax = results.tax
    survey = tax.data.get("survey") or {}
    base = feed_base(survey)
    entries = new_records(results, releases)
    dates = [str(r.get("date_added")) for r, _ in entries[:1]] + ([releases[-1].date] if releases else [])
    updated = max(dates) if dates else "1970-01-01"
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    q = lambda tag: f"{{{ATOM}}}{tag}"  # noqa: E731 - element names in the Atom namespace
    _el(feed, q("id"), f"{base}#masrl-new-records")
    _el(feed, q("title"), f"New records: {survey.get('title', 'the paper pool')}")
    since = f"since {releases[0].label}" if releases else "in the pool"
    _el(feed, q("subtitle"), f"Records added to the living review {since}, newest first, in later releases and pending "
                             f"for the next (at most {ENTRIES}; generated by masrl build).")
    _el(feed, q("updated"), f"{updated}T00:00:00Z")
    author = _el(feed, q("author"))
    names = survey.get("authors") if isinstance(survey.get("authors"), list) else [survey.get("author", "masrl")]
    _el(author, q("name"), ", ".join(_full_name(str(n)) for n in names))
    site = safe_url(str(survey.get("site_url", ""))) if survey.get("site_url") else None
    page = (f"{site.rstrip('/')}/index.html" if site else None) or safe_url(str(survey.get("link") or "")) or safe_url(base)
    if page:
        _el(feed, q("link"), rel="alternate", type="text/html", href=page)
    _el(feed, q("link"), rel="self", type="application/atom+xml", href=f"{site.rstrip('/')}/feed.xml" if site else "feed.xml")
    _el(feed, q("generator"), "masrl build")
    for rec, entered in entries:
        entry = _el(feed, q("entry"))
        _el(entry, q("id"), f"{base}#record-{rec['key']}")
        _el(entry, q("title"), rec["title"])
        day = f"{rec.get('date_added', updated)}T00:00:00Z"
        _el(entry, q("updated"), day)
        _el(entry, q("published"), day)
        for name in [a for a in rec.get("authors") or [] if a != "others"] or ["unknown"]:
            _el(_el(entry, q("author")), q("name"), _full_name(name))
        link = next((safe_url(u) for u in str(rec.get("url") or "").split(" ; ") if safe_url(u)), None)
        if link:
            _el(entry, q("link"), rel="alternate", href=link)
        group = tax.role("included_by")  # the field that splits the included records: the entry's Atom category
        value = rec.get(group) if group else None
        if isinstance(value, str) and value != "untagged":
            _el(entry, q("category"), term=value, label=tax.fields[group].value_label(value))
        venue = venues.shown(str(rec.get("venue") or ""))
        one_liner = str(rec.get("one_liner") or "").strip()
        authors = [a for a in rec.get("authors") or [] if a != "others"]
        names = ", ".join(_full_name(a) for a in authors) + (" et al." if "others" in (rec.get("authors") or []) else "")
        text = f"{names} ({rec.get('year')})." + (f" {venue}." if venue else "")
        if one_liner and one_liner != "untagged":
            text += f" {one_liner}" + ("" if one_liner[-1] in ".!?" else ".")
        if releases:
            text += f" In {entered.label}." if entered else " Pending: enters the next release."
        _el(entry, q("summary"), text, type="text")
    ET.indent(feed)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8", xml_declaration=False) + b"\n"
