"""The typed (fast) trace path and the relaxation loop of the critical path, pinned on small inputs:
what the fast path must accept itself (it may only hand a trace to the exact path on a real doubt),
and Kahn's loop with its cycle rule, value by value."""

from __future__ import annotations

import json

import pytest
from conftest import survey_trace

from masrl.trace import typed
from masrl.trace.longest_path import kahn
from masrl.trace.metrics import metrics_from_checker
from masrl.trace.validate import exact_checker


def accepted(data: bytes, file: str = "t.json"):
    checker = typed.check_data(data, file)
    assert checker is not None, "the typed path handed a valid trace to the exact path"
    return checker


def test_the_survey_trace_is_accepted_with_a_bom_and_its_file_name():
    data = json.dumps(survey_trace()).encode()
    plain = accepted(data, "a.json")
    assert plain.file == "a.json" and plain.n == 8
    with_bom = accepted(b"\xef\xbb\xbf" + data)
    assert metrics_from_checker(with_bom) == metrics_from_checker(plain) == metrics_from_checker(exact_checker(survey_trace()))


def test_a_trace_without_edges_is_accepted():
    trace = survey_trace()
    trace["edges"] = []
    assert metrics_from_checker(accepted(json.dumps(trace).encode())) == metrics_from_checker(exact_checker(trace))


def test_free_form_keys_with_plain_values_stay_on_the_typed_path():
    trace = survey_trace()
    trace["events"][0]["note"] = "a string"
    trace["events"][1]["span"] = {"depth": [1, 2.5]}
    accepted(json.dumps(trace).encode())


def test_the_parsed_tree_is_accepted_too():
    trace = survey_trace()
    checker = typed.check_tree(trace, "tree.json")
    assert checker is not None and checker.file == "tree.json" and checker.n == 8
    assert metrics_from_checker(checker) == metrics_from_checker(exact_checker(trace))


def test_a_colon_count_that_differs_is_a_doubt():
    trace = survey_trace()
    data = json.dumps(trace).encode()
    repeated = data.replace(b'"t": 0', b'"t": 0, "t": 0', 1)
    assert repeated != data and typed.check_data(repeated, "t.json") is None


# ------------------------------------------------------------------------- Kahn's relaxation loop
def run(n, ts, edges):
    adj, starts = [], [0]
    for u in range(n):
        adj += [d for s, d in edges if s == u]
        starts.append(len(adj))
    indeg = [sum(1 for _s, d in edges if d == v) for v in range(n)]
    steps, first, queue = [1] * n, list(ts), [v for v in range(n) if not indeg[v]]
    ignored = kahn(n, ts, adj, starts, steps, first, indeg, queue, 0)
    return ignored, steps, first, queue


def test_kahn_on_a_dag():
    assert run(4, [0, 1, 2, 3], [(0, 1), (1, 2), (0, 2)]) == (0, [1, 2, 3, 1], [0, 0, 0, 3], [0, 3, 1, 2])
    # two roots: the earliest start reaches the join
    assert run(3, [5, 2, 9], [(0, 2), (1, 2)]) == (0, [1, 1, 2], [5, 2, 2], [0, 1, 2])
    assert run(1, [4], []) == (0, [1], [4], [0])


def test_kahn_breaks_a_cycle_at_the_earliest_remaining_event():
    assert run(3, [0, 1, 2], [(0, 1), (1, 2), (2, 1)]) == (1, [1, 4, 3], [0, 0, 0], [0, 1, 2])
    # no event without a predecessor: the earliest (t, index) goes first
    assert run(3, [5, 1, 2], [(0, 1), (1, 2), (2, 0)]) == (1, [3, 4, 2], [1, 1, 1], [1, 2, 0])
    # two arcs into the event that breaks the cycle are both ignored
    assert run(3, [0, 3, 1], [(1, 0), (2, 0), (0, 1), (0, 2)])[0] == 2


def test_kahn_resumes_from_a_given_state():
    ts = [0, 1, 2]
    adj, starts = [1, 2], [0, 1, 2, 2]
    steps, first, indeg, queue = [1, 2, 1], [0, 0, 2], [0, 0, 1], [0, 1]
    assert kahn(3, ts, adj, starts, steps, first, indeg, queue, 1) == 0  # 0 is relaxed already
    assert steps == [1, 2, 3] and first == [0, 0, 0] and queue == [0, 1, 2]


@pytest.mark.parametrize("n", [2, 3])
def test_kahn_ties_at_one_time_go_by_index(n):
    ts = [1.0] * n
    edges = [(u, (u + 1) % n) for u in range(n)]  # one cycle through every event
    ignored, steps, _first, queue = run(n, ts, edges)
    # the arc back into the first event is relaxed after it, so its steps count the whole loop
    assert ignored == 1 and queue == list(range(n)) and steps == [n + 1, *range(2, n + 1)]
