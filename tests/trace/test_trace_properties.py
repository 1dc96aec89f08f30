"""Property tests: the fast validator agrees with jsonschema; metrics invariants hold."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import examples

from masrl.trace import schema as S
from masrl.trace.metrics import trace_metrics
from masrl.trace.validate import schema_problems, validate_bytes, validate_trace

VALIDATOR = S.jsonschema_validator()

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2, allow_nan=False, allow_infinity=False), st.text(max_size=3)
)
anything = st.recursive(scalars, lambda c: st.lists(c, max_size=2) | st.dictionaries(st.text(max_size=3), c, max_size=2), max_leaves=4)
numbers = st.one_of(st.integers(0, 50), st.floats(0, 50, allow_nan=False, allow_infinity=False))
any_numbers = st.one_of(st.integers(-5, 50), st.floats(-5, 50, allow_nan=False, allow_infinity=False))


def mostly(good, bad=anything):
    """Usually a valid value, sometimes anything (so both verdicts are common)."""
    return st.one_of(good, good, good, good, good, good, bad)


ids = st.sampled_from(["e1", "e2", "e3", "e4", ""])
names = st.sampled_from(["orchestrator", "a1", "a2", ""])
event = st.fixed_dictionaries(
    {},
    optional={
        "id": mostly(ids),
        "t": mostly(any_numbers),
        "type": mostly(st.sampled_from(S.EVENT_TYPES + ("bogus",))),
        "agent": mostly(names),
        "to": mostly(names),
        "from": mostly(names),
        "role": mostly(st.text(max_size=2)),
        "tool": mostly(st.just("search")),
        "content_ref": mostly(st.just("h:1")),
        "trusted": mostly(st.booleans()),
        "decision": mostly(st.sampled_from(S.DECISIONS + ("O9",))),
        "tokens": mostly(any_numbers),
        "cost": mostly(any_numbers),
        "duration_s": mostly(any_numbers),
        "note": anything,
    },
)
full_event = st.fixed_dictionaries(
    {"id": ids, "t": numbers, "type": st.sampled_from(S.EVENT_TYPES), "agent": names},
    optional={"decision": st.sampled_from(S.DECISIONS), "to": names, "tokens": any_numbers},
)
edge = st.fixed_dictionaries(
    {},
    optional={
        "src": mostly(ids),
        "dst": mostly(ids),
        "type": mostly(st.sampled_from(S.EDGE_TYPES + ("bogus",))),
        "weight": st.integers(0, 2),
    },
)
full_edge = st.fixed_dictionaries({"src": ids, "dst": ids, "type": st.sampled_from(S.EDGE_TYPES)})
number_map = st.dictionaries(st.sampled_from(["team", "tool", "x"]), mostly(any_numbers), max_size=3)
costs = st.fixed_dictionaries(
    {},
    optional={k: mostly(any_numbers) for k in ("tokens", "wall_clock_s", "tool_calls", "messages", "usd")},
)
trace_strategy = st.fixed_dictionaries(
    {},
    optional={
        "trace_id": mostly(st.text(max_size=3)),
        "task_id": mostly(st.text(max_size=3)),
        "system": mostly(st.text(max_size=3)),
        "schema_version": mostly(st.just("1.0")),
        "topology": mostly(st.sampled_from(S.TOPOLOGIES + ("ring",))),
        "events": mostly(st.lists(st.one_of(full_event, full_event, event), max_size=4)),
        "edges": mostly(st.lists(st.one_of(full_edge, full_edge, edge), max_size=4)),
        "rewards": mostly(number_map),
        "costs": mostly(costs),
        "metrics": mostly(number_map),
        "reward_credit_units": mostly(st.dictionaries(st.sampled_from(["team", "tool"]), mostly(st.sampled_from(S.CREDIT_UNITS)))),
        "annotations": mostly(st.dictionaries(st.sampled_from(["outcome", "mistake_step"]), mostly(st.text(max_size=2) | st.integers(0, 9) | st.booleans()))),
        "bogus": st.integers(),
    },
)
# Mostly-complete traces, so that accepted ones are frequent.
complete_trace = st.builds(
    lambda base, extra: {**base, **extra},
    st.fixed_dictionaries(
        {
            "trace_id": st.just("t"),
            "task_id": st.just("k"),
            "events": st.lists(st.one_of(full_event, full_event, full_event, event), min_size=1, max_size=4),
            "edges": st.lists(st.one_of(full_edge, full_edge, edge), max_size=3),
            "rewards": st.dictionaries(st.sampled_from(["team", "tool"]), any_numbers, max_size=2),
            "costs": st.fixed_dictionaries({"tokens": numbers, "wall_clock_s": numbers}, optional={"tool_calls": any_numbers}),
        }
    ),
    st.fixed_dictionaries({}, optional={"topology": mostly(st.sampled_from(S.TOPOLOGIES)), "metrics": number_map}),
)


good_event = st.builds(
    lambda base, opt, dec: {**base, **opt, **({"decision": "O5" if base["type"] == "stop" else dec} if dec and base["type"] in ("orchestrator_decision", "stop") else {})},
    st.fixed_dictionaries({"id": st.sampled_from(["e1", "e2", "x"]), "t": numbers, "type": st.sampled_from(S.EVENT_TYPES), "agent": st.sampled_from(["a", "b"])}),
    st.fixed_dictionaries({}, optional={
        "to": st.text(max_size=2), "from": st.text(max_size=2), "role": st.text(max_size=2), "tool": st.just("t"),
        "content_ref": st.just("sha:1"), "trusted": st.booleans(), "tokens": numbers, "cost": numbers,
        "duration_s": numbers, "note": anything,
    }),
    st.one_of(st.none(), st.sampled_from(S.DECISIONS)),
)
good_trace = st.fixed_dictionaries(
    {
        "trace_id": st.text(max_size=3),
        "task_id": st.text(max_size=3),
        "events": st.lists(good_event, min_size=1, max_size=4),
        "edges": st.lists(full_edge.filter(lambda e: e["src"] and e["dst"]), max_size=3),
        "rewards": st.dictionaries(st.text(max_size=2), any_numbers, max_size=2),
        "costs": st.fixed_dictionaries({"tokens": numbers, "wall_clock_s": numbers}, optional={"tool_calls": numbers, "messages": numbers, "usd": any_numbers}),
    },
    optional={
        "system": st.text(max_size=2), "schema_version": st.just("1.0"), "topology": st.sampled_from(S.TOPOLOGIES),
        "metrics": number_map, "reward_credit_units": st.dictionaries(st.text(max_size=2), st.sampled_from(S.CREDIT_UNITS), max_size=2),
        "annotations": st.dictionaries(st.text(max_size=2), st.text(max_size=2) | numbers | st.booleans(), max_size=2),
    },
)


@st.composite
def near_valid_trace(draw):
    """A schema-valid trace with, half of the time, one random change somewhere."""
    trace = draw(good_trace)
    if draw(st.booleans()):
        return trace
    containers = [trace, trace["costs"], trace["rewards"], *trace["events"], *trace["edges"]]
    target = draw(st.sampled_from(containers))
    keys = sorted(target)
    action = draw(st.sampled_from(["set", "delete", "add"] if keys else ["add"]))
    if action == "set":
        target[draw(st.sampled_from(keys))] = draw(anything)
    elif action == "delete":
        del target[draw(st.sampled_from(keys))]
    else:
        target[draw(st.sampled_from(["decision", "tokens", "x", "type", "to", "trusted", "weight"]))] = draw(anything)
    return trace


def test_near_valid_traces_are_half_accepted():
    from hypothesis import Phase, find

    # that such traces exist is the point; shrinking the one found to the smallest (about a
    # minute per call) would prove nothing more
    found = settings(phases=[Phase.generate], database=None)
    find(near_valid_trace(), VALIDATOR.is_valid, settings=found)
    find(near_valid_trace(), lambda t: not VALIDATOR.is_valid(t), settings=found)


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(near_valid_trace(), near_valid_trace(), trace_strategy, complete_trace, anything))
def test_fast_validator_agrees_with_jsonschema(trace):
    assert (not schema_problems(trace)) == VALIDATOR.is_valid(trace)


@settings(max_examples=examples(100), deadline=None)
@given(
    st.one_of(near_valid_trace(), complete_trace),
    st.sampled_from([None, 0, 2]),
    st.sampled_from([(", ", ": "), (",", ":")]),
    st.sampled_from([1, 30, 1 << 19]),
)
def test_streaming_loader_agrees_with_the_dict_path(trace, indent, separators, block):
    from masrl.trace import load

    load.BLOCK_BYTES, saved = block, load.BLOCK_BYTES
    try:
        data = json.dumps(trace, indent=indent, separators=separators).encode()
        tree, from_bytes = validate_bytes(data, "<trace>")
    finally:
        load.BLOCK_BYTES = saved
    assert [str(p) for p in from_bytes] == [str(p) for p in validate_trace(trace)]
    assert tree == (trace if not from_bytes else None)


# -- survey compatibility: what the survey's schema accepts, masrl's accepts --------------
# The survey's minimal schema rebuilt from the facts file (trace_schema), field by field.
_num = {"type": "number"}
SURVEY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["trace_id", "task_id", "events", "edges", "rewards", "costs"],
    "additionalProperties": False,
    "properties": {
        "trace_id": {"type": "string"},
        "task_id": {"type": "string"},
        "system": {"type": "string"},
        "topology": {"enum": list(S.TOPOLOGIES)},
        "events": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["id", "t", "type", "agent"],
            "properties": {
                "id": {"type": "string", "minLength": 1}, "t": {"type": "number", "minimum": 0},
                "type": {"enum": list(S.EVENT_TYPES[:10])}, "agent": {"type": "string", "minLength": 1},
                **{k: {"type": "string"} for k in ("role", "from", "to", "tool", "content_ref")},
                "trusted": {"type": "boolean"},
            },
        }},
        "edges": {"type": "array", "items": {
            "type": "object", "required": ["src", "dst", "type"], "additionalProperties": False,
            "properties": {"src": {"type": "string", "minLength": 1}, "dst": {"type": "string", "minLength": 1},
                           "type": {"enum": list(S.EDGE_TYPES)}},
        }},
        "rewards": {"type": "object", "additionalProperties": _num},
        "costs": {"type": "object", "required": ["tokens", "wall_clock_s"], "additionalProperties": _num,
                  "properties": {k: {"type": "number", "minimum": 0} for k in ("tokens", "wall_clock_s", "tool_calls", "messages")}},
        "metrics": {"type": "object", "additionalProperties": _num},
    },
}
SURVEY = __import__("jsonschema").Draft202012Validator(SURVEY_SCHEMA)
EXTENSION_EVENT_KEYS = {"decision", "tokens", "cost", "duration_s"}


_number = st.one_of(st.integers(0, 10**6), st.floats(0, 1e6, allow_nan=False, allow_infinity=False))
_signed = st.one_of(st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False))


@st.composite
def survey_valid_traces(draw):
    """Traces built field by field from the survey's schema (SURVEY_SCHEMA), never masrl's extension names."""
    text = st.text(max_size=8)
    events = []
    for _ in range(draw(st.integers(1, 6))):
        event = {"id": draw(st.text(min_size=1, max_size=4)), "t": draw(_number),
                 "type": draw(st.sampled_from(S.EVENT_TYPES[:10])), "agent": draw(st.text(min_size=1, max_size=6))}
        for key in draw(st.sets(st.sampled_from(["role", "from", "to", "tool", "content_ref"]))):
            event[key] = draw(text)
        if draw(st.booleans()):
            event["trusted"] = draw(st.booleans())
        events.append(event)
    edges = [{"src": draw(st.text(min_size=1, max_size=4)), "dst": draw(st.text(min_size=1, max_size=4)),
              "type": draw(st.sampled_from(S.EDGE_TYPES))} for _ in range(draw(st.integers(0, 6)))]
    costs = {"tokens": draw(_number), "wall_clock_s": draw(_number)}
    for key in draw(st.sets(st.sampled_from(["tool_calls", "messages"]))):
        costs[key] = draw(_number)
    trace = {"trace_id": draw(text), "task_id": draw(text), "events": events, "edges": edges,
             "rewards": draw(st.dictionaries(text, _signed, max_size=3)), "costs": costs}
    if draw(st.booleans()):
        trace["system"] = draw(text)
    if draw(st.booleans()):
        trace["topology"] = draw(st.sampled_from(S.TOPOLOGIES))
    if draw(st.booleans()):
        trace["metrics"] = draw(st.dictionaries(text, _signed, max_size=3))
    return trace


@settings(max_examples=examples(200), deadline=None)
@given(survey_valid_traces())
def test_every_survey_valid_trace_is_valid_here(trace):
    """Every example reaches the asserts: the strategy builds only what the survey's schema accepts."""
    assert SURVEY.is_valid(trace)
    assert not any(EXTENSION_EVENT_KEYS & set(e) for e in trace["events"])
    assert VALIDATOR.is_valid(trace)
    assert not schema_problems(trace)


