"""Run-level analytics: many trace files -> one row per trace (a pandas DataFrame).

Inputs (:func:`expand_inputs`): trace files, folders (every ``*.json`` and
``*.jsonl`` below them), glob patterns (``runs/**/*.json``) and JSON Lines files
with one trace per line. Each trace is validated (:func:`masrl.trace.validate.check_bytes`)
and measured (:func:`masrl.trace.metrics.metrics_from_checker`); an invalid trace
becomes a list of problems and no row.

The work is split into batches of files (:func:`batches`), and
:func:`summarize_batch` (a pure function of file names, labels and the files'
bytes; module-level so that it pickles) runs on each: in-process, on local
processes (:func:`run_local`) or on a Dask distributed cluster (:func:`run_dask`,
extra ``masrl[dask]``). The rows are then sorted by (file, line), so every way
of running gives the same frame and the same Parquet bytes.

Columns (:data:`COLUMNS` then labels): ``trace`` (``FILE`` or ``FILE:LINE``),
``file``, ``line`` (0 for a whole-file trace), ``trace_id``, ``task_id``,
``topology``, the counts and metrics of :func:`~masrl.trace.metrics.trace_metrics`
flattened (``decision_O1`` ... ``decision_O5``, ``decision_untagged``,
``events_<type>`` per event type, ``reward_<unit>`` per credit unit and
``reward_unmapped``), ``wall_clock_s`` (``costs.wall_clock_s``), then the labels:
``run``, ``step``, ``policy`` (always present, null when absent) and any other
label as ``label_<key>``. Labels come from the trace's ``labels`` object and are
overridden by ``--label key=value``.
"""

from __future__ import annotations

import glob
import json
import math
import os
import re
import stat
from pathlib import Path

from .schema import CREDIT_UNITS, DECISIONS, EVENT_TYPES

#: Metric columns of a row, in order (labels follow).
METRIC_COLUMNS: tuple[str, ...] = (
    "events", "edges", "agents", "critical_path_steps", "critical_path_time", "ignored_cycle_edges",
    "parallelism", "peak_concurrent_agents", "spawn_fanout_max", "spawn_fanout_mean", "spawn_depth",
    "protocol_overhead", "tool_calls", "messages", "tokens", "event_tokens", "event_cost",
    "event_duration_s", "wall_clock_s", "reward_total", "tokens_per_reward",
    *(f"decision_{d}" for d in (*DECISIONS, "untagged")),
    *(f"events_{t}" for t in EVENT_TYPES),
    *(f"reward_{u}" for u in (*CREDIT_UNITS, "unmapped")),
)
ID_COLUMNS: tuple[str, ...] = ("trace", "file", "line", "trace_id", "task_id", "topology")
LABELS: tuple[str, ...] = ("run", "step", "policy")
COLUMNS: tuple[str, ...] = ID_COLUMNS + METRIC_COLUMNS
#: Metric columns that are counts (int64 in the frame); the others are float64.
INT_COLUMNS = frozenset(
    c for c in METRIC_COLUMNS
    if c.startswith(("decision_", "events_")) or c in (
        "events", "edges", "agents", "critical_path_steps", "ignored_cycle_edges", "peak_concurrent_agents",
        "spawn_fanout_max", "spawn_depth", "tool_calls", "messages")
)

#: Files per batch (one task of a worker process or a Dask worker) when there are enough files for
#: every worker; fewer when that keeps each worker busy with :data:`TASKS_PER_WORKER` batches.
BATCH_FILES = 256
TASKS_PER_WORKER = 4
_GLOB_CHARS = frozenset("*?[")
_FOLDER = "a folder"


