"""OpenInference converter: real instrumentation output (OTLP JSON, SDK span JSON), Phoenix span exports."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from conftest import DATA

from masrl.trace.convert import ConvertError, convert, detect_format
from masrl.trace.convert.common import read_json_values
from masrl.trace.metrics import trace_metrics
from masrl.trace.validate import validate_trace

HANDOFF = "openinference-openai-agents-handoff.otlp.json"
HANDOFF_SDK = "openinference-openai-agents-handoff.sdk.json"


def run(data: bytes, name: str = "x.json", **kw):
    result = convert(data, name, **kw)
    assert validate_trace(result.trace) == [], result.notes
    return result


def shape(trace: dict) -> list[tuple]:
    return [(e["type"], e["agent"], e.get("from"), e.get("to"), e.get("decision"), e.get("tokens")) for e in trace["events"]]


EXPECTED = [
    ("orchestrator_decision", "triage", None, None, None, 100),  # triage starts agents: its model calls decide
    ("tool_call", "triage", None, None, None, None),  # ask_researcher: the researcher agent as a tool
    ("spawn", "triage", None, "researcher", None, None),
    ("return", "researcher", "researcher", "triage", None, 101),
    ("tool_result", "ask_researcher", None, None, None, None),
    ("orchestrator_decision", "triage", None, None, None, 122),
    ("orchestrator_decision", "triage", "triage", "weather", "O2", None),  # the TOOL span 'handoff to weather'
    ("stop", "triage", None, None, None, None),
    ("tool_call", "weather", None, None, None, None),
    ("tool_result", "get_weather", None, None, None, None),
    ("stop", "weather", None, None, None, 323),
]


def test_real_handoff_run_as_otlp_json():
    """openinference-instrumentation-openai-agents on a triage agent that asks a researcher agent (as a tool)
    and hands off to a weather agent (tests/trace/data/SOURCES.md)."""
    data = (DATA / HANDOFF).read_bytes()
    assert detect_format(data, HANDOFF) == "openinference"
    result = run(data, HANDOFF)
    trace = result.trace
    assert shape(trace) == EXPECTED
    assert trace["system"] == "openinference: weather-app"
    m = trace_metrics(trace)
    assert (m["agents"], m["spawn_depth"], m["spawn_fanout_max"], m["decisions"]["O2"]) == (3, 1, 1, 1)
    assert m["tokens"] == m["event_tokens"] == 80 + 20 + 90 + 11 + 110 + 12 + 130 + 17 + 170 + 6
    assert result.notes[1] == "read as OTLP JSON"
    assert "unmapped span 'Agent workflow' (58cae5cb220920c7): an AGENT span without agent.name or graph.node.id " \
        "that runs the named agents below it: the workflow (the application, which is not an agent); its children " \
        "are kept" in result.notes
    assert "unmapped span 'turn' (f5f16887c9dd722d): kind CHAIN has no event type; its children are kept" in result.notes


def test_the_same_spans_as_sdk_span_json_give_the_same_trace():
    otlp = run((DATA / HANDOFF).read_bytes()).trace
    sdk = run((DATA / HANDOFF_SDK).read_bytes(), HANDOFF_SDK)
    assert sdk.notes[1] == "read as OpenInference span JSON"
    assert shape(sdk.trace) == shape(otlp)
    assert sdk.trace["trace_id"] == otlp["trace_id"]


def phoenix_spans(nested: bool = False) -> list[dict]:
    """The handoff run's spans in the shape of Phoenix's GET /v1/projects/{project}/spans."""
    out = []
    for s in read_json_values((DATA / HANDOFF_SDK).read_bytes(), HANDOFF_SDK):  # SDK span objects, one after another
        attrs = dict(s["attributes"])
        kind = attrs.get("openinference.span.kind", "UNKNOWN")
        if nested:
            attrs = {"openinference": {"span": {"kind": attrs.pop("openinference.span.kind")}}, **attrs}
        out.append({"id": "U3BhbjE=", "name": s["name"],
                    "context": {"trace_id": s["context"]["trace_id"][2:], "span_id": s["context"]["span_id"][2:]},
                    "span_kind": kind, "parent_id": s["parent_id"][2:] if s["parent_id"] else None,
                    "start_time": _iso(s["start_time"]), "end_time": _iso(s["end_time"]),
                    "status_code": "OK", "status_message": "", "attributes": attrs, "events": []})
    return out


def _iso(text: str) -> str:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc).isoformat()


@pytest.mark.parametrize("nested", [False, True], ids=["dotted", "nested"])
def test_phoenix_span_export(nested):
    data = json.dumps({"data": phoenix_spans(nested), "next_cursor": None}).encode()
    assert detect_format(data, "p.json") == "openinference"
    result = run(data, "p.json")
    assert result.notes[1] == "read as Phoenix span export"
    assert shape(result.trace) == EXPECTED


def test_phoenix_span_kind_without_the_attribute():
    spans = phoenix_spans()
    for s in spans:
        s["attributes"].pop("openinference.span.kind", None)
    assert shape(run(json.dumps({"data": spans}).encode()).trace) == EXPECTED


def test_phoenix_otlpv1_snake_case():
    doc = json.loads((DATA / HANDOFF).read_text())
    snake = {"traceId": "trace_id", "spanId": "span_id", "parentSpanId": "parent_span_id",
             "startTimeUnixNano": "start_time_unix_nano", "endTimeUnixNano": "end_time_unix_nano"}
    values = {"stringValue": "string_value", "intValue": "int_value", "boolValue": "bool_value"}
    data = []
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        item = {snake.get(k, k): v for k, v in span.items() if k != "kind"}
        item["attributes"] = [{"key": a["key"], "value": {values.get(k, k): v for k, v in a["value"].items()}}
                              for a in span["attributes"]]
        data.append(item)
    result = run(json.dumps({"data": data, "next_cursor": None}).encode())
    assert result.notes[1] == "read as Phoenix span export (spans/otlpv1)"
    assert shape(result.trace) == EXPECTED


def test_graph_parent_moves_an_agent_under_the_agent_that_contains_it():
    def span(sid, parent, name, kind, start, end, **attrs):
        return {"name": name, "context": {"trace_id": "T", "span_id": sid}, "span_kind": kind, "parent_id": parent,
                "start_time": f"2025-01-01T00:00:{start:02d}Z", "end_time": f"2025-01-01T00:00:{end:02d}Z",
                "attributes": {"openinference.span.kind": kind, **attrs}}

    spans = [
        span("r", None, "run", "CHAIN", 0, 50),
        span("a", "r", "planner", "AGENT", 1, 40, **{"agent.name": "planner", "graph.node.id": "planner"}),
        span("b", "r", "coder", "AGENT", 10, 30, **{"agent.name": "coder", "graph.node.id": "coder",
                                                     "graph.node.parent_id": "planner"}),
        span("t", "b", "run_tests", "TOOL", 12, 20, **{"tool.name": "run_tests"}),
    ]
    result = run(json.dumps(spans).encode())
    assert [(e["type"], e["agent"], e.get("to")) for e in result.trace["events"]] == [
        ("spawn", "planner", "coder"), ("tool_call", "coder", None), ("tool_result", "run_tests", None),
        ("return", "coder", "planner"), ("stop", "planner", None)]
    assert "span 'coder' (b): graph.node.parent_id 'planner' names agent 'planner' (span 'planner' (a)), whose span " \
        "contains it; moved under it (it spawns 'coder')" in result.notes


def test_real_spec_example_without_an_agent_is_refused_by_name():
    """The two spans of the OpenInference specification's traces.md (a CHAIN and an LLM span, no agent)."""
    data = (DATA / "openinference-spec-traces-example.json").read_bytes()
    assert detect_format(data, "spec.json") == "openinference"
    with pytest.raises(ConvertError) as err:
        convert(data, "spec.json")
    assert str(err.value).startswith("spec.json: no span could be mapped to an event")
    assert "span 'llm' (ad67332a-38bd-428e-9f62-538ba2fa90d4): a model call outside any agent span" in str(err.value)


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"data": []}', "x.json: not an OpenInference export: expected spans with the attribute"),
        (b'{"data": [1, 2]}', "x.json: not an OpenInference export"),
        (b'[{"context": {"trace_id": "T", "span_id": "s"}, "span_kind": "AGENT"}]', "x.json: no span to convert: "
         "unmapped span '' (s): malformed (needs a trace id, a span id and a start time)"),
        (b'[{"context": {"trace_id": "T", "span_id": "s"}, "span_kind": "AGENT", "start_time": NaN}]',
         "x.json: cannot read the JSON: NaN is not a JSON number"),
        (b'[{"context": {"trace_id": "A", "span_id": "s"}, "span_kind": "TOOL", "start_time": 1},'
         b' {"context": {"trace_id": "B", "span_id": "t"}, "span_kind": "TOOL", "start_time": 1}]',
         "x.json: holds 2 traces (A, B); choose one with --trace-id"),
        (b"[" * 5000 + b"]" * 5000, "x.json: cannot read the JSON: nesting is too deep"),
    ],
)
def test_malformed_inputs_give_one_clear_error(data, message):
    with pytest.raises(ConvertError) as err:
        convert(data, "x.json", "openinference")
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("kind", [["AGENT"], {"kind": "AGENT"}, 3])
def test_a_span_kind_that_is_no_text_is_unmapped_not_a_traceback(kind):
    """A Phoenix span whose span_kind is a list ("unhashable type: 'list'" in the format's detection) or another
    value: detection does not take it for a kind; the other spans are read."""
    spans = phoenix_spans()
    for s in spans:
        s["attributes"].pop("openinference.span.kind", None)
    spans[0]["span_kind"] = kind
    data = json.dumps({"data": spans}).encode()
    assert detect_format(data, "p.json") == "openinference"  # the other spans' kinds say what it is
    result = convert(data, "p.json")
    assert validate_trace(result.trace) == [] and result.trace["events"]


