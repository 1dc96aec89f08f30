"""Fixtures of the build tests: the test survey of tests/data/second-survey (seven records, five
figures, a claim about the pool) built, released as r1, grown by one record and built again with
the build cache on, once per test process; each test takes its own copy (soil_trees.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import second_survey as soil
from soil_trees import CACHE, run


@pytest.fixture(scope="session")
def released_soil(tmp_path_factory) -> Path:
    """The test survey built, released as r1, grown by one record (and a claim about r1, frozen) and built,
    with the cache on. Read-only: copy it (:func:`copy_tree`)."""
    root = soil.write_survey(tmp_path_factory.mktemp("soil") / "survey")
    assert run(root, "build") == 0
    assert run(root, "release", "r1", "--date", "2026-02-01", "--title", "First release") == 0
    soil.add_late_record(root)
    assert run(root, "release", "r1", "--freeze-claims") == 0  # as the warning of the claim about r1 says
    assert run(root, "build") == 0
    assert (root / CACHE).is_dir()
    return root
