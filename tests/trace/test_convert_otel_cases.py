"""The OpenTelemetry converter on the export shapes and defects real systems produce.

Inputs are built here in the shapes of the OTLP/JSON encoding and the GenAI semantic
conventions (agent spans: create_agent, invoke_agent CLIENT/INTERNAL, execute_tool,
chat); every converted trace must validate.
"""

from __future__ import annotations

import base64
import json

import pytest

from masrl.trace.convert import ConvertError, convert, detect_format
from masrl.trace.metrics import trace_metrics
from masrl.trace.validate import validate_trace

T0 = 1_700_000_000_000_000_000
TRACE = "0af7651916cd43dd8448eb211c80319c"
MS = 1_000_000


def attr(key, value):
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def span(sid, parent, name, start_ms, end_ms, kind=1, **attrs):
    """One OTLP span; times in ms after T0 (end None -> "0", never ended)."""
    return {
        "traceId": TRACE,
        "spanId": sid,
        "parentSpanId": parent,
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(T0 + round(start_ms * MS)),
        "endTimeUnixNano": "0" if end_ms is None else str(T0 + round(end_ms * MS)),
        "attributes": [attr(k.replace("__", "."), v) for k, v in attrs.items()],
    }


def agent(sid, parent, name, start, end, kind=1, **more):
    return span(sid, parent, f"invoke_agent {name}", start, end, kind, gen_ai__operation__name="invoke_agent",
                gen_ai__agent__name=name, **more)


def tool(sid, parent, name, start, end, **more):
    return span(sid, parent, f"execute_tool {name}", start, end, 1, gen_ai__operation__name="execute_tool",
                gen_ai__tool__name=name, **more)


def chat(sid, parent, start, end, inp, out, **more):
    return span(sid, parent, "chat m", start, end, 3, gen_ai__operation__name="chat", gen_ai__request__model="m",
                gen_ai__usage__input_tokens=inp, gen_ai__usage__output_tokens=out, **more)


