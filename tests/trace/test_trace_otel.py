"""OpenTelemetry GenAI spans -> orchestration trace."""

from __future__ import annotations

import json

import pytest
from conftest import DATA

from masrl.trace.convert import ConvertError as OtelError
from masrl.trace.convert.otel import convert as convert_otlp
from masrl.trace.metrics import trace_metrics
from masrl.trace.validate import validate_trace


def convert(name: str, **kw):
    return convert_otlp((DATA / name).read_bytes(), name, **kw)


def test_nested_agents_and_tools():
    result = convert("otel_nested.json")
    trace = result.trace
    assert validate_trace(trace) == []
    events = {e["id"]: e for e in trace["events"]}
    # the application (service.name) is not an agent: the orchestrator is the run's root agent, never
    # spawned, and its span's end (8 s) is its stop
    assert "a1:start" not in events
    assert events["a1:end"] == {"id": "a1:end", "t": 8.0, "type": "stop", "agent": "orchestrator", "role": "orchestrator"}
    # gen_ai.agent.id wins over the name; the name becomes the role
    assert events["r1:start"]["to"] == "res-1" and events["r1:start"]["role"] == "researcher"
    # the orchestrator invokes agents, so its chat spans are decisions at the span's end
    assert events["c1"] == {"id": "c1", "t": 0.5, "type": "orchestrator_decision", "agent": "orchestrator", "tokens": 120, "model": "gpt-x"}
    assert events["c2"]["t"] == 6.0 and events["c2"]["tokens"] == 250
    # the researcher's own chat span (60 tokens) is folded into its return
    assert events["r1:end"]["tokens"] == 60
    assert events["rt1:start"] == {"id": "rt1:start", "t": 1.5, "type": "tool_call", "agent": "res-1", "tool": "web.search"}
    assert events["rt1:end"] == {"id": "rt1:end", "t": 2.5, "type": "tool_result", "agent": "web.search", "tool": "web.search"}
    assert trace["costs"] == {"tokens": 430, "wall_clock_s": 8.0, "tool_calls": 3, "messages": 0}
    assert trace["rewards"] == {} and trace["topology"] == "unknown"
    edges = {(e["src"], e["dst"], e["type"]) for e in trace["edges"]}
    assert edges == {
        ("c1", "r1:start", "spawn"),
        ("c1", "k1:start", "spawn"),  # researcher and coder run in parallel: both fork from c1
        ("r1:end", "c2", "causal"),  # c2 starts after both ended: a join
        ("k1:end", "c2", "causal"),
        ("c2", "a1:end", "causal"),
        ("r1:start", "rt1:start", "tool_dependency"),
        ("rt1:start", "rt1:end", "return"),
        ("rt1:end", "rt2:start", "tool_dependency"),  # sequential tools
        ("rt2:start", "rt2:end", "return"),
        ("rt2:end", "r1:end", "causal"),
        ("k1:start", "kt1:start", "tool_dependency"),
        ("kt1:start", "kt1:end", "return"),
        ("kt1:end", "k1:end", "causal"),
    }
    assert [e["t"] for e in trace["events"]] == sorted(e["t"] for e in trace["events"])
    m = trace_metrics(trace)
    assert m["critical_path_steps"] == 9  # c1 -> r1 -> rt1 x2 -> rt2 x2 -> r1 end -> c2 -> a1 end
    assert (m["agents"], m["spawn_depth"], m["spawn_fanout_max"]) == (3, 1, 2)


def test_unmappable_spans_are_counted_and_named():
    result = convert("otel_nested.json")
    assert result.unmapped == 2 and result.spans == 11
    assert result.notes == [
        "converted 9 of 11 spans into 13 events and 13 edges; 2 unmapped; 430 tokens counted; "
        "1 model-call spans of leaf agents folded into their agent's return or stop (60 tokens)",
        "read as OTLP JSON",
        "unmapped span 'embeddings text-embed' (ke1): operation embeddings has no event type; its children are kept",
        "unmapped span 'HTTP GET' (h1): no gen_ai.operation.name; its children are kept",
    ]


