#!/usr/bin/env python3
"""Benchmark the everyday commands against the floor `python -c "import pandas, matplotlib"`.

Each command runs in a fresh process, alternated with the floor in the same run
(floor, command, floor, command, ... --pairs times); the figure given is the median of the
per-pair ratios command / floor, so that a change of load during the run moves both alike.
The commands run on a copy of the bundled survey (``corpus``, ``exclusions``, ``README.md``,
``reports``) in a temporary folder, as a contributor runs them:

  build --check            nothing stale (the copy was built once before)
  build                    no change since the last build
  build, one figure        a pool record retagged before each run, so that the pool's analyses,
                           text reports and one figure must be computed again (the change is
                           undone, untimed, after each run)
  validate                 the whole corpus
  add --no-fetch           one stub (identifier, title, author, year on the command line),
                           written; removed, untimed, after each run
  add --no-fetch --dry-run the same stub printed with its screening rank (builds the text model:
                           imports scikit-learn); no target of its own
  diff HEAD                the working tree against its last commit (a git repository is made
                           of the copy; one record retagged in the working tree)

Targets (issue 17): build --check <= 1.5x, build <= 1.5x, one figure <= 2.5x, validate <= 1.2x,
add <= 1.2x, diff <= 2x. ``--cold`` removes the build cache (``.masrl-cache/``) before each
timed build, to measure the builds without it.

Usage: python scripts/bench_commands.py [--pairs 5] [--only build-check validate ...] [--cold]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGETS = {"build-check": 1.5, "build": 1.5, "build-one-figure": 2.5, "validate": 1.2, "add": 1.2, "add-dry-run": None,
           "diff": 2.0}
#: The stub ``masrl add`` writes for the command line of :data:`ADD`.
ADDED = "corpus/papers/doe2026.yaml"
ADD = ["add", "--no-fetch", "2612.00001", "--title", "A benchmark paper on agents", "--author", "Doe, Jane", "--year", "2026"]


def run(cmd: list[str], cwd: Path, ok=(0,)) -> float:
    """Wall time (s) of one run of ``cmd``; exits when its return code is not in ``ok``."""
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in ok:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr.decode()[-3000:]}")
    return elapsed


def retag(root: Path, undo: bool = False) -> None:
    """Change (or restore) one tag of one pool record: a change a contributor makes."""
    path = root / "corpus/papers/agentspawn.yaml"
    text = path.read_text()
    old, new = ("orchestration_form: swarm\n", "orchestration_form: debate\n")
    old, new = (new, old) if undo else (old, new)
    assert old in text, f"{path}: no {old!r}"
    path.write_text(text.replace(old, new, 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=list(TARGETS), choices=list(TARGETS))
    parser.add_argument("--cold", action="store_true", help="remove .masrl-cache/ before each timed build")
    args = parser.parse_args()
    py = sys.executable
    masrl = [py, "-m", "masrl"]
    floor = [py, "-c", "import pandas, matplotlib"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "survey"
        root.mkdir()
        for name in ("corpus", "exclusions", "reports"):
            shutil.copytree(REPO / name, root / name)
        shutil.copy(REPO / "README.md", root / "README.md")
        env_git = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
                   "GIT_COMMITTER_EMAIL": "b@b"}
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "bench"]):
            subprocess.run(cmd, cwd=root, check=True, env=env_git, capture_output=True)
        run(masrl + ["build"], root)  # the copy as a contributor has it: built
        cache = root / ".masrl-cache"

        def cold():
            if args.cold:
                shutil.rmtree(cache, ignore_errors=True)

        # label -> (command, before each run, after each run, accepted return codes)
        cases = {
            "build-check": (masrl + ["build", "--check"], cold, None),
            "build": (masrl + ["build"], cold, None),
            "build-one-figure": (masrl + ["build"], lambda: (cold(), retag(root)),
                                 lambda: (retag(root, undo=True), run(masrl + ["build"], root))),
            "validate": (masrl + ["validate"], None, None),
            "add": (masrl + ADD, None, lambda: (root / ADDED).unlink()),
            "add-dry-run": (masrl + ADD + ["--dry-run"], None, None),
            "diff": (masrl + ["diff", "HEAD"], lambda: retag(root), lambda: retag(root, undo=True)),
        }
        load = os.getloadavg()
        print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.pairs} pairs per command"
              + (" (cold: no build cache)" if args.cold else ""))
        print(f"{'command':22s} {'floor s':>8s} {'cmd s':>8s} {'ratio':>6s} {'target':>6s}  per-pair ratios")
        for label in args.only:
            cmd, before, after = cases[label]
            floors, times, ratios = [], [], []
            for _ in range(args.pairs):
                f = run(floor, root)
                if before:
                    before()
                t = run(cmd, root)
                if after:
                    after()
                floors.append(f)
                times.append(t)
                ratios.append(t / f)
            median = statistics.median(ratios)
            target = TARGETS[label]
            verdict = "" if target is None else "met" if median <= target else "MISSED"
            print(f"{label:22s} {statistics.median(floors):8.3f} {statistics.median(times):8.3f} {median:6.2f} "
                  f"{'-' if target is None else f'{target:.1f}':>6s}  {' '.join(f'{r:.2f}' for r in ratios)}  {verdict}")
        load = os.getloadavg()
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
