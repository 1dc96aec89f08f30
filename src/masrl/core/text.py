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
  joiners U+200C and U+200D are kept between two letters outside ASCII (Persian, Indic scripts
  and emoji sequences need them) and refused elsewhere;
* lone surrogates (U+D800-U+DFFF): bytes that were not UTF-8 (a terminal in another encoding),
  which no file can hold as text.
"""

from __future__ import annotations

import re
import unicodedata

_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_ZERO_WIDTH = frozenset("\u200b\u2060\ufeff\u180e")
_JOINERS = frozenset("\u200c\u200d")
#: Every character :func:`_kind` may refuse (a superset: a joiner between two letters, a line feed
#: or a tab of multi-line text pass): text without one of them is safe, which one C-level search says.
_CANDIDATES = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
                         + "".join(sorted(_BIDI | _ZERO_WIDTH | _JOINERS)) + "]")


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
        if not all(c and (c.isalpha() or ord(c) > 0x2000) and not c.isascii() for c in around):
            return "zero-width"
    return None


def may_be_unsafe(text: str) -> bool:
    """Whether ``text`` holds a character :func:`unsafe_characters` looks at (a quick test: when
    False, it finds nothing)."""
    return _CANDIDATES.search(text) is not None


def unsafe_characters(text: str, multiline: bool = False) -> list[tuple[str, str]]:
    """``[(character, kind)]`` of every refused character of ``text`` (first occurrence of each, in
    order); kinds: ``control``, ``bidirectional``, ``zero-width``, ``not UTF-8``. ``multiline``
    allows the line feed and the tab."""
    found: dict[str, str] = {}
    for match in _CANDIDATES.finditer(text):
        i, ch = match.start(), match.group()
        if ch not in found and (kind := _kind(text, i, multiline)):
            found[ch] = kind
    return list(found.items())


#: Names of the control characters seen most (Unicode's name aliases; controls have no name).
_CONTROL_NAMES = {0: "NULL", 7: "BELL", 8: "BACKSPACE", 9: "TAB", 10: "LINE FEED", 11: "LINE TABULATION",
                  12: "FORM FEED", 13: "CARRIAGE RETURN", 27: "ESCAPE", 127: "DELETE", 0x85: "NEXT LINE"}
_KINDS = {"control": "a control character", "bidirectional": "a bidirectional control", "zero-width": "zero-width"}


def describe(ch: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``, ``U+001B ESCAPE``; a lone surrogate as the byte it stands for."""
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:
        return f"the byte 0x{code - 0xDC00:02X}"
    return f"U+{code:04X} {_CONTROL_NAMES.get(code) or unicodedata.name(ch, 'CONTROL')}"


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
