"""Rules of one record at a time: retained (``corpus/papers/*.yaml``) and excluded (``exclusions/*.yaml``).

Each public function is one rule of :data:`masrl.checks.validate.RULES`, called as
``rule(checker, file, record, kind)`` with ``kind`` ``retained`` or ``excluded`` for every
record of the kinds the rule lists.
"""

from __future__ import annotations

import datetime

import re
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

from ..bib.identifiers import STORED_PATTERNS, Identifier, IdentifierError, acl_problem, arxiv_category_problem, arxiv_problem, from_url, parse
from ..bib.bibtex import day_problem, month_macro
from ..bib.fetch import shown
from ..bib.standard_numbers import isbn_problem, issn_problem
from ..bib.urls import scheme_case_problem, url_problem
from ..corpus import provenance
from ..core.placeholders import author_problem, authors_problem, placeholder_problem
from ..corpus import schema as schemas
from ..corpus.load import EXCLUSIONS, PAPERS
from ..corpus.records import UNTAGGED
from .collector import _dotted
from ..core import clock

#: The free-text fields of each kind of record that must not be placeholders.
PLACEHOLDER_FIELDS = {"retained": ("title",), "excluded": ("screening_label", "exclusion_reason")}


class RecordSchema:
    """Each record against the JSON Schema derived from the taxonomy (built once per run)."""

    def __init__(self, tax):
        self.validators = {
            "retained": Draft202012Validator(schemas.retained_schema(tax), format_checker=FormatChecker()),
            "excluded": Draft202012Validator(schemas.excluded_schema(tax), format_checker=FormatChecker()),
        }

    def __call__(self, c, file: str, rec: dict, kind: str) -> None:
        c.schema_errors(file, rec, self.validators[kind])


def single_line_text(c, file: str, rec: dict, kind: str) -> None:
    """Single-line fields hold no line breaks or control characters (a trailing newline
    would leak into links, BibTeX keys and tables)."""
    multiline = MULTILINE | {f.name for f in c.tax.free_fields.values() if f.type == "multiline"}
    _text(c, file, rec, (), multiline)


def placeholders(c, file: str, rec: dict, kind: str) -> None:
    """Titles, reasons and authors hold real text, not a placeholder copied from an example
    (``TODO``, ``...``, ``Last, First``) or a name without a last name."""
    _placeholders(c, file, rec, PLACEHOLDER_FIELDS[kind])


#: masrl's free-text fields that may hold line breaks (and the survey's free fields of type ``multiline``).
MULTILINE = frozenset({"notes", "note", "one_liner", "exclusion_reason", "former_file"})


def _placeholders(c, file: str, rec: dict, fields: tuple[str, ...]) -> None:
    """Titles, reasons and authors hold real text, not a placeholder copied from an example
    (``TODO``, ``...``, ``Last, First``) or a name without a last name."""
    for name in fields:
        value = rec.get(name)
        if isinstance(value, str) and (why := placeholder_problem(value)):
            c.add(file, (name,), f"{why}; write the real text")
    authors = rec.get("authors")
    for i, author in enumerate(authors if isinstance(authors, list) else []):
        if isinstance(author, str) and author != "others" and (why := author_problem(author)):
            c.add(file, ("authors", i), f"{why}; write the real author")
    if isinstance(authors, list) and (why := authors_problem(authors)):
        c.add(file, ("authors",), why)


#: A character :func:`_text` refuses in a single-line field.
_LINE_BREAKING = re.compile("[\x00-\x1f\x7f\u2028\u2029\x85]")


def _text(c, file: str, value: Any, path: tuple, multiline: frozenset[str]) -> None:
    """Single-line fields hold no line breaks or control characters (a trailing newline
    would leak into links, BibTeX keys and tables)."""
    if isinstance(value, dict):
        for k, v in value.items():
            _text(c, file, v, path + (k,), multiline)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _text(c, file, v, path + (i,), multiline)
    elif isinstance(value, str) and _LINE_BREAKING.search(value) and not (set(path) & multiline):
        bad = _LINE_BREAKING.findall(value)
        if bad:
            c.add(file, path, f"{value!r} contains a line break or control character ({', '.join(f'U+{ord(ch):04X}' for ch in dict.fromkeys(bad))}); write it on one line")


