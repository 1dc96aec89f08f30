"""The build cache (``.masrl-cache/``, masrl.build.cache) and the release manifests
(masrl.build.manifest): never other bytes than a full build.

A build answered by the stamp, one that keeps outputs whose key is unchanged, and one that takes a
release's tree as its manifest confirms it must write and report exactly what a build without the
cache writes and reports; a damaged, foreign, outdated or forged entry must change nothing but the
time a build takes; a changed input, a changed output file and changed code must each be noticed.
The reference is always a build of the same tree with ``MASRL_CACHE=off``. The tree is the test
survey of tests/data/second-survey (seven records, released as r1, one record added since).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from soil_trees import TODAY, files_of, generate_for, run
from trees import copy_tree
from masrl.build import cache, manifest, outputs
from masrl.commands import build as build_command


RECORD = "corpus/papers/jones2020.yaml"
RETAG = ("technique: combustion\n", "technique: spectroscopy\n")
RELEASE = "reports/releases/r1/"


def retag(root: Path) -> None:
    text = (root / RECORD).read_text()
    assert RETAG[0] in text
    (root / RECORD).write_text(text.replace(*RETAG, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def stamped(released_soil):
    """The test survey released as r1 and grown by one record, built with the cache on: its stamp
    and outputs entry written, r1's manifest with its reports."""
    root = released_soil
    assert (root / cache.STAMP).is_file() and (root / cache.OUTPUTS).is_file() and (root / RELEASE / manifest.NAME).is_file()
    return root


@pytest.fixture(scope="module")
def reference(stamped, tmp_path_factory):
    """The generated files of ``stamped`` with :data:`RECORD` retagged, built without the cache."""
    root = copy_tree(stamped, tmp_path_factory.mktemp("reference") / "survey")
    shutil.rmtree(root / cache.FOLDER)
    retag(root)
    assert run(root, "build", cache="off") == 0
    assert not (root / cache.FOLDER).exists()
    return files_of(root)


@pytest.fixture
def tree(stamped, tmp_path, monkeypatch):
    """A private copy of ``stamped`` (its cache included), with the cache on."""
    root = copy_tree(stamped, tmp_path / "survey")
    monkeypatch.setenv("MASRL_CACHE", "on")
    monkeypatch.setenv("MASRL_TODAY", TODAY)
    return root


def without_cache(cli, root: Path, monkeypatch, *args: str):
    """The reference: the same command on the same tree with the cache off."""
    monkeypatch.setenv("MASRL_CACHE", "off")
    try:
        return cli("build", "--root", root, *args)
    finally:
        monkeypatch.setenv("MASRL_CACHE", "on")


def no_parsing(monkeypatch):
    def refuse(files):
        raise AssertionError("the corpus was parsed: the stamp did not answer")

    monkeypatch.setattr(build_command, "parse_tree", refuse)


def test_the_cache_ignores_itself_in_git(stamped):
    assert (stamped / cache.FOLDER / ".gitignore").read_text().splitlines()[-1] == "*"


def test_the_cache_holds_digests_and_no_report_text(stamped):
    generated = files_of(stamped)
    texts = {data for rel, data in generated.items() if len(data) > 40}
    for path in (stamped / cache.FOLDER).rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            assert not any(text in raw for text in texts), f"{path.name} holds the text of a report"
    units = cache.recorded_outputs((stamped / cache.OUTPUTS).read_bytes(), json.loads(json.loads(
        (stamped / cache.OUTPUTS).read_bytes())["payload"])["key"])
    assert "reports/table technique" in units and "reports/statistics (STATS.md)" in units
    key, files = units["reports/table technique"]
    assert sorted(files) == ["reports/tables/technique.csv", "reports/tables/technique.md", "reports/tex/technique.tex"]
    assert len(key) == 64 and all(len(sha) == 64 for sha in files.values())


def test_check_is_answered_by_the_stamp_and_says_what_a_full_check_says(tree, cli, monkeypatch):
    full = without_cache(cli, tree, monkeypatch, "--check")
    no_parsing(monkeypatch)
    fast = cli("build", "--root", tree, "--check")
    assert (fast.code, fast.out, fast.err) == (full.code, full.out, full.err)
    assert fast.code == 0 and fast.out.startswith(f"ok: all {len(files_of(tree))} generated files are current")


