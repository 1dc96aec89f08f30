"""Copies of survey trees for the tests (a plain module: test files import it by name, which
they cannot do reliably with a conftest, since every folder of tests/ may have one)."""

from __future__ import annotations

import shutil
from pathlib import Path

#: What a copy of a tree holds (the inputs, the reports, and README.md with its paper list).
TREE_PARTS = ("corpus", "exclusions", "reports")


def copy_tree(source: Path, dest: Path) -> Path:
    """Copy a survey tree's inputs, reports and README.md (no git repository) to ``dest``."""
    dest.mkdir(parents=True)
    for name in TREE_PARTS:
        if (source / name).exists():
            shutil.copytree(source / name, dest / name)
    shutil.copy(source / "README.md", dest / "README.md")
    return dest
