"""Message-log converter on the two real Who&When logs (tests/trace/data/SOURCES.md) and on bad input."""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import DATA

from masrl.trace.convert import ConvertError, convert, detect_format
from masrl.trace.metrics import trace_metrics
from masrl.trace.validate import validate_bytes, validate_trace

HAND = "whoandwhen-hand-crafted-12.json"
ALGO = "whoandwhen-algorithm-generated-1.json"


def run(name: str):
    data = (DATA / name).read_bytes()
    assert detect_format(data, name) == "message-log"
    result = convert(data, name)
    assert validate_trace(result.trace) == [], result.notes
    return result


def test_magentic_one_log_orchestrator_delegations_and_labels():
    result = run(HAND)
    trace = result.trace
    log = json.loads((DATA / HAND).read_text())
    events = trace["events"]
    assert [e["step"] for e in events] == list(range(20)) == [e["t"] for e in events]
    got = [(e["id"], e["type"], e["agent"], e.get("to"), e.get("decision")) for e in events[:5]]
    assert got == [
        ("m0", "human_intervention", "human", None, None),
        ("m1", "orchestrator_decision", "Orchestrator", None, None),  # Orchestrator (thought)
        ("m2", "orchestrator_decision", "Orchestrator", None, None),
        ("m3", "orchestrator_decision", "Orchestrator", "WebSurfer", "O2"),  # Orchestrator (-> WebSurfer)
        ("m4", "return", "WebSurfer", "Orchestrator", None),  # WebSurfer answers the delegation
    ]
    assert (events[14]["to"], events[16]["type"], events[16]["agent"]) == ("Assistant", "return", "Assistant")
    assert (events[19]["type"], events[19]["decision"], events[19]["role"]) == ("stop", "O5", "Orchestrator (termination condition)")
    assert events[3]["content_ref"] == "sha256:" + hashlib.sha256(log["history"][3]["content"].encode()).hexdigest()
    assert not any("content" in e for e in events)  # no raw text is copied
    assert trace["annotations"] == {
        "outcome": "failure", "mistake_agent": "Assistant", "mistake_step": 16, "mistake_event": "m16",
        "mistake_reason": log["mistake_reason"], "level": 2,
    }
    assert events[16]["agent"] == trace["annotations"]["mistake_agent"]
    assert (trace["trace_id"], trace["topology"]) == ("2dfc4c37-fec1-4518-84a7-10095d30ad75", "centralized")
    assert {"src": "m3", "dst": "m4", "type": "message"} in trace["edges"]
    m = trace_metrics(trace)
    assert (m["agents"], m["spawn_depth"], m["decisions"]["O2"], m["decisions"]["O5"], m["critical_path_steps"]) == (4, 0, 4, 1, 20)
    assert result.notes[:3] == [
        "converted 20 of 20 messages into 20 events and 22 edges: 1 human_intervention, 14 orchestrator_decision, "
        "4 return, 1 stop",
        "the log has no times or token counts: t is the step index (an ordinal clock), costs.tokens and "
        "costs.wall_clock_s are 0",
        "not copied (raw content; the events keep hashes of the messages only): question, ground_truth",
    ]


def test_group_chat_log_names_and_labels():
    result = run(ALGO)
    trace = result.trace
    assert [(e["agent"], e["type"], e.get("to")) for e in trace["events"]] == [
        ("Excel_Expert", "message", None), ("Computer_terminal", "message", None),
        ("BusinessLogic_Expert", "message", None), ("Computer_terminal", "message", None),
        ("DataVerification_Expert", "message", None), ("DataVerification_Expert", "message", None),
    ]
    assert trace["annotations"] == {
        "outcome": "failure", "mistake_agent": "Excel_Expert", "mistake_step": 0, "mistake_event": "m0",
        "mistake_reason": json.loads((DATA / ALGO).read_text())["mistake_reason"], "level": 2,
    }
    assert (trace["topology"], trace["costs"]["messages"]) == ("unknown", 6)
    assert "no role names a delegation ('X (-> Y)'): the speakers' order is kept, but who chose each speaker is " \
        "not in the log (a group chat)" in result.notes
    assert "not copied (raw content; the events keep hashes of the messages only): question, ground_truth, " \
        "system_prompt" in result.notes


def test_the_converted_trace_round_trips_through_validate():
    data = json.dumps(run(HAND).trace).encode()
    assert validate_bytes(data, "t.json")[1] == []


def log(history, **labels):
    return json.dumps({"question_ID": "q1", "history": history, **labels}).encode()


