"""BibTeX/BibLaTeX text -> entries, with bibtexparser 2.x; names as records keep them (LaTeX <-> Unicode: :mod:`.latex`).

:func:`parse` runs bibtexparser's splitter and a declared middleware stack:

1. :class:`ExpandMacros` (masrl's): ``@string`` macros and ``#``
   concatenation (``author = jean # " " # cesar``), with BibTeX's built-in
   month macros; an undefined macro is an entry problem naming the field and
   the macro, never a literal value;
2. bibtexparser's ``RemoveEnclosingMiddleware`` (outer braces/quotes);
3. bibtexparser's ``MonthAbbreviationMiddleware`` (``month = {September}``,
   ``"9"`` -> the macro ``sep``);
then ``author`` and ``editor`` are split as BibTeX splits them (:mod:`.namelist`: ``and`` at brace
depth 0, so a braced corporate name such as ``{Agents and Tools Lab, Inc.}`` stays one author), and
a name's accent commands are braced before its parts are read (``{\\"{O}}zt{\\"{u}}rk``: one letter each).

Every block bibtexparser cannot parse (broken braces, a duplicate entry key or
field) is a :class:`~masrl.core.errors.Problem` naming the block's line; every
other block that is not an entry (``@string``, ``@preamble``, ``@comment``,
text between entries) is listed in :attr:`ParsedFile.other_blocks` with its
line, so that callers can report it.

Names are stored ``Last, First`` (``von Last, Jr, First`` with bibtexparser's
name parts) and decoded to Unicode; a corporate author keeps its braces
(``{Agents and Tools Lab, Inc.}``) so that it stays one name everywhere.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from ..core.errors import Problem
from .organisations import generic_word
from ..core.placeholders import SUFFIXES, author_problem, is_et_al
from .latex import balance_braces, collapse, decode_latex, encode_latex, too_deep
from .namelist import brace_specials, split_names

__all__ = ["balance_braces", "collapse", "decode_latex", "encode_latex", "too_deep"]  # the LaTeX codec, re-exported

logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)

#: BibTeX's built-in month macros (defined by every standard .bst and by biber).
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")


def month_macro(value: object) -> str | None:
    """BibTeX's month macro (``jan`` ... ``dec``) of a ``month`` as records write it: 1 to 12 (``06``), a
    month's name or its first three letters, in any case, with or without a dot; None for anything else."""
    text = str(value).strip().strip("{}").strip().rstrip(".").lower() if value is not None and not isinstance(value, bool) else ""
    if text.isascii() and text.isdigit() and 1 <= int(text) <= 12:
        return MONTHS[int(text) - 1]
    names = [m.lower() for m in MONTH_NAMES]
    text = "sep" if text == "sept" else text
    return MONTHS[names.index(text)] if text in names else text if text in MONTHS else None


def day_problem(day: object, year: object, month: object) -> str | None:
    """Why a ``day`` (biblatex's field) is no day of its entry's ``year`` and ``month``, or None: not a number
    from 1 to the month's last day (``41``; ``29`` of February 2021), or a day without a month (``month`` empty).
    A month or a year that is none is named by its own check; the day is then judged against the longest month."""
    import calendar

    text = str(day).strip().strip("{}").strip()
    if month is None or not str(month).strip():
        return f"day {text!r} is given without a month: give month too, or leave day out"
    macro, known = month_macro(month), str(year if year is not None else "").strip()
    if macro and re.fullmatch(r"[0-9]{4}", known):
        last, where = calendar.monthrange(int(known), MONTHS.index(macro) + 1)[1], f"{macro} {known}"
    else:
        last, where = {"feb": 29, "apr": 30, "jun": 30, "sep": 30, "nov": 30}.get(macro, 31), macro or "its month"
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= last):
        return f"day {text!r} is no day of {where}; allowed: 1 to {last}"
    return None


