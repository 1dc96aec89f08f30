"""A BibTeX name list split as BibTeX splits it, with each name's special characters braced.

BibTeX splits an ``author`` or ``editor`` field at the word ``and`` (any case) between blanks at brace
depth 0: ``{Agents and Tools Lab}`` stays one name. Within a name it splits words at blanks, ``~`` and
``-`` at depth 0, so an accent command written bare (``Nguy\\~{\\^e}n``, ``\\O{}stergaard``) would be
cut in two; :func:`brace_specials` writes each such command as BibTeX's "special character"
(``Nguy{\\~{\\^e}}n``), which BibTeX reads as one letter and LaTeX sets the same.
"""

from __future__ import annotations

import re

_AND = re.compile(r"[ \t\n\r\f\v]+and(?=[ \t\n\r\f\v])", re.IGNORECASE)


def split_names(value: str) -> list[str]:
    """The names of a BibTeX name list, in order, each as written with its blanks collapsed (for a
    message to quote; :func:`brace_specials` before reading its parts); a name left empty by ``and`` twice in a row or at an end is ``""`` (BibTeX
    counts it too), for the caller to name. A value of blanks only is no name."""
    if not value.strip():
        return []
    names, depth, start, i = [], 0, 0, 0
    text = f" {value} "
    while i < len(text):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and (found := _AND.match(text, i)):
            names.append(text[start:i])
            start = i = found.end()
            continue
        i += 1
    names.append(text[start:])
    return [" ".join(name.split()) for name in names]


def brace_specials(name: str) -> str:
    """``name`` with every control sequence at brace depth 0, and its argument, in braces:
    ``\\"{O}zt\\"urk`` -> ``{\\"{O}}zt{\\"u}rk``, ``\\O{}stergaard`` -> ``{\\O{}}stergaard``; a name
    without one as it is."""
    out, depth, i = [], 0, 0
    while i < len(name):
        ch = name[i]
        if ch == "\\" and depth == 0 and i + 1 < len(name):
            end = _command_end(name, i)
            out.append("{" + name[i:end] + "}")
            i = end
            continue
        depth += 1 if ch == "{" else -1 if ch == "}" and depth else 0
        out.append(ch)
        i += 1
    return "".join(out)


#: LaTeX's accents named by a letter (``\\c c``, ``\\v{s}``) and by a symbol (``\\'e``): each takes an argument.
ACCENT_WORDS = frozenset("cvuHkbdrt")
ACCENT_SYMBOLS = frozenset("'`^\"~=.")
#: LaTeX's commands for a letter (``\\i``, ``\\ss``, ``\\O``): TeX takes the blanks after them out (``Gro\\ss e`` is Große).
_LETTER_WORDS = frozenset("i j ss o O aa AA ae AE oe OE l L dh DH th TH ng NG dj DJ".split())


def _command_end(text: str, start: int) -> int:
    """Where the control sequence at ``start`` (a backslash) ends with its argument: a braced group
    (``\\~{\\^e}``, ``\\O{}``), or, after an accent, one letter (``\\"u``, ``\\~n``, ``\\c c``) or command (``\\'\\i``);
    blanks before an accent's argument are skipped, as TeX skips them (``Ren\\' e`` is René), and so are blanks after a
    letter's command before the rest of its word (``Gro\\ss e`` is Große)."""
    end = start + 1
    if text[end].isalpha():
        while end < len(text) and text[end].isalpha():
            end += 1
        accent = text[start + 1:end] in ACCENT_WORDS
        if text[start + 1:end] in _LETTER_WORDS:
            after = end
            while after < len(text) and text[after] in " \t":
                after += 1
            # Garc\'\i a, \TH \'orsson, \O {s}tergaard: the word goes on
            if after > end and after < len(text) and (text[after].isalpha() or text[after] in "{\\"):
                return after
    else:
        end += 1
        accent = text[start + 1] in ACCENT_SYMBOLS
    if accent:
        arg = end
        while arg < len(text) and text[arg] in " \t":
            arg += 1
        if arg < len(text) and text[arg].isalpha():
            return arg + 1
        if text[arg:arg + 1] == "\\" and arg + 1 < len(text) and text[arg + 1].isalpha():  # \'\i
            return _command_end(text, arg)
        if text[arg:arg + 1] == "{":
            end = arg
    if end < len(text) and text[end] == "{":
        depth = 0
        for j in range(end, len(text)):
            depth += 1 if text[j] == "{" else -1 if text[j] == "}" else 0
            if depth == 0:
                return j + 1
    return end
