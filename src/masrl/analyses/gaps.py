"""Gap analysis: every empty and every sparse cell, with the records behind it.

A cell is *empty* when it holds no record and *sparse* when it holds at least
one and at most ``sparse_threshold`` records (``corpus/taxonomy.yaml``,
default 2). Cells are taken from every count table of a controlled field of
the retained pool and every crosstab of retained fields named in the
taxonomy (credit unit x mechanism gives the strict column, sub-decision x RL
status the coverage, benchmark domain x E1-E4 the benchmark gap). Left out, as
``gap_analysis`` in the taxonomy says: bookkeeping fields (verified, is_core,
inclusion_criterion: their empty cells are empty by construction or describe
metadata) and structural values (``NA``, ``unassessed``); and the exclusion-log
tables (screening bookkeeping, not taxonomy cells).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from ..taxonomy import Taxonomy
from .claims import select


@dataclass(frozen=True)
class Gap:
    """One empty or sparse cell.

    Attributes:
        table: the table it belongs to (``credit_granularity``, ``reward_type_x_credit_granularity``).
        row: the row value; ``column``: the column value ('' for a one-way count).
        count: records in the cell; ``status``: ``empty`` or ``sparse``.
        records: sorted keys of the records in the cell.
    """

    table: str
    row: str
    column: str
    count: int
    status: str
    records: tuple[str, ...]


def _cell(table: str, row: str, col: str, keys: list[str], threshold: int) -> Gap | None:
    n = len(keys)
    if n == 0:
        return Gap(table, row, col, 0, "empty", ())
    if n <= threshold:
        return Gap(table, row, col, n, "sparse", tuple(keys))
    return None


def find_gaps(retained: pd.DataFrame, tax: Taxonomy) -> list[Gap]:
    """All empty and sparse cells, table by table, cells in table order."""
    threshold = tax.sparse_threshold
    found: list[Gap] = []

    def add(table, row, col, where):
        gap = _cell(table, row, col, select(retained, where, tax), threshold)
        if gap:
            found.append(gap)

    skip_fields, skip_values = tax.gap_skips
    for field in tax.of("retained"):
        if field.name in skip_fields:
            continue
        for value in field.values:
            if value not in skip_values:
                add(field.name, value, "", {field.name: value})
    for rows, cols in tax.crosstabs:
        if tax.fields[rows].applies_to != "retained" or {rows, cols} & skip_fields:
            continue
        for r in tax.values(rows):
            for c in tax.values(cols):
                if r not in skip_values and c not in skip_values:
                    add(f"{rows}_x_{cols}", r, c, {rows: r, cols: c})
    return found


def narrowing(retained: pd.DataFrame, tax: Taxonomy) -> pd.DataFrame:
    """Strict-vs-broad narrowing per credit unit: index = unit (finest to coarsest),
    columns broad, strict, strict records, broad-only records, unassessed records."""
    rows = []
    for unit in tax.values("credit_granularity"):
        if unit == "NA":
            continue
        tagged = select(retained, {"credit_granularity": unit}, tax)
        by = {m: select(retained, {"credit_granularity": unit, "credit_mechanism": m}, tax) for m in ("strict", "broad", "unassessed")}
        rows.append({"unit": unit, "broad": len(tagged), "strict": len(by["strict"]),
                     "strict records": ", ".join(by["strict"]) or "none",
                     "broad-only records": ", ".join(by["broad"]) or "none",
                     "unassessed records": ", ".join(by["unassessed"]) or "none"})
    return pd.DataFrame(rows).set_index("unit")


def joint_coverage(retained: pd.DataFrame, tax: Taxonomy) -> dict:
    """Benchmark E1-E4 joint coverage: ``{"measures": [...], "joint": [keys covering all],
    "by_benchmark": {key: [measures]}}``."""
    measures = list(tax.values("eval_measures"))
    bench = retained[retained["category"].astype(str) == "benchmark"]
    by = {str(k): [m for m in measures if m in tags] for k, tags in zip(bench.index, bench["eval_measures"])}
    return {"measures": measures, "joint": sorted(k for k, ms in by.items() if len(ms) == len(measures)),
            "by_benchmark": dict(sorted(by.items()))}


def gaps_json(gaps: list[Gap], narrow: pd.DataFrame, joint: dict, threshold: int) -> dict:
    """The JSON document of ``reports/gaps.json``."""
    return {
        "sparse_threshold": threshold,
        "cells": [{**asdict(g), "records": list(g.records)} for g in gaps],
        "strict_vs_broad": [{"unit": u, **{k: (v if isinstance(v, int) else v) for k, v in row.items()}}
                            for u, row in narrow.to_dict(orient="index").items()],
        "benchmark_joint_coverage": joint,
    }
