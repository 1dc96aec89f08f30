"""OpenInference spans (Arize Phoenix, the OpenInference instrumentations) -> spans for
:mod:`masrl.trace.convert.spantree`.

Shapes read (each is named in the notes):

* **OTLP JSON** and **OTLP JSON Lines** whose spans carry ``openinference.span.kind``
  (what an OpenInference instrumentation exports over OTLP/HTTP JSON, or the
  collector's file exporter writes), and **OTel SDK span JSON** of the same spans
  (``ConsoleSpanExporter``, ``ReadableSpan.to_json()``): read as in
  :mod:`masrl.trace.convert.otel`.
* **Phoenix span export**: the spans of ``GET /v1/projects/{project}/spans`` (``{"data":
  [span, ...]}``), a JSON array of them or one per line: ``name``, ``context: {trace_id,
  span_id}``, ``span_kind`` (the OpenInference kind), ``parent_id``, ``start_time`` and
  ``end_time`` (ISO-8601), ``attributes`` (dotted keys, or nested objects, which are
  flattened); and ``GET .../spans/otlpv1`` (``{"data": [span, ...]}`` with OTLP fields in
  snake case: ``trace_id``, ``span_id``, ``parent_span_id``, ``start_time_unix_nano``,
  ``attributes: [{key, value: {string_value | int_value | ...}}]``).

Span kinds (``openinference.span.kind``, else Phoenix's ``span_kind``) -> kinds:

* ``AGENT`` -> an agent span; the agent is ``agent.name``, else ``graph.node.id``, else
  the span's name. An AGENT span with neither ``agent.name`` nor ``graph.node.id`` that
  has named agent spans below it is the workflow that runs them (the OpenAI Agents
  instrumentation exports the SDK's trace so): the application, no event of its own.
* ``TOOL`` -> a tool span (``tool.name``, else the span's name); a TOOL span named
  ``handoff to NAME`` (the OpenAI Agents instrumentation's name for the SDK's handoff)
  -> a handoff from the owning agent to ``NAME`` (decision O2).
* ``LLM`` -> a model call (``llm.model_name``); tokens ``llm.token_count.total``, else
  ``llm.token_count.prompt + llm.token_count.completion``.
* ``GUARDRAIL`` -> a guardrail (``safety_event``).
* ``CHAIN`` (the spec's "starting point or link between steps": a run, a turn, glue
  code) -> **no event of its own, kept for structure**: its children attach to the
  nearest agent or tool above it and its tokens go to that agent, as for every span
  without an event. ``RETRIEVER``, ``RERANKER``, ``EMBEDDING``, ``EVALUATOR``,
  ``PROMPT`` and ``UNKNOWN`` alike.

Graph: ``graph.node.parent_id`` names the ``graph.node.id`` of the node that called this
one. An agent span whose graph parent is another agent span that contains it in time,
but is not above it in the span tree (a flattened or re-rooted export), is moved under
that agent: the parent agent spawns it (noted). Otherwise the span tree decides.

``task_id`` = ``session.id`` if any span has one, else the trace id; ``system`` =
``openinference: SERVICE`` (the resource's ``service.name``; ``application`` where the
export names none, as Phoenix's does not).
Labels: attributes ``masrl.label.KEY`` and ``metadata`` keys ``run``, ``step``, ``policy``.
"""

from __future__ import annotations

import json

from .common import Conversion, ConvertError, metadata_labels, read_json_values, usage_count, usage_note
from ..codes import show
from .otel import attribute_labels, _read_otlp_span, _read_sdk_span, one_trace, read_spans
from .spantree import AGENT, GUARDRAIL, HANDOFF, MODEL, TOOL, Span, build_trace

KIND_KEY = "openinference.span.kind"
KINDS = {"AGENT": AGENT, "TOOL": TOOL, "LLM": MODEL, "GUARDRAIL": GUARDRAIL}
OI_KINDS = frozenset(("AGENT", "TOOL", "LLM", "CHAIN", "GUARDRAIL", "RETRIEVER", "RERANKER", "EMBEDDING",
                      "EVALUATOR", "PROMPT", "UNKNOWN"))
HANDOFF_PREFIX = "handoff to "


