"""MLflow trace JSON -> spans for :mod:`masrl.trace.convert.spantree`.

Shapes read (``Trace.to_json()``, what ``mlflow traces get`` prints, and the UI's export;
each is named in the notes):

* **MLflow 3** (trace schema version 3): ``{"info": {"trace_id", "request_time",
  "state", "trace_metadata", "tags", ...}, "data": {"spans": [...]}}``; a span has
  ``trace_id``, ``span_id`` and ``parent_span_id`` (base64 of the OpenTelemetry ids),
  ``name``, ``start_time_unix_nano``, ``end_time_unix_nano``, ``status``, ``attributes``;
* **MLflow 2**: ``{"info": {"request_id", "timestamp_ms", "request_metadata", "tags",
  ...}, "data": {"spans": [...]}}``; a span has ``context: {trace_id, span_id}``
  (``0x`` hex), ``parent_id``, ``start_time`` and ``end_time`` (nanoseconds),
  ``status_code``, ``attributes``;
* a JSON array of such traces (choose one with ``trace_id``), and a Databricks
  inference-table response that carries one in ``databricks_output.trace``.

Attribute values are JSON text (MLflow writes ``"mlflow.spanType": "\\"AGENT\\""``);
each is decoded. Span types (``mlflow.spanType``; a span that MLflow took in from
another convention without one is read by its ``openinference.span.kind`` or
``gen_ai.operation.name``):

* ``AGENT`` -> an agent span (the agent is the span's name);
* ``TOOL`` -> a tool span (the span's name);
* ``CHAT_MODEL``, ``LLM`` -> a model call; tokens from ``mlflow.chat.tokenUsage``
  (``total_tokens``, else ``input_tokens + output_tokens``); the model from the
  span's inputs (``model``) where given;
* ``CHAIN``, ``RETRIEVER``, ``RERANKER``, ``EMBEDDING``, ``PARSER``, ``MEMORY``,
  ``UNKNOWN`` and any other type -> no event (their tokens are kept).

The application (the caller of the top agents, never an agent) is the trace's source
(``mlflow.source.name``), not the trace name, which is only the root span's name.
``task_id`` is the session (``mlflow.trace.session``) where given, else the trace id;
labels come from tags or metadata ``run``, ``step``, ``policy``.
"""

from __future__ import annotations

import json

from .common import Conversion, ConvertError, metadata_labels, read_json_values, usage_count, usage_mapping, usage_note
from .otel import _nanos, norm_id
from .span import status_error
from .spantree import AGENT, MODEL, TOOL, Span, build_trace

KINDS = {"AGENT": AGENT, "TOOL": TOOL, "CHAT_MODEL": MODEL, "LLM": MODEL}
OTHER_KINDS = {"AGENT": AGENT, "TOOL": TOOL, "LLM": MODEL, "invoke_agent": AGENT, "execute_tool": TOOL,
               "chat": MODEL, "text_completion": MODEL, "generate_content": MODEL}


def _unwrap(value):
    if isinstance(value, dict) and isinstance(value.get("databricks_output"), dict):
        inner = value["databricks_output"].get("trace")
        if isinstance(inner, dict):
            return inner
    return value


def _is_trace(value) -> bool:
    value = _unwrap(value)
    return (isinstance(value, dict) and isinstance(value.get("info"), dict) and isinstance(value.get("data"), dict)
            and isinstance(value["data"].get("spans"), list))


def _traces(values: list) -> list | None:
    if len(values) == 1 and isinstance(values[0], list):
        items = values[0]
    else:
        items = values
    items = [_unwrap(v) for v in items]
    return items if items and all(_is_trace(v) for v in items) else None


def detect(values: list) -> bool:
    """True for MLflow trace JSON: ``{"info": {...}, "data": {"spans": [...]}}`` (or an array of them)."""
    return _traces(values) is not None


def _decoded(attrs) -> dict:
    """MLflow's JSON-encoded attribute values, decoded (a value that is not JSON text is kept as given)."""
    if not isinstance(attrs, dict):
        return {}
    out = {}
    for key, value in attrs.items():
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                pass
        out[key] = value
    return out


def _trace_id(trace: dict) -> str:
    info = trace["info"]
    for key in ("trace_id", "request_id"):
        value = info.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _choose(traces: list, file: str, trace_id: str | None) -> dict:
    ids = [_trace_id(t) for t in traces]
    if trace_id is not None:
        if trace_id not in ids:
            raise ConvertError(f"{file}: no trace has id {trace_id}; found: {', '.join(i for i in ids if i) or 'none'}")
        return traces[ids.index(trace_id)]
    if len(traces) > 1:
        raise ConvertError(f"{file}: holds {len(traces)} traces ({', '.join(ids)}); choose one with --trace-id")
    return traces[0]