def otlp(*groups) -> dict:
    """groups: (service name, [spans]) -> one OTLP/JSON document."""
    return {
        "resourceSpans": [
            {"resource": {"attributes": [attr("service.name", service)]}, "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}
            for service, spans in groups
        ]
    }


def run(doc, **kw):
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    result = convert(data, "x.json", **kw)
    assert validate_trace(result.trace) == [], result.notes
    return result


def events(result) -> dict:
    return {e["id"]: e for e in result.trace["events"]}


def simple_run() -> list:
    return [
        agent("a1", "", "lead", 0, 100),
        tool("t1", "a1", "search", 10, 40),
        chat("c1", "a1", 50, 90, 100, 20),
    ]


def test_json_lines_equal_one_document():
    spans = simple_run()
    one = run(otlp(("app", spans)))
    lines = "\n".join(json.dumps(otlp(("app", [s]))) for s in spans).encode() + b"\n"
    many = run(lines)
    assert many.trace == one.trace
    assert many.notes[1] == "read as OTLP JSON Lines (3 documents)"
    assert one.notes[1] == "read as OTLP JSON"
    assert one.trace["costs"]["tokens"] == 120


def test_base64_ids_become_hex():
    def b64(hexid):
        return base64.b64encode(bytes.fromhex(hexid)).decode()

    spans = [agent("00f067aa0ba902b7", "", "lead", 0, 100), tool("00f067aa0ba902b8", "00f067aa0ba902b7", "search", 10, 40)]
    for s in spans:
        s["traceId"] = b64(TRACE)
        s["spanId"] = b64(s["spanId"])
        s["parentSpanId"] = b64(s["parentSpanId"]) if s["parentSpanId"] else ""
    result = run(otlp(("app", spans)))
    assert result.trace["trace_id"] == TRACE
    assert sorted(events(result)) == ["00f067aa0ba902b7:end", "00f067aa0ba902b8:end", "00f067aa0ba902b8:start"]
    assert "5 ids were base64 (protobuf JSON mapping); they are converted to hex" in result.notes


def test_numbers_or_strings_for_nanos():
    spans = simple_run()
    as_numbers = json.loads(json.dumps(spans))
    for s in as_numbers:
        s["startTimeUnixNano"] = int(s["startTimeUnixNano"])
        s["endTimeUnixNano"] = int(s["endTimeUnixNano"])
    assert run(otlp(("app", as_numbers))).trace == run(otlp(("app", spans))).trace


def test_child_outliving_its_parent_is_clamped():
    spans = [agent("a1", "", "lead", 0, 100), tool("t1", "a1", "search", 10, 100.6)]
    result = run(otlp(("app", spans)))
    assert events(result)["t1:end"]["t"] == 0.1
    assert "span 'execute_tool search' (t1): ends 0.6 ms after its parent span 'invoke_agent lead' (a1); " \
        "its end is clamped to the parent's end" in result.notes


def test_a_skew_below_a_microsecond_is_named_in_nanoseconds():
    spans = [agent("a1", "", "lead", 0, 100), tool("t1", "a1", "search", 10, 100.00004)]  # 40 ns past its parent
    result = run(otlp(("app", spans)))
    assert "span 'execute_tool search' (t1): ends 40 ns after its parent span 'invoke_agent lead' (a1); " \
        "its end is clamped to the parent's end" in result.notes


def test_remote_agent_clock_behind_is_shifted():
    caller = [agent("a1", "", "lead", 0, 200), span("cl", "a1", "invoke_agent helper", 50, 150, 3,
                                                      gen_ai__operation__name="invoke_agent", gen_ai__agent__name="helper")]
    remote = [agent("h1", "cl", "helper", 30, 120), tool("ht", "h1", "calc", 40, 60)]  # 20 ms behind
    result = run(otlp(("caller", caller), ("remote", remote)))
    ev = events(result)
    assert ev["cl:start"]["t"] == 0.05 and ev["ht:start"]["t"] == 0.06 and ev["ht:end"]["t"] == 0.08
    assert "span 'invoke_agent helper' (h1): starts 20 ms before its parent span 'invoke_agent helper' (cl) " \
        "(clock skew); it and its 1 descendant spans shifted by +20 ms" in result.notes


def test_unended_root_ends_with_its_subtree():
    spans = [agent("a1", "", "lead", 0, None), tool("t1", "a1", "search", 10, 40), chat("c1", "a1", 50, 90, 1, 2)]
    result = run(otlp(("app", spans)))
    assert events(result)["a1:end"]["t"] == 0.09
    assert result.trace["costs"]["wall_clock_s"] == 0.09
    assert "span 'invoke_agent lead' (a1): never ended; its end is set to the latest time in its subtree (+90 ms)" in result.notes


def test_client_and_internal_invoke_agent_are_one_invocation():
    def build(merge_names: bool):
        inner_name = "researcher" if merge_names else "researcher-internal"
        return otlp(("app", [
            agent("o1", "", "orchestrator", 0, 100),
            chat("d1", "o1", 1, 5, 10, 5),
            agent("cl", "o1", "researcher", 10, 80, kind=3),  # CLIENT span on the caller's side
            agent("in", "cl", inner_name, 11, 79, kind=1),  # INTERNAL span on the agent's side
            tool("t1", "in", "search", 20, 30),
            chat("d2", "o1", 85, 95, 10, 5),
        ]))

    merged = run(build(True))
    assert [(e["type"], e["agent"], e.get("to")) for e in merged.trace["events"]] == [
        ("orchestrator_decision", "orchestrator", None),
        ("spawn", "orchestrator", "researcher"),
        ("tool_call", "researcher", None),
        ("tool_result", "search", None),
        ("return", "researcher", "orchestrator"),
        ("orchestrator_decision", "orchestrator", None),
        ("stop", "orchestrator", None),
    ]
    m = trace_metrics(merged.trace)
    assert m["events"] == 7 and m["protocol_overhead"] == round(5 / 7, 6)
    assert (m["agents"], m["spawn_depth"]) == (2, 1)
    assert "span 'invoke_agent researcher' (in): the same invocation of agent 'researcher' as span " \
        "'invoke_agent researcher' (cl) (caller and agent side); merged into one spawn and one return" in merged.notes
    separate = run(build(False))  # different agents: a real nested spawn
    assert trace_metrics(separate.trace)["events"] == 9


def test_an_agent_created_or_invoked_below_its_own_span_is_no_self_spawn():
    """Found by the OTel fuzzer: a create_agent span of agent 'w' under w's own invocation made
    'w' spawn itself, which validate refuses (and metrics would count as fan-out and depth)."""
    doc = otlp(("app", [
        agent("o1", "", "orchestrator", 0, 100),
        agent("w1", "o1", "worker", 10, 80),
        span("w2", "w1", "create_agent worker", 20, 21, gen_ai__operation__name="create_agent", gen_ai__agent__name="worker"),
        agent("w3", "w1", "worker", 30, 40, kind=3),
        tool("t1", "w3", "search", 32, 38),
    ]))
    result = run(doc)  # validates
    assert [(e["type"], e["agent"], e.get("to")) for e in result.trace["events"]] == [
        ("spawn", "orchestrator", "worker"),
        ("tool_call", "worker", None),
        ("tool_result", "search", None),
        ("return", "worker", "orchestrator"),
        ("stop", "orchestrator", None),
    ]
    assert "span 'create_agent worker' (w2): agent 'worker' inside agent 'worker' itself; no spawn or return " \
        "(it would spawn itself)" in result.notes


def test_old_usage_names_are_read_and_noted():
    spans = [agent("a1", "", "lead", 0, 100), span("c1", "a1", "chat m", 10, 20, 3, gen_ai__operation__name="chat",
                                                   gen_ai__usage__prompt_tokens=30, gen_ai__usage__completion_tokens=12)]
    result = run(otlp(("app", spans)))
    assert result.trace["costs"]["tokens"] == 42
    assert "1 span(s) report usage as gen_ai.usage.prompt_tokens/completion_tokens (GenAI semantic conventions " \
        "before v1.27.0, now gen_ai.usage.input_tokens/output_tokens); read as input and output tokens" in result.notes


def test_usage_on_a_span_without_event_is_counted_and_named():
    spans = [
        agent("a1", "", "lead", 0, 100),
        span("w1", "a1", "invoke_workflow plan", 10, 50, 1, gen_ai__operation__name="invoke_workflow",
             gen_ai__usage__input_tokens=70, gen_ai__usage__output_tokens=7),
        span("e1", "", "embeddings e", 110, 120, 3, gen_ai__operation__name="embeddings", gen_ai__usage__input_tokens=5),
    ]
    result = run(otlp(("app", spans)))
    assert result.trace["costs"]["tokens"] == 82
    assert events(result)["a1:end"]["tokens"] == 77
    assert "unmapped span 'invoke_workflow plan' (w1): operation invoke_workflow has no event type; its children " \
        "are kept; its 77 tokens are counted on agent 'lead' (its return event)" in result.notes
    assert "unmapped span 'embeddings e' (e1): operation embeddings has no event type; its children are kept; " \
        "its 5 tokens are counted in costs.tokens only (no agent contains it)" in result.notes


def test_model_calls_under_another_operation_name_keep_their_tokens():
    spans = [agent("a1", "", "lead", 0, 100)] + [
        span(f"c{k}", "a1", "call_llm m", 10 * k, 10 * k + 5, 1, gen_ai__operation__name="call_llm",
             gen_ai__request__model="m", gen_ai__usage__input_tokens=100 * k, gen_ai__usage__output_tokens=k)
        for k in (1, 2, 3)
    ]
    result = run(otlp(("app", spans)))
    assert result.trace["costs"]["tokens"] == 606
    assert events(result)["a1:end"]["tokens"] == 606
    assert result.notes[0].endswith("3 model-call spans of leaf agents folded into their agent's return or stop (606 tokens)")
    assert "operation 'call_llm' is not a GenAI convention operation; its 3 span(s) name a model " \
        "(gen_ai.request.model) and are read as model calls" in result.notes


def test_orphan_goes_to_the_agent_containing_it_in_time():
    spans = [
        agent("a1", "", "lead", 0, 100),
        agent("a2", "a1", "helper", 10, 60),
        tool("t1", "gone", "search", 20, 30),  # inside both: the shorter span wins
        tool("t2", "gone", "late", 70, 80),  # inside lead only
        tool("t3", "gone", "outside", 120, 130),  # inside none
    ]
    result = run(otlp(("app", spans)))
    ev = events(result)
    assert (ev["t1:start"]["agent"], ev["t2:start"]["agent"], ev["t3:start"]["agent"]) == ("helper", "lead", "app")
    assert "span 'execute_tool outside' (t3): parent gone is not in the input and no agent span contains it in " \
        "time; treated as a root" in result.notes


def test_sdk_span_json_with_integer_ids():
    trace_int = int(TRACE, 16)

    def sdk(sid, parent, name, start, end, **attrs):
        return {"name": name, "kind": "internal", "context": {"trace_id": trace_int, "span_id": sid},
                "parent": {"trace_id": trace_int if parent else None, "span_id": parent},
                "start_time": T0 + start * MS, "end_time": T0 + end * MS, "attributes": attrs,
                "resource": {"attributes": {"service.name": "svc"}}}

    doc = {"spans": [
        sdk(2, 1, "call_llm m", 10, 20, **{"gen_ai.operation.name": "call_llm", "gen_ai.request.model": "m",
                                          "gen_ai.usage.input_tokens": 269, "gen_ai.usage.output_tokens": 16}),
        sdk(3, 1, "execute_tool now", 21, 22, **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "now"}),
        sdk(1, None, "invoke_agent [a]", 0, 30, **{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
    ], "final_output": "x"}
    result = run(doc)
    assert result.notes[1] == 'read as OTel SDK span JSON ({"spans": [...]})'
    assert result.trace["trace_id"] == TRACE and result.trace["costs"]["tokens"] == 285
    assert sorted(events(result)) == ["0000000000000001:end", "0000000000000003:end", "0000000000000003:start"]
    assert detect_format(json.dumps(doc).encode(), "x.json") == "otel"


def test_labels_from_attributes():
    doc = otlp(("app", simple_run()))
    doc["resourceSpans"][0]["resource"]["attributes"] += [attr("masrl.label.step", 12), attr("masrl.label.policy", "A")]
    assert run(doc).trace["labels"] == {"step": 12, "policy": "A"}


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"events": [], "edges": []}', "x.json: already an orchestration trace"),
        (b'{"foo": 1}', "x.json: cannot tell the format; give --from FORMAT (openinference: OpenInference spans"),
        (b"", "x.json: the file is empty"),
        (b'{"resourceSpans": []}\n{"x": 1}', "x.json: document 2 of 2 has no 'resourceSpans' array"),
    ],
)
def test_refusals_name_the_problem(data, message):
    with pytest.raises(ConvertError) as info:
        convert(data, "x.json")
    assert str(info.value).startswith(message)


