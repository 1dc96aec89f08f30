"""The writer: only regular files inside the root, all-or-nothing, no leftovers."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from masrl.build import write
from masrl.core.errors import UserError


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file and link under ``root`` (links as their target text)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = b"-> " + os.readlink(path).encode()
            elif path.is_file():
                out[rel] = path.read_bytes()
            else:
                out[rel + "/"] = b""
    return out


@pytest.fixture
def tree(tmp_path):
    """A small survey root with README.md and two generated reports, plus a folder outside it."""
    root = tmp_path / "root"
    (root / "reports/tables").mkdir(parents=True)
    (root / "README.md").write_bytes(b"old readme\n")
    (root / "reports/a.md").write_bytes(b"old a\n")
    (root / "reports/tables/b.csv").write_bytes(b"old b\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_bytes(b"precious\n")
    return root, outside


NEW = {"README.md": b"new readme\n", "reports/a.md": b"new a\n", "reports/tables/b.csv": b"new b\n",
       "reports/tables/c.csv": b"new c\n"}


def test_sync_writes_and_reports(tree):
    root, _ = tree
    report = write.sync(root, dict(NEW), ("reports",))
    assert report.changed == ["README.md", "reports/a.md", "reports/tables/b.csv"]
    assert report.missing == ["reports/tables/c.csv"]
    assert {k: v for k, v in snapshot(root).items() if not k.endswith("/")} == NEW


def test_update_replaces_only_files_that_still_hold_what_was_read(tree):
    root, outside = tree
    write.update(root, {"reports/a.md": (b"old a\n", b"edited a\n")})
    assert (root / "reports/a.md").read_bytes() == b"edited a\n"
    with pytest.raises(UserError, match=r"^changed on disk since they were read \(nothing was written; run the command "
                                        r"again\): README.md, reports/tables/b.csv$"):
        write.update(root, {"README.md": (b"stale\n", b"x"), "reports/a.md": (b"edited a\n", b"y"),
                            "reports/tables/b.csv": (b"stale\n", b"z")})
    (root / "reports/link.md").symlink_to(outside / "victim.txt")
    with pytest.raises(UserError, match=r"^1 path refused; nothing was written\.$"):
        write.update(root, {"reports/link.md": (b"precious\n", b"overwritten\n"), "reports/a.md": (b"edited a\n", b"y")})
    assert (root / "reports/a.md").read_bytes() == b"edited a\n"
    assert (outside / "victim.txt").read_bytes() == b"precious\n"


@pytest.mark.parametrize("link, points_to", [
    ("reports/a.md", "victim.txt"),          # a generated file replaced by a link
    ("reports/tables", "."),                 # a generated folder replaced by a link
    ("README.md", "victim.txt"),
])
def test_symlinks_are_refused_and_nothing_is_written(tree, link, points_to):
    root, outside = tree
    path = root / link
    if path.is_dir():
        for child in path.iterdir():
            child.unlink()
        path.rmdir()
    else:
        path.unlink()
    path.symlink_to(outside / points_to)
    before, before_outside = snapshot(root), snapshot(outside)
    with pytest.raises(UserError) as info:
        write.sync(root, dict(NEW), ("reports",))
    assert snapshot(root) == before and snapshot(outside) == before_outside
    assert str(info.value).endswith("refused; nothing was written.")
    target = os.readlink(path)
    messages = [str(p) for p in info.value.problems]
    if link == "reports/tables":
        assert messages == [f"reports/tables/b.csv: lies under reports/tables, which is a symbolic link (to {target}); masrl "
                            "writes only regular files inside the survey root: replace the link with a regular file or "
                            "folder (or delete it), then run again",
                            f"reports/tables/c.csv: lies under reports/tables, which is a symbolic link (to {target}); masrl "
                            "writes only regular files inside the survey root: replace the link with a regular file or "
                            "folder (or delete it), then run again"]
    else:
        assert messages == [f"{link}: is a symbolic link (to {target}); masrl writes only regular files inside the survey "
                            "root: replace the link with a regular file or folder (or delete it), then run again"]


def test_check_refuses_symlinks_too(tree):
    root, outside = tree
    (root / "reports/a.md").unlink()
    (root / "reports/a.md").symlink_to(outside / "victim.txt")
    with pytest.raises(UserError):
        write.stale(root, dict(NEW), ("reports",))


@pytest.mark.parametrize("rel, why", [
    ("../outside/victim.txt", "is not a path inside the survey root"),
    ("/etc/passwd", "is not a path inside the survey root"),
    ("reports/./a.md", None),  # PurePosixPath drops the '.', so this is reports/a.md
    ("reports", "is a folder, not a file"),
    ("reports/a.md/x", "cannot be written: reports/a.md is a file, not a folder"),
])
def test_paths_outside_the_root_are_refused(tree, rel, why):
    root, _ = tree
    assert write.refusal(root, rel) == why


def test_a_link_to_outside_under_a_managed_folder_is_left_alone_as_foreign(tree):
    root, outside = tree
    (root / "reports/notes").symlink_to(outside)
    report = write.sync(root, dict(NEW), ("reports",))
    assert report.foreign == ["reports/notes"]
    assert snapshot(outside) == {"victim.txt": b"precious\n"}


def test_an_orphan_that_became_a_symlink_is_refused(tree):
    root, outside = tree
    (root / "reports/.generated").write_text("reports/old.md\n")
    (root / "reports/old.md").symlink_to(outside / "victim.txt")
    with pytest.raises(UserError) as info:
        write.sync(root, dict(NEW), ("reports",))
    assert [p.file for p in info.value.problems] == ["reports/old.md"]
    assert (outside / "victim.txt").read_bytes() == b"precious\n"


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
    real_mkstemp = write.tempfile.mkstemp

    def mkstemp(prefix="", dir=None, **kw):
        if Path(dir).name == "tables":
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(prefix=prefix, dir=dir, **kw)

    monkeypatch.setattr(write.tempfile, "mkstemp", mkstemp)
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


# ---------------------------------------------------------------- leftovers
def test_leftover_temporary_files_are_removed_not_reported(tree):
    root, _ = tree
    leftovers = ["reports/.masrl-tmp.a.md.k2j3h4", "reports/tables/.masrl-tmp.b.csv.zz", ".masrl-tmp.README.md.x1",
                 "reports/.a.md.abcd1234.tmp"]  # the last: the naming of masrl versions before 0.2
    for rel in leftovers:
        (root / rel).write_bytes(b"half a fi")
    (root / "reports/.mine.abcd1234.tmp").write_bytes(b"not ours: no output is called .mine")
    check = write.stale(root, dict(NEW), ("reports",))
    assert check.leftovers == sorted(leftovers)
    assert check.foreign == ["reports/.mine.abcd1234.tmp"]
    report = write.sync(root, dict(NEW), ("reports",))
    assert report.leftovers == sorted(leftovers)
    assert not any((root / rel).exists() for rel in leftovers)
    assert (root / "reports/.mine.abcd1234.tmp").exists()
    assert write.stale(root, dict(NEW), ("reports",)).leftovers == []


def test_a_successful_sync_leaves_no_temporary_file(tree):
    root, _ = tree
    write.sync(root, dict(NEW), ("reports",))
    assert not [rel for rel in snapshot(root) if "masrl-tmp" in rel]


def test_gitignore_covers_temporary_files(repo):
    for rel in ("reports/.masrl-tmp.STATS.md.k2j3h4", ".masrl-tmp.README.md.abc", "reports/tables/.masrl-tmp.x.csv.1"):
        done = subprocess.run(["git", "check-ignore", "--no-index", "-q", rel], cwd=repo)
        assert done.returncode == 0, rel


# ---------------------------------------------------------------- create_new and remove
def test_create_new_is_all_or_nothing(tree, monkeypatch):
    root, _ = tree
    (root / "corpus/papers").mkdir(parents=True)
    before = snapshot(root)
    real_replace = os.replace
    seen = []

    def replace(src, dst):
        seen.append(dst)
        if len(seen) == 2:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(UserError, match="nothing was written"):
        write.create_new(root, {"corpus/papers/a.yaml": b"a\n", "corpus/papers/b.yaml": b"b\n"})
    assert snapshot(root) == before


def test_create_new_refuses_a_linked_folder(tree):
    root, outside = tree
    (root / "corpus").mkdir()
    (root / "corpus/papers").symlink_to(outside)
    with pytest.raises(UserError) as info:
        write.create_new(root, {"corpus/papers/a.yaml": b"a\n"})
    assert [p.file for p in info.value.problems] == ["corpus/papers/a.yaml"]
    assert sorted(os.listdir(outside)) == ["victim.txt"]


def test_create_new_refuses_existing_files(tree):
    root, _ = tree
    with pytest.raises(UserError, match=r"^refusing to overwrite existing file\(s\): reports/a.md$"):
        write.create_new(root, {"reports/a.md": b"x"})
    assert (root / "reports/a.md").read_bytes() == b"old a\n"


def test_remove_refuses_a_file_under_a_linked_folder(tree):
    root, outside = tree
    (root / "linked").symlink_to(outside)
    with pytest.raises(UserError):
        write.remove(root, "linked/victim.txt")
    assert (outside / "victim.txt").exists()


# ---------------------------------------------------------------- through the command
def test_build_with_a_symlink_under_reports_writes_nothing_outside(survey, cli, tmp_path):
    victim = tmp_path / "victim.md"
    victim.write_text("precious\n")
    stats = survey / "reports/STATS.md"
    stats.unlink()
    stats.symlink_to(victim)
    (survey / "corpus/papers/c3.yaml").write_text((survey / "corpus/papers/c3.yaml").read_text()
                                                 .replace("scenario: general", "scenario: math"))
    before = snapshot(survey)
    run = cli("build", "--root", survey)
    assert run.code == 1
    assert victim.read_text() == "precious\n"
    assert snapshot(survey) == before
    assert run.err.splitlines() == [
        f"reports/STATS.md: is a symbolic link (to {victim}); masrl writes only regular files inside the survey root: "
        "replace the link with a regular file or folder (or delete it), then run again",
        "masrl: error: 1 path refused; nothing was written.",
    ]


# ---------------------------------------------------------------- details that mutation testing asked for
def test_read_existing_never_follows_a_link(tree):
    root, outside = tree
    (root / "reports/link.md").symlink_to(outside / "victim.txt")
    assert write.read_existing(root, "reports/link.md") is None
    assert write.read_existing(root, "reports/a.md") == b"old a\n"
    assert write.read_existing(root, "reports/none.md") is None


def test_a_linked_managed_folder_is_not_walked(tree):
    root, outside = tree
    (outside / "reports").mkdir()
    (outside / "reports/theirs.md").write_text("x")
    other = root.parent / "other"
    other.mkdir()
    (other / "README.md").write_text("r")
    (other / "reports").symlink_to(outside / "reports")
    report = write.stale(other, {"README.md": b"r"}, ("reports", "more"))
    assert (report.foreign, report.orphaned, report.unchanged) == ([], [], ["README.md"])


def test_every_managed_folder_is_walked(tree):
    root, _ = tree
    (root / "more").mkdir()
    (root / "more/x.md").write_text("x")
    report = write.stale(root, dict(NEW), ("missing", "more", "reports"))
    assert report.foreign == ["more/x.md"]


def test_legacy_names_in_a_folder_without_outputs_are_foreign(tree):
    root, _ = tree
    (root / "reports/sub").mkdir()
    (root / "reports/sub/.a.md.abcd1234.tmp").write_text("x")
    report = write.stale(root, dict(NEW), ("reports",))
    assert report.foreign == ["reports/sub/.a.md.abcd1234.tmp"] and report.leftovers == []


def test_stale_report_lists(tree):
    root, _ = tree
    (root / "reports/.generated").write_bytes(b"reports/old.md\nreports/\xff\n")  # not UTF-8: still read
    (root / "reports/old.md").write_text("o")
    outputs = {"README.md": b"old readme\n", "reports/a.md": None, "reports/tables/b.csv": b"new b\n", "reports/new.md": b"n"}
    report = write.stale(root, outputs, ("reports",))
    assert report.unchanged == ["README.md"]
    assert report.changed == ["reports/a.md", "reports/tables/b.csv"]  # None: known to be stale
    assert report.missing == ["reports/new.md"]
    assert report.orphaned == ["reports/old.md"] and report.foreign == []
    assert not report.clean
    assert write.stale(root, {"README.md": b"old readme\n", "reports/a.md": b"old a\n", "reports/tables/b.csv": b"old b\n"}).clean


def test_generated_list_bytes():
    assert write.generated_list({"reports/b.md": b"", "README.md": None}) == b"README.md\nreports/.generated\nreports/b.md\n"


def test_a_folder_that_cannot_take_a_removal(tree, monkeypatch):
    root, _ = tree
    (root / "reports/.generated").write_text("reports/old.md\n")
    (root / "reports/old.md").write_text("orphan\n")
    before = snapshot(root)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == root / "reports" and mode == os.W_OK | os.X_OK
                        else real_access(p, mode))
    with pytest.raises(UserError, match=r"^cannot remove reports/old.md: its folder is not writable; nothing was written$"):
        write.sync(root, dict(NEW), ("reports",))
    assert snapshot(root) == before


def test_a_read_only_file_is_refused_before_anything_is_written(tree, monkeypatch):
    root, _ = tree
    before = snapshot(root)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p).name == "b.csv" else real_access(p, mode))
    with pytest.raises(UserError, match=r"^cannot write reports/tables/b.csv: the file is read-only; nothing was written$"):
        write.sync(root, dict(NEW), ("reports",))
    assert snapshot(root) == before


def test_restoring_keeps_the_old_mode_and_reports_what_it_could_not_restore(tree, monkeypatch):
    root, _ = tree
    os.chmod(root / "README.md", 0o600)
    real_replace = os.replace
    calls = []

    def replace(src, dst):
        calls.append(Path(dst).name)
        if Path(dst).name == "a.md":
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    real_mkstemp = write.tempfile.mkstemp
    made = []

    def mkstemp(prefix="", dir=None, **kw):
        made.append((prefix, Path(dir)))
        return real_mkstemp(prefix=prefix, dir=dir, **kw)

    monkeypatch.setattr(write.tempfile, "mkstemp", mkstemp)
    with pytest.raises(UserError):
        write.sync(root, dict(NEW), ("reports",))
    assert made[-1] == (".masrl-tmp.README.md.", root)  # the restoring copy, beside its file, recognisable
    monkeypatch.setattr(write.tempfile, "mkstemp", real_mkstemp)
    assert (root / "README.md").read_bytes() == b"old readme\n"
    assert (root / "README.md").stat().st_mode & 0o777 == 0o600
    assert not [n for n in os.listdir(root) if n.startswith(".masrl-tmp.")]

    def always_fail(src, dst):
        if Path(dst).name == "a.md" or (Path(dst).name == "README.md" and "README.md" in calls):
            raise OSError(5, "Input/output error")  # the write of a.md fails, and so does restoring README.md
        calls.append(Path(dst).name)
        real_replace(src, dst)

    calls.clear()
    monkeypatch.setattr(os, "replace", always_fail)
    with pytest.raises(UserError) as info:
        write.sync(root, dict(NEW), ("reports",))
    assert str(info.value) == ("cannot write reports/a.md: Input/output error; could not restore README.md "
                               "(check them by hand)")


def test_remove_errors_name_the_file(tree):
    root, _ = tree
    with pytest.raises(UserError, match=r"^cannot remove reports/none.md: No such file or directory$"):
        write.remove(root, "reports/none.md")
    write.remove(root, "reports/a.md")
    assert not (root / "reports/a.md").exists()


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


def test_a_signal_at_any_step_of_a_commit_waits_for_the_whole_write(tree, tmp_path, monkeypatch):
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
    real_mkstemp = write.tempfile.mkstemp
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
            m.setattr(write.tempfile, "mkstemp", mkstemp)
            _steps(root, m, interrupt)
            with pytest.raises(KeyboardInterrupt):
                write.sync(root, outputs, ("reports",))
        assert snapshot(root) == after, f"signal at step {k}"


def test_an_interrupted_build_exits_130_with_every_report_written(survey, cli, monkeypatch):
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
