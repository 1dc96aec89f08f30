"""Langfuse and OpenAI Agents SDK converters, on inputs built in their documented shapes."""

from __future__ import annotations

import json

import pytest

from masrl.trace.convert import CONVERTERS, ConvertError, convert, detect_format
from masrl.trace.metrics import trace_metrics
from masrl.trace.validate import validate_trace


def iso(ms: int) -> str:
    return f"2025-09-30T09:04:{ms // 1000:02d}.{ms % 1000:03d}Z"


def obs(oid, parent, typ, name, start, end, **more):
    return {"id": oid, "traceId": "tr1", "parentObservationId": parent, "type": typ, "name": name,
            "startTime": iso(start), "endTime": None if end is None else iso(end), **more}


def langfuse_doc():
    return {
        "trace": {"id": "tr1", "name": "demo", "sessionId": "sess-1", "metadata": {"step": 3, "policy": "B", "other": 1}},
        "observations": [
            obs("w", None, "AGENT", "workflow", 0, 3000),
            obs("h", "w", "AGENT", "helper", 100, 2900, usageDetails={"input": 5, "output": 5, "total": 10}),
            obs("g1", "h", "GENERATION", "response", 200, 1000, model="gpt-x",
                usageDetails={"input": 55, "output": 15, "total": 70, "prompt_details.cache_read": 0}),
            obs("t1", "h", "TOOL", "get_weather", 1100, 1100),
            obs("g2", "h", "GENERATION", "response", 1200, 2800, usage={"input": 85, "output": 29}),
            obs("s1", "w", "SPAN", "bookkeeping", 2950, 2960),
        ],
    }


def run(doc, fmt=None, **kw):
    result = convert(json.dumps(doc).encode(), "x.json", fmt, **kw)
    assert validate_trace(result.trace) == [], result.notes
    return result


def test_langfuse_agents_tools_generations():
    result = run(langfuse_doc())
    trace = result.trace
    assert [(e["id"], e["type"], e["agent"], e.get("to"), e.get("tokens")) for e in trace["events"]] == [
        # the trace 'demo' is the application, not an agent: 'workflow' is the run's root agent (no spawn, a stop)
        ("h:start", "spawn", "workflow", "helper", None),
        ("t1:start", "tool_call", "helper", None, None),
        ("t1:end", "tool_result", "get_weather", None, None),
        ("h:end", "return", "helper", "workflow", 184),  # both generations folded; the 10-token roll-up not counted
        ("w:end", "stop", "workflow", None, None),
    ]
    assert trace["costs"]["tokens"] == 184
    assert (trace["trace_id"], trace["task_id"], trace["system"]) == ("tr1", "sess-1", "langfuse: demo")
    assert trace["labels"] == {"step": 3, "policy": "B"}
    assert result.notes == [
        "converted 5 of 6 spans into 5 events and 4 edges; 1 unmapped; 184 tokens counted; "
        "2 model-call spans of leaf agents folded into their agent's return or stop (184 tokens)",
        "unmapped span 'bookkeeping' (s1): type SPAN has no event type; its children are kept",
        "span 'helper' (h): its 10 tokens are taken as a roll-up of its descendants' usage, which is counted instead",
    ]
    assert detect_format(json.dumps(langfuse_doc()).encode(), "x.json") == "langfuse"


def test_a_model_call_that_starts_nothing_is_no_decision():
    """A lone generation outside any agent decides nothing: no orchestrator_decision is made up
    (it made the run report protocol overhead 1), so there is no event and the export is refused."""
    doc = {"trace": {"id": "tr2", "name": "crew"}, "observations": [
        obs("root", None, "SPAN", "kickoff", 0, 2000),
        obs("g", "root", "GENERATION", "completion", 10, 1900, usageDetails={"input": 190, "output": 164, "total": 354}),
    ]}
    with pytest.raises(ConvertError) as err:
        convert(json.dumps(doc).encode(), "x.json")
    assert str(err.value) == (  # every refusal names its file
        "x.json: no span could be mapped to an event (an orchestration trace needs an agent, tool, handoff or guardrail "
        "span, or a model call that starts one): unmapped span 'kickoff' (root): type SPAN has no event type; "
        "its children are kept; span 'completion' (g): a model call outside any agent span: no event (the "
        "application is not an agent, and the call decides nothing to orchestrate); its 354 tokens are counted in "
        "costs.tokens only"
    )


