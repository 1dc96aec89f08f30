"""Surveys for the hostile-input tests, written for each test, never the
repository's corpus; a test module imports the fixtures it takes from here.

``soil``: the second survey of tests/second_survey.py (soil carbon: seven retained and three
excluded records, a not-applicable value, a chain, a years figure and a flow) in the test's own
folder; ``edit_record(path, field=value)`` sets fields of a record file. ``write_round(root,
round_id, rows)`` adds a search protocol (if missing) and one update round to such a survey, its
files written by hand as ``masrl update search`` writes them (no network, no search code);
``candidate(n, **cells)`` is one queue row."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

import pytest
import yaml

import second_survey
from masrl.corpus.rounds import DUPLICATE_COLUMNS, QUEUE_COLUMNS

#: A search protocol for the soil survey (its screening roles: stages ``phase``, reasons ``why``).
PROTOCOL = second_survey.DATA / "second-survey-protocol.yaml"


def candidate(n: int, **cells) -> dict:
    """One queue row: arXiv id 2605.1000n, ranked n, with ``cells`` over the defaults."""
    row = {"identifier": f"arxiv:2605.{10000 + n}", "title": f"Soil carbon candidate number {n}",
           "authors": "Doe, Alex", "year": "2026", "venue": "arXiv", "abstract": "", "published": "2026-05-10",
           "query_families": "soil carbon", "sources": "arXiv", "rank": str(n), "score": "", "likely_reason": "",
           "decision": "", "stage": "", "reason_class": "", "reason": ""}
    row.update(cells)
    return row


def _csv(columns, rows) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def write_round(root: Path, round_id: str, rows: list[dict], since: str = "2026-05-04", until: str = "2026-05-31",
                finished: str | None = None) -> Path:
    """Write the protocol (if missing) and round ``round_id`` (its window, ``rows`` queued, no
    duplicates, finished at ``finished``, default the last day of the window at noon UTC)."""
    protocol = root / "corpus/protocol.yaml"
    if not protocol.exists():
        protocol.write_bytes(PROTOCOL.read_bytes())
    stamp = finished or f"{until}T12:00:00Z"
    n = len(rows)
    meta = {
        "format_version": 1, "round": round_id, "window": {"since": since, "until": until},
        "started": stamp, "finished": stamp,
        "protocol_sha256": hashlib.sha256(protocol.read_bytes()).hexdigest(),
        "sources": [{"name": "arxiv", "label": "arXiv", "endpoint": "https://export.arxiv.org/api/query", "settings": {},
                     "queries": [{"family": "soil carbon", "query": 'abs:"soil carbon"', "sent": stamp, "requests": 1,
                                  "pages": 1, "total": n, "returned": n, "kept": n}]}],
        "counts": {"identified": n, "duplicates": 0, "queued": n,
                   "by_source": {"arXiv": {"identified": n, "duplicates": 0, "queued": n}},
                   "by_family": {"soil carbon": {"identified": n, "duplicates": 0, "queued": n}}},
    }
    folder = root / "corpus/rounds" / round_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "round.yaml").write_text(yaml.safe_dump(meta, sort_keys=False), encoding="utf-8")
    (folder / "queue.csv").write_text(_csv(QUEUE_COLUMNS, rows), encoding="utf-8", newline="")
    (folder / "duplicates.csv").write_text(_csv(DUPLICATE_COLUMNS, []), encoding="utf-8", newline="")
    return folder


@pytest.fixture
def soil(tmp_path) -> Path:
    """The soil-carbon survey (tests/data/second-survey) in the test's own folder."""
    return second_survey.write_survey(tmp_path / "soil")


def _edit_record(path: Path, **fields) -> None:
    """Set top-level fields of a record file (YAML read and written whole)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data.update(fields)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


@pytest.fixture
def edit_record():
    """``edit_record(path, field=value, ...)``: set top-level fields of a record file."""
    return _edit_record
