"""``reports/papers.bib``: one entry per retained record, written with bibtexparser's writer.

* **Key.** Each entry's key is the record ``key`` (the key every table,
  figure, TeX file and claim shows), so ``\\cite{c3}`` works. A record whose
  ``bibtex_key`` differs (a manuscript's older key, ``c3-2026``) gets it as a
  biblatex alias, ``ids = {c3-2026}``: under biber, ``\\cite{c3-2026}`` still
  resolves; BibTeX ignores ``ids``.
* **Type follows the venue** (:mod:`masrl.bib.venues`): conference ->
  ``@inproceedings`` + ``booktitle``; journal -> ``@article`` + ``journal``;
  preprint -> ``@misc`` + ``eprint``/``archivePrefix``/``primaryClass``
  (arXiv's own export format); other -> ``@misc`` + ``howpublished``.
  ``eprint``/``archivePrefix`` are also given for published papers with an arXiv id.
* ``doi`` from ``identifiers.doi``, ``eprint`` from ``identifiers.arxiv`` (normalised, also over the block's own form of the same id); ``month`` written as a macro (``month = sep``).
* Titles: words with a capital after their first letter or two or more capitals
  (``LLMs``, ``MarsRL``, ``GRPO``, ``K2``) are brace-protected so that styles
  that lower-case titles keep them; text already in braces or math is left alone.
* Authors: an organisation stays one name in braces; ``others`` stays bare.
* The fields of the record's ``bibtex`` block are written as kept (LaTeX source);
  the stale arXiv ``journal`` line of a record whose venue is a conference or
  preprint is replaced by the fields above.
* Braces: BibTeX and biber count every brace, also ``\\{`` and ``\\}``, so a field with
  an unpaired one would end early (and a title could then write fields or entries of
  its own). Every field is written with :func:`masrl.bib.bibtex.balance_braces`: escaped
  braces stay where they pair up, any other is written ``\\textbraceleft{}`` /
  ``\\textbraceright{}``. No record text is refused for its braces: the same characters
  print, and a re-import decodes them back. A verbatim field (below) prints a macro as it is: its
  unpaired braces are percent-encoded instead (``doi = {10.5555/h5%7D}``, the DOI's link form).
* Characters that stop LaTeX: in the ``.bbl`` a bare ``%`` starts a comment and swallows the rest
  of the line, a bare ``#`` or ``&`` is an error, and so are ``_`` and ``^`` outside math. A kept
  block field is LaTeX source as an imported .bib wrote it, so every field but the verbatim ones
  (``url``, ``doi``, ``eprint``, ``ids``, ``file``, ...: read verbatim by the styles) is written
  with each of them escaped, and with a ``$`` that opens math nothing closes as ``\\$``
  (:func:`masrl.bib.latex.latex_safe`); math, macros and ``\\url`` arguments are kept.
* BibTeX's field ``type`` (the record's ``type_field``): a biblatex code decides a thesis's entry type
  (``mathesis`` -> ``@mastersthesis``), is dropped where the entry type says it (``techreport`` of a
  ``@techreport``), else written as its label (``resreport`` -> ``Research report``;
  :mod:`masrl.bib.typecodes`); an entry type without the field writes it in ``note``.
* Only what the record says: an entry whose venue is empty or the stub's ``unpublished`` (nothing
  was known) gets no ``howpublished``.
"""

from __future__ import annotations

import re

from . import typecodes, venues
from .bibtex import balance_braces, encode_author, encode_latex, month_macro, record_author
from .latex import ascii_source, decode_latex, latex_safe
from .matching import with_subtitle
from .namelist import ACCENT_WORDS, split_names
from .standard_numbers import first_number

#: Order of fields in exported entries (others follow alphabetically).
FIELD_ORDER = (
    "title", "author", "editor", "booktitle", "journal", "howpublished", "volume", "number", "pages",
    "publisher", "address", "year", "month", "doi", "eprint", "archiveprefix", "primaryclass", "url", "note", "ids",
)

