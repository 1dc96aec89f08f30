"""Helpers of the living-review tests (tests/test_living_review.py, test_release_workflow.py,
test_merges.py): release v1's published headline, files of a folder, a claim by id, git in a
tree, the keys of papers, and a build of a tree's corpus."""

from __future__ import annotations

from pathlib import Path

import grow

from masrl.build.pipeline import build
from masrl.corpus.load import load

#: Release v1's headline, as the survey published it (the only literal numbers of these tests).
V1 = {"retained": 84, "excluded": 32, "audited": 116}


def files_under(root: Path, folder: str) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / folder).rglob("*")) if p.is_file()}


def claim(result, cid):
    return next(c for c in result.claims if c.id == cid)


def git(root: Path, *args: str) -> str:
    return grow.git(root, *args, check=False)


def keys(papers) -> set[str]:
    return {p["key"] for p in papers}


def current(root: Path):
    return build(load(root), {"survey_example": True})
