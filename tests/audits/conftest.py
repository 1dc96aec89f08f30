"""Helpers for audit tests: read an audit's sample, fill its blind sheet as a reader would."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml


def sample_of(root: Path, audit_id: str) -> dict:
    """The parsed audit.yaml of an audit folder."""
    return yaml.safe_load((root / f"corpus/audits/{audit_id}/audit.yaml").read_text(encoding="utf-8"))


def filled_sheet(root: Path, audit_id: str, changes: dict | None = None, notes: dict | None = None) -> list[list[str]]:
    """The blind sheet with every field set to the original value, except ``changes``
    ({(item, field): value}); ``notes`` ({item: text}) go to the note column."""
    audit = sample_of(root, audit_id)
    originals = {i["item"]: {**({"decision": "include" if i["kind"] == "retained" else "exclude"}), **i["original"]}
                 for i in audit["items"]}
    text = (root / f"corpus/audits/{audit_id}/sheet/sheet.csv").read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = rows[0]
    out = [header]
    for row in rows[1:]:
        cells = dict(zip(header, row))
        for name in audit["fields"]:
            cells[name] = (changes or {}).get((cells["item"], name), originals[cells["item"]].get(name, ""))
        cells["note"] = (notes or {}).get(cells["item"], "")
        out.append([cells[h] for h in header])
    return out


def write_csv(path: Path, rows: list[list[str]], delimiter: str = ",", encoding: str = "utf-8") -> Path:
    """Write rows as a spreadsheet program would save them."""
    buffer = io.StringIO(newline="")
    csv.writer(buffer, delimiter=delimiter).writerows(rows)
    path.write_bytes(buffer.getvalue().encode(encoding))
    return path


@pytest.fixture
def survey(published_tree, tmp_path):
    """A copy of the test survey as release v1 published it (84 retained and 32 excluded records),
    the pool the audit tests sample from."""
    from trees import copy_tree

    return copy_tree(published_tree, tmp_path / "survey")


@pytest.fixture
def sheets():
    """``sheets.filled(root, audit_id, changes, notes)``, ``sheets.write(path, rows, ...)``, ``sheets.sample(root, id)``."""
    class _Sheets:
        filled = staticmethod(filled_sheet)
        write = staticmethod(write_csv)
        sample = staticmethod(sample_of)

    return _Sheets
