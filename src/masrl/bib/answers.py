"""What every answer of a public source must be before masrl keeps anything of it.

A source's answer is read by the module of its format (:mod:`.arxiv_feed`, :mod:`.crossref_json`,
:mod:`.openreview_json`, :mod:`.s2_json`); each raises :class:`FormatError` saying what is wrong,
and the caller names the source. This module holds what they share:

* :func:`decode_json`: JSON into typed structures (``msgspec``), refusing NaN and Infinity,
  nesting deeper than Python can follow, an object holding a key twice, and every value of the
  wrong type, with its place (``$.message.items[3].title``);
* :func:`clean`: a text field as masrl stores it: HTML and XML character references decoded
  (``Q&amp;A`` -> ``Q&A``, once more for a doubly escaped one), in a format that has markup
  (Crossref's) its tags dropped (JATS ``<jats:p>``, ``<i>``) and any other ``<...>`` kept as
  text, whitespace collapsed, and the characters masrl's text policy refuses
  (control, bidirectional, zero-width) removed — but an identifier holding one, or a blank, is
  refused (without it, it would be another identifier); a text longer than its limit is refused, so that
  nothing masrl writes is a cell its own sheets cannot read;
* :func:`person`: an author's name (or a part of it) as :func:`clean` keeps it, refused when it is
  not one person's name (a list or mapping written as text, a ``;`` or the word ``and`` joining
  names, more commas than a name has);
* :func:`day`: a date as ``YYYY-MM-DD``, refused when it is not a real day.
"""

from __future__ import annotations

import datetime
import html
import html.entities
import re

from ..core.placeholders import SUFFIXES, is_suffix_form
from ..core.text import describe, unsafe_characters, without_unsafe

#: The longest text kept of each kind of field (characters). arXiv caps abstracts at 1,920
#: characters and titles far below 1,000; what is longer is not a paper's metadata.
MAX_CHARS = {"title": 1000, "abstract": 20000, "venue": 1000, "author": 300, "identifier": 300}
#: The most authors kept of one paper (a cell of queue.csv stays below the CSV reader's 131,072 characters).
MAX_AUTHORS = 300


#: How a refused character of an identifier is named.
_KINDS_SAID = {"control": "a control character", "bidirectional": "a bidirectional control", "zero-width": "zero-width",
               "blank": "a blank"}


class FormatError(Exception):
    """An answer that is not what the source's documented format says; ``str()`` says what, where."""


#: Crossref's markup (its documented face markup, HTML's blocks, JATS and MathML elements); a
#: block becomes a space, inline markup nothing (``CO<sub>2</sub>`` is ``CO2``). A tag is markup only
#: where it is one of a well-formed pair (``<i>...</i>``), closes itself (``<br/>``) or is ``<br>``: a
#: lone ``<i>`` is text (``the <i> element``), as is any other ``<...>`` (``<think>``, ``x<y and y>z``)
#: and a tag whose attributes are not ``name="value"``.
_BLOCKS = frozenset({"p", "br", "div", "title", "sec", "list", "list-item", "label", "abstract", "li", "ul", "ol"})
_INLINE = frozenset({"b", "i", "em", "strong", "u", "ovl", "sup", "sub", "scp", "sc", "tt", "font", "span", "small",
                     "italic", "bold", "underline", "monospace", "inline-formula", "math"})
_TAG = re.compile(r"""<(/?)((?:jats:|mml:)?[A-Za-z][A-Za-z0-9_.-]*)(?:\s+[A-Za-z_:][\w:.-]*\s*=\s*(?:"[^"<>]*"|'[^'<>]*'))*\s*(/?)>""")