# -- shapes ------------------------------------------------------------------------
def _phoenix_items(values: list) -> list | None:
    """The span objects of a Phoenix export (``{"data": [...]}``, an array, or one per line), else None."""
    if len(values) == 1 and isinstance(values[0], dict) and isinstance(values[0].get("data"), list):
        items = values[0]["data"]
    elif len(values) == 1 and isinstance(values[0], list):
        items = values[0]
    elif all(isinstance(v, dict) for v in values):
        items = values
    else:
        return None
    return items if items and all(isinstance(i, dict) for i in items[:5]) else None


def _is_phoenix_span(item: dict) -> bool:
    return isinstance(item.get("context"), dict) and "span_kind" in item or "span_id" in item and "trace_id" in item


def _has_kind(attrs) -> bool:
    if isinstance(attrs, list):
        return any(isinstance(a, dict) and a.get("key") == KIND_KEY for a in attrs)
    if isinstance(attrs, dict):
        return KIND_KEY in attrs or isinstance(attrs.get("openinference"), dict)
    return False


def detect(values: list) -> bool:
    """True when the spans carry OpenInference kinds (before the OpenTelemetry reader sees them)."""
    first = values[0]
    if isinstance(first, dict) and isinstance(first.get("resourceSpans"), list):
        for rs in first["resourceSpans"][:20]:
            scopes = rs.get("scopeSpans", rs.get("instrumentationLibrarySpans")) if isinstance(rs, dict) else None
            for ss in scopes if isinstance(scopes, list) else []:
                spans = ss.get("spans") if isinstance(ss, dict) else None
                if isinstance(spans, list) and any(isinstance(s, dict) and _has_kind(s.get("attributes")) for s in spans[:50]):
                    return True
        return False
    if isinstance(first, dict) and isinstance(first.get("spans"), list):
        return any(isinstance(s, dict) and _has_kind(s.get("attributes")) for s in first["spans"][:50])
    items = _phoenix_items(values)
    if not items:
        return False
    return any(
        _has_kind(i.get("attributes")) or (isinstance(i.get("span_kind"), str) and i["span_kind"] in OI_KINDS
                                           and isinstance(i.get("context"), dict))
        for i in items[:50]
    )


def _flatten(attrs: dict) -> dict:
    """Nested attribute objects (Phoenix's stored form) -> dotted keys; dotted keys are kept. ``metadata`` stays one
    object (its keys are labels: :func:`_metadata_labels`)."""
    if not any(isinstance(v, dict) for k, v in attrs.items() if k != "metadata"):
        return attrs
    out: dict = {}
    stack = [("", attrs, 0)]
    while stack:
        prefix, node, depth = stack.pop()
        for key, value in node.items():
            name = f"{prefix}{key}"
            if isinstance(value, dict) and depth < 16 and name != "metadata":
                stack.append((name + ".", value, depth + 1))
            else:
                out.setdefault(name, value)
    return out


_OTLP_SNAKE = {"trace_id": "traceId", "span_id": "spanId", "parent_span_id": "parentSpanId",
               "start_time_unix_nano": "startTimeUnixNano", "end_time_unix_nano": "endTimeUnixNano"}
_VALUE_SNAKE = {"string_value": "stringValue", "int_value": "intValue", "double_value": "doubleValue",
                "bool_value": "boolValue", "array_value": "arrayValue", "bytes_value": "bytesValue"}


def _otlp_from_snake(item: dict) -> dict:
    """A span of Phoenix's ``spans/otlpv1`` (OTLP in snake case) -> an OTLP JSON span."""
    span = {_OTLP_SNAKE.get(k, k): v for k, v in item.items()}
    attrs = item.get("attributes")
    if isinstance(attrs, list):
        span["attributes"] = [
            {"key": a.get("key"), "value": _snake_value(a.get("value"))} if isinstance(a, dict) else a for a in attrs
        ]
    return span


def _snake_value(value):
    if not isinstance(value, dict):
        return value
    out = {}
    for key, inner in value.items():
        camel = _VALUE_SNAKE.get(key, key)
        if camel == "arrayValue" and isinstance(inner, dict) and isinstance(inner.get("values"), list):
            inner = {"values": [_snake_value(v) for v in inner["values"]]}
        out[camel] = inner
    return out


