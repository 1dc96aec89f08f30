"""masrl trace validation: one failing trace per rule, with the exact error text."""

from __future__ import annotations

import json

import pytest
from conftest import SURVEY_BYTES, problems_of, survey_trace

from masrl.trace.validate import validate_bytes, validate_trace


def test_survey_example_validates_unchanged():
    trace, problems = validate_bytes(SURVEY_BYTES, "example_trace.json")
    assert problems == []
    assert trace == json.loads(SURVEY_BYTES)
    assert validate_trace(trace) == []


# -- graph semantics (masrl rules) --------------------------------------------------


def test_duplicate_event_id(survey):
    survey["events"].append({"id": "e2", "t": 8, "type": "aggregate", "agent": "orchestrator"})
    assert problems_of(survey) == ["t.json: $.events[8].id: event e2: duplicate event id (first used by $.events[1])"]


def test_edge_to_unknown_event(survey):
    survey["edges"].append({"src": "e5", "dst": "e9", "type": "causal"})
    survey["edges"].append({"src": "x", "dst": "e1", "type": "temporal"})
    assert problems_of(survey) == [
        "t.json: $.edges[8].dst: edge e5->e9 (causal): dst 'e9' is not an event id",
        "t.json: $.edges[9].src: edge x->e1 (temporal): src 'x' is not an event id",
    ]


def test_cycle_of_causal_edges(survey):
    survey["events"][6]["t"] = 5  # e7 at the time of e6
    survey["edges"].append({"src": "e7", "dst": "e6", "type": "causal"})
    assert problems_of(survey) == [
        "t.json: $.edges[8]: edge e7->e6 (causal): closes a cycle of spawn/causal/return edges: e6 -> e7 -> e6"
    ]


def test_cycle_of_three_mixed_edges(survey):
    for k in (3, 4, 5):  # e4, e5, e6 at one time
        survey["events"][k]["t"] = 3
    survey["edges"][4]["type"] = "causal"  # e4->e5
    survey["edges"].append({"src": "e6", "dst": "e4", "type": "spawn"})
    assert problems_of(survey) == [
        "t.json: $.edges[8]: edge e6->e4 (spawn): closes a cycle of spawn/causal/return edges: e4 -> e5 -> e6 -> e4"
    ]


def test_message_cycle_at_equal_times_is_allowed(survey):
    survey["events"][4]["t"] = 3  # e5 at the time of e4
    survey["edges"].append({"src": "e5", "dst": "e4", "type": "message"})
    assert problems_of(survey) == []


def test_cycle_through_a_backward_edge_is_reported_too(survey):
    survey["edges"].append({"src": "e7", "dst": "e6", "type": "causal"})
    assert problems_of(survey) == [
        "t.json: $.edges[8]: edge e7->e6 (causal): closes a cycle of spawn/causal/return edges: e6 -> e7 -> e6",
        "t.json: $.edges[8]: edge e7->e6 (causal): time goes backwards along the edge: t=6 at e7 > t=5 at e6",
    ]


def test_time_goes_backwards(survey):
    survey["events"][6]["t"] = 4.5
    assert problems_of(survey) == [
        "t.json: $.edges[6]: edge e6->e7 (causal): time goes backwards along the edge: t=5 at e6 > t=4.5 at e7"
    ]


def test_agent_acts_before_spawn(survey):
    survey["events"].append({"id": "e9", "t": 1, "type": "message", "agent": "executor_1", "to": "planner_1"})
    assert problems_of(survey) == [
        "t.json: $.events[8].t: event e9: agent 'executor_1' acts at t=1 before it is spawned (first spawn: event e3 at t=2)"
    ]


def test_agent_acts_at_its_spawn_time_is_allowed(survey):
    survey["events"].append({"id": "e9", "t": 2, "type": "message", "agent": "executor_1", "to": "planner_1"})
    assert problems_of(survey) == []


def test_agent_acts_after_despawn(survey):
    survey["events"] += [
        {"id": "e9", "t": 6.5, "type": "despawn", "agent": "orchestrator", "to": "planner_1"},
        {"id": "e10", "t": 6.8, "type": "message", "agent": "planner_1", "to": "executor_1"},
    ]
    assert problems_of(survey) == [
        "t.json: $.events[9].t: event e10: agent 'planner_1' acts at t=6.8 after it was despawned (event e9 at t=6.5)"
    ]


