"""Staged writing: files staged next to their targets, renamed all together, undone on failure
(used by :mod:`masrl.build.write`, the only module that writes; see its guarantees).

Every step is recorded before it is taken, so that an exception between any two instructions
(an interrupt, a full disk) leaves a record the rollback undoes from; the whole write runs with
SIGINT and SIGTERM held (:func:`masrl.build.interrupts.interrupts_held`).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from ..core.errors import Problem, UserError
from ..core.text import secrets_in
from .interrupts import interrupts_held

#: Prefix of masrl's temporary files (listed in ``.gitignore``).
TMP_PREFIX = ".masrl-tmp."


def fail(action: str, rel: str, err: OSError) -> UserError:
    """The error of a file-system failure: ``cannot write reports/x.md: No space left on device``."""
    return UserError(f"cannot {action} {rel}: {err.strerror or err}")


class _Transaction:
    """Stage files next to their targets, then rename them all; undo everything on failure.

    Every step is recorded *before* it is taken, so that an exception between any two
    instructions (an interrupt raised inside :meth:`commit`, a full disk) leaves a record
    :meth:`rollback` can undo from: undoing a step that was not taken is harmless (an old file
    written over itself, a missing file not removed).
    """

    def __init__(self, root: Path):
        self.root = root
        self.staged: list[tuple[str, str]] = []  # (temporary path, relative target)
        self.created_dirs: list[Path] = []
        self.done: list[tuple[str, bytes | None, int | None]] = []  # (rel, old bytes or None if new, old mode)

    def _mkdirs(self, folder: Path) -> None:
        missing = []
        while not folder.exists():
            missing.append(folder)
            folder = folder.parent
        for path in reversed(missing):
            self.created_dirs.append(path)
            path.mkdir()

    def stage(self, rel: str, data: bytes) -> None:
        path = self.root / rel
        try:
            mode = stat.S_IMODE(path.stat().st_mode) if path.is_file() else 0o644
            if path.is_file() and not os.access(path, os.W_OK):
                raise PermissionError(13, "the file is read-only")
            self._mkdirs(path.parent)
            fd, tmp = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{path.name}.", dir=path.parent)
        except OSError as err:
            raise fail("write", rel, err) from err
        self.staged.append((tmp, rel))
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(tmp, mode)
        except OSError as err:
            raise fail("write", rel, err) from err

    def check_removable(self, rel: str) -> None:
        parent = (self.root / rel).parent
        if not os.access(parent, os.W_OK | os.X_OK):
            raise UserError(f"cannot remove {rel}: its folder is not writable")

    def _old(self, rel: str) -> tuple[bytes | None, int | None]:
        path = self.root / rel
        if not path.is_file():
            return None, None
        return path.read_bytes(), stat.S_IMODE(path.stat().st_mode)

    def commit(self, removals: list[str], overwrite: bool = True) -> None:
        for tmp, rel in list(self.staged):
            old, mode = self._old(rel)
            if old is not None and not overwrite:
                raise UserError(f"refusing to overwrite existing file {rel}")
            self.done.append((rel, old, mode))
            try:
                os.replace(tmp, self.root / rel)
            except OSError as err:
                self.done.pop()  # not replaced: nothing to undo
                raise fail("write", rel, err) from err
            self.staged.remove((tmp, rel))
        for rel in removals:
            old, mode = self._old(rel)
            self.done.append((rel, old, mode))
            try:
                (self.root / rel).unlink()
            except OSError as err:
                self.done.pop()
                raise fail("remove", rel, err) from err

    def rollback(self) -> list[str]:
        """Undo: remove staged files, restore replaced and removed files, remove new folders.
        Returns the paths that could not be restored."""
        failed = []
        for tmp, _ in self.staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        self.staged.clear()
        for rel, old, mode in reversed(self.done):
            path = self.root / rel
            try:
                if old is None:
                    path.unlink(missing_ok=True)
                else:
                    fd, tmp = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{path.name}.", dir=path.parent)
                    with os.fdopen(fd, "wb") as handle:
                        handle.write(old)
                    os.chmod(tmp, mode if mode is not None else 0o644)
                    os.replace(tmp, path)
            except OSError:
                failed.append(rel)
        self.done.clear()
        for folder in reversed(self.created_dirs):
            try:
                folder.rmdir()
            except OSError:
                pass
        self.created_dirs.clear()
        return failed


def _refuse_secrets(writes: dict[str, bytes]) -> None:
    """Refuse the whole write when a text file of it holds a key masrl sends (a source that repeated the
    key it was sent, in a record masrl would write to a file that is committed)."""
    problems = [Problem(rel, line, None, f"holds the value of {name}, a key masrl sends (a source repeated it in its "
                                         "answer, or it was written into a record); masrl writes no secret into a file")
                for rel, line, name in secrets_in(writes)]
    if problems:
        raise UserError("a file masrl would write holds a secret; nothing was written", problems)


def apply(root: Path, writes: dict[str, bytes], removals: list[str], overwrite: bool = True) -> None:
    """Write ``writes`` and remove ``removals`` all together, or change nothing.

    The whole write runs with interrupts held (:func:`masrl.build.interrupts.interrupts_held`): an interrupt received
    meanwhile takes effect once every file is in place, so an interrupted write leaves the tree
    as the write makes it, and a failed one (or an exception raised at any step) as it was;
    never in between. Staging and renaming take a fraction of a second; rendering, before
    this, is not held.
    """
    _refuse_secrets(writes)
    tx = _Transaction(root)
    with interrupts_held():
        try:
            for rel in sorted(writes):
                tx.stage(rel, writes[rel])
            for rel in removals:
                tx.check_removable(rel)
            tx.commit(removals, overwrite)
        except BaseException as err:
            failed = tx.rollback()
            if isinstance(err, UserError):
                if failed:
                    raise UserError(f"{err}; could not restore {', '.join(failed)} (check them by hand)", err.problems) from err
                raise UserError(f"{err}; nothing was written", err.problems) from err
            raise
