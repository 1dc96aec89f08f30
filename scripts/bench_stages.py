#!/usr/bin/env python3
"""Time masrl's pure stages in one warm process, over pool states no earlier call computed,
against a floor timed in the same run.

A test or a long-running process computes these for every pool state it meets; the figures say
what one new state costs once everything is imported. Six pool states are made from the bundled
survey by retagging one record (``agentspawn``'s ``orchestration_form``), and for each, in
turn (alternated with the floor, A B A B ...):

  floor        read every input YAML file with PyYAML's libyaml loader (what merely reading costs)
  parse        masrl.corpus.load.parse_tree (the strict reader, line numbers kept)
  validate     masrl.checks.validate.validate
  build        masrl.build.pipeline.build (the pool's and every release's analyses)
  render_text  masrl.build.outputs.render_text (every text report of the pool and the releases)

Each pass runs the six states twice (twelve samples per stage); the medians are printed in
milliseconds and as ratios to the floor's median. To compare two versions of masrl, run it with
each (``PYTHONPATH=<checkout>/src``) in alternation.

Usage: python scripts/bench_stages.py [ROOT] [--markdown [FILE]] (--markdown: write the figures
into the benchmarks page, scripts/benchpage.py)
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import benchpage

ROOT = Path(__file__).resolve().parent.parent
#: The record and tag retagged to make a new pool state, and the values it takes in turn.
RECORD, FIELD, WAS = "corpus/papers/agentspawn.yaml", "orchestration_form", "swarm"
VALUES = ("debate", "centralized", "planner_executor_critic", "NA", "hierarchical", "swarm")


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", type=Path, default=ROOT, help="the survey (default: the bundled one)")
    benchpage.add_option(parser)
    args = parser.parse_args(argv)
    before = benchpage.load_average()
    os.environ["MASRL_CACHE"] = "off"
    import yaml

    from masrl.build import pipeline
    from masrl.build.examples import examples_valid, validated_examples
    from masrl.build.outputs import render_text
    from masrl.checks.validate import validate
    from masrl.corpus.load import parse_tree, read_tree

    root = args.root
    files = read_tree(root)
    line = f"{FIELD}: {WAS}\n".encode()
    if line not in files.get(RECORD, b""):
        raise SystemExit(f"{root / RECORD}: no {line!r} to retag")
    states = [{**files, RECORD: files[RECORD].replace(line, f"{FIELD}: {value}\n".encode())} for value in VALUES]
    traces = examples_valid(validated_examples())
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    times: dict[str, list[float]] = {name: [] for name in ("floor", "parse", "validate", "build", "render_text")}

    def timed(name: str, call):
        started = time.perf_counter()
        value = call()
        times[name].append(time.perf_counter() - started)
        return value

    for _ in range(2):
        for state in states:
            timed("floor", lambda: [yaml.load(data, Loader=loader) for rel, data in state.items() if rel.endswith(".yaml")])
            corpus = timed("parse", lambda: parse_tree(state))
            problems = timed("validate", lambda: validate(corpus))
            if problems:
                raise SystemExit(f"the retagged survey does not validate: {problems[0]}")
            result = timed("build", lambda: pipeline.build(corpus, traces))
            timed("render_text", lambda: render_text(result, corpus.readme))
    floor = statistics.median(times["floor"])
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {len(times['floor'])} samples per stage")
    rows = []
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:12s} {median * 1000:8.1f} ms  {median / floor:6.2f}x the floor")
        rows.append([f"`{name}`", f"{median * 1000:.1f} ms", f"{median / floor:.2f}x"])
    if args.markdown:
        benchpage.write(args.markdown, benchpage.Section(
            area="build", script="bench_stages", title="The pure stages, per new pool state",
            summary="masrl's pure stages in one warm process, each over pool states no earlier call computed (one "
                    f"record retagged in turn), {len(times['floor'])} samples per stage, alternated with the floor: "
                    "reading every input YAML file with PyYAML's libyaml loader. Medians.",
            columns=["stage", "median", "ratio to the floor"], rows=rows, load_before=before))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