def _phoenix(*spans) -> bytes:
    """A Phoenix span export of ``(span id, parent id, name, kind, start s, end s, attributes)``."""
    return json.dumps({"data": [
        {"name": name, "context": {"trace_id": "0af7651916cd43dd8448eb211c80319c", "span_id": f"{sid:016x}"},
         "span_kind": kind, "parent_id": f"{parent:016x}" if parent else None,
         "start_time": f"2025-06-01T10:00:{start:02d}Z", "end_time": f"2025-06-01T10:00:{end:02d}Z",
         "attributes": {"openinference.span.kind": kind, **attrs}}
        for sid, parent, name, kind, start, end, attrs in spans]}).encode()


@pytest.mark.parametrize("order", [(0, 1, 2, 3), (0, 2, 1, 3)])
def test_a_graph_parent_that_runs_twice_is_the_run_that_contains_the_child_whatever_the_order(order):
    """Run 41: the first AGENT span of a graph.node.id was the only one tried, so a worker inside the second run of its
    supervisor stayed a root agent, or was spawned by it, by the order of the spans in the file."""
    spans = [(1, None, "LangGraph", "CHAIN", 0, 20, {}),
             (2, 1, "supervisor", "AGENT", 1, 3, {"graph.node.id": "supervisor"}),
             (3, 1, "supervisor", "AGENT", 10, 19, {"graph.node.id": "supervisor"}),
             (4, 1, "worker", "AGENT", 11, 15, {"graph.node.id": "worker", "graph.node.parent_id": "supervisor"})]
    result = convert(_phoenix(*(spans[i] for i in order)), "x.json")
    assert [(e["type"], e["agent"]) for e in result.trace["events"]] == [
        ("stop", "supervisor"), ("spawn", "supervisor"), ("return", "worker"), ("stop", "supervisor")]
    assert any("moved under it (it spawns 'worker')" in note and "(0000000000000003)" in note for note in result.notes)


def test_phoenix_metadata_stored_as_an_object_gives_the_labels():
    """Run 41: Phoenix stores metadata as a nested object, which was flattened to metadata.run and so on: no label."""
    meta = {"run": "r1", "step": 3, "policy": "ppo"}
    for written in (meta, json.dumps(meta)):
        result = convert(_phoenix((1, None, "planner", "AGENT", 1, 5, {"agent.name": "planner", "metadata": written})), "x.json")
        assert result.trace["labels"] == meta
