"""Fixtures of the hostile-input tests of issue 44 (kinds 6-10): small surveys written for each
test, never the repository's corpus.

``soil``: the second survey of tests/second_survey.py (soil carbon: seven retained and three
excluded records, a not-applicable value, a chain, a years figure and a flow), written into the
test's own folder; tests/hostile/hostile_rounds.py adds a search protocol and update rounds to it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import second_survey


@pytest.fixture
def soil(tmp_path) -> Path:
    """The soil-carbon survey (tests/second_survey.py) in the test's own folder."""
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
