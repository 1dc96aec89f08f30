"""One policy for the characters of free text: titles, names, one-liners, notes, reasons,
labels, statements, everything a person writes and a report shows.

Refused everywhere, because a reader cannot see them and they change what the text shows
(Unicode TR#36 "Unicode Security Considerations"; "Trojan Source", CVE-2021-42574):

* control characters: C0 (U+0000-U+001F) except the line feed and tab of multi-line text,
  DEL (U+007F), C1 (U+0080-U+009F); they reach terminals and Markdown raw (ESC starts a
  terminal escape sequence, BS erases what was shown, BEL rings);
* line and paragraph separators (U+2028, U+2029), which some renderers break at and
  others do not;
* bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), which
  reorder the text shown (U+202E, RIGHT-TO-LEFT OVERRIDE, makes ``gpj.exe`` look like ``exe.jpg``);
* zero-width characters that hide or split words (U+200B, U+2060, U+FEFF, U+180E); the
  joiners U+200C and U+200D are kept between two letters or marks outside ASCII (Persian, Indic scripts
  and emoji sequences need them) and refused elsewhere;
* every other character Unicode says to show as nothing (``Default_Ignorable_Code_Point`` of
  DerivedCoreProperties.txt, UAX #44): the soft hyphen U+00AD, the Hangul fillers U+115F, U+1160,
  U+3164 and U+FFA0, the combining grapheme joiner U+034F, the invisible operators U+2061-U+2064,
  the musical formatting characters U+1D173-U+1D17A, the tag characters U+E0000-U+E007F and the rest
  of that property; the interlinear annotation controls U+FFF9-U+FFFB, which hide text; and the
  characters drawn as an empty space that is not a space (U+2800 BRAILLE PATTERN BLANK, U+1D159
  MUSICAL SYMBOL NULL NOTEHEAD). Kept where they are part of what is shown: a variation selector
  right after the letter, number or symbol outside ASCII that it selects a glyph of (an emoji's
  U+FE0F, a CJK ideograph's variant; or a keycap ``1`` U+FE0F U+20E3), and the tag characters of an
  emoji flag sequence (U+1F3F4, tags, U+E007F: the flag of Scotland);
* noncharacters (U+FDD0-U+FDEF and the last two code points of every plane, U+FFFE, U+FFFF, ...),
  which are not characters at all (XML, and so the Atom feed, cannot hold U+FFFE or U+FFFF);
* lone surrogates (U+D800-U+DFFF): bytes that were not UTF-8 (a terminal in another encoding),
  which no file can hold as text.

:func:`unsafe_characters` is the one test of every command and check that reads text; the
network sources drop what it names (:func:`without_unsafe`).
"""

from __future__ import annotations

import re
import unicodedata

