#!/usr/bin/env python3
"""Benchmark the everyday commands against the floor `python -c "import pandas, matplotlib"`.

Each command runs in a fresh process, alternated with the floor in the same run
(floor, command, floor, command, ... --pairs times); the figure given is the median of the
per-pair ratios command / floor, so that a change of load during the run moves both alike.
The commands run on a copy of the bundled survey (``corpus``, ``exclusions``, ``README.md``,
``reports``) in a temporary folder, made a git repository and built once, as a contributor
has it:

  build-check        ``build --check``, the build cache present, nothing stale
  build              ``build``, no change since the last build
  build-retag        ``build`` after one pool record was retagged (the change is undone, and the
                     tree built again, untimed, after each run): the outputs that read the field
                     are rendered and its figure drawn, nothing else
  diff               ``diff HEAD`` with one record retagged in the working tree
  rerender           ``build --rerender-figures``: every figure drawn again (in parallel where
                     cores allow), every release's reports rendered
  check-fresh        ``build --check`` on a fresh clone: no build cache (it is removed before
                     each run), the release's reports confirmed by their manifest
  validate           the whole corpus
  add                ``add --no-fetch``: one stub written; removed, untimed, after each run
  add-dry-run        the same stub printed with its screening rank (no target)

Targets (issue 46; validate and add: issue 17): build-retag <= 1.5x, diff <= 2x, rerender <= 2.5x,
check-fresh <= 2x, build-check and build <= 1.5x, validate and add <= 1.2x. ``--cold`` removes the
build cache before each timed build. ``--markdown`` prints the table as Markdown, with the command,
the machine and the date. Every process runs with Python's bytecode cache (in a folder of the run,
``PYTHONPYCACHEPREFIX``), as an installed masrl runs, even where the shell sets
``PYTHONDONTWRITEBYTECODE``; each command is run once, untimed, first.

Usage: python scripts/bench_commands.py [--pairs 5] [--only build-retag diff ...] [--cold] [--markdown]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGETS = {"build-check": 1.5, "build": 1.5, "build-retag": 1.5, "diff": 2.0, "rerender": 2.5, "check-fresh": 2.0,
           "validate": 1.2, "add": 1.2, "add-dry-run": None}
#: The stub ``masrl add`` writes for the command line of :data:`ADD`.
ADDED = "corpus/papers/doe2026.yaml"
ADD = ["add", "--no-fetch", "2612.00001", "--title", "A benchmark paper on agents", "--author", "Doe, Jane", "--year", "2026"]


#: The environment of every timed process: Python's bytecode cached (in a folder of the run), as an
#: installed masrl has it, even where the shell says PYTHONDONTWRITEBYTECODE (then every process
#: would compile masrl's modules again); set by :func:`main`.
ENV: dict[str, str] = dict(os.environ)


def run(cmd: list[str], cwd: Path, ok=(0,)) -> float:
    """Wall time (s) of one run of ``cmd``; exits when its return code is not in ``ok``."""
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, env=ENV)
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


def machine() -> str:
    """CPU model, cores and Python, as the table's caption gives them."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=list(TARGETS), choices=list(TARGETS))
    parser.add_argument("--cold", action="store_true", help="remove .masrl-cache/ before each timed build")
    parser.add_argument("--markdown", action="store_true", help="print the results as a Markdown table")
    args = parser.parse_args()
    py = sys.executable
    masrl = [py, "-m", "masrl"]
    floor = [py, "-c", "import pandas, matplotlib"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        ENV["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        root = Path(tmp) / "survey"
        root.mkdir()
        for name in ("corpus", "exclusions", "reports"):
            shutil.copytree(REPO / name, root / name)
        shutil.copy(REPO / "README.md", root / "README.md")
        env_git = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
                   "GIT_COMMITTER_EMAIL": "b@b"}
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "bench"]):
            subprocess.run(cmd, cwd=root, check=True, env=env_git, capture_output=True)
        for warm in (masrl + ["validate"], masrl + ["diff", "HEAD"]):  # every module compiled once (bytecode cache)
            run(warm, root)
        run(masrl + ["build"], root)  # the copy as a contributor has it: built
        run(floor, root)  # the floor's bytecode cached too
        cache = root / ".masrl-cache"

        def cold():
            if args.cold:
                shutil.rmtree(cache, ignore_errors=True)

        def no_cache():
            shutil.rmtree(cache, ignore_errors=True)

        def rebuild():
            run(masrl + ["build"], root)

        # label -> (command, before each run, after each run)
        cases = {
            "build-check": (masrl + ["build", "--check"], cold, None),
            "build": (masrl + ["build"], cold, None),
            "build-retag": (masrl + ["build"], lambda: (cold(), retag(root)), lambda: (retag(root, undo=True), rebuild())),
            "diff": (masrl + ["diff", "HEAD"], lambda: retag(root), lambda: retag(root, undo=True)),
            "rerender": (masrl + ["build", "--rerender-figures"], cold, None),
            "check-fresh": (masrl + ["build", "--check"], no_cache, rebuild),
            "validate": (masrl + ["validate"], None, None),
            "add": (masrl + ADD, None, lambda: (root / ADDED).unlink()),
            "add-dry-run": (masrl + ADD + ["--dry-run"], None, None),
        }
        load = os.getloadavg()
        print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.pairs} pairs per command"
              + (" (cold: no build cache)" if args.cold else ""), file=sys.stderr)
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
            rows.append((label, statistics.median(floors), statistics.median(times), median, target, ratios, verdict))
            if not args.markdown:
                print(f"{label:14s} floor {statistics.median(floors):6.3f} s  command {statistics.median(times):6.3f} s  "
                      f"ratio {median:5.2f}  target {'-' if target is None else f'{target:.1f}'}  "
                      f"pairs {' '.join(f'{r:.2f}' for r in ratios)}  {verdict}", flush=True)
        load_after = os.getloadavg()
    if args.markdown:
        print(f"`python scripts/bench_commands.py {' '.join(sys.argv[1:])}`, {datetime.date.today().isoformat()}, "
              f"{machine()}; load average {load[0]:.2f} before, {load_after[0]:.2f} after.\n")
        print("| command | floor (s) | command (s) | ratio (median of pairs) | goal | |")
        print("| --- | ---: | ---: | ---: | ---: | --- |")
        for label, f, t, median, target, _, verdict in rows:
            print(f"| {label} | {f:.3f} | {t:.3f} | {median:.2f}x | {'-' if target is None else f'{target:.1f}x'} | {verdict} |")
    else:
        print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
