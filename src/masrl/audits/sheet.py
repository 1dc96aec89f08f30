"""The blind sheet: written as CSV for the reader, read back and checked cell by cell (pure).

Written: ``sheet.csv`` (UTF-8 with a byte-order mark, so that Excel shows
accented titles right; comma-separated, CRLF line ends as RFC 4180 says; a
text starting with ``= + - @`` gets a leading apostrophe so that no
spreadsheet runs it as a formula),
``allowed-values.csv`` (field, value, label, definition, when) and
``instructions.md``. The sheet shows the item label, one identifier, the title
and the link of each record, never its tags, key or one-liner.

Read: CSV as spreadsheet programs save it — UTF-8 with or without a BOM,
UTF-16 with a BOM (Excel's "Unicode text"), separated by commas, semicolons
(Excel in many European locales) or tabs, quoted as RFC 4180 says. A legacy
``.xls`` workbook or any other encoding is refused by name.
"""

from __future__ import annotations

import csv
import io

from ..core.cells import formula_cell
from ..core.didyoumean import did_you_mean as _suggest
from ..core.errors import Problem
from ..core.text import text_problem
from ..corpus.sheets import SheetRow
from ..corpus.sheets import read_sheet as read_rows
from .fields import DECISION, EXCLUDE, AuditField
from .model import Audit

#: Sheet columns before the fields, and the last one.
LEAD_COLUMNS = ("item", "identifier", "title", "link")
NOTE = "note"


def _csv_bytes(rows: list[list[str]]) -> bytes:
    out = io.StringIO(newline="")
    csv.writer(out).writerows([[formula_cell(c) for c in row] for row in rows])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def sheet_csv(rows: list[tuple[str, str, str, str]], fields: list[str]) -> bytes:
    """The blind sheet: ``rows`` of (item, identifier, title, link), one empty column per field, a note column."""
    return _csv_bytes([[*LEAD_COLUMNS, *fields, NOTE]] + [[*row, *([""] * len(fields)), ""] for row in rows])


def allowed_values_csv(fields: list[AuditField]) -> bytes:
    """``field, value, label, definition, when`` for every allowed value of every field."""
    rows = [["field", "value", "label", "definition", "when"]]
    for f in fields:
        when = "only when decision is exclude; empty otherwise" if f.only_if_excluded else "always"
        rows += [[f.name, v, f.labels[v], f.definitions[v], when] for v in f.values]
    return _csv_bytes(rows)


def read_sheet(data: bytes, name: str) -> tuple[list[str], list[SheetRow], list[Problem]]:
    """Parse a filled sheet into ``(header, rows, problems)`` (:func:`masrl.corpus.sheets.read_sheet`).

    Problems: not a CSV text file (workbook, encoding), no header, a row with
    more cells than the header.
    """
    return read_rows(data, name, starts_with="item, identifier, title, link, ...")


def _header_problems(header: list[str], fields: dict[str, AuditField], name: str) -> list[Problem]:
    known = [*LEAD_COLUMNS, *fields, NOTE]
    problems = []
    seen: set[str] = set()
    for column in header:
        if column and column in seen:
            problems.append(Problem(name, 1, column, "this column appears twice"))
        seen.add(column)
        if column and column not in known:
            problems.append(Problem(name, 1, column, f"unknown column; the sheet's columns are {', '.join(known)}"
                                                     f"{_suggest(column, known)} (write comments in the note column)"))
    for column in ("item", *fields):
        if column not in header:
            problems.append(Problem(name, 1, column, "column is missing" + (" (it names the row's paper)" if column == "item" else "")))
    return problems


def _cell_problem(spec: AuditField, value: str, excluded: bool) -> str | None:
    if spec.only_if_excluded and not excluded:
        return None if value == "" else f"{value!r} given, but only an exclusion has a {spec.name}; leave it empty when the decision is not exclude"
    if value == "":
        return "empty; choose one of " + ", ".join(spec.values) + (" (the decision is exclude)" if spec.only_if_excluded else "")
    if value not in spec.values:
        return f"{value!r} is not an allowed value; allowed: {', '.join(spec.values)}{_suggest(value, spec.value_labels)}"
    return None


def check_sheet(audit: Audit, fields: dict[str, AuditField], header: list[str], rows: list[SheetRow],
                name: str) -> tuple[dict[str, dict[str, str | None]], dict[str, str], list[Problem]]:
    """Check a filled sheet against the audit's sample and vocabulary.

    Returns ``(values, notes, problems)``: item -> field -> value (None for a
    stage or reason class left empty with include), item -> note, and every
    problem (file = ``name``, line of the row, field = the column): unknown
    or missing columns, items not in the sample, missing or repeated, an
    identifier that is not the sample's, and every cell outside the
    vocabulary (with "did you mean").
    """
    problems = _header_problems(header, fields, name)
    if problems:
        return {}, {}, problems
    items = {i.item: i for i in audit.items}
    values: dict[str, dict[str, str | None]] = {}
    notes: dict[str, str] = {}
    first_line: dict[str, int] = {}
    if rows and all(row.cells.get(f, "") == "" for row in rows for f in fields):
        return {}, {}, [Problem(name, None, None, "no field is filled in: is this the blank sheet?")]
    for row in rows:
        label = row.cells.get("item", "")
        item = items.get(label)
        if item is None:
            message = (f"{label!r} is not an item of the sample of {audit.audit_id}" if label
                       else "empty: every row needs its item label")
            problems.append(Problem(name, row.line, "item", message))
            continue
        if label in first_line:
            problems.append(Problem(name, row.line, "item", f"{label} appears twice (also line {first_line[label]})"))
            continue
        first_line[label] = row.line
        given = row.cells.get("identifier", "")
        if given and item.identifier and given != item.identifier:
            problems.append(Problem(name, row.line, "identifier", f"{label} is {item.identifier} in the sample but {given!r} "
                                                                  "here: is this the sheet of another audit?"))
        excluded = row.cells.get(DECISION, "") == EXCLUDE
        values[label] = {}
        for fname, spec in fields.items():
            cell = row.cells.get(fname, "")
            problem = _cell_problem(spec, cell, excluded)
            if problem:
                problems.append(Problem(name, row.line, fname, f"{label}: {problem}"))
            values[label][fname] = cell or None
        if row.cells.get(NOTE):
            notes[label] = row.cells[NOTE]
            if why := text_problem(row.cells[NOTE], multiline=True):  # named here, not in the round file it would make
                problems.append(Problem(name, row.line, NOTE, f"{label}: {why}"))
    missing = [label for label in items if label not in first_line]
    if missing:
        problems.append(Problem(name, None, "item", f"the sheet lacks {len(missing)} item(s) of the sample: {', '.join(missing)}"))
    return values, notes, problems
