"""OpenTelemetry GenAI agent spans (OTLP JSON) -> an orchestration trace.

Input: an OTLP JSON trace export, ``{"resourceSpans": [{"resource": {"attributes":
[...]}, "scopeSpans": [{"spans": [...]}]}]}``; each span has ``traceId``, ``spanId``,
``parentSpanId``, ``name``, ``startTimeUnixNano``, ``endTimeUnixNano`` and
``attributes`` as ``[{"key": k, "value": {"stringValue"|"intValue"|"doubleValue"|
"boolValue"|"arrayValue"|"kvlistValue": ...}}]``. Attribute names follow the GenAI
semantic conventions (status Development): ``gen_ai.operation.name`` (create_agent,
invoke_agent, invoke_workflow, execute_tool, chat, text_completion,
generate_content, embeddings, ...), ``gen_ai.agent.name``, ``gen_ai.agent.id``,
``gen_ai.tool.name``, ``gen_ai.request.model``, ``gen_ai.usage.input_tokens``,
``gen_ai.usage.output_tokens``, ``gen_ai.conversation.id``.

The mapping (this project's, table in docs/traces.md):

* ``invoke_agent`` span of agent A called by C -> ``spawn`` (agent C, to A) at the
  span's start and ``return`` (agent A, from A, to C) at its end. C is the agent of
  the nearest agent-span ancestor, else the application (resource ``service.name``,
  default ``application``). A is ``gen_ai.agent.id``, else ``gen_ai.agent.name``,
  else the span name without its ``invoke_agent`` prefix; the role is the name.
* ``create_agent`` -> one ``spawn`` (agent C, to A) at the span's start.
* ``execute_tool`` -> ``tool_call`` (agent: the owning agent, tool) at the start and
  ``tool_result`` (agent and tool: the tool name, as in the survey's example) at the end.
* ``chat``/``text_completion``/``generate_content`` inside an agent that invokes or
  creates other agents -> ``orchestrator_decision`` at the span's end (with
  ``tokens`` and ``model``); inside a leaf agent -> no event: its tokens are added to
  the agent's ``return`` event (counted as "folded" on stderr).
* anything else (``invoke_workflow``, ``embeddings``, spans without
  ``gen_ai.operation.name``, a model call outside any agent, malformed spans,
  duplicate span ids, spans whose parent chain is a cycle) -> no event; each is
  reported on stderr with its name and span id. Children of a transparent span are
  kept and attached to the nearest mapped ancestor. A span whose ``parentSpanId`` is
  not in the file is a root (reported).
* Times: ``t = (start - earliest start) / 1e9`` seconds, rounded to nanoseconds.
* Edges, inside each agent or tool span P, over its mapped child spans in start
  order: a child depends on the ends of the earlier siblings that ended no later
  than it started and that no sibling depends on yet (a join); if there are none,
  on whatever the previous child depended on (parallel siblings fork from one
  point), at first P's start event. Child ends nothing depends on flow into P's end
  event; a span without children links its start to its end. Top-level spans are
  chained the same way without a start event. An edge's type follows its destination: ``spawn`` into a spawn,
  ``tool_dependency`` into a tool_call, ``return`` from a tool_call to its
  tool_result, ``causal`` otherwise.
* Tokens: input + output tokens of each span that has usage attributes and no
  descendant with them (so totals rolled up into parent spans are not counted
  twice); ``costs.tokens`` is their sum over mapped spans, ``costs.wall_clock_s``
  the export's time span, ``rewards`` is ``{}`` (OpenTelemetry records none).
"""

from __future__ import annotations

import heapq
import json
from dataclasses import dataclass, field

AGENT_OPS = ("invoke_agent", "create_agent")
TOOL_OPS = ("execute_tool",)
MODEL_OPS = ("chat", "text_completion", "generate_content")
KNOWN_OPS = AGENT_OPS + TOOL_OPS + MODEL_OPS + ("invoke_workflow", "embeddings", "retrieval")