def expand_inputs(paths: list[str]) -> tuple[list[str], list[str]]:
    """Paths, folders and globs -> (sorted unique trace files, problems as lines).

    A folder contributes every ``*.json``/``*.jsonl`` file below it; a pattern with
    ``*``, ``?`` or ``[`` that is not an existing path is expanded (``**`` recurses).
    A file reached twice (named again, through a link, or spelled another way) is
    one file: the first of its names in sorted order stands for it.
    """
    found: dict[str, tuple[int, int]] = {}  # name -> the file it is (device, inode)
    problems: list[str] = []

    def take(name: str) -> str | None:
        """None when ``name`` is a file, taken; else why not (``_FOLDER`` for a folder)."""
        try:
            st = os.stat(name)
        except OSError as err:
            return "no such file or folder" if not os.path.lexists(name) else (
                f"a link to nothing or a loop of links ({err.strerror or err})")
        if stat.S_ISDIR(st.st_mode):
            return _FOLDER
        if not stat.S_ISREG(st.st_mode):
            return "not a file or folder (a trace is a .json or .jsonl file)"
        found.setdefault(name, (st.st_dev, st.st_ino))
        return None

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            taken, before = 0, len(problems)
            for p in sorted(path.rglob("*")):
                if p.suffix in (".json", ".jsonl"):
                    why = take(str(p))
                    taken += why is None
                    if why not in (None, _FOLDER):  # a file of the folder that cannot be read is named, not skipped
                        problems.append(f"{p}: {why}")
            if not taken and len(problems) == before:
                problems.append(f"{raw}: no .json or .jsonl file in this folder")
            continue
        why = take(raw)
        if why is None:
            continue
        if why == "no such file or folder" and _GLOB_CHARS & set(raw):
            if not sum(take(p) is None for p in sorted(glob.glob(raw, recursive=True))):
                problems.append(f"{raw}: no file matches this pattern")
        else:
            problems.append(f"{raw}: {why}")
    files, seen = [], set()
    for name in sorted(found):
        if found[name] not in seen:
            seen.add(found[name])
            files.append(name)
    return files, problems


