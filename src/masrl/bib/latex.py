"""LaTeX source <-> Unicode display text, with pylatexenc, and braces BibTeX can count.

:func:`decode_latex` reads a BibTeX field's LaTeX as text (``Gr\\'{e}goire`` -> ``Grégoire``),
keeping the text of text macros pylatexenc would drop (``\\texttt``, ``\\mbox``) and hiding
BibTeX's ``\\noop``; :func:`encode_latex` writes display text as LaTeX (URLs in ``\\url``, straight
double quotes as opening and closing quotes); :func:`latex_safe` escapes what would stop LaTeX in
source kept as written; :func:`balance_braces` makes every field's braces balance as BibTeX and
biber count them (every brace, also after a backslash).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .namelist import ACCENT_SYMBOLS, ACCENT_WORDS


def collapse(value: str) -> str:
    """Whitespace runs (line breaks of a wrapped field) as one space."""
    return " ".join(value.split())


#: Text macros whose argument is the text itself: pylatexenc's parser knows their argument but
#: its text converter does not, so without these it would drop the argument (``\\texttt{Foo}``).
_TEXT_MACROS = ("texttt", "textsf", "textmd", "textup", "textnormal", "mbox", "hbox", "nocase")
#: Macros whose argument is not shown: BibTeX's sorting tricks (``{\\noop{x}}Entry``, ``{\\noopsort{x}}Entry``) read "Entry".
_HIDDEN_MACROS = ("noop", "noopsort", "SortNoop", "sortnoop")
#: Characters written as macros without an argument: literal braces (how :func:`balance_braces` writes a
#: brace without its pair) and the ASCII circumflex (how :func:`encode_latex` writes ``^``), which
#: pylatexenc would read as the spacing modifier U+02C6.
_CHARACTER_MACROS = {"textbraceleft": "{", "textbraceright": "}", "textasciicircum": "^",
                     # the logos, which pylatexenc would drop from a title
                     "TeX": "TeX", "LaTeX": "LaTeX", "LaTeXe": "LaTeX2e", "BibTeX": "BibTeX", "XeTeX": "XeTeX",
                     # symbols pylatexenc reads otherwise (\prime as ') or not at all (\checkmark, of amssymb)
                     "prime": "\u2032", "checkmark": "\u2713", "textminus": "\u2212", "hbar": "\u210f", "mid": "\u2223",
                     "S": "\u00a7", "pounds": "\u00a3", "euro": "\u20ac", "P": "\u00b6",
                     "xspace": " "}  # \xspace: the space it puts after a word (LaTeX eats the blank after a macro)
#: ``\^{}``, ``\~{}``, ``\'{}``, ``\r{}``: an accent on nothing prints the accent itself (pylatexenc drops it).
_BARE_ACCENT = re.compile(r"\\([\^~'`\"=.]|[uvHckr](?![A-Za-z]))\{\}")
_SPACING_ACCENTS = {"^": "{\\textasciicircum}", "~": "{\\textasciitilde}", "'": "\u00b4", "`": "`", '"': "\u00a8", "=": "\u00af",
                    ".": "\u02d9", "u": "\u02d8", "v": "\u02c7", "H": "\u02dd", "c": "\u00b8", "k": "\u02db", "r": "\u02da"}


@lru_cache(maxsize=1)
def _decoder():
    from pylatexenc import latexwalker
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
    from pylatexenc.macrospec import MacroSpec

    text = get_default_latex_context_db()
    text.add_context_category("masrl", prepend=True, macros=[
        *(MacroTextSpec(m, simplify_repl="%(1)s") for m in _TEXT_MACROS),
        *(MacroTextSpec(m, simplify_repl="") for m in _HIDDEN_MACROS),
        *(MacroTextSpec(m, simplify_repl=v) for m, v in _CHARACTER_MACROS.items()),
        MacroTextSpec("href", simplify_repl="%(2)s"),  # a link: its text
        MacroTextSpec("includegraphics", simplify_repl=""),  # a logo in a title: no word of it
    ])
    parse = latexwalker.get_default_latex_context_db()
    parse.add_context_category("masrl", prepend=True, macros=[
        *(MacroSpec(m, "{") for m in (*_TEXT_MACROS, *_HIDDEN_MACROS)), *(MacroSpec(m, "") for m in _CHARACTER_MACROS),
        MacroSpec("href", "{{"), MacroSpec("includegraphics", "[{")])
    return LatexNodes2Text(latex_context=text, math_mode="text", strict_latex_spaces="except-in-equations"), parse


def unread_macros(text: str) -> list[str]:
    """The macros of LaTeX source ``text`` that :func:`decode_latex` knows no reading of, in order, once each
    (``\\mysystem``: a paper's own macro, left out of the decoded text)."""
    converter, _ = _decoder()
    db = converter.latex_context
    names = dict.fromkeys(re.findall(r"\\([A-Za-z]+)", text))
    return [f"\\{name}" for name in names if db.get_macro_spec(name) is None and name not in _LAYOUT]


#: An accent put on another accent without braces (``\\`\\^a``, ``\\~\\^e``): LaTeX stops on it (the outer accent takes the inner
#: command as its letter), and a reading of it puts the accents on the letter before.
_ACCENT = rf"\\(?:[{re.escape(''.join(sorted(ACCENT_SYMBOLS)))}]|[{''.join(sorted(ACCENT_WORDS))}](?![A-Za-z]))"
_STACKED = re.compile(rf"{_ACCENT}\s*{_ACCENT}")


def stacked_accents(text: str) -> list[str]:
    """The accents of LaTeX source ``text`` put on another accent without braces (``\\`\\^``), in order; ``\\`{\\^a}``
    and ``\\'\\i`` (an accent on the dotless i) are none."""
    return _STACKED.findall(text)


#: Macros of layout that change how words look, not which they are: no word of a title is lost with them.
_LAYOUT = frozenset("""relax protect sc bf it em rm tt sf sl up md bfseries itshape scshape slshape mdseries upshape
    normalfont rmfamily sffamily ttfamily tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge
    color allowbreak ignorespaces newline linebreak nolinebreak noindent hspace vspace smallskip medskip bigskip
    hfill vfill strut null nobreak kern hskip vskip smash phantom hphantom vphantom raisebox scalebox resizebox
    thanks footnote label ref cite citep citet nocite""".split())


#: An http(s) URL as RFC 3986 writes one (unreserved, reserved and percent-encoded characters: never a
#: quote, a brace, a backslash or a space), without the punctuation that ends the sentence around it.
_URL = re.compile(r"https?://[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+", re.IGNORECASE)
_URL_TRAILING = ".,:;!?'*"


def _url_rule(text: str, pos: int):
    """pylatexenc rule: ``(characters consumed, \\url{...})`` for an http(s) URL starting at ``pos``
    (not inside a word), else None. The URL ends before a trailing punctuation mark and before a
    closing parenthesis or bracket that it did not open (as GitHub's autolinks do), so that
    ``("https://x.org/a","b")`` keeps ``","b")`` as text."""
    if pos and text[pos - 1].isalnum():
        return None
    match = _URL.match(text, pos)
    if match is None:
        return None
    url = match.group()
    while url:
        if url[-1] in _URL_TRAILING:
            url = url[:-1]
        elif url[-1] == ")" and url.count(")") > url.count("("):
            url = url[:-1]
        elif url[-1] == "]" and url.count("]") > url.count("["):
            url = url[:-1]
        else:
            break
    if len(url) <= url.index("//") + 2:
        return None
    return len(url), "\\url{" + url + "}"


def _quote_rule(text: str, pos: int):
    """pylatexenc rule: a straight double quote as LaTeX's opening or closing double quote
    (``\\textquotedblleft``, ``\\textquotedblright``, as pylatexenc writes the curly ones), by where it
    stands (opening at the start and after a space, an opening bracket, a dash or a slash), instead of
    pylatexenc's closing quote ``''`` for both."""
    if text[pos] != '"':
        return None
    before = text[pos - 1] if pos else " "
    opening = before.isspace() or before in "([{<-\u2013\u2014/"
    return 1, "{\\textquotedblleft}" if opening else "{\\textquotedblright}"


def _special_rule(text: str, pos: int):
    """pylatexenc rule: a letter written with an accent macro as a BibTeX *special character*,
    braced whole (``Ş`` -> ``{\\c{S}}``, ``Ö`` -> ``{\\"O}``, as pylatexenc already braces ``{\\L}``):
    BibTeX's styles then sort, label and change the case of it as the letter it is, where
    ``\\c{S}ahin`` would sort as "cSahin" and label as ``\\c{S}25``."""
    end = _cluster_end(text, pos)
    if end > pos + 1:
        return end - pos, _special_cluster(text[pos:end])
    if ord(text[pos]) < 0x80:
        return None
    return 1, _special(text[pos])


def _cluster_end(text: str, pos: int) -> int:
    """Where the letter at ``pos`` ends with the combining marks after it."""
    end = pos + 1
    while end < len(text) and unicodedata.combining(text[end]):
        end += 1
    return end


def _special_cluster(cluster: str) -> str:
    """A letter and the combining marks after it as LaTeX (:func:`_special`): one character where Unicode has one
    (e + U+0301 is é); else the accents nested on the letter (Yoruba ọ̀ is ``{\\`{\\d{o}}}``, ā̂ ``{\\^{\\={a}}}``); else
    as written."""
    nfc = unicodedata.normalize("NFC", cluster)
    if len(nfc) == 1:
        return _special(nfc)
    latex = _accented(nfc)
    if latex != nfc and unicodedata.normalize("NFC", decode_latex(latex)) == nfc:
        return "{" + latex + "}"
    return cluster


@lru_cache(maxsize=4096)
def _special(ch: str) -> str:
    """One non-ASCII character as LaTeX that reads back as that character: pylatexenc's macro, braced
    (:func:`_special_rule`); where it has none or a wrong one (``ű`` as ``\\'u``, which is ``ú``), the
    letter under LaTeX's accent commands (:func:`_accented`); else the character itself (a Greek capital,
    which pylatexenc writes as the Latin letter it looks like; ``ả``)."""
    latex = _SYMBOLS.get(ch) or _defaults().unicode_to_latex(ch)
    if latex == ch or decode_latex(latex) != ch:
        latex = _accented(ch)  # a letter with accents pylatexenc has no macro for (Vietnamese ễ, pinyin ǚ), or a wrong one
    elif latex.startswith("\\ensuremath"):  # a math letter: \mathscr needs a package, \mathcal is LaTeX's own; braced
        # as text no style changes the case of ("{\ensuremath{...}}" would be a special character, lowered by styles)
        latex = "{{" + latex.replace("\\mathscr{", "\\mathcal{") + "}}"
    if latex == ch or decode_latex(latex) != ch:
        return ch
    return "{" + latex + "}" if latex.startswith("\\") else latex


#: Math symbols pylatexenc writes as another (′ as ', √ as an empty \sqrt, · as an accent, − as a hyphen, ℏ as ħ,
#: ∣ as |) or not at all (✓, of amssymb, which papers.bib needs already for \mathbb).
_SYMBOLS = {"\u221a": "\\ensuremath{\\surd}", "\u2032": "\\ensuremath{\\prime}", "\u2713": "\\ensuremath{\\checkmark}",
            "\u00b7": "\\ensuremath{\\cdot}", "\u2212": "\\textminus", "\u210f": "\\ensuremath{\\hbar}",
            "\u2223": "\\ensuremath{\\mid}"}


#: LaTeX's own accent commands, by the combining mark they write (no package needed, in OT1 and T1).
_ACCENTS = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=", "\u0306": "u", "\u0307": ".",
            "\u0308": '"', "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0323": "d", "\u0327": "c", "\u0328": "k",
            "\u0331": "b"}