#: Entry types of BibTeX (the standard styles) and biblatex (manual §2.1), lower case.
BIBTEX_TYPES = ("article", "book", "booklet", "inbook", "incollection", "inproceedings", "conference", "manual",
                "mastersthesis", "misc", "phdthesis", "proceedings", "techreport", "unpublished", "online",
                "mvbook", "bookinbook", "suppbook", "collection", "mvcollection", "suppcollection", "dataset",
                "mvproceedings", "reference", "mvreference", "inreference", "periodical", "suppperiodical",
                "patent", "report", "thesis", "software", "electronic", "www", "set", "xdata")


def wrapped(name: str) -> bool:
    """Whether a record author (display text) is braced whole, its first ``{`` closing at its last
    character: ``{Agents and Tools Lab, Inc.}`` and ``{The {GPT} Team}``, not ``{GPT} and {Co}``."""
    if not (name.startswith("{") and name.endswith("}")):
        return False
    depth = 0
    for i, ch in enumerate(name):
        depth += (ch == "{") - (ch == "}")
        if depth == 0 and i < len(name) - 1:
            return False
    return depth == 0


def is_corporate(name: str) -> bool:
    """A record author braced whole (``{Kimi Team}``, ``{Agents and Tools Lab, Inc.}``) or
    without a comma (``DeepSeek-AI``): an organisation, one name, never split."""
    return wrapped(name) or ("," not in name and name != "others")


def name_parts(name: str) -> tuple[str, str, str] | None:
    """``(last, jr, first)`` of a person as records store names, BibTeX's comma forms
    ``Last, First`` and ``Last, Jr, First`` (``last`` keeps a ``von`` part: ``van Beethoven``);
    None for an organisation, ``others``, or a name with more commas (shown as written). The one
    reading of a record author that the BibTeX and CSL-JSON exports and every display share."""
    if name == "others" or is_corporate(name):
        return None
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2:
        return parts[0], "", parts[1]
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    return None


def display_name(name: str) -> str:
    """A record author for reading (:func:`name_parts`): ``Liu, Shuo`` -> ``Shuo Liu``; ``van
    Beethoven, Ludwig`` -> ``Ludwig van Beethoven``; ``Doe, Jr., John`` -> ``John Doe Jr.``; an
    organisation as written without its braces (``{Agents and Tools Lab, Inc.}`` -> ``Agents and
    Tools Lab, Inc.``); a name in Han characters, kana or Hangul family name first, as it is written
    (``李, 小龙`` -> ``李 小龙``)."""
    parts = name_parts(name)
    if parts is None:
        return name[1:-1] if wrapped(name) else name
    last, jr, first = parts
    if first and not jr and all(_east_asian(word) for word in f"{last} {first}".split()):
        return f"{last} {first}"
    return " ".join(p for p in (first, last, jr) if p)


def encode_author(name: str) -> str:
    """One record author as BibTeX source: accents encoded; an organisation braced so that
    BibTeX keeps it whole (``{Kimi Team}``, ``{Agents and Tools Lab, Inc.}``, inner braces kept
    as literal ones: ``{The \\{GPT\\} Team}``); ``others`` bare."""
    if name == "others":
        return name
    if wrapped(name):
        return "{" + encode_latex(name[1:-1]) + "}"
    encoded = encode_latex(name)
    if is_corporate(name) and (" " in name.strip() or not name.isascii() or "\\" in encoded):
        return "{" + encoded + "}"
    return encoded


def organisation(name: str) -> str:
    """An organisation as a record author: as written, braced only when it holds a comma or what a
    person's name may not hold outside braces (``{Agents and Tools Lab, Inc.}``, ``{AT&T Labs}``;
    ``Kimi Team`` needs no braces: no comma, one name)."""
    return "{" + name + "}" if "," in name or name == "others" or author_problem(name) else name