def batches(files: list[str], workers: int = 1) -> list[list[str]]:
    """Consecutive slices of ``files``, at most :data:`BATCH_FILES` each and small enough to give each
    of ``workers`` :data:`TASKS_PER_WORKER` of them (a batch costs numpy's calls once, whatever its size)."""
    size = max(1, min(BATCH_FILES, -(-len(files) // (workers * TASKS_PER_WORKER)) if workers > 1 else BATCH_FILES))
    return [files[k:k + size] for k in range(0, len(files), size)]


def row_from_metrics(name: str, file: str, line: int, metrics: dict, labels: dict) -> dict:
    """One row (:data:`COLUMNS` plus labels) from :func:`metrics_from_checker` output."""
    row = {"trace": name, "file": file, "line": line}
    for key in ("trace_id", "task_id", "topology"):
        row[key] = metrics.get(key)
    for key in METRIC_COLUMNS:
        if key in metrics:
            row[key] = metrics[key]
    for d, count in metrics["decisions"].items():
        row[f"decision_{d}"] = count
    for t, count in metrics["event_types"].items():
        row[f"events_{t}"] = count
    by_unit = metrics["reward_by_credit_unit"]
    for unit in (*CREDIT_UNITS, "unmapped"):
        row[f"reward_{unit}"] = by_unit.get(unit, 0.0)
    row["wall_clock_s"] = metrics["costs"].get("wall_clock_s")
    row["tokens_per_reward"] = metrics["tokens_per_reward"]
    for key, value in labels.items():
        row[key if key in LABELS else f"label_{key}"] = value
    return row


#: Largest magnitude of a number that a row may hold: the report's statistics and figures
#: work in doubles, which hold every whole number only up to 2**53 (a training step or a
#: count beyond it is not exact, and figure axes overflow near the largest double).
MAX_SUMMARY = 2**53


def odd_values(name: str, row: dict) -> list[str]:
    """Why a valid trace's row cannot be summarised (problem lines), or ``[]``.

    A text value that is not Unicode (a lone surrogate, which JSON's ``\\ud800`` escape
    can write but UTF-8 cannot: Parquet and the report could not store it), and a
    number beyond :data:`MAX_SUMMARY` in magnitude (or not finite).
    """
    out = []
    for column, value in row.items():
        if type(value) is str:
            if value.isascii():  # the common case, without an encoding
                continue
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as err:
                bad = f"\\u{ord(value[err.start]):04x}"
                what = "the file name" if column in ("trace", "file") else _where(column)
                out.append(f"{name}: {what}: holds a lone surrogate ({bad}), which is not Unicode text and cannot "
                           "be written to Parquet or the report; the trace is skipped")
        elif type(value) in (int, float) and not -MAX_SUMMARY <= value <= MAX_SUMMARY:
            out.append(f"{name}: {_where(column)}: {value!r} is beyond 2**53 in magnitude, too large to summarise "
                       "(statistics and figures work in doubles); the trace is skipped")
    return out


def _where(column: str) -> str:
    """Where a row's column comes from in the trace, for messages (``$.labels.step``, ``$.trace_id``)."""
    if column in LABELS or column.startswith("label_"):
        return f"$.labels.{column.removeprefix('label_')}"
    return f"$.{column}" if column in ("trace_id", "task_id") else column


def summarize_bytes(name: str, file: str, line: int, data: bytes, labels: dict) -> tuple[dict | None, list[str]]:
    """Validate and measure one trace; returns ``(row, [])`` or ``(None, problem lines)``
    (invalid, or valid with values that cannot be summarised: :func:`odd_values`)."""
    from .metrics import metrics_from_checker
    from .validate import check_bytes

    checker, _tree, problems = check_bytes(data, name)
    if problems:
        return None, [str(p) for p in problems]
    found = checker.top_values.get("labels") or {}
    row = row_from_metrics(name, file, line, metrics_from_checker(checker), {**found, **labels})
    odd = odd_values(name, row)
    return (None, odd) if odd else (row, [])


class Rows:
    """The rows of the traces that :func:`masrl.trace.batch.summarize_items` measured together:
    ``keys`` (file, line) and ``columns`` ({name: list or int64 array}, labels included).
    Plain attributes, so that it pickles for worker processes and Dask."""

    __slots__ = ("keys", "columns")

    def __init__(self, keys: list, columns: dict):
        self.keys = keys
        self.columns = columns


#: The batch path (:mod:`masrl.trace.batch`) measures at most this many traces, or this many bytes of them,
#: at once: it keeps their columns (and their text) until they are measured, so this bounds its memory
#: whatever the files hold (a JSON Lines file of a million runs is read and measured a chunk at a time).
CHUNK_TRACES = 256
CHUNK_BYTES = 16 << 20
#: A trace larger than this is validated and measured on its own, by the path that reads it in blocks.
LARGE_TRACE = 4 << 20


def summarize_batch(files: list[str], labels: dict) -> list:
    """Every trace of ``files``: a :class:`Rows` per chunk of traces measured together
    (:mod:`masrl.trace.batch`), and ``(file, line, row or None, problems)`` for each
    trace that was validated and measured on its own (one the batch path does not vouch
    for: every invalid trace among them, with its problems).

    A ``.jsonl`` file holds one trace per non-blank line (``line`` is its 1-based
    number); any other file is one trace (``line`` 0). A file that cannot be read is
    one problem.
    """
    from .batch import summarize_items

    out: list = []
    chunk: list = []
    size = 0

    def measure() -> None:
        nonlocal chunk, size
        block, others = summarize_items(chunk, labels)
        if block is not None:
            out.append(Rows(block["keys"], block["columns"]))
        for k in others:
            out.append(_one(chunk[k], labels))
        chunk, size = [], 0

    for file in files:
        for item in _traces(file, out):
            if len(item[3]) > LARGE_TRACE:
                out.append(_one(item, labels))
                continue
            chunk.append(item)
            size += len(item[3])
            if len(chunk) >= CHUNK_TRACES or size >= CHUNK_BYTES:
                measure()
    if chunk:
        measure()
    return out


def _traces(file: str, out: list):
    """``(file, line, name, bytes)`` of each trace of ``file`` (a JSON Lines file line by line); a file that
    cannot be read is one problem in ``out``."""
    try:
        if not file.endswith(".jsonl"):
            yield file, 0, file, _whole(file)
            return
        with open(file, "rb") as handle:
            for number, text in enumerate(handle, 1):
                if text.strip():
                    yield file, number, f"{file}:{number}", text[:-1] if text.endswith(b"\n") else text
    except OSError as err:
        out.append((file, 0, None, [f"{file}: cannot read: {err.strerror or err}"]))


def _whole(file: str) -> bytes:
    """The bytes of ``file``, read with the operating system's calls (a small trace's file costs a third of
    what ``open().read()`` or ``Path.read_bytes`` spend building a buffered reader); raises OSError."""
    fd = os.open(file, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        chunks = []
        size = os.fstat(fd).st_size
        want = max(size + 1, 1 << 16)  # one read for the whole file and its end: a read that comes back
        while chunk := os.read(fd, want):  # short, with all the bytes the file has, is at its end (a file that
            chunks.append(chunk)  # says it has none, as /proc's do, is read until a read gives nothing)
            if size and len(chunk) < want and len(chunk) >= size:
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def _one(item: tuple, labels: dict) -> tuple:
    file, line, name, data = item
    row, problems = summarize_bytes(name, file, line, data, labels)
    return file, line, row, problems


def run_local(files: list[str], labels: dict, workers: int | None = None, progress=None) -> list:
    """:func:`summarize_batch` over every batch, on ``workers`` processes (default: all cores).

    ``progress(n)`` is called with the number of files done after each batch.
    One worker (or one batch) runs in this process.
    """
    workers = workers or os.cpu_count() or 1
    parts = batches(files, workers)
    results = []
    if workers <= 1 or len(parts) <= 1:
        for part in parts:
            results.extend(summarize_batch(part, labels))
            if progress:
                progress(len(part))
        return results
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [(pool.submit(summarize_batch, part, labels), len(part)) for part in parts]
        for future, size in futures:
            results.extend(future.result())
            if progress:
                progress(size)
    return results


def run_dask(files: list[str], labels: dict, scheduler: str | None, progress=None) -> list:
    """The same batches on a Dask distributed cluster.

    ``scheduler``: the address of a running scheduler (``tcp://host:8786``); ``None``
    starts a :class:`distributed.LocalCluster` of one single-threaded worker process
    per core for this run. The workers must be able to import masrl and to read the
    files under the same paths (a shared file system).

    Raises:
        UserError: the ``masrl[dask]`` extra is not installed or the scheduler
            cannot be reached.
    """
    from ..core.errors import UserError

    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UserError("--dask/--scheduler need the dask extra: pip install 'masrl[dask]'") from None
    cluster = None
    try:
        if scheduler is None:
            # the scheduler's HTTP server (dashboard_address=None still starts it, on :8787 of every
            # interface): on this machine only, on a free port, so that no other run's port is in the way
            cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address="127.0.0.1:0")
            client = Client(cluster)
        else:
            client = Client(scheduler, timeout="10s")
    except OSError as err:
        raise UserError(f"cannot reach the Dask scheduler {scheduler}: {err}") from None
    try:
        parts = batches(files, max(1, len(client.scheduler_info().get("workers", {}))))
        futures = client.map(summarize_batch, parts, labels=labels, pure=False)
        sizes = {f.key: len(p) for f, p in zip(futures, parts)}
        for future in as_completed(futures):
            if progress:
                progress(sizes[future.key])
        results = []
        for part_result in client.gather(futures):
            results.extend(part_result)
        return results
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def frame(results: list, labels_order: tuple[str, ...] = LABELS):
    """Rows of the valid traces -> a DataFrame sorted by (file, line), fixed columns and dtypes.

    ``results``: what :func:`summarize_batch` returns (:class:`Rows` and tuples), from any
    number of batches. ``step`` is numeric when every given step is a number, else text;
    other labels are text. Returns ``(frame, invalid)`` where ``invalid`` is ``[(trace
    name, problem lines)]`` in the same order.
    """
    import numpy as np
    from masrl.core.tabular import pd

    blocks = [r for r in results if isinstance(r, Rows)]
    singles = sorted((r for r in results if not isinstance(r, Rows)), key=lambda r: (r[0], r[1]))
    rows = [r[2] for r in singles if r[2] is not None]
    invalid = [((f"{r[0]}:{r[1]}" if r[1] else r[0]), r[3]) for r in singles if r[2] is None]
    keys = [key for block in blocks for key in block.keys] + [(row["file"], row["line"]) for row in rows]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    extra = sorted({k for block in blocks for k in block.columns if k.startswith("label_")}
                   | {k for row in rows for k in row if k.startswith("label_")})

    def gather(column: str) -> list:
        values: list = []
        for block in blocks:
            found = block.columns.get(column)
            if found is None:
                values += [None] * len(block.keys)
            else:
                values += found.tolist() if isinstance(found, np.ndarray) else found
        values += [row.get(column) for row in rows]
        return [values[k] for k in order]

    data = {}
    for column in (*COLUMNS, *labels_order, *extra):
        values = gather(column)
        if column == "line" or column in INT_COLUMNS:
            data[column] = np.array(values, dtype=np.int64)
        elif column in METRIC_COLUMNS:
            data[column] = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        elif column == "step" and (steps := numeric_steps(values)) is not None:
            data[column] = np.array(steps, dtype=np.float64)
        else:
            data[column] = pd.array(label_texts(values), dtype="string")
    return pd.DataFrame(data), invalid


#: A number written as text, as Langfuse's metadata and OpenTelemetry's string attributes carry a step ("10").
NUMBER_TEXT = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def numeric_steps(values: list) -> list | None:
    """The ``step`` labels as numbers (NaN where absent) when each is a number or a number written as text
    (``"10"``): steps are ordered as numbers, never as texts (1, 10, 2); None when any is not a number."""
    out = []
    for v in values:
        if v is None:
            out.append(math.nan)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(v)
        elif (number := step_number(v)) is not None:
            out.append(number)
        else:
            return None
    return out


def step_number(text: object) -> float | None:
    """The number a step written as text holds (``"10"``), or None: not a number, or one no number of a
    step may be (not finite, or beyond ±2^53, where ``"9007199254740993"`` would read as its neighbour)."""
    if not isinstance(text, str) or not NUMBER_TEXT.fullmatch(text.strip()):
        return None
    number = float(text)
    if not math.isfinite(number) or abs(number) > 2**53:
        return None
    if re.fullmatch(r"\s*[-+]?[0-9]+\s*", text) and abs(int(text)) > 2**53:
        return None
    return number


def label_texts(values: list) -> list:
    """A text column's values: texts as they are when every value is a text (or absent); otherwise each value
    as its JSON text (a text in quotes, ``true``, a number in its shortest form, ``1.0`` as ``1``), so that two
    values that differ in JSON never read the same (``true`` and ``"True"``) and two equal numbers always do."""
    if all(v is None or type(v) is str for v in values):
        return values
    return [None if v is None else _json_text(v) for v in values]


def _json_text(value) -> str:
    if type(value) is float and value.is_integer() and abs(value) <= 2**53:
        value = int(value)
    return json.dumps(value, ensure_ascii=False)


def parquet_bytes(df) -> bytes:
    """The frame as Parquet (pyarrow, no index); same frame, same bytes.

    Raises:
        UserError: pyarrow is not installed (extra ``masrl[traces]``).
    """
    import io

    from ..core.errors import UserError

    try:
        import pyarrow  # noqa: F401  (only to name the missing extra)
    except ImportError:
        raise UserError("writing Parquet needs pyarrow: pip install 'masrl[traces]'") from None
    buffer = io.BytesIO()
    df.to_parquet(buffer, engine="pyarrow", index=False)
    return buffer.getvalue()
