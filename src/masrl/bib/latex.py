"""LaTeX source <-> Unicode display text, with pylatexenc, and braces BibTeX can count.

:func:`decode_latex` reads a BibTeX field's LaTeX as text (``Gr\\'{e}goire`` -> ``Grégoire``),
keeping the text of text macros pylatexenc would drop (``\\texttt``, ``\\mbox``) and hiding
BibTeX's ``\\noop``; :func:`encode_latex` writes display text as LaTeX; :func:`balance_braces`
makes every field's braces balance as BibTeX and biber count them (every brace, also after a
backslash).
"""

from __future__ import annotations

import re
from functools import lru_cache


def collapse(value: str) -> str:
    """Whitespace runs (line breaks of a wrapped field) as one space."""
    return " ".join(value.split())


#: Text macros whose argument is the text itself: pylatexenc's parser knows their argument but
#: its text converter does not, so without these it would drop the argument (``\\texttt{Foo}``).
_TEXT_MACROS = ("texttt", "textsf", "textmd", "textup", "textnormal", "mbox", "hbox", "nocase")
#: Macros whose argument is not shown: BibTeX's sorting trick ``{\\noop{x}}Entry`` reads "Entry".
_HIDDEN_MACROS = ("noop",)
#: Literal braces as macros (how :func:`balance_braces` writes a brace without its pair).
_BRACE_MACROS = {"textbraceleft": "{", "textbraceright": "}"}


@lru_cache(maxsize=1)
def _decoder():
    from pylatexenc import latexwalker
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
    from pylatexenc.macrospec import MacroSpec

    text = get_default_latex_context_db()
    text.add_context_category("masrl", prepend=True, macros=[
        *(MacroTextSpec(m, simplify_repl="%(1)s") for m in _TEXT_MACROS),
        *(MacroTextSpec(m, simplify_repl="") for m in _HIDDEN_MACROS),
        *(MacroTextSpec(m, simplify_repl=v) for m, v in _BRACE_MACROS.items()),
    ])
    parse = latexwalker.get_default_latex_context_db()
    parse.add_context_category("masrl", prepend=True, macros=[
        *(MacroSpec(m, "{") for m in (*_TEXT_MACROS, *_HIDDEN_MACROS)), *(MacroSpec(m, "") for m in _BRACE_MACROS)])
    return LatexNodes2Text(latex_context=text, math_mode="text", strict_latex_spaces=True), parse


@lru_cache(maxsize=1)
def _encoder():
    from pylatexenc.latexencode import (
        RULE_REGEX,
        UnicodeToLatexConversionRule,
        UnicodeToLatexEncoder,
    )

    return UnicodeToLatexEncoder(
        conversion_rules=[
            UnicodeToLatexConversionRule(RULE_REGEX, [(re.compile(r"(https?://\S+)"), r"\\url{\1}")]),
            "defaults",
        ],
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


def decode_latex(text: str) -> str:
    """LaTeX source to display text: ``Gr\\'{e}goire`` -> ``Grégoire``, ``{LLM}`` -> ``LLM``.
    Pure; the last 16,384 texts decoded are remembered (every command that validates decodes each
    record's BibTeX fields, and ``masrl diff`` both sides)."""
    if "\\" not in text and "{" not in text and "$" not in text and "~" not in text:
        return text
    return _decode(text)


@lru_cache(maxsize=16384)
def _decode(text: str) -> str:
    from pylatexenc.latexwalker import LatexWalker

    converter, context = _decoder()
    nodes = LatexWalker(text, latex_context=context, tolerant_parsing=True).get_latex_nodes()[0]
    return collapse(converter.nodelist_to_text(nodes))


@lru_cache(maxsize=16384)
def encode_latex(text: str) -> str:
    """Display text to LaTeX-safe source: ``&%$#_{}~^\\`` escaped, accents as macros, URLs in
    ``\\url``; literal braces as ``\\{``/``\\}`` where they pair up, else as macros
    (:func:`balance_braces`), so that the result can stand in a BibTeX field."""
    return balance_braces(_encoder().unicode_to_latex(text))


_BARE_PERCENT = re.compile(r"(?<!\\)((?:\\\\)*)%")


def escape_percent(latex: str) -> str:
    r"""``latex`` with every ``%`` that is not escaped written ``\%`` (an even run of backslashes
    before it is backslashes, not an escape): a bare ``%`` would start a LaTeX comment and drop the
    rest of the value. What ``reports/papers.bib`` writes, and how its titles are compared."""
    return _BARE_PERCENT.sub(lambda m: m.group(1) + "\\%", latex)


def balance_braces(latex: str) -> str:
    """LaTeX source whose braces BibTeX and biber can count: they count every brace, also
    after a backslash, so a field holding ``\\}`` without its ``\\{`` ends there. Escaped
    braces are kept where they pair up inside the same group (``\\{a, b\\}``); every other
    escaped brace is written ``\\textbraceleft{}`` or ``\\textbraceright{}`` (the same
    character in print), and so is an unescaped brace without its pair. Balanced source is
    returned unchanged."""
    out: list[str] = []
    frames: list[tuple[int | None, list[int]]] = [(None, [])]  # (index in out of a group's "{", its open "\{")
    i = 0
    while i < len(latex):
        ch = latex[i]
        if ch == "\\" and i + 1 < len(latex):
            nxt = latex[i + 1]
            if nxt == "{":
                frames[-1][1].append(len(out))
                out.append("\\{")
            elif nxt == "}":
                if frames[-1][1]:
                    frames[-1][1].pop()
                    out.append("\\}")
                else:
                    out.append("\\textbraceright{}")
            else:
                out.append(ch + nxt)
            i += 2
            continue
        if ch == "{":
            frames.append((len(out), []))
            out.append("{")
        elif ch == "}":
            if len(frames) > 1:
                _, opened = frames.pop()
                for at in opened:
                    out[at] = "\\textbraceleft{}"
                out.append("}")
            else:
                out.append("\\textbraceright{}")
        else:
            out.append(ch)
        i += 1
    for start, opened in frames:
        for at in opened:
            out[at] = "\\textbraceleft{}"
        if start is not None:
            out[start] = "\\textbraceleft{}"
    return "".join(out)