def test_tokens_under_a_create_agent_span_are_kept():
    spans = [
        agent("a1", "", "lead", 0, 100),
        span("cr", "a1", "create_agent helper", 10, 30, 1, gen_ai__operation__name="create_agent", gen_ai__agent__name="helper"),
        chat("c1", "cr", 12, 20, 40, 2),  # the model call that configures the new agent
    ]
    result = run(otlp(("app", spans)))
    assert result.trace["costs"]["tokens"] == 42
    assert events(result)["cr"]["tokens"] == 42


@pytest.mark.parametrize("value, shown", [
    ({"intValue": "abc"}, "intValue 'abc'"), ({"intValue": "12x"}, "intValue '12x'"), ({"doubleValue": "NaN"}, "nan"),
    ({"doubleValue": "lots"}, "doubleValue 'lots'"), ({"intValue": True}, "intValue True"), ({"intValue": "-100"}, "-100"),
    ({"stringValue": "lots"}, "'lots'"), ({"doubleValue": 100.7}, "100.7"), ({"stringValue": "0.6"}, "'0.6'"),
])
def test_usage_that_is_no_count_is_named_not_dropped(value, shown):
    bad = span("c2", "a1", "chat m", 60, 70, 3, gen_ai__operation__name="chat")
    bad["attributes"].append({"key": "gen_ai.usage.input_tokens", "value": value})
    result = run(otlp(("app", simple_run() + [bad])))
    assert result.trace["costs"]["tokens"] == 120  # the 100 + 20 of c1; c2's value is not a count
    assert (f"1 usage value(s) are not token counts and were not counted: span 'chat m' (c2): gen_ai.usage.input_tokens = "
            f"{shown}") in result.notes