def _without_markup(text: str) -> str:
    """``text`` without the markup tags of :data:`_TAG`'s comment (the others kept as text)."""
    tags = [m for m in _TAG.finditer(text) if _known(m.group(2).lower())]
    markup: set[int] = set()
    open_tags: list[tuple[str, int]] = []
    for k, tag in enumerate(tags):
        name = tag.group(2).lower()
        if tag.group(3) or (name == "br" and not tag.group(1)):
            markup.add(k)  # <br/>, <br>
        elif not tag.group(1):
            open_tags.append((name, k))
        elif open_tags and open_tags[-1][0] == name:
            markup.update((open_tags.pop()[1], k))
        else:
            open_tags.clear()  # a close that opened nothing: what is open before it is not markup either
    out, at = [], 0
    for k, tag in enumerate(tags):
        if k in markup:
            local = tag.group(2).lower().rpartition(":")[2]
            out += [text[at:tag.start()], " " if local in _BLOCKS and not tag.group(2).lower().startswith("mml:") else ""]
            at = tag.end()
    return "".join(out) + text[at:]


def _known(name: str) -> bool:
    prefix, _, local = name.rpartition(":")
    return prefix in ("jats", "mml") or (not prefix and (local in _BLOCKS or local in _INLINE))


_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _character(reference: re.Match) -> str:
    """The text of one complete character reference (``&amp;``, ``&#38;``, ``&#x26;``); an unknown name is
    kept as sent. Only the whole reference counts: ``&not=2`` (no ``;``) is text, and so is ``&notit;``,
    which :func:`html.unescape` would read as ``&not`` followed by ``it;``."""
    found = reference.group(0)
    return html.unescape(found) if found[1] == "#" else html.entities.html5.get(found[1:], found)


def clean(text: object, what: str, where: str, markup: bool = False) -> str:
    """``text`` as one stored line (see the module docstring); ``what`` is the kind of field
    (a key of :data:`MAX_CHARS`), ``where`` its place in the answer, for the error.
    ``markup=True`` for a field whose format has markup (Crossref's): its tags are taken out
    (:data:`_TAG`); in a plain-text field (arXiv's, OpenReview's, Semantic Scholar's) ``<...>`` is text.

    A title longer than its limit is cut one character past it: the record is counted unusable
    (:func:`masrl.checks.protocol.record_cell_problems`), the rest of the answer kept.

    Raises:
        FormatError: ``text`` is not a string, or longer than the limit of its kind (but a title).
    """
    if text is None:
        return ""
    if not isinstance(text, str):
        raise FormatError(f"{where}: {type(text).__name__} {_short(text)} where the format has a text")
    limit = MAX_CHARS[what]
    if what == "title" and len(text) > 4 * limit:  # a record's problem (an abstract in the title?), not the answer's
        text = text[:4 * limit]
    if len(text) > 4 * limit:  # refused before any work on a huge value
        raise FormatError(f"{where}: {_article(what)} {what} of {len(text):,} characters, more than the {limit:,} masrl keeps")
    for _ in range(2 if what != "identifier" else 0):  # one level of escaping, and one more (&amp;lt;); an id as sent
        if "&" not in text or not _ENTITY.search(text):
            break
        text = _ENTITY.sub(_character, text)
    if markup and what != "identifier":  # an id is never markup (a DOI may hold <...>): kept as sent
        text = _without_markup(text)
    if what == "identifier":  # an id with a character taken out would be another id than the source sent
        text = text.strip(" ")
        if bad := unsafe_characters(text) or [(ch, "blank") for ch in text if ch.isspace()][:1]:
            ch, kind = bad[0]
            raise FormatError(f"{where}: the identifier {_short(text)} holds {describe(ch)} ({_KINDS_SAID.get(kind, kind)}); "
                              "masrl keeps an identifier only as the source sent it")
    text = without_unsafe(text)
    if what == "title" and len(text) > limit:  # kept one character past the limit: the record is counted unusable
        return text[:limit + 1]
    if len(text) > limit:
        raise FormatError(f"{where}: {_article(what)} {what} of {len(text):,} characters, more than the {limit:,} masrl keeps")
    return text


