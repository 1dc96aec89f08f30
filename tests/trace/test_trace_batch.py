"""The batch path of summarize (masrl.trace.batch) gives exactly the rows of the one-at-a-time path."""

from __future__ import annotations

import json

import pandas as pd
from conftest import survey_trace
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import examples
from test_trace_properties import complete_trace, near_valid_trace, valid_traces

from masrl.trace import batch
from masrl.trace.summarize import Rows, frame, summarize_batch
from masrl.trace.synth import swarm_for_events


def one_at_a_time(monkeypatch, files, labels):
    with monkeypatch.context() as m:
        m.setattr(batch, "summarize_items", lambda items, labels: (None, list(range(len(items)))))
        return summarize_batch(files, labels)


def write(tmp_path, traces, lines: bool) -> list[str]:
    if lines:
        path = tmp_path / "all.jsonl"
        path.write_text("\n".join(json.dumps(t) for t in traces) + "\n")
        return [str(path)]
    files = []
    for k, trace in enumerate(traces):
        path = tmp_path / f"t{k:03d}.json"
        path.write_text(json.dumps(trace))
        files.append(str(path))
    return files


def same(monkeypatch, files, labels=None):
    fast = summarize_batch(files, labels or {})
    slow = one_at_a_time(monkeypatch, files, labels or {})
    df_fast, bad_fast = frame(fast)
    df_slow, bad_slow = frame(slow)
    pd.testing.assert_frame_equal(df_fast, df_slow)
    assert bad_fast == bad_slow
    return fast


def labelled(trace, draw_labels):
    trace = dict(trace)
    if draw_labels is not None:
        trace["labels"] = draw_labels
    return trace


labels = st.none() | st.dictionaries(st.sampled_from(["run", "step", "policy", "seed"]),
                                     st.integers(-3, 2**54) | st.text(max_size=2) | st.booleans(), max_size=3)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.one_of(valid_traces(), valid_traces(), complete_trace, near_valid_trace()), labels),
                min_size=1, max_size=8), st.booleans())
def test_batch_rows_equal_one_at_a_time_rows(tmp_path_factory, monkeypatch, pairs, lines):
    traces = [labelled(t, lab) if isinstance(t, dict) else t for t, lab in pairs]
    files = write(tmp_path_factory.mktemp("b"), traces, lines)
    same(monkeypatch, files, {"policy": "cli"} if lines else {})


def test_the_batch_path_measures_ordinary_traces_itself(tmp_path, monkeypatch):
    traces = [swarm_for_events(100), survey_trace(), swarm_for_events(40)]
    traces[1]["rewards"] = {"team": 2.5, "tool": 0.5}
    traces[1]["reward_credit_units"] = {"team": "team"}
    out = same(monkeypatch, write(tmp_path, traces, False))
    assert len(out) == 1 and isinstance(out[0], Rows) and len(out[0].keys) == 3


def test_traces_the_batch_path_does_not_vouch_for_are_measured_one_at_a_time(tmp_path, monkeypatch):
    despawn = survey_trace()
    despawn["events"].append({"id": "e9", "t": 7.5, "type": "despawn", "agent": "orchestrator", "to": "executor_1"})
    free = survey_trace()
    free["events"][0]["model"] = "gpt"  # a free-form event property
    broken = survey_trace()
    broken["events"][1]["t"] = -1
    huge = survey_trace()
    huge["labels"] = {"step": 2**60}
    traces = [survey_trace(), despawn, free, broken, huge]
    out = same(monkeypatch, write(tmp_path, traces, False))
    block = [r for r in out if isinstance(r, Rows)]
    assert [len(b.keys) for b in block] == [1]
    singles = sorted((r[0].rsplit("/", 1)[1], r[2] is not None) for r in out if not isinstance(r, Rows))
    assert singles == [("t001.json", True), ("t002.json", True), ("t003.json", False), ("t004.json", False)]


def test_large_key_spaces_are_sorted_not_tabled(tmp_path, monkeypatch):
    """Names or ids unique to each trace of a batch of large traces would make the lookup tables huge;
    above a size the keys are sorted instead, with the same rows."""
    monkeypatch.setattr(batch, "_small", lambda size, n: False)
    traces = [swarm_for_events(60), survey_trace(), swarm_for_events(30)]
    traces[2]["events"][0]["id"] = traces[2]["events"][1]["id"]  # a duplicate id: measured on its own
    out = same(monkeypatch, write(tmp_path, traces, True))
    assert [len(r.keys) for r in out if isinstance(r, Rows)] == [2]