class OtelError(ValueError):
    """The input is not an OTLP JSON trace export this converter can read."""


@dataclass
class Span:
    """One span, with its attributes flattened."""

    span_id: str
    parent_id: str
    trace_id: str
    name: str
    start: int
    end: int
    attrs: dict
    app: str
    order: int
    kind: str = ""  # agent, tool, model, or "" (no event of its own)
    children: list = field(default_factory=list)
    usage: int | None = None  # input + output tokens of this span's own attributes
    usage_below: bool = False  # a descendant has usage attributes
    agents_below: bool = False  # a descendant invokes or creates an agent
    agent: str = ""  # agent spans: the agent's identity
    owner: str = ""  # the acting agent (the caller, for agent spans)
    folded_tokens: int = 0  # tokens of leaf-agent model calls folded into this agent span
    first: dict | None = None  # first event emitted for this span
    last: dict | None = None  # last event emitted for this span


@dataclass
class Conversion:
    """Result of :func:`convert_otlp`: the trace and the lines to print on stderr."""

    trace: dict
    notes: list[str]
    unmapped: int
    spans: int


def _attr_value(value):
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return None
    if "doubleValue" in value:
        v = value["doubleValue"]
        return float(v) if isinstance(v, (int, float, str)) and not isinstance(v, bool) else None
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_attr_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return _attributes((value["kvlistValue"] or {}).get("values", []))
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def _attributes(items) -> dict:
    out = {}
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("key"), str):
                out[item["key"]] = _attr_value(item.get("value"))
    return out


