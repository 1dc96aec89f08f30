"""The survey trees the tests run on, and cheap copies of them.

Two trees are made once per run, from inputs that never change, by a process of their own
(``python tests/trees.py FOLDER``, started by tests/conftest.py when the tests are collected):

- ``published``: tests/data/survey (the bundled survey as release v1 published it, frozen),
  copied and built with ``masrl build``;
- ``grown``: a copy of ``published`` grown by the manual's workflows on fixed days
  (:func:`grow.grow_tree`): a git repository.

A test's copy of a read-only tree (:func:`linked_copy`) is made from a private copy of it
(:class:`LinkedTree`): its records and reports are hard links, its other inputs (taxonomy, claims,
releases, audits, README.md: the files tests edit most) files of its own. masrl replaces every
file it writes (a new file renamed over the old one); a test that writes into a linked file in
place is found at its teardown (:meth:`LinkedTree.check`) and the private copy is repaired.
:func:`own` and :func:`replace` give a test a file of its own to write.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

#: What a copy of a tree holds (the inputs, the reports, and README.md with its paper list).
TREE_PARTS = ("corpus", "exclusions", "reports")
#: The folders whose files a copy links (the records); every other input file is the copy's own.
LINKED_INPUTS = ("corpus/papers/", "exclusions/")
#: The frozen inputs of the test survey.
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
    """A private copy of the read-only tree ``source`` in ``folder``, which the tests' copies of
    ``source`` hard-link their records and reports to, and a stamp of its linked files (inode,
    size, modification time, mode) to find a file written in place through a link."""

    def __init__(self, source: Path, folder: Path):
        self.source, self.folder = source, folder
        shutil.rmtree(folder, ignore_errors=True)
        copy_tree(source, folder)
        self.folders, self.files = [], [name for name in ("README.md", ".gitattributes") if (folder / name).exists()]
        for part in TREE_PARTS:
            for path, subfolders, names in os.walk(folder / part):
                subfolders.sort()
                rel = os.path.relpath(path, folder)
                self.folders.append(rel)
                self.files += [os.path.join(rel, name) for name in sorted(names)]
        self.owned = {rel: (folder / rel).read_bytes() for rel in self.files if not self._linked(rel)}
        self.stamp = self._stamp()

    @staticmethod
    def _linked(rel: str) -> bool:
        return rel.startswith(("reports/", *LINKED_INPUTS))

    def _stamp(self) -> dict[str, tuple[int, ...]]:
        out = {}
        for rel in self.files:
            if rel not in self.owned and os.path.exists(path := os.path.join(self.folder, rel)):
                st = os.stat(path)
                out[rel] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)
        return out

    def link_into(self, dest: Path) -> Path:
        """Make ``dest`` (new): every folder, each linked file a hard link, the others written anew."""
        dest.mkdir(parents=True)
        for rel in self.folders:
            os.mkdir(os.path.join(dest, rel))
        for rel in self.files:
            data = self.owned.get(rel)
            if data is None:
                os.link(os.path.join(self.folder, rel), os.path.join(dest, rel))
            else:
                with open(os.path.join(dest, rel), "xb") as file:
                    file.write(data)
        return dest

    def check(self) -> list[str]:
        """The linked files written since the private copy was made; each is made again from the source."""
        now = self._stamp()
        changed = sorted({rel for rel, stamp in now.items() if self.stamp.get(rel) != stamp} | (self.stamp.keys() - now.keys()))
        for rel in changed:
            path = os.path.join(self.folder, rel)
            if os.path.lexists(path):
                os.unlink(path)
            shutil.copyfile(os.path.join(self.source, rel), path)
        self.stamp = self._stamp()
        return changed


def linked_copy(source: Path, dest: Path, linked: LinkedTree):
    """For a fixture: yield a copy of ``source`` at ``dest`` made from ``linked``, its private copy;
    once the test is done, repair the private copy if the test wrote through a link."""
    yield linked.link_into(dest)
    linked.check()


def own(path: Path) -> Path:
    """Make ``path`` (a file of a test's copy) the copy's own file, so that the test may write into it in place."""
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data)
    return path


def replace(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` as a new file, as masrl writes (never through a link)."""
    path.unlink(missing_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def made_once(config, name: str, make) -> Path:
    """The tree ``make(dest)`` makes, made once per run however many pytest-xdist workers ask for it:
    the first one makes it in the folder the run's workers share, the others wait (a lock file).
    ``name`` names what ``make`` makes, from what. Read-only."""
    import fcntl

    base = Path(config._tmp_path_factory.getbasetemp())  # noqa: SLF001 - pytest's own session factory
    base = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "made-once"
    base.mkdir(exist_ok=True)
    dest, done = base / name / "survey", base / f"{name}.done"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(base / name, ignore_errors=True)
            make(dest)
            done.write_text("")
    return dest


def wait_for(folder: Path, name: str, maker) -> Path:
    """The tree ``name`` (``published`` or ``grown``) made in ``folder`` by the maker process
    ``maker`` (a ``subprocess.Popen``, or None in a process that did not start it): waits until it is
    ready, and fails with the maker's log if making it failed."""
    done, failed = folder / f"{name}.done", folder / "trees.failed"
    while not done.exists() and not failed.exists():
        if maker is not None and maker.poll() is not None and not done.exists():
            break
        time.sleep(0.05)
    if not done.exists():
        import pytest

        log = (folder / "trees.log").read_text(errors="replace")[-6000:]
        pytest.fail(f"making the test trees failed; the log ({folder / 'trees.log'}):\n{log}", pytrace=False)
    return folder / name


def main(folder: Path) -> None:
    """Make the ``published`` tree, then the ``grown`` one, in ``folder``; mark each ready."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import grow

    try:
        published = copy_tree(SOURCE, folder / "published")
        grow._ok(grow.run_captured("build", "--root", published), "masrl build of the test survey")
        (folder / "published.done").write_text("")
        grown = copy_tree(published, folder / "grown")
        facts = grow.grow_tree(grow.run_captured, grown)
        (folder / "grown.done").write_text(json.dumps(facts))
    except BaseException:
        import traceback

        traceback.print_exc()
        (folder / "trees.failed").write_text("")
        raise SystemExit(1) from None


if __name__ == "__main__":  # pragma: no cover - run by tests/conftest.py
    main(Path(sys.argv[1]))