_BELOW = frozenset("\u0323\u0327\u0328\u0331")


def _accented(ch: str) -> str:
    """``ch`` as an ASCII letter under LaTeX's accent commands, innermost first (``ễ`` ->
    ``\\~{\\^{e}}``, ``ặ`` -> ``\\u{\\d{a}}``; an ``i`` under an accent above is ``\\i``); ``ch`` itself
    where a mark has no such command (a hook above, a horn: ``ả``, ``ơ``)."""
    import unicodedata

    base, *marks = unicodedata.normalize("NFD", ch)
    if not marks or not (base.isascii() and base.isalpha()) or any(m not in _ACCENTS for m in marks):
        return ch
    latex = "\\" + base if base in "ij" and marks[0] not in _BELOW else base
    for mark in marks:
        latex = f"\\{_ACCENTS[mark]}{{{latex}}}"
    return latex


@lru_cache(maxsize=1)
def _defaults():
    from pylatexenc.latexencode import UnicodeToLatexEncoder

    return UnicodeToLatexEncoder(unknown_char_policy="keep", unknown_char_warning=False)


@lru_cache(maxsize=1)
def _encoder():
    from pylatexenc.latexencode import (
        RULE_CALLABLE,
        UnicodeToLatexConversionRule,
        UnicodeToLatexEncoder,
    )

    return UnicodeToLatexEncoder(
        conversion_rules=[
            UnicodeToLatexConversionRule(RULE_CALLABLE, _url_rule, replacement_latex_protection="none"),
            UnicodeToLatexConversionRule(RULE_CALLABLE, _quote_rule, replacement_latex_protection="none"),
            UnicodeToLatexConversionRule(RULE_CALLABLE, _special_rule, replacement_latex_protection="none"),
            "defaults",
        ],
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


#: Levels of braces a text may nest (a title's ``{{LLM}}`` is two); deeper, pylatexenc's recursive reader
#: exhausts Python's stack, so such a text is read with its braces dropped (:func:`too_deep` names it).
MAX_BRACES = 100


def brace_depth(text: str) -> int:
    """The deepest nesting of ``{`` in ``text``."""
    depth = deepest = 0
    for ch in text:
        if ch == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "}":
            depth = max(depth - 1, 0)
    return deepest


def too_deep(text: str) -> str | None:
    """Why ``text`` nests braces too deeply to be read as LaTeX, or None."""
    if text.count("{") <= MAX_BRACES:
        return None
    deepest = brace_depth(text)
    return f"nests braces {deepest} levels deep; at most {MAX_BRACES}" if deepest > MAX_BRACES else None


def decode_latex(text: str) -> str:
    """LaTeX source to display text: ``Gr\\'{e}goire`` -> ``Grégoire``, ``{LLM}`` -> ``LLM``; a
    hyphenation hint (``\\-``, or a soft hyphen written as the character) is no character of the text.
    Pure; the last 16,384 texts decoded are remembered (every command that validates decodes each
    record's BibTeX fields, and ``masrl diff`` both sides)."""
    if "\\" not in text and "{" not in text and "$" not in text and "~" not in text:
        return text.replace("\u00ad", "") if "\u00ad" in text else text
    if too_deep(text):
        return collapse(text.replace("{", "").replace("}", ""))
    return _decode(text)


@lru_cache(maxsize=16384)
def _decode(text: str) -> str:
    from pylatexenc.latexwalker import LatexWalker

    # a bare & % # of a field, and a $ that closes no math, is the character, as papers.bib writes it (latex_safe), not
    # an alignment tab, a comment that hides the rest of the title, a parameter or math that swallows the rest
    text = latex_safe(text)
    text = _BARE_ACCENT.sub(lambda accent: _SPACING_ACCENTS[accent.group(1)], text)
    urls: list[str] = []
    if "\\url{" in text or "\\path{" in text:
        # a URL is its argument as written (its ``%``, ``#`` and ``&`` are the URL's): each stands in
        # the text as a private-use character pylatexenc keeps, and comes back as ``<URL>``
        def hold(macro: re.Match) -> str:
            urls.append(macro.group()[macro.group().index("{") + 1:-1])
            return chr(0xF0000 + len(urls) - 1)

        text = _URL_MACRO.sub(hold, text)
    converter, context = _decoder()
    try:
        nodes = LatexWalker(text, latex_context=context, tolerant_parsing=True).get_latex_nodes()[0]
        # ``\-`` marks where LaTeX may hyphenate a word, no character of it: pylatexenc writes a soft
        # hyphen (U+00AD), which the text policy refuses as invisible (masrl.core.text)
        out = converter.nodelist_to_text(nodes).replace("\u00ad", "")
    except Exception:  # noqa: BLE001 - a construct pylatexenc cannot read: the text with its markup taken out
        out = re.sub(r"\\([A-Za-z]+)\*?", r"\1", text).replace("{", "").replace("}", "")
    for i, url in enumerate(urls):
        out = out.replace(chr(0xF0000 + i), f"<{url}>")
    return collapse(out)


@lru_cache(maxsize=16384)
def encode_latex(text: str) -> str:
    """Display text to LaTeX-safe source: ``&%$#_{}~^\\`` escaped, accents as macros, URLs in
    ``\\url``; literal braces as ``\\{``/``\\}`` where they pair up, else as macros
    (:func:`balance_braces`), so that the result can stand in a BibTeX field."""
    return balance_braces(_encoder().unicode_to_latex(text))


#: A URL macro and its argument, which is the URL as written (typeset verbatim by the styles' ``\\url``).
_URL_MACRO = re.compile(r"\\(?:url|path)\{[^{}\s]*\}")


def ascii_source(latex: str) -> str:
    """``latex`` (a field's LaTeX source) with each character outside ASCII written as LaTeX's own commands
    write it where they can (:func:`_special`: ``ạ`` -> ``{\\d{a}}``), so that a field kept as an imported
    .bib wrote it sets with pdflatex too; the argument of ``\\url`` is the URL as written."""
    if latex.isascii():
        return latex
    out, at = [], 0
    for macro in _URL_MACRO.finditer(latex):
        out += [_ascii_text(latex[at:macro.start()]), macro.group()]
        at = macro.end()
    return "".join(out) + _ascii_text(latex[at:])


def _ascii_text(text: str) -> str:
    out, at = [], 0
    while at < len(text):
        end = _cluster_end(text, at)
        out.append(_special_cluster(text[at:end]) if end > at + 1 else text[at] if text[at].isascii() else _special(text[at]))
        at = end
    return "".join(out)


@lru_cache(maxsize=16384)
def latex_safe(latex: str) -> str:
    r"""``latex`` (a field's LaTeX source, e.g. as an imported .bib wrote it) with every character that
    would stop LaTeX escaped: a bare ``#``, ``&`` or ``%`` (``\#``, ``\&``, ``\%``; a ``%`` would start
    a comment), a ``_`` or ``^`` outside math (``\_``, ``\^{}``), and a ``$`` that opens math nothing
    closes (``\$``, and what follows it is text). Escaped characters, macros with their arguments, math (between
    ``$`` or ``$$``, ``\(`` and ``\)``, ``\[`` and ``\]``, or in ``\ensuremath{...}``), and the argument of ``\url`` (a URL as
    written) are kept; source without a bare special is returned as it is."""
    out: list[str] = []
    math: int | None = None  # index in out of the "$" that opened math
    opened = 0  # index in latex of that "$"
    i = 0
    while i < len(latex):
        ch = latex[i]
        if ch == "\\":
            end = _math_end(latex, i) if math is None else None
            if end is not None:  # \( ... \), \[ ... \], \ensuremath{...}: math, its # & % escaped
                out.append(re.sub(r"(?<!\\)([#&%])", r"\\\1", latex[i:end]))
                i = end
                continue
            macro = _URL_MACRO.match(latex, i)
            end = macro.end() if macro else i + 2
            out.append(latex[i:end])
            i = end
            continue
        if ch == "$" and math is None and latex.startswith("$$", i):  # display math: to its closing $$, or two dollars
            close = latex.find("$$", i + 2)
            if close < 0:
                out.append("\\$\\$")
                i += 2
                continue
            out.append(re.sub(r"(?<!\\)([#&%])", r"\\\1", latex[i:close + 2]))
            i = close + 2
            continue
        if ch == "$":
            math, opened = (len(out), i) if math is None else (None, opened)
            out.append(ch)
        elif ch in "#&%":
            out.append("\\" + ch)
        elif ch == "_" and math is None:
            out.append("\\_")
        elif ch == "^" and math is None:
            out.append("\\^{}")
        else:
            out.append(ch)
        i += 1
    if math is not None:  # a "$" nothing closes is the character, and what follows it text (no "$" is left in it)
        return "".join(out[:math]) + "\\$" + latex_safe(latex[opened + 1:])
    return "".join(out)


def _math_end(latex: str, at: int) -> int | None:
    r"""Where the math that opens at ``at`` (``\(``, ``\[`` or ``\ensuremath{``) ends, or None (no such opening,
    or nothing closes it)."""
    if latex.startswith(("\\(", "\\["), at):
        close = latex.find("\\)" if latex[at + 1] == "(" else "\\]", at + 2)
        return None if close < 0 else close + 2
    if latex.startswith("\\ensuremath{", at):
        depth, k = 0, at + len("\\ensuremath")
        while k < len(latex):
            if latex[k] == "\\":
                k += 2
                continue
            depth += {"{": 1, "}": -1}.get(latex[k], 0)
            k += 1
            if depth == 0:
                return k
    return None


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


#: TeX's primitives and LaTeX's own commands that pylatexenc's tables do not name.
_TEX_NAMES = frozenset("""begin end par def edef gdef xdef let relax hbox vbox hskip vskip kern penalty the number
    romannumeral string csname endcsname expandafter noexpand if else fi or and ifx ifnum ifdim ifcase loop repeat
    LaTeX LaTeXe TeX S P AA AE OE O L i j ss dag ddag copyright pounds today year month day time space quad qquad
    newline linebreak pagebreak newpage clearpage maketitle document protect global long outer count dimen skip toks
    box copy setbox wd ht dp char chardef mathchardef catcode lccode uccode show message write read immediate special
    mark insert halign valign noalign omit span cr crcr hrule vrule indent noindent vfil hfil hfill vfill hss vss null
    empty makeatletter makeatother newif input include includeonly usepackage documentclass newcommand renewcommand
    providecommand newenvironment renewenvironment item label ref cite caption footnote section chapter part title
    author date and thanks Large LARGE Huge Pr Re Im Vert AtBeginDocument AtEndDocument NeedsTeXFormat
    ProvidesPackage ProvidesClass RequirePackage DeclareOption ProcessOptions ExecuteOptions PassOptionsToPackage
    DeclareRobustCommand DeclareMathOperator DeclareTextCommand LoadClass""".split())


@lru_cache(maxsize=4096)
def latex_defines(name: str) -> bool:
    """Whether ``\\name`` is a command TeX, LaTeX or a common package defines already (``\\begin``, ``\\par``,
    ``\\section``, ``\\alpha``): ``\\newcommand`` refuses to define it again. Remembered per name: pylatexenc builds
    its tables anew on every call (2 ms), and every validation asks for each macro of the ledger."""
    from pylatexenc import latex2text, latexwalker

    if name in _TEX_NAMES:
        return True
    return any(db.get_macro_spec(name) is not None for db in (latexwalker.get_default_latex_context_db(),
                                                                 latex2text.get_default_latex_context_db()))
