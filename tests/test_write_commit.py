"""The writer's commit (masrl.build.transaction): all or nothing when a rename, a removal or a
folder fails, and when an exception or a real SIGINT comes at any step of a commit, through
``write.sync`` and through ``masrl build``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from masrl.build import transaction, write
from masrl.core.errors import UserError
from write_trees import NEW, snapshot, tree  # noqa: F401 (tree: the fixture)
from trees import published_only  # noqa: F401 - the published tree only


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler for the test (a suite started as a background job of a shell
    inherits SIGINT ignored, and a real SIGINT would then do nothing), the one before put back after."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


# ---------------------------------------------------------------- all or nothing
def test_a_failing_rename_leaves_the_tree_as_it_was(tree, monkeypatch):
    root, _ = tree
    (root / "reports/.generated").write_text("reports/old.md\n")
    (root / "reports/old.md").write_text("orphan\n")
    before = snapshot(root)
    real_replace = os.replace
    calls = []

    def replace(src, dst):
        calls.append(Path(dst).name)
        if Path(dst).name == "b.csv" and not str(src).endswith(".restore"):
            if len(calls) <= 3:
                raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(UserError) as info:
        write.sync(root, dict(NEW), ("reports",))
    assert str(info.value) == "cannot write reports/tables/b.csv: No space left on device; nothing was written"
    assert calls[:3] == ["README.md", "a.md", "b.csv"]  # two files were already replaced, then restored
    assert snapshot(root) == before


def test_a_failing_removal_restores_the_written_files(tree, monkeypatch):
    root, _ = tree
    (root / "reports/.generated").write_text("reports/old.md\n")
    (root / "reports/old.md").write_text("orphan\n")
    before = snapshot(root)
    real_unlink = Path.unlink

    def unlink(self, missing_ok=False):
        if self.name == "old.md":
            raise PermissionError(13, "Permission denied")
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    with pytest.raises(UserError, match=r"^cannot remove reports/old.md: Permission denied; nothing was written$"):
        write.sync(root, dict(NEW), ("reports",))
    assert snapshot(root) == before


def test_a_folder_that_cannot_be_written_stops_before_any_rename(tree, monkeypatch):
    """The staging pass fails on reports/tables (read-only): README.md is untouched."""
    root, _ = tree
    before = snapshot(root)
    real_mkstemp = transaction.tempfile.mkstemp

    def mkstemp(prefix="", dir=None, **kw):
        if Path(dir).name == "tables":
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(prefix=prefix, dir=dir, **kw)

    monkeypatch.setattr(transaction.tempfile, "mkstemp", mkstemp)
    with pytest.raises(UserError, match=r"^cannot write reports/tables/b.csv: Permission denied; nothing was written$"):
        write.sync(root, dict(NEW), ("reports",))
    assert snapshot(root) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_read_only_reports_folder_leaves_readme_alone(tree):
    root, _ = tree
    before = snapshot(root)
    os.chmod(root / "reports", 0o555)
    try:
        with pytest.raises(UserError):
            write.sync(root, dict(NEW), ("reports",))
    finally:
        os.chmod(root / "reports", 0o755)
    assert snapshot(root) == before


def test_interrupt_during_the_renames_restores_everything(tree, monkeypatch):
    root, _ = tree
    before = snapshot(root)
    real_replace = os.replace
    seen = []

    def replace(src, dst):
        seen.append(dst)
        if len(seen) == 2:
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        write.sync(root, dict(NEW), ("reports",))
    assert snapshot(root) == before


def test_new_folders_are_removed_again_on_failure(tree, monkeypatch):
    root, _ = tree
    before = snapshot(root)
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError(5, "Input/output error")))
    with pytest.raises(UserError):
        write.sync(root, {**NEW, "reports/new/deep/x.md": b"x\n"}, ("reports",))
    assert snapshot(root) == before


def test_permissions_of_replaced_files_are_kept(tree):
    root, _ = tree
    os.chmod(root / "reports/a.md", 0o640)
    write.sync(root, dict(NEW), ("reports",))
    assert (root / "reports/a.md").stat().st_mode & 0o777 == 0o640
    assert (root / "reports/tables/c.csv").stat().st_mode & 0o777 == 0o644


# ---------------------------------------------------------------- interrupts at every step of a commit
def _steps(root: Path, monkeypatch, on_step) -> list[str]:
    """Count every step of a commit (each rename and each removal, before and after it is taken)
    and call ``on_step(n, when)`` at each; returns the step names seen."""
    real_replace, real_unlink = os.replace, Path.unlink
    seen: list[str] = []

    def step(name: str) -> None:
        seen.append(name)
        on_step(len(seen), name)

    def replace(src, dst):
        step(f"before rename to {Path(dst).name}")
        real_replace(src, dst)
        step(f"after rename to {Path(dst).name}")

    def unlink(self, missing_ok=False):
        step(f"before removing {self.name}")
        real_unlink(self, missing_ok=missing_ok)
        step(f"after removing {self.name}")

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(Path, "unlink", unlink)
    return seen


def _with_orphan(root: Path) -> dict[str, bytes]:
    """NEW plus a generated file of the last build that this one no longer makes (removed on commit)."""
    (root / "reports/old.md").write_bytes(b"orphan\n")
    (root / write.GENERATED).write_bytes(b"reports/a.md\nreports/old.md\n")
    return {**NEW, write.GENERATED: b"README.md\nreports/a.md\nreports/tables/b.csv\nreports/tables/c.csv\n"}


def _count_steps(tmp_path, monkeypatch) -> int:
    root = tmp_path / "count"
    shutil.copytree(tmp_path / "root", root)
    outputs = _with_orphan(root)
    with monkeypatch.context() as m:
        seen = _steps(root, m, lambda n, name: None)
        write.sync(root, outputs, ("reports",))
    assert seen[-2:] == ["before removing old.md", "after removing old.md"]
    return len(seen)


def test_an_exception_at_any_step_of_a_commit_leaves_the_tree_as_it_was(tree, tmp_path, monkeypatch):
    """An exception raised between any two steps of the renames (before or after each one) is undone whole."""
    root, _ = tree
    steps = _count_steps(tmp_path, monkeypatch)
    assert steps == 12  # 5 renames and 1 removal, each seen before and after
    outputs = _with_orphan(root)
    before = snapshot(root)
    for k in range(1, steps + 1):
        def interrupt(n, name, k=k):
            if n == k:
                raise KeyboardInterrupt(name)

        with monkeypatch.context() as m:
            _steps(root, m, interrupt)
            with pytest.raises(KeyboardInterrupt):
                write.sync(root, outputs, ("reports",))
        assert snapshot(root) == before, f"interrupted at step {k}"


def test_a_signal_at_any_step_of_a_commit_waits_for_the_whole_write(tree, tmp_path, monkeypatch, python_sigint):
    """A real SIGINT received at any step (staging included) takes effect once every file is in place."""
    import signal

    root, _ = tree
    steps = _count_steps(tmp_path, monkeypatch)
    outputs = _with_orphan(root)
    start = snapshot(root)
    done = tmp_path / "done"
    shutil.copytree(root, done)
    write.sync(done, outputs, ("reports",))
    after = snapshot(done)
    real_mkstemp = transaction.tempfile.mkstemp
    for k in range(1, steps + 5):  # the 4 files staged, then every step of the commit
        for rel, data in start.items():  # back to the start
            if not rel.endswith("/"):
                (root / rel).write_bytes(data)
        (root / "reports/tables/c.csv").unlink(missing_ok=True)
        calls = []

        def mkstemp(*args, k=k, **kw):
            calls.append(1)
            if len(calls) == k:
                os.kill(os.getpid(), signal.SIGINT)
            return real_mkstemp(*args, **kw)

        def interrupt(n, name, k=k):
            if n + 4 == k:
                os.kill(os.getpid(), signal.SIGINT)

        with monkeypatch.context() as m:
            m.setattr(transaction.tempfile, "mkstemp", mkstemp)
            _steps(root, m, interrupt)
            with pytest.raises(KeyboardInterrupt):
                write.sync(root, outputs, ("reports",))
        assert snapshot(root) == after, f"signal at step {k}"


def test_an_interrupted_build_exits_130_with_every_report_written(survey, cli, monkeypatch, python_sigint):
    """``masrl build`` interrupted at each rename of its commit: exit 130, and the tree is the built one."""
    import signal

    stale = ["reports/STATS.md", "reports/gaps.md", "reports/RELEASES.md", "reports/figures/manifest.json"]
    originals = {rel: (survey / rel).read_bytes() for rel in stale}
    for k in range(1, len(stale) + 1):
        for rel in stale:
            (survey / rel).write_bytes(originals[rel] + b"\nstale\n")
        renames = []
        real_replace = os.replace

        def replace(src, dst, k=k):
            real_replace(src, dst)
            renames.append(dst)
            if len(renames) == k:
                os.kill(os.getpid(), signal.SIGINT)

        with monkeypatch.context() as m:
            m.setattr(os, "replace", replace)
            run = cli("build", "--root", survey)
        assert run.code == 130 and len(renames) == len(stale), (k, run)
        assert {rel: (survey / rel).read_bytes() for rel in stale} == originals, f"interrupted at rename {k}"
    assert cli("build", "--root", survey, "--check").code == 0