def test_respawn_after_despawn_is_allowed(survey):
    survey["events"] += [
        {"id": "e9", "t": 6.5, "type": "despawn", "agent": "orchestrator", "to": "planner_1"},
        {"id": "e10", "t": 6.7, "type": "spawn", "agent": "orchestrator", "to": "planner_1"},
        {"id": "e11", "t": 6.8, "type": "message", "agent": "planner_1", "to": "executor_1"},
    ]
    assert problems_of(survey) == []


def test_root_agent_acts_after_despawning_itself(survey):
    survey["events"].append({"id": "e9", "t": 6.5, "type": "despawn", "agent": "orchestrator"})
    assert problems_of(survey) == [
        "t.json: $.events[7].t: event e8: agent 'orchestrator' acts at t=7 after it was despawned (event e9 at t=6.5)"
    ]


def test_return_to_an_agent_that_never_contacted_it(survey):
    survey["events"][6]["to"] = "browser.search"
    assert problems_of(survey) == [
        "t.json: $.events[6].to: event e7: return from 'executor_1' goes to 'browser.search', which did not spawn "
        "'executor_1' or send it a message or delegation at or before t=6"
    ]


def test_return_to_an_agent_that_messaged_it_is_allowed(survey):
    survey["events"][6]["to"] = "planner_1"  # e4: planner_1 -> executor_1
    assert problems_of(survey) == []


def test_return_to_an_agent_that_delegated_to_it_is_allowed(survey):
    survey["events"].append({"id": "e9", "t": 5.5, "type": "orchestrator_decision", "agent": "browser.search", "to": "executor_1"})
    survey["events"][6]["to"] = "browser.search"
    assert problems_of(survey) == []


def test_return_before_the_contact_is_an_error(survey):
    survey["events"].append({"id": "e9", "t": 6.5, "type": "message", "agent": "browser.search", "to": "executor_1"})
    survey["events"][6]["to"] = "browser.search"
    assert problems_of(survey)[0].endswith("which did not spawn 'executor_1' or send it a message or delegation at or before t=6")


def test_return_without_recipient(survey):
    del survey["events"][6]["to"]
    assert problems_of(survey) == ["t.json: $.events[6]: event e7: a return must name the agent it returns to in 'to'"]


def test_negative_cost_beyond_the_schema(survey):
    survey["costs"]["usd"] = -2
    assert problems_of(survey) == ["t.json: $.costs.usd: must be a number >= 0, got -2"]


# -- JSON text rules ----------------------------------------------------------------


def _text(trace) -> str:
    return json.dumps(trace)


def test_nan_is_rejected_with_its_path(survey, block_bytes):
    text = _text(survey).replace('"t": 5,', '"t": NaN,')
    assert problems_of(text.encode()) == ["t.json: $.events[5].t: event e6: NaN is not allowed; numbers must be finite"]


def test_infinity_and_overflow_are_rejected(survey, block_bytes):
    text = _text(survey).replace('"team": 1.0', '"team": Infinity').replace('"tokens": 12000', '"tokens": 1e400')
    text = text.replace('"error_amplification": 0', '"error_amplification": -Infinity')
    assert problems_of(text.encode()) == [
        "t.json: $.costs.tokens: number overflows to infinity; numbers must be finite",
        "t.json: $.metrics.error_amplification: -Infinity is not allowed; numbers must be finite",
        "t.json: $.rewards.team: Infinity is not allowed; numbers must be finite",
    ]


def test_nan_in_a_free_form_property(survey, block_bytes):
    survey["events"][0]["extra"] = {"scores": [1, 2, 3]}
    text = _text(survey).replace("[1, 2, 3]", "[1, NaN, 3]")
    assert problems_of(text.encode()) == [
        "t.json: $.events[0].extra.scores[1]: event e1: NaN is not allowed; numbers must be finite"
    ]


