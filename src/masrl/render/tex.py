"""Tables as LaTeX (booktabs) via pandas Styler, every string escaped.

Cells and column headers are escaped by Styler (``escape="latex"``). Styler
does not escape index *names*, so the index is turned into an ordinary first
column (its header is a column label, escaped like the others) and hidden;
nothing reaches the output unescaped. Needs ``\\usepackage{booktabs}``.
"""

from __future__ import annotations

import pandas as pd


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
    styler = flat.style.format(escape="latex", na_rep="").format_index(escape="latex", axis=1).hide(axis="index")
    align = "".join("r" if pd.api.types.is_numeric_dtype(flat[c]) else "l" for c in flat.columns)
    return styler.to_latex(hrules=True, column_format=align)
