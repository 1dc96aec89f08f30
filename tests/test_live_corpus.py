"""The repository's own corpus, checked by its own commands: the only tests that read its
``corpus/``, ``exclusions/`` or ``reports/`` (tests/conftest.py refuses any other). They state no
count, no release name and no date of the live corpus, so that using masrl as documented (an
update round, a release, an audit, a merge, an erratum) keeps them green. Release v1's published
numbers are tests/test_reproduction.py's ``[live]`` runs; the toolchain of the committed figures
is tests/figures/test_fig_toolchain.py's."""

from __future__ import annotations

import pytest

from masrl.build.pipeline import build
from masrl.corpus.load import load
from masrl.corpus.releases import content_digest, releases_from
from masrl.render.figures import draw

pytestmark = pytest.mark.live


def test_the_repository_validates(repo, cli):
    run = cli("validate", "--root", repo)
    assert run.code == 0, run.err
    assert run.out.startswith("ok: ")


def test_every_committed_report_is_current(repo, cli):
    run = cli("build", "--check", "--root", repo)
    assert run.code == 0, run.out + run.err


def test_the_committed_figures_of_release_v1_are_what_this_toolchain_draws(repo):
    """Byte for byte, from the repository's own v1 snapshot (its errata applied)."""
    from masrl.render.figures import figures_of

    results = build(load(repo), {"survey_example": True}).population("v1")
    for spec in figures_of(results.tax):
        drawn, missing = draw.render(spec, spec.data(results), spec.notes(results))
        assert missing == []
        for fmt, data in drawn.items():
            assert data == (repo / f"reports/releases/v1/figures/{spec.name}.{fmt}").read_bytes(), f"{spec.name}.{fmt}"


def test_every_release_snapshot_has_the_digest_recorded_for_it(repo):
    corpus = load(repo)
    for release in releases_from(corpus.releases):
        assert content_digest(corpus.snapshots[f"corpus/releases/{release.name}.yaml"]) == release.content_sha256, release.name


def test_the_readme_records_the_digest_of_v1(repo):
    """The README's copy of v1's digest is an independent record of it."""
    recorded = next(r for r in releases_from(load(repo).releases) if r.name == "v1").content_sha256
    assert f"`{recorded}`" in (repo / "README.md").read_text(encoding="utf-8")


def test_a_test_of_the_code_that_reads_the_live_corpus_fails(repo):
    """tests/conftest.py's audit hook: an open or a listing under corpus/, exclusions/ or reports/
    fails a test not marked live (the probe is run by its own pytest)."""
    import subprocess
    import sys

    # -rN: no short summary, whose lines pytest cuts to the terminal's width except on CI (CI=1)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rN", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "tests/data/probes/reads_live_corpus.py"], cwd=repo, capture_output=True, text=True)
    assert "3 passed, 2 errors" in done.stdout, done.stdout[-3000:]  # each read fails the test at its teardown
    assert done.stdout.count("a test of the code read the repository's live corpus") == 2
    assert f"{repo / 'corpus/taxonomy.yaml'}" in done.stdout and f"{repo / 'exclusions'}" in done.stdout