def source_doi(text: object, where: str) -> tuple[str, str]:
    """``(doi, arxiv)`` of a source's DOI field: the DOI as :func:`clean` keeps an identifier, or
    for arXiv's own DOI (``10.48550/arXiv.<id>``) the arXiv id it names and no DOI (the same paper).

    Raises:
        FormatError: not a DOI (or not text, or holding a character an identifier cannot hold).
    """
    from urllib.parse import unquote

    from .identifiers import IdentifierError, parse

    value = clean(text, "identifier", where)
    if not value:
        return "", ""
    if unquote(value) != value:  # read as a DOI, %41 would become A: another DOI than the one sent
        raise FormatError(f"{where}: the DOI {value[:80]!r} holds percent-escapes; masrl keeps an identifier only as "
                          "the source sent it")
    try:
        ident = parse(value, "doi")
    except IdentifierError as err:  # arXiv's DOI of an id arXiv never gave is named as such
        raise FormatError(f"{where}: {str(err)[:200]}" if "arXiv DOI" in str(err) else
                          f"{where}: {value[:80]!r} is not a DOI") from None
    return ("", ident.key.split(":", 1)[1]) if ident.scheme == "arxiv" else (ident.value, "")  # an arXiv id without its version


#: What no one person's name holds: a list or mapping written as text, ``;`` or ``&`` or the word
#: ``and`` (several people), ``et al.``, TeX's special characters (``\`` would be read as a command),
#: ``~``/``_`` (an OpenReview profile id such as ``~Grace_Hopper1``, not a name), or ``<``/``>`` (an
#: address such as ``Grace <grace@example.org>``, or markup left in a plain-text name).
_NOT_A_NAME = re.compile(r"[\[\]{};&\\~_$^%#<>]|(?:^|\s)(?:and|et\s+al\.?)(?:\s|$)", re.IGNORECASE)
#: A list or mapping written as text where a name goes (``['A', 'B']``, ``{'name': 'A'}``, ``42, ['x']``): a bracket
#: around quoted items, or a quoted key or item followed by ``:`` or ``,``. A stray brace is one record's problem.
_DATA_AS_TEXT = re.compile(r"[\[{]\s*['\"]|['\"]\s*[\]}]|['\"]\s*[:,]\s*['\"\[{]")


def person(text: object, where: str, part: bool = False, markup: bool = False) -> str:
    """One person's name from a source, cleaned (:func:`clean`): ``Jane Doe`` or ``Doe, Jane``;
    with ``part``, a given or family name alone (no comma).

    Any other name no record may hold (a placeholder such as ``-``, several people, an affiliation) is
    returned as it is: the record is counted unusable (:func:`not_one_person`,
    :func:`masrl.checks.protocol.record_cell_problems`) and the rest of the answer kept.

    A part that holds a comma (``"family": "Smith, PhD"``) is returned too: the name it makes is that
    record's problem (:func:`not_one_person`).

    Raises:
        FormatError: a name that holds a list or mapping written as text (``['A', 'B']``), or more
            commas than a name has (a list of names in one).
    """
    name = clean(text, "author", where, markup)
    commas = name.count(",") - (1 if not part and is_suffix_form(name) else 0)  # "King, Jr., Martin Luther" is one
    if _DATA_AS_TEXT.search(name) or (commas > 1 and not part):  # a list, a mapping or a list of names
        raise FormatError(f"{where}: {_short(name)} is not one person's name")
    return name  # any other name no record may hold is that record's problem (not_one_person): it is counted unusable


def not_one_person(name: str) -> str | None:
    """Why an author a source sent (as a record stores it) is not one person, or None: it holds ``;`` or
    ``&`` or the word ``and`` (several people), ``et al.``, TeX's special characters, ``~``/``_`` (an
    OpenReview profile id) or ``<``/``>`` (an address, or markup); an organisation (in braces) is one.
    A record with such an author is counted unusable: no decision could make it a record."""
    if name.startswith("{") and name.endswith("}"):  # an organisation: one, unless it is several names in one
        return f"{_short(name[1:-1])} is not one organisation's name" if ";" in name else None
    if _NOT_A_NAME.search(name):
        return f"{_short(name)} is not one person's name"
    parts = name.split(",")
    if len(parts) > 3:
        return f"{_short(name)} is not one person's name: it has more commas than a name written Last, Jr, First"
    if len(parts) == 3 and parts[1].strip().lower() not in SUFFIXES:
        return (f"{_short(name)} is not one person's name: only a generational suffix (Jr., Sr., II, III, IV, 2nd, 3rd) "
                "stands between two commas, as in Last, Jr, First")
    return None


