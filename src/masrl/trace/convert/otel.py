"""OpenTelemetry GenAI agent spans -> spans for :mod:`masrl.trace.convert.spantree`.

Input shapes read (each is named in the notes):

* **OTLP JSON** (the OTLP/HTTP JSON encoding, also what Jaeger and Tempo export):
  ``{"resourceSpans": [{"resource": {"attributes": [...]}, "scopeSpans": [{"spans":
  [...]}]}]}``; a span has ``traceId``, ``spanId``, ``parentSpanId``, ``name``,
  ``kind``, ``startTimeUnixNano``, ``endTimeUnixNano`` and ``attributes`` as
  ``[{"key": k, "value": {"stringValue"|"intValue"|"doubleValue"|"boolValue"|
  "arrayValue"|"kvlistValue"|"bytesValue": ...}}]``. The older
  ``instrumentationLibrarySpans`` is read like ``scopeSpans``.
* **OTLP JSON Lines**: several such documents, one per line (the collector's file
  exporter); their spans are read together.
* **OTel SDK span JSON**: span objects as the SDKs serialise them, either
  ``{"spans": [...]}`` (mozilla-ai/any-agent) or a sequence/array of span objects
  (the Python SDK's ``ConsoleSpanExporter``): ``name``, ``context: {trace_id,
  span_id}``, ``parent: {span_id}`` or ``parent_id``, ``start_time``/``end_time``
  (integer nanoseconds or ISO-8601), ``attributes`` as a plain object, ``resource:
  {attributes}``.

Ids may be lowercase hex (the OTLP JSON rule), base64 (protobuf's JSON mapping, as
some exporters write), integers (SDK dumps) or ``0x``-prefixed hex; all become
lowercase hex of 16 (span) or 32 (trace) digits. Times may be numbers or strings of
nanoseconds; an end of ``0`` means the span never ended.

Attribute names follow the GenAI semantic conventions (status Development, v1.36 to
v1.41): ``gen_ai.operation.name`` (else the span name's first word), ``invoke_agent``
and ``create_agent`` -> agent spans (identity ``gen_ai.agent.id``, else
``gen_ai.agent.name``, else the rest of the span name), ``execute_tool`` -> tool
spans (``gen_ai.tool.name``), ``chat``/``text_completion``/``generate_content`` ->
model calls, as is any other operation whose span names a model
(``gen_ai.request.model``; e.g. any-agent's ``call_llm``, noted). Usage:
``gen_ai.usage.input_tokens`` + ``gen_ai.usage.output_tokens``; the names before
semantic conventions v1.27.0, ``gen_ai.usage.prompt_tokens`` and
``gen_ai.usage.completion_tokens``, are read too (noted); ``gen_ai.usage.total_tokens``
(no convention) only when neither pair is present (noted). Labels: resource or span
attributes ``masrl.label.KEY`` (e.g. ``masrl.label.step``).
"""

from __future__ import annotations

import base64
import binascii

from .common import (
    Conversion,
    ConvertError,
    iso_nanos,
    label_value,
    read_json_values,
    unkept_label,
    usage_count,
    usage_note,
)
from ..codes import show
from .span import status_error
from .spantree import AGENT, MODEL, TOOL, Span, build_trace
from ...core.text import ascii_digits

AGENT_OPS = ("invoke_agent", "create_agent")
MODEL_OPS = ("chat", "text_completion", "generate_content")
KNOWN_OPS = AGENT_OPS + MODEL_OPS + ("execute_tool", "invoke_workflow", "embeddings", "retrieval")
#: Operations that may name a model without being a model call of their own.
NOT_MODEL_OPS = ("embeddings", "retrieval", "invoke_workflow", "execute_tool")
OLD_USAGE = ("gen_ai.usage.prompt_tokens", "gen_ai.usage.completion_tokens")
NEW_USAGE = ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")
LABEL_PREFIX = "masrl.label."