def record_author(name: str) -> str:
    """One BibTeX name (LaTeX source) as a record author: ``Jane Doe`` -> ``Doe, Jane``,
    ``Ludwig van Beethoven`` -> ``van Beethoven, Ludwig`` (bibtexparser's name parts), ``李 小龙``
    -> ``李, 小龙`` (a name in Han characters, kana or Hangul gives its family name first),
    decoded to Unicode; a name braced whole stays braced (an organisation); ``others`` kept, and
    ``et al.`` read as ``others``; a name ending in a word that names an organisation's kind is that
    organisation (``Kimi Team``, ``Google Research``: :mod:`masrl.bib.organisations`); a name that is not
    one person's (``A; B``, ``Ada Lovelace (MIT)``) kept as written, for the checks to name it as the source
    wrote it."""
    from bibtexparser.middlewares.names import (
        InvalidNameError,
        parse_single_name_into_parts,
    )

    name = extended_name(collapse(name))  # biblatex's family=Smith, given=John: Smith, John
    name = brace_specials(name)  # an accent command stays one letter ('Nguy\\~{\\^e}n' is not 'Nguy ên')
    if name == "others" or is_et_al(name):  # "et al." is BibTeX's "others": the list goes on
        return "others"
    if _braced_whole(name):
        return organisation(decode_latex(name[1:-1]))
    if author_problem(name) or author_problem(decode_latex(name)):  # no one person's name (several, a placeholder,
        # a mark): kept as written (decoded, unless its braces are unbalanced: decoding would repair them), for the
        # checks to name it as written
        return decode_latex(name) if name.count("{") == name.count("}") else name
    words = name.split()
    if len(words) > 1 and "," not in name and generic_word(words[-1]):  # Kimi Team: an organisation, not Team, Kimi
        return organisation(decode_latex(name))
    if len(words) > 1 and "," not in name and all(_east_asian(word) for word in words):
        return f"{words[0]}, {' '.join(words[1:])}"  # written in its own script, a name gives the family name first
    if len(words) >= 3 and "," not in name and (family := _iberian_family(words)):
        return decode_latex(f"{' '.join(words[-family:])}, {' '.join(words[:-family])}")
    try:
        merged = parse_single_name_into_parts(_suffix_as_jr(name)).merge_last_name_first
    except InvalidNameError:
        merged = name  # reported by the caller as malformed
    return decode_latex(merged)


#: The last words of an Iberian family name that are no family name of their own: Portuguese generational suffixes
#: (Oliveira Filho, Costa Neto), which the family name keeps, unlike Jr. (Brazil cites OLIVEIRA FILHO, Pedro).
_IBERIAN_SUFFIXES = frozenset({"filho", "filha", "neto", "neta", "sobrinho", "sobrinha", "júnior"})
#: The words joining two family names (Ortega y Gasset, Costa e Silva, Puig i Cadafalch).
_JOINING = frozenset({"y", "e", "i"})
#: Particles written in lower case before an Iberian family name (da Costa Neto, de la Cruz y Gómez).
_LOWER_PARTICLES = frozenset({"da", "de", "do", "das", "dos", "del", "la", "las", "los", "di"})


def _iberian_family(words: list[str]) -> int:
    """How many last words of a name written First Last are its family name, where BibTeX's rule would cut it
    (``Pedro Oliveira Filho``: 2, not Filho; ``José Ortega y Gasset``: 3, not "y Gasset"), else 0."""
    count = 0
    if words[-1].casefold() in _IBERIAN_SUFFIXES:
        count = 2
    elif words[-2] in _JOINING and len(words) >= 4 and words[-3][:1].isupper() and words[-1][:1].isupper():
        count = 3
    while count and count < len(words) - 1 and words[-count - 1] in _LOWER_PARTICLES:
        count += 1  # the particles before it are the family name's too: da Costa Neto, de la Cruz y Gómez
    return count


#: A part of biblatex's extended name format (``family=van der Berg``, ``given={Jan}``), its key and its value.
_EXTENDED_PART = re.compile(r"\s*(family|given|prefix|suffix|useprefix|given-i|family-i)\s*=\s*(\{.*\}|[^,{}]*)\s*$",
                            re.IGNORECASE)


