"""The typed (fast) trace path and the relaxation loop of the critical path, pinned on small inputs:
what the fast path must accept itself (it may only hand a trace to the exact path on a real doubt),
and Kahn's loop with its cycle rule, value by value."""

from __future__ import annotations

import json

import msgspec
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
    # the arc 2 -> 1 is ignored: relaxed later it would add a step (1 would count 4 steps of 3 events)
    assert run(3, [0, 1, 2], [(0, 1), (1, 2), (2, 1)]) == (1, [1, 2, 3], [0, 0, 0], [0, 1, 2])
    # no event without a predecessor: the earliest (t, index) goes first
    assert run(3, [5, 1, 2], [(0, 1), (1, 2), (2, 0)]) == (1, [3, 1, 2], [1, 1, 1], [1, 2, 0])
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
    # the arc back into the first event is ignored: the chain is the n events once
    assert ignored == 1 and queue == list(range(n)) and steps == list(range(1, n + 1))


# ------------------------------------------------------------------------------ the numpy id index
class Hashed(str):
    """A string with a chosen hash, to make collisions on purpose."""

    def __new__(cls, text, value):
        out = super().__new__(cls, text)
        out.value = value
        return out

    def __hash__(self):
        return self.value


@pytest.mark.parametrize("n", [1, 5, 40, 300])
def test_id_index_finds_every_id_few_or_many(n):
    from masrl.trace.index import IdIndex

    ids = [f"e{k}" for k in range(n)]
    index = IdIndex(ids)
    assert index.lookup(ids[::-1]).tolist() == list(range(n))[::-1]
    assert index.lookup([ids[-1], ids[0], ids[-1]]).tolist() == [n - 1, 0, n - 1]
    assert index.lookup([]).tolist() == []


def test_id_index_refuses_duplicates_collisions_and_unknown_ids():
    from masrl.trace.index import IdIndex, IndexDoubt

    with pytest.raises(IndexDoubt):
        IdIndex(["a", "b", "a"])
    with pytest.raises(IndexDoubt):
        IdIndex([Hashed("x", 7), Hashed("y", 7)])  # another text, one hash
    index = IdIndex([f"e{k}" for k in range(50)])
    with pytest.raises(IndexDoubt):
        index.lookup(["e1", "nope"])
    with pytest.raises(IndexDoubt):
        index.lookup([f"e{k}" for k in range(49)] + ["nope"])
    with pytest.raises(IndexDoubt):
        index.lookup([Hashed("impostor", hash("e3"))])  # the hash matches, the text does not
    probed = IdIndex([Hashed("p", 16), Hashed("q", 32), Hashed("r", 48)])  # one slot, probed on
    assert probed.lookup([Hashed("r", 48), Hashed("p", 16)]).tolist() == [2, 0]


def chain_trace(n: int) -> dict:
    """One agent's ``n`` messages in one causal chain: every layer is one event wide, so the bulk
    critical path hands the work to the plain loop after its first layers."""
    events = [{"id": f"e{k}", "t": float(k), "type": "message", "agent": "a", "from": "a", "to": "b"} for k in range(n)]
    events.append({"id": "b0", "t": float(n), "type": "message", "agent": "b", "from": "b", "to": "a"})
    edges = [{"src": f"e{k}", "dst": f"e{k + 1}", "type": "causal"} for k in range(n - 1)]
    return {"trace_id": "chain", "task_id": "t", "rewards": {"team": 1.0}, "costs": {"tokens": 0, "wall_clock_s": 1, "tool_calls": 0, "messages": n + 1}, "events": events,
            "edges": edges}


def test_a_long_chain_takes_the_plain_loop_from_the_bulk_path_with_the_same_values():
    from masrl.trace import columns, metrics

    trace = chain_trace(3000)
    data = json.dumps(trace).encode()
    bulk = metrics.metrics_from_checker(accepted(data))
    saved = columns.SMALL, metrics.SMALL
    columns.SMALL = metrics.SMALL = 10**9
    try:
        plain = metrics.metrics_from_checker(accepted(data))
    finally:
        columns.SMALL, metrics.SMALL = saved
    assert json.dumps(bulk, sort_keys=True) == json.dumps(plain, sort_keys=True)  # 3000, not 3000.0
    assert (bulk["critical_path_steps"], bulk["critical_path_time"], bulk["ignored_cycle_edges"]) == (3000, 2999.0, 0)
    assert type(bulk["critical_path_steps"]) is int


def test_the_top_level_struct_requires_the_required_keys_and_allows_the_optional_ones():
    # Called here at run time, not only at import: mutmut maps a function to the tests that call it.
    struct = typed._top_struct("Top", {"events": msgspec.Raw, "edges": msgspec.Raw})
    assert struct.__struct_fields__ == ("trace_id", "task_id", "events", "edges", "rewards", "costs", "schema_version",
                                        "system", "topology", "metrics", "labels", "annotations", "reward_credit_units")
    assert struct.__struct_defaults__ == (msgspec.UNSET,) * 7  # the seven optional keys
    top = msgspec.json.decode(b'{"trace_id": "x", "task_id": "t", "events": [], "edges": [], "rewards": {}, "costs": {},'
                              b' "labels": {"a": "b"}}', type=struct)
    assert (top.labels, top.topology) == ({"a": "b"}, msgspec.UNSET)
    with pytest.raises(msgspec.ValidationError, match=r"Object missing required field `costs`"):
        msgspec.json.decode(b'{"trace_id": "x", "task_id": "t", "events": [], "edges": [], "rewards": {}}', type=struct)
    with pytest.raises(msgspec.ValidationError, match=r"Object contains unknown field `extra`"):
        msgspec.json.decode(b'{"trace_id": "x", "task_id": "t", "events": [], "edges": [], "rewards": {}, "costs": {},'
                            b' "extra": 1}', type=struct)


def test_a_large_trace_without_edges_stays_on_the_block_path():
    trace = chain_trace(3000)  # larger than one block: the block path, with an edges array of two bytes
    trace["edges"] = []
    data = json.dumps(trace).encode()
    assert len(data) > typed.BLOCK_BYTES and b'"edges": []' in data
    checker = accepted(data)
    assert (checker.n, metrics_from_checker(checker)["critical_path_steps"]) == (3001, 1)