def detect(values: list) -> bool:
    """True if the JSON values look like an OpenTelemetry export of any read shape."""
    first = values[0]
    if isinstance(first, dict) and ("resourceSpans" in first or _is_sdk_span(first)):
        return True
    if isinstance(first, dict) and isinstance(first.get("spans"), list):
        return all(_is_sdk_span(s) for s in first["spans"][:5]) and bool(first["spans"])
    return isinstance(first, list) and bool(first) and all(_is_sdk_span(s) for s in first[:5])


def _is_sdk_span(value) -> bool:
    return isinstance(value, dict) and isinstance(value.get("context"), dict) and "name" in value


# -- values ------------------------------------------------------------------------
class _Unread:
    """An OTLP value its type cannot read (``{"intValue": "12x"}``): no value to the converter (it is no
    text, number or flag), shown as it was sent where a note names it."""

    def __init__(self, kind: str, raw):
        self.kind, self.raw = kind, raw

    def __repr__(self) -> str:
        return f"{self.kind} {self.raw!r}"


def _attr_value(value):
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        v = value["intValue"]
        try:
            whole = not isinstance(v, (bool, float)) or (type(v) is float and v.is_integer())  # not 3.7 read as 3
            return int(v) if whole else _Unread("intValue", v)
        except (TypeError, ValueError):
            return _Unread("intValue", v)
    if "doubleValue" in value:
        v = value["doubleValue"]
        try:
            return float(v) if isinstance(v, (int, float, str)) and not isinstance(v, bool) else _Unread("doubleValue", v)
        except ValueError:
            return _Unread("doubleValue", v)
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        inner = value["arrayValue"]
        items = inner.get("values", []) if isinstance(inner, dict) else []
        return [_attr_value(v) for v in items] if isinstance(items, list) else None
    if "kvlistValue" in value:
        inner = value["kvlistValue"]
        return _attributes(inner.get("values", []) if isinstance(inner, dict) else [])
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def _attributes(items) -> dict:
    """OTLP ``[{key, value}]`` or a plain SDK object -> {name: value}."""
    if isinstance(items, dict):
        return items
    out = {}
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("key"), str):
                out[item["key"]] = _attr_value(item.get("value"))
    return out


def norm_id(value, nbytes: int, seen_b64: list) -> str:
    """An OTel id in any exported form -> lowercase hex (other strings unchanged, '' if absent).

    ``seen_b64`` collects the ids that were decoded from base64 (for one note).
    """
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int):
        return f"{value:0{2 * nbytes}x}" if value > 0 else ""
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if text.lower().startswith("0x"):
        text = text[2:]
    if len(text) == 2 * nbytes and all(c in "0123456789abcdefABCDEF" for c in text):
        return "" if set(text) == {"0"} else text.lower()
    if len(text) == 4 * ((nbytes + 2) // 3) and text.endswith("="):
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) == nbytes:
            seen_b64.append(text)
            return "" if raw == bytes(nbytes) else raw.hex()
    return text


#: Nanoseconds since 1970 from this on (2**63, the year 2262) are no time a span was recorded at: past a signed
#: 64-bit count, where an exporter's -1 (unset) read unsigned lands (18446744073709551615).
MAX_NANOS = 2**63


