"""The build cache (``.masrl-cache/``, masrl.build.cache): never other bytes than a full build.

A build answered by the stamp, or with a frozen release's reports taken from the cache, must
write and report exactly what a build without the cache writes and reports; a damaged, foreign
or outdated entry must be ignored; a changed input, a changed output file and changed code must
each be noticed. The reference is always a build of the same tree with ``MASRL_CACHE=off``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from trees import copy_tree
from masrl.build import cache, outputs
from masrl.commands import build as build_command

RETAG = ("orchestration_form: swarm\n", "orchestration_form: debate\n")
RECORD = "corpus/papers/agentspawn.yaml"


def files_of(root: Path) -> dict[str, bytes]:
    """Every generated file of a tree (README.md and everything under reports/)."""
    out = {"README.md": (root / "README.md").read_bytes()}
    out.update({p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "reports").rglob("*")) if p.is_file()})
    return out


def retag(root: Path) -> None:
    path = root / RECORD
    text = path.read_text()
    assert RETAG[0] in text
    path.write_text(text.replace(*RETAG, 1))


@pytest.fixture(scope="module")
def stamped(published_tree, tmp_path_factory):
    """The bundled survey built once with the cache on: its stamp and release entries written."""
    from masrl.cli import main

    root = copy_tree(published_tree, tmp_path_factory.mktemp("cache") / "survey")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MASRL_CACHE", "on")
        assert main(["build", "--root", str(root), "--quiet"]) == 0
    assert (root / cache.STAMP).is_file() and (root / cache.release_path("v1")).is_file()
    return root


@pytest.fixture(scope="module")
def reference(stamped, tmp_path_factory):
    """The generated files of ``stamped`` with :data:`RECORD` retagged, built without the cache."""
    from masrl.cli import main

    root = copy_tree(stamped, tmp_path_factory.mktemp("reference") / "survey")
    retag(root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MASRL_CACHE", "off")
        assert main(["build", "--root", str(root), "--quiet"]) == 0
    assert not (root / cache.FOLDER).exists()
    return files_of(root)


@pytest.fixture
def tree(stamped, tmp_path, monkeypatch):
    """A private copy of ``stamped`` (its cache included), with the cache on."""
    root = copy_tree(stamped, tmp_path / "survey")
    shutil.copytree(stamped / cache.FOLDER, root / cache.FOLDER)
    monkeypatch.setenv("MASRL_CACHE", "on")
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


def test_check_is_answered_by_the_stamp_and_says_what_a_full_check_says(tree, cli, monkeypatch):
    full = without_cache(cli, tree, monkeypatch, "--check")
    no_parsing(monkeypatch)
    fast = cli("build", "--root", tree, "--check")
    assert (fast.code, fast.out, fast.err) == (full.code, full.out, full.err)
    assert fast.code == 0 and fast.out.startswith(f"ok: all {len(files_of(tree))} generated files are current")


def test_a_no_change_build_is_answered_by_the_stamp_and_writes_nothing(tree, cli, monkeypatch):
    before = files_of(tree)
    entries = {p: (tree / p).read_bytes() for p in (cache.STAMP, cache.release_path("v1"))}
    no_parsing(monkeypatch)
    run = cli("build", "--root", tree)
    assert run.code == 0 and run.out == f"build: 0 written, {len(before)} unchanged, 0 removed\n"
    assert files_of(tree) == before
    assert {p: (tree / p).read_bytes() for p in entries} == entries


def test_check_notices_a_changed_generated_file_with_the_message_of_a_full_check(tree, cli, monkeypatch):
    with open(tree / "reports/STATS.md", "ab") as handle:
        handle.write(b"edited by hand\n")
    (tree / "reports/tables/category.csv").unlink()
    full = without_cache(cli, tree, monkeypatch, "--check")
    no_parsing(monkeypatch)
    fast = cli("build", "--root", tree, "--check")
    assert fast.code == 1 and (fast.out, fast.err) == (full.out, full.err)
    assert fast.err.splitlines() == [
        "stale: reports/STATS.md",
        "missing: reports/tables/category.csv",
        "masrl build --check: 2 file(s) out of date; run `masrl build` and commit the result",
    ]


def test_a_build_after_a_generated_file_changed_renders_and_restores_it(tree, cli, monkeypatch):
    before = files_of(tree)
    (tree / "reports/STATS.md").write_text("edited by hand\n")
    run = cli("build", "--root", tree)
    assert run.code == 0 and run.out == f"build: 1 written, {len(before) - 1} unchanged, 0 removed\n"
    assert files_of(tree) == before


def test_a_changed_input_is_noticed_by_check_as_by_a_full_check(tree, cli, monkeypatch):
    retag(tree)
    full = without_cache(cli, tree, monkeypatch, "--check")
    fast = cli("build", "--root", tree, "--check")
    assert fast.code == full.code == 1 and (fast.out, fast.err) == (full.out, full.err)
    assert "stale: reports/tables/topologies.csv" in fast.err.splitlines()


def test_changed_code_or_toolchain_is_noticed(tree, cli, monkeypatch):
    real = build_command.identity_text
    monkeypatch.setattr(build_command, "identity_text", lambda: real() + "\nmatplotlib-9.9.dist-info")
    parsed = []
    real_parse = build_command.parse_tree
    monkeypatch.setattr(build_command, "parse_tree", lambda files: parsed.append(1) or real_parse(files))
    run = cli("build", "--root", tree, "--check")
    assert run.code == 0 and parsed == [1]


def test_a_damaged_stamp_only_means_a_full_build(tree, cli, monkeypatch):
    (tree / cache.STAMP).write_bytes(b'{"sha256": "0", "payload": "{}"')
    parsed = []
    real_parse = build_command.parse_tree
    monkeypatch.setattr(build_command, "parse_tree", lambda files: parsed.append(1) or real_parse(files))
    run = cli("build", "--root", tree, "--check")
    assert run.code == 0 and parsed == [1]
    assert (tree / cache.STAMP).read_bytes() == b'{"sha256": "0", "payload": "{}"', "--check wrote the cache"


def test_a_build_with_the_release_from_the_cache_is_byte_identical_to_a_fresh_build(tree, cli, monkeypatch, reference):
    entry = (tree / cache.release_path("v1")).read_bytes()
    retag(tree)
    monkeypatch.setattr(outputs, "render_tree", _refuse_release(outputs.render_tree))
    assert cli("build", "--root", tree).code == 0
    assert (tree / cache.release_path("v1")).read_bytes() == entry  # used, not rewritten
    assert files_of(tree) == reference


def _refuse_release(real):
    def render_tree(build, results):
        assert results.name == "pool", f"release {results.name} was rendered although its cache entry is current"
        return real(build, results)
    return render_tree


@pytest.mark.parametrize("damage", ["garbage", "digest", "key"])
def test_a_damaged_or_foreign_release_entry_is_ignored_and_replaced(tree, cli, reference, damage):
    path = tree / cache.release_path("v1")
    outer = json.loads(path.read_bytes())
    inner = json.loads(outer["payload"])
    key = inner["key"]
    if damage == "garbage":
        path.write_bytes(path.read_bytes()[:1000])
    elif damage == "digest":  # content changed, digest kept
        inner["body"]["files"]["reports/releases/v1/STATS.md"] = "forged\n"
        path.write_text(json.dumps({"sha256": outer["sha256"], "payload": json.dumps(inner)}))
    else:  # a well-formed entry, recorded for other inputs
        inner["key"] = "0" * 64
        inner["body"]["files"]["reports/releases/v1/STATS.md"] = "forged\n"
        payload = json.dumps(inner)
        path.write_text(json.dumps({"sha256": cache._sha(payload.encode()), "payload": payload}))
    retag(tree)
    assert cli("build", "--root", tree).code == 0
    assert files_of(tree) == reference
    assert b"forged" not in path.read_bytes() and cache.release_files(path.read_bytes(), key) is not None  # replaced


def test_the_stamp_key_covers_every_input_file_and_the_identity():
    files = {"corpus/taxonomy.yaml": b"a", "README.md": b"b"}
    key = cache.inputs_key(files, "code")
    assert cache.inputs_key(dict(reversed(files.items())), "code") == key
    assert cache.inputs_key({**files, "README.md": b"c"}, "code") != key
    assert cache.inputs_key({**files, "exclusions/E001.yaml": b""}, "code") != key
    assert cache.inputs_key(files, "code2") != key
    # the path and the bytes cannot trade places
    assert cache.inputs_key({"ab": b"c"}, "x") != cache.inputs_key({"a": b"bc"}, "x")
    stamp = cache.stamp_bytes(key, {"reports/a.md": b"x"})
    assert cache.stamped_outputs(stamp, key) == {"reports/a.md": cache._sha(b"x")}
    assert cache.stamped_outputs(stamp, cache.inputs_key(files, "code2")) is None
    assert cache.stamped_outputs(stamp[:-3], key) is None
    assert cache.current_outputs({"reports/a.md": cache._sha(b"x"), "reports/b.md": "0"},
                                 {"reports/a.md": b"x", "reports/b.md": b"y"}) == {"reports/a.md": b"x", "reports/b.md": None}
