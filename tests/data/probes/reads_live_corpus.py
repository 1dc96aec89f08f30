"""Run by tests/test_live_corpus.py: a test of the code that reads the repository's live corpus,
which tests/conftest.py must fail, and a live test that may."""

import pytest


def test_reads_the_live_taxonomy(repo):
    (repo / "corpus/taxonomy.yaml").read_bytes()


def test_lists_the_live_records(repo):
    list((repo / "exclusions").iterdir())


@pytest.mark.live
def test_live_reads_the_live_taxonomy(repo):
    (repo / "corpus/taxonomy.yaml").read_bytes()