def test_a_repeated_key_is_refused_by_name():
    data = json.dumps(otlp(("app", simple_run()))).replace('"spanId": "t1"', '"spanId": "t1", "spanId": "zz"').encode()
    with pytest.raises(ConvertError) as err:
        convert(data, "x.json")
    assert str(err.value) == "x.json: cannot read the JSON: the key 'spanId' appears twice in one object (JSON leaves the meaning open)"


def test_numbers_beyond_any_count_or_time_are_named_not_a_traceback():
    """Two usage counts of 1.7e308 add up to infinity (int() of it raised OverflowError); a time of 5,000 digits
    is more than Python reads (ValueError). Neither is a count or a time a run recorded: named, not counted."""
    huge = chat("c2", "a1", 60, 70, 1.7e308, 1.7e308)
    late = chat("c3", "a1", 75, 80, 5, 5)
    late["endTimeUnixNano"] = "9" * 5000
    result = run(otlp(("app", simple_run() + [huge, late])))
    assert result.trace["costs"]["tokens"] == 120 + 10  # c1, and c3 (whose end is unread)
    assert any(n.startswith("2 usage value(s) are not token counts and were not counted: span 'chat m' (c2): "
                            "gen_ai.usage.input_tokens = 1.7e+308") for n in result.notes), result.notes