#: Entry types every BibTeX style knows; any other type is written as ``@misc``.
CLASSIC_TYPES = ("article", "book", "booklet", "inbook", "incollection", "inproceedings", "manual",
                 "mastersthesis", "misc", "phdthesis", "proceedings", "techreport", "unpublished")

_SPELLING = {"archiveprefix": "archivePrefix", "primaryclass": "primaryClass", "type_field": "type"}
_ARXIV_JOURNAL = re.compile(r"^\s*(arxiv|corr)\b", re.IGNORECASE)


#: A BibTeX special character: a group opened at brace depth 0 by a backslash (``{\\"O}``, ``{\\c{S}}``).
_SPECIAL = re.compile(r"\{\\[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")


#: Marks around a word (quotes, guillemets, Spanish opening marks) that are no letters of it: ``“Attention”`` is
#: the ordinary word Attention.
_AROUND = ".,:;!?()[]'\"`“”‘’„‚«»‹›¿¡"


def _protect_word(word: str) -> str:
    """``LLMs`` -> ``{LLMs}``; ``LLM-based`` -> ``{LLM}-based``; ``Multi-Agent`` and ``Actor/Critic`` unchanged;
    a special character counts as its letter (``{\\"O}BB`` -> ``{{\\"O}BB}``, as ``OBB`` -> ``{OBB}``), a quote
    around the word as none (``{\\textquotedblleft}Attention{\\textquotedblright}`` unchanged)."""
    def one(part: str) -> str:
        core = part.strip(_AROUND)
        if not core or "\\" in _SPECIAL.sub("", core):
            return part
        letters = _SPECIAL.sub(lambda special: decode_latex(special.group()), core).strip(_AROUND)
        if not any(c.isupper() for c in letters):
            return part
        needs = any(c.isupper() for c in letters[1:]) or (len(letters) == 1 and len(pieces) > 1) or \
            (any(c.isdigit() for c in letters) and letters[0].isupper())
        if not needs:
            return part
        start = part.index(core)
        return part[:start] + "{" + core + "}" + part[start + len(core):]
    pieces = re.split(r"([-/])", word)
    return "".join(piece if piece in "-/" else one(piece) for piece in pieces)


def _brace_commands(title: str) -> str:
    """Each command of a LaTeX title that a change of case would turn into another (:data:`_CASED`), written outside
    braces and math, with its arguments, in braces, as BibTeX's special characters are (``\\TeX{} and`` -> ``{\\TeX} and``, ``\\O{}resund`` -> ``{\\O}resund``, ``\\OE uvre`` ->
    ``{\\OE}uvre``, ``M\\"uller`` -> ``M{\\"u}ller``): a style that lowers a title's case then leaves them as they are
    (``\\tex``, ``\\o``: an undefined command, or another letter). An escaped character (``\\&``) stays as it is."""
    out, depth, math, i = [], 0, False, 0
    while i < len(title):
        ch = title[i]
        if ch == "\\" and depth == 0 and not math and _CASED.match(title, i):
            end = _command_end(title, i)
            command = title[i:end].rstrip()
            # the empty group that ends a letter's command (\TeX{}) is not needed in braces; an accent's (\~{}) is its argument
            empty_ends = re.fullmatch(r"\\([A-Za-z]+)\{\}", command) and command[1:-2] not in ACCENT_WORDS  # \c{}: a cedilla on nothing
            out.append("{" + (command[:-2] if empty_ends else command) + "}")
            i = end
            continue
        if ch == "\\":
            out.append(title[i:i + 2])
            i += 2
            continue
        if ch == "$" and depth == 0 and not math and (close := title.find("$", i + 1)) > 0 and any(
                c.isupper() for c in title[i:close]):  # $\Gamma$, $N$: a style would lower them to $\gamma$, $n$
            out.append("{" + title[i:close + 1] + "}")
            i = close + 1
            continue
        if ch == "$":
            math = not math
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        out.append(ch)
        i += 1
    return "".join(out)


#: A command a style's change of case would turn into another: a control word with a capital (``\\TeX`` into the
#: undefined ``\\tex``, ``\\O`` into ``\\o``), or an accent on a letter (``\\"U``).
_CASED = re.compile(r"\\(?:[A-Za-z]*[A-Z][A-Za-z]*|[\"'`^~=.][A-Za-z{])")