# -- metrics invariants on generated valid traces -------------------------------------------


@st.composite
def valid_traces(draw):
    """Random valid traces: time never decreases along the event list; edges go forward."""
    n = draw(st.integers(1, 25))
    events, spawned, t = [], [], 0.0
    for i in range(n):
        t += draw(st.sampled_from([0, 0, 0.5, 1]))
        kind = draw(st.sampled_from(["od", "spawn", "work", "return", "stop", "tool_result", "despawn"]))
        ev = {"id": f"e{i}", "t": t, "agent": "root"}
        if kind == "spawn":
            ev.update(type="spawn", to=f"a{len(spawned)}")
            spawned.append(f"a{len(spawned)}")
        elif kind == "work" and spawned:
            ev.update(type=draw(st.sampled_from(["tool_call", "message", "aggregate"])), agent=draw(st.sampled_from(spawned)))
        elif kind == "return" and spawned:
            who = draw(st.sampled_from(spawned))
            ev.update(type="return", agent=who, to="root")
        elif kind == "stop":
            ev.update(type="stop", decision="O5")
        elif kind == "tool_result":
            ev.update(type="tool_result", agent="search", tool="search")
        elif kind == "despawn":
            ev.update(type="human_intervention")
        else:
            ev.update(type="orchestrator_decision", decision=draw(st.sampled_from(["O1", "O2", "O3", "O4"])))
        events.append(ev)
    edges = []
    if n > 1:
        for _ in range(draw(st.integers(0, 3 * n))):
            a = draw(st.integers(0, n - 2))
            b = draw(st.integers(a + 1, n - 1))
            edges.append({"src": f"e{a}", "dst": f"e{b}", "type": draw(st.sampled_from(S.EDGE_TYPES))})
    rewards = draw(st.dictionaries(st.sampled_from(["team", "tool", "role"]), st.floats(-1, 2, allow_nan=False), max_size=3))
    return {
        "trace_id": "g", "task_id": "g", "events": events, "edges": edges, "rewards": rewards,
        "costs": {"tokens": draw(st.integers(0, 1000)), "wall_clock_s": 1},
        "reward_credit_units": {"team": "team"},
    }


