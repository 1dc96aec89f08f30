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


@pytest.fixture(scope="session")
def built():
    """The :class:`masrl.build.pipeline.Build` of the repository's corpus (pool and every release)."""
    from masrl.build.pipeline import build
    from masrl.checks.validate import validate
    from masrl.corpus.load import load

    corpus = load(REPO)
    assert validate(corpus) == []
    return build(corpus, {"survey_example": True})


@pytest.fixture(scope="session")
def published(built):
    """Results of release v1, the survey as published (its frozen snapshot): the only
    population whose numbers tests may state as literals, since adding papers never changes it."""
    return built.population("v1")


@pytest.fixture
def published_survey(survey: Path) -> Path:
    """A copy of the survey whose pool is release v1's membership (84 retained, 32 excluded), for
    tests whose expectations depend on the pool's composition (sample sizes, strata): they stay
    true however the real pool grows."""
    from grow import restrict_to_release

    return restrict_to_release(survey)


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


@pytest.fixture(autouse=True)
def no_network():
    """Every test runs with HTTP mocked: a request no test registered fails as a
    connection error (``responses``), so no test can reach the network."""
    import responses

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def pytest_terminal_summary(terminalreporter):
    """Say at the end of the run when the browser tests of the site were skipped, and why."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "browser tests skipped" in str(r.longrepr)]
    if skipped:
        reason = str(skipped[0].longrepr[-1]) if isinstance(skipped[0].longrepr, tuple) else str(skipped[0].longrepr)
        reason = reason.removeprefix('Skipped: ').removeprefix('browser tests skipped: ')
        terminalreporter.write_line(f"{len(skipped)} browser test(s) of the site were SKIPPED: {reason}")
