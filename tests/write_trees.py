"""The small survey root the writer's tests write into (tests/test_write.py,
tests/test_write_commit.py), and a snapshot of every file and link under a folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


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