def _nanos(value) -> int | None:
    """Integer nanoseconds from a number, a digit string or an ISO-8601 time."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value if 0 <= value < MAX_NANOS else None
    if isinstance(value, float):
        return int(value) if value == value and 0 <= value < MAX_NANOS else None
    if isinstance(value, str):
        text = value.strip()
        if ascii_digits(text):
            return int(text) if len(text) <= 20 and int(text) < MAX_NANOS else None
        return iso_nanos(text)
    return None


# -- reading -------------------------------------------------------------------------
class _Raw:
    """One span as read, before it becomes a :class:`Span`."""

    __slots__ = ("trace_id", "span_id", "parent_id", "name", "start", "end", "attrs", "app", "order", "error")

    def __init__(self, trace_id, span_id, parent_id, name, start, end, attrs, app, order, error=None):
        self.trace_id, self.span_id, self.parent_id = trace_id, span_id, parent_id
        self.name, self.start, self.end, self.attrs, self.app, self.order = name, start, end, attrs, app, order
        self.error = error  # :func:`masrl.trace.convert.span.status_error` of the span's status


def _service(attrs: dict) -> str:
    app = attrs.get("service.name")
    return app if isinstance(app, str) and app else "application"


def read_spans(values: list, file: str) -> tuple[list[_Raw], list[str], str, dict]:
    """The spans of every read shape; returns (spans, notes, shape name, labels)."""
    notes: list[str] = []
    b64: list = []
    raws: list[_Raw] = []
    labels: dict = {}
    first = values[0]
    if isinstance(first, dict) and "resourceSpans" in first:
        shape = "OTLP JSON" if len(values) == 1 else f"OTLP JSON Lines ({len(values)} documents)"
        for k, doc in enumerate(values):
            if not (isinstance(doc, dict) and isinstance(doc.get("resourceSpans"), list)):
                raise ConvertError(f"{file}: document {k + 1} of {len(values)} has no 'resourceSpans' array")
            for rs in doc["resourceSpans"]:
                if not isinstance(rs, dict):
                    continue
                resource = rs.get("resource")
                rattrs = _attributes(resource.get("attributes", []) if isinstance(resource, dict) else [])
                attribute_labels(rattrs, labels, notes, "resource")
                scopes = rs.get("scopeSpans", rs.get("instrumentationLibrarySpans")) or []
                for ss in scopes if isinstance(scopes, list) else []:
                    spans = ss.get("spans", []) if isinstance(ss, dict) else []
                    for raw in spans if isinstance(spans, list) else []:
                        _read_otlp_span(raw, rattrs, raws, notes, b64)
    else:
        if isinstance(first, dict) and isinstance(first.get("spans"), list):
            items = [s for v in values for s in (v.get("spans", []) if isinstance(v, dict) else [])]
            shape = "OTel SDK span JSON ({\"spans\": [...]})"
        elif isinstance(first, list):
            items = [s for v in values for s in (v if isinstance(v, list) else [])]
            shape = "OTel SDK span JSON (an array of spans)"
        else:
            items = values
            shape = "OTel SDK span JSON (one object per span)"
        for raw in items:
            _read_sdk_span(raw, raws, notes, b64)
    if b64:
        notes.append(f"{len(b64)} ids were base64 (protobuf JSON mapping); they are converted to hex")
    return raws, notes, shape, labels


def attribute_labels(attrs: dict, labels: dict, notes: list, where: str) -> None:
    """The labels of ``attrs`` (``masrl.label.KEY``) into ``labels``: a value a label cannot hold
    (:func:`~.common.label_value`: an array, a map, NaN, an integer beyond 2**53) and a second value of
    a label already read (the resource's first, then the spans' in order; the first is kept) are noted."""
    for key, value in attrs.items():
        if not (isinstance(key, str) and key.startswith(LABEL_PREFIX)):
            continue
        name = key[len(LABEL_PREFIX):]
        if not label_value(value):
            notes.append(unkept_label(f"{where}: {key}", value, name))
        elif name not in labels:
            labels[name] = value
        elif labels[name] != value or type(labels[name]) is not type(value):
            notes.append(f"{where}: {key} = {show(value)}, but the label {name!r} is {show(labels[name])} already; "
                         "the first is kept")


def _malformed(raws: list, notes: list, name, span_id) -> None:
    order = len(raws) + sum(n.startswith("unmapped") for n in notes) + 1
    sid = span_id if isinstance(span_id, str) and span_id else f"#{order}"
    shown = name if isinstance(name, str) else ""
    notes.append(f"unmapped span '{shown}' ({sid}): malformed (needs a trace id, a span id and a start time)")


def _read_otlp_span(raw, rattrs: dict, raws: list, notes: list, b64: list) -> None:
    if not isinstance(raw, dict):
        _malformed(raws, notes, "", None)
        return
    span_id = norm_id(raw.get("spanId"), 8, b64)
    trace_id = norm_id(raw.get("traceId"), 16, b64)
    start = _nanos(raw.get("startTimeUnixNano"))
    if not span_id or not trace_id or start is None:
        _malformed(raws, notes, raw.get("name"), span_id)
        return
    end = _nanos(raw.get("endTimeUnixNano")) or None
    name = raw.get("name") if isinstance(raw.get("name"), str) else ""
    attrs = _attributes(raw.get("attributes", []))
    raws.append(_Raw(trace_id, span_id, norm_id(raw.get("parentSpanId"), 8, b64), name, start, end, attrs, _service(rattrs), len(raws),
                     status_error(raw.get("status"), events=raw.get("events"))))


def _read_sdk_span(raw, raws: list, notes: list, b64: list) -> None:
    if not isinstance(raw, dict) or not isinstance(raw.get("context"), dict):
        _malformed(raws, notes, raw.get("name") if isinstance(raw, dict) else "", None)
        return
    ctx = raw["context"]
    span_id = norm_id(ctx.get("span_id"), 8, b64)
    trace_id = norm_id(ctx.get("trace_id"), 16, b64)
    start = _nanos(raw.get("start_time"))
    if not span_id or not trace_id or start is None:
        _malformed(raws, notes, raw.get("name"), span_id)
        return
    parent = raw.get("parent")
    parent_id = norm_id(parent.get("span_id"), 8, b64) if isinstance(parent, dict) else norm_id(raw.get("parent_id"), 8, b64)
    resource = raw.get("resource")
    rattrs = _attributes(resource.get("attributes", {}) if isinstance(resource, dict) else {})
    attrs = _attributes(raw.get("attributes", {}))
    name = raw.get("name") if isinstance(raw.get("name"), str) else ""
    raws.append(_Raw(trace_id, span_id, parent_id, name, start, _nanos(raw.get("end_time")) or None, attrs, _service(rattrs), len(raws),
                     status_error(raw.get("status", raw.get("status_code")), raw.get("status_message"),  # SDK; Phoenix
                                  raw.get("events"))))


def one_trace(raws: list, notes: list, file: str, trace_id: str | None) -> list:
    """The spans of the one trace to convert: ``trace_id``'s, else the only one there is.

    Raises:
        ConvertError: no span has ``trace_id``, several traces and no ``trace_id``, or no span.
    """
    trace_ids = sorted({r.trace_id for r in raws})
    if trace_id is not None:
        wanted = norm_id(trace_id, 16, [])
        if wanted not in trace_ids:
            raise ConvertError(f"{file}: no span has trace id {trace_id}; found: {', '.join(trace_ids) or 'none'}")
        raws = [r for r in raws if r.trace_id == wanted]
    elif len(trace_ids) > 1:
        raise ConvertError(f"{file}: holds {len(trace_ids)} traces ({', '.join(trace_ids)}); choose one with --trace-id")
    if not raws:
        raise ConvertError(f"{file}: no span to convert" + (": " + "; ".join(notes) if notes else ""))
    return raws


# -- mapping -------------------------------------------------------------------------
def _operation(raw: _Raw) -> str:
    op = raw.attrs.get("gen_ai.operation.name")
    if isinstance(op, str) and op:
        return op
    first = raw.name.split(" ", 1)[0]
    return first if first in KNOWN_OPS else ""


def _str_attr(attrs: dict, *keys: str) -> str | None:
    for key in keys:
        v = attrs.get(key)
        if isinstance(v, str) and v:
            return v
    return None


def _usage(attrs: dict, label: str, old: list, total_only: list, bad: list) -> int | None:
    def pair(keys):
        values = [usage_count(attrs, k, label, bad) for k in keys]
        found = [v for v in values if v is not None]
        return int(sum(found)) if found else None

    new = pair(NEW_USAGE)
    if new is not None:
        return new
    legacy = pair(OLD_USAGE)
    if legacy is not None:
        old.append(label)
        return legacy
    total = usage_count(attrs, "gen_ai.usage.total_tokens", label, bad)
    if total is not None:
        total_only.append(label)
        return int(total)
    return None


def to_span(raw: _Raw, guessed: dict, old: list, total_only: list, bad: list) -> Span:
    """Decide a span's kind and fields from its operation and attributes."""
    op = _operation(raw)
    attrs = raw.attrs
    rest = raw.name.split(" ", 1)[1].strip() if " " in raw.name else ""
    span = Span(raw.span_id, raw.parent_id, raw.name, raw.start, raw.end, "", raw.order, app=raw.app,
                op=f"operation {op} has no event type" if op else "no gen_ai.operation.name", error=raw.error)
    span.tokens = _usage(attrs, span.label, old, total_only, bad)
    if op in AGENT_OPS:
        span.kind = AGENT
        span.create = op == "create_agent"
        span.role = _str_attr(attrs, "gen_ai.agent.name")
        span.agent = _str_attr(attrs, "gen_ai.agent.id", "gen_ai.agent.name") or rest or f"agent@{raw.span_id}"
    elif op == "execute_tool":
        span.kind = TOOL
        span.tool = _str_attr(attrs, "gen_ai.tool.name") or rest or "tool"
    elif op in MODEL_OPS or (op not in NOT_MODEL_OPS and _str_attr(attrs, "gen_ai.request.model")):
        span.kind = MODEL
        span.model = _str_attr(attrs, "gen_ai.request.model", "gen_ai.response.model")
        if op not in MODEL_OPS:
            guessed[op or raw.name] = guessed.get(op or raw.name, 0) + 1
    return span


