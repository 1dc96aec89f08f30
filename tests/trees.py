"""Copies of survey trees for the tests (a plain module: test files import it by name, which
they cannot do reliably with a conftest, since every folder of tests/ may have one).

A copy's inputs (``corpus/``, ``exclusions/``, ``README.md``) are always its own files. Its
``reports/`` may be hard links to a private copy of the source's reports (:class:`LinkedReports`),
made once per source and session: a test's copy then takes a few milliseconds instead of a few
hundredths of a second. masrl replaces every file it writes (a new file renamed over the old one),
which leaves the private copy as it was; a test that writes into a report in place (``open(path,
"w")``, ``write_text``) writes through the link into the private copy, and is failed at its
teardown with the files it changed named (:meth:`LinkedReports.check`), the private copy made
again for the tests after it. Such a test calls :func:`own` on the file first.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

#: What a copy of a tree holds (the inputs, the reports, and README.md with its paper list).
TREE_PARTS = ("corpus", "exclusions", "reports")


def copy_tree(source: Path, dest: Path, reports: LinkedReports | None = None) -> Path:
    """Copy a survey tree's inputs, reports and README.md (no git repository) to ``dest``; with
    ``reports``, the inputs are written from what it read of ``source`` once (``source`` is a
    read-only tree), and the reports are hard links to its private copy of ``source``'s reports."""
    if reports is not None:
        reports.inputs.write_into(dest)
        reports.link_into(dest / "reports")
        return dest
    dest.mkdir(parents=True)
    for name in TREE_PARTS:
        if (source / name).exists():
            shutil.copytree(source / name, dest / name, copy_function=shutil.copyfile)
    shutil.copyfile(source / "README.md", dest / "README.md")
    return dest


class Listing:
    """The folders and files under ``root`` (those of ``parts`` and the files named in ``files``), as
    paths relative to it, read once: a copy made from it makes each folder and file with one call,
    instead of the stat, open and copy calls of :func:`shutil.copytree` (a test's copy of a tree took a
    few hundredths of a second that way, most of its set-up). With ``contents``, the files' bytes
    are read too (for copies that own their files)."""

    def __init__(self, root: Path, parts: tuple[str, ...], files: tuple[str, ...] = (), contents: bool = False):
        self.folders: list[str] = []
        self.files: list[tuple[str, bytes | None]] = []
        for part in parts:
            if not (root / part).is_dir():
                continue
            for folder, subfolders, names in os.walk(root / part):
                subfolders.sort()
                rel = os.path.relpath(folder, root)
                self.folders.append(rel)
                for name in sorted(names):
                    self._add(root, os.path.join(rel, name), contents)
        for name in files:
            self._add(root, name, contents)

    def _add(self, root: Path, rel: str, contents: bool) -> None:
        rel = os.path.normpath(rel)
        self.files.append((rel, (root / rel).read_bytes() if contents else None))

    def write_into(self, dest: Path) -> None:
        """Make ``dest`` (new) with every folder and file, each file written from the bytes read."""
        dest.mkdir(parents=True)
        for rel in self.folders:
            os.mkdir(os.path.join(dest, rel))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        for rel, data in self.files:
            fd = os.open(os.path.join(dest, rel), flags, 0o666)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)

    def link_into(self, source: Path, dest: Path) -> None:
        """Make ``dest`` (new) with every folder, each file a hard link to its file under ``source``."""
        dest.mkdir(parents=True)
        for rel in self.folders:
            if rel != ".":
                os.mkdir(os.path.join(dest, rel))
        for rel, _ in self.files:
            os.link(os.path.join(source, rel), os.path.join(dest, rel))


def linked_copy(source: Path, dest: Path, reports: LinkedReports):
    """For a fixture: yield a copy of the read-only tree ``source`` at ``dest`` whose reports are
    hard links to ``reports``; once the test is done, fail it if it wrote into one of them in place."""
    import pytest

    yield copy_tree(source, dest, reports)
    changed = reports.check()
    if changed:
        pytest.fail(f"the test wrote in place into report(s) shared with other tests' copies through hard links: "
                    f"{', '.join(changed)}; call trees.own(path) on such a file before writing into it", pytrace=False)


def made_once(config, name: str, make: Callable[[Path], object]) -> Path:
    """The tree that ``make(dest)`` makes at ``dest``, made once per pytest run however many
    pytest-xdist workers ask for it: the first one makes it in the folder the run's workers share
    (``<basetemp>/made-once/<name>/survey``), the others wait for it (a lock file) and take it as
    it is, its figures memoised from their files (:func:`memo.seed_figures`). ``name`` names what
    ``make`` makes, from what. Read-only, as a session fixture's tree is."""
    import fcntl

    import memo

    base = Path(config._tmp_path_factory.getbasetemp())  # noqa: SLF001 - pytest's own session factory
    base = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "made-once"
    base.mkdir(exist_ok=True)
    dest, done = base / name / "survey", base / f"{name}.done"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(base / name, ignore_errors=True)
            make(dest)
            done.write_text(str(os.getpid()))
            return dest
    memo.seed_figures(dest)
    return dest


def own(path: Path) -> Path:
    """Make ``path`` (a file of a test's copy) the copy's own file, no longer a hard link shared
    with other copies, so that the test may write into it in place. Returns ``path``."""
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data)
    return path


class LinkedReports:
    """A private copy of ``source/reports`` in ``folder``, which copies of ``source`` hard-link
    their reports to (:func:`copy_tree`), and a stamp of its files (inode, size, modification
    time) to find a file written in place through a link."""

    def __init__(self, source: Path, folder: Path):
        self.source, self.folder = source, folder
        #: the source's inputs, read once (a copy's inputs are its own files, written from these)
        self.inputs = Listing(source, tuple(p for p in TREE_PARTS if p != "reports"), ("README.md",), contents=True)
        self.refresh()

    def refresh(self) -> None:
        """(Re)make the private copy from the source, and its stamp."""
        shutil.rmtree(self.folder, ignore_errors=True)
        if (self.source / "reports").exists():
            shutil.copytree(self.source / "reports", self.folder, copy_function=shutil.copyfile)
        else:
            self.folder.mkdir(parents=True)
        self.listing = Listing(self.folder, (".",))
        self.stamp = self._stamp()

    def _stamp(self) -> dict[str, tuple[int, int, int]]:
        out = {}
        for rel, _ in self.listing.files:
            path = os.path.join(self.folder, rel)
            try:
                st = os.stat(path)
            except FileNotFoundError:
                continue
            out[path] = (st.st_ino, st.st_size, st.st_mtime_ns)
        return out

    def link_into(self, dest: Path) -> None:
        """Hard-link every file of the private copy into ``dest`` (made; its folders are new)."""
        self.listing.link_into(self.folder, dest)

    def check(self) -> list[str]:
        """The files of the private copy written since it was made (relative to it), in order;
        when there are any, the copy is made again, so that the next test gets the source's."""
        changed = sorted("reports/" + os.path.relpath(path, self.folder) for path, stamp in self._stamp().items()
                         if self.stamp.get(path) != stamp)
        changed += sorted("reports/" + os.path.relpath(path, self.folder) for path in self.stamp if not os.path.exists(path))
        if changed:
            self.refresh()
        return changed