def _command_end(title: str, at: int) -> int:
    """Where the command at ``at`` ends, with its arguments: a control word and the blanks after it or its braced
    arguments; a control symbol (an accent, ``\\"``) and the letter or group after it."""
    word = re.match(r"\\[A-Za-z]+", title[at:])
    end = at + (len(word.group()) if word else 2)
    if word and end < len(title) and title[end].isspace():
        while end < len(title) and title[end].isspace():
            end += 1
        if len(word.group()) > 2 or not title[end:end + 1].isalpha():
            return end
        return end + 1  # an accent of one letter and the letter it marks: \c c
    while end < len(title) and title[end] == "{":  # its arguments (or the empty group that ends it)
        depth, k = 0, end
        while k < len(title):
            depth += {"{": 1, "}": -1}.get(title[k], 0) if title[k - 1:k] != "\\" else 0
            k += 1
            if depth == 0:
                break
        end = k
    if end == at + 2 and not word and end < len(title) and title[end].isalpha():  # \"u: the accent's letter
        end += 1
    return end


def protect_title(title: str) -> str:
    """Brace-protect capitals and acronyms of a LaTeX title (outside braces and math), and every command written
    bare (:func:`_brace_commands`)."""
    title = _brace_commands(title)
    out, word, depth, math, skip = [], "", 0, False, 0
    for i, ch in enumerate(title):
        escaped = i > 0 and title[i - 1] == "\\"
        if ch == "$" and not escaped and depth == 0:
            math = not math
        if skip:
            skip -= 1
            continue
        if depth == 0 and not math and ch == "{" and not escaped:
            special = _SPECIAL.match(title, i)
            if special:  # one letter of the word
                word += special.group()
                skip = len(special.group()) - 1
                continue
        if depth == 0 and not math and ch not in "{}$" and not ch.isspace():
            word += ch
            continue
        if word:
            out.append(_protect_word(word))
            word = ""
        if ch == "{" and not escaped:
            depth += 1
        elif ch == "}" and not escaped:
            depth = max(depth - 1, 0)
        out.append(ch)
    if word:
        out.append(_protect_word(word))
    return "".join(out)


#: biblatex's entry types that BibTeX writes otherwise (a thesis by its field type: :mod:`masrl.bib.typecodes`), and
#: each type's own venue field.
_BIBLATEX_TYPES = {"report": "techreport"}
_VENUE_FIELD = {"techreport": "institution", "phdthesis": "school", "mastersthesis": "school", "book": "publisher"}
#: The entry types that have BibTeX's field ``type`` (a report's or thesis's kind).
_TYPE_FIELD = frozenset({"techreport", "phdthesis", "mastersthesis", "inbook", "incollection", "misc", "manual"})

#: The venue fields an entry type has not: a block that held another type's (a Semantic Scholar @article with both
#: journal and booktitle, a @techreport's institution) loses them when it is written as this type.
_LACKS = {"article": ("booktitle", "institution", "school"), "inproceedings": ("journal", "institution", "school"),
          "misc": ("journal", "booktitle", "institution", "school", "publisher", "holder"),
          "techreport": ("journal", "booktitle", "publisher"), "phdthesis": ("journal", "booktitle", "institution", "publisher"),
          "mastersthesis": ("journal", "booktitle", "institution", "publisher"), "book": ("journal", "booktitle")}


def export_kind(record: dict) -> str:
    """The venue kind that decides the entry type: the venue's, unless only words many venues hold
    say it is a conference or a journal (``... Review``, ``Proceedings of ...``) and the block's own
    entry type says otherwise (a chapter in a book named ``... Review``, ``Machine Learning and
    Knowledge Discovery in Databases`` as an ``@inproceedings``); then the block's; else other."""
    mine, named = venues.venue_evidence(str(record.get("venue", "")))
    theirs = venues.block_kind(record.get("bibtex") or {})
    if mine in (venues.CONFERENCE, venues.JOURNAL) and not named and theirs in (venues.CONFERENCE, venues.JOURNAL,
                                                                                 venues.OTHER):
        return theirs
    return mine or theirs or venues.OTHER