def test_broken_parent_ids():
    result = convert("otel_broken_parents.json")
    assert validate_trace(result.trace) == []
    assert result.unmapped == 5
    assert result.notes == [
        "converted 3 of 8 spans into 5 events and 4 edges; 5 unmapped; 0 tokens counted",
        "read as OTLP JSON",
        "unmapped span 'execute_tool no-start' (m1): malformed (needs a trace id, a span id and a start time)",
        "unmapped span 'execute_tool lookup-again' (t1): duplicate span id; the first one is kept",
        "unmapped span 'execute_tool self' (z1): it is its own parent",
        "unmapped span 'invoke_agent loop-a' (y1): its parent chain is a cycle",
        "unmapped span 'invoke_agent loop-b' (y2): its parent chain is a cycle",
        "span 'execute_tool orphan' (o1): parent deadbeefdeadbeef is not in the input; attached to agent 'boss' "
        "(span 'invoke_agent boss' (p1)), whose span contains it in time",
    ]
    orphan = next(e for e in result.trace["events"] if e["id"] == "o1:start")
    assert orphan["agent"] == "boss"  # the agent whose span contains the orphan in time


def _otlp(spans: list[tuple]) -> bytes:
    """OTLP JSON of ``(span id, parent id, name, start ns, end ns, attributes)`` spans of one trace."""
    def value(v):
        return {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}

    return json.dumps({"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": value("app")}]},
                                          "scopeSpans": [{"scope": {"name": "t"}, "spans": [
        {"traceId": "ab" * 16, "spanId": sid, "name": name, "kind": 1, "startTimeUnixNano": str(start),
         "endTimeUnixNano": str(end), **({"parentSpanId": parent} if parent else {}),
         "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()]}
        for sid, parent, name, start, end, attrs in spans]}]}]}).encode()


def test_the_tokens_of_spans_outside_the_tree_are_counted_in_costs_and_named():
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
    usage = lambda n: {"gen_ai.usage.input_tokens": n, "gen_ai.usage.output_tokens": n}  # noqa: E731
    data = _otlp([
        ("0000000000000004", None, "invoke_agent R", 0, 20, {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "R"}),
        ("0000000000000005", "0000000000000004", "chat", 2, 3, {**chat, **usage(1)}),
        ("0000000000000006", "0000000000000006", "chat", 4, 5, {**chat, **usage(500)}),  # its own parent
        ("000000000000000a", "000000000000000b", "A", 4, 9, usage(40)),  # a cycle, A's usage a roll-up of its child's
        ("000000000000000b", "000000000000000a", "B", 4, 9, {}),
        ("000000000000000c", "000000000000000a", "chat", 5, 6, {**chat, **usage(6)}),
        ("0000000000000005", "0000000000000004", "chat", 2, 3, {**chat, **usage(7)}),  # a second span of one id
    ])
    result = convert_otlp(data, "t.json")
    assert validate_trace(result.trace) == []
    assert result.trace["costs"]["tokens"] == 2 + 1000 + 12
    assert result.notes[0].startswith("converted 2 of 7 spans into 1 events and 0 edges; 5 unmapped; 1014 tokens counted")
    assert result.notes[2:] == [
        "unmapped span 'chat' (0000000000000005): duplicate span id; the first one is kept (its 14 tokens are not counted)",
        "unmapped span 'chat' (0000000000000006): it is its own parent; its 1000 tokens are counted in costs.tokens only",
        "unmapped span 'A' (000000000000000a): its parent chain is a cycle; its 80 tokens are taken as a roll-up of "
        "the usage below it, which is counted instead",
        "unmapped span 'B' (000000000000000b): its parent chain is a cycle",
        "unmapped span 'chat' (000000000000000c): its parent chain is a cycle; its 12 tokens are counted in costs.tokens only",
    ]


def test_two_traces_need_a_choice():
    with pytest.raises(OtelError, match="holds 2 traces .*choose one with --trace-id"):
        convert("otel_two_traces.json")
    result = convert("otel_two_traces.json", trace_id="0af7651916cd43dd8448eb211c80319c")
    assert result.trace["trace_id"] == "0af7651916cd43dd8448eb211c80319c"
    assert validate_trace(result.trace) == []
    with pytest.raises(OtelError, match="no span has trace id nope; found: 0af7651916cd43dd8448eb211c80319c, 4bf92f3577b34da6a3ce929d0e0e4736"):
        convert("otel_two_traces.json", trace_id="nope")


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\xff", "not UTF-8"),
        (b"{", "not valid JSON"),
        (b"[]", "not an OpenTelemetry export: expected OTLP JSON \\(an object with 'resourceSpans'\\), JSON Lines"),
        (b'{"resourceSpans": []}', "no span to convert"),
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": 1}]}]}], "x": NaN}', "NaN is not a JSON number"),
    ],
)
def test_bad_inputs(data, message):
    with pytest.raises(OtelError, match=message):
        convert_otlp(data, "x.json")