def test_a_model_call_of_the_application_is_no_agent_decision():
    """The application is not an agent, even where it starts one: its model call has no event (its tokens are
    counted in costs.tokens), and the agent it starts is a root agent, not spawned."""
    doc = {"trace": {"id": "tr3", "name": "crew"}, "observations": [
        obs("g", None, "GENERATION", "plan", 0, 100, usageDetails={"total": 30}),
        obs("a", None, "AGENT", "worker", 200, 900),
    ]}
    result = run(doc)
    assert [(e["type"], e["agent"], e.get("to"), e.get("tokens")) for e in result.trace["events"]] == [
        ("stop", "worker", None, None)]
    assert result.trace["costs"]["tokens"] == 30


REAL = DATA_DIR = __import__("pathlib").Path(__file__).parent / "data"


def real(name: str):
    data = (REAL / name).read_bytes()
    result = convert(data, name)
    assert validate_trace(result.trace) == [], result.notes
    return result


def test_real_langfuse_openai_agents_root_agent_is_the_entry_not_a_self_spawn():
    """langfuse/langfuse's framework trace of the OpenAI Agents SDK: the root AGENT span 'Agent workflow'
    is the trace's own name, the workflow that runs the agent 'Hello world': no event of its own (it was
    a spawn of itself, then a spawn of the agent: 2 agents, depth 1, for a single-agent run)."""
    result = real("langfuse-openai-agents-2025-09-30.trace.json")
    events = [(e["type"], e["agent"], e.get("to"), e.get("tokens")) for e in result.trace["events"]]
    assert events == [
        ("tool_call", "Hello world", None, None),
        ("tool_result", "get_weather", None, None),
        ("stop", "Hello world", None, 184),
    ]
    assert "span 'Agent workflow' (e5a76f27f51ad40e): agent 'Agent workflow' is the application itself, which " \
        "runs the agents inside it; no event (an application is not an agent)" in result.notes
    m = trace_metrics(result.trace)
    assert (m["spawn_fanout_max"], m["spawn_depth"], m["agents"], m["tokens"], m["event_tokens"]) == (0, 0, 1, 184, 184)


def test_real_langfuse_microsoft_agent_single_agent_run():
    result = real("langfuse-microsoft-agent-2025-12-17.trace.json")
    agent = "invoke_agent 171105b7-59dd-49c0-9677-0b95395aa46a"
    assert [(e["type"], e["agent"], e.get("tokens")) for e in result.trace["events"]] == [
        ("tool_call", agent, None), ("tool_result", "get_weather", None), ("stop", agent, 399)]
    assert result.trace["costs"]["tokens"] == 399  # both chat calls, 163 + 236, on the agent's stop
    m = trace_metrics(result.trace)
    assert (m["agents"], m["spawn_depth"], m["event_tokens"], m["decisions"]["untagged"]) == (1, 0, 399, 0)


def test_real_langfuse_crewai_lone_generation_is_refused():
    with pytest.raises(ConvertError) as err:
        convert((REAL / "langfuse-crewai-2025-07-11.trace.json").read_bytes(), "crew.json")
    assert str(err.value).startswith("crew.json: no span could be mapped to an event")
    assert str(err.value).endswith("span 'completion' (231c43964b7e7e63): a model call outside any agent span: no "
                                   "event (the application is not an agent, and the call decides nothing to "
                                   "orchestrate); its 354 tokens are counted in costs.tokens only")


def test_langfuse_unended_observation_and_trace_object_form():
    doc = langfuse_doc()
    flat = dict(doc["trace"], observations=doc["observations"])
    flat["observations"][0]["endTime"] = None
    result = run(flat)
    assert "span 'workflow' (w): never ended; its end is set to the latest time in its subtree (+2960 ms)" in result.notes