#: Fields the bibliography styles read verbatim (BibTeX's ``\url`` fields, biblatex's verbatim fields):
#: a ``%`` or ``_`` there is the URL's or the path's.
_VERBATIM = frozenset({"url", "doi", "eprint", "ids", "file", "pdf", "urlraw", "verba", "verbb", "verbc"})


def _field_source(name: str, value: str) -> str:
    """``value`` with every character that would stop LaTeX escaped (:func:`masrl.bib.latex.latex_safe`), a page
    range's dash written ``--``;
    verbatim fields as they are, but for braces that do not pair up (a DOI ``10.5555/h5}``): a macro would
    be printed as it is there, so they are percent-encoded, as in a link (``%7D``; a backslash ``%5C``)."""
    if name == "pages":  # a range's dash as BibTeX's styles expect it: 1--10
        value = re.sub(r"\s*[\u2010\u2011\u2012\u2013\u2014\u2212]\s*", "--", value)
    if name not in _VERBATIM:
        return ascii_source(latex_safe(value))
    if balance_braces(value) == value:
        return value
    return value.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")



def _same_id(written: str, scheme: str, value: str) -> bool:
    """Whether a block's field ``written`` is the identifier ``value`` of ``scheme`` in another form."""
    from .identifiers import IdentifierError, parse

    try:
        return parse(str(written), scheme).key == parse(str(value), scheme).key
    except (IdentifierError, KeyError, ValueError):
        return False


def _names_arxiv(doi: str, arxiv: str) -> bool:
    """Whether a block's ``doi`` field, in any form a DOI is written (``doi:``, a resolver's URL), is arXiv's own
    DOI of the preprint ``arxiv``."""
    from .identifiers import IdentifierError, parse

    try:
        return parse(str(doi), "doi").key == parse(str(arxiv), "arxiv").key
    except (IdentifierError, KeyError, ValueError):
        return False


def editors_are_authors(record: dict) -> bool:
    """Whether a record's authors are the editors its BibTeX block names (an entry with editors and no author, such
    as an edited volume, imported with its editors stored as authors): papers.bib and papers.json then name them
    editors only."""
    editor = (record.get("bibtex") or {}).get("editor")
    authors = record.get("authors") or []
    return bool(isinstance(editor, str) and authors
                and [record_author(name) for name in split_names(editor) if name] == list(authors))


