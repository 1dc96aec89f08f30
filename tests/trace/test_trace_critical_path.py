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