def test_duplicate_key_in_an_event(survey, block_bytes):
    text = _text(survey).replace('"id": "e1", "t": 0,', '"id": "e1", "t": 0, "t": 0,')
    assert problems_of(text.encode()) == [
        "t.json: $.events[0]: duplicate key 't' in one JSON object (only its last value is used)"
    ]


def test_duplicate_key_nested_and_at_top_level(survey, block_bytes):
    survey["events"][2]["meta"] = {"a": 1}
    text = _text(survey).replace('{"a": 1}', '{"a": 1, "a": 2}').replace('"rewards":', '"rewards": {}, "rewards":')
    assert problems_of(text.encode()) == [
        "t.json: $.events[2].meta: duplicate key 'a' in one JSON object (only its last value is used)",
        "t.json: $.rewards: duplicate key 'rewards' in one JSON object (only its first value is checked)",
    ]


def test_colons_inside_strings_are_not_duplicates(survey, block_bytes):
    survey["events"][0]["content_ref"] = "sha256:ab:cd"
    survey["events"][1]["role"] = "a:b"
    survey["edges"][0]["src"] = "e1"
    assert problems_of(survey) == []


def test_deep_nesting_in_a_free_form_property(survey, block_bytes):
    survey["events"][0]["deep"] = json.loads("[" * 70 + "]" * 70)
    (line,) = problems_of(survey)
    assert line.startswith("t.json: $.events[0].deep[0]")
    assert line.endswith(": event e1: nesting deeper than 64 levels is not allowed")


def test_absurd_nesting_is_a_clear_error_not_a_recursion_error(survey, block_bytes):
    text = _text(survey).replace('"agent": "orchestrator", "role": "lead",', '"agent": "orchestrator", "x": ' + "[" * 100000 + "]" * 100000 + ', "role": "lead",', 1)
    assert problems_of(text.encode()) == [
        "t.json:1: $.events[0]: JSON nesting is too deep (more than 64 levels is not allowed)"
    ]
    assert problems_of(("[" * 100000 + "]" * 100000).encode()) == [
        "t.json:1: $: JSON nesting is too deep (more than 64 levels is not allowed)"
    ]


def test_not_utf8():
    assert problems_of(b'{"trace_id": "\xff"}') == ["t.json:1: not UTF-8 text: byte 0xff at offset 14 is invalid"]


def test_not_json(block_bytes):
    assert problems_of(b'{"trace_id": }') == ["t.json:1: not valid JSON: Expecting value (line 1, column 14)"]
    assert problems_of(b"") == ["t.json:1: not valid JSON: Expecting value (line 1, column 1)"]
    assert problems_of(b'{"events": [{"id": "e1"}') == [
        "t.json:1: not valid JSON: Expecting ',' delimiter (line 1, column 25)"
    ]
    assert problems_of(b'{"events": []} x') == ["t.json:1: not valid JSON: Extra data (line 1, column 16)"]
    assert problems_of(b'{"events": [1 2]}') == ["t.json:1: not valid JSON: Expecting ',' delimiter (line 1, column 15)"]


def test_utf8_bom_is_ignored():
    assert problems_of(b"\xef\xbb\xbf" + SURVEY_BYTES) == []


def test_pretty_printed_and_compact_files_agree(survey, block_bytes):
    survey["events"][3]["t"] = -1
    expected = problems_of(survey)
    for kwargs in ({"indent": 4}, {"separators": (",", ":")}, {"indent": "\t"}):
        assert problems_of(json.dumps(survey, **kwargs).encode()) == expected


def test_edges_listed_before_events(survey, block_bytes):
    reordered = {"edges": survey["edges"] + [{"src": "e1", "dst": "nope", "type": "causal"}], **survey}
    reordered["edges"] = survey["edges"] + [{"src": "e1", "dst": "nope", "type": "causal"}]
    text = json.dumps({"edges": reordered["edges"], **{k: v for k, v in survey.items() if k != "edges"}})
    assert problems_of(text.encode()) == ["t.json: $.edges[8].dst: edge e1->nope (causal): dst 'nope' is not an event id"]


# -- schema-level messages ------------------------------------------------------------


