"""BibTeX in and out, with bibtexparser 2.x; LaTeX <-> Unicode with pylatexenc.

* :func:`parse` reads BibTeX text into plain entry dicts. A block bibtexparser
  cannot parse (broken braces, a duplicate entry key, a duplicate field) is a
  :class:`~masrl.errors.Problem` naming the block's line, never a silent drop.
* Records keep what the BibTeX gives: the raw field values (LaTeX source,
  protective braces kept, whitespace runs collapsed) in ``record["bibtex"]``,
  and the author list decoded to Unicode in ``record["authors"]`` for display
  (``Mialon, Grégoire``, not ``Mialon, Gr\\'{e}goire``).
* :func:`export` writes ``reports/papers.bib`` with bibtexparser's writer:
  entries sorted by BibTeX key, fields in :data:`FIELD_ORDER`, authors
  re-encoded to LaTeX, values of new records (no raw BibTeX) LaTeX-escaped.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from .errors import Problem

#: Order of fields in exported entries (others follow alphabetically).
FIELD_ORDER = (
    "title", "author", "journal", "booktitle", "howpublished", "volume", "number", "pages",
    "year", "doi", "url", "note",
)

#: BibTeX fields copied into ``record["bibtex"]`` (``author`` goes to ``record["authors"]``).
KEPT_FIELDS = tuple(f for f in FIELD_ORDER if f != "author")

logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)


def _collapse(value: str) -> str:
    return " ".join(value.split())


@lru_cache(maxsize=1)
def _decoder():
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


@lru_cache(maxsize=1)
def _encoder():
    from pylatexenc.latexencode import RULE_REGEX, UnicodeToLatexConversionRule, UnicodeToLatexEncoder

    return UnicodeToLatexEncoder(
        conversion_rules=[
            UnicodeToLatexConversionRule(RULE_REGEX, [(re.compile(r"(https?://\S+)"), r"\\url{\1}")]),
            "defaults",
        ],
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


def decode_latex(text: str) -> str:
    """LaTeX source to display text: ``Gr\\'{e}goire`` -> ``Grégoire``, ``{LLM}`` -> ``LLM``."""
    if "\\" not in text and "{" not in text and "$" not in text:
        return text
    return _collapse(_decoder().latex_to_text(text))


def encode_latex(text: str) -> str:
    """Display text to LaTeX-safe source: ``&%$#_{}~^\\`` escaped, accents as macros, URLs in ``\\url``."""
    return _encoder().unicode_to_latex(text)


def encode_author(name: str) -> str:
    """One author (Unicode, ``Last, First``) as BibTeX: accents encoded; a name
    without a comma (an organisation such as ``Kimi Team``) is braced so BibTeX
    keeps it whole; the marker ``others`` stays bare."""
    if name == "others":
        return name
    encoded = encode_latex(name)
    if "," not in name and " " in name.strip():
        return "{" + encoded + "}"
    if "," not in name and not name.isascii():
        return "{" + encoded + "}"
    return encoded


def _last_first(name: str) -> str:
    """One BibTeX name in ``Last, First`` form: ``Jane Doe`` -> ``Doe, Jane``,
    ``Ludwig van Beethoven`` -> ``van Beethoven, Ludwig`` (bibtexparser's name
    parts); a name already written with a comma, a braced organisation
    (``{Kimi Team}``) and ``others`` are kept as written."""
    from bibtexparser.middlewares.names import parse_single_name_into_parts

    if "," in name or name == "others" or (name.startswith("{") and name.endswith("}")):
        return name
    try:
        return parse_single_name_into_parts(name).merge_last_name_first
    except Exception:  # bibtexparser raises InvalidNameError on malformed names; keep them as written
        return name


def parse(text: str, file: str) -> tuple[list[dict], list[Problem]]:
    """Parse BibTeX text.

    Returns:
        ``(entries, problems)``; each entry is ``{"key", "type", "line", "fields",
        "authors"}``: ``line`` 1-based, ``fields`` the raw values (outer braces
        removed, whitespace collapsed, lower-case names) of the entry, ``authors``
        the ``author`` field split on ``and`` and decoded to Unicode.
        Every failed block (bibtexparser's ``failed_blocks``) becomes a problem
        ``FILE:LINE: BibTeX block could not be parsed: ...``.
    """
    import bibtexparser
    from bibtexparser.middlewares import SeparateCoAuthors
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock

    library = bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors()])
    problems: list[Problem] = []
    for block in library.failed_blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, DuplicateBlockKeyBlock):
            why = f"duplicate entry key '{block.key}' (first defined at line {(block.previous_block.start_line or 0) + 1})"
        elif isinstance(block, DuplicateFieldKeyBlock):
            why = f"duplicate field(s) {', '.join(sorted(block.duplicate_keys))} in one entry"
        else:
            detail = str(block.error).strip().splitlines()
            why = "syntax error" + (f": {detail[-1].strip()}" if detail else " (unbalanced braces or quotes?)")
        problems.append(Problem(file, line, None, f"BibTeX block could not be parsed: {why}"))
    entries = []
    for entry in library.entries:
        fields = {}
        authors: list[str] = []
        for fld in entry.fields:
            name = fld.key.lower()
            if name == "author":
                value = fld.value if isinstance(fld.value, list) else [fld.value]
                authors = [decode_latex(_last_first(_collapse(a))) for a in value if a.strip()]
            else:
                fields[name] = _collapse(str(fld.value))
        entries.append(
            {"key": entry.key, "type": entry.entry_type.lower(), "line": (entry.start_line or 0) + 1,
             "fields": fields, "authors": authors}
        )
    return entries, problems