def convert(data: bytes, file: str, trace_id: str | None = None) -> Conversion:
    """Convert an OpenTelemetry export (any shape in the module docstring) into a trace.

    Raises:
        ConvertError: not JSON, not an OpenTelemetry export (the shapes read are
            named), several traces and no ``trace_id``, or nothing to convert.
    """
    values = read_json_values(data, file)
    if not detect(values):
        raise ConvertError(
            f"{file}: not an OpenTelemetry export: expected OTLP JSON (an object with 'resourceSpans'), "
            "JSON Lines of those (collector file exporter), or OTel SDK span JSON ({\"spans\": [...]} or span "
            "objects with 'context')"
        )
    raws, notes, shape, labels = read_spans(values, file)
    raws = one_trace(raws, notes, file, trace_id)
    guessed: dict[str, int] = {}
    old: list[str] = []
    total_only: list[str] = []
    bad: list[str] = []
    spans = [to_span(r, guessed, old, total_only, bad) for r in raws]
    notes += usage_note(bad)
    for op, count in sorted(guessed.items()):
        notes.append(
            f"operation '{op}' is not a GenAI convention operation; its {count} span(s) name a model "
            "(gen_ai.request.model) and are read as model calls"
        )
    if old:
        notes.append(
            f"{len(old)} span(s) report usage as gen_ai.usage.prompt_tokens/completion_tokens (GenAI semantic "
            "conventions before v1.27.0, now gen_ai.usage.input_tokens/output_tokens); read as input and output tokens"
        )
    if total_only:
        notes.append(
            f"{len(total_only)} span(s) report only gen_ai.usage.total_tokens (not a convention attribute); it is used as their tokens"
        )
    for r in raws:
        attribute_labels(r.attrs, labels, notes, f"span {show(r.name)} ({r.span_id})")
    conversation = sorted({c for r in raws if (c := _str_attr(r.attrs, "gen_ai.conversation.id"))})
    tid = raws[0].trace_id
    result = build_trace(
        spans,
        notes,
        trace_id=tid,
        task_id=conversation[0] if conversation else tid,
        system="opentelemetry: " + ", ".join(sorted({r.app for r in raws})),
        labels=labels,
        read_total=len(raws) + sum(n.startswith("unmapped") for n in notes),
    )
    result.shape = shape
    result.notes.insert(1, f"read as {shape}")
    return result
