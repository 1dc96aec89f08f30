"""Every runnable block of the manual's guides runs on a copy of the bundled survey and prints what
the page shows (docs/_ext/guide_runner.py has the convention). Each guide runs in a fresh copy of
the survey made a git repository on ``main`` (as a clone is), with ``MASRL_TODAY`` set; the update
rounds guide searches local servers that answer as arXiv, Crossref, OpenReview and Semantic Scholar
do (tests/update/servers.py).

``MASRL_DOCS_WRITE=1`` writes each command's actual output into its page where it differs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import guide_runner

REPO = Path(__file__).resolve().parents[2]
GUIDES = REPO / "docs" / "guides"
TODAY = "2026-12-15"

sys.path.insert(0, str(REPO / "tests" / "update"))
from servers import ArxivServer, CrossrefServer, FakeClock, OpenReviewServer, SemanticScholarServer, Served  # noqa: E402


def _pages() -> list[str]:
    return sorted(p.name for p in GUIDES.glob("*.md") if p.name != "index.md")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def servers(no_network, monkeypatch):
    """arXiv, Crossref, OpenReview and Semantic Scholar, answered by local servers in their formats;
    the pace of requests on a fake clock."""
    from masrl.review.update.sources import pacing

    fake = FakeClock()
    monkeypatch.setattr(pacing, "CLOCK", fake)
    monkeypatch.setattr(pacing, "SLEEP", fake.sleep)
    served = {name: Served(api) for name, api in (("arxiv", ArxivServer()), ("crossref", CrossrefServer()),
                                                  ("openreview", OpenReviewServer()), ("s2", SemanticScholarServer()))}
    for server in served.values():
        no_network.add_passthru(server.url)
    monkeypatch.setenv("MASRL_ARXIV_API", f"{served['arxiv'].url}/api/query")
    monkeypatch.setenv("MASRL_CROSSREF_API", f"{served['crossref'].url}/works")
    monkeypatch.setenv("MASRL_OPENREVIEW_API", f"{served['openreview'].url}/notes")
    monkeypatch.setenv("MASRL_S2_API", f"{served['s2'].url}/graph/v1")
    yield
    for server in served.values():
        server.close()


#: What a guide needs besides the survey (fixture names).
NEEDS = {"update-rounds.md": ("servers",)}


def test_every_guide_has_runnable_blocks():
    assert _pages(), "docs/guides holds no guide"
    for name in _pages():
        text = (GUIDES / name).read_text(encoding="utf-8")
        assert any(b.kind == "console" for b in guide_runner.blocks(text)), f"{name} has no runnable console block"


@pytest.mark.parametrize("survey_tree", ["published"], indirect=True)
@pytest.mark.parametrize("page", _pages())
def test_a_guide_runs_as_written(page, survey, monkeypatch, request):
    """The guide's commands, run in order on a copy of the survey, print what the page shows."""
    for fixture in NEEDS.get(page, ()):
        request.getfixturevalue(fixture)
    monkeypatch.setenv("MASRL_TODAY", TODAY)
    for name, value in (("GIT_AUTHOR_NAME", "Ada Reader"), ("GIT_AUTHOR_EMAIL", "ada@example.org"),
                        ("GIT_COMMITTER_NAME", "Ada Reader"), ("GIT_COMMITTER_EMAIL", "ada@example.org"),
                        ("GIT_CONFIG_GLOBAL", os.devnull), ("GIT_CONFIG_NOSYSTEM", "1")):
        monkeypatch.setenv(name, value)
    shutil.copy(REPO / ".gitattributes", survey / ".gitattributes")
    for part in ("src/masrl/trace/examples", "tests/trace/data"):  # what the traces guide reads, as in a clone
        shutil.copytree(REPO / part, survey / part)
    _git(survey, "init", "-q", "-b", "main")
    _git(survey, "add", "-A")
    _git(survey, "commit", "-q", "-m", "the bundled survey")
    path = GUIDES / page
    text = path.read_text(encoding="utf-8")
    mismatches, outputs = guide_runner.run_guide(text, guide_runner.Shell(survey, {}))
    if mismatches and os.environ.get("MASRL_DOCS_WRITE") == "1":
        path.write_text(guide_runner.update_guide(text, mismatches, outputs), encoding="utf-8")
    assert not mismatches, f"docs/guides/{page}:\n" + "\n".join(map(str, mismatches))