def test_root_agents_that_began_before_their_first_event_are_named_with_both_times():
    """alpha runs 0..2000 ms, beta 0..3000 ms: the schema has no event for an agent's start, so each is alive in
    the trace from its first event (alpha's tool call at 1 s, beta's at 2.2 s) and they no longer overlap; the
    note says so with both times. One root agent (no overlap to lose) gets no such note."""
    doc = otlp(("app", [agent("a1", "", "alpha", 0, 2000), tool("t1", "a1", "search", 1000, 1500),
                        agent("b1", "", "beta", 0, 3000), tool("t2", "b1", "fetch", 2200, 2500)]))
    result = run(doc)
    assert trace_metrics(result.trace)["peak_concurrent_agents"] == 1
    assert ("root agent(s) 'alpha' (0 s, first event 1 s), 'beta' (0 s, first event 2.2 s) began before their first "
            "event; nobody spawned them and the trace schema has no event for an agent's start, so in the trace each "
            "is alive from its first event (peak_concurrent_agents counts the overlap of those intervals)") in result.notes
    assert not [n for n in run(otlp(("app", simple_run()))).notes if n.startswith("root agent(s)")]


def test_a_whole_number_written_as_a_double_is_a_token_count():
    whole = span("c2", "a1", "chat m", 60, 70, 3, gen_ai__operation__name="chat")
    whole["attributes"].append({"key": "gen_ai.usage.input_tokens", "value": {"doubleValue": 30.0}})
    result = run(otlp(("app", simple_run() + [whole])))
    assert result.trace["costs"]["tokens"] == 150 and not [n for n in result.notes if "not token counts" in n]


def test_the_order_of_the_spans_in_the_export_changes_nothing():
    """A batch exporter writes children before parents; time ties were broken by position in the file, so a
    zero-length tool starting with a sibling agent made the critical path 5 or 7 steps by the order alone. The
    agent that starts when the tool ends depends on it (the join rule): 7, in every order."""
    import itertools

    spans = [agent("a", "", "boss", 0, 10), agent("b", "a", "w", 1, 5), tool("c", "b", "s", 2, 3),
             tool("d", "a", "ping", 1, 1)]
    outputs = {json.dumps(run(otlp(("app", list(order)))).trace, sort_keys=True) for order in itertools.permutations(spans)}
    assert len(outputs) == 1
    trace = json.loads(outputs.pop())
    assert trace_metrics(trace)["critical_path_steps"] == 7
    assert {"src": "d:end", "dst": "b:start", "type": "spawn"} in trace["edges"]
