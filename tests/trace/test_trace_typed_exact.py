"""The typed (fast) path pinned exactly: bounds reached exactly, float checks, repeated keys found
by the colon count, blocks, the numpy id index; and the rules added with it (self-spawns, reward
sums), on the fast and the exact path alike."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import problems_of, survey_trace

from masrl.trace import typed
from masrl.trace.metrics import metrics_from_checker, tokens_per_reward
from masrl.trace.synth import swarm_for_events
from masrl.trace.validate import check_bytes, exact_checker

MAX = sys.float_info.max


def fast(trace) -> bool:
    """Whether the typed path accepts the trace (bytes, default and one-element blocks agree)."""
    data = trace if isinstance(trace, bytes) else json.dumps(trace).encode()
    verdict = typed.check_data(data, "t.json") is not None
    saved, typed.BLOCK_BYTES = typed.BLOCK_BYTES, 1
    try:
        assert (typed.check_data(data, "t.json") is not None) == verdict
    finally:
        typed.BLOCK_BYTES = saved
    return verdict


def exact_ok(trace) -> bool:
    checker = exact_checker(trace)
    return not (checker.schema_problems + checker.other_problems)


def with_event(**fields):
    """The survey's trace with fields set on its last event (e8, an aggregate at t=7, no edge out)."""
    trace = survey_trace()
    trace["events"][-1].update(fields)
    return trace


@pytest.mark.parametrize(("fields", "valid"), [
    ({"t": 7}, True), ({"t": 7.0}, True), ({"t": MAX}, True), ({"t": 6.999999999999999}, True), ({"t": 5.5}, False),
    ({"tokens": 0}, True), ({"tokens": -1}, False), ({"tokens": -5e-324}, False), ({"tokens": MAX}, True),
    ({"tokens": (1 << 63) - 1}, True), ({"tokens": 1 << 63}, True), ({"tokens": 10**400}, False),
    ({"cost": 2.5}, True), ({"duration_s": True}, False), ({"tokens": "3"}, False),
    ({"id": ""}, False), ({"agent": ""}, False), ({"decision": "O5"}, False), ({"note": [[1]]}, True),
    ({"type": "stop", "decision": "O5"}, True), ({"type": "stop", "decision": "O1"}, False),
    ({"type": "orchestrator_decision", "decision": "O3"}, True), ({"type": "orchestrator_decision", "decision": "O9"}, False),
    ({"note": {"deep": 1e308}}, True), ({"trusted": 1}, False),
])
def test_bounds_are_the_same_on_both_paths(fields, valid):
    """Each bound is reached exactly: the largest double is a number, the smallest negative one is
    not >= 0; integers past 64 bits leave the typed path but stay valid (the exact path decides)."""
    trace = with_event(**fields)
    assert exact_ok(trace) is valid
    if valid and fields.get("tokens") == 1 << 63:
        assert fast(trace) is False and problems_of(trace) == []  # beyond int64: not typed, still valid
    else:
        assert fast(trace) is valid


@pytest.mark.parametrize(("t", "valid"), [(0, True), (0.0, True), (-0.0, True), (-5e-324, False), (-1, False)])
def test_time_zero_is_the_lower_bound(t, valid):
    trace = survey_trace()
    trace["events"][0]["t"] = t
    assert exact_ok(trace) is valid and fast(trace) is valid


def test_number_literals_beyond_a_double():
    text = json.dumps(survey_trace()).replace('"t": 0', '"t": 1e400', 1).encode()
    assert typed.check_data(text, "t.json") is None
    assert [str(p) for p in check_bytes(text, "t.json")[2]] == [
        "t.json: $.events[0].t: event e1: number overflows to infinity; numbers must be finite"]


@pytest.mark.parametrize("spelled", ['"t": 0, "t": 0', '"t": 0, "\\u0074": 0'])
def test_a_repeated_key_is_found_by_the_colon_count(spelled):
    text = json.dumps(survey_trace()).replace('"t": 0', spelled, 1).encode()
    assert typed.check_data(text, "t.json") is None
    problems = [str(p) for p in check_bytes(text, "t.json")[2]]
    assert problems == ["t.json: $.events[0]: duplicate key 't' in one JSON object (only its last value is used)"]


def test_colons_in_strings_are_not_keys():
    trace = survey_trace()
    trace["events"][0]["content_ref"] = "sha256:ab:cd"
    trace["trace_id"] = "run:1"
    assert fast(trace) is True
    escaped = json.dumps(trace).replace("sha256:ab", "sha256\\u003aab").encode()
    assert typed.check_data(escaped, "t.json") is None  # an escaped ':' proves nothing: the exact path decides
    assert check_bytes(escaped, "t.json")[2] == []


