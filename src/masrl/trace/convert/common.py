"""What every trace converter shares: the result type, the error, JSON reading, time parsing.

A converter is a pure function ``bytes -> Conversion`` (no file system, no network):
the CLI reads the file, the converter returns the trace dict and the notes that say
what it assumed or repaired, and the CLI validates the trace before writing it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ...core.text import may_be_unsafe, printable, unsafe_characters
from ..codes import show


class ConvertError(ValueError):
    """The input cannot be converted (not JSON, not the format, nothing to convert).

    The message is one line (or a first line plus indented details) fit for stderr.
    """


@dataclass
class Conversion:
    """Result of a converter.

    Attributes:
        trace: the orchestration trace (a dict in the shape of trace.schema.json; the
            caller validates it).
        notes: one line each for every assumption, repair or dropped input, in the
            order they were found; the first line summarises the conversion.
        unmapped: inputs (spans, observations) that produced no event.
        spans: inputs read in total.
        shape: the concrete input shape that was read, e.g. ``OTLP JSON Lines``.
    """

    trace: dict
    notes: list[str] = field(default_factory=list)
    unmapped: int = 0
    spans: int = 0
    shape: str = ""


#: The texts of a trace that name something (an event, an agent, a tool, a model), which reports and terminals show.
_NAMES = ("id", "agent", "from", "to", "tool", "role", "model", "guardrail")


def escaped_names(trace: dict, notes: list[str]) -> None:
    """Write with its unsafe characters escaped (:func:`masrl.core.text.printable`: ``\\x1b``, ``\\u202e``) every name of
    ``trace`` that holds a terminal escape, a bidirectional control or another invisible character, in the events and in
    the edges' ends alike (the same name, the same new name), and note each once: a source's span name is no place for
    them, and a report or terminal that shows the name would act on them."""
    changed: dict[str, str] = {}

    def clean(value):
        if (isinstance(value, str) and may_be_unsafe(value) and unsafe_characters(value)
                and not any("\ud800" <= ch <= "\udfff" for ch in value)):  # a lone surrogate: refused where it is written
            changed.setdefault(value, printable(value))
            return changed[value]
        return value

    for key in ("trace_id", "task_id", "system"):
        trace[key] = clean(trace.get(key)) if key in trace else trace.get(key)
    for event in trace.get("events") or []:
        for key in _NAMES:
            if key in event:
                event[key] = clean(event[key])
    for edge in trace.get("edges") or []:
        for key in ("from", "to"):
            if key in edge:
                edge[key] = clean(edge[key])
    for old, new in changed.items():
        notes.append(f"'{new}' held characters that are invisible or change how text shows; they are written escaped")


def _reject_constant(text: str):
    raise ValueError(f"{text} is not a JSON number")


def _unique_keys(pairs: list) -> dict:
    """``object_pairs_hook``: an object whose key repeats is refused (which value counts would be a guess)."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object (JSON leaves the meaning open)")
        out[key] = value
    return out


