"""Metrics of the shipped examples against hand computations, and edge cases."""

from __future__ import annotations

import json

import pytest
from conftest import survey_trace

from masrl.trace.examples import load_examples
from masrl.trace.metrics import (
    protocol_overhead,
    reward_by_credit_unit,
    tokens_per_reward,
    trace_metrics,
)

EXAMPLES = {name: json.loads(data) for name, data in load_examples().items()}


def test_survey_example_metrics():
    m = trace_metrics(EXAMPLES["survey_example"])
    # Hand computation (survey example: e1 decision t0, e2/e3 spawns t1/t2, e4 message t3,
    # e5 tool_call t4, e6 tool_result t5, e7 return t6, e8 aggregate t7; every edge is a
    # dependency edge):
    # longest chain e1 -> e2 -> e4 -> e5 -> e6 -> e7 -> e8 = 7 events (e1->e3->e4... is as long),
    #   elapsed t7 - t0 = 7; parallelism 8 / 7 = 1.142857.
    # agents (tool_result's agent browser.search is a tool, not an agent): orchestrator [0, 7],
    #   planner_1 [spawn 1, last act 3], executor_1 [spawn 2, last act 6] -> all three live at t in [2, 3]: peak 3.
    # spawn: orchestrator has 2 children -> fan-out max 2, mean 2.0; depth 1.
    # coordination: decision e1, spawns e2 e3, message e4, return e7, aggregate e8 = 6 of 8 = 0.75.
    # reward 1.0 + 0.3 + 0.1 = 1.4; tokens / reward = 12000 / 1.4 = 8571.428571; no unit mapping.
    assert m["events"] == 8 and m["edges"] == 8 and m["agents"] == 3
    assert m["critical_path_steps"] == 7
    assert m["critical_path_time"] == 7.0
    assert m["parallelism"] == 1.142857
    assert m["peak_concurrent_agents"] == 3
    assert (m["spawn_fanout_max"], m["spawn_fanout_mean"], m["spawn_depth"]) == (2, 2.0, 1)
    assert m["protocol_overhead"] == 0.75
    assert m["tool_calls"] == 1 and m["messages"] == 1
    assert m["tokens"] == 12000 and m["event_tokens"] == 0
    assert m["reward_total"] == 1.4
    assert m["reward_by_credit_unit"] == {"unmapped": 1.4}
    assert m["tokens_per_reward"] == 8571.428571
    assert m["decisions"] == {"O1": 0, "O2": 0, "O3": 0, "O4": 0, "O5": 0, "untagged": 1}
    assert m["event_types"]["spawn"] == 2 and m["event_types"]["stop"] == 0


def test_centralized_metrics():
    m = trace_metrics(EXAMPLES["centralized"])
    # 15 events. Longest chain: d1 -> s1 -> d2 -> c1 -> r1 -> m1 -> x1 (or x2) -> d4 -> a1 -> st = 10
    # (the d1 -> d4 edge is temporal: not a dependency); elapsed 9 - 0 = 9; parallelism 15 / 10 = 1.5.
    # agents: orchestrator [0, 9], researcher [1, 6], coder [1, 7] -> peak 3.
    # coordination: 4 decisions + 2 spawns + 1 message + 2 returns + 1 aggregate + 1 stop = 11 / 15.
    # tokens 300+120+120+800+1200+200+150+250+100+400+20 = 3660; reward 1.3 -> 2815.384615.
    # credit units: team 1.0, orchestrator 0.2, tool 0.1. durations 1.5 + 2.0 = 3.5.
    assert m["critical_path_steps"] == 10 and m["critical_path_time"] == 9.0
    assert m["parallelism"] == 1.5
    assert m["peak_concurrent_agents"] == 3
    assert m["protocol_overhead"] == round(11 / 15, 6) == 0.733333
    assert m["tokens"] == m["event_tokens"] == 3660
    assert m["tokens_per_reward"] == 2815.384615
    assert m["reward_by_credit_unit"] == {"team": 1.0, "orchestrator": 0.2, "tool": 0.1}
    assert m["decisions"] == {"O1": 1, "O2": 2, "O3": 0, "O4": 1, "O5": 1, "untagged": 0}
    assert m["event_duration_s"] == 3.5


def test_debate_metrics():
    m = trace_metrics(EXAMPLES["debate"])
    # 17 events, all coordination (3 decisions, 3 spawns, 2 despawns, 6 messages, aggregate,
    # return, stop): overhead 1.0. Chain d1 -> s_debater_a -> d2 -> ma1 -> mb2 -> fb -> d4 -> ag
    # -> rj -> st = 10; parallelism 1.7. Live: moderator [0, 9], debaters [1, 6] (despawned at 6),
    # judge [1, 8]: peak 4. Fan-out 3, depth 1.
    assert (m["events"], m["critical_path_steps"], m["parallelism"]) == (17, 10, 1.7)
    assert m["protocol_overhead"] == 1.0
    assert m["peak_concurrent_agents"] == 4
    assert (m["spawn_fanout_max"], m["spawn_depth"]) == (3, 1)
    assert m["decisions"] == {"O1": 1, "O2": 0, "O3": 1, "O4": 1, "O5": 1, "untagged": 0}


