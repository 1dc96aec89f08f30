"""Tables as CSV: UTF-8, ``\\n`` line endings, index as the first column.

The literal ``NA`` (not applicable) is written as ``NA``; read the files with
``pandas.read_csv(path, keep_default_na=False)`` (or any CSV reader that does
not turn ``NA`` into a missing value).

Every text cell (index, column headers, text columns) goes through
:func:`masrl.render.escape.csv_cell`: one that begins with ``=``, ``+``,
``-``, ``@``, a tab, CR, LF or NUL is written with a leading ``'`` so that a
spreadsheet shows it as text instead of running it as a formula (OWASP, "CSV
injection"). Numbers are written as numbers. A line break inside a cell is
written as LF, and the cell is quoted.
"""

from __future__ import annotations

from masrl.core.tabular import pd

from .escape import csv_cell


def table_csv(frame: pd.DataFrame) -> bytes:
    """CSV bytes of ``frame`` with its index as the first column (text cells neutralised)."""
    def text(value):
        # a bare CR inside a cell would not be quoted (the line terminator is LF): write it as LF
        return csv_cell(value.replace("\r\n", "\n").replace("\r", "\n")) if isinstance(value, str) else value

    safe = frame.copy()
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]):
            safe[column] = safe[column].map(text)
    safe.columns = [text(str(c)) for c in safe.columns]
    safe.index = pd.Index([text(v) for v in safe.index], name=text(frame.index.name) if frame.index.name else None)
    return safe.to_csv(lineterminator="\n", index=True).encode("utf-8")
