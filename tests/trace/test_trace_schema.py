"""The published schema: the survey's rules plus masrl's optional extensions.

Every case runs through both jsonschema's Draft202012Validator (the contract) and
the fast validator (what ``masrl trace validate`` runs), which must agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SURVEY_BYTES, survey_trace

from masrl.trace import schema as S
from masrl.trace.validate import schema_problems

VALIDATOR = S.jsonschema_validator()


def both(trace) -> tuple[bool, bool]:
    """(jsonschema accepts, fast validator accepts)"""
    return VALIDATOR.is_valid(trace), not schema_problems(trace)


def test_schema_is_a_valid_draft_2020_12_schema():
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(S.schema())
    assert S.schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_bytes_are_the_shipped_file():
    shipped = Path(S.__file__).with_name("trace.schema.json").read_bytes()
    assert S.schema_bytes() == shipped
    assert shipped.endswith(b"\n") and b"\r" not in shipped


def test_survey_example_is_valid_under_the_schema():
    assert both(json.loads(SURVEY_BYTES)) == (True, True)


def test_survey_vocabularies_are_kept():
    # survey facts, trace_schema (verbatim lists)
    assert S.TOP_REQUIRED == ("trace_id", "task_id", "events", "edges", "rewards", "costs")
    assert S.TOPOLOGIES == ("centralized", "planner_executor_critic", "debate", "swarm", "hierarchical", "harness", "mixed", "unknown")
    assert S.EVENT_TYPES[:10] == (
        "orchestrator_decision", "spawn", "despawn", "message", "tool_call", "tool_result", "return", "aggregate",
        "human_intervention", "safety_event",
    )
    assert S.EDGE_TYPES == ("temporal", "causal", "spawn", "message", "tool_dependency", "return", "aggregate", "safety_flow")
    assert S.CREDIT_UNITS == ("token", "tool", "message", "turn", "agent", "role", "orchestrator", "team")
    assert S.schema()["additionalProperties"] is False


def _with_event(**fields) -> dict:
    trace = survey_trace()
    trace["events"].append({"id": "e9", "t": 8, "agent": "orchestrator", **fields})
    return trace


@pytest.mark.parametrize(
    "fields, ok",
    [
        ({"type": "stop"}, True),
        ({"type": "stop", "decision": "O5"}, True),
        ({"type": "stop", "decision": "O1"}, False),
        ({"type": "orchestrator_decision", "decision": "O1"}, True),
        ({"type": "orchestrator_decision", "decision": "O4"}, True),
        ({"type": "orchestrator_decision", "decision": "O6"}, False),
        ({"type": "orchestrator_decision", "decision": None}, False),
        ({"type": "message", "decision": "O3"}, False),
        ({"type": "aggregate", "tokens": 10, "cost": 0.5, "duration_s": 0}, True),
        ({"type": "aggregate", "tokens": -1}, False),
        ({"type": "aggregate", "cost": "1"}, False),
        ({"type": "aggregate", "duration_s": True}, False),
        ({"type": "aggregate", "anything": {"else": [1, "x", None]}}, True),
        ({"type": "aggregate", "trusted": 1}, False),
        ({"type": "aggregate", "role": ""}, True),
        ({"type": "aggregate", "to": 3}, False),
    ],
)
def test_event_extensions(fields, ok):
    trace = _with_event(**fields)
    assert both(trace) == (ok, ok)


@pytest.mark.parametrize(
    "extra, ok",
    [
        ({"schema_version": "1.0"}, True),
        ({"schema_version": 1}, False),
        ({"reward_credit_units": {"team": "team", "orchestration": "orchestrator", "tool": "tool"}}, True),
        ({"reward_credit_units": {}}, True),
        ({"reward_credit_units": {"team": "squad"}}, False),
        ({"reward_credit_units": ["team"]}, False),
        ({"annotations": {"outcome": "failure", "mistake_agent": "WebSurfer", "mistake_step": 12, "solved": False}}, True),
        ({"annotations": {}}, True),
        ({"annotations": {"mistake_step": [12]}}, False),
        ({"annotations": {"note": None}}, False),
        ({"annotations": "failure"}, False),
        ({"unknown_key": 1}, False),
        ({"topology": "mixed"}, True),
        ({"topology": "ring"}, False),
        ({"system": None}, False),
    ],
)
def test_top_level_extensions(extra, ok):
    trace = survey_trace()
    trace.update(extra)
    assert both(trace) == (ok, ok)


def test_decision_message_names_the_subdecisions():
    (p,) = schema_problems(_with_event(type="orchestrator_decision", decision="O9"))
    assert p.message == (
        "event e9: 'O9' is not a sub-decision; allowed: O1 (when to spawn), O2 (whom to delegate to), "
        "O3 (how to communicate), O4 (how to aggregate), O5 (when to stop)"
    )
    (p,) = schema_problems(_with_event(type="message", decision="O3"))
    assert p.message == "event e9: decision is only allowed on orchestrator_decision and stop events, not on message"
    (p,) = schema_problems(_with_event(type="stop", decision="O2"))
    assert p.message == "event e9: a stop event's decision must be O5 (when to stop), got 'O2'"


def test_costs_rules():
    trace = survey_trace()
    trace["costs"] = {"tokens": 0, "wall_clock_s": 0}
    assert both(trace) == (True, True)
    for key in ("tokens", "wall_clock_s", "tool_calls", "messages"):
        trace = survey_trace()
        trace["costs"][key] = -1
        assert both(trace) == (False, False), key
    trace = survey_trace()
    trace["costs"]["usd"] = -1  # schema: any number; masrl rule: >= 0 (not a schema problem)
    assert both(trace) == (True, True)