def test_a_no_change_build_is_answered_by_the_stamp_and_writes_nothing(tree, cli, monkeypatch):
    before = files_of(tree)
    entries = {p: (tree / p).read_bytes() for p in (cache.STAMP, cache.OUTPUTS)}
    no_parsing(monkeypatch)
    done = cli("build", "--root", tree)
    assert done.code == 0 and done.out == f"build: 0 written, {len(before)} unchanged, 0 removed\n"
    assert files_of(tree) == before
    assert {p: (tree / p).read_bytes() for p in entries} == entries


def test_check_notices_a_changed_generated_file_with_the_message_of_a_full_check(tree, cli, monkeypatch):
    with open(tree / "reports/STATS.md", "ab") as handle:
        handle.write(b"edited by hand\n")
    (tree / "reports/tables/technique.csv").unlink()
    full = without_cache(cli, tree, monkeypatch, "--check")
    no_parsing(monkeypatch)
    fast = cli("build", "--root", tree, "--check")
    assert fast.code == 1 and (fast.out, fast.err) == (full.out, full.err)
    assert fast.err.splitlines() == [
        "stale: reports/STATS.md",
        "missing: reports/tables/technique.csv",
        "masrl build --check: 2 file(s) out of date; run `masrl build` and commit the result",
    ]


def test_a_build_after_a_generated_file_changed_renders_and_restores_it(tree, cli, monkeypatch):
    before = files_of(tree)
    (tree / "reports/STATS.md").write_text("edited by hand\n", encoding="utf-8")
    (tree / cache.STAMP).unlink()  # the outputs entry alone decides
    done = cli("build", "--root", tree)
    assert done.code == 0 and done.out == f"build: 1 written, {len(before) - 1} unchanged, 0 removed\n"
    assert files_of(tree) == before


def test_a_changed_input_is_noticed_by_check_as_by_a_full_check(tree, cli, monkeypatch):
    retag(tree)
    full = without_cache(cli, tree, monkeypatch, "--check")
    fast = cli("build", "--root", tree, "--check")
    assert fast.code == full.code == 1 and (fast.out, fast.err) == (full.out, full.err)
    assert "stale: reports/tables/technique.csv" in fast.err.splitlines()


def test_changed_code_or_toolchain_is_noticed(tree, cli, monkeypatch):
    real = build_command.identity_text
    monkeypatch.setattr(build_command, "identity_text", lambda: real() + "\nmatplotlib-9.9.dist-info")
    parsed = []
    real_parse = build_command.parse_tree
    monkeypatch.setattr(build_command, "parse_tree", lambda files: parsed.append(1) or real_parse(files))
    done = cli("build", "--root", tree, "--check")
    assert done.code == 0 and parsed == [1]


def test_a_damaged_stamp_only_means_a_full_build(tree, cli, monkeypatch):
    (tree / cache.STAMP).write_bytes(b'{"sha256": "0", "payload": "{}"')
    parsed = []
    real_parse = build_command.parse_tree
    monkeypatch.setattr(build_command, "parse_tree", lambda files: parsed.append(1) or real_parse(files))
    done = cli("build", "--root", tree, "--check")
    assert done.code == 0 and parsed == [1]
    assert (tree / cache.STAMP).read_bytes() == b'{"sha256": "0", "payload": "{}"', "--check wrote the cache"


def test_a_retag_keeps_every_output_that_does_not_read_the_field_and_writes_what_a_full_build_writes(
        tree, cli, reference):
    retag(tree)
    generated = generate_for(tree)
    assert generated.confirmed == ("r1",)  # the release's tree: from its manifest, nothing computed
    rendered = set(generated.rendered)
    assert {"reports/table technique", "reports/statistics (STATS.md)"} <= rendered
    # outputs that read no technique of a record: kept from their files, not computed
    for kept in ("reports/table region", "reports/table scale", "reports/table exclusion_log",
                 "reports/JSON Schemas of the input files"):
        assert kept not in rendered, kept
    assert not any(unit.startswith(RELEASE) for unit in rendered)
    assert cli("build", "--root", tree).code == 0
    assert files_of(tree) == reference


def test_a_build_without_figures_records_no_stamp_so_the_next_build_draws_what_it_left(tree, cli, reference):
    """A stamp says every output is current; after ``--no-figures`` the figures of a retag are not, so the
    build records none (the one before it no longer answers: the inputs changed) and the next build draws them."""
    before = (tree / cache.STAMP).read_bytes()
    retag(tree)
    assert cli("build", "--root", tree, "--no-figures").code == 0
    assert (tree / cache.STAMP).read_bytes() == before
    assert files_of(tree) != reference and cli("build", "--root", tree, "--check").code == 1
    assert cli("build", "--root", tree).code == 0
    assert files_of(tree) == reference