def test_not_an_object():
    assert problems_of(b"[1, 2]") == ["t.json: $: a trace must be a JSON object, got an array"]


def test_all_errors_of_a_file_at_once(survey):
    del survey["costs"]
    survey["topology"] = "ring"
    survey["extra"] = 1
    survey["events"][0]["t"] = -1
    survey["events"][1]["type"] = "spawned"
    survey["events"][2]["trusted"] = "yes"
    del survey["events"][3]["agent"]
    survey["edges"][0]["type"] = "links"
    survey["edges"][1]["weight"] = 2
    survey["edges"][2]["src"] = ""
    assert problems_of(survey) == [
        "t.json: $: missing required key 'costs'",
        "t.json: $.edges[0].type: edge e1->e2 (links): 'links' is not an edge type; allowed: temporal, causal, "
        "spawn, message, tool_dependency, return, aggregate, safety_flow",
        "t.json: $.edges[1].weight: edge e1->e3 (spawn): unknown key 'weight'; an edge has only src, dst and type",
        "t.json: $.edges[2].src: edge ->e4 (causal): src must be a non-empty string, got ''",
        "t.json: $.events[0].t: event e1: t must be a number >= 0, got -1",
        "t.json: $.events[1].type: event e2: 'spawned' is not an event type; allowed: orchestrator_decision, "
        "spawn, despawn, message, tool_call, tool_result, return, aggregate, human_intervention, safety_event, stop",
        "t.json: $.events[2].trusted: event e3: trusted must be a boolean, got 'yes'",
        "t.json: $.events[3]: event e4: missing required key 'agent'",
        "t.json: $.extra: unknown top-level key 'extra'; allowed: schema_version, trace_id, task_id, system, "
        "topology, events, edges, rewards, costs, metrics, labels, annotations, reward_credit_units",
        "t.json: $.topology: 'ring' is not a topology; allowed: centralized, planner_executor_critic, debate, "
        "swarm, hierarchical, harness, mixed, unknown",
    ]


def test_empty_events_and_wrong_containers(survey):
    survey["events"] = []
    survey["edges"] = {}
    survey["rewards"] = {"team": "high"}
    survey["costs"] = {"wall_clock_s": 1}
    assert problems_of(survey) == [
        "t.json: $.costs: missing required key 'tokens'",
        "t.json: $.edges: must be an array of edges, got an object",
        "t.json: $.events: must contain at least one event",
        "t.json: $.rewards.team: must be a number, got 'high'",
    ]


def test_event_that_is_not_an_object_and_bad_id(survey):
    survey["events"].append("e9")
    survey["events"].append({"id": "", "t": 1, "type": "message", "agent": "orchestrator"})
    assert problems_of(survey) == [
        "t.json: $.events[8]: an event must be a JSON object, got 'e9'",
        "t.json: $.events[9].id: event at index 9: id must be a non-empty string, got ''",
    ]


def test_validate_trace_reports_python_nan(survey):
    survey["events"][0]["t"] = float("nan")
    assert [str(p) for p in validate_trace(survey)] == [
        "<trace>: $.events[0].t: event e1: NaN is not allowed; numbers must be finite"
    ]


def test_validate_bytes_returns_no_trace_when_invalid(survey):
    survey["events"][0]["t"] = -1
    trace, problems = validate_bytes(json.dumps(survey).encode(), "t.json")
    assert trace is None and len(problems) == 1


def test_survey_trace_helper_is_a_copy():
    a = survey_trace()
    a["events"].clear()
    assert survey_trace()["events"]


def test_duplicate_key_found_in_a_block_with_colons_in_strings(survey, block_bytes):
    for event in survey["events"]:
        event["content_ref"] = "sha256:" + event["id"]
    text = _text(survey).replace('"id": "e5",', '"id": "e5", "id": "e5",')
    assert problems_of(text.encode()) == [
        "t.json: $.events[4]: duplicate key 'id' in one JSON object (only its last value is used)"
    ]


def test_edge_array_with_strings_that_look_like_element_ends(survey, block_bytes):
    survey["events"][0]["content_ref"] = 'x}, {"id": "fake"}, {'
    survey["events"][1]["note"] = [{"a": 1}, {"b": 2}]
    trace, problems = validate_bytes(_text(survey).encode(), "t.json")
    assert problems == [] and trace == survey