def braces(c, file: str, rec: dict, kind: str) -> None:
    """BibTeX values must have balanced braces, or reports/papers.bib would not parse, and end in no lone backslash."""
    bib = rec.get("bibtex")
    for name, value in (bib.items() if isinstance(bib, dict) else []):
        if isinstance(value, str):
            depth = 0
            for i, ch in enumerate(value):
                if ch == "{" and (i == 0 or value[i - 1] != "\\"):
                    depth += 1
                elif ch == "}" and (i == 0 or value[i - 1] != "\\"):
                    depth -= 1
                if depth < 0:
                    break
            if depth != 0:
                c.add(file, ("bibtex", name), f"unbalanced braces in {value!r}; every {{ needs its }} (write \\{{ for a literal brace)")
            if (len(value.rstrip()) - len(value.rstrip().rstrip("\\"))) % 2:  # "\\" at the end is one backslash
                c.add(file, ("bibtex", name), f"{value!r} ends in a backslash, which would escape what papers.bib writes "
                                              "after it: write \\textbackslash{} for the character, or remove it")


def primary_class(c, file: str, rec: dict, kind: str) -> None:
    """A BibTeX ``primaryclass`` (an imported entry's, or the arXiv category masrl recorded) is one of
    arXiv's categories, as an answer of arXiv and a round's ``arxiv_category`` cell must be."""
    bib = rec.get("bibtex")
    value = bib.get("primaryclass") if isinstance(bib, dict) else None
    if isinstance(value, str) and (why := arxiv_category_problem(value.strip())):
        c.add(file, ("bibtex", "primaryclass"), why)


def bibtex_month(c, file: str, rec: dict, kind: str) -> None:
    """A BibTeX ``month`` names a month: 1 to 12, or its name or abbreviation (``jan``, ``January``, ``Jan.``), as
    biber reads it (``13`` became the date ``2024-13``)."""
    bib = rec.get("bibtex")
    value = bib.get("month") if isinstance(bib, dict) else None
    if value is None or isinstance(value, bool):
        return
    if month_macro(value) is None:
        c.add(file, ("bibtex", "month"), f"{value!r} is not a month; allowed: 1 to 12, or jan ... dec (a month's name "
                                         "or its first three letters)")


def bibtex_numbers(c, file: str, rec: dict, kind: str) -> None:
    """A BibTeX ``isbn`` or ``issn`` is one, by its form and check digit (biber: "ISBN ... is invalid"; papers.bib
    exports it as the block holds it); a field may hold several (``978-0-262-03561-3 0-262-03561-8``, separated by
    punctuation or blanks), with the labels and qualifiers exporters write (``eISBN``, ``ISSN-L``, ``(Print)``)."""
    bib = rec.get("bibtex")
    for name, problem in (("isbn", isbn_problem), ("issn", issn_problem)):
        value = bib.get(name) if isinstance(bib, dict) else None
        if isinstance(value, str) and (why := problem(value)):
            c.add(file, ("bibtex", name), why)


def bibtex_day(c, file: str, rec: dict, kind: str) -> None:
    """A BibTeX ``day`` (biblatex's) is a day of the block's month in the record's year (``41`` and February's ``30``
    are none, as ``date = {2020-02-30}`` is none); a day without a month is named too."""
    bib = rec.get("bibtex")
    value = bib.get("day") if isinstance(bib, dict) else None
    if value is None or isinstance(value, bool):
        return
    if why := day_problem(value, bib.get("year", rec.get("year")), bib.get("month")):
        c.add(file, ("bibtex", "day"), why)


def screening_date(c, file: str, rec: dict, kind: str) -> None:
    """The screening date of an exclusion lies between the taxonomy's first year and today (as ``masrl exclude
    --date`` refuses a day in the future)."""
    value = rec.get("date_screened")
    if isinstance(value, str) and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        today = clock.today_iso()
        if int(value[:4]) < c.tax.year_minimum:
            c.add(file, ("date_screened",), f"{value!r} is out of range; allowed: years {c.tax.year_minimum} to today")
        elif value > today:
            c.add(file, ("date_screened",), f"{value} is in the future (today is {today})")
        else:
            ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
            month = re.match(r"([0-9]{2})(0[1-9]|1[0-2])\.", str(ids.get("arxiv") or ""))
            first = datetime.date(2000 + int(month.group(1)), int(month.group(2)), 1) if month else None
            if first and value < (first - datetime.timedelta(days=1)).isoformat():  # a day of slack: time zones
                c.add(file, ("date_screened",), f"{value} is before {first:%Y-%m}, the month the arXiv id {ids['arxiv']} "
                                                "was given: the paper was not on arXiv to be screened yet")


def dates_after_paper(c, file: str, rec: dict, kind: str) -> None:
    """A record was screened and added no earlier than the year before the paper's ``year`` (a
    venue's year may be the one after its preprint was screened): ``date_screened: 2020-05-01`` for
    a paper of 2026 is a typo in one of the two."""
    year = rec.get("year")
    if not isinstance(year, int) or isinstance(year, bool) or year > clock.today().year + 1:
        return  # a year out of range is the schema's problem
    for name in ("date_screened", "date_added"):
        value = rec.get(name)
        if isinstance(value, str) and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value) and int(value[:4]) < year - 1:
            c.add(file, (name,), f"{value} is before {year - 1}, and the paper's year is {year}: a paper is screened once "
                                 "it is out (its venue's year may be the next one); fix the date or the year")


