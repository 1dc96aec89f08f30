"""Tables as LaTeX (booktabs), every string escaped.

Strings (cells, column labels and the index, which is written as an ordinary first column) are
escaped as pandas' Styler escapes them (``escape="latex"``: ``& % $ # _ { } ~ ^ \\``, with
``\\space`` after a command a space would be gobbled by); then what LaTeX's default (OT1) text
font would typeset as another character is written as a command: ``<`` ``>`` ``|`` ``"`` and the
backtick (which OT1 prints as an inverted mark, a dash or a curly quote), and ``--`` (which
becomes a dash) as ``-{}-``. Missing values are empty cells; other values are written as
``str`` writes them. Nothing reaches the output unescaped. Needs ``\\usepackage{booktabs}``;
``\\textquotedbl`` takes its glyph from the T1 encoding, as the LaTeX kernel does by default.

The output is byte for byte what ``Styler.to_latex(hrules=True)`` writes for the same frame with
the index as its first column (tests/test_tex.py holds the two side by side), written directly:
the Styler takes a third of the time of a build's text reports.
"""

from __future__ import annotations

import re

from masrl.core.tabular import pd

#: Characters the LaTeX escape leaves as they are that OT1 typesets as something else.
_TEXT_COMMANDS = {"<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}",
                  "`": r"\textasciigrave{}"}
_OT1 = re.compile(r"[<>|\"`]|-(?=-)")
_BACKSLASH = "ab2§=§8yz"  # a stand-in while the other characters are escaped (as pandas does)


def _escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (pandas' ``escape="latex"``), then the
    characters of :data:`_TEXT_COMMANDS` as commands and every ``-`` before another ``-``
    followed by ``{}`` (no en or em dash ligature)."""
    escaped = (text.replace("\\", _BACKSLASH).replace(_BACKSLASH + " ", _BACKSLASH + "\\space ")
               .replace("&", "\\&").replace("%", "\\%").replace("$", "\\$").replace("#", "\\#")
               .replace("_", "\\_").replace("{", "\\{").replace("}", "\\}")
               .replace("~ ", "~\\space ").replace("~", "\\textasciitilde ")
               .replace("^ ", "^\\space ").replace("^", "\\textasciicircum ")
               .replace(_BACKSLASH, "\\textbackslash "))
    return _OT1.sub(lambda m: _TEXT_COMMANDS.get(m.group(), "-{}"), escaped)


def _cell(value) -> str:
    if isinstance(value, str):
        return _escape(value)
    if value is None or pd.isna(value) is True:
        return ""
    return str(value)


def table_tex(frame: pd.DataFrame) -> str:
    """A booktabs ``tabular`` for ``frame`` (wrap it in your own ``table`` with
    caption and label: ``\\input{reports/tex/<name>.tex}``).

    The first column is the index (headed by the index name, and ``index / columns`` when the
    columns are named too); a column is right-aligned when its dtype is numeric, the index column
    and any column whose label (as a string) is not unique left-aligned."""
    first = frame.index.name or ""
    if frame.columns.name:
        first = f"{first} / {frame.columns.name}" if first else str(frame.columns.name)
    labels = [first, *(str(c) for c in frame.columns)]
    numeric = [False, *(pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes)]
    align = "".join("r" if numeric[i] and labels.count(label) == 1 else "l" for i, label in enumerate(labels))
    lines = ["\\begin{tabular}{" + align + "}", "\\toprule", " & ".join(_escape(label) for label in labels) + " \\\\",
             "\\midrule"]
    index = [str(value) for value in frame.index]
    for name, row in zip(index, frame.itertuples(index=False, name=None)):
        lines.append(" & ".join([_escape(name), *map(_cell, row)]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", ""]
    return "\n".join(lines)
