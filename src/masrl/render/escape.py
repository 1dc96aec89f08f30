"""One escaping helper per output format; every renderer uses these.

* Markdown (CommonMark / GitHub-flavoured): :func:`md_text` for text anywhere
  in a line or a table cell, :func:`md_code` for a code span,
  :func:`md_link` for a link. Markdown templates apply :func:`md_text` to every
  ``{{ value }}`` automatically (see :mod:`masrl.render.markdown`); a value
  that is already Markdown is wrapped in :class:`MdSafe`.
* HTML: jinja2's autoescape (MarkupSafe) escapes text and attributes;
  :func:`html_href` lets only http(s) links into an ``href``.
* CSV: :func:`csv_cell` neutralises spreadsheet formulas (OWASP "CSV injection").
* LaTeX: pandas Styler's ``escape="latex"`` plus the characters OT1 would typeset as others (:mod:`masrl.render.tex`).

No Markdown escaper library exists that covers CommonMark and GitHub's
extensions, so :func:`md_text` follows the CommonMark spec directly: any ASCII
punctuation may be backslash-escaped and then renders as itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..bib.urls import http_link
from ..core.cells import FORMULA_START, formula_cell
from ..core.text import printable


class MdSafe(str):
    """Text that is already Markdown (a rendered table, a link): not escaped again."""


# characters that open inline constructs anywhere: code spans, emphasis, links,
# autolinks and raw HTML, table cells, strikethrough, math, backslash escapes
_INLINE = re.compile(r"[\\`*\[\]<|~$]")
# '_' opens emphasis unless it is inside a word; '&' starts an entity reference
# ('&amp;'); '#digits' and '@name' become issue and user links in GitHub comments
_CONTEXT = re.compile(r"(?<![^\W_])_|_(?![^\W_])|&(?=#?[A-Za-z0-9]+;)|#(?=[0-9])|@(?=\w)")
# GitHub's extended autolinks (GFM spec, "Autolinks (extension)") turn a bare URL or a 'www.'
# host into a link, where no inline construct is open; a backslash before the ':' of the
# scheme or the '.' after 'www' keeps them text (an e-mail address is linked whatever is
# escaped: GFM leaves no escape for it, and a mailto: link carries no URL)
_AUTOLINK = re.compile(r"(?i)(?<![A-Za-z0-9])(?:https?|ftp)(?=://)|(?<![A-Za-z0-9.])www(?=\.)")
# what starts a block when the text begins a line: heading, block quote, list item,
# thematic break or setext underline, ordered list item ('1.' or '1)')
_LINE_START = re.compile(r"^(?:#{1,6}(?=\s|$)|>|[+-](?=\s|$)|-+\s*$|=+\s*$|[0-9]{1,9}(?=[.)](?:\s|$)))")
# a run of '#' that ends the text after a space: the closing sequence of an ATX heading, which a
# heading would drop ("# Agents #" shows "Agents")
_HEADING_CLOSE = re.compile(r"(?<= )#+$")


def md_text(value: object) -> MdSafe:
    """``value`` as Markdown text that renders as exactly that text (whitespace collapsed
    to single spaces, so it never starts a new line or block; a character the text policy refuses,
    :mod:`masrl.core.text`, written as its escape, so that no terminal or viewer acts on it).

    Safe inside a paragraph, a list item, a heading, emphasis and a GFM table cell. Remembered
    per text in process (a report tree escapes the same labels and counts thousands of times).
    """
    return _md_text(str(value))


@lru_cache(maxsize=65536)
def _md_text(text: str) -> MdSafe:
    text = printable(" ".join(text.split()))  # a control, bidi or zero-width character shows as its escape
    text = _INLINE.sub(r"\\\g<0>", text)
    text = _CONTEXT.sub(r"\\\g<0>", text)
    text = _AUTOLINK.sub(lambda m: m.group() + "\\", text)
    text = _HEADING_CLOSE.sub(r"\\\g<0>", text)
    start = _LINE_START.match(text)
    if start:
        if start.group()[0].isdigit():
            n = start.end()
            text = text[:n] + "\\" + text[n:]
        else:
            text = "\\" + text
    return MdSafe(text)


def md_code(value: object) -> MdSafe:
    """``value`` as a Markdown code span: fenced with one more backtick than its longest
    run of backticks, padded with a space where it starts or ends with one; a control, bidi or
    zero-width character shows as its escape (a code span shows a backslash as it is)."""
    text = printable(" ".join(str(value).split()))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")) else ""
    return MdSafe(f"{fence}{pad}{text}{pad}{fence}")


def md_url(url: object) -> MdSafe | None:
    """A link destination for Markdown, or None if ``url`` is not an acceptable http(s)
    link (:func:`masrl.bib.urls.url_problem`). Parentheses are percent-encoded, so the
    destination ends exactly where it should."""
    link = http_link(url)
    return None if link is None else MdSafe(link.replace("(", "%28").replace(")", "%29"))


def md_link(text: object, url: object) -> MdSafe:
    """``[text](url)`` with ``text`` escaped; just the escaped text when ``url`` is
    not an acceptable http(s) link."""
    target = md_url(url)
    label = md_text(text)
    return MdSafe(f"[{label}]({target})") if target is not None else label


def html_href(url: object) -> str:
    """``url`` for an HTML ``href`` if it is an acceptable http(s) link, else ``""``
    (the caller leaves the link out). Autoescape still escapes the attribute."""
    return http_link(url) or ""


#: First characters that make a spreadsheet read a cell as a formula (:data:`masrl.core.cells.FORMULA_START`).
CSV_FORMULA_START = FORMULA_START


def csv_cell(value: object) -> object:
    """A CSV cell that a spreadsheet shows as text: a string beginning with one of
    :data:`CSV_FORMULA_START` gets a leading ``'`` (OWASP's mitigation; Excel,
    LibreOffice and Google Sheets hide the quote). Numbers are returned unchanged."""
    return formula_cell(value) if isinstance(value, str) else value


# Characters XML 1.0 forbids in a document even when escaped (section 2.2, "Char"): C0 controls
# other than tab, line feed and carriage return, lone surrogates, U+FFFE and U+FFFF.
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(value: object) -> str:
    """Text for an XML element or attribute (the Atom feed): characters XML 1.0 cannot hold are
    dropped; ``<``, ``&`` and quotes are escaped by the serializer (ElementTree)."""
    return _XML_FORBIDDEN.sub("", "" if value is None else str(value))