def extended_name(name: str) -> str:
    """A name in biblatex's extended format (``family=Berg, given=Jan, prefix=van der``: biber's own) as BibTeX's
    ``prefix family, suffix, given``; any other name, or one with a part of another form, as it is (the checks name
    its ``=``)."""
    if "=" not in name or not _EXTENDED_PART.match(name.split(",", 1)[0]):
        return name
    parts: dict[str, str] = {}
    for piece in name.split(","):
        found = _EXTENDED_PART.fullmatch(piece)
        if found is None:
            return name
        value = found.group(2).strip()
        parts[found.group(1).lower()] = value[1:-1] if value.startswith("{") and value.endswith("}") else value
    family = " ".join(p for p in (parts.get("prefix", ""), parts.get("family", "")) if p)
    if not family:
        return name
    return ", ".join(p for p in (family, parts.get("suffix", ""), parts.get("given", "")) if p) if parts.get("given") \
        else family


def _east_asian(word: str) -> bool:
    """Whether ``word`` is written wholly in Han characters, kana or Hangul (scripts in which a
    person's family name comes first: ``李 小龙`` is ``李, 小龙``)."""
    import unicodedata

    return bool(word) and all(unicodedata.name(ch, "").startswith(("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH",
                                                                     "HIRAGANA", "KATAKANA", "HANGUL")) for ch in word)


def stored_author(name: str) -> str:
    """An author written by hand as masrl stores it: ``Last, First`` (any name with a comma), an
    organisation in braces, ``others`` and a one-word name kept; a name holding BibTeX's markup decoded
    (``D{\\"u}rst, Martin`` -> ``Dürst, Martin``); ``First Last`` stored ``Last, First``
    (:func:`record_author`: ``Robert W. Heath Jr.`` -> ``Heath, Jr., Robert W.``)."""
    name = " ".join(name.split())
    if is_et_al(name):
        return "others"
    if has_markup(name) and author_problem(name) is None:  # BibTeX's markup (D{\"u}rst, Smith, J.~R., {AT\&T Labs}):
        # read as BibTeX
        return record_author(name)  # reads it (a name with a footnote mark is kept as written, for the checks to name)
    if name == "others" or "," in name or " " not in name or (name.startswith("{") and name.endswith("}")):
        return name
    return record_author(name)


def unread_name_problem(name: str) -> str | None:
    """Why a name written in BibTeX's markup cannot be stored: it holds a macro masrl cannot read, so letters of it
    would be lost (``Nguy{\\~{\\ecircumflex}}n`` read as "Nguyn"); None when every macro is read."""
    from .latex import stacked_accents, unread_macros

    if lost := unread_macros(name):
        return (f"{name!r} holds {', '.join(lost)}, no macro masrl can read, so letters of the name would be lost: "
                "write the letter itself (Unicode, or LaTeX's accents: \\^{e})")
    if stacked := stacked_accents(name):
        return stacked_problem(name, stacked)
    return None


def stacked_problem(text: str, stacked: list[str]) -> str:
    """Why ``text`` holding ``stacked`` accents (:func:`masrl.bib.latex.stacked_accents`) cannot be stored."""
    return (f"{text!r} puts an accent on an accent without braces ({stacked[0]}), which LaTeX cannot read: write the letter "
            "itself (Unicode), or brace the inner accent with its letter (\\`{\\^a})")


def has_markup(name: str) -> bool:
    """Whether an author written by hand holds BibTeX's markup: a command (``D{\\"u}rst``), a tie (``J.~R.``) or an
    empty group (``J{}ane``)."""
    return "\\" in name or "~" in name or "{}" in name