def test_a_repeated_top_level_array_is_refused_on_both_paths():
    text = json.dumps(survey_trace())
    text = text[:-1] + ', "edges": []}'
    assert typed.check_data(text.encode(), "t.json") is None
    assert [str(p) for p in check_bytes(text.encode(), "t.json")[2]] == [
        "t.json: $.edges: duplicate key 'edges' in one JSON object (only its first value is checked)"]


def test_self_spawn_is_refused_on_both_paths(block_bytes):
    trace = survey_trace()
    trace["events"].append({"id": "e9", "t": 7, "type": "spawn", "agent": "executor_1", "to": "executor_1"})
    assert problems_of(trace) == [
        "t.json: $.events[8].to: event e9: agent 'executor_1' spawns itself; a spawn's 'to' must name another "
        "agent than its sender ('from', else 'agent')"]
    trace["events"][-1].update({"agent": "orchestrator", "from": "executor_1"})  # the sender is 'from'
    assert problems_of(trace) == [
        "t.json: $.events[8].to: event e9: agent 'executor_1' spawns itself; a spawn's 'to' must name another "
        "agent than its sender ('from', else 'agent')"]
    trace["events"][-1]["from"] = "orchestrator"
    assert problems_of(trace) == []


def test_self_spawn_in_a_large_trace_takes_the_bulk_rule():
    trace = swarm_for_events(3000)
    assert fast(trace) is True
    spawn = next(e for e in trace["events"] if e["type"] == "spawn")
    spawn["to"] = spawn["agent"]
    assert fast(trace) is False and not exact_ok(trace)


def test_reward_sums_must_fit_a_double(block_bytes):
    trace = survey_trace()
    trace["rewards"] = {"team": MAX, "tool": MAX}
    assert problems_of(trace) == [
        "t.json: $.rewards: the sum of the rewards overflows a double (inf); the rewards are too large to add up"]
    trace["rewards"] = {"a": -MAX, "b": MAX, "c": MAX}  # total MAX, but units a+... fine; b and c share a unit
    trace["reward_credit_units"] = {"b": "team", "c": "team"}
    assert problems_of(trace) == [
        "t.json: $.rewards: the sum of the rewards of credit unit 'team' overflows a double (inf); the rewards are "
        "too large to add up"]
    trace["rewards"] = {"team": MAX}
    assert problems_of(trace) == []


def test_tokens_per_reward_never_infinite():
    assert tokens_per_reward(1e308, 1e-300) is None
    assert tokens_per_reward(10, 4) == 2.5
    assert tokens_per_reward(10, 0) is None and tokens_per_reward(10, -1) is None
    assert tokens_per_reward(MAX, 1.0) == MAX


def test_event_sums_do_not_depend_on_blocks_or_order():
    trace = survey_trace()
    for k, value in enumerate([0.1, 0.2, 0.3, 1e16, -0.0, 1.0, 2.0, 3.0]):
        trace["events"][k]["cost"] = abs(value)
    data = json.dumps(trace).encode()
    whole = metrics_from_checker(typed.check_data(data, "t.json"))
    saved, typed.BLOCK_BYTES = typed.BLOCK_BYTES, 1
    try:
        split = metrics_from_checker(typed.check_data(data, "t.json"))
    finally:
        typed.BLOCK_BYTES = saved
    exact = metrics_from_checker(exact_checker(trace))
    assert whole["event_cost"] == split["event_cost"] == exact["event_cost"] == 1e16 + 6.6
    assert whole["event_tokens"] == exact["event_tokens"] == 0 and type(whole["event_tokens"]) is int


def test_large_trace_index_refuses_unknown_and_duplicate_ids():
    trace = swarm_for_events(3000)
    assert fast(trace) is True
    unknown = json.loads(json.dumps(trace))
    unknown["edges"][-1]["dst"] = "nope"
    assert fast(unknown) is False
    assert [str(p) for p in check_bytes(json.dumps(unknown).encode(), "t.json")[2]][0].endswith(
        "dst 'nope' is not an event id")
    duplicate = json.loads(json.dumps(trace))
    duplicate["events"][-1]["id"] = duplicate["events"][0]["id"]
    assert fast(duplicate) is False and not exact_ok(duplicate)


def test_large_and_small_paths_give_the_same_metrics():
    from masrl.trace import columns, metrics

    data = json.dumps(swarm_for_events(5000)).encode()
    bulk = metrics.metrics_from_checker(typed.check_data(data, "t.json"))
    saved = columns.SMALL, metrics.SMALL
    columns.SMALL = metrics.SMALL = 10**9
    try:
        plain = metrics.metrics_from_checker(typed.check_data(data, "t.json"))
    finally:
        columns.SMALL, metrics.SMALL = saved
    assert bulk == plain
    assert (bulk["events"], bulk["critical_path_steps"], bulk["spawn_fanout_max"], bulk["peak_concurrent_agents"]) == (
        5000, 8, 1249, 1250)
