"""tests/tempfolders.py: the folders of earlier runs that pytest would remove at the end of a run
are handed, at its start, to a process of their own; a folder another run still holds is left."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import tempfolders


def _config(current: Path, keep: int = 3):
    ini = {"tmp_path_retention_policy": "all", "tmp_path_retention_count": str(keep)}
    return SimpleNamespace(option=SimpleNamespace(basetemp=None), getini=ini.__getitem__,
                           _tmp_path_factory=SimpleNamespace(getbasetemp=lambda: current))


def test_earlier_runs_folders_are_removed_by_a_process_of_their_own(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    for n in range(1, 8):
        (tmp_path / f"pytest-{n}" / "a" / "b").mkdir(parents=True)
        (tmp_path / f"pytest-{n}" / "a" / "b" / "f.txt").write_text("x")
    (tmp_path / "pytest-2" / ".lock").write_text("")  # another run holds pytest-2: a live lock
    left = tmp_path / f"{tempfolders.PREFIX}left-by-an-interrupted-removal"
    left.mkdir()
    handed = tempfolders.start(_config(tmp_path / "pytest-7"))
    assert len(handed) == 4 and left in handed  # pytest-1, -3 and -4 (the last 3 are kept; 2 is locked), and the leftover
    assert sorted(p.name for p in tmp_path.glob("pytest-*")) == ["pytest-2", "pytest-5", "pytest-6", "pytest-7"]
    deadline = time.monotonic() + 30
    while any(p.exists() for p in handed) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(p.exists() for p in handed)
    assert sorted(os.listdir(tmp_path)) == ["pytest-2", "pytest-5", "pytest-6", "pytest-7"]


def test_a_worker_or_a_fixed_basetemp_hands_nothing(tmp_path, monkeypatch):
    for n in range(1, 6):
        (tmp_path / f"pytest-{n}").mkdir()
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    assert tempfolders.start(_config(tmp_path / "pytest-5", keep=1)) == []
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    config = _config(tmp_path / "pytest-5", keep=1)
    config.option.basetemp = str(tmp_path / "fixed")
    assert tempfolders.start(config) == []
    assert len(list(tmp_path.glob("pytest-*"))) == 5


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux scheduling policy")
def test_the_removing_process_runs_at_the_idle_priority(tmp_path):
    (tmp_path / "old" / "a").mkdir(parents=True)
    (tmp_path / "old" / "a" / "f.txt").write_text("x")
    probe = tempfolders.REMOVE + "print(os.sched_getscheduler(0) == os.SCHED_IDLE)\n"
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "old")], capture_output=True, text=True, check=True)
    assert done.stdout == "True\n"
    assert not (tmp_path / "old").exists()
