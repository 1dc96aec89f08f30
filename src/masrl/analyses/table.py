"""The unit every analysis returns and every text renderer consumes."""

from __future__ import annotations

from dataclasses import dataclass

from masrl.core.tabular import pd


@dataclass
class Table:
    """One report table.

    Attributes:
        name: file stem under ``reports/tables/`` and ``reports/tex/``
            (``category``, ``reward_type_x_credit_granularity``).
        title: heading shown above the table.
        frame: the table itself; its index (with a name) is the first column.
            Cells are ints, strings, or floats already rounded by the analysis.
        source: the survey table or figure it reproduces, or how it is computed.
        note: one sentence shown under the table (may be empty).
        layout: empty for a table that keeps its rows from version to version; otherwise
            what its rows are relative to (``update of v1``: the PRISMA flow of the records
            added since release v1). Tables of different layouts are never compared cell by cell.
    """

    name: str
    title: str
    frame: pd.DataFrame
    source: str = ""
    note: str = ""
    layout: str = ""
