#!/usr/bin/env python3
"""Benchmark what the audit workflow adds to `masrl build --check`, against floors of the same run.

Measures, in fresh processes (best of --repeat runs, interleaved so load on the
machine hits every command alike):

  floor  python -c "import pandas"
         python -c "import masrl.build.pipeline"
         masrl build --check on the bundled corpus

and with ``python -X importtime`` the self time of every module the audits add
to the build path (``masrl.audits.*``, ``masrl.analyses.agreement``; best run
per module) against the path's whole import and the build. It also
checks that no heavy statistics library (statsmodels, scipy, sklearn) is
imported on that path, and times the coefficients of one field for 10,000
items (2 and 3 readers) in this process.

Bound: the audit modules cost < 2% of `masrl build --check`, and no heavy
library is imported. `--markdown` writes the figures into the benchmarks page
(scripts/benchpage.py).

Usage: python scripts/bench_audit.py [--repeat 7] [--markdown [FILE]]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

import benchpage

REPO = Path(__file__).resolve().parent.parent
PATH_IMPORTS = "import masrl.commands.build, masrl.build.pipeline, masrl.checks.validate, masrl.checks.audits"
NEW = ("masrl.audits", "masrl.analyses.agreement")


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, capture_output=True)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr.decode()[-2000:]}")
    return time.perf_counter() - start


def import_times() -> dict[str, int]:
    """Self µs of each module of one fresh import of the build path, and ``total``: its cumulative µs."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", PATH_IMPORTS], capture_output=True, text=True, cwd=REPO)
    out: dict[str, int] = {"total": 0}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        self_us, cumulative, raw = line[len("import time:"):].split("|")
        if self_us.strip().isdigit():
            out[raw.strip()] = int(self_us)
            if not raw[1:].startswith(" "):  # a top-level import (nested ones are indented)
                out["total"] += int(cumulative)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    benchpage.add_option(parser)
    args = parser.parse_args()
    load = benchpage.load_average()
    commands = {
        "python -c 'import pandas'": [sys.executable, "-c", "import pandas"],
        "python -c 'import masrl.build.pipeline'": [sys.executable, "-c", "import masrl.build.pipeline"],
        "masrl build --check": [sys.executable, "-m", "masrl", "build", "--check"],
    }
    best = {name: float("inf") for name in commands}
    modules: dict[str, float] = {}
    for _ in range(args.repeat):
        for name, cmd in commands.items():
            best[name] = min(best[name], timed(cmd))
        for name, us in import_times().items():
            modules[name] = min(modules.get(name, float("inf")), us)
    floor = best["python -c 'import pandas'"]
    for name, seconds in best.items():
        print(f"{name:36s} {seconds:7.3f} s  {seconds / floor:5.2f}x import pandas")
    new = sum(us for name, us in modules.items() if name.startswith(NEW))
    share = new / 1e6 / best["masrl build --check"]
    print(f"audit modules on the build path (self, best per module) {new / 1000:6.1f} ms = {new / modules['total']:.1%} of "
          f"the path's import ({modules['total'] / 1000:.0f} ms), {share:.1%} of masrl build --check (bound 2%)")
    heavy = subprocess.run([sys.executable, "-c", f"{PATH_IMPORTS}; import sys; "
                            "print(sorted(m for m in ('statsmodels', 'scipy', 'sklearn', 'krippendorff') if m in sys.modules))"],
                           capture_output=True, text=True, cwd=REPO).stdout.strip()
    print(f"heavy statistics libraries imported on the build path: {heavy}")

    from masrl.analyses.agreement import agreement

    rng = random.Random(7)
    cats = ("a", "b", "c", "d", "e")
    coefficients = {}
    for readers in (2, 3):
        ratings = [tuple(rng.choice(cats) for _ in range(readers)) for _ in range(10_000)]
        start = time.perf_counter()
        agreement(ratings, cats)
        coefficients[readers] = (time.perf_counter() - start) * 1000
        print(f"coefficients, 10,000 items x {readers} readers       {coefficients[readers]:7.1f} ms")
    if args.markdown:
        rows = [[f"`{name}`", f"{seconds:.3f} s", f"{seconds / floor:.2f}x", "", ""] for name, seconds in best.items()]
        rows.append(["audit modules on the build path (self time)", f"{new / 1000:.1f} ms", f"{share:.1%} of `masrl build --check`",
                     "< 2%", "met" if share < 0.02 else "**missed**"])
        rows.append(["heavy statistics libraries on the build path", heavy, "", "none", "met" if heavy == "[]" else "**missed**"])
        rows += [[f"agreement coefficients, 10,000 items × {r} readers", f"{ms:.1f} ms", "", "", ""] for r, ms in coefficients.items()]
        benchpage.write(args.markdown, benchpage.Section(
            area="audits", script="bench_audit", title="What audits add to the build",
            summary=f"Each command in a fresh process, best of {args.repeat} interleaved runs; the ratio is to "
                    "`python -c 'import pandas'`. The audit modules' share is their self import time "
                    "(`python -X importtime`) against `masrl build --check`.",
            columns=["what", "time", "ratio", "bound", "verdict"], rows=rows, load_before=load))
    if share >= 0.02 or heavy != "[]":
        sys.exit("bound exceeded")


if __name__ == "__main__":
    main()
