"""Where masrl may write: the refusals of :mod:`masrl.build.write` (only regular files inside the
survey root, reached through no symbolic link), each path of a write looked at once."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePosixPath


def refusal(root: Path, rel: str, final_may_be_missing: bool = True) -> str | None:
    """Why masrl must not write (or remove) ``root/rel``, or None if it may.

    Refused: an absolute path or one with ``..``; a symbolic link at the
    target or at any folder between the root and the target; an existing
    target that is not a regular file; a path that resolves outside ``root``;
    a name with a NUL character or one the file system's encoding cannot hold.
    """
    return Probe(root).refusal(rel)


#: Errors of ``lstat`` that mean "not there" (as :meth:`pathlib.Path.exists` reads them).
_ABSENT = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


class Probe:
    """The file-system facts :func:`refusal` needs about the paths under one root, each path
    looked at once (one ``lstat``) however many targets share it: a build checks some 300
    targets in a dozen folders."""

    def __init__(self, root: Path):
        self.root = root
        self._stats: dict[str, os.stat_result | None] = {}
        self._inside: dict[str, str | None] = {}
        self._root: Path | None = None

    def lstat(self, path: str) -> os.stat_result | None:
        """``os.lstat(path)``, or None when nothing is there. Raises OSError for any other failure."""
        try:
            return self._stats[path]
        except KeyError:
            pass
        try:
            found: os.stat_result | None = os.lstat(path)
        except OSError as err:
            if err.errno not in _ABSENT:
                raise
            found = None
        self._stats[path] = found
        return found

    def target(self, rel: str) -> str:
        """The path of ``rel`` under the root as :meth:`refusal` read it (``a/./b/`` is ``a/b``)."""
        parts = self._parts(rel)
        return os.path.join(os.fspath(self.root), *parts) if parts else os.fspath(self.root)

    @staticmethod
    def _parts(rel: str) -> tuple[str, ...]:
        parts = tuple(rel.split("/"))
        if not rel or rel[0] == "/" or any(p in ("..", ".", "") for p in parts):  # not plain: as PurePosixPath reads it
            parts = PurePosixPath(rel).parts
        return parts

    def refusal(self, rel: str) -> str | None:
        """:func:`refusal` of ``rel``."""
        parts = self._parts(rel)
        if not parts or PurePosixPath(rel).is_absolute() or any(p in ("..", ".", "") for p in parts):
            return "is not a path inside the survey root"
        try:
            return self._refusal(parts)
        except OSError as err:  # a name the file system cannot hold (too long, invalid bytes)
            return f"cannot be written: {err.strerror or err}"
        except RuntimeError as err:  # the root is a loop of symbolic links (Python before 3.13)
            return f"cannot be written: {err}"

    def _refusal(self, parts: tuple[str, ...]) -> str | None:
        path = os.fspath(self.root)
        for depth, part in enumerate(parts, 1):
            if _bad_name(part):
                break
            path = os.path.join(path, part)
            found = self.lstat(path)
            if found is None:
                break
            if stat.S_ISLNK(found.st_mode):
                what = "is" if depth == len(parts) else f"lies under {'/'.join(parts[:depth])}, which is"
                try:
                    target = os.readlink(path)
                except OSError:
                    target = "?"
                return (f"{what} a symbolic link (to {target}); masrl writes only regular files inside the survey "
                        "root: replace the link with a regular file or folder (or delete it), then run again")
            if depth < len(parts) and not stat.S_ISDIR(found.st_mode):
                return f"cannot be written: {'/'.join(parts[:depth])} is a file, not a folder"
        else:
            if not stat.S_ISREG(found.st_mode):
                return "is a folder, not a file" if stat.S_ISDIR(found.st_mode) else "exists but is not a regular file"
        bad = next(filter(None, map(_bad_name, parts)), None)
        if bad:
            return bad
        # No part of the path is a link (checked above), so it resolves where its folder resolves.
        return self._outside("/".join(parts[:-1]))

    def _outside(self, folder: str) -> str | None:
        """The refusal of a target in ``folder`` (relative) that is not itself a link: its
        folder, resolved, must lie inside the resolved root."""
        if folder not in self._inside:
            if self._root is None:
                self._root = self.root.resolve()
            resolved = (self.root / folder).resolve() if folder else self._root
            self._inside[folder] = None if resolved.is_relative_to(self._root) else str(resolved)
        outside = self._inside[folder]
        return None if outside is None else f"resolves outside the survey root (to {outside})"


def _bad_name(part: str) -> str | None:
    """Why no file system can hold a file or folder named ``part``, or None."""
    if "\0" in part:
        return "cannot be written: its name holds a NUL character"
    try:
        os.fsencode(part)
    except UnicodeEncodeError:
        return f"cannot be written: its name {part!r} cannot be encoded for the file system"
    return None


def is_link(path: str) -> bool:
    """:meth:`pathlib.Path.is_symlink` of ``path`` (False when nothing is there; other errors raise)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError as err:
        if err.errno not in _ABSENT:
            raise
        return False
    except ValueError:
        return False
