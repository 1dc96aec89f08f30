"""The survey's table and figure declarations of the taxonomy, as typed values.

A *table* (taxonomy ``tables``, and the tables of ``gap_analysis.sections``) is one of the kinds
of :data:`TABLE_KINDS`; its columns are of the kinds of :data:`COLUMN_KINDS` (the header of
``corpus/taxonomy.yaml`` says what each computes). A *figure* (taxonomy ``figures``) names a
figure kind registered in :mod:`masrl.render.figures` and the table it is drawn from. Parsing is
lenient: what is malformed is left out here and reported by ``masrl validate``
(:mod:`masrl.checks.declarations`).
"""

from __future__ import annotations

from dataclasses import dataclass, field as _field
from typing import Any

from .taxonomy import Taxonomy

#: What a table is made of: one row per family of values, per value, per record, or per year.
TABLE_KINDS = ("families", "values", "records", "years")

#: What a column of a table computes (the key that names its kind in the declaration).
COLUMN_KINDS = ("attr", "count", "keys", "distinct", "split", "all_of", "flag", "field")

#: The name of the table of the screening flow (``tables/prisma_flow.csv``), which every survey has.
FLOW_TABLE = "prisma_flow"

#: The index column of a table of each kind, unless its declaration names another.
DEFAULT_INDEX = {"families": "id", "values": "value", "records": "key", "years": "year"}


@dataclass(frozen=True)
class Column:
    """One declared column.

    Attributes:
        kind: one of :data:`COLUMN_KINDS`.
        name: the column's name (for a ``split``, how its columns are named: ``label`` or ``code``).
        arg: what the kind takes: the attribute, the ``where`` filter, the field, the flag rules
            or the record path.
        spec: the raw mapping.
    """

    kind: str
    name: str
    arg: Any
    spec: dict

    @property
    def names_records(self) -> bool:
        """For an ``attr`` column: whether the attribute names records (``records: true``; joined,
        ``none`` when empty)."""
        return self.spec.get("records") is True


@dataclass(frozen=True)
class TableDecl:
    """One declared table.

    Attributes:
        name: file stem under ``tables/`` and ``tex/``; ``kind``: one of :data:`TABLE_KINDS`.
        title, source, note: as shown with the table; ``skipped_note``: appended to the note
            when records carry a skipped value (``{keys}``: their keys).
        field: the field whose values (or families of values) are the rows; ``by``: a years
            table's column field; ``where``: the records the table counts; ``skip``: values left out.
        index: the name of the index column; ``columns``: the declared columns.
        families: family id -> its mapping (``codes`` and attributes); ``require``: a records
            table's field its records must carry; ``site``: how the site's taxonomy page shows it.
    """

    name: str
    kind: str
    title: str
    field: str = ""
    by: str = ""
    where: dict = _field(default_factory=dict)
    skip: tuple[str, ...] = ()
    index: str = ""
    columns: tuple[Column, ...] = ()
    source: str = ""
    note: str = ""
    skipped_note: str = ""
    families: dict = _field(default_factory=dict)
    require: str = ""
    site: dict = _field(default_factory=dict)


def column_of(spec: object) -> Column | None:
    """The :class:`Column` of one declared column mapping, or None when it names no single kind."""
    if not isinstance(spec, dict):
        return None
    kinds = [k for k in COLUMN_KINDS if k in spec]
    if len(kinds) != 1:
        return None
    kind = kinds[0]
    name = str(spec.get("name", "label" if kind == "split" else ""))
    return Column(kind, name, spec[kind], spec)