def _nanos(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _operation(span: Span) -> str | None:
    op = span.attrs.get("gen_ai.operation.name")
    if isinstance(op, str) and op:
        return op
    first = span.name.split(" ", 1)[0]
    return first if first in KNOWN_OPS else None


def _read_spans(doc, notes: list[str]) -> list[Span]:
    if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans"), list):
        raise OtelError("not an OTLP JSON trace export: the top level needs a 'resourceSpans' array")
    spans: list[Span] = []
    order = 0
    for rs in doc["resourceSpans"]:
        if not isinstance(rs, dict):
            continue
        resource = _attributes((rs.get("resource") or {}).get("attributes", []))
        app = resource.get("service.name")
        app = app if isinstance(app, str) and app else "application"
        for ss in rs.get("scopeSpans", rs.get("instrumentationLibrarySpans", [])) or []:
            for raw in (ss or {}).get("spans", []) or []:
                order += 1
                if not isinstance(raw, dict):
                    notes.append(f"unmapped span #{order}: not a JSON object")
                    continue
                span_id, trace_id = raw.get("spanId"), raw.get("traceId")
                name = raw.get("name") if isinstance(raw.get("name"), str) else ""
                start, end = _nanos(raw.get("startTimeUnixNano")), _nanos(raw.get("endTimeUnixNano"))
                if not (isinstance(span_id, str) and span_id and isinstance(trace_id, str) and trace_id and start is not None and end is not None):
                    notes.append(
                        f"unmapped span '{name}' (span {span_id if isinstance(span_id, str) else '?'}): "
                        "malformed (needs traceId, spanId, startTimeUnixNano and endTimeUnixNano)"
                    )
                    continue
                parent = raw.get("parentSpanId")
                spans.append(
                    Span(span_id, parent if isinstance(parent, str) else "", trace_id, name, start, end,
                         _attributes(raw.get("attributes", [])), app, order)
                )
    return spans


def _usage(span: Span) -> int | None:
    total = None
    for key in ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"):
        v = span.attrs.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0:
            total = (total or 0) + int(v)
    return total


def _agent_name(span: Span) -> str:
    for key in ("gen_ai.agent.id", "gen_ai.agent.name"):
        v = span.attrs.get(key)
        if isinstance(v, str) and v:
            return v
    rest = span.name.split(" ", 1)
    if len(rest) == 2 and rest[0] in AGENT_OPS and rest[1].strip():
        return rest[1].strip()
    return f"agent@{span.span_id}"


def _tool_name(span: Span) -> str:
    v = span.attrs.get("gen_ai.tool.name")
    if isinstance(v, str) and v:
        return v
    rest = span.name.split(" ", 1)
    if len(rest) == 2 and rest[1].strip():
        return rest[1].strip()
    return "tool"


def convert_otlp(data: bytes, file: str, trace_id: str | None = None) -> Conversion:
    """Convert the bytes of an OTLP JSON export into an orchestration trace.

    Args:
        data: the export's bytes (UTF-8 JSON).
        file: its name, for messages.
        trace_id: which OpenTelemetry trace to convert when the export holds several.

    Returns:
        A :class:`Conversion` (the trace dict is not yet validated; the CLI validates it).

    Raises:
        OtelError: not UTF-8 JSON, not an OTLP export, several traces and no
            ``trace_id``, or no convertible span.
    """
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as err:
        raise OtelError(f"{file}: not UTF-8 text (invalid byte at offset {err.start})") from None
    except json.JSONDecodeError as err:
        raise OtelError(f"{file}: not valid JSON: {err.msg} (line {err.lineno}, column {err.colno})") from None
    except (RecursionError, ValueError) as err:
        raise OtelError(f"{file}: cannot read the JSON: {err}") from None
    notes: list[str] = []
    spans = _read_spans(doc, notes)
    trace_ids = sorted({s.trace_id for s in spans})
    if trace_id is None and len(trace_ids) > 1:
        raise OtelError(f"{file}: holds {len(trace_ids)} traces ({', '.join(trace_ids)}); choose one with --trace-id")
    if trace_id is not None:
        if trace_id not in trace_ids:
            raise OtelError(f"{file}: no span has traceId {trace_id}; found: {', '.join(trace_ids) or 'none'}")
        spans = [s for s in spans if s.trace_id == trace_id]
    if not spans:
        raise OtelError(f"{file}: no span to convert")
    return _convert(spans, notes, trace_ids[0] if trace_id is None else trace_id)


def _reject_constant(text: str):
    raise ValueError(f"{text} is not a JSON number")


def _convert(spans: list[Span], notes: list[str], trace_id: str) -> Conversion:
    total_spans = len(spans) + sum(1 for n in notes if n.startswith("unmapped span"))
    by_id: dict[str, Span] = {}
    for span in spans:
        if span.span_id in by_id:
            notes.append(f"unmapped span '{span.name}' (span {span.span_id}): duplicate spanId; the first one is kept")
            continue
        by_id[span.span_id] = span
    roots = []
    for span in by_id.values():
        if span.end < span.start:
            notes.append(f"span '{span.name}' (span {span.span_id}): ends before it starts; its end is set to its start")
            span.end = span.start
        parent = by_id.get(span.parent_id) if span.parent_id else None
        if span.parent_id and parent is None:
            notes.append(f"span '{span.name}' (span {span.span_id}): parent {span.parent_id} is not in the file; treated as a root")
        if parent is None or parent is span:
            if parent is span:
                notes.append(f"unmapped span '{span.name}' (span {span.span_id}): it is its own parent")
                continue
            roots.append(span)
        else:
            parent.children.append(span)
    reached: list[Span] = []
    stack = sorted(roots, key=lambda s: (s.start, s.order), reverse=True)
    seen = set()
    while stack:
        span = stack.pop()
        seen.add(span.span_id)
        reached.append(span)
        span.children.sort(key=lambda s: (s.start, s.order))
        stack.extend(reversed(span.children))
    for span in by_id.values():
        if span.span_id not in seen and span.parent_id != span.span_id:
            notes.append(f"unmapped span '{span.name}' (span {span.span_id}): its parent chain is a cycle")
    for span in reversed(reached):  # post-order facts, bottom-up
        span.usage = _usage(span)
        span.usage_below = any(c.usage is not None or c.usage_below for c in span.children)
        span.agents_below = any(_operation(c) in AGENT_OPS or c.agents_below for c in span.children)
    t0 = min(s.start for s in reached) if reached else 0
    builder = _Builder(t0)
    roots.sort(key=lambda s: (s.start, s.order))
    ordered: list[Span] = []
    for root in roots:
        ordered.extend(builder.classify(root))
    for span in ordered:
        if span.kind:
            builder.emit_span(span)
    for span in ordered:
        if span.kind in ("agent", "tool") and span.first is not span.last:
            builder.wire(span)
    top = []
    for root in roots:
        top.extend([root] if root.kind else builder.mapped_children(root))
    builder.chain(sorted(top, key=lambda s: (s.start, s.order)), None)
    notes.extend(builder.notes)
    if not builder.events:
        raise OtelError("no span could be mapped to an event:\n  " + "\n  ".join(notes))
    unmapped = sum(1 for n in notes if n.startswith("unmapped span"))
    events = sorted(builder.events, key=lambda e: (e["t"], builder.rank[e["id"]]))
    end = max((s.end for s in reached), default=t0)
    conversation = sorted({s.attrs["gen_ai.conversation.id"] for s in reached if isinstance(s.attrs.get("gen_ai.conversation.id"), str)})
    trace = {
        "trace_id": trace_id,
        "task_id": conversation[0] if conversation else trace_id,
        "system": "opentelemetry: " + ", ".join(sorted({s.app for s in reached})) if reached else "opentelemetry",
        "topology": "unknown",
        "events": events,
        "edges": builder.edges,
        "rewards": {},
        "costs": {
            "tokens": builder.tokens,
            "wall_clock_s": round((end - t0) / 1e9, 9),
            "tool_calls": builder.tool_calls,
            "messages": 0,
        },
    }
    summary = (
        f"converted {total_spans - unmapped} of {total_spans} spans into {len(events)} events and "
        f"{len(builder.edges)} edges; {unmapped} unmapped"
        + (f"; {builder.folded} model-call spans of leaf agents folded into their agent's return tokens" if builder.folded else "")
    )
    return Conversion(trace, [summary, *notes], unmapped, total_spans)


class _Builder:
    """Emits the events and edges of the span trees (every walk iterative)."""

    def __init__(self, t0: int):
        self.t0 = t0
        self.events: list[dict] = []
        self.edges: list[dict] = []
        self.rank: dict[str, int] = {}
        self.notes: list[str] = []
        self.tokens = 0
        self.tool_calls = 0
        self.folded = 0

    def emit(self, id: str, nanos: int, type: str, agent: str, **fields) -> dict:
        event = {"id": id, "t": round((nanos - self.t0) / 1e9, 9), "type": type, "agent": agent}
        event.update({k: v for k, v in fields.items() if v is not None})
        self.rank[id] = len(self.events)
        self.events.append(event)
        return event

    def link(self, src: dict, dst: dict) -> None:
        if dst["type"] == "spawn":
            typ = "spawn"
        elif dst["type"] == "tool_call":
            typ = "tool_dependency"
        elif dst["type"] == "tool_result" and src["type"] == "tool_call":
            typ = "return"
        else:
            typ = "causal"
        self.edges.append({"src": src["id"], "dst": dst["id"], "type": typ})

    @staticmethod
    def own_tokens(span: Span) -> int:
        """The span's usage, unless a descendant carries usage too (then that is counted)."""
        return 0 if span.usage is None or span.usage_below else span.usage

    def classify(self, root: Span) -> list[Span]:
        """Decide each span's kind and owner (pre-order); returns the spans in that order."""
        stack = [(root, root.app, None)]
        order: list[Span] = []
        while stack:
            span, owner, owner_span = stack.pop()
            op = _operation(span)
            child_owner, child_span = owner, owner_span
            if op in AGENT_OPS:
                span.kind, span.agent, span.owner = "agent", _agent_name(span), owner
                child_owner, child_span = span.agent, span
            elif op in TOOL_OPS:
                span.kind, span.owner = "tool", owner
            elif op in MODEL_OPS:
                if owner_span is None:
                    self.notes.append(f"unmapped span '{span.name}' (span {span.span_id}): model call outside any agent")
                elif owner_span.agents_below:
                    span.kind, span.owner = "model", owner
                else:
                    owner_span.folded_tokens += self.own_tokens(span)
                    self.folded += 1
            else:
                what = f"operation {op} has no event type" if op else "no gen_ai.operation.name"
                self.notes.append(f"unmapped span '{span.name}' (span {span.span_id}): {what}; its children are kept")
            order.append(span)
            stack.extend((c, child_owner, child_span) for c in reversed(span.children))
        return order

    def emit_span(self, span: Span) -> None:
        sid = span.span_id
        tokens = self.own_tokens(span)
        if span.kind == "agent":
            role = span.attrs.get("gen_ai.agent.name")
            role = role if isinstance(role, str) and role else None
            if _operation(span) == "create_agent":
                span.first = span.last = self.emit(sid, span.start, "spawn", span.owner, to=span.agent, role=role,
                                                   tokens=tokens or None)
                self.tokens += tokens
                return
            total = tokens + span.folded_tokens
            span.first = self.emit(f"{sid}:start", span.start, "spawn", span.owner, to=span.agent, role=role)
            span.last = self.emit(
                f"{sid}:end", span.end, "return", span.agent, role=role,
                tokens=total or None, **{"from": span.agent, "to": span.owner},
            )
            self.tokens += total
        elif span.kind == "tool":
            name = _tool_name(span)
            self.tool_calls += 1
            span.first = self.emit(f"{sid}:start", span.start, "tool_call", span.owner, tool=name, tokens=tokens or None)
            span.last = self.emit(f"{sid}:end", span.end, "tool_result", name, tool=name)
            self.tokens += tokens
        else:  # a model call of an agent that invokes or creates other agents
            model = span.attrs.get("gen_ai.request.model")
            span.first = span.last = self.emit(
                sid, span.end, "orchestrator_decision", span.owner,
                tokens=tokens or None, model=model if isinstance(model, str) else None,
            )
            self.tokens += tokens

    @staticmethod
    def mapped_children(span: Span) -> list[Span]:
        """Descendants that produce events, looking through spans that produce none."""
        out, stack = [], list(span.children)
        while stack:
            s = stack.pop()
            if s.kind:
                out.append(s)
            else:
                stack.extend(s.children)
        return sorted(out, key=lambda s: (s.start, s.order))

    def chain(self, kids: list[Span], head) -> list:
        """Link sibling spans in start order; returns the end events nothing follows.

        A child depends on every earlier sibling's end that came no later than its
        start and that no other sibling consumed yet (a join); if there is none, it
        depends on what the previous child depended on (a fork), initially ``head``.
        """
        pending: list = []  # heap of (end, order, end event)
        fork = [head] if head is not None else []
        for kid in kids:
            ready = []
            while pending and pending[0][0] <= kid.start:
                ready.append(heapq.heappop(pending)[2])
            preds = ready or fork
            for pred in preds:
                self.link(pred, kid.first)
            fork = preds
            heapq.heappush(pending, (kid.end, kid.order, kid.last))
        return [event for _end, _order, event in sorted(pending, key=lambda x: (x[0], x[1]))]

    def wire(self, span: Span) -> None:
        """Edges inside an agent or tool span."""
        kids = self.mapped_children(span)
        if not kids:
            if span.first is not span.last:
                self.link(span.first, span.last)
            return
        for end in self.chain(kids, span.first):
            if end is not span.last:
                self.link(end, span.last)
