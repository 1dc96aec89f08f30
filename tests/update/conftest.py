"""Fixtures of the update-round tests: the local servers, a fake clock in every paced session,
and a copy of the survey with a retained and an excluded paper that the servers also list."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from servers import ArxivServer, CrossrefServer, FakeClock, Served  # noqa: E402


@pytest.fixture
def clock(monkeypatch):
    """A fake clock used by every :class:`PacedSession` built without its own (no test waits 3 s)."""
    from masrl.review.update.sources import pacing

    fake = FakeClock()
    monkeypatch.setattr(pacing, "CLOCK", fake)
    monkeypatch.setattr(pacing, "SLEEP", fake.sleep)
    return fake


@pytest.fixture
def arxiv_server(no_network, monkeypatch):
    served = Served(ArxivServer())
    no_network.add_passthru(served.url)
    monkeypatch.setenv("MASRL_ARXIV_API", f"{served.url}/api/query")
    yield served
    served.close()


@pytest.fixture
def crossref_server(no_network, monkeypatch):
    served = Served(CrossrefServer())
    no_network.add_passthru(served.url)
    monkeypatch.setenv("MASRL_CROSSREF_API", f"{served.url}/works")
    yield served
    served.close()


@pytest.fixture
def round_survey(published_survey, cli):
    """The survey (release v1's pool) plus a retained paper 2605.10003 ("An Old Title of a Retained
    Paper") and an excluded paper 2605.10004, both of which the arXiv server also lists."""
    from grow import PAPERS, add_paper

    root = published_survey
    add_paper(cli, root, {"key": "turing2026", "arxiv": "2605.10003v1", "title": "An Old Title of a Retained Paper",
                          "authors": ["Turing, Alan"], "year": 2026, "venue": "arXiv", "tags": PAPERS[0]["tags"]})
    run = cli("exclude", "--root", root, "--title", "Prompted Delegation Without Training", "--arxiv", "2605.10004",
              "--author", "Liskov, Barbara", "--year", "2026", "--stage", "abstract_screen", "--reason",
              "prompted framework only", "--reason-class", "X1", "--source", "arXiv", "--query-family", "orchestration")
    assert run.code == 0, run.err
    return root
