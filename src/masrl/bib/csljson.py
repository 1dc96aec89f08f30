"""``reports/papers.json``: the retained records as CSL-JSON, for Zotero and Pandoc.

Format: CSL input data v1.0 (https://resource.citationstyles.org/schema/v1.0/input/json/csl-data.json;
the tests validate the output against that schema). One item per retained
record, sorted by key; ``id`` and ``citation-key`` are the record key (the key
every table shows, as in ``reports/papers.bib``). Each item is of the kind of the
record's entry in ``reports/papers.bib`` (:func:`masrl.bib.bibexport.entry_fields`, one
reading for both): ``@inproceedings`` -> ``paper-conference``, ``@article`` ->
``article-journal``; a thesis -> ``thesis``, a report -> ``report``, a book ->
``book``, a chapter (``@incollection``, ``@inbook``) -> ``chapter`` with its book as
``container-title`` and its ``editor``s; the school, institution or publisher is the
``publisher``, the kind of thesis or report (``PhD thesis``, ``Research report``) the
``genre``. A ``@misc`` of a preprint -> ``article`` (with ``publisher: arXiv`` and the
arXiv id as ``number``; a submission's venue, ``Submitted to NeurIPS 2025``, as its
``genre``, never as a publisher), else ``webpage`` for a URL-only record, else ``document``.
Authors are ``{family, given}`` (``non-dropping-particle`` for ``von``,
``suffix`` for ``Jr``); an organisation is ``{literal}``. CSL has no marker for
an incomplete author list: ``others`` is left out. A record's abstract is left out:
it is the authors' text, kept in the corpus for screening, and a published report
carries only the survey's data (under its data licence).
"""

from __future__ import annotations

import json
import re

from . import venues
from .bibexport import editors_are_authors, entry_fields, export_kind
from .bibtex import MONTHS, decode_latex, display_name, month_macro, name_parts, record_author
from .namelist import split_names
from .standard_numbers import first_number


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


#: The CSL types of BibTeX's entry types beyond ``@inproceedings``, ``@article`` and ``@misc`` (as Pandoc reads
#: them), each type's field that names its publisher, and the genre of a thesis or report that names no kind.
_CSL_TYPES = {"phdthesis": "thesis", "mastersthesis": "thesis", "techreport": "report", "book": "book",
              "proceedings": "book", "manual": "book", "booklet": "pamphlet", "incollection": "chapter",
              "inbook": "chapter", "unpublished": "manuscript"}
_PUBLISHER = {"phdthesis": "school", "mastersthesis": "school", "techreport": "institution", "manual": "organization"}
_GENRES = {"phdthesis": "PhD thesis", "mastersthesis": "Master's thesis", "techreport": "Technical report"}
_LINK = re.compile(r"(;\s*)?\\url\{[^{}]*\}")


def _text(value: object) -> str:
    """A field of the BibTeX export as text: decoded, without the ``\\url{...}`` links it may add."""
    return decode_latex(_LINK.sub("", str(value or "")).strip(" ;"))


def _editors(value: object) -> list[dict]:
    """A BibTeX name list (``editor``) as CSL names (``others`` left out, as of authors)."""
    names = [record_author(name) for name in split_names(str(value or "")) if name]
    return [csl_name(name) for name in names if name != "others"]


def csl_item(record: dict) -> dict:
    """One retained record as a CSL-JSON item, of the kind its entry in ``reports/papers.bib`` is
    (:func:`masrl.bib.bibexport.entry_fields`)."""
    bib = record.get("bibtex") or {}
    ids = record.get("identifiers") or {}
    etype, fields = entry_fields(record)
    item: dict = {"id": record["key"], "citation-key": record["key"]}
    container = decode_latex(str(bib.get("booktitle") or "")) or decode_latex(str(bib.get("journal") or ""))
    if etype == "inproceedings":
        item["type"] = "paper-conference"
        item["container-title"] = container if container and not container.lower().startswith("arxiv") else record["venue"]
    elif etype == "article":
        item["type"] = "article-journal"
        item["container-title"] = container if container and not container.lower().startswith("arxiv") else record["venue"]
    elif etype in _CSL_TYPES:  # a thesis, report, book or chapter: its school, institution or publisher publishes it
        item["type"] = _CSL_TYPES[etype]
        genre = _text(fields.get("type_field")) if etype in _GENRES else ""
        if genre or etype in _GENRES:
            item["genre"] = genre or _GENRES[etype]
        if fields.get(_PUBLISHER.get(etype, "publisher")):
            item["publisher"] = _text(fields[_PUBLISHER.get(etype, "publisher")])
        if item["type"] == "chapter" and fields.get("booktitle"):
            item["container-title"] = _text(fields["booktitle"])
        if item["type"] == "chapter" and (editors := _editors(fields.get("editor"))):
            item["editor"] = editors
        if fields.get("address"):
            item["publisher-place"] = _text(fields["address"])
    elif export_kind(record) == venues.PREPRINT:
        item["type"] = "article"
        said = _text(fields.get("howpublished"))
        item["genre"] = said if venues.submitted(said) else "Preprint"  # a submission names where, not who publishes
        if ids.get("arxiv"):
            item["publisher"] = "arXiv"
            item["number"] = ids["arxiv"]
        elif not venues.submitted(said):
            item["publisher"] = record["venue"]
    else:
        item["type"] = "webpage" if set(ids) == {"url"} else "document"
        if venues.shown(str(record.get("venue", ""))):  # "Tech Report", "Documentation": the kind of work it is
            item["genre"] = record["venue"]
    item["title"] = record["title"]
    authors = [csl_name(a) for a in record.get("authors") or [] if a != "others"]
    if authors:
        item["editor" if editors_are_authors(record) else "author"] = authors
    date = [int(record["year"])]
    month = month_macro(bib.get("month"))  # 6, 06, June, Jun. and jun alike
    if month and str(bib.get("year", record["year"])) == str(record["year"]):
        date.append(MONTHS.index(month) + 1)
    item["issued"] = {"date-parts": [date]}
    number = "number" if item["type"] == "report" else "issue"  # a report's number is its own, not an issue's
    for name, csl in (("volume", "volume"), ("number", number), ("pages", "page"), ("publisher", "publisher")):
        if bib.get(name) and csl not in item:
            item[csl] = decode_latex(str(bib[name])).replace("--", "–")
    if ids.get("doi"):
        item["DOI"] = ids["doi"]
    for name in ("isbn", "issn"):  # CSL's ISBN and ISSN: one number each, as papers.bib writes it
        if isinstance(bib.get(name), str) and (number := first_number(bib[name], name)):
            item[name.upper()] = number
    if record.get("url"):
        item["URL"] = str(record["url"]).split(" ; ")[0]
    return item


def export(records: list[dict]) -> bytes:
    """``reports/papers.json``: a JSON array of CSL items sorted by key (UTF-8, 2-space indent, final newline)."""
    items = [csl_item(r) for r in sorted(records, key=lambda r: r["key"])]
    return (json.dumps(items, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
