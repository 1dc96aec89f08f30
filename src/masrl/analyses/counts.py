"""Counts and crosstabs over a typed frame (pure functions, no I/O).

Every result lists every vocabulary value in taxonomy order, zero counts
included: the empty cells (credit at token, tool call and team) are the
survey's finding, so they are never dropped.
"""

from __future__ import annotations

import numpy as np
from masrl.core.tabular import pd

from ..corpus.taxonomy import Taxonomy


def long_values(frame: pd.DataFrame, field: str, tax: Taxonomy) -> pd.Series:
    """Series of (record, value) pairs of ``field``: a single-valued field as is,
    a multi-valued field exploded (one row per tag). Index = record key; values
    Categorical in taxonomy order. Records without the field are dropped."""
    col = frame[field]
    values = list(tax.values(field))
    if tax.fields[field].multi:
        col = col.explode().dropna()
    else:
        col = col[col.astype(str) != ""]
    return pd.Series(pd.Categorical(col.astype(str), categories=values, ordered=True), index=col.index, name=field)


def count_by(frame: pd.DataFrame, field: str, tax: Taxonomy) -> pd.Series:
    """Number of records per value of ``field`` (int64 Series indexed by the
    vocabulary in taxonomy order, name ``count``). For a multi-valued field a
    record counts once under each of its values."""
    counts = long_values(frame, field, tax).value_counts(sort=False)
    counts = counts.reindex(list(tax.values(field)), fill_value=0).astype("int64")
    counts.index.name = field
    return counts.rename("count")


def crosstab(frame: pd.DataFrame, rows: str, cols: str, tax: Taxonomy) -> pd.DataFrame:
    """Records per (row value, column value): int64 DataFrame, index = every
    value of ``rows``, columns = every value of ``cols``, both in taxonomy order,
    zero cells included. Multi-valued fields are exploded first."""
    left = long_values(frame, rows, tax)
    right = long_values(frame, cols, tax)
    pairs = pd.DataFrame({"r": left}).join(pd.DataFrame({"c": right}), how="inner")
    row_values, col_values = list(tax.values(rows)), list(tax.values(cols))
    # the categories are the vocabularies in order, so a pair's codes are its cell; -1 is a value outside them
    r, c = pairs["r"].cat.codes.to_numpy(), pairs["c"].cat.codes.to_numpy()
    known = (r >= 0) & (c >= 0)
    cells = np.zeros((len(row_values), len(col_values)), dtype="int64")
    np.add.at(cells, (r[known], c[known]), 1)
    table = pd.DataFrame(cells, index=pd.Index(row_values, name=rows), columns=pd.Index(col_values, name=cols))
    return table


def records_per_value(frame: pd.DataFrame, field: str, tax: Taxonomy) -> dict[str, list[str]]:
    """Value -> sorted keys of the records carrying it, for every value in taxonomy order."""
    long = long_values(frame, field, tax)
    out = {v: [] for v in tax.values(field)}
    for key, value in sorted(zip(long.index, long.astype(str))):
        out[value].append(key)
    return out