def _suffix_as_jr(name: str) -> str:
    """``Robert W. Heath Jr.`` and ``Robert W. Heath, Jr.`` as BibTeX's ``Heath, Jr., Robert W.`` (its
    form with a "jr" part); any other name as it is."""
    head, comma, tail = name.rpartition(",")
    if comma and head.count(",") == 0 and tail.strip().lower() in SUFFIXES and " " in head.strip():
        rest, suffix = head.strip(), tail.strip()
    elif not comma and len(words := name.split()) > 2 and words[-1].lower() in SUFFIXES:
        rest, suffix = " ".join(words[:-1]), words[-1]
    else:
        return name
    from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts

    try:
        parts = parse_single_name_into_parts(rest)
    except InvalidNameError:
        return name
    last = " ".join([*parts.von, *parts.last])
    return f"{last}, {suffix}, {' '.join(parts.first)}" if parts.first and last else name


def _braced_whole(text: str) -> bool:
    if not (text.startswith("{") and text.endswith("}")):
        return False
    depth = 0
    for i, ch in enumerate(text):
        if ch == "{" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif ch == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0 and i != len(text) - 1:
                return False
    return True


# ---------------------------------------------------------------------------- macros
def _split_concatenation(value: str) -> list[str] | None:
    """Top-level ``#`` parts of an unenclosed value, or None if it is unbalanced."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(value):
        if ch == "\\":
            continue
        if ch == "{" and (i == 0 or value[i - 1] != "\\"):
            depth += 1
        elif ch == "}" and (i == 0 or value[i - 1] != "\\"):
            depth -= 1
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == "#" and depth == 0 and not quoted:
            parts.append(value[start:i].strip())
            start = i + 1
    if depth or quoted:
        return None
    parts.append(value[start:].strip())
    return parts


class ExpandMacros:
    """bibtexparser middleware: expand ``@string`` macros and ``#`` concatenation.

    Runs first (on raw values, before the enclosing is removed). For each field
    whose value is not one braced or quoted literal: split it at top-level
    ``#``; each part is a literal, a number, or a macro (case-insensitive,
    ``@string`` definitions in file order, BibTeX's month macros). The result
    is written back as one braced value. A lone month macro in ``month`` stays
    a macro (``jan``). Undefined macros are recorded per entry in
    ``entry.parser_metadata["masrl_undefined"]`` as ``(field, macro)``.
    """

    def __init__(self):
        self.strings: dict[str, str] = {}
        self.unresolved: dict[str, list[str]] = {}  # @string name -> the macros it used before they were defined

    @staticmethod
    def metadata_key() -> str:
        return "masrl_expand_macros"

    def _expand(self, value: str) -> tuple[str | None, list[str]]:
        """``(expanded inner text or None when the value is left alone, undefined macros)``."""
        value = value.strip()
        parts = _split_concatenation(value)
        if parts is None or (len(parts) == 1 and (value.isdigit() or _enclosed(value))):
            return None, []
        out, undefined = [], []
        for part in parts:
            if _enclosed(part):
                out.append(part[1:-1])
            elif part.isdigit():
                out.append(part)
            elif "%" in part:  # BibTeX reads no comment inside an entry: it stops at the '%'
                undefined.append(part)
                out.append(part)
            elif part.lower() in self.strings:
                out.append(self.strings[part.lower()])
                undefined += self.unresolved.get(part.lower(), [])  # BibTeX: a macro is defined where it is read
            elif part.lower() in MONTHS:
                out.append(MONTH_NAMES[MONTHS.index(part.lower())])
            else:
                undefined.append(part)
                out.append(part)
        return "".join(out), undefined

    def transform(self, library):
        from bibtexparser.model import Entry, String

        for block in library.blocks:
            if isinstance(block, String):
                inner, missing = self._expand(block.value)
                self.strings[block.key.lower()] = inner if inner is not None else _strip(block.value)
                self.unresolved[block.key.lower()] = missing
            elif isinstance(block, Entry):
                undefined = []
                for fld in block.fields:
                    raw = fld.value.strip() if isinstance(fld.value, str) else fld.value
                    if not isinstance(raw, str):
                        continue
                    if fld.key.lower() == "month" and raw.lower() in MONTHS:
                        continue
                    inner, missing = self._expand(raw)
                    undefined += [(fld.key.lower(), m) for m in missing]
                    if inner is not None:
                        fld.value = "{" + inner + "}"
                block.parser_metadata["masrl_undefined"] = undefined
        return library


class LowerCaseFieldNames:
    """bibtexparser middleware: field names in lower case, as BibTeX reads them (``AUTHOR`` is
    ``author``), so that the names of an ``AUTHOR`` field are split like an ``author``'s. Two fields
    of one entry whose names differ only in case are recorded in
    ``entry.parser_metadata["masrl_repeated"]`` (bibtexparser reports only exact repeats)."""

    @staticmethod
    def metadata_key() -> str:
        return "masrl_lower_case_fields"

    def transform(self, library):
        from bibtexparser.model import Entry

        for block in library.blocks:
            if isinstance(block, Entry):
                seen: dict[str, str] = {}
                repeated = []
                for fld in block.fields:
                    name = fld.key.lower()
                    if name in seen:
                        repeated.append(f"{seen[name]} and {fld.key}")
                    seen.setdefault(name, fld.key)
                    fld.key = name
                block.parser_metadata["masrl_repeated"] = repeated
        return library


def _enclosed(part: str) -> bool:
    from bibtexparser.middlewares.enclosing import RemoveEnclosingMiddleware as R

    if len(part) < 2:
        return False
    if part[0] == "{" and part[-1] == "}":
        return R._is_enclosed_in_braces(part)
    if part[0] == '"' and part[-1] == '"':
        return R._is_enclosed_in_quotes(part)
    return False


def _strip(value: str) -> str:
    value = value.strip()
    return value[1:-1] if _enclosed(value) else value


# ---------------------------------------------------------------------------- parse
@dataclass
class BibEntry:
    """One parsed entry.

    Attributes:
        key: the entry key as written.
        type: the entry type, lower case (``inproceedings``).
        line: 1-based line of the ``@``.
        fields: field name (lower case) -> value (LaTeX source, outer enclosing
            removed, macros expanded, whitespace collapsed); ``author`` and
            ``editor`` are not here but in :attr:`names`.
        names: ``{"author": [...], "editor": [...]}`` as BibTeX name strings (LaTeX source).
        undefined: ``(field, macro)`` for each macro used but never defined.
        raw: the entry's text as written.
    """

    key: str
    type: str
    line: int
    fields: dict[str, str]
    names: dict[str, list[str]] = field(default_factory=dict)
    undefined: list[tuple[str, str]] = field(default_factory=list)
    raw: str = ""


@dataclass
class ParsedFile:
    """What :func:`parse` read: entries in file order, the non-entry blocks as
    ``(line, description)``, and the blocks that could not be parsed as problems."""

    entries: list[BibEntry]
    other_blocks: list[tuple[int, str]]
    problems: list[Problem]
    #: line -> the text of each block that could not be read as an entry (for the report of what was not added)
    unread: dict[int, str] = field(default_factory=dict)
    #: the text of each ``@string`` block, in file order (for the report: the entries it holds may use them)
    strings: list[str] = field(default_factory=list)


def bibtex_balanced(value: str) -> bool:
    """Whether ``value`` (a field's text inside its delimiters) has balanced braces as BibTeX
    counts them: every ``{`` and ``}``, a backslash before one included (BibTeX knows no escape)."""
    depth = 0
    for ch in value:
        depth += 1 if ch == "{" else -1 if ch == "}" else 0
        if depth < 0:
            return False
    return depth == 0


def parse(text: str, file: str) -> ParsedFile:
    """Parse BibTeX/BibLaTeX text (see the module docstring for the middleware stack).

    A leading byte-order mark is ignored.
    """
    import bibtexparser
    from bibtexparser.middlewares import (
        MonthAbbreviationMiddleware,
        RemoveEnclosingMiddleware,
    )
    from bibtexparser.model import (
        DuplicateBlockKeyBlock,
        DuplicateFieldKeyBlock,
        Entry,
        ExplicitComment,
        ImplicitComment,
        Preamble,
        String,
    )

    text = text.lstrip("\ufeff")
    stack = [LowerCaseFieldNames(), ExpandMacros(), RemoveEnclosingMiddleware(), MonthAbbreviationMiddleware()]
    library = bibtexparser.parse_string(text, parse_stack=stack)
    problems: list[Problem] = []
    unread: dict[int, str] = {}
    failed = set()
    for block in library.failed_blocks:
        failed.add(id(block))
        line = (block.start_line or 0) + 1
        if isinstance(block, DuplicateBlockKeyBlock):
            why = f"duplicate entry key '{block.key}' (first defined at line {(block.previous_block.start_line or 0) + 1})"
        elif isinstance(block, DuplicateFieldKeyBlock):
            why = f"duplicate field(s) {', '.join(sorted(block.duplicate_keys))} in one entry"
        else:
            detail = str(block.error).strip().splitlines()
            raw = str(getattr(block, "raw", "") or "")
            # bibtexparser reads ``\}`` as an escaped brace, which BibTeX does not: a value ending in ``\\`` is
            # named as such, not as braces that do balance
            hint = (" (a backslash before a closing brace: the parser reads '\\}' as an escaped brace, though "
                    "BibTeX does not; write the value without a trailing backslash)" if re.search(r"\\\s*}", raw)
                    else " (unbalanced braces or quotes?)")
            why = "syntax error" + (f": {detail[-1].strip()}" if detail else hint)
        problems.append(Problem(file, line, None, f"BibTeX block could not be parsed: {why}"))
        unread[line] = str(getattr(block, "raw", "") or "")
    strings: list[str] = []
    entries: list[BibEntry] = []
    other: list[tuple[int, str]] = []
    for block in library.blocks:
        line = (block.start_line or 0) + 1
        if id(block) in failed:
            continue
        if isinstance(block, Entry):
            unbalanced = [(fld.key.lower(), str(fld.value)) for fld in block.fields
                          if not isinstance(fld.value, list) and not bibtex_balanced(str(fld.value))]
            if unbalanced:  # bibtexparser read past a brace after a backslash; BibTeX would not
                for name, value in unbalanced:
                    problems.append(Problem(file, line, name, f"BibTeX counts every brace, also one after a backslash: "
                                                              f"{value!r} is unbalanced as BibTeX reads it, so BibTeX "
                                                              "cannot read this entry; write \\textbraceleft{} or "
                                                              "\\textbraceright{} for a literal brace"))
                unread[line] = str(block.raw or "")
                continue
            if block.parser_metadata.get("masrl_repeated"):
                why = "; ".join(block.parser_metadata["masrl_repeated"])
                problems.append(Problem(file, line, None, f"BibTeX block could not be parsed: duplicate field(s) {why} in "
                                                          "one entry (BibTeX reads field names in any case as one)"))
                unread[line] = str(block.raw or "")
                continue
            fields: dict[str, str] = {}
            names: dict[str, list[str]] = {}
            for fld in block.fields:
                name = fld.key.lower()
                if name in ("author", "editor"):
                    names[name] = split_names(str(fld.value))
                else:
                    fields[name] = collapse(str(fld.value))
            entries.append(BibEntry(block.key, block.entry_type.lower(), line, fields, names,
                                    block.parser_metadata.get("masrl_undefined") or [], block.raw or ""))
        elif isinstance(block, String):
            other.append((line, f"@string {block.key} (a macro, expanded where entries use it)"))
            strings.append(str(block.raw or "").strip())
        elif isinstance(block, Preamble):
            other.append((line, "@preamble (LaTeX for the bibliography style; not a paper, not imported)"))
        elif isinstance(block, ExplicitComment):
            other.append((line, "@comment (not a paper, not imported)"))
        elif isinstance(block, ImplicitComment):
            first = collapse(block.comment)[:60]
            other.append((line, f"text outside any entry, ignored as BibTeX ignores it: {first!r}"))
    return ParsedFile(entries, other, problems, unread, strings)