def test_langfuse_refusals():
    with pytest.raises(ConvertError, match="x.json: not a Langfuse trace export"):
        convert(b'{"trace": {}}', "x.json", "langfuse")
    bad = {"trace": {"id": "t"}, "observations": [{"id": 3, "type": "SPAN", "startTime": "nope"}]}
    with pytest.raises(ConvertError, match=r"no observation to convert: unmapped observation '' \(#1\): malformed"):
        convert(json.dumps(bad).encode(), "x.json", "langfuse")


# -- OpenAI Agents SDK ------------------------------------------------------------------
TID = "trace_" + "a" * 32


def sdk_span(n, parent, start, end, data, error=None):
    return {"object": "trace.span", "id": f"span_{n:024x}", "trace_id": TID,
            "parent_id": None if parent is None else f"span_{parent:024x}",
            "started_at": f"2025-03-11T12:00:{start:02d}.000000+00:00",
            "ended_at": None if end is None else f"2025-03-11T12:00:{end:02d}.000000+00:00",
            "span_data": data, "error": error}


def agents_batch():
    return {"data": [
        {"object": "trace", "id": TID, "workflow_name": "support", "group_id": "conv-9", "metadata": {"run": "r1", "step": 4}},
        sdk_span(1, None, 0, 10, {"type": "agent", "name": "triage", "handoffs": ["billing"], "tools": [], "output_type": "str"}),
        sdk_span(2, 1, 1, 2, {"type": "guardrail", "name": "no_pii", "triggered": False}),
        sdk_span(3, 1, 2, 3, {"type": "generation", "input": [], "output": [], "model": "gpt-4o",
                              "model_config": {}, "usage": {"input_tokens": 40, "output_tokens": 8}}),
        sdk_span(4, 1, 4, 4, {"type": "handoff", "from_agent": "triage", "to_agent": "billing"}),
        sdk_span(5, None, 11, 20, {"type": "agent", "name": "billing", "handoffs": [], "tools": ["refund"], "output_type": "str"}),
        sdk_span(6, 5, 12, 14, {"type": "function", "name": "refund", "input": "{}", "output": "ok", "mcp_data": None}),
        sdk_span(7, 5, 15, 18, {"type": "response", "response_id": "resp_1", "usage": {"input_tokens": 30, "output_tokens": 6}}),
        sdk_span(8, 5, 18, 19, {"type": "custom", "name": "turn", "data": {}}),
    ]}


def test_agents_sdk_batch():
    result = run(agents_batch())
    trace = result.trace
    got = [(e["type"], e["agent"], e.get("from"), e.get("to"), e.get("decision"), e.get("tokens")) for e in trace["events"]]
    assert got == [  # the workflow 'support' is not an agent: triage and billing are root agents, each stops
        ("safety_event", "triage", None, None, None, None),
        ("orchestrator_decision", "triage", None, None, None, 48),  # triage hands off: it orchestrates
        ("orchestrator_decision", "triage", "triage", "billing", "O2", None),
        ("stop", "triage", None, None, None, None),
        ("tool_call", "billing", None, None, None, None),
        ("tool_result", "refund", None, None, None, None),
        ("stop", "billing", None, None, None, 36),
    ]
    guard = next(e for e in trace["events"] if e["type"] == "safety_event")
    assert (guard["guardrail"], guard["triggered"]) == ("no_pii", False)
    assert (trace["trace_id"], trace["task_id"], trace["labels"]) == (TID, "conv-9", {"run": "r1", "step": 4})
    m = trace_metrics(trace)
    assert m["decisions"]["O2"] == 1 and m["tokens"] == 84 and m["tool_calls"] == 1
    assert "unmapped span 'turn' (span_000000000000000000000008): span type custom has no event type; its children are kept" in result.notes
    assert detect_format(json.dumps(agents_batch()).encode(), "x.json") == "openai-agents"


@pytest.mark.parametrize("value, shown", [("yes", "'yes'"), (1, "1"), (None, "null")])
def test_a_guardrail_triggered_that_is_not_true_or_false_is_named(value, shown):
    """Run 40: "triggered": "yes", 1 or null was dropped from the safety event without a word."""
    batch = agents_batch()
    batch["data"][2]["span_data"]["triggered"] = value
    result = run(batch)
    guard = next(e for e in result.trace["events"] if e["type"] == "safety_event")
    assert "triggered" not in guard
    assert (f"span 'no_pii' (span_000000000000000000000002): triggered = {shown} is not true or false; the safety "
            "event is written without it") in result.notes, result.notes