def identifiers_in(fields: dict[str, str]) -> list[tuple[str, str]]:
    """Every identifier written in the fields of one BibTeX entry, as ``(scheme, value)``
    in the order found: the arXiv id of ``journal = {arXiv preprint arXiv:ID}`` or of
    ``eprint`` with ``archiveprefix = {arXiv}``, ``doi`` (a ``https://doi.org/`` prefix
    dropped), and each URL of ``url``/``howpublished`` (a landing page of an arXiv,
    OpenReview, DOI or ACL id becomes that id; a DOI in a publisher URL is read too;
    any other URL is ``("url", URL)``). Nothing is looked up or guessed."""
    from .records import classify_url, doi_in_url

    found: list[tuple[str, str]] = []
    match = re.search(r"arXiv:\s*([0-9]{4}\.[0-9]{4,5}(?:v[0-9]+)?)", fields.get("journal", ""))
    if match:
        found.append(("arxiv", match.group(1)))
    if fields.get("eprint") and fields.get("archiveprefix", "").lower() == "arxiv":
        found.append(("arxiv", fields["eprint"].strip()))
    if fields.get("doi"):
        found.append(("doi", re.sub(r"^(https?://(dx\.)?doi\.org/|doi:)", "", fields["doi"].strip(), flags=re.IGNORECASE)))
    for text in (fields.get("url", ""), fields.get("howpublished", "")):
        for url in re.findall(r"\\url\{([^}]*)\}", text) or ([text] if text.startswith("http") else []):
            found.append(classify_url(url))
            if found[-1][0] == "url" and doi_in_url(url):
                found.append(("doi", doi_in_url(url)))
    return found


def entry_fields(record: dict) -> dict[str, str]:
    """The BibTeX fields of one retained record, ready to write (LaTeX source).

    Raw values kept from an imported or added BibTeX entry are written as they
    are; a record without them gets ``title``/``year``/``url`` from its plain
    fields, LaTeX-escaped.
    """
    bib = dict(record.get("bibtex") or {})
    bib.pop("type", None)
    if "title" not in bib:
        bib["title"] = encode_latex(record["title"])
    if "year" not in bib:
        bib["year"] = str(record["year"])
    ids = record.get("identifiers") or {}
    if "journal" not in bib and "booktitle" not in bib and "howpublished" not in bib and ids.get("arxiv"):
        bib["journal"] = f"arXiv preprint arXiv:{ids['arxiv']}"
    if "url" not in bib and "howpublished" not in bib and record.get("url"):
        bib["url"] = record["url"]
    bib["author"] = " and ".join(encode_author(a) for a in record.get("authors") or [])
    ordered = {k: bib[k] for k in FIELD_ORDER if bib.get(k)}
    ordered.update(sorted((k, v) for k, v in bib.items() if k not in ordered and v))
    return ordered


def export(records: list[dict]) -> str:
    """``reports/papers.bib``: one entry per retained record, sorted by ``bibtex_key``.

    Raises:
        ValueError: if two records share a ``bibtex_key`` (validation prevents it).
    """
    import bibtexparser
    from bibtexparser import Library
    from bibtexparser.model import Entry, Field

    library = Library()
    seen: set[str] = set()
    for record in sorted(records, key=lambda r: r.get("bibtex_key") or r["key"]):
        key = record.get("bibtex_key") or record["key"]
        if key in seen:
            raise ValueError(f"duplicate bibtex_key {key!r}")
        seen.add(key)
        etype = (record.get("bibtex") or {}).get("type", "misc")
        library.add(Entry(etype, key, [Field(k, v) for k, v in entry_fields(record).items()]))
    fmt = bibtexparser.BibtexFormat()
    fmt.indent = "  "
    fmt.trailing_comma = True
    fmt.block_separator = "\n"
    header = (
        "% Generated by `masrl build` from corpus/papers/*.yaml -- do not edit by hand.\n"
        "% Survey: Reinforcement Learning for LLM-based Multi-Agent Systems through\n"
        "% Orchestration Traces (Chenchen Zhang, arXiv 2605.02801).\n\n"
    )
    return header + bibtexparser.write_string(library, bibtex_format=fmt)
