"""The survey trees of the tests, and cheap copies of them.

``python tests/trees.py FOLDER`` (started by tests/conftest.py) makes two trees from inputs that
never change: ``published``, tests/data/survey copied and built, then ``grown``, a copy of it grown
by the manual's workflows on fixed days (:func:`grow.grow_tree`).

A test's copy of a read-only tree is made from a private copy of it (:class:`LinkedTree`): records
and reports are hard links, the other inputs (taxonomy, claims, releases, audits, README.md: what
tests edit most) files of its own. masrl replaces every file it writes, so links are never written
through; a test that writes into a linked file in place is found when it ends (:meth:`LinkedTree.check`)
and the private copy repaired. :func:`own` and :func:`replace` give a test a file of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

TREE_PARTS = ("corpus", "exclusions", "reports")
SOURCE = Path(__file__).resolve().parent / "data/survey"


def copy_tree(source: Path, dest: Path) -> Path:
    """Copy a survey tree's inputs, reports, README.md and .gitattributes (no git repository) to ``dest``."""
    dest.mkdir(parents=True)
    for name in TREE_PARTS:
        if (source / name).exists():
            shutil.copytree(source / name, dest / name, copy_function=shutil.copyfile)
    for name in ("README.md", ".gitattributes"):
        if (source / name).exists():
            shutil.copyfile(source / name, dest / name)
    return dest


class LinkedTree:
    """A private copy of ``source`` in ``folder``, to which copies hard-link their records and
    reports, and a stamp of each linked file (inode, size, modification time, mode)."""

    def __init__(self, source: Path, folder: Path):
        self.source, self.folder = source, copy_tree(source, folder)
        self.folders, self.files = [], [n for n in ("README.md", ".gitattributes") if (folder / n).exists()]
        for part in TREE_PARTS:
            for path, subfolders, names in os.walk(folder / part):
                subfolders.sort()
                self.folders.append(rel := os.path.relpath(path, folder))
                self.files += [os.path.join(rel, name) for name in sorted(names)]
        linked = ("reports/", "corpus/papers/", "exclusions/")
        self.owned = {rel: (folder / rel).read_bytes() for rel in self.files if not rel.startswith(linked)}
        self.stamp = self._stamp()

    def _stamp(self) -> dict[str, tuple[int, ...]]:
        stats = {rel: os.stat(p) for rel in self.files if rel not in self.owned and os.path.exists(p := self.folder / rel)}
        return {rel: (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode) for rel, st in stats.items()}

    def link_into(self, dest: Path) -> Path:
        """Make ``dest`` (new): every folder, each linked file a hard link, the others written anew."""
        dest.mkdir(parents=True)
        for rel in self.folders:
            os.mkdir(dest / rel)
        for rel in self.files:
            if rel in self.owned:
                (dest / rel).write_bytes(self.owned[rel])
            else:
                os.link(self.folder / rel, dest / rel)
        return dest

    def check(self) -> list[str]:
        """The linked files written since the private copy was made, each made again from the source."""
        now = self._stamp()
        changed = sorted({rel for rel, stamp in now.items() if self.stamp.get(rel) != stamp} | (self.stamp.keys() - now.keys()))
        for rel in changed:
            (self.folder / rel).unlink(missing_ok=True)
            shutil.copyfile(self.source / rel, self.folder / rel)
        self.stamp = self._stamp()
        return changed


def linked_copy(source: Path, dest: Path, linked: LinkedTree):
    """For a fixture: a copy of ``source`` made from ``linked``, checked when the test is done."""
    yield linked.link_into(dest)
    linked.check()


def own(path: Path) -> Path:
    """Make ``path`` of a test's copy a file of its own, to write into in place."""
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data)
    return path


def replace(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` as a new file, as masrl writes (never through a link)."""
    path.unlink(missing_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def made_once(config, name: str, make) -> Path:
    """The tree ``make(dest)`` makes, made once per run by the first pytest-xdist worker that asks
    (the others wait on a lock). Read-only."""
    import fcntl

    base = Path(config._tmp_path_factory.getbasetemp())  # noqa: SLF001 - pytest's own session factory
    base = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "made-once"
    base.mkdir(exist_ok=True)
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / f"{name}.done").exists():
            shutil.rmtree(base / name, ignore_errors=True)
            make(base / name / "survey")
            (base / f"{name}.done").write_text("")
    return base / name / "survey"


def wait_for(folder: Path, name: str, maker) -> Path:
    """The tree ``name`` made in ``folder`` by the maker process (``maker``: its ``Popen`` in the
    process that started it), once ready; fails with the maker's log if it failed."""
    done, failed = folder / f"{name}.done", folder / "trees.failed"
    while not done.exists() and not failed.exists() and (maker is None or maker.poll() is None):
        time.sleep(0.05)
    if not done.exists():
        import pytest

        pytest.fail(f"making the test trees failed; the log ({folder / 'trees.log'}):\n"
                    f"{(folder / 'trees.log').read_text(errors='replace')[-6000:]}", pytrace=False)
    return folder / name


def main(folder: Path) -> None:
    """Make the ``published`` tree, then the ``grown`` one, in ``folder``; mark each ready."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import grow

    try:
        published = copy_tree(SOURCE, folder / "published")
        grow._ok(grow.run_captured("build", "--root", published), "masrl build of the test survey")
        (folder / "published.done").write_text("")
        facts = grow.grow_tree(grow.run_captured, copy_tree(published, folder / "grown"))
        (folder / "grown.done").write_text(json.dumps(facts))
    except BaseException:
        import traceback

        traceback.print_exc()
        (folder / "trees.failed").write_text("")
        raise SystemExit(1) from None


if __name__ == "__main__":  # pragma: no cover - run by tests/conftest.py
    main(Path(sys.argv[1]))
