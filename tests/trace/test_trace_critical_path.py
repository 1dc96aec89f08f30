"""The critical path is the longest dependency chain, wherever its events are listed."""

from __future__ import annotations

from conftest import problems_of, survey_trace

from masrl.trace.metrics import trace_metrics


def test_an_unconnected_last_event_does_not_shorten_the_critical_path():
    # the survey's example (critical path e1 -> e2 -> e4 -> e5 -> e6 -> e7 -> e8: 7 events, time 7)
    # plus one orchestrator decision that nothing depends on, listed last
    trace = survey_trace()
    trace["events"].append({"id": "e9", "t": 7, "type": "orchestrator_decision", "agent": "orchestrator", "role": "lead",
                             "content_ref": "decide_nothing_more"})
    assert problems_of(trace) == []
    m = trace_metrics(trace)
    assert (m["events"], m["critical_path_steps"], m["critical_path_time"]) == (9, 7, 7.0)
    assert m["parallelism"] == round(9 / 7, 6)


def test_the_longest_chain_listed_first_still_counts():
    trace = survey_trace()
    trace["events"] = list(reversed(trace["events"]))  # same graph, listed backwards
    m = trace_metrics(trace)
    assert (m["critical_path_steps"], m["critical_path_time"]) == (7, 7.0)


def test_an_arc_ignored_to_break_a_cycle_adds_no_step():
    """e1 -> e2 -> e3 -> e1 at one time (message, aggregate, tool_dependency): the cycle is broken at e1, whose
    incoming arc is ignored; the longest chain left is e1 -> e2 -> e3, 3 steps (it had counted the ignored arc:
    4 steps of 3 events, parallelism below 1). The one-trace numpy path and the batch path agree."""
    from masrl.trace.bulk_metrics import critical_path
    from masrl.trace.metrics import _DEP_CODES
    from masrl.trace.validate import check_bytes

    events = [{"id": "e1", "t": 1, "type": "message", "agent": "A", "to": "B"},
              {"id": "e2", "t": 1, "type": "message", "agent": "B", "to": "A"},
              {"id": "e3", "t": 1, "type": "message", "agent": "A", "to": "C"}]
    edges = [{"src": "e1", "dst": "e2", "type": "message"}, {"src": "e2", "dst": "e3", "type": "aggregate"},
             {"src": "e3", "dst": "e1", "type": "tool_dependency"}]
    trace = {"trace_id": "t", "task_id": "k", "events": events, "edges": edges, "rewards": {"team": 1},
             "costs": {"tokens": 1, "wall_clock_s": 0}}
    assert problems_of(trace) == []
    m = trace_metrics(trace)
    assert (m["critical_path_steps"], m["ignored_cycle_edges"], m["parallelism"]) == (3, 1, 1.0)
    import json

    checker, _tree, problems = check_bytes(json.dumps(trace).encode(), "t.json")
    assert not problems
    assert critical_path(checker, _DEP_CODES) == {"critical_path_steps": 3, "critical_path_time": 0.0, "ignored_cycle_edges": 1}
