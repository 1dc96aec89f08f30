"""Benchmark of `masrl trace validate`, `metrics` and `summarize` against their floors (run by hand).

    .venv/bin/python scripts/bench_trace.py [--events 1000000] [--many 2000] [--many-events 100]
        [--rounds 5] [--clock cpu|wall] [--only validate,metrics,summarize,summarize-cli,profile,memory,jsonschema]
        [--keep DIR] [--markdown [FILE]]

Each figure is a pair: a measured command (A) and its floor (B), run alternately
A B A B ... for --rounds rounds, so that a change in the machine's load hits both
alike; the figure is the median of the per-round ratios A/B. Every line names the
exact command that was timed.

* validate: ``masrl trace validate FILE`` on a swarm trace of --events events
  (masrl.trace.synth.swarm_for_events, written by json.dump) against a bare
  ``json.load`` of the same file in a fresh interpreter. Target: <= 1.5x.
* metrics: ``masrl trace metrics FILE --format json`` (stdout to /dev/null), same
  floor. Target: <= 2x.
* summarize: the work of ``masrl trace summarize DIR --out F --no-report --workers 1``
  (expand_inputs, run_local, frame, parquet_bytes; in this process, after the
  imports) on --many files of --many-events events, against a plain loop of
  ``json.loads(path.read_bytes())`` over the same files; the ratio is the loop's
  time over summarize's (throughput). Target: >= 0.8x.
* summarize-cli: the whole command as a subprocess against the loop as a
  subprocess (start-up and imports included; for information, no target).
* profile: where summarize's time goes, per trace, on the same files: its work
  cut into stages (reading the files; msgspec's typed decoding; the proof that
  no key is repeated; gathering the columns; the rules and metrics in numpy;
  the rows, the frame and the Parquet), each the difference of two cumulative
  runs of one round (median over --rounds; so the stages need not add up to
  the median total exactly), against the json.loads loop.
* memory: tracemalloc peak of one validate / metrics run in a fresh process, as a
  multiple of the file size (target <= 4x).
* jsonschema: Draft202012Validator(trace.schema.json).is_valid on the parsed
  10,000-event trace against the in-process validate path (how much faster).

--markdown writes the figures into the benchmarks page (scripts/benchpage.py).

--clock cpu (default) is the CPU time (user + system) of the timed work: of the
child process for commands (getrusage of children), of this process for in-process
work. A shared machine's load disturbs it much less than the wall clock (--clock
wall). The many-traces work runs on one worker so that the CPU time is the
throughput's cost.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchpage  # scripts/ is on sys.path when a script runs

TARGETS = {"validate": ("<=", 1.5), "metrics": ("<=", 2.0), "summarize": (">=", 0.8), "memory": ("<=", 4.0),
           "jsonschema": (">=", 5.0)}
MASRL = [str(Path(sys.executable).with_name("masrl"))]
JSON_LOAD = "import json, sys; json.load(open(sys.argv[1], encoding='utf-8'))"
LOOP = ("import json, sys; from pathlib import Path\n"
        "for p in sorted(Path(sys.argv[1]).glob('*.json')): json.loads(p.read_bytes())")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_command(argv: list[str], clock: str) -> float:
    """Seconds of one run of ``argv`` (a subprocess, output discarded); raises if it fails."""
    before_cpu, before_wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall, cpu = time.perf_counter() - before_wall, _children_cpu() - before_cpu
    if done.returncode:
        raise SystemExit(f"{shlex.join(argv)} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return cpu if clock == "cpu" else wall


def run_inprocess(fn, clock: str) -> float:
    """Seconds of one call of ``fn`` in this process (a full collection first)."""
    gc.collect()
    timer = time.process_time if clock == "cpu" else time.perf_counter
    start = timer()
    result = fn()
    elapsed = timer() - start
    del result
    return elapsed


def alternate(a, b, rounds: int) -> tuple[list[float], list[float]]:
    """Time ``a`` and ``b`` alternately (A B A B ...); one warm-up of each first (file cache)."""
    a(), b()
    times_a, times_b = [], []
    for _ in range(rounds):
        times_a.append(a())
        times_b.append(b())
    return times_a, times_b


#: The figures of this run, for --markdown: [figure, what, A, B, ratio, target, verdict].
FIGURES: list[list[str]] = []


def report(name: str, what: str, cmd_a: str, cmd_b: str, times_a, times_b, invert: bool = False) -> float:
    """Print one figure with its two commands; returns the median ratio."""
    ratios = [(b / a) if invert else (a / b) for a, b in zip(times_a, times_b)]
    median = statistics.median(ratios)
    op, target = TARGETS.get(name, (None, None))
    verdict = ""
    if op:
        met = median <= target if op == "<=" else median >= target
        verdict = f"  (target {op} {target}x: {'met' if met else 'MISSED'})"
    FIGURES.append([name, what, f"{statistics.median(times_a):.3f} s", f"{statistics.median(times_b):.3f} s",
                    f"{median:.2f}x" + (" (B/A)" if invert else ""), f"{op} {target}x" if op else "",
                    ("met" if met else "**missed**") if op else ""])
    print(f"{name}: {what}")
    print(f"  A  {cmd_a}")
    print(f"     median {statistics.median(times_a):.3f} s; runs " + " ".join(f"{t:.3f}" for t in times_a))
    print(f"  B  {cmd_b}")
    print(f"     median {statistics.median(times_b):.3f} s; runs " + " ".join(f"{t:.3f}" for t in times_b))
    how = "B/A (throughput of A relative to B)" if invert else "A/B"
    print(f"  {how} per round: " + " ".join(f"{r:.2f}" for r in ratios))
    print(f"  => median {median:.2f}x{verdict}")
    print()
    sys.stdout.flush()
    return median


def write_trace(folder: Path, events: int) -> Path:
    from masrl.trace.synth import swarm_for_events

    path = folder / f"swarm_{events}.json"
    if not path.exists():
        with open(path, "w", encoding="utf-8") as f:
            json.dump(swarm_for_events(events), f)
    return path


def write_many(folder: Path, count: int, events: int) -> Path:
    from masrl.trace.synth import swarm_for_events

    many = folder / f"many_{count}x{events}"
    many.mkdir(exist_ok=True)
    base = swarm_for_events(events)
    for k in range(count):
        path = many / f"t{k:06d}.json"
        if not path.exists():
            base["trace_id"] = f"many-{k}"
            base["labels"] = {"run": "bench", "step": k // 100, "policy": "ab"[k % 2]}
            path.write_text(json.dumps(base), encoding="utf-8")
    return many


def bench_command(name: str, what: str, argv_a: list[str], argv_b: list[str], args) -> float:
    times_a, times_b = alternate(lambda: run_command(argv_a, args.clock), lambda: run_command(argv_b, args.clock),
                                 args.rounds)
    return report(name, what, shlex.join(argv_a), shlex.join(argv_b), times_a, times_b)


def bench_summarize(many: Path, args) -> float:
    from masrl.trace.summarize import expand_inputs, frame, parquet_bytes, run_local

    files, problems = expand_inputs([str(many)])
    assert not problems and len(files) == args.many, problems

    def summarize():
        df, invalid = frame(run_local(files, {}, workers=1))
        assert not invalid and len(df) == len(files), invalid[:2]
        return parquet_bytes(df)

    def loop():
        for path in sorted(many.glob("*.json")):
            json.loads(path.read_bytes())

    times_a, times_b = alternate(lambda: run_inprocess(summarize, args.clock), lambda: run_inprocess(loop, args.clock),
                                 args.rounds)
    cmd_a = (f"in process, after the imports: the work of masrl trace summarize {many} --out F --no-report "
             "--workers 1 (expand_inputs, run_local(workers=1), frame, parquet_bytes)")
    cmd_b = f"in process: for p in sorted(Path({str(many)!r}).glob('*.json')): json.loads(p.read_bytes())"
    what = f"{args.many:,} traces of {args.many_events} events, throughput, {args.clock} time"
    return report("summarize", what, cmd_a, cmd_b, times_a, times_b, invert=True)


def bench_profile(many: Path, args) -> list[tuple[str, float]]:
    """Where summarize's time goes, per trace: each stage timed as the difference of two cumulative runs."""
    import msgspec

    from masrl.trace import batch
    from masrl.trace.summarize import expand_inputs, frame, parquet_bytes, run_local

    files, _problems = expand_inputs([str(many)])
    size = 64

    def read():
        for name in files:
            with open(name, "rb") as handle:
                handle.read()

    def decoded(proof: bool, gather: bool):
        def run():
            decode = batch._decode if proof else batch._DECODE
            for k in range(0, len(files), size):
                columns = batch._Columns()
                for name in files[k:k + size]:
                    with open(name, "rb") as handle:
                        doc = decode(handle.read())
                    if gather:
                        columns.add(*doc)
                    elif proof:  # the events' fields as tuples, and their keys and texts counted
                        fields = list(zip(*map(msgspec.structs.astuple, doc[0].events)))
                        batch._strings(doc[0], fields, len(doc[0].events))
                    del doc
                if gather:
                    columns.arrays()
        return run

    def items():
        for k in range(0, len(files), size):
            chunk = []
            for name in files[k:k + size]:
                with open(name, "rb") as handle:
                    chunk.append((name, 0, name, handle.read()))
            batch.summarize_items(chunk, {})

    def whole():
        df, _invalid = frame(run_local(files, {}, workers=1))
        return parquet_bytes(df)

    def loop():
        for path in sorted(many.glob("*.json")):
            json.loads(path.read_bytes())

    runs = {"read": read, "decode": decoded(False, False), "proof": decoded(True, False), "gather": decoded(True, True),
            "measure": items, "whole": whole, "loop": loop}
    times: dict[str, list[float]] = {name: [] for name in runs}
    for fn in runs.values():
        fn()  # warm-up (file cache)
    for _ in range(args.rounds):
        for name, fn in runs.items():
            gc.disable()
            try:
                times[name].append(run_inprocess(fn, args.clock))
            finally:
                gc.enable()
    per = 1e6 / len(files)
    med = {name: statistics.median(values) * per for name, values in times.items()}

    def stage(name: str, before: str | None) -> float:
        """The median over rounds of the difference of two cumulative runs of one round (µs per trace)."""
        if before is None:
            return med[name]
        return statistics.median(a - b for a, b in zip(times[name], times[before])) * per

    stages = [
        ("reading the files", stage("read", None)),
        ("msgspec: typed decoding (every schema rule, in C)", stage("decode", "read")),
        ("proof that no key is repeated (the text's '\"' and the trace's strings counted; the events' fields as tuples)",
         stage("proof", "decode")),
        ("gathering the columns (names and ids coded, sums, C-level passes per field)", stage("gather", "proof")),
        ("rules and metrics on the columns (numpy), the rows", stage("measure", "gather")),
        ("files into batches, the frame, the Parquet", stage("whole", "measure")),
    ]
    loop_us, whole_us = med["loop"], med["whole"]
    print(f"profile: where summarize's time goes, per trace ({len(files):,} traces of {args.many_events} events, "
          f"{args.clock} time, median of {args.rounds})")
    for what, us in stages:
        print(f"  {us:7.1f} us  {us / whole_us:5.1%}  {what}")
    print(f"  {whole_us:7.1f} us  total (the summarize figure's A); the json.loads loop: {loop_us:.1f} us per trace "
          f"(of which reading {med['read']:.1f} us)")
    floor = med["gather"]
    print(f"  decoding, the proof and the columns alone: {floor:.1f} us = {loop_us / floor:.2f}x the loop's throughput; "
          f"without gathering the columns: {loop_us / med['proof']:.2f}x")
    print()
    for what, us in stages:
        FIGURES.append([f"profile: {what}", "per trace", f"{us:.1f} µs", "", f"{us / whole_us:.0%} of summarize", "", ""])
    FIGURES.append(["profile: summarize, total", "per trace", f"{whole_us:.1f} µs", f"{loop_us:.1f} µs",
                    f"{loop_us / whole_us:.2f}x (B/A)", "", ""])
    return stages


