"""MLflow trace JSON converter: real MLflow 3 output (tests/trace/data/SOURCES.md), the MLflow 2 layout, bad input."""

from __future__ import annotations

import base64
import json

import pytest
from conftest import DATA

from masrl.trace.convert import ConvertError, convert, detect_format
from masrl.trace.metrics import trace_metrics
from masrl.trace.validate import validate_trace

AGENTS = "mlflow-3-agents.trace.json"


def run(data: bytes, name: str = "x.json", **kw):
    result = convert(data, name, **kw)
    assert validate_trace(result.trace) == [], result.notes
    return result


def shape(trace):
    return [(e["type"], e["agent"], e.get("to"), e.get("tokens")) for e in trace["events"]]


EXPECTED = [
    ("orchestrator_decision", "planner", None, 100),  # planner starts agents: its chat model calls decide
    ("spawn", "planner", "researcher", None),
    ("return", "researcher", "planner", 101),
    ("spawn", "planner", "weather", None),
    ("tool_call", "weather", None, None),
    ("tool_result", "get_weather", None, None),
    ("return", "weather", "planner", 307),
    ("orchestrator_decision", "planner", None, 122),
    ("stop", "planner", None, None),
]


def test_real_mlflow_3_trace_of_three_agents():
    data = (DATA / AGENTS).read_bytes()
    assert detect_format(data, AGENTS) == "mlflow"
    result = run(data, AGENTS)
    trace = result.trace
    assert shape(trace) == EXPECTED
    assert (trace["trace_id"], trace["system"]) == ("tr-3cd6c99756acbbd7d67e8737106dac45", "mlflow: gen.py")
    m = trace_metrics(trace)
    assert (m["agents"], m["spawn_depth"], m["spawn_fanout_max"]) == (3, 1, 2)
    assert m["tokens"] == m["event_tokens"] == 630  # as the trace's own mlflow.trace.tokenUsage says
    assert result.notes[1] == "read as MLflow 3 trace JSON"
    assert "unmapped span 'lookup' (2d0010bdb70436ff): span type RETRIEVER has no event type; its children are kept" \
        in result.notes


def as_mlflow_2(doc: dict) -> dict:
    """The same trace in MLflow 2's layout (Trace.to_json() of MLflow 2.x: context, parent_id, 0x ids)."""
    def hexid(b64):
        return None if b64 is None else "0x" + base64.b64decode(b64).hex()

    spans = [{"name": s["name"], "context": {"span_id": hexid(s["span_id"]), "trace_id": hexid(s["trace_id"])},
              "parent_id": hexid(s["parent_span_id"]), "start_time": s["start_time_unix_nano"],
              "end_time": s["end_time_unix_nano"], "status_code": "OK", "status_message": "",
              "attributes": s["attributes"], "events": []} for s in doc["data"]["spans"]]
    info = {"request_id": doc["info"]["trace_id"], "experiment_id": "0", "timestamp_ms": 1, "execution_time_ms": 18,
            "status": "OK", "request_metadata": doc["info"]["trace_metadata"], "tags": doc["info"]["tags"]}
    return {"info": info, "data": {"spans": spans, "request": "{}", "response": "{}"}}


def test_mlflow_2_layout_gives_the_same_trace():
    doc = json.loads((DATA / AGENTS).read_text())
    old = run(json.dumps(as_mlflow_2(doc)).encode())
    assert old.notes[1] == "read as MLflow 2 trace JSON"
    assert shape(old.trace) == EXPECTED
    assert old.trace["events"] == run(json.dumps(doc).encode()).trace["events"]


def test_an_array_of_traces_and_a_databricks_response():
    doc = json.loads((DATA / AGENTS).read_text())
    single = json.loads((DATA / "mlflow-3-single.trace.json").read_text())
    both = json.dumps([doc, single]).encode()
    with pytest.raises(ConvertError, match="holds 2 traces .*; choose one with --trace-id"):
        convert(both, "x.json")
    assert shape(run(both, trace_id="tr-3cd6c99756acbbd7d67e8737106dac45").trace) == EXPECTED
    wrapped = {"object": "response", "databricks_output": {"trace": doc, "databricks_request_id": "r"}}
    assert shape(run(json.dumps(wrapped).encode()).trace) == EXPECTED


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"info": {}, "data": {}}', "x.json: not MLflow trace JSON"),
        (b'{"info": {"trace_id": "t"}, "data": {"spans": [1, {"name": "a"}]}}',
         "x.json: no span to convert: unmapped span #1: not a JSON object; unmapped span 'a' (#2): malformed"),
        (b'{"info": {"trace_id": "t"}, "data": {"spans": [{"span_id": "AAAAAAAAAAE=", "start_time_unix_nano": 1, '
         b'"attributes": {"mlflow.spanType": "\\"RETRIEVER\\""}}]}}', "no span could be mapped to an event"),
        (b'{"info": {"trace_id": "t"}, "data": {"spans": []}, "x": -Infinity}', "x.json: cannot read the JSON"),
        (b'[{"info": {"trace_id": "a"}, "data": {"spans": []}}]', "x.json: no span to convert"),
    ],
)
def test_bad_traces_give_one_clear_error(data, message):
    with pytest.raises(ConvertError) as err:
        convert(data, "x.json", "mlflow")
    assert str(err.value).startswith(message) or message in str(err.value)
    assert "\n" not in str(err.value)


def test_usage_that_is_no_count_is_named():
    doc = json.loads((DATA / AGENTS).read_text())
    for span in doc["data"]["spans"]:
        if "mlflow.chat.tokenUsage" in span["attributes"]:
            span["attributes"]["mlflow.chat.tokenUsage"] = json.dumps({"input_tokens": "many"})
            break
    result = run(json.dumps(doc).encode())
    assert any(n.startswith("1 usage value(s) are not token counts") and "input_tokens = 'many'" in n
               for n in result.notes), result.notes
