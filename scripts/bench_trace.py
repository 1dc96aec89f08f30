"""Benchmark of `masrl trace validate` / `metrics` on large swarm traces (run by hand).

    .venv/bin/python scripts/bench_trace.py [--sizes 10000,100000,1000000] [--repeat 3]
                                           [--extrapolate-jsonschema] [--keep DIR]

For each size it writes a swarm-shaped valid trace (masrl.trace.synth.swarm_for_events,
serialised with json.dump's default separators) to a temporary folder and measures,
in this process, the best of --repeat runs of:

* json.load: open + json.load of the file (the floor every ratio is relative to);
* validate: the whole `masrl trace validate` path, bytes on disk -> problems;
* metrics: the whole `masrl trace metrics` path, bytes on disk -> metrics dict
  (it validates too: metrics are only computed for valid traces);
* jsonschema: Draft202012Validator(trace.schema.json).is_valid on the parsed trace
  alone (parsing not included), one run; with --extrapolate-jsonschema the largest
  size is estimated linearly from the next smaller one instead (and says so);
* duplicate-key detection strategies on the same text: json.loads plain, json.loads
  with an object_pairs_hook that detects duplicates, and masrl's streaming loader
  (':'-count check) feeding a sink that does nothing;

and, each in a fresh process, the peak Python heap (tracemalloc) of json.load,
validate and metrics, as a multiple of the file size. No timestamps are printed.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"validate": 3.0, "metrics": 2.0, "memory": 5.0, "jsonschema_speedup": 5.0}


def _validate(path: str):
    from masrl.trace.validate import validate_file

    problems = validate_file(path)
    assert not problems, problems[:3]
    return problems


def _metrics(path: str):
    from masrl.trace.metrics import metrics_from_checker
    from masrl.trace.validate import check_bytes, read_file

    checker, _tree, problems = check_bytes(read_file(path), path)
    assert not problems, problems[:3]
    return metrics_from_checker(checker)


def _json_load(path: str):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


KINDS = {"json.load": _json_load, "validate": _validate, "metrics": _metrics}


def measure_memory(kind: str, path: str) -> None:
    """Child process: print the tracemalloc peak (bytes) of one run of ``kind``."""
    import tracemalloc

    tracemalloc.start()
    result = KINDS[kind](path)
    _current, peak = tracemalloc.get_traced_memory()
    del result
    print(peak)


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
        del result
    return best


def _memory(kind: str, path: str) -> int:
    out = subprocess.run(
        [sys.executable, __file__, "--measure-memory", kind, path], capture_output=True, text=True, check=True
    ).stdout
    return int(out.strip())


def _dup_key_strategies(path: str, repeat: int) -> dict[str, float]:
    from masrl.trace.load import Loader

    text = Path(path).read_text(encoding="utf-8")

    def hook(pairs):
        d = dict(pairs)
        if len(d) != len(pairs):
            raise ValueError("duplicate key")
        return d

    class Null:
        def __getattr__(self, name):
            return lambda *args: None

    return {
        "json.loads": _best(lambda: json.loads(text), repeat),
        "json.loads + object_pairs_hook": _best(lambda: json.loads(text, object_pairs_hook=hook), repeat),
        "masrl streaming loader (':' count), no checks": _best(lambda: Loader(text, path, Null()).run(), repeat),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated event counts")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per measurement (the best is kept)")
    parser.add_argument("--extrapolate-jsonschema", action="store_true", help="estimate jsonschema at the largest size")
    parser.add_argument("--keep", metavar="DIR", help="write the traces here instead of a temporary folder")
    parser.add_argument("--measure-memory", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure_memory:
        measure_memory(*args.measure_memory)
        return 0

    sizes = [int(s) for s in args.sizes.split(",")]
    if args.keep:
        folder = Path(args.keep)
        folder.mkdir(parents=True, exist_ok=True)
        return run(sizes, folder, args)
    with tempfile.TemporaryDirectory(prefix="masrl-bench-") as tmp:
        return run(sizes, Path(tmp), args)


def run(sizes: list[int], folder: Path, args: argparse.Namespace) -> int:
    """Write the traces into ``folder``, measure, print; returns the exit code (0)."""
    from masrl.trace.schema import jsonschema_validator
    from masrl.trace.synth import swarm_for_events

    validator = jsonschema_validator()
    print("masrl trace benchmark: swarm traces (orchestrator -> N sub-agents: spawn, tool_call, tool_result, return)")
    print(f"python {sys.version.split()[0]}; cpus {os.cpu_count()}; times: best of {args.repeat} runs in one process;")
    print("memory: tracemalloc peak (Python heap) of one run in a fresh process, as a multiple of the file size")
    print()
    rows = []
    schema_per_event = None
    for n in sizes:
        path = folder / f"swarm_{n}.json"
        trace = swarm_for_events(n)
        events, edges = len(trace["events"]), len(trace["edges"])
        with open(path, "w", encoding="utf-8") as f:
            json.dump(trace, f)
        size = path.stat().st_size
        extrapolated = args.extrapolate_jsonschema and n == max(sizes) and schema_per_event is not None
        if extrapolated:
            t_schema = schema_per_event * events
        else:
            gc.collect()
            start = time.perf_counter()
            ok = validator.is_valid(trace)
            t_schema = time.perf_counter() - start
            assert ok
            schema_per_event = t_schema / events
        del trace
        gc.collect()
        times = {kind: float("inf") for kind in KINDS}
        for _ in range(args.repeat):  # interleaved, so that drift hits every kind alike
            for kind, fn in KINDS.items():
                times[kind] = min(times[kind], _best(lambda: fn(str(path)), 1))
        memory = {kind: _memory(kind, str(path)) / size for kind in KINDS}
        dup = _dup_key_strategies(str(path), args.repeat)
        rows.append((n, events, edges, size, times, t_schema, extrapolated, memory, dup))
        base = times["json.load"]
        print(f"== {events:,} events, {edges:,} edges, file {size / 1e6:.1f} MB ==")
        print(f"  json.load              {base:8.3f} s   1.00x  (floor)")
        for kind in ("validate", "metrics"):
            print(f"  {kind:<22} {times[kind]:8.3f} s   {times[kind] / base:.2f}x json.load")
        note = f" (extrapolated linearly from {sizes[-2]:,} events, not run)" if extrapolated else ""
        print(
            f"  jsonschema alone       {t_schema:8.3f} s   {t_schema / base:.2f}x json.load; "
            f"validate is {t_schema / times['validate']:.1f}x faster{note}"
        )
        print(
            "  peak memory / file size: "
            + ", ".join(f"{kind} {memory[kind]:.2f}x" for kind in KINDS)
        )
        print("  duplicate-key detection, same text (already read and decoded):")
        plain = dup["json.loads"]
        for label, seconds in dup.items():
            print(f"    {label:<46} {seconds:7.3f} s  ({seconds / plain:.2f}x json.loads)")
        print()
        sys.stdout.flush()
    n, events, _edges, size, times, t_schema, extrapolated, memory, _dup = rows[-1]
    base = times["json.load"]
    checks = [
        ("validate <= 3x json.load", times["validate"] / base, TARGETS["validate"], "<="),
        ("metrics <= 2x json.load", times["metrics"] / base, TARGETS["metrics"], "<="),
        ("validate peak memory <= 5x file size", memory["validate"], TARGETS["memory"], "<="),
        ("metrics peak memory <= 5x file size", memory["metrics"], TARGETS["memory"], "<="),
        ("validate >= 5x faster than jsonschema alone", t_schema / times["validate"], TARGETS["jsonschema_speedup"], ">="),
    ]
    print(f"targets at {events:,} events:")
    for label, value, target, op in checks:
        met = value <= target if op == "<=" else value >= target
        print(f"  {label:<46} {value:6.2f}x  {'met' if met else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