def _meta(trace: dict) -> dict:
    info = trace["info"]
    out = {}
    for key in ("tags", "trace_metadata", "request_metadata"):
        value = info.get(key)
        if isinstance(value, dict):
            for k, v in value.items():
                out.setdefault(k, v)
    return out


def _tokens(attrs: dict, label: str, bad: list) -> int | None:
    usage = usage_mapping(attrs, "mlflow.chat.tokenUsage", label, bad)
    if usage is None:
        return None
    total = usage_count(usage, "total_tokens", label, bad)
    if total is not None:
        return int(total)
    parts = [usage_count(usage, k, label, bad) for k in ("input_tokens", "output_tokens")]
    found = [p for p in parts if p is not None]
    return int(sum(found)) if found else None


def _span(raw, k: int, app: str, notes: list, b64: list, bad: list) -> Span | None:
    if not isinstance(raw, dict):
        notes.append(f"unmapped span #{k + 1}: not a JSON object")
        return None
    name = raw.get("name") if isinstance(raw.get("name"), str) else ""
    context = raw.get("context")
    if isinstance(context, dict):  # MLflow 2
        sid, parent = norm_id(context.get("span_id"), 8, b64), norm_id(raw.get("parent_id"), 8, b64)
        start, end = _nanos(raw.get("start_time")), _nanos(raw.get("end_time"))
    else:  # MLflow 3
        sid, parent = norm_id(raw.get("span_id"), 8, b64), norm_id(raw.get("parent_span_id"), 8, b64)
        start, end = _nanos(raw.get("start_time_unix_nano")), _nanos(raw.get("end_time_unix_nano"))
    if not sid or start is None:
        notes.append(f"unmapped span '{name}' (#{k + 1}): malformed (needs a span id and a start time)")
        return None
    attrs = _decoded(raw.get("attributes"))
    typ = attrs.get("mlflow.spanType")
    kind = KINDS.get(typ) if isinstance(typ, str) else None
    if kind is None and typ is None:
        for key in ("openinference.span.kind", "gen_ai.operation.name"):
            other = attrs.get(key)
            if isinstance(other, str) and other in OTHER_KINDS:
                kind = OTHER_KINDS[other]
                break
    span = Span(sid, parent, name, start, end or None, kind or "", k, app=app,
                op=f"span type {typ if isinstance(typ, str) else 'missing'} has no event type")
    span.tokens = _tokens(attrs, span.label, bad)
    span.error = status_error(raw.get("status", raw.get("status_code")), raw.get("status_message"),  # MLflow 3, MLflow 2
                              raw.get("events"))
    if kind == AGENT:
        span.agent = name or f"agent@{sid}"
        span.role = name or None
    elif kind == TOOL:
        span.tool = name or "tool"
    elif kind == MODEL:
        inputs = attrs.get("mlflow.spanInputs")
        model = inputs.get("model") if isinstance(inputs, dict) else None
        span.model = model if isinstance(model, str) and model else None
    return span


def convert(data: bytes, file: str, trace_id: str | None = None) -> Conversion:
    """Convert one MLflow trace into a trace (rules in the module docstring).

    Raises:
        ConvertError: not JSON, not MLflow trace JSON, several traces and no
            ``trace_id``, or nothing to convert.
    """
    values = read_json_values(data, file)
    traces = _traces(values)
    if traces is None:
        raise ConvertError(
            f"{file}: not MLflow trace JSON: expected {{\"info\": {{...}}, \"data\": {{\"spans\": [...]}}}} "
            "(Trace.to_json(), mlflow traces get) or an array of them"
        )
    trace = _choose(traces, file, trace_id)
    meta = _meta(trace)
    v3 = "trace_id" in trace["info"]
    shape = f"MLflow {'3' if v3 else '2'} trace JSON"
    source = meta.get("mlflow.source.name")
    app = source if isinstance(source, str) and source else "application"
    notes: list[str] = []
    b64: list = []
    bad: list[str] = []
    raw_spans = trace["data"]["spans"]
    spans = [s for k, raw in enumerate(raw_spans) if (s := _span(raw, k, app, notes, b64, bad)) is not None]
    notes += usage_note(bad)
    if b64 and not v3:
        notes.append(f"{len(b64)} ids were base64 (protobuf JSON mapping); they are converted to hex")
    if not spans:
        raise ConvertError(f"{file}: no span to convert" + (": " + "; ".join(notes) if notes else ""))
    tid = _trace_id(trace) or spans[0].span_id
    session = meta.get("mlflow.trace.session")
    labels, unread = metadata_labels(meta, "trace metadata")
    notes += unread
    result = build_trace(
        spans,
        notes,
        trace_id=tid,
        task_id=session if isinstance(session, str) and session else tid,
        system=f"mlflow: {app}",
        labels=labels,
        read_total=len(raw_spans),
    )
    result.shape = shape
    result.notes.insert(1, f"read as {shape}")
    return result