def file_name(c, file: str, rec: dict, kind: str) -> None:
    """A record's file is named after its key (retained) or record id (excluded)."""
    id_field, folder = ("key", PAPERS) if kind == "retained" else ("record_id", EXCLUSIONS)
    stem = file[len(folder):].rsplit(".", 1)[0]
    value = rec.get(id_field)
    valid = re.fullmatch(r"[a-z0-9][a-z0-9._-]*" if id_field == "key" else r"E[0-9]{3,}", value) if isinstance(value, str) else None
    if valid and value != stem:
        c.add(file, (id_field,), f"{value!r} does not match the file name '{file[len(folder):]}'; rename the file to '{value}.yaml' or fix the {id_field}")


def untagged(c, file: str, rec: dict, kind: str) -> None:
    """No controlled field of a retained record, and not its one-liner, is still ``untagged``."""
    for field in c.tax.of("retained"):
        value = rec.get(field.name)
        if value == UNTAGGED or (isinstance(value, list) and UNTAGGED in value):
            c.add(file, (field.name,), f"untagged: tag it with {'a list (possibly empty) of' if field.multi else 'one of'} {', '.join(field.values)}")
    if rec.get("one_liner") == UNTAGGED:
        c.add(file, ("one_liner",), "untagged: write a one-line summary of the paper")


def cross_fields(c, file: str, rec: dict, kind: str) -> None:
    """The rules between fields of one record (``na_iff``, ``required_when``, the value another
    field's value ``implies``); for an exclusion, on the tags it would have had (``if_retained``)."""
    if kind == "retained":
        _cross_fields(c, file, rec, ())
    elif isinstance(rec.get("if_retained"), dict):
        _cross_fields(c, file, rec["if_retained"], ("if_retained",), partial=True)


def _cross_fields(c, file: str, rec: dict, base: tuple, partial: bool = False) -> None:
    tax = c.tax
    na = tax.not_applicable
    for field in tax.of("retained"):
        name = field.name
        for other, na_value in (field.spec.get("na_iff") or {}).items():
            if na is None or name not in rec or other not in rec or UNTAGGED in (rec[name], rec[other]):
                continue
            if (rec[name] == na) != (rec[other] == na_value):
                if rec[name] == na:
                    allowed = ", ".join(v for v in field.values if v != na)
                    c.add(file, base + (name,), f"{na!r} but {other} is {rec[other]!r}; use one of {allowed}")
                else:
                    c.add(file, base + (name,), f"{rec[name]!r} but {other} is {na_value!r}; use {na!r}")
        cond = field.required_when
        if cond:
            applies = all(rec.get(f) in vals for f, vals in cond.items())
            what = " and ".join(f"{f} {', '.join(map(repr, vals))}" for f, vals in cond.items())
            if applies and name not in rec and not partial and field.required:
                c.add(file, base, f"required field is missing (required for {what})", field=_dotted(base + (name,)))
            elif not applies and name in rec and all(f in rec for f in cond):
                c.add(file, base + (name,), f"only records with {what} have this field; remove it")
    for field in tax.of("retained"):
        value = rec.get(field.name)
        if na is not None and field.multi and isinstance(value, list) and na in value and len(set(map(str, value))) > 1:
            c.add(file, base + (field.name,), f"lists {na!r} beside other values ({', '.join(map(str, value))}): {na!r} says "
                                              f"no value applies; give {[na]!r} alone, or the values without it")
        for code in (value if field.multi and isinstance(value, list) else [value]):
            if not isinstance(code, str):
                continue
            for other, implied in (field.value_spec(code).get("implies") or {}).items():
                chosen = rec.get(other)
                if chosen not in (None, UNTAGGED, implied):
                    c.add(file, base + (other,), f"{chosen!r} contradicts {field.name} {code!r}, which implies {implied!r}")