def entry_fields(record: dict) -> tuple[str, dict[str, str]]:
    """``(entry type, {field: LaTeX value})`` of one retained record, in :data:`FIELD_ORDER`."""
    bib = dict(record.get("bibtex") or {})
    block_type = str(bib.pop("type", "misc"))
    ids = record.get("identifiers") or {}
    venue = str(record.get("venue", ""))
    kind = export_kind(record)
    out: dict[str, str] = dict(bib)
    title = bib.get("title") or encode_latex(record["title"])
    if isinstance(bib.get("title"), str) and isinstance(out.get("subtitle"), str):  # BibTeX has no subtitle: one title
        title = with_subtitle(title, out.pop("subtitle"))
    out["title"] = protect_title(title)
    if not editors_are_authors(record):  # an edited volume's editors are cited as its editors (the block's editor)
        out["author"] = " and ".join(encode_author(a) for a in record.get("authors") or [])
    out.setdefault("year", str(record["year"]))
    for name in ("isbn", "issn"):  # biber reads the field as one number: the first, without label or qualifier
        if isinstance(out.get(name), str) and (number := first_number(out[name], name)):
            out[name] = number
    # the record's identifiers as masrl normalised them, also in place of the block's own form of the same id (an
    # imported .bib may write ``https://doi.org/10...`` or ``arXiv:2402...``, which styles prefix with their resolver)
    if ids.get("doi") and ("doi" not in out or _same_id(out["doi"], "doi", ids["doi"])):
        out["doi"] = ids["doi"]
    if ids.get("arxiv") and ("eprint" not in out or _same_id(out["eprint"], "arxiv", ids["arxiv"])):
        out["eprint"] = re.sub(r"v[0-9]+$", "", ids["arxiv"])
        out["archiveprefix"] = "arXiv"
    if ids.get("arxiv") and not ids.get("doi") and "doi" in out and _names_arxiv(out["doi"], ids["arxiv"]):
        # arXiv's own DOI as the block wrote it (doi:10.48550/..., https://doi.org/10.48550/...): the bare DOI
        out["doi"] = "10.48550/arXiv." + re.sub(r"v[0-9]+$", "", ids["arxiv"])
    arxiv_line = _ARXIV_JOURNAL.match(out.get("journal", "")) is not None
    if arxiv_line and re.match(r"\s*(abs/|arxiv:)", str(out.get("volume", "")), re.IGNORECASE):
        del out["volume"]  # CoRR's volume (abs/2401.00031, DBLP; Semantic Scholar's ArXiv) goes with its journal line
    # howpublished as a venue (an imported @misc's "NeurIPS 2023 Workshop"), not the links it may hold
    said = out.pop("howpublished") if "howpublished" in out and "\\url" not in out["howpublished"] else None
    if kind == venues.CONFERENCE:
        etype = "inproceedings"
        if arxiv_line:
            del out["journal"]
        if "booktitle" not in out:
            out["booktitle"] = out.pop("journal", None) or said or encode_latex(venue)
    elif kind == venues.JOURNAL:
        etype = "article"
        if arxiv_line or "journal" not in out:
            out["journal"] = out.pop("booktitle", None) or said or encode_latex(venue)
    else:
        etype = "misc"
        if arxiv_line:
            del out["journal"]
        if venues.venue_kind(str(out.get("booktitle", ""))) == venues.PREPRINT:
            del out["booktitle"]  # @inproceedings{booktitle = {arXiv}}: a preprint, written as one
        block_type = typecodes.thesis_type(_BIBLATEX_TYPES.get(block_type, block_type), out.get("type_field"))
        if kind == venues.OTHER and block_type in CLASSIC_TYPES and block_type not in ("article", "inproceedings"):
            etype = block_type
        own_field = _VENUE_FIELD.get(etype)
        if own_field and own_field not in out and venues.stated(venue):  # a report naming its publisher, a biblatex
            # @thesis its institution: the venue goes where the exported type has it
            out[own_field] = out.pop("institution" if own_field == "school" else "publisher", None) or encode_latex(venue)
        # a thesis, report or book names its school, institution or publisher in a field of its own
        own = {"eprint", "journal", "booktitle", "school", "institution", "publisher", "organization"}
        if etype == "misc" and said:
            out["howpublished"] = said
        elif "howpublished" not in out and not own & set(out) and venues.stated(venue):
            out["howpublished"] = said or encode_latex(venue)
        elif (etype == "misc" and "howpublished" not in out and venues.stated(venue)
              and not re.match(r"\s*(arxiv|corr|openreview|preprint)\b", venue, re.IGNORECASE)):
            out["howpublished"] = encode_latex(venue)  # "Submitted to ICLR 2023" of a journal line a @misc has not
    for name in _LACKS.get(etype, ()):  # a field the exported type has not (biber: "invalid field")
        out.pop(name, None)
    if "type_field" in out:  # BibTeX's own field type: a biblatex code read (mathesis -> Master's thesis)
        kind_said = typecodes.written(out.pop("type_field"), etype)
        if kind_said and etype in _TYPE_FIELD:
            out["type_field"] = kind_said
        elif kind_said:  # where the exported type has none, in the note
            out["note"] = f"{out['note']}; {kind_said}" if out.get("note") else kind_said
    if "url" not in out and "howpublished" not in out and record.get("url"):
        out["url"] = str(record["url"]).split(" ; ")[0]
    written = " ".join(str(out.get(f, "")) for f in ("url", "howpublished", "note"))
    missing = [u for u in ids.get("url") or [] if u not in written]
    if missing:  # every landing page of the record survives the export (and a re-import)
        if "url" not in out:
            out["url"] = missing.pop(0)
        if missing:
            links = "; ".join(f"\\url{{{u}}}" for u in missing)
            out["howpublished"] = f"{out['howpublished']}; {links}" if out.get("howpublished") else links
    if record.get("bibtex_key") and record["bibtex_key"] != record["key"]:
        out["ids"] = record["bibtex_key"]
    ordered = {k: out[k] for k in FIELD_ORDER if out.get(k)}
    ordered.update(sorted((k, v) for k, v in out.items() if k not in ordered and v))
    return etype, ordered


