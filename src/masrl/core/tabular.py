"""pandas, as every stage of masrl uses it: ``from masrl.core.tabular import pd``.

One setting differs from pandas' defaults, and it is set here, once, before any frame is made:
strings are stored as Python objects (``mode.string_storage = "python"``) rather than in
PyArrow arrays. pandas 3 stores inferred strings in PyArrow whenever PyArrow is installed (the
``test`` extra installs it, for the Parquet export of traces); masrl's frames are small (one
row per record: hundreds) and are read cell by cell, where an Arrow-backed column costs a
conversion per cell: with it, a build of a changed pool took 1.45x the time (measured with
``python scripts/bench_commands.py``: 362 ms against 245 ms for the analyses of one pool state,
593 against 423 ms for its text reports). The bytes written are the same either way (``masrl
build --check --rerender-figures`` passes under both). The setting is process-wide: a program
that imports masrl and keeps its own frames gets Python-stored strings in new frames too.
"""

from __future__ import annotations

import pandas as pd

pd.set_option("mode.string_storage", "python")

__all__ = ["pd"]
