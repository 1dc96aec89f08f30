"""A span that ended in an error is named in the conversion's notes, in every format that records one (run 44: an
Agents SDK span's ``error`` became an ordinary stop, and the notes said nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from masrl.trace.convert import convert
from masrl.trace.validate import validate_trace

DATA = Path(__file__).parent / "data"


def _otlp_spans(doc: dict) -> list:
    return [span for resource in doc["resourceSpans"] for scope in resource["scopeSpans"] for span in scope["spans"]]


def _sdk_lines(text: str) -> list:
    decoder, items, at = json.JSONDecoder(), [], 0
    while at < len(text.rstrip()):
        item, at = decoder.raw_decode(text, at)
        items.append(item)
        while at < len(text) and text[at].isspace():
            at += 1
    return items


def _failed(name: str, status, text_error: str | None = None) -> tuple[bytes, str]:
    """The file ``name`` with its first span's status (or its error fields) set; ``(bytes, that span's label)``."""
    raw = (DATA / name).read_text()
    if name.endswith(".sdk.json"):
        items = _sdk_lines(raw)
        items[0]["status"] = status
        return "\n".join(json.dumps(i) for i in items).encode(), f"span '{items[0]['name']}'"
    doc = json.loads(raw)
    if "resourceSpans" in doc:
        span = _otlp_spans(doc)[0]
        span["status"] = status
    elif "observations" in doc:
        span = doc["observations"][0]
        span.update(level=status, statusMessage=text_error)
    else:
        span = doc["data"]["spans"][0]
        span["status"] = status
    return json.dumps(doc).encode(), f"span '{span['name']}'"


@pytest.mark.parametrize("name, status, text_error, shown", [
    ("otel_nested.json", {"code": 2, "message": "model timed out"}, None, "'model timed out'"),
    ("openinference-openai-agents-single.otlp.json", {"code": "STATUS_CODE_ERROR", "message": "Max turns (1) exceeded"}, None,
     "'Max turns (1) exceeded'"),
    ("openinference-openai-agents-handoff.sdk.json", {"status_code": "ERROR", "description": "rate limited"}, None,
     "'rate limited'"),
    ("mlflow-3-single.trace.json", {"code": "STATUS_CODE_ERROR", "message": "tool failed"}, None, "'tool failed'"),
    ("langfuse-openai-agents-2025-09-30.trace.json", "ERROR", "quota exceeded", "'quota exceeded'"),
])
def test_a_span_that_ended_in_an_error_is_named_in_the_notes(name, status, text_error, shown):
    body, label = _failed(name, status, text_error)
    result = convert(body, name, None)
    assert validate_trace(result.trace) == []
    (note,) = [n for n in result.notes if "ended in an error" in n]
    assert note.startswith("1 span(s) ended in an error, which a trace of this schema has no field for;"), note
    assert label in note and note.endswith(shown), note


@pytest.mark.parametrize("name", ["otel_nested.json", "mlflow-3-single.trace.json", "langfuse-openai-agents-2025-09-30.trace.json",
                                  "openinference-openai-agents-handoff.sdk.json"])
def test_a_run_without_a_failed_span_has_no_such_note(name):
    result = convert((DATA / name).read_bytes(), name, None)
    assert not [n for n in result.notes if "ended in an error" in n]


def test_an_agents_sdk_span_with_an_error_is_named_with_its_message():
    from test_convert_langfuse_agents import agents_batch

    doc = agents_batch()
    doc["data"][5]["error"] = {"message": "Max turns (1) exceeded", "data": {"max_turns": 1}}
    doc["data"][6]["error"] = {"data": None}  # an error without a message
    result = convert(json.dumps(doc).encode(), "x.json", None)
    (note,) = [n for n in result.notes if "ended in an error" in n]
    assert note.startswith("2 span(s) ended in an error") and "span 'billing' (span_000000000000000000000005): 'Max turns (1) exceeded'" in note
    assert note.endswith("span 'refund' (span_000000000000000000000006)"), note


@pytest.mark.parametrize("name, events", [
    ("mlflow-3-single.trace.json", [{"name": "exception", "timestamp": 1, "attributes": {"exception.message": "Rate limit reached",
                                                                                        "exception.type": "RateLimitError"}}]),
    ("otel_nested.json", [{"name": "exception", "timeUnixNano": "1700000001000000000", "attributes": [
        {"key": "exception.type", "value": {"stringValue": "RateLimitError"}},
        {"key": "exception.message", "value": {"stringValue": "Rate limit reached"}}]}]),
])
def test_an_error_status_without_text_is_named_with_its_exception_events_message(name, events):
    """Run 45: a status of ERROR with an empty message (what MLflow's and OpenTelemetry's exception recording leave) was
    named without the exception's message, which the span's ``exception`` event holds."""
    raw = json.loads((DATA / name).read_text())
    span = _otlp_spans(raw)[0] if "resourceSpans" in raw else raw["data"]["spans"][0]
    span.update(status={"code": "STATUS_CODE_ERROR", "message": ""}, events=events)
    result = convert(json.dumps(raw).encode(), name, None)
    (note,) = [n for n in result.notes if "ended in an error" in n]
    assert f"span '{span['name']}' (" in note and note.endswith("): 'Rate limit reached'"), note


def test_a_name_holding_terminal_escapes_or_bidi_controls_is_written_escaped_in_every_place_it_appears():
    """Run 45: a message log's speaker '\x1b[31mEvil\u202e' and an OTel agent named so became the trace's agent as they
    were, silently (a report or terminal showing it would act on them)."""
    from masrl.trace.metrics import trace_metrics

    evil = "\x1b[31mEvil\u202e"
    history = [{"role": "Orchestrator (-> A)", "content": "go", "name": "Orchestrator"},
               {"role": evil, "content": "done", "name": evil}]
    result = convert(json.dumps({"question_ID": "q1", "history": history}).encode(), "x.json", None)
    agents = {e["agent"] for e in result.trace["events"]}
    assert "\\x1b[31mEvil\\u202e" in agents and evil not in agents, agents
    assert "'\\x1b[31mEvil\\u202e' held characters that are invisible or change how text shows; they are written escaped" in result.notes
    assert validate_trace(result.trace) == [] and trace_metrics(result.trace)["agents"] >= 2

    doc = json.loads((DATA / "otel_nested.json").read_text())
    spans = _otlp_spans(doc)
    spans[0]["spanId"] = "a1"
    spans[0]["name"] = f"invoke_agent {evil}"
    for attribute in spans[0]["attributes"]:
        if attribute["key"] == "gen_ai.agent.name":
            attribute["value"] = {"stringValue": evil}
    result = convert(json.dumps(doc).encode(), "otel.json", None)
    text = json.dumps(result.trace, ensure_ascii=False)
    assert "\x1b" not in text and "\u202e" not in text and "\\\\x1b[31mEvil" in text and validate_trace(result.trace) == []
    assert sum("written escaped" in n for n in result.notes) >= 1
