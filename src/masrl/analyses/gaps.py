"""Gap analysis: the gaps the survey names, and every empty and sparse cell.

*Named gaps* are declared in ``corpus/taxonomy.yaml`` (``gap_analysis.named``):
each has selections of records (declarative ``where`` filters, as in the
claim ledger) and names the claim it supports.

A cell is *empty* when it holds no record and *sparse* when it holds at least
one and at most ``sparse_threshold`` records (``corpus/taxonomy.yaml``,
default 2). Cells are taken from every count table of a controlled field of
the retained pool and every crosstab of retained fields named in the
taxonomy. Left out of every cell list, as ``gap_analysis`` says: bookkeeping
fields (``skip_fields``) and structural values (``skip_values``); and the
exclusion-log tables (screening bookkeeping, not taxonomy cells). Of the remaining tables, those declared in
``gap_analysis.combine`` are the ones whose axes are meant to combine: their
cells are the gaps a reader can act on; ``gap_analysis.left_out`` gives the
reason for each other table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from masrl.core.tabular import pd

from ..corpus.declarations import GapSection, gap_sections
from ..corpus.taxonomy import Taxonomy
from .claims import ClaimResult, select, where_mask
from .counts import _tags, long_values
from .declared import declared_table
from .gap_plan import gap_tables
from .table import Table


@dataclass(frozen=True)
class Gap:
    """One empty or sparse cell.

    Attributes:
        table: the table it belongs to (a field's count table, or a crosstab ``<rows>_x_<cols>``).
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


@dataclass(frozen=True)
class Selection:
    """The records of one selection of a named gap: ``label``, its ``where`` filter, sorted ``keys``."""

    label: str
    where: dict
    keys: tuple[str, ...]


@dataclass(frozen=True)
class NamedGap:
    """A gap the survey names (``gap_analysis.named`` in the taxonomy), evaluated.

    Attributes:
        id, title, source: as declared.
        claim: id of the claim of ``corpus/claims.yaml`` it supports ('' if none).
        claim_status: ``current`` / ``superseded`` ('' without a claim or if the ledger lacks it).
        claim_holds: whether that claim holds (None without one).
        selections: the declared selections with their records.
    """

    id: str
    title: str
    source: str
    claim: str
    claim_status: str
    claim_holds: bool | None
    selections: tuple[Selection, ...]


def _cell(table: str, row: str, col: str, keys: list[str], threshold: int) -> Gap | None:
    n = len(keys)
    if n == 0:
        return Gap(table, row, col, 0, "empty", ())
    if n <= threshold:
        return Gap(table, row, col, n, "sparse", tuple(keys))
    return None


def _members(retained: pd.DataFrame, field: str, tax: Taxonomy) -> pd.DataFrame:
    """(key, value) pairs of ``field`` as a two-column frame (multi-valued fields exploded)."""
    long = long_values(retained, field, tax)
    return pd.DataFrame({"key": long.index.astype(str), field: long.astype(str).to_numpy()})


def find_gaps(retained: pd.DataFrame, tax: Taxonomy) -> list[Gap]:
    """All empty and sparse cells, table by table (:func:`gap_tables`), cells in taxonomy order.
    One pass over the records per field, one step per cell."""
    threshold = tax.sparse_threshold
    skip_values = tax.gap_skips[1]
    found: list[Gap] = []
    tags: dict[str, list[list[str]]] = {}
    keys = [str(k) for k in retained.index]

    def of(field: str) -> list[list[str]]:
        if field not in tags:
            known = set(tax.values(field))
            tags[field] = [[t for t in dict.fromkeys(ts) if t in known] for ts in _tags(retained, field, tax)]
        return tags[field]

    for table in gap_tables(tax):
        if "_x_" not in table:
            groups: dict[str, list[str]] = {}
            for key, values in zip(keys, of(table)):
                for value in values:
                    groups.setdefault(value, []).append(key)
            for value in tax.values(table):
                if value not in skip_values:
                    gap = _cell(table, value, "", sorted(set(groups.get(value, []))), threshold)
                    if gap:
                        found.append(gap)
            continue
        rows, cols = table.split("_x_", 1)
        if (rows, cols) not in tax.crosstabs:  # a field name holding "_x_"
            rows, cols = next((r, c) for r, c in tax.crosstabs if f"{r}_x_{c}" == table)
        pairs: dict[tuple[str, str], list[str]] = {}
        for key, left, right in zip(keys, of(rows), of(cols)):
            for r in left:
                for c in right:
                    pairs.setdefault((r, c), []).append(key)
        for r in tax.values(rows):
            for c in tax.values(cols):
                if r not in skip_values and c not in skip_values:
                    gap = _cell(table, r, c, sorted(set(pairs.get((r, c), []))), threshold)
                    if gap:
                        found.append(gap)
    return found


def named_gaps(retained: pd.DataFrame, tax: Taxonomy, claims: list[ClaimResult]) -> list[NamedGap]:
    """The gaps of ``gap_analysis.named``, in declared order, with their records and claim status."""
    by_id = {c.id: c for c in claims}
    out = []
    for gap in tax.gap_analysis.get("named") or []:
        claim = by_id.get(str(gap.get("claim") or ""))
        selections = tuple(Selection(str(s["label"]), dict(s["where"]), tuple(select(retained, s["where"], tax)))
                           for s in gap.get("selections") or [])
        out.append(NamedGap(str(gap["id"]), str(gap["title"]), str(gap["source"]), str(gap.get("claim") or ""),
                            claim.status if claim else "", claim.holds if claim else None, selections))
    return out


def coverage(retained: pd.DataFrame, where: dict, field: str, tax: Taxonomy) -> dict:
    """How the records of ``where`` cover the values of the list field ``field``:
    ``{"measures": [codes], "joint": [keys carrying all], "by_benchmark": {key: [codes]}}``
    (the keys of gaps.json, whatever the field)."""
    measures = list(tax.values(field))
    chosen = retained[where_mask(retained, where, tax)]
    by = {str(k): [m for m in measures if m in tags] for k, tags in zip(chosen.index, chosen[field])}
    return {"measures": measures, "joint": sorted(k for k, ms in by.items() if len(ms) == len(measures)),
            "by_benchmark": dict(sorted(by.items()))}


@dataclass(frozen=True)
class SectionResult:
    """One declared section of the gap analysis, evaluated: a :class:`~masrl.analyses.table.Table`
    (``table``) or a coverage mapping (``coverage``, see :func:`coverage`)."""

    section: GapSection
    table: Table | None = None
    coverage: dict | None = None

    def json(self):
        """Its value in gaps.json: the table's rows (index column first) or the coverage mapping."""
        if self.table is not None:
            index = self.table.frame.index.name
            return [{index: u, **row} for u, row in self.table.frame.to_dict(orient="index").items()]
        return self.coverage


def sections(retained: pd.DataFrame, records: list[dict], tax: Taxonomy) -> list[SectionResult]:
    """Every declared section of ``gap_analysis.sections``, evaluated on the retained frame."""
    out = []
    for section in gap_sections(tax):
        if section.kind == "table":
            out.append(SectionResult(section, table=declared_table(section.table, retained, records, tax)))
        else:
            out.append(SectionResult(section, coverage=coverage(retained, dict(section.spec.get("where") or {}),
                                                                str(section.spec.get("field")), tax)))
    return out


def gaps_json(gaps: list[Gap], threshold: int, named: list[NamedGap] = (), tax: Taxonomy | None = None,
              sections: list[SectionResult] = ()) -> dict:
    """The JSON document of ``reports/gaps.json``: every cell (with whether its table's axes
    combine), the named gaps, the declarations, and each declared section under its ``json`` key."""
    plan = tax.gap_analysis if tax is not None else {}
    combine = plan.get("combine") or {}
    return {
        "sparse_threshold": threshold,
        "named_gaps": [{"id": g.id, "title": g.title, "source": g.source, "claim": g.claim or None,
                        "claim_status": g.claim_status or None, "claim_holds": g.claim_holds,
                        "selections": [{"label": s.label, "where": s.where, "count": len(s.keys), "records": list(s.keys)}
                                       for s in g.selections]} for g in named],
        "cells": [{**asdict(g), "records": list(g.records), "table_axes_combine": g.table in combine} for g in gaps],
        "tables_combine": dict(combine),
        "tables_left_out": dict(plan.get("left_out") or {}),
        **{s.section.json: s.json() for s in sections},
    }
