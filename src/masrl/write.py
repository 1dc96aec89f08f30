"""The only module that writes files: atomic, deterministic, and ``--check``.

Every command hands this module a mapping ``{relative posix path: bytes}``
rendered in memory. :func:`sync` writes the files that differ (temp file in the
same folder + ``os.replace``, so a reader never sees half a file);
:func:`stale` only compares and writes nothing. New records are created with
:func:`create_new`, which never overwrites.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import UserError


@dataclass
class SyncReport:
    """What :func:`stale` or :func:`sync` found, as sorted relative paths.

    ``changed``: present but with other bytes; ``missing``: absent;
    ``orphaned``: present under a managed folder but no longer generated;
    ``unchanged``: identical.
    """

    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """True when every output is current and nothing is orphaned."""
        return not (self.changed or self.missing or self.orphaned)


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _managed_files(root: Path, managed: tuple[str, ...]) -> set[str]:
    found: set[str] = set()
    for folder in managed:
        base = root / folder
        if base.is_dir():
            for path in base.rglob("*"):
                if path.is_file() and not path.name.startswith("."):
                    found.add(path.relative_to(root).as_posix())
    return found


def read_existing(root: Path, rel: str) -> bytes | None:
    """Bytes of a generated file as it is on disk, or None if absent (for the figure manifest)."""
    path = root / rel
    return path.read_bytes() if path.is_file() else None


def stale(root: Path, outputs: dict[str, bytes | None], managed: tuple[str, ...] = ()) -> SyncReport:
    """Compare rendered ``outputs`` with the files under ``root``; write nothing.

    Args:
        root: the survey root.
        outputs: ``{relative posix path: bytes}``, the complete set of generated
            files; a value of None means "known to need regenerating" (a figure
            whose inputs changed, which ``--check`` does not redraw).
        managed: folders (relative) whose every file must be a generated one;
            any other file found there is reported as ``orphaned``.
    """
    report = SyncReport()
    for rel in sorted(outputs):
        path = root / rel
        if not path.is_file():
            report.missing.append(rel)
        elif outputs[rel] is None or path.read_bytes() != outputs[rel]:
            report.changed.append(rel)
        else:
            report.unchanged.append(rel)
    report.orphaned = sorted(_managed_files(root, managed) - set(outputs))
    return report


def sync(root: Path, outputs: dict[str, bytes], managed: tuple[str, ...] = ()) -> SyncReport:
    """Write every output that is missing or differs; remove orphaned generated files.

    Returns the :class:`SyncReport` of what was found before writing (the
    files listed as changed/missing were written, the orphaned ones removed).
    """
    report = stale(root, outputs, managed)
    for rel in report.changed + report.missing:
        _atomic_write(root / rel, outputs[rel])
    for rel in report.orphaned:
        (root / rel).unlink()
    return report


def create_new(root: Path, files: dict[str, bytes]) -> None:
    """Create new files; refuse (``UserError``) if any of them already exists.

    All paths are checked before anything is written, so either every file is
    created or none is.
    """
    existing = sorted(rel for rel in files if (root / rel).exists())
    if existing:
        raise UserError("refusing to overwrite existing file(s): " + ", ".join(existing))
    for rel in sorted(files):
        _atomic_write(root / rel, files[rel])


def remove(root: Path, rel: str) -> None:
    """Delete one file the caller has just preserved elsewhere (a moved record)."""
    (root / rel).unlink()
