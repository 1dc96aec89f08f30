"""The loader's reading of the build cache and of what a build's bytes depend on besides the corpus.

Part of the loader (kept apart from :mod:`.load`, which reads the corpus): the files of the
build cache ``.masrl-cache/`` (written by :func:`masrl.build.write.write_cache`, interpreted by
:mod:`masrl.build.cache`), the generated files as they are (:func:`read_reports`; those a stamp
names, :func:`read_files`), the identity of masrl's code and toolchain, and the digest of the code
that makes a release's reports (:func:`code_digest`). Nothing here raises on a missing or
unreadable file: the cache is an optimisation, and a file it cannot read only means the build
renders.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import sys
from pathlib import Path
from ..core import clock

#: Largest cache file read (bytes); a larger one is ignored.
MAX_ENTRY = 64 * 1024 * 1024


def _regular(path: Path) -> bytes | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_ENTRY:
            return None
        return path.read_bytes()
    except OSError:
        return None


def read_cache(root: Path, folder: str) -> dict[str, bytes]:
    """``{path from the root: bytes}`` of every regular file under ``root/folder`` (links not followed)."""
    base = root / folder
    if base.is_symlink() or not base.is_dir():
        return {}
    out: dict[str, bytes] = {}
    for path in sorted(base.rglob("*")):
        data = _regular(path)
        if data is not None:
            out[path.relative_to(root).as_posix()] = data
    return out


def read_files(root: Path, rels) -> dict[str, bytes | None]:
    """``{rel: bytes, or None when missing, unreadable, not a regular file or a link}`` for each of ``rels``."""
    return {rel: _regular(root / rel) for rel in rels}


def identity_text() -> str:
    """What a build depends on besides its input files, as text: a SHA-256 over masrl's own files
    (code, templates, packaged data), the Python version and platform, every distribution
    installed on ``sys.path`` (the names of its ``*.dist-info`` folders, which carry the
    versions), and the current year (the latest year validation allows for a record)."""
    digest = _package_digest(lambda rel, path: path.suffix not in (".pyc", ".pyo"))
    dists = set()
    for entry in sys.path:
        base = Path(entry or ".")
        try:
            dists.update(p.name for p in base.iterdir() if p.name.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
    return "\n".join([f"masrl files {digest}", f"python {sys.version} {platform.machine()}",
                      f"year {clock.today().year}", *sorted(dists)])


#: The parts of masrl that never decide a release's report tree: the command line, the commands,
#: the operations that change the corpus, validation, orchestration traces (a release's reports
#: read only whether each example trace validates, which its manifest's fingerprint holds) and
#: the catalogue site (the pool's tree alone has one). Everything else of the package is the code
#: of a release tree (:func:`code_digest`).
NOT_RELEASE_CODE = ("cli", "commands", "review", "checks", "trace", "render/site")


#: The files of the package that are code or packaged data (what an installed masrl holds, as
#: pyproject.toml's package data names it), by suffix: nothing else there is read by the code.
CODE_SUFFIXES = (".py", ".j2", ".json", ".yaml")


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 (hex) over the files of masrl's package that compute and write a release's report
    tree (code, templates, packaged data: :data:`CODE_SUFFIXES`; not :data:`NOT_RELEASE_CODE`),
    read once per process: part of the fingerprint a release's manifest records
    (:mod:`masrl.build.manifest`). The same in a clone and in an installed copy of one commit."""
    return _package_digest(lambda rel, path: path.suffix in CODE_SUFFIXES
                           and not any(rel == part or rel.startswith(part + "/") for part in NOT_RELEASE_CODE))


def _package_digest(keep) -> str:
    """SHA-256 (hex) over the names, sizes and bytes of the files of masrl's package for which
    ``keep(relative path, path)`` holds (never ``__pycache__``), in path order."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package).as_posix()
        if "__pycache__" in path.parts or not path.is_file() or not keep(rel, path):
            continue
        try:
            data = path.read_bytes()
        except OSError:
            data = b"?unreadable"
        digest.update(f"{rel}:{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


def read_reports(root: Path, folder: str = "reports") -> dict[str, bytes]:
    """``{path from the root: bytes}`` of every regular file under ``root/folder`` (links and
    unreadable files left out): the generated files as they are now, which a build keeps where
    their key (:mod:`masrl.build.cache`) or their release's manifest (:mod:`masrl.build.manifest`)
    says they are current."""
    base = root / folder
    if base.is_symlink() or not base.is_dir():
        return {}
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        for name in filenames:
            path = Path(dirpath) / name
            data = _regular(path)
            if data is not None:
                out[path.relative_to(root).as_posix()] = data
    return dict(sorted(out.items()))
