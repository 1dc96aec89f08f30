"""BibTeX/BibLaTeX entries -> papers for ``masrl add``, accounting for every field and block.

Reads what Zotero/Better BibTeX, DBLP, Semantic Scholar, arXiv, ACL Anthology,
OpenReview and Google Scholar export (formats: the BibTeX manual, "BibTeXing"
(Patashnik 1988), and the biblatex manual §2, §3.15 (crossref inheritance) and
§4.5 (aliases)):

* identifiers (:mod:`masrl.bib.identifiers`): ``eprint`` with ``archiveprefix`` or
  ``eprinttype`` = arXiv, or an ``eprint`` written ``arXiv:ID``; DBLP's CoRR
  ``volume = {abs/ID}``; ``journal = {arXiv preprint arXiv:ID}``; ``doi``
  (an arXiv or ACL DOI too); every URL of ``url``/``howpublished``;
* ``date`` (ISO 8601, also ranges) -> ``year`` and ``month``, each where the entry does not give it; a
  ``year``, ``month`` or ``day`` that the ``date`` contradicts, and a ``day`` that is no day of its month (or
  has none), is a problem of the entry; ``journaltitle``
  -> ``journal``; ``eprinttype`` -> ``archiveprefix`` (biblatex aliases);
* ``crossref``: the child inherits the fields it lacks (the parent's
  ``title`` becomes its ``booktitle``); an ``@proceedings`` entry, and an
  ``@book``/``@collection`` that another entry crossrefs, is a container, not
  a paper;
* authors: ``and others`` kept as ``others``; a braced corporate name stays one author;
  editors (also inherited through ``crossref``) kept in the ``bibtex`` block as ``editor``,
  or stored as the authors of an entry that has none (with a note).

Every field is either kept (in the record's fields or its ``bibtex`` block) or
named in a note; every block that is not imported is named with its line;
every problem of every entry is collected, each with the entry key and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..core.errors import Problem
from ..core.placeholders import FOOTNOTE_MARK, author_problem, authors_problem
from . import bibtex, identifiers, venues
from .bibtex import BIBTEX_TYPES, BibEntry
from .latex import stacked_accents, unread_macros
from .matching import with_subtitle

#: Fields exporting tools add for their own bookkeeping; not kept, and named in a note.
BOOKKEEPING = ("timestamp", "biburl", "bibsource", "file", "added-at", "interhash", "intrahash", "owner",
               "creationdate", "modificationdate", "date-added", "date-modified", "groups", "ranking", "readstatus",
               "printed", "priority", "qualityassured", "relevance")
#: ... and the prefixes of a reference manager's own fields (BibDesk's bdsk-url-1, Mendeley's mendeley-groups).
BOOKKEEPING_PREFIXES = ("bdsk-", "mendeley-", "jabref-", "zotero-", "citavi-", "papers2_")

#: Entry types that are containers of other entries when crossref'd (biblatex §2.1.1).
_CONTAINERS = ("book", "mvbook", "collection", "mvcollection", "reference", "mvreference", "periodical",
               "proceedings", "mvproceedings")

#: Fields a crossref child never inherits (biblatex §3.15, "never inherited").
_NOT_INHERITED = {"ids", "crossref", "xref", "entryset", "entrysubtype", "execute", "label", "options", "presort",
                  "related", "relatedoptions", "relatedstring", "relatedtype", "shorthand", "shorthandintro",
                  "sortkey", "title", "subtitle", "titleaddon", "shorttitle", "sorttitle", "indextitle", "indexsorttitle"}

_DATE = re.compile(r"^(?P<y>[0-9]{4})(?:-(?P<m>[0-9]{2})(?:-(?P<d>[0-9]{2}))?)?(?:/.*)?$")
_ARXIV_JOURNAL = re.compile(r"^\s*(?:arxiv(?: preprint)?|corr|arxiv e-prints|arxiv\.org)\b", re.IGNORECASE)


@dataclass
class ImportResult:
    """What one BibTeX file gives.

    Attributes:
        papers: valid papers in file order (dicts: title, authors, year, venue,
            identifiers, url, bibtex_key, bibtex, abstract?, source, origin, key, line).
        refused: ``(entry key, line, [Problem])`` for every entry that cannot be imported.
        notes: what is not kept or not imported, as problems-shaped notes (file, line, field, message).
        problems: blocks that could not be parsed at all.
        partial: entry key -> the paper of a refused entry, what it lacks given a stand-in (its other
            problems are found as a record's: every problem is named in one run).
    """

    papers: list[dict] = field(default_factory=list)
    refused: list[tuple[str, int, list[Problem]]] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    raw: dict[str, str] = field(default_factory=dict)
    partial: dict[str, dict] = field(default_factory=dict)


def _inherit(child: BibEntry, parent: BibEntry) -> list[str]:
    """Copy into ``child`` what it lacks from ``parent`` (biblatex defaults); the names inherited."""
    got = []
    if "title" in parent.fields and "booktitle" not in child.fields and child.type.startswith(("in", "bookin", "suppbook")):
        child.fields["booktitle"] = parent.fields["title"]
        got.append("booktitle (the container's title)")
    for name, value in parent.fields.items():
        if name in _NOT_INHERITED or name in child.fields:
            continue
        child.fields[name] = value
        got.append(name)
    for role, names in parent.names.items():
        if role not in child.names:
            child.names[role] = list(names)
            got.append(role)
    return got


def _year_month(fields: dict[str, str]) -> tuple[str | None, str | None, str | None, list[tuple[str, str]]]:
    """``(year, month macro, note, problems)`` from ``year``/``month``/``day``/``date``: the note names what the date
    loses; each problem (``(field, message)``) a date that names no day of the calendar, or a ``year``, ``month`` or
    ``day`` that the ``date`` contradicts (which one did the paper appear in?), or a ``day`` that is no day of its
    month (:func:`masrl.bib.bibtex.day_problem`). A year and a month come from one field each: the date gives those
    its entry does not."""
    year = fields.get("year", "").strip()
    if re.fullmatch(r"[{}\s]*[0-9]{4}[{}\s]*", year):  # year = {{2020}}: BibTeX reads 2020
        year = year.strip("{} \t\n")
    date = fields.get("date", "").strip()
    written = fields.get("month", "").strip()
    month, note, problems = None, None, []
    if date:
        match = _DATE.match(date)
        if not match:
            return year or None, None, f"date {date!r} is not an ISO date YYYY[-MM[-DD]]: not kept", []
        if not _real_date(match):
            return year or match.group("y"), None, None, [("date", f"date {date!r} names no day of the calendar "
                                                                    "(YYYY[-MM[-DD]])")]
        dated_month = match.group("m") and bibtex.MONTHS[int(match.group("m")) - 1]
        said = {"year": (year if re.fullmatch(r"[0-9]{4}", year) else None, match.group("y")),
                "month": (bibtex.month_macro(written) if written else None, dated_month),
                "day": (fields.get("day", "").strip().strip("{}").lstrip("0"), (match.group("d") or "").lstrip("0"))}
        for name, (given, dated) in said.items():
            if given and dated and given != dated:
                problems.append(("date", f"{name} {fields[name].strip()!r} and date {date!r} disagree: which is the "
                                         f"paper's? write one of them (or the same {name} in both)"))
        if problems:
            return year or match.group("y"), None, None, problems
        year = year or match.group("y")
        month = None if written else dated_month
        if match.group("d") or "/" in date:
            kept = bibtex.month_macro(written) if written else month
            note = f"date {date!r} kept as year {year}" + (f", month {kept}" if kept else "") + " (the day/range is not kept)"
    if fields.get("day", "").strip() and (why := bibtex.day_problem(fields["day"], year, written or month)):
        problems.append(("day", why))
    return year or None, month, note, problems


#: A month with its day, as BibTeX's documentation writes it (``June~15``, ``jun 15``, ``15~jun``).
_MONTH_DAY = re.compile(r"\s*(?:(?P<name>[A-Za-z]+\.?)[~\s]+[0-9]{1,2}|[0-9]{1,2}[~\s]+(?P<after>[A-Za-z]+\.?))\s*")


def _real_date(match: re.Match) -> bool:
    """Whether a matched ISO date's month and day exist (``2026-02-30`` and ``2026-13`` do not)."""
    import datetime

    try:
        datetime.date(int(match.group("y")), int(match.group("m") or 1), int(match.group("d") or 1))
    except ValueError:
        return False
    return True


#: A character that LaTeX would read as a command, written escaped in a .bib's ``doi``, ``eprint`` or URL (DBLP
#: writes ``10.1007/978-3-030-58452-8\_13``): the id holds the character itself.
_ESCAPED = re.compile(r"\\([_%&#$])")


def entry_identifiers(fields: dict[str, str]) -> tuple[list[identifiers.Identifier], list[str]]:
    """Every identifier written in one entry's fields, in the order found, and the
    problems (``field: message``) of fields that claim an id but hold none (``\\_`` and the like read as
    the character: :data:`_ESCAPED`)."""
    found: list[identifiers.Identifier] = []
    bad: list[str] = []
    fields = {**fields, **{name: _ESCAPED.sub(r"\1", fields[name]) for name in ("eprint", "doi", "url") if name in fields}}
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip().lower()
    eprint = fields.get("eprint", "").strip()
    if eprint:
        looks_arxiv = prefix == "arxiv" or (not prefix and (eprint.lower().startswith("arxiv:") or identifiers.looks_like_arxiv(eprint)))
        if looks_arxiv:
            try:
                found.append(identifiers.parse(eprint, "arxiv"))
            except identifiers.IdentifierError as err:
                bad.append(f"eprint: {err}")
    if mendeley := fields.get("arxivid", "").strip():  # Mendeley's arxivId, beside or in place of eprint
        try:
            found.append(identifiers.parse(mendeley, "arxiv"))
        except identifiers.IdentifierError as err:
            bad.append(f"arxivid: {err}")
    journal = fields.get("journal") or fields.get("journaltitle") or ""
    volume = fields.get("volume", "")
    if _ARXIV_JOURNAL.match(journal):
        match = re.search(r"(?:arxiv:\s*|abs/)(\S+?)[,;]?(?:\s|$)", journal + " " + ("abs/" + volume[4:] if volume.lower().startswith("abs/") else ""), re.IGNORECASE)
        if match:
            try:
                found.append(identifiers.parse(match.group(1), "arxiv"))
            except identifiers.IdentifierError as err:
                bad.append(f"journal/volume: {err}")
    for name in ("doi",):
        value = fields.get(name, "").strip()
        if value:
            try:
                found.append(identifiers.parse(value, "doi"))
            except identifiers.IdentifierError as err:
                bad.append(f"doi: {err}")
    for name in ("url", "howpublished", "note"):
        text = fields.get(name, "")
        urls = re.findall(r"\\url\{([^}]*)\}", text) or re.findall(r"https?://[^\s,;{}]+", text)
        for url in map(lambda url: _ESCAPED.sub(r"\1", url), urls):
            try:
                ident = identifiers.from_url(url)
            except identifiers.IdentifierError:
                continue
            if name == "note" and ident.scheme == "url":
                continue  # a note's links are kept in the note, not as landing pages
            found.append(ident)
            doi = identifiers.doi_in_url(url) if ident.scheme == "url" else None
            if doi:
                found.append(identifiers.parse(doi, "doi"))
    return found, bad


def _venue(entry: BibEntry, fields: dict[str, str], ids: list[identifiers.Identifier]) -> str:
    """The display venue: booktitle, journal (an arXiv journal line -> ``arXiv``), a
    non-URL howpublished, an arXiv eprint -> ``arXiv``, else publisher/institution/school."""
    journal = fields.get("journal", "")
    if fields.get("eventtitle"):
        return bibtex.decode_latex(fields["eventtitle"])
    if fields.get("booktitle"):
        return bibtex.decode_latex(fields["booktitle"])
    if journal and not _ARXIV_JOURNAL.match(journal):
        return bibtex.decode_latex(journal)
    how = fields.get("howpublished", "")
    if how and "http" not in how and "\\url" not in how:
        return "arXiv" if _ARXIV_JOURNAL.match(how) else bibtex.decode_latex(how)
    if journal or any(i.scheme == "arxiv" for i in ids):
        return "arXiv"
    for name in ("publisher", "institution", "school", "organization"):
        if fields.get(name):
            return bibtex.decode_latex(fields[name])
    return venues.TYPE_LABELS.get(entry.type, "unpublished")


def import_entries(parsed: bibtex.ParsedFile, file: str) -> ImportResult:
    """Turn parsed entries into papers; every problem of every entry is collected."""
    result = ImportResult(problems=list(parsed.problems))
    for line, what in parsed.other_blocks:
        result.notes.append(Problem(file, line, None, f"not imported: {what}"))
    by_key = {e.key.lower(): e for e in parsed.entries}
    children: dict[str, list[str]] = {}
    for entry in parsed.entries:
        target = entry.fields.get("crossref", "").strip().lower()
        if target:
            children.setdefault(target, []).append(entry.key)
    for entry in parsed.entries:
        result.raw[entry.key] = entry.raw
        if entry.type in ("proceedings", "mvproceedings") or (entry.type in _CONTAINERS and entry.key.lower() in children):
            users = ", ".join(children.get(entry.key.lower(), [])) or "no entry of this file"
            result.notes.append(Problem(file, entry.line, None, f"not imported: entry '{entry.key}' (@{entry.type}) is a container "
                                        f"(crossref'd by {users}), not a paper; its fields are inherited by the entries that crossref it"))
            continue
        paper, problems, notes = _paper(entry, by_key, file)
        result.notes.extend(notes)
        if problems:
            result.refused.append((entry.key, entry.line, problems))
            # checked as a record too, what it lacks given a stand-in (each already named above)
            result.partial[entry.key] = {**paper, "title": paper["title"] or "(no title)",
                                         "authors": paper["authors"] or ["others"]}
        else:
            result.papers.append(paper)
    return result


def _paper(entry: BibEntry, by_key: dict[str, BibEntry], file: str) -> tuple[dict, list[Problem], list[Problem]]:
    problems: list[Problem] = []
    notes: list[Problem] = []

    def bad(fld: str | None, message: str) -> None:
        problems.append(Problem(file, entry.line, fld, f"entry '{entry.key}': {message}"))

    def note(message: str) -> None:
        notes.append(Problem(file, entry.line, None, f"entry '{entry.key}': {message}"))

    entry = BibEntry(entry.key, entry.type, entry.line, dict(entry.fields), {k: list(v) for k, v in entry.names.items()},
                     list(entry.undefined), entry.raw)
    if entry.type not in BIBTEX_TYPES:
        bad(None, f"entry type @{entry.type} is not a BibTeX or BibLaTeX type; allowed: {', '.join(sorted(BIBTEX_TYPES))}")
    for fld, macro in entry.undefined:
        if "%" in macro:
            bad(fld, f"the value {macro!r} holds a '%' comment, which BibTeX does not read inside an entry (it stops "
                     "there with an error): move the comment out of the entry, or write the value in braces")
            continue
        bad(fld, f"@string macro '{macro}' is not defined before it is used in this file (define it with an @string "
                 "above its first use, or write the value in braces)")
    target = entry.fields.pop("crossref", "").strip()
    if target:
        parent = by_key.get(target.lower())
        chain, step = [entry.key], parent
        while step is not None and step.key.lower() not in (k.lower() for k in chain):  # biber: "circular inheritance"
            chain.append(step.key)
            following = step.fields.get("crossref", "").strip().lower()
            step = by_key.get(following) if following else None
        if parent is None:
            note(f"crossref '{target}' is not in this file: nothing inherited")
        elif step is not None:
            bad("crossref", f"crossref '{target}' leads back to '{step.key}' ({' -> '.join([*chain, step.key])}): an entry "
                            "inherits from a container, never from itself; point it at the container")
        else:
            got = _inherit(entry, parent)
            note(f"crossref '{target}' resolved: inherited {', '.join(got) if got else 'nothing'}")
    f = entry.fields
    if "journaltitle" in f and "journal" not in f:
        f["journal"] = f.pop("journaltitle")
    if "eprinttype" in f and "archiveprefix" not in f:
        f["archiveprefix"] = f.pop("eprinttype")
    dropped = [name for name in f if name in BOOKKEEPING or name.startswith(BOOKKEEPING_PREFIXES)]
    for name in dropped:
        del f[name]
    if dropped:
        note(f"not kept: {', '.join(dropped)} (bookkeeping of the exporting tool)")

    for name, value in sorted(f.items()):
        if isinstance(value, str) and (why := bibtex.too_deep(value)):
            bad(name, f"{name} {why}")
    title = with_subtitle(bibtex.decode_latex(f.get("title", "")), bibtex.decode_latex(f.get("subtitle", "")))
    if not title:
        bad("title", "has no title")
    elif stacked := stacked_accents(f.get("title", "")):
        bad("title", f"title {bibtex.stacked_problem(f.get('title', ''), stacked)}")
    elif lost := unread_macros(f.get("title", "")):  # a paper's own macro (\mysystem{}): its word is not in the title
        note(f"title: {', '.join(lost)} is no macro masrl can read, so the title is {title!r} without it: write its "
             "word in the record's title")
    authors_raw = entry.names.get("author") or []
    if not authors_raw and entry.names.get("editor"):
        authors_raw = entry.names["editor"]
        note("has no author: its editors are stored as authors")
    authors, shape = [], []  # shape: every name, 'others' where it is one, for the list's own rule
    for name in authors_raw:
        try:
            authors.append(_checked_author(name))
            shape.append(authors[-1])
        except ValueError as err:
            bad("author", str(err))
            shape.append(name)
    if not authors_raw:
        bad("author", "has no author")
    elif why := authors_problem(shape):
        bad("author", why)  # 'others' not last: named with the names' own problems, at once
    elif entry.names.get("editor"):  # kept in the block (LaTeX source), exported as is; with no author, it says the
        f["editor"] = " and ".join(entry.names["editor"])  # record's authors are its editors (papers.bib: editor =)
    year, month, date_note, date_problems = _year_month(f)
    for fld, message in date_problems:
        bad(fld, message)
    if date_note:
        note(date_note)
    if not year or not re.fullmatch(r"[0-9]{4}", year):
        bad("year", f"needs a four-digit year (year or date), got {year or f.get('date') or 'nothing'!r}")
    f.pop("date", None)
    if year:
        f["year"] = year
    if month and "month" not in f:
        f["month"] = month
    elif f.get("month") and bibtex.month_macro(f["month"]) is None and (day := _MONTH_DAY.fullmatch(f["month"])):
        said = day.group("name") or day.group("after")
        if macro := bibtex.month_macro(said):  # month = jun # "~15" (btxdoc's way to give the day)
            note(f"month {f['month']!r} kept as {macro} (the day is not kept)")
            f["month"] = macro

    for name in ("eprint", "doi", "url"):  # kept in the record's block as the id: the character, not its escape
        if name in f:
            f[name] = _ESCAPED.sub(r"\1", f[name])
    ids, id_problems = entry_identifiers(f)
    for message in id_problems:
        fld, _, msg = message.partition(": ")
        bad(fld, msg)
    for scheme, first, other in identifiers.conflicts(ids):
        bad("identifiers", f"names two different {scheme} ids, {first} and {other}: which paper is it?")
    if "arxivid" in f and not id_problems:
        note(f"arxivid {f.pop('arxivid')} read as the arXiv id (papers.bib writes it as eprint)")
    mapping = identifiers.as_mapping(ids)
    if not mapping and not id_problems:
        bad("identifiers", "has no identifier: give eprint (arXiv id), doi, or url")

    aliases = [a.strip() for a in f.pop("ids", "").split(",") if a.strip()]
    if dropped := [k for k in dict.fromkeys([entry.key, *aliases[1:]]) if aliases and k != aliases[0]]:
        note(f"ids: {aliases[0]} is kept as its BibTeX key (papers.bib's alias of the record's key); a record keeps one, "
             f"so {', '.join(dropped)} {'is' if len(dropped) == 1 else 'are'} not kept: cite the record by its key or "
             f"{aliases[0]}")
    abstract = bibtex.collapse(bibtex.decode_latex(f.pop("abstract"))) if f.get("abstract") else None
    # BibTeX's own field "type" (a report's or thesis's kind: "Technical Report") is no entry type: kept apart
    if "type_field" in f:
        bad("type_field", "is masrl's name for BibTeX's field type, which a record keeps apart from its entry type: "
                          "write the field as type")
    block = {"type": entry.type, **{("type_field" if k == "type" else k): v for k, v in f.items()}}
    paper = {
        "title": title, "authors": authors, "year": int(year) if year and re.fullmatch(r"[0-9]{4}", year) else 0,
        "venue": _venue(entry, f, ids), "identifiers": mapping, "bibtex_key": aliases[0] if aliases else entry.key,
        "bibtex": block, "entry_key": entry.key, "line": entry.line,
    }
    if abstract:
        paper["abstract"] = abstract
    return paper, problems, notes




def _checked_author(name: str) -> str:
    """One author as the record keeps it; ValueError naming a malformed name."""
    from bibtexparser.middlewares.names import (
        InvalidNameError,
        parse_single_name_into_parts,
    )

    if not name:
        raise ValueError("holds an empty name: 'and' twice in a row, or at the start or end of the list")
    name = bibtex.extended_name(name)  # biblatex's family=Smith, given=John
    if mark := FOOTNOTE_MARK.search(name):  # an affiliation's mark glued to the name ('J\textsuperscript{1}' is 'J1')
        raise ValueError(f"{name!r} holds {mark.group()!r}, a footnote or affiliation mark: write the name alone")
    if why := bibtex.unread_name_problem(name):  # its letters would be lost without a word
        raise ValueError(why)
    if name != "others" and not bibtex._braced_whole(name):
        try:
            parse_single_name_into_parts(name)
        except InvalidNameError as err:  # said in masrl's words where it has them ("more than two commas")
            raise ValueError(author_problem(name) or f"cannot read the name {name!r}: {err}") from err
        if name.split(",", 1)[0].strip() == "" and "," in name:
            raise ValueError(f"{name!r} has no last name (write \"Last, First\")")
    author = bibtex.record_author(name)
    if author != "others" and (why := author_problem(author)):
        raise ValueError(why)
    return author
