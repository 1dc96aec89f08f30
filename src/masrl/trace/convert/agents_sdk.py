"""OpenAI Agents SDK trace exports -> spans for :mod:`masrl.trace.convert.spantree`.

Shape, from the SDK's source (openai/openai-agents-python, ``src/agents/tracing/``):

* a batch as the SDK's backend exporter sends it, ``{"data": [item, ...]}``
  (``processors.py``), a JSON array of items, or items one per line (JSON Lines);
* a trace item (``traces.py``): ``object: "trace"``, ``id`` (``trace_<32 hex>``),
  ``workflow_name``, ``group_id``, ``metadata``;
* a span item (``spans.py``): ``object: "trace.span"``, ``id`` (``span_<24 hex>``),
  ``trace_id``, ``parent_id`` (null for a top-level span), ``started_at``,
  ``ended_at`` (ISO-8601, null while running), ``span_data``, ``error``;
* ``span_data.type`` (``span_data.py``) and what it becomes:

  =============  ============================================================
  agent          agent span (``name``)
  handoff        ``orchestrator_decision`` with decision O2, ``from_agent`` ->
                 ``to_agent``
  function       tool span (``name``)
  generation     model call (``model``; ``usage.input_tokens`` + ``output_tokens``)
  response       model call (``usage`` when exported)
  guardrail      ``safety_event`` (``name``, ``triggered``)
  custom         none (task and turn spans export as custom); tokens kept
  mcp_tools, transcription, speech, speech_group: none (listed)
  =============  ============================================================

A serialized run state (``RunState``, with a ``trace`` member and ``$schemaVersion``)
holds the trace's identity but none of its spans; it is refused by name. The SDK
ships no fixture of a span export; the tests build batches from the field list above.
Labels: the trace's ``metadata`` keys ``run``, ``step``, ``policy``; ``group_id`` is
the task.
"""

from __future__ import annotations

from ..codes import show
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
from .spantree import AGENT, GUARDRAIL, HANDOFF, MODEL, TOOL, Span, build_trace

KINDS = {"agent": AGENT, "function": TOOL, "generation": MODEL, "response": MODEL, "handoff": HANDOFF, "guardrail": GUARDRAIL}


def _items(values: list) -> list | None:
    if len(values) == 1 and isinstance(values[0], dict) and isinstance(values[0].get("data"), list):
        return values[0]["data"]
    if len(values) == 1 and isinstance(values[0], list):
        return values[0]
    if all(isinstance(v, dict) and "object" in v for v in values):
        return values
    return None


def _is_run_state(values: list) -> bool:
    return len(values) == 1 and isinstance(values[0], dict) and "$schemaVersion" in values[0] and "trace" in values[0]


def detect(values: list) -> bool:
    """True for a batch/array/stream of items with ``object`` "trace" or "trace.span", or a run state."""
    if _is_run_state(values):
        return True
    items = _items(values)
    return bool(items) and all(isinstance(i, dict) and i.get("object") in ("trace", "trace.span") for i in items[:5])


def _usage(data: dict, label: str, bad: list) -> int | None:
    usage = usage_mapping(data, "usage", label, bad)
    if usage is None:
        return None
    found = [v for v in (usage_count(usage, "input_tokens", label, bad), usage_count(usage, "output_tokens", label, bad))
             if v is not None]
    if found:
        return int(sum(found))
    total = usage_count(usage, "total_tokens", label, bad)
    return int(total) if total is not None else None


