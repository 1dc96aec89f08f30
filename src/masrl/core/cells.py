"""CSV cells that a spreadsheet shows as text (OWASP, "CSV injection").

A cell that begins with a character a spreadsheet reads as a formula (:data:`FORMULA_START`)
is written with a ``'`` before it, which spreadsheets hide. The sheets masrl reads back (a
round's ``queue.csv`` and ``duplicates.csv``) also guard a cell that begins with ``'`` itself,
so that :func:`read_cell` takes off exactly the ``'`` that :func:`sheet_cell` put on: every
text comes back as it was written (a title ``'-greedy ...`` keeps its apostrophe).
"""

from __future__ import annotations

#: First characters that make a spreadsheet read a cell as a formula: = + - @ tab CR (OWASP),
#: and LF and NUL, which some importers strip first.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")
_GUARDED = (*FORMULA_START, "'")


def formula_cell(text: str) -> str:
    """``text`` with a ``'`` before a leading formula character (a cell no one reads back)."""
    return "'" + text if text.startswith(FORMULA_START) else text


def sheet_cell(text: str) -> str:
    """``text`` as a cell of a sheet masrl reads back: a ``'`` before a leading formula character or ``'``."""
    return "'" + text if text.startswith(_GUARDED) else text


def read_cell(text: str) -> str:
    """The text of a cell :func:`sheet_cell` wrote (a cell without its guard is read as it is)."""
    return text[1:] if text.startswith("'") and text[1:].startswith(_GUARDED) else text
