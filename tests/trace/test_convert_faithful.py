"""Faithfulness across exporters: one single-agent run gives the same agents, depth and tokens from each.

The run: agent 'weather' of the application 'weather-app' calls the model twice (120 + 18 and 160 + 9
tokens) and the tool get_weather once. A service name, a trace name or a workflow is the application,
not an agent; the agent's tokens stay on its own events.
"""

from __future__ import annotations

import json

import pytest
from conftest import DATA

from masrl.trace.convert import convert, detect_format
from masrl.trace.metrics import trace_metrics
from masrl.trace.validate import validate_trace

T0 = 1_700_000_000_000_000_000
MS = 1_000_000
TOKENS = 120 + 18 + 160 + 9


def otel() -> bytes:
    def attr(key, value):
        kind = "intValue" if isinstance(value, int) else "stringValue"
        return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}

    def span(sid, parent, name, start, end, **attrs):
        return {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": sid, "parentSpanId": parent, "name": name,
                "startTimeUnixNano": str(T0 + start * MS), "endTimeUnixNano": str(T0 + end * MS),
                "attributes": [attr(k.replace("__", "."), v) for k, v in attrs.items()]}

    spans = [
        span("a000000000000001", "", "invoke_agent weather", 0, 100, gen_ai__operation__name="invoke_agent",
             gen_ai__agent__name="weather"),
        span("c000000000000001", "a000000000000001", "chat gpt-4o", 5, 20, gen_ai__operation__name="chat",
             gen_ai__request__model="gpt-4o", gen_ai__usage__input_tokens=120, gen_ai__usage__output_tokens=18),
        span("t000000000000001", "a000000000000001", "execute_tool get_weather", 25, 40,
             gen_ai__operation__name="execute_tool", gen_ai__tool__name="get_weather"),
        span("c000000000000002", "a000000000000001", "chat gpt-4o", 45, 90, gen_ai__operation__name="chat",
             gen_ai__request__model="gpt-4o", gen_ai__usage__input_tokens=160, gen_ai__usage__output_tokens=9),
    ]
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [attr("service.name", "weather-app")]},
                                          "scopeSpans": [{"spans": spans}]}]}).encode()


def iso(ms: int) -> str:
    return f"2025-09-30T09:04:00.{ms:03d}Z"


def langfuse(trace_name: str) -> bytes:
    def obs(oid, parent, typ, name, start, end, **more):
        return {"id": oid, "traceId": "tr1", "parentObservationId": parent, "type": typ, "name": name,
                "startTime": iso(start), "endTime": iso(end), **more}

    return json.dumps({"trace": {"id": "tr1", "name": trace_name}, "observations": [
        obs("a", None, "AGENT", "weather", 0, 100),
        obs("g1", "a", "GENERATION", "chat", 5, 20, model="gpt-4o", usageDetails={"input": 120, "output": 18}),
        obs("t", "a", "TOOL", "get_weather", 25, 40),
        obs("g2", "a", "GENERATION", "chat", 45, 90, model="gpt-4o", usageDetails={"input": 160, "output": 9}),
    ]}).encode()


def agents_sdk() -> bytes:
    tid = "trace_" + "b" * 32

    def span(n, parent, start, end, data):
        return {"object": "trace.span", "id": f"span_{n:024x}", "trace_id": tid,
                "parent_id": None if parent is None else f"span_{parent:024x}",
                "started_at": f"2025-03-11T12:00:00.{start:03d}000+00:00",
                "ended_at": f"2025-03-11T12:00:00.{end:03d}000+00:00", "span_data": data, "error": None}

    return json.dumps({"data": [
        {"object": "trace", "id": tid, "workflow_name": "weather-app", "group_id": None, "metadata": {}},
        span(1, None, 0, 100, {"type": "agent", "name": "weather", "handoffs": [], "tools": ["get_weather"]}),
        span(2, 1, 5, 20, {"type": "generation", "model": "gpt-4o", "usage": {"input_tokens": 120, "output_tokens": 18}}),
        span(3, 1, 25, 40, {"type": "function", "name": "get_weather", "input": "{}", "output": "sunny"}),
        span(4, 1, 45, 90, {"type": "generation", "model": "gpt-4o", "usage": {"input_tokens": 160, "output_tokens": 9}}),
    ]}).encode()


def openinference() -> bytes:
    """Real instrumentation output: openinference-instrumentation-openai-agents on a single-agent run
    (tests/trace/data/SOURCES.md)."""
    return (DATA / "openinference-openai-agents-single.otlp.json").read_bytes()


def mlflow() -> bytes:
    """Real MLflow output: a traced single-agent run (tests/trace/data/SOURCES.md)."""
    return (DATA / "mlflow-3-single.trace.json").read_bytes()


EXPORTS = {
    "mlflow": mlflow,
    "otel": otel,
    "langfuse": lambda: langfuse("weather-app"),
    "langfuse-named-after-the-agent": lambda: langfuse("weather"),
    "openai-agents": agents_sdk,
    "openinference": openinference,
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_a_single_agent_run_is_one_agent_at_depth_zero_with_its_tokens_on_its_events(name):
    data = EXPORTS[name]()
    fmt = name.split("-named")[0]
    assert detect_format(data, "run.json") == fmt
    trace = convert(data, "run.json").trace
    assert validate_trace(trace) == []
    m = trace_metrics(trace)
    assert (m["agents"], m["spawn_depth"], m["spawn_fanout_max"]) == (1, 0, 0)
    assert m["tokens"] == m["event_tokens"] == TOKENS
    acting = {e["agent"] for e in trace["events"] if e["type"] != "tool_result"}
    assert acting == {"weather"}
    assert sum(e.get("tokens", 0) for e in trace["events"] if e["agent"] == "weather") == TOKENS
    assert [e["type"] for e in trace["events"]] == ["tool_call", "tool_result", "stop"]