def test_a_fresh_clone_is_checked_with_the_release_taken_from_its_manifest(stamped, tmp_path, cli, monkeypatch):
    root = copy_tree(stamped, tmp_path / "clone")
    shutil.rmtree(root / cache.FOLDER)  # a clone has no cache
    monkeypatch.setattr(outputs, "tree_units", _refuse_release(outputs.tree_units))
    monkeypatch.setenv("MASRL_CACHE", "off")
    monkeypatch.setenv("MASRL_TODAY", TODAY)
    done = cli("build", "--root", root, "--check")
    assert done.code == 0, done.err
    assert not (root / cache.FOLDER).exists()


def _refuse_release(real):
    def tree_units(build, results):
        assert results.name == "pool", f"release {results.name} was rendered although its manifest confirms it"
        return real(build, results)
    return tree_units


def test_a_release_file_edited_by_hand_is_stale_and_restored(tree, cli, monkeypatch):
    before = files_of(tree)
    (tree / f"{RELEASE}STATS.md").write_text("edited by hand\n", encoding="utf-8")
    full = without_cache(cli, tree, monkeypatch, "--check")
    fast = cli("build", "--root", tree, "--check")
    assert fast.code == full.code == 1 and fast.err == full.err
    assert fast.err.splitlines()[0] == f"stale: {RELEASE}STATS.md"
    assert cli("build", "--root", tree).code == 0
    assert files_of(tree) == before


def test_a_manifest_recorded_for_other_code_means_the_release_is_rendered_and_compared(tree, cli, monkeypatch):
    from masrl.build import generate as generation

    before = files_of(tree)
    monkeypatch.setattr(generation, "_release_fingerprint", lambda result, results: "0" * 64)
    rendered = []
    real = outputs.tree_units
    monkeypatch.setattr(outputs, "tree_units", lambda build, results: rendered.append(results.name) or real(build, results))
    (tree / cache.STAMP).unlink()
    done = cli("build", "--root", tree, "--check")
    assert done.code == 1 and done.err.splitlines()[:1] == [f"stale: {RELEASE}manifest.json"]  # its files are as rendered
    assert "r1" in rendered
    assert cli("build", "--root", tree).code == 0
    written = files_of(tree)
    assert {k for k in written if written[k] != before[k]} == {f"{RELEASE}manifest.json"}
    assert json.loads(written[f"{RELEASE}manifest.json"])["fingerprint"] == "0" * 64


def test_the_manifest_lists_every_file_of_the_release_tree(stamped):
    recorded = json.loads((stamped / RELEASE / manifest.NAME).read_text())
    on_disk = {p.relative_to(stamped / RELEASE).as_posix() for p in (stamped / RELEASE).rglob("*") if p.is_file()}
    assert set(recorded["files"]) == on_disk - {manifest.NAME}
    assert {"STATS.md", "figures/manifest.json", "figures/technique_counts.svg"} <= set(recorded["files"])
    assert len(recorded["fingerprint"]) == 64


def test_the_release_fingerprint_covers_what_its_tree_reads(stamped):
    """Each part of what a release's tree is computed from changes its fingerprint; what its
    tree does not read (the pool's records, another release's label) does not."""
    import dataclasses

    from masrl.build.pipeline import build
    from masrl.corpus.load import load

    result = build(load(stamped), {})
    r1 = result.population("r1")
    base = manifest.fingerprint(result, r1, "code", "toolchain")
    assert manifest.fingerprint(result, r1, "code", "toolchain") == base
    assert manifest.fingerprint(result, r1, "code2", "toolchain") != base
    assert manifest.fingerprint(result, r1, "code", "toolchain2") != base
    assert manifest.fingerprint(dataclasses.replace(result, traces_valid={"x": True}), r1, "code", "toolchain") != base
    pool, about_r1 = result.claims_raw  # the claim about the pool, the claim about r1
    claims = [*result.claims_raw, {**about_r1, "statement": "Another statement about r1 ({lab})."}]
    assert manifest.fingerprint(dataclasses.replace(result, claims_raw=tuple(claims)), r1, "code", "toolchain") != base
    pool_claim = [*result.claims_raw, {**pool, "id": "another"}]
    assert manifest.fingerprint(dataclasses.replace(result, claims_raw=tuple(pool_claim)), r1, "code", "toolchain") == base
    records = list(r1.population.retained)
    records[0] = {**records[0], "scale": "landscape"}
    retagged = type(r1)(dataclasses.replace(r1.population, retained=tuple(records)))
    assert manifest.fingerprint(result, retagged, "code", "toolchain") != base