_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_ZERO_WIDTH = frozenset("\u200b\u2060\ufeff\u180e")
_JOINERS = frozenset("\u200c\u200d")
#: Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1; the property is stable:
#: code points are added to it only where unassigned ones are reserved for it, all listed here)
#: without the characters named above, and the annotation controls U+FFF9-U+FFFB.
_INVISIBLE = ("\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u180f\u2061-\u2065\u206a-\u206f\u3164"
              "\ufe00-\ufe0f\uffa0\ufff0-\ufffb\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
#: Drawn as an empty space, but not a space: text that looks blank, or words that look apart.
_BLANK = frozenset("\u2800\U0001d159")
#: Variation selectors: kept right after the character they select a glyph of (:func:`_kind`).
_SELECTORS = re.compile("[\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_INVISIBLE_CHAR = re.compile(f"[{_INVISIBLE}]")
#: The tag characters of an emoji tag sequence (U+1F3F4 WAVING BLACK FLAG, tags, U+E007F CANCEL TAG).
_TAG_SEQUENCE = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(f"{chr(p * 0x10000 + 0xFFFE)}{chr(p * 0x10000 + 0xFFFF)}" for p in range(17))
#: Every character :func:`_kind` may refuse (a superset: a joiner between two letters, a line feed
#: or a tab of multi-line text, a selector after its character pass): text without one of them is
#: safe, which one C-level search says.
_CANDIDATES = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
                         + "".join(sorted(_BIDI | _ZERO_WIDTH | _JOINERS | _BLANK)) + _INVISIBLE + _NONCHARACTERS + "]")


def _selected(text: str, i: int) -> bool:
    """Whether the variation selector at ``i`` follows a character it can select a glyph of: a
    letter, mark, number or symbol outside ASCII that is not invisible itself, or an ASCII digit,
    ``#`` or ``*`` of a keycap sequence (U+FE0F then U+20E3)."""
    if i == 0:
        return False
    base = text[i - 1]
    if base in "0123456789#*":
        return text[i] == "\ufe0f" and text[i + 1:i + 2] == "\u20e3"
    return (not base.isascii() and unicodedata.category(base)[0] in "LMNS" and not _INVISIBLE_CHAR.match(base)
            and base not in _BLANK)


def _in_tag_sequence(text: str, i: int) -> bool:
    """Whether the tag character at ``i`` belongs to an emoji tag sequence (a subdivision flag)."""
    start = i
    while start and "\U000e0020" <= text[start - 1] <= "\U000e007f":
        start -= 1
    match = _TAG_SEQUENCE.match(text, start - 1) if start else None
    return match is not None and match.start() < i < match.end()


def _kind(text: str, i: int, multiline: bool) -> str | None:
    ch = text[i]
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        return "not UTF-8"
    if code < 32 or code == 0x7F or 0x80 <= code <= 0x9F:
        return None if multiline and ch in "\n\t" else "control"
    if ch in "\u2028\u2029":
        return "control"
    if ch in _BIDI:
        return "bidirectional"
    if ch in _ZERO_WIDTH:
        return "zero-width"
    if ch in _JOINERS:
        around = (text[i - 1] if i else "", text[i + 1] if i + 1 < len(text) else "")
        # a letter or a mark on each side (Sinhala's ශ්‍රී joins after the al-lakuna sign, Devanagari after the virama);
        # after a virama, also at a word's end (Malayalam's chillu written before Unicode 5.1: ന്‍)
        virama = (bool(around[0]) and unicodedata.combining(around[0]) == 9 and ch == "\u200d"
                  and not (around[1].isascii() and around[1].isalnum()))
        if not virama and not all(c and (c.isalpha() or unicodedata.category(c)[0] == "M" or ord(c) > 0x2000)
                                  and not c.isascii() for c in around):
            return "zero-width"
        return None
    if ch in _BLANK:
        return "blank"
    if 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE:
        return "noncharacter"
    if _SELECTORS.match(ch):
        return None if _selected(text, i) else "invisible"
    if 0xE0020 <= code <= 0xE007F:
        return None if _in_tag_sequence(text, i) else "invisible"
    return "invisible" if _INVISIBLE_CHAR.match(ch) else None


def may_be_unsafe(text: str) -> bool:
    """Whether ``text`` holds a character :func:`unsafe_characters` looks at (a quick test: when
    False, it finds nothing)."""
    return _CANDIDATES.search(text) is not None


def unsafe_characters(text: str, multiline: bool = False) -> list[tuple[str, str]]:
    """``[(character, kind)]`` of every refused character of ``text`` (first occurrence of each, in
    order); kinds: ``control``, ``bidirectional``, ``zero-width``, ``invisible``, ``blank``,
    ``noncharacter``, ``not UTF-8``. ``multiline`` allows the line feed and the tab."""
    found: dict[str, str] = {}
    for match in _CANDIDATES.finditer(text):
        i, ch = match.start(), match.group()
        if ch not in found and (kind := _kind(text, i, multiline)):
            found[ch] = kind
    return list(found.items())


#: Names of the control characters seen most (Unicode's name aliases; controls have no name).
_CONTROL_NAMES = {0: "NULL", 7: "BELL", 8: "BACKSPACE", 9: "TAB", 10: "LINE FEED", 11: "LINE TABULATION",
                  12: "FORM FEED", 13: "CARRIAGE RETURN", 27: "ESCAPE", 127: "DELETE", 0x85: "NEXT LINE"}
_KINDS = {"control": "a control character", "bidirectional": "a bidirectional control", "zero-width": "zero-width",
          "invisible": "invisible", "blank": "shown as a blank that is not a space",
          "noncharacter": "not a character"}


#: A terminal's escape sequence (ECMA-48): CSI (``ESC [`` or U+009B, parameters, intermediates, a final byte), OSC and
#: the other strings (``ESC ]`` ... BEL or ``ESC \\``), or ESC and one character.
_ESCAPE_SEQUENCE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -~]?")


def without_unsafe(text: str) -> str:
    """``text`` on one line (whitespace collapsed) without the characters the policy refuses, taken
    out until none is left: taking one out can make its neighbour refused (a zero-width joiner that
    joined a Hangul filler is left joining nothing), so each pass drops what the last one uncovered. A terminal's
    escape sequence goes whole (``ESC [31m``, ``ESC ]0;title BEL``: ECMA-48's control sequences), not only its ESC."""
    if "\x1b" in text or "\x9b" in text:
        text = _ESCAPE_SEQUENCE.sub("", text)
    text = " ".join(text.split())
    while drop := {ch for ch, _ in unsafe_characters(text)}:
        text = " ".join("".join(ch for ch in text if ch not in drop).split())
    return text


