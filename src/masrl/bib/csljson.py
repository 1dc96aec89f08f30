"""``reports/papers.json``: the retained records as CSL-JSON, for Zotero and Pandoc.

Format: CSL input data v1.0 (https://resource.citationstyles.org/schema/v1.0/input/json/csl-data.json;
the tests validate the output against that schema). One item per retained
record, sorted by key; ``id`` and ``citation-key`` are the record key (the key
every table shows, as in ``reports/papers.bib``). Types follow the venue as in
the BibTeX export: conference -> ``paper-conference``, journal ->
``article-journal``, preprint -> ``article`` (with ``publisher: arXiv`` and the
arXiv id as ``number``), other -> ``webpage`` for a URL-only record, else ``document``.
Authors are ``{family, given}`` (``non-dropping-particle`` for ``von``,
``suffix`` for ``Jr``); an organisation is ``{literal}``. CSL has no marker for
an incomplete author list: ``others`` is left out. A record's abstract is left out:
it is the authors' text, kept in the corpus for screening, and a published report
carries only the survey's data (under its data licence).
"""

from __future__ import annotations

import json

from . import venues
from .bibexport import export_kind
from .bibtex import MONTHS, decode_latex, display_name, month_macro, name_parts


def csl_name(name: str) -> dict:
    """One record author as a CSL name object (:func:`masrl.bib.bibtex.name_parts`)."""
    parts = name_parts(name)
    if parts is None:
        return {"literal": display_name(name)}
    last, jr, first = parts
    out: dict = {}
    words = last.split(" ")
    particle = []
    while len(words) > 1 and words[0][:1].islower():
        particle.append(words.pop(0))
    out["family"] = " ".join(words)
    if first:
        out["given"] = first
    if particle:
        out["non-dropping-particle"] = " ".join(particle)
    if jr:
        out["suffix"] = jr
    return out


def csl_item(record: dict) -> dict:
    """One retained record as a CSL-JSON item."""
    bib = record.get("bibtex") or {}
    ids = record.get("identifiers") or {}
    kind = export_kind(record)
    item: dict = {"id": record["key"], "citation-key": record["key"]}
    container = decode_latex(str(bib.get("booktitle") or "")) or decode_latex(str(bib.get("journal") or ""))
    if kind == venues.CONFERENCE:
        item["type"] = "paper-conference"
        item["container-title"] = container if container and not container.lower().startswith("arxiv") else record["venue"]
    elif kind == venues.JOURNAL:
        item["type"] = "article-journal"
        item["container-title"] = container if container and not container.lower().startswith("arxiv") else record["venue"]
    elif kind == venues.PREPRINT:
        item["type"] = "article"
        item["genre"] = "Preprint"
        if ids.get("arxiv"):
            item["publisher"] = "arXiv"
            item["number"] = ids["arxiv"]
        else:
            item["publisher"] = record["venue"]
    else:
        item["type"] = "webpage" if set(ids) == {"url"} else "document"
        if venues.stated(str(record.get("venue", ""))):
            item["genre"] = record["venue"]
    item["title"] = record["title"]
    authors = [csl_name(a) for a in record.get("authors") or [] if a != "others"]
    if authors:
        item["author"] = authors
    date = [int(record["year"])]
    month = month_macro(bib.get("month"))  # 6, 06, June, Jun. and jun alike
    if month and str(bib.get("year", record["year"])) == str(record["year"]):
        date.append(MONTHS.index(month) + 1)
    item["issued"] = {"date-parts": [date]}
    for name, csl in (("volume", "volume"), ("number", "issue"), ("pages", "page"), ("publisher", "publisher")):
        if bib.get(name) and csl not in item:
            item[csl] = decode_latex(str(bib[name])).replace("--", "–")
    if ids.get("doi"):
        item["DOI"] = ids["doi"]
    if record.get("url"):
        item["URL"] = str(record["url"]).split(" ; ")[0]
    return item


def export(records: list[dict]) -> bytes:
    """``reports/papers.json``: a JSON array of CSL items sorted by key (UTF-8, 2-space indent, final newline)."""
    items = [csl_item(r) for r in sorted(records, key=lambda r: r["key"])]
    return (json.dumps(items, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
