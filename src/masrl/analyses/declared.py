"""The survey's own tables, computed from their declarations (pure functions).

Each table of the taxonomy's ``tables`` (and of ``gap_analysis.sections``) is a
:class:`~masrl.corpus.declarations.TableDecl`; :func:`declared_table` computes it from the
retained frame: one row per family of values, per value, per record or per year, with the
declared columns in order (see the header of ``corpus/taxonomy.yaml`` for what each column
kind computes). Editorial columns (attributes of values or families) come from the taxonomy;
every count and every list of records comes from the records.
"""

from __future__ import annotations

import dataclasses

from masrl.core.tabular import pd

from ..corpus.declarations import Column, TableDecl, all_of_name, column_names, split_values  # noqa: F401 (names of declared columns, re-exported)
from ..corpus.taxonomy import Taxonomy
from .claims import _match_values, _matches, condition_mask
from .table import Table


def _join(keys) -> str:
    return ", ".join(keys) if keys else "none"


def carrying(frame: pd.DataFrame, field: str, values: list[str], tax: Taxonomy) -> pd.Series:
    """Boolean Series: which records of ``frame`` carry one of ``values`` of ``field``."""
    spec = tax.fields.get(field)
    return _matches(frame[field], list(values), bool(spec and spec.multi)).astype(bool)  # bool even when empty


def reads(decl: TableDecl) -> set[str]:
    """Every name a declaration mentions (its field, the fields of its filters and columns, record
    paths, ...): the columns of the retained frame it reads are those of these names (a years
    table also reads ``year``). Used to hand a table only its columns, and to key it by them."""
    found: set[str] = {"year"} if decl.kind == "years" else set()
    _strings(decl, found)
    return found