def read_json_values(data: bytes, file: str) -> list:
    """The JSON values of a file: one document, JSON Lines, or concatenated documents.

    Exports come as one JSON document (OTLP/JSON, Langfuse, a batch), as JSON Lines
    (the OpenTelemetry collector's file exporter writes one ``{"resourceSpans": ...}``
    per line) or as pretty-printed objects one after another (the OpenTelemetry
    Python SDK's ``ConsoleSpanExporter``). All three are a sequence of JSON values
    separated by white space, read here with :meth:`json.JSONDecoder.raw_decode`.

    Raises:
        ConvertError: not UTF-8, not JSON (with line and column), NaN/Infinity, a key
            repeated in one object, nesting too deep, or empty.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConvertError(f"{file}: not UTF-8 text (invalid byte at offset {err.start})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    decoder = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    values = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            break
        try:
            value, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError as err:
            raise ConvertError(f"{file}: not valid JSON: {err.msg} (line {err.lineno}, column {err.colno})") from None
        except RecursionError:
            raise ConvertError(f"{file}: cannot read the JSON: nesting is too deep") from None
        except ValueError as err:
            raise ConvertError(f"{file}: cannot read the JSON: {err}") from None
        values.append(value)
    if not values:
        raise ConvertError(f"{file}: the file is empty")
    return values


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def iso_nanos(value) -> int | None:
    """ISO-8601 time -> integer nanoseconds since the Unix epoch, or None if unreadable.

    A time without a zone is taken as UTC (Langfuse and the Agents SDK write UTC).
    Precision is that of :class:`datetime` (microseconds); digits beyond are dropped.
    """
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    if "." in text:  # datetime reads at most 6 fractional digits
        head, _, rest = text.partition(".")
        digits = len(rest) - len(rest.lstrip("0123456789"))
        text = head + "." + rest[: min(digits, 6)].ljust(1, "0") + rest[digits:]
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000


#: The largest count a converter takes (tokens, costs): 2**53, the last integer a double holds
#: exactly; a larger one is no count a run made (and two of them could add up to infinity).
MAX_COUNT = 2**53


def number(value) -> float | None:
    """A number from 0 to :data:`MAX_COUNT` from a JSON value (numbers or numeric strings), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        if len(value) > 40:
            return None  # no count is written with so many characters (and int() refuses 4,300 digits)
        try:
            value = float(value) if any(c in value for c in ".eE") else int(value)
        except ValueError:
            return None
    if isinstance(value, (int, float)) and value == value and 0 <= value <= MAX_COUNT:
        return value
    return None


def usage_count(container, key: str, label: str, bad: list[str]) -> int | None:
    """The token count ``container[key]`` (:func:`number`, a whole number: ``100.0`` is 100), or None. A
    value that is present but no count (``"abc"``, ``-100``, ``NaN``, a fraction such as ``100.7``, an
    object; an OTLP attribute that could not be read) is added to ``bad`` as ``label: key = value`` so
    the converter can name it in a note."""
    if not isinstance(container, dict) or key not in container:
        return None
    value = container[key]
    found = number(value)
    if found is None or (type(found) is float and not found.is_integer()):
        bad.append(f"{label}: {key} = {value!r}")
        return None
    return int(found)


def usage_mapping(container: dict, key: str, label: str, bad: list[str]) -> dict | None:
    """The usage object ``container[key]`` when it is a JSON object, else None; any other value
    than an object or null is added to ``bad`` (see :func:`usage_count`)."""
    usage = container.get(key)
    if isinstance(usage, dict):
        return usage
    if usage is not None:
        bad.append(f"{label}: {key} = {usage!r}")
    return None


def usage_note(bad: list[str]) -> list[str]:
    """The note for usage values that were not counted (none when ``bad`` is empty)."""
    if not bad:
        return []
    shown = "; ".join(bad[:5]) + (f"; and {len(bad) - 5} more" if len(bad) > 5 else "")
    return [f"{len(bad)} usage value(s) are not token counts and were not counted: {shown}"]


#: The labels a converter reads from a trace's metadata (the summary's run, step and policy).
LABEL_KEYS = ("run", "step", "policy")


def label_value(value) -> bool:
    """Whether a label or an annotation can hold ``value``: text, yes/no, or a number within ±2**53."""
    return isinstance(value, (str, bool)) or (isinstance(value, (int, float)) and value == value and abs(value) <= MAX_COUNT)


def unkept_label(where: str, value, name: str) -> str:
    """The note for a value at ``where`` that the label ``name`` cannot hold (:func:`label_value`)."""
    return f"{where}: {show(value)} is not text, yes/no or a number within ±2**53; not kept as the label {name!r}"


def metadata_labels(meta: object, where: str) -> tuple[dict, list[str]]:
    """``(labels, notes)``: the :data:`LABEL_KEYS` of a trace's metadata that a label can hold (text, yes/no
    or a number within ±2**53), and a note for each of them that it cannot hold (never dropped silently)."""
    labels, notes = {}, []
    for key in LABEL_KEYS if isinstance(meta, dict) else ():
        if key not in meta:
            continue
        value = meta[key]
        if label_value(value):
            labels[key] = value
        else:
            notes.append(unkept_label(f"{where}.{key}", value, key))
    return labels, notes