@settings(max_examples=examples(100), deadline=None)
@given(valid_traces())
def test_metrics_invariants(trace):
    assert validate_trace(trace) == []
    m = trace_metrics(trace)
    n = len(trace["events"])
    assert 1 <= m["critical_path_steps"] <= n
    assert m["parallelism"] >= 1
    assert m["ignored_cycle_edges"] == 0
    assert 0 <= m["protocol_overhead"] <= 1
    assert sum(m["event_types"].values()) == n
    assert 0 <= m["peak_concurrent_agents"] <= m["agents"]
    assert m["critical_path_time"] <= trace["events"][-1]["t"] - trace["events"][0]["t"]
    total = sum(trace["rewards"].values())
    undefined = total <= 0 or trace["costs"]["tokens"] / total > 1.7976931348623157e308  # never infinite
    assert m["tokens_per_reward"] is None if undefined else m["tokens_per_reward"] is not None
    assert abs(sum(m["reward_by_credit_unit"].values()) - total) < 1e-5
    assert json.dumps(m, sort_keys=True) == json.dumps(trace_metrics(trace), sort_keys=True)



# -- the typed path accepts exactly what the exact checker accepts ------------------------


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(near_valid_trace(), complete_trace, valid_traces(), trace_strategy))
def test_typed_path_agrees_with_the_exact_checker(trace):
    import copy

    from masrl.trace.metrics import metrics_from_checker
    from masrl.trace.typed import check_tree
    from masrl.trace.validate import exact_checker

    exact = exact_checker(trace)
    exact_ok = not (exact.schema_problems + exact.other_problems)
    typed = check_tree(copy.deepcopy(trace), "<trace>")
    assert (typed is not None) == exact_ok
    if exact_ok:
        assert json.dumps(metrics_from_checker(typed), sort_keys=True) == json.dumps(metrics_from_checker(exact), sort_keys=True)