def _read(values: list, file: str):
    """(raw spans, notes, shape, labels) for every shape in the module docstring."""
    first = values[0]
    if isinstance(first, dict) and ("resourceSpans" in first or isinstance(first.get("spans"), list)):
        raws, notes, shape, labels = read_spans(values, file)
        return raws, notes, shape, labels, {}
    items = _phoenix_items(values)
    if items is None:
        raise ConvertError(f"{file}: not an OpenInference export")
    notes: list[str] = []
    raws: list = []
    b64: list = []
    kinds: dict = {}
    if any("span_id" in i and "context" not in i for i in items[:5]):
        shape = "Phoenix span export (spans/otlpv1)"
        for item in items:
            _read_otlp_span(_otlp_from_snake(item), {}, raws, notes, b64)
    else:
        shape = "Phoenix span export" if isinstance(first, dict) and "data" in first else "OpenInference span JSON"
        for item in items:
            before = len(raws)
            _read_sdk_span(item, raws, notes, b64)
            if len(raws) > before and isinstance(item.get("span_kind"), str):
                kinds[raws[-1].span_id] = item["span_kind"]
    if b64:
        notes.append(f"{len(b64)} ids were base64 (protobuf JSON mapping); they are converted to hex")
    return raws, notes, shape, {}, kinds


# -- mapping -------------------------------------------------------------------------
def _str(attrs: dict, *keys: str) -> str | None:
    for key in keys:
        value = attrs.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _kind(raw, kinds: dict) -> str:
    value = raw.attrs.get(KIND_KEY)
    if not isinstance(value, str):
        value = kinds.get(raw.span_id, "")
    return value.upper() if isinstance(value, str) else ""


def _tokens(attrs: dict, label: str, bad: list) -> int | None:
    total = usage_count(attrs, "llm.token_count.total", label, bad)
    if total is not None:
        return int(total)
    parts = [usage_count(attrs, k, label, bad) for k in ("llm.token_count.prompt", "llm.token_count.completion")]
    found = [p for p in parts if p is not None]
    return int(sum(found)) if found else None


def _to_spans(raws: list, kinds: dict, notes: list) -> list[Span]:
    bad: list[str] = []
    spans: list[Span] = []
    for raw in raws:
        raw.attrs = _flatten(raw.attrs)
        kind = _kind(raw, kinds)
        span = Span(raw.span_id, raw.parent_id, raw.name, raw.start, raw.end, KINDS.get(kind, ""), raw.order,
                    app=raw.app, op=f"kind {kind or 'missing'} has no event type", error=raw.error)
        attrs = raw.attrs
        span.tokens = _tokens(attrs, span.label, bad)
        if span.kind == AGENT:
            span.agent = _str(attrs, "agent.name", "graph.node.id") or raw.name or f"agent@{raw.span_id}"
            span.role = _str(attrs, "agent.name")
        elif span.kind == TOOL:
            span.tool = _str(attrs, "tool.name") or raw.name or "tool"
            if span.tool.startswith(HANDOFF_PREFIX) and len(span.tool) > len(HANDOFF_PREFIX):
                span.kind = HANDOFF
                span.handoff_to = span.tool[len(HANDOFF_PREFIX):]
        elif span.kind == MODEL:
            span.model = _str(attrs, "llm.model_name")
        elif span.kind == GUARDRAIL:
            span.guardrail = _str(attrs, "guardrail.name") or raw.name or None
        spans.append(span)
    notes += usage_note(bad)
    return spans


