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
  retag-no-figures   ``build --no-figures`` after the same retag: the outputs that read the field
                     rendered, no figure drawn
  diff               ``diff HEAD`` with one record retagged in the working tree
  rerender           ``build --rerender-figures``: every figure drawn again (in parallel where
                     cores allow), every release's reports rendered
  check-fresh        ``build --check`` on a fresh clone: no build cache (it is removed before
                     each run), the release's reports confirmed by their manifest
  validate           the whole corpus
  add                ``add --no-fetch``: one stub written; removed, untimed, after each run
  add-dry-run        the same stub printed with its screening rank (no target)

Targets: build-retag <= 1.5x, diff <= 2x, rerender <= 2.5x,
check-fresh <= 2x, build-check and build <= 1.5x, validate and add <= 1.2x. ``--cold`` removes the
build cache before each timed build. ``--markdown [FILE]`` writes the table, the command, the
machine and the date into the benchmarks page (scripts/benchpage.py). Each command's CPU ratio is
given beside its wall ratio (on a loaded machine the steadier figure). Every process runs with Python's bytecode cache (in a folder of the run,
``PYTHONPYCACHEPREFIX``), as an installed masrl runs, even where the shell sets
``PYTHONDONTWRITEBYTECODE``; each command is run once, untimed, first.

Usage: python scripts/bench_commands.py [--pairs 5] [--only build-retag diff ...] [--cold] [--markdown [FILE]]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchpage

REPO = Path(__file__).resolve().parent.parent
TARGETS = {"build-check": 1.5, "build": 1.5, "build-retag": 1.5, "retag-no-figures": None, "diff": 2.0, "rerender": 2.5, "check-fresh": 2.0,
           "validate": 1.2, "add": 1.2, "add-dry-run": None}
#: The stub ``masrl add`` writes for the command line of :data:`ADD`.
ADDED = "corpus/papers/doe2026.yaml"
ADD = ["add", "--no-fetch", "2612.00001", "--title", "A benchmark paper on agents", "--author", "Doe, Jane", "--year", "2026"]


#: The environment of every timed process: Python's bytecode cached (in a folder of the run), as an
#: installed masrl has it, even where the shell says PYTHONDONTWRITEBYTECODE (then every process
#: would compile masrl's modules again); set by :func:`main`.
ENV: dict[str, str] = dict(os.environ)


def run(cmd: list[str], cwd: Path, ok=(0,)) -> tuple[float, float]:
    """Wall and CPU time (s; user + system of the command and every process it waited for) of one
    run of ``cmd``; exits when its return code is not in ``ok``."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, env=ENV)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr.decode()[-3000:]}")
    return elapsed, (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)


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
    benchpage.add_option(parser)
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
            "retag-no-figures": (masrl + ["build", "--no-figures"], lambda: (cold(), retag(root)),
                                 lambda: (retag(root, undo=True), rebuild())),
            "diff": (masrl + ["diff", "HEAD"], lambda: retag(root), lambda: retag(root, undo=True)),
            "rerender": (masrl + ["build", "--rerender-figures"], cold, None),
            "check-fresh": (masrl + ["build", "--check"], no_cache, rebuild),
            "validate": (masrl + ["validate"], None, None),
            "add": (masrl + ADD, None, lambda: (root / ADDED).unlink()),
            "add-dry-run": (masrl + ADD + ["--dry-run"], None, None),
        }
        load = benchpage.load_average()
        print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.pairs} pairs per command"
              + (" (cold: no build cache)" if args.cold else ""), file=sys.stderr)
        for label in args.only:
            cmd, before, after = cases[label]
            walls, cpus = [], []
            for _ in range(args.pairs):
                floor_wall, floor_cpu = run(floor, root)
                if before:
                    before()
                wall, cpu = run(cmd, root)
                if after:
                    after()
                walls.append((floor_wall, wall))
                cpus.append((floor_cpu, cpu))
            wall_ratio = statistics.median(t / f for f, t in walls)
            cpu_ratio = statistics.median(t / f for f, t in cpus)
            target = TARGETS[label]
            verdict = "" if target is None else "met" if wall_ratio <= target else "missed"
            rows.append([f"`masrl {' '.join(cmd[3:])}`" + ("" if label == cmd[3] else f" ({label})"),
                         f"{statistics.median(f for f, _ in walls):.3f} s", f"{statistics.median(t for _, t in walls):.3f} s",
                         f"{wall_ratio:.2f}x", f"{cpu_ratio:.2f}x", "" if target is None else f"{target:.1f}x", verdict])
            print(f"{label:16s} wall: floor {statistics.median(f for f, _ in walls):6.3f} s command "
                  f"{statistics.median(t for _, t in walls):6.3f} s ratio {wall_ratio:5.2f} (pairs "
                  f"{' '.join(f'{t / f:.2f}' for f, t in walls)}); CPU ratio {cpu_ratio:5.2f}; target "
                  f"{'-' if target is None else f'{target:.1f}'} {verdict}", file=sys.stderr, flush=True)
    if args.markdown:
        benchpage.write(args.markdown, benchpage.Section(
            area="build", script="bench_commands", title="The everyday commands against the floor",
            summary=("Each command in a fresh process on a built copy of the bundled survey (a git repository), "
                     f"alternated with the floor `python -c \"import pandas, matplotlib\"`, {args.pairs} pairs per "
                     "command; the ratios are the medians of the per-pair ratios, of wall time and of CPU time (user + "
                     "system, the command's worker processes included). Python's bytecode is cached, as for an "
                     "installed masrl. A retag changes `orchestration_form` of one pool record (undone, and built "
                     "again, after each run); a fresh clone has no build cache."),
            columns=["command", "floor", "command", "ratio (wall)", "ratio (CPU)", "goal", "verdict"],
            rows=rows, load_before=load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