def organisation_name(text: object, where: str, markup: bool = False) -> str:
    """One organisation's name from a source, cleaned (:func:`clean`).

    Raises:
        FormatError: a name that holds a list or mapping written as text. Several names in one
            (``A; B``) are that record's problem (:func:`not_one_person`), and TeX's special
            characters are characters (``The 100% Open Consortium``): papers.bib escapes them.
    """
    name = clean(text, "author", where, markup)
    if _DATA_AS_TEXT.search(name):  # a list or mapping serialised into a name: the answer is broken
        raise FormatError(f"{where}: {_short(name)} is not one organisation's name")
    return name  # several names in one ('A; B') are that record's problem (not_one_person): it is counted unusable


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def day(text: object, where: str) -> str:
    """``YYYY-MM-DD`` of a date or an RFC 3339 date-time (``2026-05-11``, ``2026-05-11T17:00:00Z``).

    Raises:
        FormatError: naming ``where`` and the value, when it is not a real day.
    """
    value = str(text) if isinstance(text, str) else None
    match = re.fullmatch(r"([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})?)?",
                         value or "")
    try:
        if match is None:
            raise ValueError
        if "T" in value or "t" in value or " " in value:
            moment = datetime.datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00"))
            if moment.tzinfo is not None:
                moment = moment.astimezone(datetime.timezone.utc)
            return moment.date().isoformat()
        return datetime.date.fromisoformat(match.group(1)).isoformat()
    except (ValueError, OverflowError):  # OverflowError: a day moved past year 1 or 9999 by its UTC offset
        raise FormatError(f"{where}: {_short(text)} is not a date (YYYY-MM-DD or an RFC 3339 date-time)") from None


def decode_json(body: bytes, kind: type):
    """``body`` decoded as JSON into ``kind`` (a ``msgspec`` type).

    Raises:
        FormatError: not JSON (an HTML page, an empty body, NaN), nested too deep, or a value of
            another type than the format's, with its place.
    """
    import msgspec

    if not body.strip():
        raise FormatError("an empty answer where the format has a JSON document")
    if body.lstrip()[:1] == b"<":
        raise FormatError("an HTML or XML page where the format has a JSON document")
    try:
        value = msgspec.json.decode(body, type=kind)
    except RecursionError:
        raise FormatError("JSON nested deeper than any answer of the format") from None
    except msgspec.ValidationError as err:
        raise FormatError(f"not the format: {err}") from None
    except msgspec.DecodeError as err:
        raise FormatError(f"not JSON ({err})") from None
    _no_key_twice(body)
    return value


def _no_key_twice(body: bytes) -> None:
    """Refuse a JSON document in which one object holds a key twice (JSON's readers keep one of the
    two values, each its own: which one is the answer is not said)."""
    import json

    def pairs(items):
        keys = [key for key, _ in items]
        if len(set(keys)) != len(keys):
            twice = next(key for key in keys if keys.count(key) > 1)
            raise FormatError(f"an object holds the key {twice[:60]!r} twice: not one answer")
        return None  # nothing of the values is kept: the typed decoding above is the answer

    try:
        json.loads(body, object_pairs_hook=pairs)
    except (ValueError, RecursionError):  # read already by the strict decoder; what it accepted is JSON
        pass


def named_authors(names) -> list[str]:
    """The authors of an answer's list of names (each as the record writes it, or "" for an author
    the answer names by no part): the named ones in order, then ``others`` (*et al.*) when any is
    unnamed, so that no author is dropped without a word (the screener sees ``others``)."""
    names = list(names)
    return [n for n in names if n] + (["others"] if not all(names) else [])
