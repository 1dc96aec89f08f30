"""Shared fixtures: the repository's corpus, throw-away copies of it, and a CLI runner."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests and fuzzers: "ci" (default) is what every test run and CI can
# afford; "long" runs many more examples by hand:
#   MASRL_HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest -q -k "fuzz or property"
settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=3000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.load_profile(os.environ.get("MASRL_HYPOTHESIS_PROFILE", "ci"))


from masrl.cli import main

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository root (holds corpus/taxonomy.yaml)."""
    return REPO


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    """A copy of the survey (records, taxonomy, claims, audits, README, reports) to modify freely."""
    root = tmp_path / "survey"
    root.mkdir()
    for name in ("corpus", "exclusions", "reports"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / "README.md", root / "README.md")
    return root


class Run:
    """Result of one CLI run: exit code, stdout, stderr."""

    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Run(code={self.code}, out={self.out[-500:]!r}, err={self.err[-2000:]!r})"


@pytest.fixture
def cli(capsys):
    """Run ``masrl`` in-process: ``cli("validate", "--root", path)`` -> :class:`Run`."""

    def run(*args: str) -> Run:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def _set_field(path: Path, field: str, value: str) -> None:
    """Replace the line ``field: ...`` (top level) of a record file with ``field: value``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"{field}:"):
            lines[i] = f"{field}: {value}"
            break
    else:
        raise AssertionError(f"{field} not in {path}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def set_field():
    """``set_field(path, field, value)``: replace the top-level line ``field: ...`` of a record file."""
    return _set_field
