"""Validate orchestration traces: bytes or dicts -> sorted problems.

The rules are those of :mod:`masrl.trace.load` (UTF-8, JSON, no duplicate keys, no
NaN/Infinity, bounded nesting) and :mod:`masrl.trace.checker` (the JSON Schema
``trace.schema.json`` written out for speed, plus graph semantics). Nothing here
raises for bad input: every finding is a :class:`~masrl.core.errors.Problem` whose
``field`` is a JSON path (``$.events[3].t``) and whose message names the event
(``event e4: ...``) or edge (``edge e5->e9 (causal): ...``).
"""

from __future__ import annotations

import gc
import re
from pathlib import Path

from ..core.errors import Problem, UserError
from .checker import TraceChecker
from .load import TraceSyntaxError, load
from .typed import check_data, check_tree

_DIGITS = re.compile(r"([0-9]+)")


def problem_key(problem: Problem) -> tuple:
    """Sort key: file, line, JSON path with numeric indices compared as numbers, message."""
    # The split alternates text and ASCII digit runs: odd positions are the numbers.
    parts = _DIGITS.split(problem.field or "")
    field = tuple(int(part) if index % 2 else part for index, part in enumerate(parts))
    return (problem.file, problem.line or 0, field, problem.message)


def sort_problems(problems: list[Problem]) -> list[Problem]:
    """Problems in reading order (``$.events[2]`` before ``$.events[10]``)."""
    return sorted(problems, key=problem_key)


def check_bytes(data: bytes, file: str, keep: bool = False) -> tuple[TraceChecker | None, object, list[Problem]]:
    """Parse and check one trace file's bytes.

    First the typed path (:func:`masrl.trace.typed.check_data`: msgspec decoding
    into Structs derived from the schema, column-wise graph checks), which only accepts;
    if it does not, the exact streaming path (:mod:`masrl.trace.load` feeding a
    :class:`TraceChecker` element by element), which reports every problem.

    Returns ``(checker, tree, problems)``: the checker holds the columns that
    :mod:`masrl.trace.metrics` uses (``None`` if the text is not UTF-8 JSON), the
    tree is the parsed document if ``keep`` (else ``None``), problems are sorted.
    """
    collecting = gc.isenabled()
    gc.disable()  # parsing and checking create no reference cycles; a full collection would only rescan
    try:
        fast = check_data(data, file)
        if fast is not None:
            if lone := lone_surrogates(data, file):
                return fast, None, lone
            return fast, (_tree(data) if keep else None), []
        checker = TraceChecker(file)
        tree, load_problems = load(data, file, checker, keep)
        problems = load_problems + checker.finish() + lone_surrogates(data, file)
        if "events" not in checker.present and not checker.not_object:
            hint = export_hint(data, file)
            if hint is not None:
                return checker, None, [hint]
    except TraceSyntaxError as err:
        return None, None, [err.problem]
    finally:
        if collecting:
            gc.enable()
    return checker, tree, sort_problems(problems)