def _strings(value, out: set[str]) -> None:
    if isinstance(value, str):
        out.add(value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            _strings(getattr(value, item.name), out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings(k, out)
            _strings(v, out)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            _strings(v, out)


class Rows:
    """The records a declared table reads, as plain lists: their keys (the frame's index as text)
    and the columns the declaration names (as ``frame[name].tolist()`` gives them). Every
    filter, count and list of records of a table is a pass over these lists, so that a table of
    ``v`` values over ``n`` records costs about ``n + v`` steps, not ``n * v`` frame selections."""

    def __init__(self, keys: list[str], columns: dict[str, list]):
        self.keys = keys
        self.columns = columns

    @classmethod
    def of(cls, frame: pd.DataFrame, names) -> "Rows":
        """The rows of ``frame`` with its columns among ``names``."""
        return cls([str(i) for i in frame.index], {c: frame[c].tolist() for c in frame.columns if c in names})

    def __len__(self) -> int:
        return len(self.keys)

    def column(self, name: str) -> list:
        """The values of a column (the keys for ``key`` and ``record_id``, as :func:`where_mask` reads them)."""
        return self.keys if name in ("key", "record_id") else self.columns[name]

    def take(self, positions: list[int]) -> "Rows":
        """The rows at ``positions``, in that order."""
        return Rows([self.keys[i] for i in positions], {c: [v[i] for i in positions] for c, v in self.columns.items()})

    def mask(self, where: dict, tax: Taxonomy) -> list[bool]:
        """Which rows match every condition of ``where`` (as :func:`masrl.analyses.claims.where_mask`)."""
        mask = [True] * len(self.keys)
        for name, cond in where.items():
            mask = [m and p for m, p in zip(mask, condition_mask(self.column(name), cond, tax.fields.get(name)))]
        return mask

    def carrying(self, field: str, values: list[str], tax: Taxonomy) -> list[bool]:
        """Which rows carry one of ``values`` of ``field``."""
        spec = tax.fields.get(field)
        return _match_values(self.column(field), list(values), bool(spec and spec.multi))

    def members(self, field: str, tax: Taxonomy) -> dict[str, list[int]]:
        """``{value: positions of the rows carrying it}``, in one pass over the rows (a value is
        compared as :meth:`carrying` compares it: a tag of a list field as it is, a single value as text)."""
        spec = tax.fields.get(field)
        out: dict[str, list[int]] = {}
        for i, value in enumerate(self.column(field)):
            if spec is not None and spec.multi:
                for tag in dict.fromkeys(value):
                    if isinstance(tag, str):
                        out.setdefault(tag, []).append(i)
            else:
                out.setdefault(str(value), []).append(i)
        return out


def _attr(spec: dict, code: str, column: Column):
    value = spec.get(column.arg)
    if value is None:
        default = "code" if column.arg == "label" else ""
        return code if column.spec.get("missing", default) == "code" else ""
    if isinstance(value, list):
        return _join(value) if column.names_records else ", ".join(str(v) for v in value)
    return value


def _cells(decl: TableDecl, members: Rows, spec: dict, code: str, tax: Taxonomy) -> dict:
    """The declared columns of one row whose records are ``members``."""
    row: dict = {}
    for column in decl.columns:
        if column.kind == "attr":
            row[column.name] = _attr(spec, code, column)
        elif column.kind == "count":
            row[column.name] = sum(members.mask(column.arg or {}, tax))
        elif column.kind == "keys":
            row[column.name] = _join(sorted(k for k, m in zip(members.keys, members.mask(column.arg or {}, tax)) if m))
        elif column.kind == "distinct":
            rank = {v: i for i, v in enumerate(tax.values(str(column.arg)))}
            held = members.column(str(column.arg))  # a list field's cells are tuples; a record without the field ""
            held = [v for cell in held for v in (cell if isinstance(cell, tuple) else (cell,)) if v is not None and v != ""]
            seen = sorted({str(v) for v in held}, key=lambda v: rank.get(v, 99))
            row[column.name] = ", ".join(seen) or "none"
        elif column.kind == "split":
            for value, name in split_values(column, tax):
                row[name] = sum(members.carrying(str(column.arg), [value], tax))
        elif column.kind == "all_of":
            mask = [True] * len(members)
            for value in tax.values(str(column.arg)):
                mask = [m and c for m, c in zip(mask, members.carrying(str(column.arg), [value], tax))]
            row[all_of_name(column, tax)] = sum(mask)
        elif column.kind == "flag":
            row[column.name] = next((str(rule.get("text", "")) for rule in column.arg or []
                                     if isinstance(rule, dict) and not any(members.mask(rule.get("zero") or {}, tax))), "")
    return row


def _frame(rows: list[dict], index: str, columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=[index, *columns]).set_index(index)


def _scope(decl: TableDecl, rows: Rows, tax: Taxonomy) -> Rows:
    """The rows the table counts (its ``where``)."""
    return rows.take([i for i, m in enumerate(rows.mask(decl.where, tax)) if m])


def _values(decl: TableDecl, rows: Rows, tax: Taxonomy) -> Table:
    field = tax.fields[decl.field]
    scope = _scope(decl, rows, tax)
    carried = scope.members(field.name, tax)
    out, skipped = [], []
    for code in field.values:
        members = scope.take(carried.get(code, []))
        if code in decl.skip:
            skipped += sorted(members.keys)
            continue
        out.append({decl.index: code, **_cells(decl, members, field.value_spec(code), code, tax)})
    note = decl.note
    if skipped and decl.skipped_note:
        note = f"{note} {decl.skipped_note.replace('{keys}', ', '.join(skipped))}".strip()
    return Table(decl.name, decl.title, _frame(out, decl.index, column_names(decl, tax)), decl.source, note)


def _families(decl: TableDecl, rows: Rows, tax: Taxonomy) -> Table:
    scope = _scope(decl, rows, tax)
    out = []
    for fid, family in decl.families.items():
        codes = [str(c) for c in family.get("codes") or []]
        members = scope.take([i for i, m in enumerate(scope.carrying(decl.field, codes, tax)) if m])
        out.append({decl.index: fid, **_cells(decl, members, family, fid, tax)})
    return Table(decl.name, decl.title, _frame(out, decl.index, column_names(decl, tax)), decl.source, decl.note)


def _lookup(record: dict, path: str):
    value: object = record
    for part in path.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value


def _records(decl: TableDecl, rows: Rows, records: list[dict], tax: Taxonomy) -> Table:
    chosen = {k for k, m in zip(rows.keys, rows.mask(decl.where, tax)) if m}
    out = []
    for rec in records:
        if str(rec.get("key")) not in chosen or (decl.require and not rec.get(decl.require)):
            continue
        out.append({decl.index: rec["key"], **{c.name: _lookup(rec, str(c.arg)) for c in decl.columns if c.kind == "field"}})
    names = [c.name for c in decl.columns if c.kind == "field"]
    frame = _frame(out, decl.index, names)
    for column in decl.columns:
        if column.kind == "field" and column.spec.get("type") == "integer":
            if frame[column.name].map(lambda v: isinstance(v, int)).all():
                frame[column.name] = frame[column.name].astype("int64")
            else:
                frame[column.name] = frame[column.name].astype(str)
    return Table(decl.name, decl.title, frame, decl.source, decl.note)


def _years(decl: TableDecl, retained: pd.DataFrame, tax: Taxonomy) -> Table:
    """Retained records (those of its ``where``) per publication year (every year from the earliest to the
    latest, gaps included) and value of ``by`` (taxonomy order)."""
    if decl.where:
        retained = retained[Rows.of(retained, reads(decl)).mask(decl.where, tax)]
    years = list(range(int(retained["year"].min()), int(retained["year"].max()) + 1)) if len(retained) else []
    table = pd.crosstab(retained["year"], retained[decl.by].astype(str)) if len(retained) else pd.DataFrame()
    table = table.reindex(index=years, columns=list(tax.values(decl.by)), fill_value=0).astype("int64")
    table.index.name = "year"
    table.columns.name = None
    return Table(decl.name, decl.title, table, decl.source, decl.note)


def declared_table(decl: TableDecl, retained: pd.DataFrame, records: list[dict], tax: Taxonomy) -> Table:
    """One declared table, computed from the retained frame (and the records, for a records table).

    ``retained``: the typed frame of :func:`masrl.corpus.frame.retained_frame` (only the columns
    the declaration names are read: :func:`reads`); ``records``: the retained record mappings in
    key order. Counts are ints; lists of records are joined with ``, `` (``none`` when empty).
    Time: one pass over the records per filter, plus one row per value.
    """
    if decl.kind == "years":
        return _years(decl, retained, tax)
    rows = Rows.of(retained, reads(decl))
    if decl.kind == "values":
        return _values(decl, rows, tax)
    if decl.kind == "families":
        return _families(decl, rows, tax)
    return _records(decl, rows, records, tax)