@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(near_valid_trace(), complete_trace, valid_traces()),
    st.sampled_from([1, 30, 1 << 20]),
    st.sampled_from([(", ", ": "), (",", ":")]),
)
def test_typed_bytes_path_agrees_with_the_exact_checker(trace, block, separators):
    """The typed decoder on bytes, in blocks down to one element, accepts exactly what the exact
    checker accepts, with the same metrics."""
    from masrl.trace import typed
    from masrl.trace.metrics import metrics_from_checker
    from masrl.trace.validate import exact_checker

    exact = exact_checker(trace)
    exact_ok = not (exact.schema_problems + exact.other_problems)
    saved, typed.BLOCK_BYTES = typed.BLOCK_BYTES, block
    try:
        found = typed.check_data(json.dumps(trace, separators=separators).encode(), "<trace>")
    finally:
        typed.BLOCK_BYTES = saved
    assert (found is not None) == exact_ok
    if exact_ok:
        assert json.dumps(metrics_from_checker(found), sort_keys=True) == json.dumps(metrics_from_checker(exact), sort_keys=True)


@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(near_valid_trace(), complete_trace, valid_traces()))
def test_bulk_rules_and_metrics_agree_with_the_plain_ones(trace):
    """With the small-trace threshold at 0, every trace takes the numpy paths (id index, bulk
    lifecycle, return and self-spawn rules, layered critical path, interval and spawn-tree
    columns); verdicts and metrics equal the exact checker's."""
    from masrl.trace import bulk_metrics, columns, metrics, typed
    from masrl.trace.validate import exact_checker

    exact = exact_checker(trace)
    exact_ok = not (exact.schema_problems + exact.other_problems)
    saved = columns.SMALL, metrics.SMALL, bulk_metrics.LAYER
    columns.SMALL = metrics.SMALL = 0
    bulk_metrics.LAYER = 1
    try:
        found = typed.check_data(json.dumps(trace).encode(), "<trace>")
        bulk = found is not None and json.dumps(metrics.metrics_from_checker(found), sort_keys=True)
    finally:
        columns.SMALL, metrics.SMALL, bulk_metrics.LAYER = saved
    assert (found is not None) == exact_ok
    if exact_ok:
        assert bulk == json.dumps(metrics.metrics_from_checker(exact), sort_keys=True)