def describe(ch: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``, ``U+001B ESCAPE``; a lone surrogate as the byte it stands for."""
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:
        return f"the byte 0x{code - 0xDC00:02X}"
    name = _CONTROL_NAMES.get(code) or unicodedata.name(ch, "")
    if not name:
        name = ("CONTROL" if unicodedata.category(ch) == "Cc" else
                "NONCHARACTER" if 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE else "UNASSIGNED")
    return f"U+{code:04X} {name}"


def text_problem(text: str, multiline: bool = False) -> str | None:
    """Why ``text`` breaks the policy (naming every refused character), or None.

    >>> text_problem("safe") is None
    True
    >>> text_problem("evil\\u202etxt.exe")
    'contains a character that is invisible or changes how the text shows (U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control); remove it'
    """
    bad = unsafe_characters(text, multiline)
    if not bad:
        return None
    if all(kind == "not UTF-8" for _, kind in bad):
        return (f"contains bytes that are not UTF-8 ({', '.join(describe(ch) for ch, _ in bad)}); write the text in UTF-8 "
                "(check the terminal's or the file's encoding)")
    one = len(bad) == 1
    return (f"contains {'a character' if one else 'characters'} that {'is' if one else 'are'} invisible or "
            f"change{'s' if one else ''} how the text shows ({'; '.join(f'{describe(ch)}, {_KINDS.get(kind, kind)}' for ch, kind in bad)}); "
            f"remove {'it' if one else 'them'}")


def printable(text: str, multiline: bool = False) -> str:
    """``text`` as a terminal may print it: every character the policy refuses (line breaks and tabs
    too, unless ``multiline``) written as its Python escape (``\\x1b``, ``\\u202e``, ``\\n``), so
    that a cell of a sheet read before it was checked can neither clear the screen nor reorder what
    is shown."""
    if not may_be_unsafe(text):
        return text
    bad = {ch for ch, _ in unsafe_characters(text, multiline)}
    return "".join(ch.encode("unicode_escape").decode("ascii") if ch in bad else ch for ch in text)


def json_printable(text: str) -> str:
    """JSON text as a terminal may print it: every character the policy refuses written as its JSON
    escape (``\\u009b``, an astral one as its surrogate pair), so that a value of the data can neither
    act on the terminal (a C1 control such as U+009B is one, as ESC is) nor reorder what is shown. The
    same JSON value: such characters stand only inside strings, where ``json.dumps`` already escaped
    line breaks and C0 controls."""
    if not may_be_unsafe(text):
        return text
    bad = {ch for ch, _ in unsafe_characters(text, multiline=True)}

    def escape(ch: str) -> str:
        code = ord(ch)
        if code < 0x10000:
            return f"\\u{code:04x}"
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

    return "".join(escape(ch) if ch in bad else ch for ch in text)


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is one or more of the digits 0-9: a whole number as files and protocols
    write it (``str.isdigit`` is also true of ``²``, which ``int`` refuses, and of ``١``, a digit of
    another script)."""
    return text.isascii() and text.isdigit()


#: The environment variables that hold a secret masrl sends (a key): their values are never printed.
SECRET_VARIABLES = ("MASRL_S2_API_KEY",)


def _secret_forms() -> list[tuple[str, set[str]]]:
    """``(variable, forms)`` of every secret set in the environment (a value of 4 characters or more):
    the value as sent and as a URL would carry it."""
    import os
    from urllib.parse import quote, quote_plus

    found = []
    for name in SECRET_VARIABLES:
        value = os.environ.get(name, "").strip()
        if len(value) >= 4:
            found.append((name, {value, quote(value, safe=""), quote_plus(value)}))
    return found


def without_secrets(text: str) -> str:
    """``text`` with the value of every variable of :data:`SECRET_VARIABLES` (a server may repeat
    the key it was sent in its error), in any case and URL-encoded too, written as the variable's
    name, ``<MASRL_S2_API_KEY>``."""
    for name, forms in _secret_forms():
        for form in forms:
            text = re.sub(re.escape(form), f"<{name}>", text, flags=re.IGNORECASE)
    return text


#: The shortest secret :func:`secrets_in` looks for: a shorter value (``test``) is a word a report may
#: hold; a Semantic Scholar key has 40 characters.
SECRET_MIN_CHARS = 12


def secrets_in(files: dict[str, bytes]) -> list[tuple[str, int, str]]:
    """``(file, line number, variable)`` of each line of the text files of ``files`` that holds the
    value of a variable of :data:`SECRET_VARIABLES` (of :data:`SECRET_MIN_CHARS` or more), in any of
    the forms :func:`without_secrets` hides (files that are not UTF-8 text, such as figures, are not read)."""
    secrets = [(name, re.compile("|".join(map(re.escape, sorted(forms))), re.IGNORECASE))
               for name, forms in _secret_forms() if min(map(len, forms)) >= SECRET_MIN_CHARS]
    found = set()
    for rel, data in files.items() if secrets else ():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        found.update((rel, text.count("\n", 0, match.start()) + 1, name)
                     for name, pattern in secrets for match in pattern.finditer(text))
    return sorted(found)