#: A ``\\uD800``-``\\uDFFF`` escape that is not one half of a pair: a candidate lone surrogate (one after an
#: escaped backslash is not one: :func:`lone_surrogates` decodes the text to be sure).
_LONE = re.compile(rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                   rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def lone_surrogates(data: bytes, file: str) -> list[Problem]:
    """A problem for each text of the trace (a key or a value) that holds a lone surrogate: JSON's
    ``\\ud800`` escape can write one, but it is no Unicode character (UTF-8 cannot encode it), so no
    report, Parquet file or other tool could hold the text. The bytes are searched first; only a file
    with such an escape is decoded again."""
    if b"\\u" not in data or not _LONE.search(data):
        return []
    import json

    try:
        tree = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return []  # named by the parser already
    found: list[Problem] = []
    stack = [(tree, "$")]
    while stack:
        value, where = stack.pop()
        items = value.items() if type(value) is dict else enumerate(value) if type(value) is list else ()
        for key, item in items:
            place = f"{where}[{key}]" if type(key) is int else f"{where}.{key}" if _NAME.fullmatch(key) else f"{where}[{key!r}]"
            for text, what in ((key, "key"), (item, "text")):
                if type(text) is str and not text.isascii():
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError as err:
                        found.append(Problem(file, None, place, f"the {what} holds a lone surrogate (\\u{ord(text[err.start]):04x}), "
                                                                "which is no Unicode character: write the character itself"))
            stack.append((item, place))
    return found


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def export_hint(data: bytes, file: str) -> Problem | None:
    """One problem instead of a list of schema errors when ``data`` is an export that
    ``masrl trace convert`` reads (OpenTelemetry, Langfuse, Agents SDK), else ``None``."""
    from .convert import ConvertError, detect_format

    try:
        name = detect_format(data, file)
    except ConvertError:
        return None
    return Problem(file, None, None, f"not an orchestration trace but an export in the '{name}' format; "
                                     f"convert it first: masrl trace convert {file}")


def _tree(data: bytes):
    """The parsed document of bytes that the typed path accepted (valid UTF-8 JSON)."""
    import msgspec

    return msgspec.json.decode(data[3:] if data.startswith(b"\xef\xbb\xbf") else data)


def validate_bytes(data: bytes, file: str) -> tuple[dict | None, list[Problem]]:
    """Validate the bytes of one trace file.

    Args:
        data: the file's raw bytes (UTF-8 JSON).
        file: the name to put in problems (as the user would type it).

    Returns:
        ``(trace, [])`` when valid, else ``(None, problems)`` with every problem of
        the file, sorted. Never raises for bad input.
    """
    _checker, tree, problems = check_bytes(data, file, keep=True)
    if problems:
        return None, problems
    return tree, []


def checker_for(trace, file: str = "<trace>") -> TraceChecker:
    """Feed an already-parsed trace (any JSON value) to a new checker and finish it.

    A valid trace is accepted by the typed path (:mod:`masrl.trace.typed`); anything
    else goes through the exact checker, which names every problem.
    """
    fast = check_tree(trace, file)
    if fast is not None:
        return fast
    return exact_checker(trace, file)


def exact_checker(trace, file: str = "<trace>") -> TraceChecker:
    """The element-by-element checker on an already-parsed trace (finished; every problem)."""
    checker = TraceChecker(file)
    if type(trace) is not dict:
        checker.whole(trace)
        checker.finish()
        return checker
    for key in ("events", "edges"):
        items = trace.get(key)
        if type(items) is list:
            checker.begin(key)
            (checker.events if key == "events" else checker.edges)(0, items)
            checker.end(key, len(items))
        elif key in trace:
            checker.top(key, items)
    for key, value in trace.items():
        if key not in ("events", "edges"):
            checker.top(key, value)
    checker.finish()
    return checker


def validate_trace(trace, file: str = "<trace>") -> list[Problem]:
    """Problems of an already-parsed trace (sorted; ``[]`` if valid).

    Duplicate keys and NaN literals cannot be seen in a dict; use
    :func:`validate_bytes` for files. Python ``float('nan')``/``inf`` values are reported.
    """
    checker = checker_for(trace, file)
    return sort_problems(checker.schema_problems + checker.other_problems)


def schema_problems(trace) -> list[Problem]:
    """Only the problems the JSON Schema decides (what ``jsonschema`` would reject)."""
    return sort_problems(checker_for(trace).schema_problems)


def read_file(path: str) -> bytes:
    """Bytes of a trace file; :class:`~masrl.core.errors.UserError` if it cannot be read."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory, not a trace file") from None
    except OSError as err:
        raise UserError(f"{path}: cannot read: {err.strerror}") from None


def traces_in(path: str, data: bytes) -> list[tuple[int | None, bytes]]:
    """``(line, bytes)`` of each trace of a file's ``data``: a JSON Lines file (``.jsonl``) holds one per
    non-blank line (``line`` its 1-based number), as ``masrl trace summarize`` reads it; any other file
    is one trace (``line`` None)."""
    if not path.endswith(".jsonl"):
        return [(None, data)]
    return [(number, line.rstrip(b"\r")) for number, line in enumerate(data.split(b"\n"), 1) if line.strip()]


def validate_file(path: str) -> list[Problem]:
    """Problems of one trace file (the ``masrl trace validate`` path; keeps no tree)."""
    _checker, _tree, problems = check_bytes(read_file(path), path)
    return problems