def test_integers_beyond_float_range_are_rejected(survey, block_bytes):
    big = "1" + "0" * 400
    text = _text(survey).replace('"t": 5,', f'"t": {big},').replace('"tool": 0.1', f'"tool": {big}')
    assert problems_of(text.encode()) == [
        "t.json: $.events[5].t: event e6: number is too large for a 64-bit float; numbers must be finite",
        "t.json: $.rewards.tool: number is too large for a 64-bit float; numbers must be finite",
    ]


@pytest.mark.parametrize(
    "escaped",
    [
        "\\u003a",  # an escaped colon in a string value
        "\\u003A",
        "a\\\\u003a",  # an escaped backslash followed by the text u003a (no colon at all)
        "\\\"}, {\\\"",  # an escaped quote that looks like an element end
    ],
)
def test_duplicate_key_next_to_escape_forms(survey, block_bytes, escaped):
    survey["events"][3]["content_ref"] = "PLACEHOLDER"
    text = _text(survey).replace('"PLACEHOLDER"', f'"{escaped}"').replace('"id": "e4",', '"id": "e4", "id": "e4",')
    assert problems_of(text.encode()) == [
        "t.json: $.events[3]: duplicate key 'id' in one JSON object (only its last value is used)"
    ]


def test_a_key_spelled_with_escapes_is_the_same_key(survey, block_bytes):
    text = _text(survey).replace('"id": "e2", "t": 1,', '"id": "e2", "t": 1, "\\u0074": 1,')
    assert problems_of(text.encode()) == [
        "t.json: $.events[1]: duplicate key 't' in one JSON object (only its last value is used)"
    ]


def test_escaped_colons_without_duplicates_are_valid(survey, block_bytes):
    survey["events"][0]["content_ref"] = "sha256:ab"
    text = _text(survey).replace("sha256:ab", "sha256\\u003aab")
    trace, problems = validate_bytes(text.encode(), "t.json")
    assert problems == [] and trace["events"][0]["content_ref"] == "sha256:ab"


@pytest.mark.parametrize(("bad", "shown"), [(-1, "-1"), ("1", "'1'"), (True, "true"), (None, "null")])
def test_a_spawn_whose_time_is_not_one_is_named_once_not_again_by_the_lifecycle_rule(survey, bad, shown):
    """The spawn's time is wrong, not the spawned agent's later acts: no knock-on error."""
    survey["events"][1]["t"] = bad
    assert problems_of(survey) == [f"t.json: $.events[1].t: event e2: t must be a number >= 0, got {shown}"]


def test_an_integer_time_beyond_2_53_is_named_not_rounded_into_order():
    """9007199254740993 and 9007199254740992 are one double: the edge between them, backwards in time, would pass.
    Both the typed path and the exact path name the time; 2**53 itself is exact and passes."""
    from masrl.trace.validate import validate_trace

    trace = {"trace_id": "t", "task_id": "k", "rewards": {}, "costs": {"tokens": 1, "wall_clock_s": 1},
             "events": [{"id": "e1", "t": 2**53 + 1, "type": "orchestrator_decision", "agent": "O"},
                        {"id": "e2", "t": 2**53, "type": "stop", "agent": "O"}],
             "edges": [{"src": "e1", "dst": "e2", "type": "causal"}]}
    assert [str(p) for p in validate_trace(trace)] == [
        "<trace>: $.events[0].t: event e1: t is 9007199254740993, an integer beyond 2**53: times are compared as doubles, which "
        "cannot hold it exactly (two such times could compare equal or swapped); write times in seconds from the "
        "trace's start"]
    import json

    from masrl.trace.validate import check_bytes

    _checker, _tree, problems = check_bytes(json.dumps(trace).encode(), "t.json")  # the typed path leaves it to the exact one
    assert [str(p).split(": t is ")[0] for p in problems] == ["t.json: $.events[0].t: event e1"]
    trace["events"][0]["t"] = 2**53
    assert validate_trace(trace) == []
