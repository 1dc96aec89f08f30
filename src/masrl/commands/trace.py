"""``masrl trace`` subcommands: validate, metrics, convert, summarize (argument parsing only).

Handlers import the trace modules lazily so that ``masrl --help`` stays fast.
Problems go to stderr, sorted, then one closing line; exit code 1 on any problem.
"""

from __future__ import annotations

import argparse
import sys

from ..core.text import json_printable, printable

TRACE_DESCRIPTION = """\
Orchestration traces: temporal event graphs of orchestrator decisions, spawns,
messages, tool calls, returns, aggregations and stops (the survey's trace schema
plus masrl's extensions, published as trace.schema.json, JSON Schema 2020-12)."""

TRACE_EPILOG = """\
examples:
  masrl trace validate run1.json run2.json
  masrl trace metrics run1.json --format json
  masrl trace convert --from otel spans.json -o run1.json
  masrl trace summarize runs/ --out run.parquet --by policy"""


def _wrap(text: str) -> str:
    """A description for a raw formatter (kept for the examples' layout), wrapped as argparse would."""
    import textwrap

    return textwrap.fill(text, 88)


def _write_stdout(text: str) -> None:
    """Write ``text`` to stdout completely. A pipe closed while a large write is under way
    makes the OS accept only part of it without an error; writing the rest then raises
    BrokenPipeError, which the CLI turns into exit code 141 (a plain ``write`` would drop
    the rest and exit 0)."""
    sys.stdout.flush()
    out = sys.stdout.buffer
    view = memoryview(text.encode(sys.stdout.encoding or "utf-8", sys.stdout.errors or "strict"))
    while view:
        written = out.write(view)
        view = view[written if written is not None else len(view):]
    out.flush()


def _missing(files: list[str]) -> None:
    """Refuse, naming every one at once, the paths that are no trace file to read: missing, a link to
    nothing or a loop of links, a folder or another kind of file."""
    import os
    import stat

    from ..core.errors import Problem, UserError, summary

    problems = []
    for name in files:
        try:
            mode = os.stat(name).st_mode
        except OSError as err:
            why = "no such file" if not os.path.lexists(name) else (
                f"a link to nothing or a loop of links ({err.strerror or err})")
            problems.append(Problem(name, None, None, why))
            continue
        if stat.S_ISDIR(mode):
            problems.append(Problem(name, None, None, "a folder, not a file (`masrl trace summarize` reads folders)"))
        elif not stat.S_ISREG(mode):
            problems.append(Problem(name, None, None, "not a regular file (a trace is a .json or .jsonl file)"))
    if len(problems) == 1:
        raise UserError(f"{problems[0].file}: {problems[0].message}")
    if problems:
        raise UserError(summary(problems, "nothing was read."), problems)


def _print_problems(problems, tail: str) -> None:
    from ..core.errors import summary

    for problem in problems:
        print(printable(str(problem)), file=sys.stderr)
    print(summary(problems, tail), file=sys.stderr)


def _not_a_trace(path: str, data: bytes, checker, found: list):
    """One problem instead of the schema's list when the file is a JSON object without events and
    edges that no converter reads either (an export in a format masrl reads names itself already)."""
    from ..core.errors import Problem

    if not found or checker is None or checker.not_object or {"events", "edges"} & checker.present:
        return found
    if len(found) == 1 and "export in the" in found[0].message:
        return found
    import json

    from ..trace.formats import json_shape, not_a_format

    try:
        shape = json_shape([json.loads(data)])
    except (ValueError, RecursionError):
        return found
    message = not_a_format(path, shape, trace_too=True)
    return [Problem(path, None, None, message[len(path) + 2:])]


def _cmd_validate(args: argparse.Namespace) -> int:
    from ..trace.validate import sort_problems

    problems = []
    bad = traces = 0
    read = _traces(args.files)
    for path, line, data in read:
        checker, _tree, found = _checked(data, path, line)
        found = found if line else _not_a_trace(path, data, checker, found)
        bad += bool(found)
        traces += 1
        problems.extend(found)
    n = len({path for path, _line, _data in read})
    what = f"{n} file{'s' if n != 1 else ''}" if traces == n else f"{traces} trace{'s' if traces != 1 else ''}"
    if problems:
        _print_problems(sort_problems(problems), f"{traces - bad} of {what} valid.")
        return 1
    print(f"{n} trace file{'s' if n != 1 else ''} valid" if traces == n else f"{what} in {n} file{'s' if n != 1 else ''} valid")
    return 0


