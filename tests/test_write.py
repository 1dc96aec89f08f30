"""The writer: only regular files inside the root, all-or-nothing, no leftovers."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from masrl.build import transaction, write
from masrl.core.errors import UserError
from write_trees import NEW, snapshot, tree  # noqa: F401 (tree: the fixture)


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
    ("reports/a\0b.md", "cannot be written: its name holds a NUL character"),
    ("reports/a.md/x\0", "cannot be written: reports/a.md is a file, not a folder"),  # the first problem on the way
    ("reports/new/\ud800.md", "cannot be written: its name '\\ud800.md' cannot be encoded for the file system"),
])
def test_paths_outside_the_root_are_refused(tree, rel, why):
    root, _ = tree
    assert write.refusal(root, rel) == why


def test_a_root_that_is_a_loop_of_links_is_refused_in_one_line(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    why = write.refusal(tmp_path / "a", "reports/x.md")
    assert why in (f"cannot be written: Symlink loop from '{tmp_path / 'a'}'",  # Python before 3.13
                   "cannot be written: Too many levels of symbolic links")


def test_check_reads_a_target_as_its_refusal_reads_it(tree):
    """``reports/a.md/`` and ``reports/./a.md`` name reports/a.md, for the comparison as for the refusal."""
    root, _ = tree
    current = (root / "reports/a.md").read_bytes()
    report = write.stale(root, {"reports/a.md/": current, "reports/./tables/b.csv": b"other\n"}, ("reports",))
    assert (report.unchanged, report.changed, report.missing) == (["reports/a.md/"], ["reports/./tables/b.csv"], [])


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
    real_mkstemp = transaction.tempfile.mkstemp
    made = []

    def mkstemp(prefix="", dir=None, **kw):
        made.append((prefix, Path(dir)))
        return real_mkstemp(prefix=prefix, dir=dir, **kw)

    monkeypatch.setattr(transaction.tempfile, "mkstemp", mkstemp)
    with pytest.raises(UserError):
        write.sync(root, dict(NEW), ("reports",))
    assert made[-1] == (".masrl-tmp.README.md.", root)  # the restoring copy, beside its file, recognisable
    monkeypatch.setattr(transaction.tempfile, "mkstemp", real_mkstemp)
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


@pytest.mark.parametrize(("key", "refused"), [("k3y/SECRET+abc==", True), ("test", False)])
def test_no_write_puts_a_key_masrl_sends_into_a_file(tree, monkeypatch, key, refused):
    """A text file that holds the key (as sent, URL-encoded or in capitals) refuses the whole write; a value
    shorter than a real key (a word a report may hold) is not looked for; a figure's bytes are not read."""
    root, _outside = tree
    monkeypatch.setenv("MASRL_S2_API_KEY", key)
    files = {"reports/a.md": b"a\nan orchestrator K3Y%2FSECRET%2BABC%3D%3D and a test\n", "reports/b.md": b"fine\n",
             "reports/c.png": b"\x89PNG\xff" + key.encode()}
    if not refused:
        write.replace(root, files)
        assert (root / "reports/a.md").read_bytes() == files["reports/a.md"]
        return
    before = snapshot(root)
    with pytest.raises(UserError) as err:
        write.replace(root, files)
    assert [(p.file, p.line) for p in err.value.problems] == [("reports/a.md", 2)]
    assert str(err.value) == "a file masrl would write holds a secret; nothing was written"
    assert snapshot(root) == before
