#!/usr/bin/env python3
"""Benchmark `masrl add --bibtex` of 2,000 new entries against the bundled pool.

Bound: <= 10 s on a 2-core machine (the whole command, dry run: parse, import,
duplicate detection against the 116 retained + excluded records and within the
batch, stub validation). Floor, measured in the same process: bibtexparser's
bare `parse_string` of the same file (reading the text, no masrl logic).

Makes 2,000 synthetic entries (random distinct titles, arXiv ids, authors) in
a temporary copy of the survey, then runs the command in-process (best of
--repeat) and prints the absolute time and its ratio to the floor.

Usage: python scripts/bench_add.py [--entries 2000] [--repeat 3] [--markdown [FILE]]
(--markdown: write the figures into the benchmarks page, scripts/benchpage.py)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import shutil
import string
import tempfile
import time
from pathlib import Path

import benchpage

REPO = Path(__file__).resolve().parent.parent


def synthetic_bib(n: int, seed: int = 11) -> str:
    rng = random.Random(seed)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 10))) for _ in range(4000)]
    out = []
    for i in range(n):
        title = " ".join(rng.choice(words) for _ in range(rng.randint(6, 14))).capitalize()
        out.append(f"@misc{{e{i},\n  title = {{{title}}},\n  author = {{Author{i}, Ann and Other, Bob}},\n"
                   f"  year = {{2026}},\n  eprint = {{26{(i % 12) + 1:02d}.{i + 10000:05d}}},\n  archivePrefix = {{arXiv}},\n}}\n")
    return "\n".join(out)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    benchpage.add_option(parser)
    args = parser.parse_args()
    load = benchpage.load_average()

    import bibtexparser

    from masrl.cli import main as masrl

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "survey"
        root.mkdir()
        for name in ("corpus", "exclusions"):
            shutil.copytree(REPO / name, root / name)
        bib = root / "new.bib"
        text = synthetic_bib(args.entries)
        bib.write_text(text)
        floor = best(lambda: bibtexparser.parse_string(text), args.repeat)

        def add():
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                code = masrl(["add", "--root", str(root), "--bibtex", str(bib), "--dry-run"])
            if code != 0:
                raise SystemExit(f"masrl add failed:\n{err.getvalue()[-2000:]}")

        took = best(add, args.repeat)
    print(f"floor  bibtexparser.parse_string of {args.entries} entries: {floor:.2f} s")
    print(f"masrl  add --bibtex ({args.entries} new entries, --dry-run):  {took:.2f} s  "
          f"= {took / floor:.1f}x the floor; bound 10 s: {'met' if took <= 10 else 'MISSED'}")
    if args.markdown:
        benchpage.write(args.markdown, benchpage.Section(
            area="intake", script="bench_add", title="Adding papers from BibTeX",
            summary=f"`masrl add --bibtex` of {args.entries:,} new synthetic entries against the bundled pool, dry run "
                    "(parse, import, duplicate detection against every retained and excluded record and within the "
                    "batch, validation of the stubs), in process, best of "
                    f"{args.repeat}; the floor is bibtexparser's bare parse of the same file in the same process.",
            columns=["what", "time", "ratio to the floor", "bound", "verdict"],
            rows=[["bibtexparser `parse_string` (floor)", f"{floor:.2f} s", "1x", "", ""],
                  [f"`masrl add --bibtex` ({args.entries:,} entries, `--dry-run`)", f"{took:.2f} s", f"{took / floor:.1f}x",
                   "10 s on 2 cores", "met" if took <= 10 else "**missed**"]],
            load_before=load))


if __name__ == "__main__":
    main()
