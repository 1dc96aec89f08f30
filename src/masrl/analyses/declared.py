"""The survey's own tables, computed from their declarations (pure functions).

Each table of the taxonomy's ``tables`` (and of ``gap_analysis.sections``) is a
:class:`~masrl.corpus.declarations.TableDecl`; :func:`declared_table` computes it from the
retained frame: one row per family of values, per value, per record or per year, with the
declared columns in order (see the header of ``corpus/taxonomy.yaml`` for what each column
kind computes). Editorial columns (attributes of values or families) come from the taxonomy;
every count and every list of records comes from the records.
"""

from __future__ import annotations

from masrl.core.tabular import pd

from ..corpus.declarations import Column, TableDecl, all_of_name, column_names, split_values  # noqa: F401 (names of declared columns, re-exported)
from ..corpus.taxonomy import Taxonomy
from .claims import _matches, where_mask
from .table import Table


def _join(keys) -> str:
    return ", ".join(keys) if keys else "none"


def carrying(frame: pd.DataFrame, field: str, values: list[str], tax: Taxonomy) -> pd.Series:
    """Boolean Series: which records of ``frame`` carry one of ``values`` of ``field``."""
    spec = tax.fields.get(field)
    return _matches(frame[field], list(values), bool(spec and spec.multi)).astype(bool)  # bool even when empty


def _attr(spec: dict, code: str, column: Column):
    value = spec.get(column.arg)
    if value is None:
        default = "code" if column.arg == "label" else ""
        return code if column.spec.get("missing", default) == "code" else ""
    if isinstance(value, list):
        return _join(value) if column.names_records else ", ".join(str(v) for v in value)
    return value


def _cells(decl: TableDecl, members: pd.DataFrame, spec: dict, code: str, tax: Taxonomy) -> dict:
    """The declared columns of one row whose records are ``members``."""
    row: dict = {}
    for column in decl.columns:
        if column.kind == "attr":
            row[column.name] = _attr(spec, code, column)
        elif column.kind == "count":
            row[column.name] = int(where_mask(members, column.arg or {}, tax).sum())
        elif column.kind == "keys":
            row[column.name] = _join(sorted(map(str, members.index[where_mask(members, column.arg or {}, tax)])))
        elif column.kind == "distinct":
            order = list(tax.values(str(column.arg)))
            seen = sorted({str(v) for v in members[str(column.arg)]}, key=lambda v: order.index(v) if v in order else 99)
            row[column.name] = ", ".join(seen) or "none"
        elif column.kind == "split":
            for value, name in split_values(column, tax):
                row[name] = int(carrying(members, str(column.arg), [value], tax).sum())
        elif column.kind == "all_of":
            codes = list(tax.values(str(column.arg)))
            mask = pd.Series(True, index=members.index)
            for value in codes:
                mask &= carrying(members, str(column.arg), [value], tax)
            row[all_of_name(column, tax)] = int(mask.sum())
        elif column.kind == "flag":
            row[column.name] = next((str(rule.get("text", "")) for rule in column.arg or []
                                     if isinstance(rule, dict) and not where_mask(members, rule.get("zero") or {}, tax).any()), "")
    return row


def _frame(rows: list[dict], index: str, columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=[index, *columns]).set_index(index)


def _values(decl: TableDecl, retained: pd.DataFrame, tax: Taxonomy) -> Table:
    field = tax.fields[decl.field]
    scope = retained[where_mask(retained, decl.where, tax)]
    rows, skipped = [], []
    for code in field.values:
        members = scope[carrying(scope, field.name, [code], tax)]
        if code in decl.skip:
            skipped += sorted(map(str, members.index))
            continue
        rows.append({decl.index: code, **_cells(decl, members, field.value_spec(code), code, tax)})
    note = decl.note
    if skipped and decl.skipped_note:
        note = f"{note} {decl.skipped_note.replace('{keys}', ', '.join(skipped))}".strip()
    return Table(decl.name, decl.title, _frame(rows, decl.index, column_names(decl, tax)), decl.source, note)


def _families(decl: TableDecl, retained: pd.DataFrame, tax: Taxonomy) -> Table:
    scope = retained[where_mask(retained, decl.where, tax)]
    rows = []
    for fid, family in decl.families.items():
        codes = [str(c) for c in family.get("codes") or []]
        members = scope[carrying(scope, decl.field, codes, tax)]
        rows.append({decl.index: fid, **_cells(decl, members, family, fid, tax)})
    return Table(decl.name, decl.title, _frame(rows, decl.index, column_names(decl, tax)), decl.source, decl.note)


def _lookup(record: dict, path: str):
    value: object = record
    for part in path.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value


def _records(decl: TableDecl, retained: pd.DataFrame, records: list[dict], tax: Taxonomy) -> Table:
    chosen = set(map(str, retained.index[where_mask(retained, decl.where, tax)]))
    rows = []
    for rec in records:
        if str(rec.get("key")) not in chosen or (decl.require and not rec.get(decl.require)):
            continue
        rows.append({decl.index: rec["key"], **{c.name: _lookup(rec, str(c.arg)) for c in decl.columns if c.kind == "field"}})
    names = [c.name for c in decl.columns if c.kind == "field"]
    frame = _frame(rows, decl.index, names)
    for column in decl.columns:
        if column.kind == "field" and column.spec.get("type") == "integer":
            if frame[column.name].map(lambda v: isinstance(v, int)).all():
                frame[column.name] = frame[column.name].astype("int64")
            else:
                frame[column.name] = frame[column.name].astype(str)
    return Table(decl.name, decl.title, frame, decl.source, decl.note)


def _years(decl: TableDecl, retained: pd.DataFrame, tax: Taxonomy) -> Table:
    """Retained records per publication year (every year from the earliest to the latest, gaps
    included) and value of ``by`` (taxonomy order)."""
    years = list(range(int(retained["year"].min()), int(retained["year"].max()) + 1)) if len(retained) else []
    table = pd.crosstab(retained["year"], retained[decl.by].astype(str)) if len(retained) else pd.DataFrame()
    table = table.reindex(index=years, columns=list(tax.values(decl.by)), fill_value=0).astype("int64")
    table.index.name = "year"
    table.columns.name = None
    return Table(decl.name, decl.title, table, decl.source, decl.note)


def declared_table(decl: TableDecl, retained: pd.DataFrame, records: list[dict], tax: Taxonomy) -> Table:
    """One declared table, computed from the retained frame (and the records, for a records table).

    ``retained``: the typed frame of :func:`masrl.corpus.frame.retained_frame`; ``records``: the
    retained record mappings in key order. Counts are ints; lists of records are joined with
    ``, `` (``none`` when empty).
    """
    if decl.kind == "values":
        return _values(decl, retained, tax)
    if decl.kind == "families":
        return _families(decl, retained, tax)
    if decl.kind == "records":
        return _records(decl, retained, records, tax)
    return _years(decl, retained, tax)