def header(survey: str = "") -> str:
    """The comment lines at the top of ``reports/papers.bib``; ``survey`` (the survey's own lines,
    the taxonomy's ``survey.bib_header``) goes after the first, each of its lines commented and its ``@``
    written ``(at)``."""
    lines = ["Generated by `masrl build` from corpus/papers/*.yaml -- do not edit by hand.",
             *[line for line in survey.splitlines() if line.strip()],
             "Entry keys are the record keys shown in every table; `ids` holds an older key (biber resolves it)."]
    # BibTeX has no comment syntax: text between entries is skipped, but an @ anywhere starts an entry
    return "".join(f"% {line.replace('@', '(at)')}\n" for line in lines) + "\n"


def export(records: list[dict], survey: str = "") -> str:
    """``reports/papers.bib``: one entry per retained record, sorted by record key, under the
    :func:`header` with the survey's lines ``survey`` (:func:`header` followed by :func:`entries`).

    Raises:
        ValueError: if two records share a key or one's key is another's alias, in any case
            (validation prevents both; a record's own alias may differ from its key in case only).
    """
    return document(header(survey), entries(records))


def document(head: str, body: str) -> str:
    """The text of ``reports/papers.bib``: its :func:`header` ``head``, the ``@preamble`` its entries need, and the
    entries ``body`` (:func:`entries`). BibTeX's sorting tricks (``{\\noopsort{b}}``) print nothing: they are defined
    in the preamble where an entry uses one, so that the file stands on its own (masrl does not import a .bib's
    @preamble, where they were defined)."""
    used = sorted(set(_SORT_MACRO.findall(body)))
    preamble = "".join(f"\\providecommand{{\\{name}}}[1]{{}}" for name in used)
    return head + (f'@preamble{{ "{preamble}" }}\n\n' if preamble else "") + body


#: The sorting macros of BibTeX styles' documentation and of common .bib files (hidden by
#: :func:`masrl.bib.latex.decode_latex` too).
_SORT_MACRO = re.compile(r"\\(noopsort|noop|SortNoop|sortnoop)(?![A-Za-z])")


def entries(records: list[dict]) -> str:
    """The entries of ``reports/papers.bib`` without its header: one per retained record, sorted
    by record key, each ending in a blank line. Raises ValueError as :func:`export` does."""
    import bibtexparser
    from bibtexparser import Library
    from bibtexparser.model import Entry, Field

    library = Library()
    seen: dict[str, tuple[int, str]] = {}  # lower-case name -> (which record, its key)
    for i, record in enumerate(sorted(records, key=lambda r: r["key"])):
        etype, fields = entry_fields(record)
        for name in [record["key"]] + ([fields["ids"]] if "ids" in fields else []):
            # BibTeX matches keys in any case (biber exactly): an alias that is the record's own key in
            # another case (Yao2023 of yao2023, as Google Scholar and Zotero write keys) is that entry's
            owner, key = seen.setdefault(name.lower(), (i, record["key"]))
            if owner != i:
                raise ValueError(f"BibTeX key {name!r} of {record['key']} is also used by {key}")
        entry_fields_ = []
        for name, value in fields.items():
            if name == "month" and month_macro(value):  # jun, whether the record says 6, 06, June or Jun.
                fld = Field(name, month_macro(value))
                fld.enclosing = "no-enclosing"
            else:
                fld = Field(_SPELLING.get(name, name), balance_braces(_field_source(name, value)))
            entry_fields_.append(fld)
        library.add(Entry(etype, record["key"], entry_fields_))
    fmt = bibtexparser.BibtexFormat()
    fmt.indent = "  "
    fmt.trailing_comma = True
    fmt.block_separator = "\n"
    return bibtexparser.write_string(library, bibtex_format=fmt)
