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


def _tags(frame: pd.DataFrame, field: str, tax: Taxonomy) -> list[list[str]]:
    """Each record's values of ``field`` as text, as :func:`long_values` pairs them (a list field's
    tags, a single value unless empty), one list per row of ``frame``."""
    if tax.fields[field].multi:
        return [[str(tag) for tag in tags if tag is not None] if isinstance(tags, (list, tuple)) else []
                for tags in frame[field].tolist()]
    return [[text] if (text := str(value)) != "" else [] for value in frame[field].tolist()]


def count_by(frame: pd.DataFrame, field: str, tax: Taxonomy) -> pd.Series:
    """Number of records per value of ``field`` (int64 Series indexed by the
    vocabulary in taxonomy order, name ``count``). For a multi-valued field a
    record counts once under each of its values. One pass over the records."""
    values = list(tax.values(field))
    counts = dict.fromkeys(values, 0)
    for tags in _tags(frame, field, tax):
        for tag in tags:
            if tag in counts:
                counts[tag] += 1
    return pd.Series([counts[v] for v in values], index=pd.Index(values, name=field), dtype="int64", name="count")


def crosstab(frame: pd.DataFrame, rows: str, cols: str, tax: Taxonomy) -> pd.DataFrame:
    """Records per (row value, column value): int64 DataFrame, index = every
    value of ``rows``, columns = every value of ``cols``, both in taxonomy order,
    zero cells included. Multi-valued fields are exploded first. One pass over the records."""
    row_values, col_values = list(tax.values(rows)), list(tax.values(cols))
    row_at = {v: i for i, v in enumerate(row_values)}
    col_at = {v: j for j, v in enumerate(col_values)}
    cells = np.zeros((len(row_values), len(col_values)), dtype="int64")
    for left, right in zip(_tags(frame, rows, tax), _tags(frame, cols, tax)):
        for r in left:
            if r in row_at:
                for c in right:
                    if c in col_at:
                        cells[row_at[r], col_at[c]] += 1
    return pd.DataFrame(cells, index=pd.Index(row_values, name=rows), columns=pd.Index(col_values, name=cols))


def records_per_value(frame: pd.DataFrame, field: str, tax: Taxonomy) -> dict[str, list[str]]:
    """Value -> sorted keys of the records carrying it, for every value in taxonomy order."""
    long = long_values(frame, field, tax)
    out = {v: [] for v in tax.values(field)}
    for key, value in sorted(zip(long.index, long.astype(str))):
        out[value].append(key)
    return out
