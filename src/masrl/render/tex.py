"""Tables as LaTeX (booktabs) via pandas Styler, every string escaped.

Cells and column headers are escaped by Styler (``escape="latex"``: ``& % $ # _ { } ~ ^ \\``);
then what LaTeX's default (OT1) text font would typeset as another character is written as a
command: ``<`` ``>`` ``|`` ``"`` and the backtick (which OT1 prints as an inverted mark, a dash
or a curly quote), and ``--`` (which becomes a dash) as ``-{}-``. Styler does not escape
index *names*, so the index is turned into an ordinary first column (its header is a column
label, escaped like the others) and hidden; nothing reaches the output unescaped. Needs
``\\usepackage{booktabs}``; ``\\textquotedbl`` takes its glyph from the T1 encoding, as the
LaTeX kernel does by default.
"""

from __future__ import annotations

import re

import pandas as pd

#: Characters Styler leaves as they are that OT1 typesets as something else.
_TEXT_COMMANDS = {"<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}",
                  "`": r"\textasciigrave{}"}
_OT1 = re.compile(r"[<>|\"`]|-(?=-)")


def _as_written(value):
    """A string Styler has escaped, with the characters of :data:`_TEXT_COMMANDS` as commands
    and every ``-`` before another ``-`` followed by ``{}`` (no en or em dash ligature)."""
    if not isinstance(value, str):
        return value
    return _OT1.sub(lambda m: _TEXT_COMMANDS.get(m.group(), "-{}"), value)


def table_tex(frame: pd.DataFrame) -> str:
    """A booktabs ``tabular`` for ``frame`` (wrap it in your own ``table`` with
    caption and label: ``\\input{reports/tex/<name>.tex}``)."""
    first = frame.index.name or ""
    if frame.columns.name:
        first = f"{first} / {frame.columns.name}" if first else str(frame.columns.name)
    flat = frame.copy()
    flat.columns = [str(c) for c in flat.columns]
    flat.index = flat.index.astype(str)
    flat.insert(0, first, flat.index)
    flat = flat.reset_index(drop=True)
    styler = flat.style.format(_as_written, escape="latex", na_rep="") \
        .format_index(_as_written, escape="latex", axis=1).hide(axis="index")
    align = "".join("r" if pd.api.types.is_numeric_dtype(flat[c]) else "l" for c in flat.columns)
    return styler.to_latex(hrules=True, column_format=align)
