"""Reading the CSV sheets people fill in with a spreadsheet (update-round queues, audit sheets).

One reader for every sheet masrl reads, as spreadsheets save them: UTF-8 with or without a
byte-order mark, or UTF-16; separated by commas, semicolons or tabs (the one the header line
uses most). Workbooks (``.xls``, ``.xlsx``, ``.ods``) and other encodings are refused by name.
Rows whose cells are all empty are skipped and cells are stripped. Nothing here touches the
file system: the loader hands over the bytes.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.errors import Problem

#: What every refusal of a sheet's form tells the user to do.
SAVE_AS = "save the sheet as 'CSV UTF-8 (comma delimited)'"


@dataclass(frozen=True)
class SheetRow:
    """One data row of a sheet: the 1-based line it starts on and its cells by column name."""

    line: int
    cells: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> str:
        """The cell of column ``name`` ("" when the column is missing)."""
        return self.cells.get(name, "")


def decode_sheet(data: bytes, name: str) -> tuple[str | None, Problem | None]:
    """``(text, None)`` of a sheet's bytes, or ``(None, problem)`` naming the form it has instead
    (an Excel 97-2003 workbook, a zip archive such as ``.xlsx``/``.ods``, bad UTF-16, not UTF-8)."""
    if data.startswith(b"\xd0\xcf\x11\xe0"):
        return None, Problem(name, None, None, f"this is an Excel 97-2003 workbook (.xls); {SAVE_AS} and import that")
    if data.startswith(b"PK\x03\x04"):
        return None, Problem(name, None, None, f"this is a zip archive (an .xlsx or .ods workbook?); {SAVE_AS} and "
                                               "import that")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), None
        except UnicodeDecodeError:
            return None, Problem(name, None, None, "starts like UTF-16 but is not valid UTF-16; save the sheet as CSV UTF-8")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        return None, Problem(name, line, None, f"not UTF-8 (byte 0x{data[err.start]:02x}); {SAVE_AS}, not as plain "
                                               "'CSV' in a local encoding")


def read_sheet(data: bytes, name: str, cell: Callable[[str], str] = str, starts_with: str = "") -> \
        tuple[list[str], list[SheetRow], list[Problem]]:
    """``(header, rows, problems)`` of a sheet (see the module docstring).

    Args:
        data: the file's bytes; ``name``: its path, for problems.
        cell: applied to every stripped cell (e.g. taking off a formula guard).
        starts_with: the sheet's first columns, named in the problem of a missing header.

    Problems: a workbook or another encoding, no header row, a row with more cells than the
    header (a separator inside an unquoted value) or fewer (a row cut short); such a row is not
    taken, text the csv module cannot read in its strict mode
    (a quoted cell followed by more text: a stray quote that would join or split cells).
    """
    text, problem = decode_sheet(data, name)
    if problem:
        return [], [], [problem]
    first = text.split("\n", 1)[0]
    delimiter = max(",;\t", key=lambda d: (first.count(d), d == ","))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] = []
    rows: list[SheetRow] = []
    problems: list[Problem] = []
    start = 1
    try:
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not header:
                header = [c.strip() for c in cells]
                continue
            if not any(c.strip() for c in cells):
                continue
            if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
                problems.append(Problem(name, line, None, f"{len(cells)} cells but the header has {len(header)} columns "
                                                          "(a separator inside an unquoted value?)"))
                continue
            if len(cells) < len(header):  # a spreadsheet writes every column of every row
                problems.append(Problem(name, line, None, f"{len(cells)} cells but the header has {len(header)} columns "
                                                          "(a row cut short, or a line break inside an unquoted value?)"))
                continue
            rows.append(SheetRow(line, {h: cell(cells[i].strip()) if i < len(cells) else "" for i, h in enumerate(header)}))
    except csv.Error as err:  # the sheet cannot be read past here: none of it is taken
        why = (f"a cell longer than {csv.field_size_limit():,} characters, more than a sheet's cell holds"
               if "field larger than field limit" in str(err) else
               f"{err}: a stray double quote? A cell that starts with a quote ends with one, and a quote inside it is "
               "written twice")
        return [], [], [*problems, Problem(name, reader.line_num, None, f"not readable as CSV ({why})")]
    if not any(header):
        problems.append(Problem(name, 1, None, "no header row" + (f"; the sheet starts with: {starts_with}" if starts_with else "")))
    return header, rows, problems