def _link(spans: list[Span], raws: list, notes: list) -> None:
    """Workflow wrappers, handoff senders and graph parents (rules in the module docstring)."""
    by_id = {s.span_id: s for s in spans}
    parent = {s.span_id: by_id.get(s.parent_id) for s in spans}

    def agent_above(span: Span) -> Span | None:
        seen = 0
        p = parent.get(span.span_id)
        while p is not None and seen < len(spans):
            if p.kind == AGENT:
                return p
            p = parent.get(p.span_id)
            seen += 1
        return None

    attrs = {r.span_id: r.attrs for r in raws}
    named = {s.span_id for s in spans if s.kind == AGENT and _str(attrs[s.span_id], "agent.name", "graph.node.id")}
    for span in spans:
        if span.kind == AGENT and span.span_id not in named:
            below = [s for s in spans if s.span_id in named and _is_below(s, span, parent, len(spans))]
            if below:
                span.kind = ""
                span.op = ("an AGENT span without agent.name or graph.node.id that runs the named agents below it: "
                           "the workflow (the application, which is not an agent)")
    for span in spans:
        if span.kind == HANDOFF:
            owner = agent_above(span)
            span.handoff_from = owner.agent if owner is not None else None
            span.name = f"handoff {span.handoff_from or '?'} -> {span.handoff_to}"
    nodes: dict[str, list[Span]] = {}
    for span in spans:
        node = _str(attrs[span.span_id], "graph.node.id")
        if span.kind == AGENT and node:
            nodes.setdefault(node, []).append(span)

    def containing(target: Span, span: Span) -> bool:
        end = span.end if span.end is not None else span.start
        return target.start <= span.start and end <= (target.end if target.end is not None else end)

    for span in spans:
        gparent = _str(attrs[span.span_id], "graph.node.parent_id")
        if span.kind != AGENT or not gparent or gparent not in nodes:
            continue
        # the run of that node whose span contains this one (a node may run several times), whatever the order
        runs = sorted((t for t in nodes[gparent] if t is not span and containing(t, span)),
                      key=lambda t: (-t.start, t.span_id))
        if not runs:
            continue
        target = runs[0]
        above = agent_above(span)
        if above is target or _is_below(target, span, parent, len(spans)):
            continue
        span.parent_id = target.span_id
        parent[span.span_id] = target
        notes.append(f"{span.label}: graph.node.parent_id '{gparent}' names agent '{target.agent}' "
                     f"({target.label}), whose span contains it; moved under it (it spawns '{span.agent}')")


def _is_below(span: Span, top: Span, parent: dict, limit: int) -> bool:
    p, seen = parent.get(span.span_id), 0
    while p is not None and seen < limit:
        if p is top:
            return True
        p, seen = parent.get(p.span_id), seen + 1
    return False


def _metadata_labels(raws: list, labels: dict, notes: list) -> None:
    """The labels of the spans' ``metadata`` (a JSON object, or its text), the first span's first; a note for a
    value no label can hold, and for metadata text that is not JSON."""
    for raw in raws:
        meta = raw.attrs.get("metadata")
        if isinstance(meta, str):
            try:
                meta = json.loads(meta)
            except ValueError:
                notes.append(f"span {raw.span_id}: metadata is text that is not JSON: no label read from it")
                continue
        found, unread = metadata_labels(meta, f"span {raw.span_id}: metadata")
        for key, value in found.items():
            labels.setdefault(key, value)
        notes += unread


def convert(data: bytes, file: str, trace_id: str | None = None) -> Conversion:
    """Convert an OpenInference export (any shape in the module docstring) into a trace.

    Raises:
        ConvertError: not JSON, not an OpenInference export, several traces and no
            ``trace_id``, or nothing to convert.
    """
    values = read_json_values(data, file)
    if not detect(values):
        raise ConvertError(
            f"{file}: not an OpenInference export: expected spans with the attribute '{KIND_KEY}' (OTLP JSON, "
            "JSON Lines of it, OTel SDK span JSON) or a Phoenix span export ({\"data\": [spans with 'context' and "
            "'span_kind']})"
        )
    raws, notes, shape, labels, kinds = _read(values, file)
    raws = one_trace(raws, notes, file, trace_id)
    spans = _to_spans(raws, kinds, notes)
    _link(spans, raws, notes)
    for r in raws:
        attribute_labels(r.attrs, labels, notes, f"span {show(r.name)} ({r.span_id})")
    _metadata_labels(raws, labels, notes)
    sessions = sorted({s for r in raws if (s := _str(r.attrs, "session.id"))})
    tid = raws[0].trace_id
    apps = sorted({r.app for r in raws})
    result = build_trace(
        spans,
        notes,
        trace_id=tid,
        task_id=sessions[0] if sessions else tid,
        system="openinference: " + ", ".join(apps),
        labels=labels,
        read_total=len(raws) + sum(n.startswith("unmapped") for n in notes),
    )
    result.shape = shape
    result.notes.insert(1, f"read as {shape}")
    return result
