"""Copies of survey trees for the tests (a plain module: test files import it by name, which
they cannot do reliably with a conftest, since every folder of tests/ may have one).

A test's copy of a read-only tree (``survey``, ``grown_survey``, ...: :func:`linked_copy`) is made
from a private copy of that tree (:class:`LinkedTree`: its inputs ``corpus/`` and ``exclusions/``,
its ``reports/`` and README.md), made once per tree and session: its records and reports are hard
links to the private copy's, one call per file, and its other files (the taxonomy, claims,
releases, audits, rounds, README.md: the files tests edit most) are written anew from bytes read
once. About 500 tests take a copy, and creating a file and writing its data is ten times the work
of linking it. masrl replaces every file it writes (a new file renamed over the old one), which
leaves the private copy as it was. A test that writes into a linked file in place (``open(path,
"w")``, ``write_text``, ``chmod``) writes through the link into the private copy: that is found at
its teardown (:meth:`LinkedTree.check`), and those files of the private copy are made again from the
source for the tests after it; :func:`own` and :func:`replace` write a file of the test's own instead
(``set_field`` does).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

#: What a copy of a tree holds (the inputs, the reports, and README.md with its paper list).
TREE_PARTS = ("corpus", "exclusions", "reports")


def copy_tree(source: Path, dest: Path, linked: LinkedTree | None = None) -> Path:
    """Copy a survey tree's inputs, reports and README.md (no git repository) to ``dest``; with
    ``linked`` (the private copy of the read-only tree ``source``), made from it: its records and
    reports hard links to its files, the other inputs written anew (:meth:`LinkedTree.link_into`)."""
    if linked is not None:
        linked.link_into(dest)
        return dest
    dest.mkdir(parents=True)
    for name in TREE_PARTS:
        if (source / name).exists():
            shutil.copytree(source / name, dest / name, copy_function=shutil.copyfile)
    shutil.copyfile(source / "README.md", dest / "README.md")
    return dest


#: The folders whose files a test's copy links (the records): every other file of a copy's inputs
#: is its own.
LINKED_INPUTS = ("corpus/papers/", "exclusions/")


class Listing:
    """The folders and files of a tree (those under ``parts``, and the files named in ``files``), as
    paths relative to its root, listed once: a copy made from it makes each folder and file with one
    call, instead of the stat and copy calls of :func:`shutil.copytree`. The files for which
    ``linked(rel)`` is false are read too, and written anew into each copy."""

    def __init__(self, root: Path, parts: tuple[str, ...], files: tuple[str, ...] = (),
                 linked: Callable[[str], bool] = lambda rel: True):
        self.folders: list[str] = []
        self.files: list[str] = []
        for part in parts:
            if not (root / part).is_dir():
                continue
            for folder, subfolders, names in os.walk(root / part):
                subfolders.sort()
                rel = os.path.relpath(folder, root)
                self.folders.append(rel)
                self.files += [os.path.join(rel, name) for name in sorted(names)]
        self.files += [name for name in files if (root / name).is_file()]
        self.owned = {rel: (root / rel).read_bytes() for rel in self.files if not linked(rel)}

    def make_into(self, source: Path, dest: Path) -> None:
        """Make ``dest`` (new) with every folder, each file a hard link to its file under ``source``
        or, for the files read, a new file with their bytes."""
        dest.mkdir(parents=True)
        for rel in self.folders:
            os.mkdir(os.path.join(dest, rel))
        for rel in self.files:
            data = self.owned.get(rel)
            if data is None:
                os.link(os.path.join(source, rel), os.path.join(dest, rel))
            else:
                with open(os.path.join(dest, rel), "xb") as file:
                    file.write(data)


def linked_copy(source: Path, dest: Path, linked: LinkedTree):
    """For a fixture: yield a copy of the read-only tree ``source`` at ``dest`` made from ``linked``
    (its private copy); once the test is done, make the private copy again if the test wrote into
    one of its files through a link."""
    yield copy_tree(source, dest, linked)
    linked.check()


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


def replace(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` as a new file, as masrl writes: a file of a test's copy
    linked to other copies is replaced, not written through. Returns ``path``."""
    path.unlink(missing_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


class LinkedTree:
    """A private copy of the read-only tree ``source`` (its inputs, reports and README.md) in
    ``folder``, which the tests' copies of ``source`` hard-link their files to (:func:`copy_tree`),
    and a stamp of its linked files (inode, size, modification time, mode, owner) to find a file
    written in place through a link."""

    def __init__(self, source: Path, folder: Path):
        self.source, self.folder = source, folder
        self.refresh()

    def refresh(self) -> None:
        """(Re)make the private copy from the source, and its stamp."""
        shutil.rmtree(self.folder, ignore_errors=True)
        copy_tree(self.source, self.folder)
        self.listing = Listing(self.folder, TREE_PARTS, ("README.md",),
                               lambda rel: rel.startswith(("reports/", *LINKED_INPUTS)))
        self.stamp = self._stamp()

    def _stamp(self) -> dict[str, tuple[int, ...]]:
        out = {}
        for rel in self.listing.files:
            if rel in self.listing.owned:
                continue
            try:
                st = os.stat(os.path.join(self.folder, rel))
            except FileNotFoundError:
                continue
            out[rel] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode, st.st_uid)
        return out

    def link_into(self, dest: Path) -> None:
        """A copy of the private copy at ``dest`` (made; its folders are new): hard links and the
        files written anew (:data:`LINKED_INPUTS`)."""
        self.listing.make_into(self.folder, dest)

    def check(self) -> list[str]:
        """The linked files of the private copy written since it was made (relative to it), in
        order; each is made again from the source, so that the next test gets the source's."""
        now = self._stamp()
        changed = sorted(rel for rel, stamp in now.items() if self.stamp.get(rel) != stamp)
        changed += sorted(rel for rel in self.stamp if rel not in now)
        for rel in changed:  # the private file is made again from the source (unlinked from the test's)
            path = os.path.join(self.folder, rel)
            if os.path.lexists(path):
                os.unlink(path)
            shutil.copyfile(os.path.join(self.source, rel), path)
        self.stamp.update((rel, stamp) for rel, stamp in self._stamp().items() if rel in changed)
        return changed