def bench_summarize_cli(many: Path, folder: Path, args) -> float:
    out = folder / "bench.parquet"
    argv_a = [*MASRL, "trace", "summarize", str(many), "--out", str(out), "--no-report", "--workers", "1", "--force"]
    argv_b = [sys.executable, "-c", LOOP, str(many)]
    times_a, times_b = alternate(lambda: run_command(argv_a, args.clock), lambda: run_command(argv_b, args.clock),
                                 args.rounds)
    what = (f"{args.many:,} traces of {args.many_events} events, whole processes (start-up and imports included), "
            f"throughput, {args.clock} time; for information")
    return report("summarize-cli", what, shlex.join(argv_a), shlex.join(argv_b), times_a, times_b, invert=True)


def measure_memory(kind: str, path: str) -> None:
    """Child process: print the tracemalloc peak (bytes) of one in-process run of ``kind``."""
    import tracemalloc

    from masrl.trace.metrics import metrics_from_checker
    from masrl.trace.validate import check_bytes, read_file, validate_file

    tracemalloc.start()
    if kind == "validate":
        assert not validate_file(path)
    else:
        checker, _tree, problems = check_bytes(read_file(path), path)
        assert not problems
        metrics_from_checker(checker)
    print(tracemalloc.get_traced_memory()[1])


