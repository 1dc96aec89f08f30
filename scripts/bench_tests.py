"""Time the README's test command: the suite's wall time, its CPU time, the load average around
it, and the 20 slowest tests (pytest's ``--durations=20``).

    .venv/bin/python scripts/bench_tests.py                 # the README's command, timed
    .venv/bin/python scripts/bench_tests.py --budget 120    # and say whether it met the budget
    .venv/bin/python scripts/bench_tests.py -- -k published # extra pytest arguments after --
    .venv/bin/python scripts/bench_tests.py --budget 120 --markdown   # and write the benchmarks page

Prints pytest's own output as it comes (its slowest 20 at the end), then one line with pytest's
own total, the wall time of the whole process, the CPU time (user + system of pytest and every
process it started: the helper that grows the second tree, git, the browser) and the load
average (``os.getloadavg``: 1, 5 and 15 minutes) before and after; last, pytest's closing line
again. The machine is shared: compare CPU times, and wall times only at a load below 1 (quiet)
against one another. Exit code: pytest's; with ``--budget`` and ``--strict``, 3 when the tests
passed over the budget. A timed run, never a timed test: nothing here can fail a test.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import benchpage

ROOT = Path(__file__).resolve().parent.parent
#: The README's test command (README, "Set up"; .ci/run runs the same).
COMMAND = [sys.executable, "-m", "pytest", "-q", "-n", "auto", "--dist", "worksteal"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, help="seconds of pytest's own total the run should stay within")
    parser.add_argument("--strict", action="store_true", help="exit 3 when the budget is exceeded")
    benchpage.add_option(parser)
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    command = [*COMMAND, "--durations=20", *args.pytest_args]
    load_before = os.getloadavg()
    started = time.perf_counter()
    closing = ""
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1) as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if line.strip():
                closing = line.rstrip("\n")
    wall = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_after = os.getloadavg()
    total = re.search(r" in ([0-9.]+)s", closing)
    pytest_total = float(total.group(1)) if total else wall
    print(f"bench_tests: {' '.join(['python', *command[1:]])}: pytest {pytest_total:.1f} s, wall {wall:.1f} s, "
          f"CPU {usage.ru_utime + usage.ru_stime:.1f} s (user {usage.ru_utime:.1f}, system {usage.ru_stime:.1f}), "
          f"load average {' '.join(f'{x:.2f}' for x in load_before)} before, {' '.join(f'{x:.2f}' for x in load_after)} after, "
          f"{os.cpu_count()} cores")
    code = proc.returncode
    if args.budget is not None:
        over = pytest_total - args.budget
        verdict = f"within the budget of {args.budget:.0f} s" if over <= 0 else \
            f"OVER the budget of {args.budget:.0f} s by {over:.1f} s (CONTRIBUTING.md, \"Budgets\": what to do)"
        print(f"bench_tests: {verdict}" + ("" if load_before[0] < 1 else f" (measured at load {load_before[0]:.2f}, not quiet)"))
        if over > 0 and args.strict and code == 0:
            code = 3
    if args.markdown:
        verdict = "" if args.budget is None else ("met" if pytest_total <= args.budget else "**missed**")
        benchpage.write(args.markdown, benchpage.Section(
            area="tests", script="bench_tests", title="The whole test suite",
            summary="The README's test command, timed: pytest's own total, the wall time of the whole process, and "
                    "the CPU time of pytest and every process it started.",
            columns=["command", "result", "pytest's total", "wall", "CPU (user + system)", "budget", "verdict"],
            rows=[[f"`{' '.join(['python', *command[1:]])}`", closing.strip("= "), f"{pytest_total:.1f} s", f"{wall:.1f} s",
                   f"{usage.ru_utime + usage.ru_stime:.1f} s",
                   "" if args.budget is None else f"{args.budget:.0f} s on 2 quiet cores", verdict]],
            load_before=load_before))
    if closing:
        print(closing)  # pytest's closing line stays the last line of the log
    return code


if __name__ == "__main__":
    sys.exit(main())