def test_labels_that_disagree_or_do_not_parse_are_named():
    history = [{"role": "Orchestrator (-> A)", "content": "go"}, {"role": "A", "content": "done"}]
    result = convert(log(history, mistake_agent="B", mistake_step="1", is_correct=True), "x.json")
    assert result.trace["annotations"]["outcome"] == "success"
    assert "mistake_agent 'B' is not who speaks at mistake_step 1 ('A'); both are kept as the log gives them" in result.notes
    result = convert(log(history, mistake_step="later"), "x.json")
    assert result.trace["annotations"]["mistake_step"] == "later"
    assert "mistake_step 'later' is not a step number; kept as the log gives it" in result.notes
    result = convert(log(history, mistake_step=7), "x.json")
    assert "mistake_step 7 names no message of the log (0 to 1)" in result.notes


@pytest.mark.parametrize("labels, annotations, note", [
    ({"is_correct": "false"}, {"outcome": "failure"}, "is_correct 'false' is text, not true or false: read as false"),
    ({"is_corrected": " True "}, {"outcome": "success"}, "is_corrected ' True ' is text, not true or false: read as true"),
    ({"is_correct": 0}, {"is_correct": 0}, "is_correct 0 is not true or false: kept as the annotation 'is_correct'"),
    ({"is_correct": [True]}, {}, "is_correct an array is not true or false: not kept"),
    ({"is_correct": True, "is_corrected": "false"}, {"outcome": "success", "is_corrected": "false"},
     "is_corrected 'false' is not true or false: kept as the annotation 'is_corrected'"),
    ({"mistake_step": 1.5}, {"mistake_step": 1.5}, "mistake_step 1.5 is not a step number; kept as the log gives it"),
    ({"mistake_step": True}, {"mistake_step": True}, "mistake_step true is not a step number; kept as the log gives it"),
    ({"mistake_step": None}, {}, "mistake_step null is not a step number, text or a number: not kept"),
    ({"mistake_step": {"n": 1}}, {}, "mistake_step an object is not a step number, text or a number: not kept"),
])
def test_a_label_of_another_type_is_kept_or_said_to_be_dropped(labels, annotations, note):
    """Every label of the log reaches the trace's annotations, or a note says why not (never silently)."""
    history = [{"role": "Orchestrator (-> A)", "content": "go"}, {"role": "A", "content": "done"}]
    result = convert(log(history, **labels), "x.json")
    assert {k: v for k, v in result.trace.get("annotations", {}).items() if k not in ("question_ID",)} == annotations
    assert note in result.notes
    assert validate_bytes(json.dumps(result.trace).encode(), "t.json")[1] == []


def test_odd_messages_are_named_not_dropped_silently():
    history = [{"role": "Orchestrator (thought)", "content": "plan"}, 5, {"content": "x"},
               {"role": "Coder (draft)", "content": ["not text"]}]
    result = convert(log(history), "x.json")
    assert validate_trace(result.trace) == []
    assert [e["id"] for e in result.trace["events"]] == ["m0", "m3"]
    assert "3 message(s) not fully read: step 1: not an object; step 2: no role or name; step 3: content is list, " \
        "not text (no content_ref)" in result.notes
    assert "1 message(s) with the role act '(draft)', which names no delegation, thought or termination: read as " \
        "messages" in result.notes


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"history": []}', "x.json: not a message log: expected an object with a 'history' array"),
        (b'{"history": [1, 2]}', "x.json: not a message log"),
        (b'{"history": [{"content": 1}]}', "x.json: no message could be read: step 0: no role or name"),
        (b'{"history": [{"role": "a"}]}\n{"history": [{"role": "b"}]}', "x.json: holds 2 logs; choose one with --trace-id"),
        (b'[{"mas_name": "ChatDev", "trace": {"trajectory": "..."}, "mast_annotation": {"1.1": 0}}]',
         "x.json: a MAST (MAD) record: its 'trace.trajectory' is the raw text log of its framework"),
        (b'{"history": [{"role": "a", "content": "\\ud800"}], "x": Infinity}', "x.json: cannot read the JSON"),
    ],
)
def test_bad_logs_give_one_clear_error(data, message):
    with pytest.raises(ConvertError) as err:
        convert(data, "x.json", "message-log")
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_several_logs_one_chosen_by_question_id():
    data = b'{"question_ID": "a", "history": [{"role": "x", "content": "1"}]}\n' \
           b'{"question_ID": "b", "history": [{"role": "y", "content": "2"}]}'
    assert convert(data, "x.jsonl", trace_id="b").trace["events"][0]["agent"] == "y"
    with pytest.raises(ConvertError, match="no log has question_ID c; found: a, b"):
        convert(data, "x.jsonl", trace_id="c")