def test_an_agent_called_after_it_began_as_a_root_agent_is_not_spawned():
    """A root agent (nobody spawns it) that another agent calls later is not spawned then: it
    would act before its spawn; its work there is its own (its tokens on its stop)."""
    batch = {"data": [
        {"object": "trace", "id": TID, "workflow_name": "support"},
        sdk_span(1, None, 0, 5, {"type": "agent", "name": "billing"}),
        sdk_span(2, None, 1, 20, {"type": "agent", "name": "triage"}),
        sdk_span(3, 2, 10, 15, {"type": "agent", "name": "billing"}),
        sdk_span(4, 3, 11, 12, {"type": "generation", "model": "m", "usage": {"input_tokens": 5, "output_tokens": 2}}),
        sdk_span(5, 3, 12, 13, {"type": "function", "name": "refund"}),
    ]}
    result = run(batch)
    got = [(e["type"], e["agent"], e.get("to"), e.get("tokens")) for e in result.trace["events"]]
    assert got == [("stop", "billing", None, 7), ("tool_call", "billing", None, None), ("tool_result", "refund", None, None),
                   ("stop", "triage", None, None)]
    assert ("span 'billing' (span_000000000000000000000003): agent 'billing' is a root agent of the run (nobody spawned "
            "it; span 'billing' (span_000000000000000000000001) began earlier); no spawn or return; what it does here is "
            "its own") in result.notes
    later = {"data": [batch["data"][0], sdk_span(1, None, 16, 17, {"type": "agent", "name": "billing"}), *batch["data"][2:4]]}
    spawned = [(e["type"], e["agent"], e.get("to")) for e in run(later).trace["events"]]
    assert ("spawn", "triage", "billing") in spawned  # spawned before it begins as a root agent: a spawn


def test_agents_sdk_json_lines_and_unended_span():
    items = agents_batch()["data"]
    items[5]["ended_at"] = None
    data = "\n".join(json.dumps(i) for i in items).encode()
    result = convert(data, "x.jsonl")
    assert validate_trace(result.trace) == []
    assert "span 'billing' (span_000000000000000000000005): never ended; its end is set to the latest time in its subtree (+8000 ms)" in result.notes


def test_agents_sdk_run_state_is_refused_by_name():
    state = {"$schemaVersion": "1.3", "current_agent": {"name": "a"},
             "trace": {"id": TID, "object": "trace", "workflow_name": "w"}}
    with pytest.raises(ConvertError, match=r"x.json: an OpenAI Agents SDK run state \(RunState, \$schemaVersion 1.3\): its 'trace' holds"):
        convert(json.dumps(state).encode(), "x.json")


def test_registry_lists_every_format():
    assert list(CONVERTERS) == ["openinference", "otel", "langfuse", "openai-agents", "mlflow", "message-log"]
    with pytest.raises(ConvertError, match="unknown format 'csv'; known: openinference, otel, langfuse, "
                                           "openai-agents, mlflow, message-log"):
        convert(b"{}", "x.json", "csv")


def test_usage_that_is_no_count_and_odd_names_are_named_not_dropped():
    doc = langfuse_doc()
    doc["observations"][4]["usage"] = {"input": "abc", "output": 29.5}
    doc["observations"][1]["name"] = {"first": "helper"}
    result = run(doc)
    assert ("2 usage value(s) are not token counts and were not counted: span 'response' (g2): input = 'abc'; span "
            "'response' (g2): output = 29.5") in result.notes  # a fraction is no count either
    assert "observation #2: name {'first': 'helper'} is not text; it is left unnamed" in result.notes
    batch = agents_batch()
    batch["data"][3]["span_data"]["usage"]["input_tokens"] = "lots"
    batch["data"][4]["span_data"]["to_agent"] = None
    result = run(batch)
    assert any(n.startswith("1 usage value(s) are not token counts and were not counted: ") and "input_tokens = 'lots'" in n
               for n in result.notes), result.notes
    assert any("handoff without to_agent; shown as '?'" in n for n in result.notes), result.notes
