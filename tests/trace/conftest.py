"""Shared helpers of the trace tests (no test reads /work/shared: the survey's example is copied in data/)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
SURVEY_BYTES = (DATA / "survey_example.json").read_bytes()


def survey_trace() -> dict:
    """A fresh copy of the survey's example trace (8 events e1-e8, 8 edges)."""
    return copy.deepcopy(json.loads(SURVEY_BYTES))


def problems_of(trace, file: str = "t.json") -> list[str]:
    """Problems of a trace serialised as JSON, as printed lines."""
    from masrl.trace.validate import validate_bytes

    data = trace if isinstance(trace, bytes) else json.dumps(trace).encode("utf-8")
    _tree, problems = validate_bytes(data, file)
    return [str(p) for p in problems]


@pytest.fixture
def survey():
    return survey_trace()


@pytest.fixture(params=[None, 1, 40, 1 << 19], ids=["typed", "block1", "block40", "block512k"])
def block_bytes(request, monkeypatch):
    """Run a test on each parsing path: the typed path first (it falls back by itself on
    any doubt), or only the exact streaming loader with its block size tiny (every
    '},' is a cut) or default."""
    from masrl.trace import load, validate

    if request.param is not None:
        monkeypatch.setattr(validate, "check_data", lambda *args, **kw: None)
        monkeypatch.setattr(validate, "check_tree", lambda *args, **kw: None)
        monkeypatch.setattr(load, "BLOCK_BYTES", request.param)
    return request.param