def table_of(spec: object, name: str | None = None) -> TableDecl | None:
    """The :class:`TableDecl` of one declared table mapping (``name`` overrides its ``name``),
    or None when its kind is unknown."""
    if not isinstance(spec, dict) or spec.get("kind") not in TABLE_KINDS:
        return None
    kind = spec["kind"]
    columns = tuple(c for c in (column_of(s) for s in spec.get("columns") or []) if c is not None)
    where = spec.get("where")
    families = spec.get("families")
    return TableDecl(
        name=str(name if name is not None else spec.get("name", "")), kind=kind, title=str(spec.get("title", spec.get("name", ""))),
        field=str(spec.get("field", "")), by=str(spec.get("by", "")), where=dict(where) if isinstance(where, dict) else {},
        skip=tuple(str(v) for v in spec.get("skip") or []), index=str(spec.get("index") or DEFAULT_INDEX[kind]),
        columns=columns, source=str(spec.get("source", "")), note=str(spec.get("note", "")),
        skipped_note=str(spec.get("skipped_note", "")),
        families={str(k): v for k, v in families.items() if isinstance(v, dict)} if isinstance(families, dict) else {},
        require=str(spec.get("require", "")), site=dict(spec["site"]) if isinstance(spec.get("site"), dict) else {},
    )


def tables(tax: Taxonomy) -> list[TableDecl]:
    """The survey's declared tables (taxonomy ``tables``), in order."""
    return [t for t in (table_of(spec) for spec in tax.declared_list("tables")) if t is not None and t.name]


@dataclass(frozen=True)
class GapSection:
    """One section of the gap analysis after the named gaps (taxonomy ``gap_analysis.sections``).

    Attributes:
        kind: ``table`` (a declared table) or ``coverage`` (which records of ``where`` carry
            every value of the list field ``field``, and what each carries).
        json: its key in ``gaps.json``; ``title``: its heading; ``intro``: Markdown under it.
        table: the table of a ``table`` section; ``spec``: the raw mapping.
    """

    kind: str
    json: str
    title: str
    intro: str
    table: TableDecl | None
    spec: dict


def gap_sections(tax: Taxonomy) -> list[GapSection]:
    """The declared sections of the gap analysis, in order (malformed ones left out)."""
    out = []
    for spec in tax.gap_analysis.get("sections") or []:
        if not isinstance(spec, dict) or spec.get("kind") not in ("table", "coverage") or not isinstance(spec.get("json"), str):
            continue
        table = table_of(spec.get("table"), name=spec["json"]) if spec["kind"] == "table" else None
        if spec["kind"] == "table" and table is None:
            continue
        out.append(GapSection(spec["kind"], spec["json"], str(spec.get("title", spec["json"])), str(spec.get("intro", "")),
                              table, spec))
    return out


@dataclass(frozen=True)
class FigureDecl:
    """One declared figure: ``name`` (file stem), ``kind`` (a registered figure kind), ``table``
    (the table it is drawn from), ``caption`` and the raw mapping ``spec`` (the kind's options)."""

    name: str
    kind: str
    table: str
    caption: str
    spec: dict


def figures(tax: Taxonomy) -> list[FigureDecl]:
    """The survey's declared figures (taxonomy ``figures``), in order."""
    out = []
    for spec in tax.declared_list("figures"):
        if all(isinstance(spec.get(k), str) for k in ("name", "kind", "table")):
            out.append(FigureDecl(spec["name"], spec["kind"], spec["table"], str(spec.get("caption", "")), spec))
    return out


# The names of declared columns: pure functions of the declarations and the vocabulary, here (not in
# analyses/declared) so that `masrl validate` checks declarations without importing pandas.
def split_values(column: Column, tax: Taxonomy) -> list[tuple[str, str]]:
    """``(code, column name)`` of each column a ``split`` column stands for, in taxonomy order."""
    field = tax.fields.get(str(column.arg))
    if field is None:
        return []
    return [(code, code if column.name == "code" else field.value_label(code)) for code in field.values]


def all_of_name(column: Column, tax: Taxonomy) -> str:
    """The name of an ``all_of`` column: its declared name with ``{first}`` and ``{last}`` the first
    and last codes of its field (``all`` when the field has no value)."""
    codes = tax.values(str(column.arg))
    if not codes:
        return "all"
    return column.name.replace("{first}", codes[0]).replace("{last}", codes[-1])


def column_names(decl: TableDecl, tax: Taxonomy) -> list[str]:
    """The names of the table's columns (besides its index), in order, splits expanded."""
    names: list[str] = []
    for column in decl.columns:
        if column.kind == "split":
            names += [name for _, name in split_values(column, tax)]
        elif column.kind == "all_of":
            names.append(all_of_name(column, tax))
        else:
            names.append(column.name)
    return names