def _str(data: dict, key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def convert(data: bytes, file: str, trace_id: str | None = None) -> Conversion:
    """Convert an Agents SDK trace export into a trace.

    Raises:
        ConvertError: not JSON, not an Agents SDK export, a run state (no spans),
            several traces and no ``trace_id``, or nothing to convert.
    """
    values = read_json_values(data, file)
    if _is_run_state(values):
        raise ConvertError(
            f"{file}: an OpenAI Agents SDK run state (RunState, $schemaVersion {values[0].get('$schemaVersion')}): "
            "its 'trace' holds the trace's identity but no spans; export the spans with a tracing processor "
            "({\"data\": [...]} batches)"
        )
    items = _items(values)
    if items is None or not detect(values):
        raise ConvertError(
            f"{file}: not an OpenAI Agents SDK trace export: expected {{\"data\": [...]}} or items with "
            "'object': 'trace' / 'trace.span'"
        )
    heads = {i["id"]: i for i in items if isinstance(i, dict) and i.get("object") == "trace" and isinstance(i.get("id"), str)}
    raw_spans = [i for i in items if isinstance(i, dict) and i.get("object") == "trace.span"]
    trace_ids = sorted({s["trace_id"] for s in raw_spans if isinstance(s.get("trace_id"), str)} | set(heads))
    if trace_id is not None:
        if trace_id not in trace_ids:
            raise ConvertError(f"{file}: no item has trace id {trace_id}; found: {', '.join(trace_ids) or 'none'}")
        chosen = trace_id
    elif len(trace_ids) > 1:
        raise ConvertError(f"{file}: holds {len(trace_ids)} traces ({', '.join(trace_ids)}); choose one with --trace-id")
    elif trace_ids:
        chosen = trace_ids[0]
    else:
        raise ConvertError(f"{file}: no trace or span to convert")
    head = heads.get(chosen, {})
    workflow = _str(head, "workflow_name") or "application"
    notes: list[str] = []
    bad: list[str] = []
    spans: list[Span] = []
    for k, item in enumerate(raw_spans):
        if item.get("trace_id") != chosen:
            continue
        sid = _str(item, "id")
        start = iso_nanos(item.get("started_at"))
        sdata = item.get("span_data") if isinstance(item.get("span_data"), dict) else {}
        typ = _str(sdata, "type") or ""
        name = _str(sdata, "name") or typ
        if sid is None or start is None:
            notes.append(f"unmapped span '{name}' (#{k + 1}): malformed (needs an id and started_at)")
            continue
        span = Span(sid, _str(item, "parent_id") or "", name, start, iso_nanos(item.get("ended_at")),
                    KINDS.get(typ, ""), k, app=workflow, op=f"span type {typ or 'missing'} has no event type")
        span.tokens = _usage(sdata, span.label, bad)
        if item.get("error") is not None:  # {"message": ..., "data": ...}: the span failed
            error = item["error"]
            span.error = error.get("message") if isinstance(error, dict) and isinstance(error.get("message"), str) else ""
        if span.kind == AGENT:
            span.agent = _str(sdata, "name") or f"agent@{sid}"
            span.role = _str(sdata, "name")
        elif span.kind == TOOL:
            span.tool = _str(sdata, "name") or "function"
        elif span.kind == MODEL:
            span.model = _str(sdata, "model")
        elif span.kind == HANDOFF:
            span.handoff_from = _str(sdata, "from_agent")
            span.handoff_to = _str(sdata, "to_agent")
            span.name = f"handoff {span.handoff_from or '?'} -> {span.handoff_to or '?'}"
            missing = [name for name, value in (("from_agent", span.handoff_from), ("to_agent", span.handoff_to)) if value is None]
            if missing:
                notes.append(f"{span.label}: handoff without {' or '.join(missing)}; shown as '?'")
        elif span.kind == GUARDRAIL:
            span.guardrail = _str(sdata, "name")
            triggered = sdata.get("triggered")
            span.triggered = triggered if isinstance(triggered, bool) else None
            if "triggered" in sdata and not isinstance(triggered, bool):
                notes.append(f"{span.label}: triggered = {show(triggered)} is not true or false; the safety event is "
                             "written without it")
        spans.append(span)
    notes += usage_note(bad)
    if not spans:
        raise ConvertError(f"{file}: trace {chosen} has no span to convert" + (": " + "; ".join(notes) if notes else ""))
    labels, unread = metadata_labels(head.get("metadata"), "metadata")
    result = build_trace(
        spans,
        notes,
        trace_id=chosen,
        task_id=_str(head, "group_id") or chosen,
        system=f"openai-agents: {workflow}",
        labels=labels,
        read_total=len(spans) + len(notes),
    )
    result.notes += unread
    result.shape = "OpenAI Agents SDK trace export"
    return result