def _checked(data: bytes, path: str, line: int | None):
    """:func:`masrl.trace.validate.check_bytes` of one trace; the problems of a JSON Lines file's trace name its line."""
    from dataclasses import replace

    from ..trace.validate import check_bytes

    checker, tree, found = check_bytes(data, path)
    return checker, tree, [replace(p, line=line) for p in found] if line else found


def _traces(files: list[str]) -> list[tuple[str, int | None, bytes]]:
    """``(file, line, bytes)`` of every trace of ``files`` (each line of a ``.jsonl`` file is one; line None
    for a whole file; a file named twice, once); a file that is missing or holds no trace is refused, all at once."""
    from ..core.errors import Problem, UserError, summary
    from ..trace.validate import read_file, traces_in

    import os

    _missing(files)
    out, empty, seen = [], [], set()
    for path in files:
        if os.path.realpath(path) in seen:  # one file named twice (a.jsonl ./a.jsonl) is read once, as summarize does
            continue
        seen.add(os.path.realpath(path))
        found = traces_in(path, read_file(path))
        if not found:
            empty.append(Problem(path, None, None, "no trace in this file (a .jsonl file holds one trace per line)"))
        out.extend((path, line, data) for line, data in found)
    if len(empty) == 1:
        raise UserError(f"{empty[0].file}: {empty[0].message}")
    if empty:
        raise UserError(summary(empty, "nothing was read."), empty)
    return out


