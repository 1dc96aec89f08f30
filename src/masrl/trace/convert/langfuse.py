"""Langfuse trace exports -> spans for :mod:`masrl.trace.convert.spantree`.

Input: what Langfuse's public API returns for one trace (``GET
/api/public/traces/{id}``) and what its UI's "download trace" writes: either
``{"trace": {...}, "observations": [...]}`` or the trace object itself with an
``observations`` array. An observation has ``id``, ``traceId``,
``parentObservationId`` (null at the top), ``type``, ``name``, ``startTime`` and
``endTime`` (ISO-8601, ``endTime`` null while running), ``model``, and usage as
``usageDetails`` (``{"input": n, "output": n, "total": n, ...}``; the older API's
``usage: {input, output, total}`` is read too).

Observation types (Langfuse's vocabulary) -> kinds:

* ``AGENT`` -> an agent span (the agent is the observation's name);
* ``TOOL`` -> a tool span (the tool is the name);
* ``GENERATION`` -> a model call (``model``);
* ``GUARDRAIL`` -> a guardrail (``safety_event``);
* ``SPAN``, ``EVENT``, ``CHAIN``, ``RETRIEVER``, ``EVALUATOR``, ``EMBEDDING`` and any
  other type -> no event of their own (their tokens are kept, see spantree).

Tokens: ``total`` if given, else ``input + output``. The trace's ``name`` is the
application (the caller of top-level agents); ``sessionId`` is the task;
``metadata`` keys ``run``, ``step`` and ``policy`` become labels.
"""

from __future__ import annotations

from .common import (
    Conversion,
    ConvertError,
    iso_nanos,
    metadata_labels,
    read_json_values,
    usage_count,
    usage_mapping,
    usage_note,
)
from .span import status_error
from .spantree import AGENT, GUARDRAIL, MODEL, TOOL, Span, build_trace

KINDS = {"AGENT": AGENT, "TOOL": TOOL, "GENERATION": MODEL, "GUARDRAIL": GUARDRAIL}


def _document(values: list) -> tuple[dict, list] | None:
    if len(values) != 1 or not isinstance(values[0], dict):
        return None
    doc = values[0]
    observations = doc.get("observations")
    if not isinstance(observations, list):
        return None
    head = doc.get("trace") if isinstance(doc.get("trace"), dict) else doc
    return head, observations


def detect(values: list) -> bool:
    """True for ``{"trace", "observations"}`` or a trace object with observations."""
    found = _document(values)
    if found is None:
        return False
    _head, observations = found
    return all(isinstance(o, dict) and "type" in o and "startTime" in o for o in observations[:5])


def _tokens(obs: dict, label: str, bad: list) -> int | None:
    for key in ("usageDetails", "usage"):
        usage = usage_mapping(obs, key, label, bad)
        if usage:
            total = usage_count(usage, "total", label, bad)
            if total is not None:
                return int(total)
            parts = [usage_count(usage, k, label, bad) for k in ("input", "output")]
            found = [p for p in parts if p is not None]
            if found:
                return int(sum(found))
    return None


def _labels(head: dict) -> tuple[dict, list[str]]:
    meta = head.get("metadata")
    if isinstance(meta, str):  # the API returns metadata as a JSON string in some versions
        import json

        try:
            meta = json.loads(meta)
        except ValueError:
            return {}, ["metadata is text that is not JSON: no label read from it"]
    return metadata_labels(meta, "metadata")


def convert(data: bytes, file: str, trace_id: str | None = None) -> Conversion:
    """Convert one Langfuse trace export into a trace.

    Raises:
        ConvertError: not JSON, not a Langfuse trace export, or nothing to convert.
    """
    values = read_json_values(data, file)
    found = _document(values)
    if found is None:
        raise ConvertError(
            f"{file}: not a Langfuse trace export: expected {{\"trace\": ..., \"observations\": [...]}} "
            "or a trace object with an 'observations' array"
        )
    head, observations = found
    notes: list[str] = []
    bad: list[str] = []
    spans: list[Span] = []
    app = head.get("name") if isinstance(head.get("name"), str) and head.get("name") else "application"
    for k, obs in enumerate(observations):
        if not isinstance(obs, dict):
            notes.append(f"unmapped observation #{k + 1}: not a JSON object")
            continue
        oid = obs.get("id")
        name = obs.get("name") if isinstance(obs.get("name"), str) else ""
        if obs.get("name") is not None and not isinstance(obs.get("name"), str):
            notes.append(f"observation #{k + 1}: name {obs.get('name')!r} is not text; it is left unnamed")
        start = iso_nanos(obs.get("startTime"))
        if not (isinstance(oid, str) and oid and start is not None):
            notes.append(f"unmapped observation '{name}' (#{k + 1}): malformed (needs an id and a startTime)")
            continue
        parent = obs.get("parentObservationId")
        typ = obs.get("type") if isinstance(obs.get("type"), str) else ""
        end = iso_nanos(obs.get("endTime"))
        span = Span(oid, parent if isinstance(parent, str) and parent not in ("", "None") else "", name, start, end,
                    KINDS.get(typ, ""), k, app=app, op=f"type {typ or 'missing'} has no event type")
        span.tokens = _tokens(obs, span.label, bad)
        span.error = status_error(obs.get("level"), obs.get("statusMessage"))  # level ERROR: the observation failed
        if span.kind == AGENT:
            span.agent = name or f"agent@{oid}"
            span.role = name or None
        elif span.kind == TOOL:
            span.tool = name or "tool"
        elif span.kind == MODEL:
            model = obs.get("model")
            span.model = model if isinstance(model, str) and model else None
        elif span.kind == GUARDRAIL:
            span.guardrail = name or None
        spans.append(span)
    notes += usage_note(bad)
    if not spans:
        raise ConvertError(f"{file}: no observation to convert" + (": " + "; ".join(notes) if notes else ""))
    tid = head.get("id") if isinstance(head.get("id"), str) and head.get("id") else spans[0].span_id
    if trace_id is not None and trace_id != tid:
        raise ConvertError(f"{file}: holds trace {tid}, not {trace_id}")
    session = head.get("sessionId")
    labels, unread = _labels(head)
    result = build_trace(
        spans,
        notes,
        trace_id=tid,
        task_id=session if isinstance(session, str) and session else tid,
        system=f"langfuse: {app}",
        labels=labels,
        read_total=len(observations),
    )
    result.notes += unread
    result.shape = "Langfuse trace export"
    return result