def test_hierarchy_metrics():
    m = trace_metrics(EXAMPLES["hierarchy"])
    # 31 events: root decision, 2 manager spawns, per manager (decision, 2 worker spawns,
    # 2 x (call, result, return), 2 despawns, aggregate, return) = 13, root aggregate, stop.
    # Chain d0 -> sm -> dm -> sw -> c -> r -> x -> a -> xm -> a0 -> st = 11; parallelism 31/11.
    # At t in [3, 7]: root, 2 managers, 4 workers = 7. Fan-out 2 everywhere; depth 2.
    # coordination 31 - 8 tool events = 23 -> 23/31 = 0.741935.
    assert (m["events"], m["critical_path_steps"]) == (31, 11)
    assert m["parallelism"] == round(31 / 11, 6)
    assert m["peak_concurrent_agents"] == 7
    assert (m["spawn_fanout_max"], m["spawn_fanout_mean"], m["spawn_depth"]) == (2, 2.0, 2)
    assert m["protocol_overhead"] == 0.741935


def test_swarm_metrics():
    m = trace_metrics(EXAMPLES["swarm_100"])
    # 4 * 100 + 4 = 404 events; chain d0 -> s -> c -> r -> x -> d4 -> ag -> st = 8; 404/8 = 50.5.
    # the 100 sub-agents overlap at t = 1.99 with the orchestrator: peak 101.
    # coordination: 2 decisions + 100 spawns + 100 returns + aggregate + stop = 204 / 404.
    # tokens 500 + 100 * (100 + 20) + 200 + 1000 + 10 = 13710; reward 1.5 -> 9140.
    assert (m["events"], m["critical_path_steps"], m["parallelism"]) == (404, 8, 50.5)
    assert m["peak_concurrent_agents"] == 101
    assert (m["spawn_fanout_max"], m["spawn_depth"]) == (100, 1)
    assert m["protocol_overhead"] == round(204 / 404, 6)
    assert m["tool_calls"] == 100
    assert m["tokens"] == 13710 and m["tokens_per_reward"] == 9140.0


def test_zero_or_negative_reward_gives_null_cost_per_reward():
    assert tokens_per_reward(100, 0) is None
    assert tokens_per_reward(100, -1) is None
    assert tokens_per_reward(100, 4) == 25
    trace = survey_trace()
    trace["rewards"] = {}
    assert trace_metrics(trace)["tokens_per_reward"] is None
    assert "Infinity" not in json.dumps(trace_metrics(trace))


def test_reward_by_credit_unit_sums_channels():
    assert reward_by_credit_unit({"a": 1, "b": 2, "c": 4}, {"a": "team", "b": "team"}) == {"team": 3, "unmapped": 4}


def test_protocol_overhead_definition():
    counts = dict.fromkeys(["tool_call", "tool_result", "human_intervention", "spawn", "stop"], 1)
    assert protocol_overhead(counts) == 2 / 5


def test_equal_time_message_cycle_is_broken_deterministically():
    trace = survey_trace()
    trace["events"][4]["t"] = 3  # e5 at the time of e4
    trace["edges"].append({"src": "e5", "dst": "e4", "type": "message"})
    m = trace_metrics(trace)
    # Kahn stalls on e4 <-> e5; the earlier of the two (e4: t=3, index 3) loses its remaining
    # incoming arc (e5 -> e4), so the chain is the original one: 7 steps.
    assert m["ignored_cycle_edges"] == 1
    assert m["critical_path_steps"] == 7


def test_temporal_and_safety_edges_are_not_dependencies():
    trace = survey_trace()
    for edge in trace["edges"]:
        edge["type"] = "temporal"
    trace["edges"][0]["type"] = "safety_flow"
    m = trace_metrics(trace)
    assert m["critical_path_steps"] == 1 and m["parallelism"] == 8.0 and m["critical_path_time"] == 0.0


def test_invalid_trace_raises():
    trace = survey_trace()
    trace["events"][0]["t"] = -1
    with pytest.raises(ValueError, match=r"trace is not valid \(1 problems\)"):
        trace_metrics(trace)


def test_json_output_is_deterministic_and_rounded():
    m = trace_metrics(EXAMPLES["hierarchy"])
    text = json.dumps(m, sort_keys=True)
    assert text == json.dumps(trace_metrics(EXAMPLES["hierarchy"]), sort_keys=True)
    assert "2.818182" in text


def test_the_reward_total_does_not_depend_on_the_order_of_the_channels():
    """{a: 1e16, b: 1, c: -1e16} in two orders: a left-to-right sum gives 0 or 1 (and tokens per reward null or
    100); the total is 1 in any order, by unit too, on the one-trace and the batch path alike."""
    from masrl.trace.batch import summarize_items

    rows = []
    for order in (("a", "b", "c"), ("a", "c", "b")):
        values = {"a": 1e16, "b": 1, "c": -1e16}
        trace = {"trace_id": "t", "task_id": "k", "events": [{"id": "e1", "t": 0, "type": "stop", "agent": "O"}],
                 "edges": [], "rewards": {k: values[k] for k in order}, "costs": {"tokens": 100, "wall_clock_s": 0},
                 "reward_credit_units": {"a": "team", "b": "team", "c": "team"}}
        m = trace_metrics(trace)
        assert (m["reward_total"], m["tokens_per_reward"], m["reward_by_credit_unit"]) == (1.0, 100.0, {"team": 1.0})
        block, others = summarize_items([("f", 0, "f", json.dumps(trace).encode())], {})
        assert others == [] and block["columns"]["reward_total"][0] == 1.0
        rows.append(block["columns"]["tokens_per_reward"][0])
    assert rows == [100.0, 100.0]