def urls(c, file: str, rec: dict, kind: str) -> None:
    """Links are http(s) URLs that validate (the BibTeX block's ``url`` too: papers.bib and the catalogue
    export it), and a landing page of a known scheme is written as its id."""
    urls = (rec.get("identifiers") or {}).get("url") if isinstance(rec.get("identifiers"), dict) else None
    links = rec.get("url").split(" ; ") if isinstance(rec.get("url"), str) else []
    told: set[str] = set()
    for path, url in [(("url",), u) for u in links] + [(("identifiers", "url", i), u) for i, u in
                                                       enumerate(urls if isinstance(urls, list) else [])]:
        why = url_problem(url) if isinstance(url, str) and re.fullmatch(r"https?://\S+", url) else None
        if why and url not in told:  # a stub's url is its identifiers.url: named once
            told.add(url)
            c.add(file, path, f"{shown(url)} {why}")
    bib = rec.get("bibtex")
    url = bib.get("url") if isinstance(bib, dict) else None
    if isinstance(url, str):  # exported to papers.bib and the catalogue as a link
        why = (url_problem(url) or scheme_case_problem(url)) if re.match(r"(?i)https?://", url) else "is not an http(s) URL"
        if why:
            c.add(file, ("bibtex", "url"), f"{shown(url)} {why}")
    ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
    for link in links:  # a page of a paper the record's identifiers name otherwise: which paper is it?
        try:
            ident = from_url(link)
            given = parse(str(ids[ident.scheme]), ident.scheme) if ident.scheme != "url" and ids.get(ident.scheme) else None
        except (IdentifierError, KeyError):
            continue  # a link or an id of the wrong form is named by its own rule
        if given is not None and given.key != ident.key:
            c.add(file, ("url",), f"{shown(link)} is the page of {ident.scheme} {ident.value}, but identifiers.{ident.scheme} "
                                  f"is {given.value}: a record is one paper; correct the one that is wrong")
    doi, acl = ids.get("doi"), ids.get("acl")
    if isinstance(doi, str) and isinstance(acl, str):  # an ACL Anthology DOI (10.18653/v1/<id>) names its ACL id
        named = Identifier("doi", doi).keys()[1:]
        if named and named[0] != Identifier("acl", acl).key:
            c.add(file, ("identifiers", "acl"), f"{acl!r}, but identifiers.doi {doi} is the DOI of ACL Anthology "
                                                f"{named[0].split(':', 1)[1]}: a record is one paper; correct the one "
                                                "that is wrong")
    for i, url in enumerate(urls if isinstance(urls, list) else []):
        if isinstance(url, str):
            try:
                ident = from_url(url)
            except IdentifierError:
                continue  # the schema reports it
            if ident.scheme == "url" and (own := c.tax.landing_id(url)):  # a scheme the survey declares (pmid)
                ident = Identifier(*own)
            if ident.scheme != "url":
                c.add(file, ("identifiers", "url", i), f"{url!r} is the landing page of {ident.scheme} id {ident.value!r}; write it as {ident.scheme}: {ident.value!r}")



_ARXIV_STORED = re.compile(STORED_PATTERNS["arxiv"])


def arxiv_dates(c, file: str, rec: dict, kind: str) -> None:
    """An arXiv id in its stored form names a month that has begun, or next month (arXiv's own time
    zone): ``9912.12345`` (December 2099) has the form of an id but names no paper. The form itself is
    the record schema's (:data:`masrl.bib.identifiers.STORED_PATTERNS`, rule D001)."""
    ids = rec.get("identifiers")
    value = ids.get("arxiv") if isinstance(ids, dict) else None
    if isinstance(value, str) and _ARXIV_STORED.match(value) and (why := arxiv_problem(value)):
        c.add(file, ("identifiers", "arxiv"), f"{value!r} is not an arXiv id: {why}")
    acl = ids.get("acl") if isinstance(ids, dict) else None  # and an ACL Anthology id names a year it gave such ids
    if isinstance(acl, str) and re.fullmatch(STORED_PATTERNS["acl"], acl) and (why := acl_problem(acl)):
        c.add(file, ("identifiers", "acl"), f"{acl!r} is not an ACL Anthology id: {why}")


def suggestion_provenance(c, file: str, rec: dict, kind: str) -> None:
    """A tag's provenance that starts as ``masrl suggest`` writes it is one of its two forms (confirmed, or not
    confirmed): any other text would be taken for a hand tag, and a release would freeze an unconfirmed one."""
    found = rec.get("tag_provenance")
    for name, text in (found.items() if isinstance(found, dict) else []):
        if isinstance(text, str) and text.lower().startswith(provenance.PREFIX.lower()) and provenance.state(text) is None:
            c.add(file, ("tag_provenance", name), f"{text[:120]!r} starts as masrl suggest's provenance but is neither of its "
                                                  f"forms ('{provenance.PREFIX}, ...), {provenance.CONFIRMED}' or "
                                                  f"'... {provenance.NOT_CONFIRMED}'): confirm the tag with `masrl suggest "
                                                  f"{rec.get('key')} --apply {name}=VALUE`, or write who tagged it")
