"""The second test survey (soil organic carbon: seven retained and three excluded records, release
r1 later grown by one record and a claim about r1), read from tests/data, never written by code."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parent / "data"
SOIL, LATE = DATA / "second-survey", DATA / "second-survey-late"
#: The keys of its records, the late one last; the ids of its excluded records.
KEYS = sorted(p.stem for p in (SOIL / "corpus/papers").glob("*.yaml")) + sorted(p.stem for p in (LATE / "corpus/papers").glob("*.yaml"))
EXCLUDED = sorted(p.stem for p in (SOIL / "exclusions").glob("*.yaml"))


def write_survey(dest: Path) -> Path:
    """A copy of the survey at ``dest``."""
    shutil.copytree(SOIL, dest)
    return dest


def add_late_record(root: Path) -> None:
    """The record added after release r1 (silva2025, added 2026-03-01), and the claim about r1."""
    shutil.copytree(LATE, root, dirs_exist_ok=True)


def record(key: str, title: str, i: int, **fields) -> dict:
    """A retained record like silva2025 with another key, title and (made-up) arXiv id, and ``fields``."""
    rec = yaml.safe_load((LATE / "corpus/papers/silva2025.yaml").read_text(encoding="utf-8"))
    arxiv = f"2101.{i:05d}"
    rec.update(key=key, bibtex_key=key, title=title, url=f"https://arxiv.org/abs/{arxiv}", identifiers={"arxiv": arxiv}, **fields)
    rec["bibtex"].update(title=title, journal=f"arXiv preprint arXiv:{arxiv}", url=rec["url"])
    return rec