def test_attribute_value_kinds_and_leaf_usage():
    def attr(k, v):
        return {"key": k, "value": v}

    spans = [
        {"traceId": "T", "spanId": "a", "parentSpanId": "", "name": "invoke_agent lead", "startTimeUnixNano": 0, "endTimeUnixNano": "4000000000",
         "attributes": [attr("gen_ai.operation.name", {"stringValue": "invoke_agent"}),
                        attr("gen_ai.usage.input_tokens", {"intValue": 999}),  # a roll-up: its children carry usage
                        attr("flag", {"boolValue": True}), attr("list", {"arrayValue": {"values": [{"intValue": "1"}]}})]},
        {"traceId": "T", "spanId": "b", "parentSpanId": "a", "name": "create_agent helper", "startTimeUnixNano": "1000000000", "endTimeUnixNano": "1000000000",
         "attributes": [attr("gen_ai.operation.name", {"stringValue": "create_agent"}), attr("gen_ai.agent.name", {"stringValue": "helper"})]},
        {"traceId": "T", "spanId": "c", "parentSpanId": "a", "name": "text_completion m", "startTimeUnixNano": "2000000000", "endTimeUnixNano": "2500000000",
         "attributes": [attr("gen_ai.operation.name", {"stringValue": "text_completion"}), attr("gen_ai.usage.output_tokens", {"intValue": "7"}),
                        attr("gen_ai.usage.input_tokens", {"doubleValue": 3.0})]},
    ]
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    result = convert_otlp(json.dumps(doc).encode(), "x.json")
    trace = result.trace
    assert validate_trace(trace) == []
    assert trace["costs"]["tokens"] == 10  # the 999 roll-up is not counted twice, and says so
    assert "span 'invoke_agent lead' (a): its 999 tokens are taken as a roll-up of its descendants' usage, " \
        "which is counted instead; they are 989 more than the 10 counted below it (spans not exported?), which are not " \
        "counted" in result.notes  # the excess is named, not lost without a word
    types = [(e["id"], e["type"], e["agent"]) for e in trace["events"]]
    assert types == [  # 'lead' is the run's root agent: no spawn by the application, a stop at its end
        ("b", "spawn", "lead"),
        ("c", "orchestrator_decision", "lead"),
        ("a:end", "stop", "lead"),
    ]


def test_nothing_mappable_is_an_error():
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "T", "spanId": "a", "name": "HTTP GET", "startTimeUnixNano": "1", "endTimeUnixNano": "2"},
    ]}]}]}
    with pytest.raises(OtelError, match="no span could be mapped to an event \\(an orchestration trace needs an agent, tool, handoff or guardrail span, or a model call that starts one\\): unmapped span 'HTTP GET' \\(a\\): no gen_ai.operation.name; its children are kept"):
        convert_otlp(json.dumps(doc).encode(), "x.json")


@pytest.mark.parametrize("index, field, value, note", [
    (5, "startTimeUnixNano", "0", "starts at 0 (1970, an unset time) among spans timed by the clock; its start is set to its "
                                  "first child's start"),
    (1, "startTimeUnixNano", "0", "starts at 0 (1970, an unset time) among spans timed by the clock; its start is set to its end"),
    (5, "endTimeUnixNano", "18446744073709551615", "never ended; its end is set to the latest time in its subtree"),
])
def test_an_unset_time_among_clock_times_is_no_time(index, field, value, note):
    """Run 39: a root span starting at 0 (OTLP's unset value) gave a run of 55 years, and an end of 2**64 - 1 one of
    529 years, both valid traces without a word; a child at 0 was shifted by decades as clock skew."""
    doc = json.loads((DATA / "any-agent-OPENAI_trace.otlp.json").read_text())
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][index][field] = value
    result = convert_otlp(json.dumps(doc).encode(), "x.json")
    assert validate_trace(result.trace) == []
    assert 1.2 < result.trace["costs"]["wall_clock_s"] < 1.3
    assert any(note in line for line in result.notes), result.notes
    assert not any("clock skew" in line for line in result.notes), result.notes
