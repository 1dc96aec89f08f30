"""Tables as CSV: UTF-8, ``\\n`` line endings, index as the first column.

The literal ``NA`` (not applicable) is written as ``NA``; read the files with
``pandas.read_csv(path, keep_default_na=False)`` (or any CSV reader that does
not turn ``NA`` into a missing value).
"""

from __future__ import annotations

import pandas as pd


def table_csv(frame: pd.DataFrame) -> bytes:
    """CSV bytes of ``frame`` with its index as the first column."""
    return frame.to_csv(lineterminator="\n", index=True).encode("utf-8")
