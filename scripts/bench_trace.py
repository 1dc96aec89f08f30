"""Benchmark of `masrl trace validate` / `metrics` / `summarize` (run by hand).

    .venv/bin/python scripts/bench_trace.py [--sizes 10000,100000,1000000] [--repeat 3]
        [--clock cpu|wall] [--extrapolate-jsonschema] [--many 10000] [--many-events 100]
        [--workers 2] [--keep DIR]

Single files. For each size it writes a swarm-shaped valid trace
(masrl.trace.synth.swarm_for_events, json.dump's default separators) and measures,
in this process, interleaved, the best of --repeat runs of:

* json.load: open + json.load of the file (the floor every ratio is relative to);
* validate: the whole `masrl trace validate` path, bytes on disk -> problems;
* metrics: the whole `masrl trace metrics` path (it validates first);
* jsonschema: Draft202012Validator(trace.schema.json).is_valid on the parsed trace
  alone, one run (--extrapolate-jsonschema estimates the largest size linearly);
* what exact parsing costs, on the same bytes: json.loads; json.loads with an
  object_pairs_hook that detects duplicates; jiter with and without
  catch_duplicate_keys; msgspec's typed decode into the schema's Structs (fast, but
  blind to duplicate keys, so not usable alone);

and, each in a fresh process, the tracemalloc peak of json.load, validate and
metrics as a multiple of the file size.

Many traces (--many N, 0 to skip): N files of --many-events events each; the
throughput (files per second, wall clock) of a bare json.load loop in one process,
of the same loop on --workers processes, and of `masrl trace summarize`'s work
(validate, metrics, rows, Parquet bytes) on --workers processes.

--clock cpu (default) times this process's CPU (time.process_time), which other
load on a shared machine disturbs far less than the wall clock; --clock wall uses
time.perf_counter. The many-traces runs always use the wall clock (they use several
processes). No timestamps are printed; the verdict lines compare with the targets.
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

TARGETS = {"validate": 1.5, "metrics": 2.0, "memory": 4.0, "jsonschema_speedup": 5.0, "many": 0.8}
CLOCK = {"cpu": time.process_time, "wall": time.perf_counter}


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

    import masrl.trace.metrics  # noqa: F401  (imports are the library's memory, not the trace's)
    import masrl.trace.validate  # noqa: F401

    tracemalloc.start()
    result = KINDS[kind](path)
    _current, peak = tracemalloc.get_traced_memory()
    del result
    print(peak)


def _once(fn, clock) -> float:
    gc.collect()
    start = clock()
    result = fn()
    elapsed = clock() - start
    del result
    return elapsed


def _memory(kind: str, path: str) -> int:
    out = subprocess.run(
        [sys.executable, __file__, "--measure-memory", kind, path], capture_output=True, text=True, check=True
    ).stdout
    return int(out.strip())


def _parsers(path: str, repeat: int, clock) -> dict[str, float]:
    """Seconds of each way to parse the same bytes (best of ``repeat``, interleaved)."""
    import jiter
    import msgspec

    from masrl.trace.typed import Edge, Event

    data = Path(path).read_bytes()
    text = data.decode("utf-8")

    Trace = msgspec.defstruct("Trace", [("events", list[Event]), ("edges", list[Edge])])
    typed = msgspec.json.Decoder(Trace)

    def hook(pairs):
        d = dict(pairs)
        if len(d) != len(pairs):
            raise ValueError("duplicate key")
        return d

    ways = {
        "json.loads (no duplicate check)": lambda: json.loads(text),
        "json.loads + object_pairs_hook (exact)": lambda: json.loads(text, object_pairs_hook=hook),
        "jiter (no duplicate check)": lambda: jiter.from_json(data, allow_inf_nan=False, cache_mode="keys"),
        "jiter catch_duplicate_keys (exact; used)": lambda: jiter.from_json(
            data, catch_duplicate_keys=True, allow_inf_nan=False, cache_mode="keys"
        ),
        "msgspec typed Structs (blind to duplicates)": lambda: typed.decode(data),
    }
    best = {name: float("inf") for name in ways}
    for _ in range(repeat):
        for name, fn in ways.items():
            best[name] = min(best[name], _once(fn, clock))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated event counts (empty: none)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per measurement (the best is kept)")
    parser.add_argument("--clock", choices=tuple(CLOCK), default="cpu", help="cpu (default) or wall time")
    parser.add_argument("--extrapolate-jsonschema", action="store_true", help="estimate jsonschema at the largest size")
    parser.add_argument("--many", type=int, default=10000, help="files of the many-traces run (0: skip)")
    parser.add_argument("--many-events", type=int, default=100, help="events per file of the many-traces run")
    parser.add_argument("--workers", type=int, default=2, help="processes of the many-traces run")
    parser.add_argument("--keep", metavar="DIR", help="write the traces here instead of a temporary folder")
    parser.add_argument("--measure-memory", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure_memory:
        measure_memory(*args.measure_memory)
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.keep:
        folder = Path(args.keep)
        folder.mkdir(parents=True, exist_ok=True)
        return run(sizes, folder, args)
    with tempfile.TemporaryDirectory(prefix="masrl-bench-") as tmp:
        return run(sizes, Path(tmp), args)


def run(sizes: list[int], folder: Path, args: argparse.Namespace) -> int:
    """Write the traces into ``folder``, measure, print; returns the exit code (0)."""
    print("masrl trace benchmark: swarm traces (orchestrator -> N sub-agents: spawn, tool_call, tool_result, return)")
    print(f"python {sys.version.split()[0]}; cpus {os.cpu_count()}; clock: {args.clock} "
          f"({'this process' if args.clock == 'cpu' else 'wall'}); best of {args.repeat} interleaved runs;")
    print("memory: tracemalloc peak (Python heap) of one run in a fresh process, as a multiple of the file size")
    print()
    verdicts = []
    if sizes:
        verdicts += single_files(sizes, folder, args)
    if args.many:
        verdicts += many_traces(folder, args)
    print("targets:")
    for label, value, target, op, unit in verdicts:
        met = value <= target if op == "<=" else value >= target
        print(f"  {label:<58} {value:6.2f}{unit}  {'met' if met else 'MISSED'}")
    return 0


def single_files(sizes: list[int], folder: Path, args) -> list:
    from masrl.trace.schema import jsonschema_validator
    from masrl.trace.synth import swarm_for_events

    clock = CLOCK[args.clock]
    validator = jsonschema_validator()
    schema_per_event = None
    last = None
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
            t_schema = _once(lambda: validator.is_valid(trace), clock)
            schema_per_event = t_schema / events
        del trace
        times = {kind: float("inf") for kind in KINDS}
        for _ in range(args.repeat):  # interleaved, so that drift hits every kind alike
            for kind, fn in KINDS.items():
                times[kind] = min(times[kind], _once(lambda: fn(str(path)), clock))
        memory = {kind: _memory(kind, str(path)) / size for kind in KINDS}
        parsers = _parsers(str(path), args.repeat, clock)
        base = times["json.load"]
        print(f"== {events:,} events, {edges:,} edges, file {size / 1e6:.1f} MB ==")
        print(f"  json.load              {base:8.3f} s   1.00x  (floor)")
        for kind in ("validate", "metrics"):
            print(f"  {kind:<22} {times[kind]:8.3f} s   {times[kind] / base:.2f}x json.load")
        note = f" (extrapolated linearly from {sizes[-2]:,} events, not run)" if extrapolated else ""
        print(f"  jsonschema alone       {t_schema:8.3f} s   {t_schema / base:.2f}x json.load; "
              f"validate is {t_schema / times['validate']:.1f}x faster{note}")
        print("  peak memory / file size: " + ", ".join(f"{kind} {memory[kind]:.2f}x" for kind in KINDS))
        print("  parsing the same bytes (what the exact duplicate-key check costs):")
        for label, seconds in parsers.items():
            print(f"    {label:<46} {seconds:7.3f} s  ({seconds / base:.2f}x json.load)")
        exact = parsers["jiter catch_duplicate_keys (exact; used)"]
        print(f"  validate = exact parse {exact / base:.2f}x + typed checks and graph rules "
              f"{(times['validate'] - exact) / base:.2f}x; metrics add {(times['metrics'] - times['validate']) / base:.2f}x")
        print()
        sys.stdout.flush()
        last = (events, times, t_schema, memory)
    events, times, t_schema, memory = last
    base = times["json.load"]
    at = f" ({events:,} events)"
    return [
        ("validate <= 1.5x json.load" + at, times["validate"] / base, TARGETS["validate"], "<=", "x"),
        ("metrics <= 2x json.load" + at, times["metrics"] / base, TARGETS["metrics"], "<=", "x"),
        ("validate peak memory <= 4x file size", memory["validate"], TARGETS["memory"], "<=", "x"),
        ("metrics peak memory <= 4x file size", memory["metrics"], TARGETS["memory"], "<=", "x"),
        ("validate >= 5x faster than jsonschema alone", t_schema / times["validate"], TARGETS["jsonschema_speedup"], ">=", "x"),
    ]


def _load_batch(files: list[str]) -> int:
    for file in files:
        _json_load(file)
    return len(files)


def _summarize_all(files: list[str], workers: int) -> int:
    from masrl.trace.summarize import frame, parquet_bytes, run_local

    df, invalid = frame(run_local(files, {}, workers=workers))
    assert not invalid and len(df) == len(files)
    parquet_bytes(df)
    return len(df)


def many_traces(folder: Path, args) -> list:
    from concurrent.futures import ProcessPoolExecutor

    from masrl.trace.summarize import batches
    from masrl.trace.synth import swarm_for_events

    many = folder / "many"
    many.mkdir(exist_ok=True)
    base = swarm_for_events(args.many_events)
    files = []
    for k in range(args.many):
        base["trace_id"] = f"many-{k}"
        path = many / f"t{k:06d}.json"
        path.write_text(json.dumps(base), encoding="utf-8")
        files.append(str(path))
    size = sum(Path(f).stat().st_size for f in files)

    def loop_one():
        return _load_batch(files)

    def loop_pool():
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            return sum(pool.map(_load_batch, batches(files)))

    def summarize():
        return _summarize_all(files, args.workers)

    ways = {"json.load loop, 1 process": loop_one, f"json.load loop, {args.workers} processes": loop_pool,
            f"summarize, {args.workers} processes": summarize}
    best = {name: float("inf") for name in ways}
    for _ in range(args.repeat):
        for name, fn in ways.items():
            best[name] = min(best[name], _once(fn, time.perf_counter))
    print(f"== many traces: {args.many:,} files of {len(base['events'])} events, {size / 1e6:.1f} MB, wall clock ==")
    rate = {name: args.many / seconds for name, seconds in best.items()}
    for name, seconds in best.items():
        print(f"  {name:<34} {seconds:8.3f} s  {rate[name]:9.0f} files/s")
    one, pool, ours = (rate[name] for name in ways)
    print(f"  summarize throughput: {ours / one:.2f}x the 1-process loop, {ours / pool:.2f}x the {args.workers}-process loop")
    print()
    return [
        ("summarize >= 0.8x a bare json.load loop (1 process)", ours / one, TARGETS["many"], ">=", "x"),
        (f"summarize >= 0.8x a json.load loop on {args.workers} processes", ours / pool, TARGETS["many"], ">=", "x"),
    ]


if __name__ == "__main__":
    sys.exit(main())