def _cmd_metrics(args: argparse.Namespace) -> int:
    import json

    from ..trace.metrics import metrics_from_checker
    from ..trace.report import metrics_markdown
    from ..trace.validate import sort_problems

    problems = []
    results = {}
    for path, line, data in _traces(args.files):
        checker, _tree, found = _checked(data, path, line)
        path = f"{path}:{line}" if line else path
        if found:
            problems.extend(found)
        else:
            results[path] = metrics_from_checker(checker)
    if problems:
        _print_problems(sort_problems(problems), "no metrics were printed.")
        return 1
    if args.format == "json":
        _write_stdout(json_printable(json.dumps(results, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)) + "\n")
    else:
        _write_stdout(metrics_markdown(results))
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from ..core.errors import UsageError, UserError
    from ..trace.convert import CONVERTERS, ConvertError, convert
    from ..trace.validate import read_file, validate_bytes

    if args.formats:
        for c in CONVERTERS.values():
            print(f"{c.name:<14} {c.reads}")
        return 0
    if not args.file:
        raise UsageError("trace convert: give FILE (or --formats to list the formats)")
    _missing([args.file])
    if args.output:
        _check_outputs([args.output], [args.file], args.force)
    data = read_file(args.file)
    try:
        result = convert(data, args.file, args.source, trace_id=args.trace_id)
    except ConvertError as err:
        raise UserError(_unknown_format(data, args.file, err) if args.source is None else str(err)) from None
    for note in result.notes:
        print(printable(f"{args.file}: {note}"), file=sys.stderr)
    text = json.dumps(result.trace, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    out_name = args.output or "<converted trace>"
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise UserError(f"{args.file}: a string holds a lone surrogate escape (\\u{ord(err.object[err.start]):04x}), "
                        "which is not Unicode text; fix the export (nothing was written)") from None
    _trace, problems = validate_bytes(data, out_name)
    if problems:
        _print_problems(problems, "the converted trace is not valid; nothing was written.")
        return 1
    if args.output:
        from ..build.write import sync

        out = Path(args.output)
        sync(out.parent, {out.name: data})
    else:
        _write_stdout(json_printable(text))
    return 0


def _unknown_format(data: bytes, file: str, err: Exception) -> str:
    """When no converter detects the file: what it is and every format tried, in one line
    (:func:`masrl.trace.formats.not_a_format`); else the converter's message ``err`` (not JSON,
    already a trace, a detected format's own error)."""
    from ..trace.convert import CONVERTERS, ConvertError
    from ..trace.convert.common import read_json_values
    from ..trace.formats import json_shape, not_a_format

    try:
        values = read_json_values(data, file)
    except (ConvertError, RecursionError):
        return str(err)
    first = values[0] if values else None
    if not values or (isinstance(first, dict) and "events" in first and "edges" in first) \
            or any(c.detect(values) for c in CONVERTERS.values()):
        return str(err)
    return not_a_format(file, json_shape(values), trace_too=False)


def _positive(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _same_file(a, b) -> bool:
    """Whether two paths name one file: the same resolved path (symbolic links followed), or,
    when both exist, the same inode (a hard link)."""
    import os

    try:
        if a.resolve() == b.resolve():
            return True
    except (OSError, RuntimeError):  # a loop of symbolic links (refused by _check_outputs)
        return os.path.abspath(a) == os.path.abspath(b)
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _file_in_the_way(folder):
    """The nearest existing ancestor of ``folder`` (itself included) when it is not a folder, else
    None: the output's missing folders could not be created there."""
    for candidate in (folder, *folder.parents):
        if candidate.is_symlink() or candidate.exists():
            return None if candidate.is_dir() else candidate
    return None


def _check_outputs(outputs: list, inputs: list, force: bool) -> None:
    """Refuse, before anything is written, output paths that name no file (``''``, ``/``, ``x/..``),
    loop through symbolic links, would overwrite an input, a survey record (a ``*.yaml`` under
    ``corpus/`` or ``exclusions/``, in any case), a folder, a symbolic link (the writer writes only
    regular files), an existing file without ``--force``, or another output of the same run, and
    paths under a file where a folder would have to be (all problems at once). Paths are compared
    as files: symbolic links resolved, hard links by inode. Missing folders of an output are created.

    Raises:
        UserError: naming every refused path and why.
    """
    from pathlib import Path

    from ..core.errors import UserError

    given = [Path(p) for p in inputs]
    problems = []
    seen: list = []
    for out in outputs:
        path = Path(out)
        if path.name in ("", ".", "..") or str(out).endswith(("/", "/.", "/..")):
            problems.append(f"{str(out)!r}: does not name a file")
            continue
        try:
            full = path.resolve()
        except (OSError, RuntimeError) as err:  # a loop of symbolic links
            problems.append(f"{out}: cannot be written: {err}")
            continue
        twin = next((str(other) for other in seen if _same_file(path, other)), None)
        seen.append(path)
        blocker = _file_in_the_way(path.parent)
        if twin is not None:
            problems.append(f"{out}: is the same file as the output {twin}; give each output its own file")
        elif any(_same_file(path, p) for p in given):
            problems.append(f"{out}: is an input of this command; write the output elsewhere")
        elif full.suffix.lower() in (".yaml", ".yml") and {"corpus", "exclusions"} & set(full.parts):
            problems.append(f"{out}: is a survey record file; write the output elsewhere")
        elif (part := _survey_part(full)) is not None:
            problems.append(f"{out}: is {part} of the survey; write the output elsewhere")
        elif path.is_symlink():
            problems.append(f"{out}: is a symbolic link; masrl writes only regular files: name another path (or "
                            "remove the link)")
        elif path.is_dir():
            problems.append(f"{out}: is a folder; name a file")
        elif blocker is not None:
            problems.append(f"{out}: cannot be written: {blocker} is a file, not a folder")
        elif path.exists() and not force:
            problems.append(f"{out}: exists already; add --force to replace it")
    if problems:
        raise UserError("nothing was written: " + "; ".join(problems))


#: What each top-level part of a survey holds (:func:`_survey_part`).
_SURVEY_PARTS = {"corpus": "in corpus/ (the records, the rounds' sheets)", "exclusions": "in exclusions/ (the exclusion log)",
                 "reports": "in reports/ (what masrl build writes)", "README.md": "the README"}


def _survey_part(full) -> str | None:
    """What a file of a survey (a folder above it holds ``corpus/taxonomy.yaml``) is, when it is one of the
    survey's own (its records, sheets, reports or README: no trace output may replace it); None otherwise."""
    for root in full.parents:
        if (root / "corpus" / "taxonomy.yaml").is_file():
            rel = full.relative_to(root).parts
            return _SURVEY_PARTS.get(rel[0]) if rel else None
    return None


def _parse_labels(items: list[str]) -> dict:
    from ..core.errors import UserError
    from ..core.text import ascii_digits
    from ..trace.summarize import MAX_SUMMARY

    labels, problems = {}, []
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            problems.append(f"--label {item!r}: expected KEY=VALUE, e.g. --label step=120")
            continue
        key = key.strip()
        if key == "step":
            try:
                number = int(value) if ascii_digits(value.strip().lstrip("-")) else float(value)
            except ValueError:
                number = None
            if number is not None:
                if not (number == number and -MAX_SUMMARY <= number <= MAX_SUMMARY):
                    problems.append(f"--label {item!r}: a numeric step is a finite number within ±2**53 (such as 120)")
                labels[key] = number
                continue
        labels[key] = value
    if problems:
        raise UserError("; ".join(problems))
    return labels


def _progress_bar(total: int, quiet: bool):
    """A tqdm bar on a terminal (stderr), else None."""
    if quiet or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="file", file=sys.stderr, desc="summarize")


def _cmd_summarize(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..build.write import sync
    from ..core.errors import UserError
    from ..trace.summarize import (
        expand_inputs,
        frame,
        parquet_bytes,
        run_dask,
        run_local,
    )
    from ..trace.summary_report import figures_png, report_markdown

    labels = _parse_labels(args.label)
    files, problems = expand_inputs(args.paths)
    if len(problems) > 1:  # each on its own line, then one closing line
        for line in problems:
            print(printable(line), file=sys.stderr)
        raise UserError(f"{len(problems)} inputs cannot be read; nothing was summarised")
    if problems:
        raise UserError(problems[0])
    named = [f"{flag} {given!r}: does not name a file" for flag, given in (("--out", args.out), ("--report", args.report))
             if given is not None and (Path(given).name in ("", ".", "..") or given.endswith(("/", "/.", "/..")))]
    if named:
        raise UserError("; ".join(named))
    out = Path(args.out)
    report = None if args.no_report else Path(args.report) if args.report is not None else out.with_suffix(".md")
    if report is not None and args.report is None and out.suffix.lower() == ".md":
        raise UserError(f"--out {args.out}: the Markdown report is written beside the Parquet file, as --out with .md, "
                        "which is this same path; give --out the .parquet suffix, or --report another file (or --no-report)")
    # the two outputs named on the command line are checked before any trace is read (the figures'
    # paths, known once the traces are, with every output again before writing)
    _check_outputs([out, *([report] if report else [])], files, args.force)
    given_by = args.by
    bar = _progress_bar(len(files), getattr(args, "quiet", False))
    step = bar.update if bar is not None else None
    try:
        if args.dask or args.scheduler:
            results = run_dask(files, labels, args.scheduler, progress=step)
        else:
            results = run_local(files, labels, workers=args.workers, progress=step)
    finally:
        if bar is not None:
            bar.close()
    df, invalid = frame(results)
    if invalid and not len(df):  # nothing to summarise: no file of empty columns, the problems are the answer
        for name, found in invalid:
            for line in found:
                print(printable(line), file=sys.stderr)
        n = len(invalid)
        raise UserError(f"no trace to summarise: {n} trace{'s' if n != 1 else ''} skipped, each for the reason above; "
                        "nothing was written")
    if args.by:  # a label's name (its column: label_<name>, but run, step and policy), or its column's name
        names = [args.by] if args.by in ("run", "step", "policy") else [f"label_{args.by}", args.by]
        args.by = next((n for n in names if n in df.columns and (n in ("run", "step", "policy") or n.startswith("label_"))),
                       None)
        if args.by is None:
            found = [c.removeprefix("label_") for c in df.columns if c in ("run", "step", "policy") or c.startswith("label_")]
            raise UserError(f"--by {given_by}: no trace has this label; labels found: {', '.join(found) or 'none'}")
    outputs = [(out, parquet_bytes(df))]  # a list: two outputs on one path must both be seen
    if report is not None:
        folder = report.with_name(report.stem + ".figures")
        links = {}
        for name, data in ({} if args.no_figures else figures_png(df, args.by)).items():
            outputs.append((folder / f"{name}.png", data))
            links[name] = f"{folder.name}/{name}.png"
        text = report_markdown(df, invalid, title=out.name, figures=links, by=args.by, sources=len(files))
        outputs.append((report, text.encode("utf-8", "backslashreplace")))  # a skipped file's name may not be UTF-8
    _check_outputs([path for path, _data in outputs], files, args.force)
    for path, data in outputs:
        sync(path.parent, {path.name: data})
    for name, found in invalid:
        for line in found:
            print(printable(line), file=sys.stderr)
    tail = f"; {len(invalid)} trace{'s' if len(invalid) != 1 else ''} skipped (why: above)" if invalid else ""
    print(printable(f"{len(df)} trace{'s' if len(df) != 1 else ''} from {len(files)} file{'s' if len(files) != 1 else ''} "
                    f"summarised into {out}{tail}"), file=sys.stderr if invalid else sys.stdout)
    return 1 if invalid else 0


def register(subparsers) -> None:
    """Add the ``trace`` command group (validate, metrics, convert, summarize) to the main parser."""
    trace = subparsers.add_parser(
        "trace",
        help="orchestration traces: validate, metrics, convert, summarize (many traces to Parquet)",
        description=TRACE_DESCRIPTION,
        epilog=TRACE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = trace.add_subparsers(dest="trace_command", metavar="SUBCOMMAND")
    sub.required = True

    p = sub.add_parser(
        "validate",
        help="check trace files against the schema and the graph rules",
        description=_wrap("Check each FILE: UTF-8 JSON without duplicate keys, NaN or Infinity; the "
        "trace schema (required fields, types, enums); unique event ids; edges between existing "
        "events, never backwards in time; no cycle of spawn/causal/return edges; agents act only "
        "while spawned; a return goes to an agent that spawned it or messaged/delegated to it. "
        "Prints every error as FILE: JSON-PATH: MESSAGE (sorted) and exits 1 if there is any. "
        "An export that `masrl trace convert` reads (OpenInference, OpenTelemetry, Langfuse, Agents SDK, MLflow, "
        "a message log) gets one line saying to convert it first."),
        epilog="examples:\n  masrl trace validate run1.json\n  masrl trace validate runs/*.json\n"
        "  masrl trace convert spans.otlp.json -o run1.json && masrl trace validate run1.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="trace file (JSON; a .jsonl file holds one trace per line)")
    p.set_defaults(run=_cmd_validate)

    p = sub.add_parser(
        "metrics",
        help="replay metrics: critical path, parallelism, fan-out, overhead, reward, cost",
        description=_wrap("Validate each FILE, then recompute its metrics from the event graph: "
        "critical path (steps and time), parallelism, peak concurrent agents, spawn fan-out and "
        "depth, counts per event type and sub-decision O1-O5, protocol overhead, tool calls, "
        "tokens, reward per channel and per credit unit, tokens per unit of reward. "
        "Definitions: docs/traces.md. Invalid files: errors on stderr, exit 1, nothing printed."),
        epilog="examples:\n  masrl trace metrics run1.json\n  masrl trace metrics src/masrl/trace/examples/*.json\n"
        "  masrl trace metrics run1.json --format json > run1.metrics.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="trace file (JSON; a .jsonl file holds one trace per line)")
    p.add_argument(
        "--format",
        choices=("md", "json"),
        default="md",
        help="md (default): a Markdown table and details; json: {FILE: metrics}, sorted keys",
    )
    p.set_defaults(run=_cmd_metrics)

    from ..trace.formats import FORMATS

    formats = "; ".join(f"{name}: {reads}" for name, reads, _module in FORMATS)
    p = sub.add_parser(
        "convert",
        help="convert OpenInference, OpenTelemetry, Langfuse, Agents SDK, MLflow exports or message logs into a trace",
        description=_wrap("Convert an export of agent spans, or a multi-agent message log, into an orchestration "
        "trace, validate it and write it (stdout, or -o OUT). The format is detected unless --from is given. The "
        "application (a service, a trace or workflow name) is not an agent: a run's top agent is its root agent, "
        "never spawned, and its end is a stop. Every assumption and repair (clock skew, unended spans, orphan spans, "
        "merged invocations, old attribute names, tokens of spans without an event, labels that disagree) is "
        f"printed on stderr. Formats: {formats}."),
        epilog="examples:\n  masrl trace convert spans.otlp.json -o run1.json\n"
        "  masrl trace convert --from langfuse trace.json -o run1.json\n"
        "  masrl trace convert phoenix-spans.json -o run1.json\n"
        "  masrl trace convert --from message-log whoandwhen-12.json -o run12.json\n  masrl trace convert --formats",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--from", dest="source", choices=tuple(name for name, _r, _m in FORMATS),
                   help="input format (default: detected)")
    p.add_argument("file", metavar="FILE", nargs="?", help="the export to convert")
    p.add_argument("-o", "--output", metavar="OUT", help="write the trace here instead of stdout (a new file; --force replaces one)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists (never FILE itself or a record)")
    p.add_argument("--trace-id", metavar="ID", help="the trace to convert when FILE holds several")
    p.add_argument("--formats", action="store_true", help="list the formats and exit")
    p.set_defaults(run=_cmd_convert)

    p = sub.add_parser(
        "summarize",
        help="one row per trace (metrics, O1-O5, labels) to Parquet, plus a Markdown report",
        description=_wrap("Validate and measure every trace in PATH... (files, folders, globs, .jsonl files with one "
        "trace per line) and write one row per trace to a Parquet file: the metrics of `masrl trace metrics` "
        "(critical path, parallelism, O1-O5 decision counts, cost, rewards per credit unit) and the labels "
        "run/step/policy from each trace's `labels` or --label. Invalid traces are listed on stderr and skipped "
        "(exit 1, the Parquet is still written), and so are valid ones that cannot be summarised (a lone "
        "surrogate in a text, a number beyond 2**53). The Parquet file and the report must be different files. Also writes a Markdown report with figures (distributions; "
        "trends when traces have a numeric step label; groups side by side with --by). Runs on every local core; "
        "--dask or --scheduler run the same code on a Dask cluster (extra masrl[dask])."),
        epilog="examples:\n  masrl trace summarize runs/ --out run.parquet\n"
        "  masrl trace summarize 'runs/**/*.jsonl' --out run.parquet --by policy --label run=exp7\n"
        "  masrl trace summarize runs/ --out run.parquet --scheduler tcp://10.0.0.5:8786",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="trace file, folder, glob, or .jsonl file")
    p.add_argument("--out", required=True, metavar="FILE.parquet", help="the Parquet file to write")
    p.add_argument("--report", metavar="FILE.md", help="the Markdown report (default: --out with .md; figures in NAME.figures/)")
    p.add_argument("--no-report", action="store_true", help="write only the Parquet file")
    p.add_argument("--no-figures", action="store_true",
                   help="write the report without its figures (faster; its tables are the same)")
    p.add_argument("--label", action="append", metavar="KEY=VALUE", help="a label for every trace (repeatable; overrides the trace's own)")
    p.add_argument("--by", metavar="LABEL", help="compare groups of this label side by side (e.g. policy)")
    p.add_argument("--force", action="store_true", help="replace existing output files (never an input or a record)")
    p.add_argument("--workers", type=_positive, metavar="N", help="local worker processes, at least 1 (default: every core)")
    p.add_argument("--dask", action="store_true", help="run on a Dask LocalCluster (extra masrl[dask])")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS (tcp://host:8786)")
    p.set_defaults(run=_cmd_summarize)