def bench_memory(path: Path) -> list[float]:
    size = path.stat().st_size
    out = []
    for kind in ("validate", "metrics"):
        argv = [sys.executable, __file__, "--measure-memory", kind, str(path)]
        peak = int(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)
        print(f"memory: {kind}: tracemalloc peak {peak / 1e6:.0f} MB = {peak / size:.2f}x the file "
              f"({size / 1e6:.0f} MB) (target <= 4x: {'met' if peak / size <= 4 else 'MISSED'})")
        print(f"  {shlex.join(argv)}")
        out.append(peak / size)
        FIGURES.append([f"memory ({kind})", f"tracemalloc peak of one run, {size / 1e6:.0f} MB file", f"{peak / 1e6:.0f} MB",
                        "", f"{peak / size:.2f}x the file", "<= 4x", "met" if peak / size <= 4 else "**missed**"])
    print()
    return out


def bench_jsonschema(folder: Path, args) -> float:
    from masrl.trace.schema import jsonschema_validator
    from masrl.trace.validate import validate_file

    path = write_trace(folder, 10000)
    trace = json.loads(path.read_bytes())
    validator = jsonschema_validator()
    times_a, times_b = alternate(lambda: run_inprocess(lambda: validator.is_valid(trace), args.clock),
                                 lambda: run_inprocess(lambda: validate_file(str(path)), args.clock), args.rounds)
    return report("jsonschema", "10,000 events: how many times faster validate is than jsonschema alone",
                  "in process: Draft202012Validator(trace.schema.json).is_valid(parsed trace)",
                  f"in process: masrl.trace.validate.validate_file({str(path)!r}) (bytes on disk to problems)",
                  times_a, times_b)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000, help="events of the single-file trace")
    parser.add_argument("--many", type=int, default=2000, help="files of the many-traces runs")
    parser.add_argument("--many-events", type=int, default=100, help="events per file of the many-traces runs")
    parser.add_argument("--rounds", type=int, default=5, help="A B rounds per figure (the median ratio is reported)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="cpu (default) or wall time")
    parser.add_argument("--only", default="validate,metrics,summarize,summarize-cli,profile,memory,jsonschema",
                        help="comma-separated figures to measure")
    parser.add_argument("--keep", metavar="DIR", help="write the traces here (and reuse them) instead of a temporary folder")
    parser.add_argument("--measure-memory", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    benchpage.add_option(parser)
    args = parser.parse_args(argv)
    if args.measure_memory:
        measure_memory(*args.measure_memory)
        return 0
    if args.keep:
        folder = Path(args.keep)
        folder.mkdir(parents=True, exist_ok=True)
        return run(folder, args)
    with tempfile.TemporaryDirectory(prefix="masrl-bench-") as tmp:
        return run(Path(tmp), args)


def run(folder: Path, args) -> int:
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    load = benchpage.load_average()
    print(f"masrl trace benchmark; python {sys.version.split()[0]}; cpus {os.cpu_count()}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; clock: {args.clock}; {args.rounds} rounds A B A B")
    print()
    if only & {"validate", "metrics", "memory"}:
        path = write_trace(folder, args.events)
        size = f"{args.events:,} events, {path.stat().st_size / 1e6:.0f} MB, {args.clock} time"
        floor = [sys.executable, "-c", JSON_LOAD, str(path)]
        if "validate" in only:
            bench_command("validate", size, [*MASRL, "trace", "validate", str(path)], floor, args)
        if "metrics" in only:
            bench_command("metrics", size, [*MASRL, "trace", "metrics", str(path), "--format", "json"], floor, args)
        if "memory" in only:
            bench_memory(path)
    if only & {"summarize", "summarize-cli", "profile"}:
        many = write_many(folder, args.many, args.many_events)
        if "summarize" in only:
            bench_summarize(many, args)
        if "summarize-cli" in only:
            bench_summarize_cli(many, folder, args)
        if "profile" in only:
            bench_profile(many, args)
    if "jsonschema" in only:
        bench_jsonschema(folder, args)
    if args.markdown:
        write_page(args, load)
    return 0


def write_page(args, load) -> None:
    """This run's figures as the traces section of the benchmarks page."""
    benchpage.write(args.markdown, benchpage.Section(
        area="traces", script="bench_trace", title="Validating, measuring and summarising traces",
        summary=("Each figure is a pair, a measured command (A) and its floor (B), run alternately A B A B ... "
                 f"for {args.rounds} rounds, so that a change in the machine's load hits both alike; the figure is the "
                 f"median of the per-round ratios. Time is {args.clock} time (`--clock`). `validate` and `metrics` "
                 f"read a swarm trace of {args.events:,} events against a bare `json.load` of it in a fresh "
                 f"interpreter; `summarize` is the work of `masrl trace summarize DIR --out F --no-report --workers 1` "
                 f"on {args.many:,} files of {args.many_events} events, in process after the imports, against a loop of "
                 "`json.loads(path.read_bytes())` over the same files (throughput: B/A); `profile` cuts that work "
                 "into stages, per trace."),
        columns=["figure", "what", "A", "B", "ratio", "target", "verdict"],
        rows=FIGURES,
        notes=["The commands A and B of each figure, and the per-round ratios, are printed by the script."],
        command=benchpage.command_line("bench_trace"), load_before=load))


if __name__ == "__main__":
    sys.exit(main())
