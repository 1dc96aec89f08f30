"""The batch path of summarize (masrl.trace.batch) gives exactly the rows of the one-at-a-time path."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import msgspec
import numpy as np
import pandas as pd
import pytest
from conftest import survey_trace
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import examples
from test_convert_langfuse_agents import agents_batch
from test_trace_properties import complete_trace, near_valid_trace, valid_traces

from masrl.trace import batch
from masrl.trace.convert import ConvertError, convert
from masrl.trace.schema import schema
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
    free["events"][0]["note"] = [1]  # a free-form event property no converter writes
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


def test_ids_and_names_unique_to_each_trace_and_a_duplicate_id(tmp_path, monkeypatch):
    """Ids and agent names of one trace never meet those of another (span ids are unique per trace, step ids
    repeat in every trace); a trace with a duplicate id is measured on its own."""
    traces = [swarm_for_events(60), survey_trace(), swarm_for_events(30), swarm_for_events(30)]
    for event in traces[3]["events"]:
        event["id"] = f"span-{event['id']}"
    for edge in traces[3]["edges"]:
        edge["src"], edge["dst"] = f"span-{edge['src']}", f"span-{edge['dst']}"
    traces[2]["events"][0]["id"] = traces[2]["events"][1]["id"]  # a duplicate id: measured on its own
    out = same(monkeypatch, write(tmp_path, traces, True))
    assert [len(r.keys) for r in out if isinstance(r, Rows)] == [3]
    _df, invalid = frame(out)
    assert [name.rsplit("/", 1)[1] for name, _ in invalid] == ["all.jsonl:3"]


def _rich_trace(escaped: bool) -> dict:
    """The survey's trace with a key of every kind: optional event texts, numbers and booleans, a converter
    field, top-level texts and every top-level object; a text with a backslash in it when ``escaped``."""
    trace = survey_trace()
    trace.update(system="sys", schema_version="1.0", topology="centralized", metrics={"m": 1},
                 labels={"run": "r1", "step": 2, "ok": True}, annotations={"outcome": "fail", "mistake_step": 3},
                 rewards={"team": 1.0, "tool": 0.5}, reward_credit_units={"team": "team", "tool": "turn"})
    trace["events"][0].update(role="lead", trusted=True, cost=0.5, duration_s=1, model="m-1", step=4,
                              content_ref="a \\ b" if escaped else "a b")
    return trace


# Where a key is repeated: (path to the object, key) — msgspec keeps the last value, so a trace with one
# decodes without error; the batch path must hand it to the one-at-a-time path, which names it.
REPEATS = [("events.0", "id"), ("events.0", "role"), ("events.0", "cost"), ("events.0", "trusted"),
           ("events.0", "model"), ("events.0", "step"), ("edges.0", "src"), ("", "task_id"), ("", "labels"),
           ("rewards", "team"), ("labels", "run"), ("costs", "tokens"), ("reward_credit_units", "team")]


def _with_repeated_key(trace: dict, where: str, key: str) -> bytes:
    """The trace's JSON text with ``key`` of the object at ``where`` written twice (the first time with
    the value it has, so the decoded trace is the same as without the repeat)."""
    target = trace
    for part in filter(None, where.split(".")):
        target = target[int(part)] if part.isdigit() else target[part]
    marker = {"__marker__": 0}
    target["__mark__"] = marker
    text = json.dumps(trace, ensure_ascii=False)
    del target["__mark__"]
    return text.replace('"__mark__": {"__marker__": 0}', f"{json.dumps(key)}: {json.dumps(target[key])}").encode()


@pytest.mark.parametrize("escaped", [False, True], ids=["plain", "with-backslash"])
@pytest.mark.parametrize(("where", "key"), REPEATS, ids=[f"{w or 'top'}.{k}" for w, k in REPEATS])
def test_a_repeated_key_anywhere_is_measured_one_at_a_time(tmp_path, monkeypatch, where, key, escaped):
    trace = _rich_trace(escaped)
    plain = json.dumps(trace, ensure_ascii=False).encode()
    assert (b"\\" in plain) is escaped
    decoded = batch._decode(plain)
    assert decoded is not None and batch._Columns().add(*decoded)  # without the repeat: the batch path's
    text = _with_repeated_key(trace, where, key)
    assert json.loads(text) == trace  # the same trace, with one key twice
    assert batch._decode(text) is None or not batch._Columns().add(*batch._decode(text))
    (tmp_path / "t.json").write_bytes(text)
    out = same(monkeypatch, [str(tmp_path / "t.json")])
    assert not any(isinstance(r, Rows) for r in out)
    assert any("repeated" in problem or "twice" in problem or "duplicate" in problem for problem in out[0][3]), out


@settings(max_examples=examples(60), deadline=None)
@given(valid_traces())
def test_the_count_of_strings_is_the_count_of_quotes_in_every_valid_trace(trace):
    """Every valid trace without a backslash (its text's strings are its keys and texts) passes the batch
    path's proof that no key is repeated, so none is sent one at a time only for being measured."""
    text = json.dumps(trace, ensure_ascii=False).encode()
    decoded = batch._decode(text)
    if decoded is None or b"\\" in text:
        return
    doc, quotes = decoded
    fields = list(zip(*map(msgspec.structs.astuple, doc.events)))
    assert 2 * batch._strings(doc, fields, len(doc.events)) == quotes


# -- converted traces: the free-form event properties masrl's converters write -------------------------

DATA = Path(__file__).parent / "data"
EVENT_KEYS = set(schema()["$defs"]["event"]["properties"])


def converted_traces() -> list[dict]:
    """Every trace masrl's converters make of the real exports in tests/trace/data, and of an OpenAI
    Agents SDK batch with a guardrail span."""
    out = []
    for path in sorted(DATA.glob("*.json")):
        if path.name == "survey_example.json":
            continue
        data = path.read_bytes()
        try:
            out.append(convert(data, str(path)).trace)
        except ConvertError as err:
            if "holds 2 traces" not in str(err):
                continue  # no agent in it (the test of that converter says so)
            out += [convert(data, str(path), trace_id=tid).trace for tid in ("0af7651916cd43dd8448eb211c80319c",
                                                                           "4bf92f3577b34da6a3ce929d0e0e4736")]
    out.append(convert(json.dumps(agents_batch()).encode(), "sdk.json", "openai-agents").trace)
    return out


def test_converted_traces_are_measured_by_the_batch_path(tmp_path, monkeypatch):
    traces = converted_traces()
    free = {key for trace in traces for event in trace["events"] for key in event} - EVENT_KEYS
    assert free == {"model", "step", "guardrail", "triggered"} == set(batch.CONVERTER_FIELDS)
    out = same(monkeypatch, write(tmp_path, traces, False))
    assert [len(r.keys) for r in out if isinstance(r, Rows)] == [len(traces)] and len(traces) == 15
    df, invalid = frame(out)
    assert invalid == [] and df["events"].sum() == sum(len(t["events"]) for t in traces)


converter_values = {
    "model": st.one_of(st.text(max_size=3), st.just("gpt:4o"), st.integers(0, 3), st.lists(st.integers(0, 2), max_size=2)),
    "guardrail": st.one_of(st.text(max_size=3), st.none()),
    "triggered": st.one_of(st.booleans(), st.integers(0, 1), st.none()),
    "step": st.one_of(st.integers(-3, 10), st.integers(2**63, 2**64), st.floats(0, 5, allow_nan=False), st.text(max_size=2)),
    "note": st.one_of(st.integers(0, 2), st.dictionaries(st.text(max_size=2), st.integers(0, 2), max_size=2)),
}


@st.composite
def converter_shaped(draw):
    """A valid trace whose events carry converter fields (of the type converters write, or of another type,
    which the schema allows too), ids and references with ':' in them, and now and then another free key."""
    trace = draw(valid_traces())
    rename = {e["id"]: f"{e['id']}:{draw(st.sampled_from(['start', 'end']))}" for e in trace["events"]}
    for event in trace["events"]:
        event["id"] = rename[event["id"]]
        if draw(st.booleans()):
            event["content_ref"] = "sha256:" + draw(st.sampled_from(["ab", "c:d"]))
        for key in draw(st.lists(st.sampled_from(sorted(converter_values)), max_size=3, unique=True)):
            event[key] = draw(converter_values[key])
    for edge in trace["edges"]:
        edge["src"], edge["dst"] = rename[edge["src"]], rename[edge["dst"]]
    return trace


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(converter_shaped(), near_valid_trace()), min_size=1, max_size=6), st.booleans())
def test_converter_shaped_rows_equal_one_at_a_time_rows(tmp_path_factory, monkeypatch, traces, lines):
    same(monkeypatch, write(tmp_path_factory.mktemp("c"), traces, lines))


def test_a_converter_field_of_another_type_is_measured_one_at_a_time(tmp_path, monkeypatch):
    traces = [survey_trace() for _ in range(4)]
    traces[0]["events"][0]["model"] = "gpt-4o"
    traces[1]["events"][0]["model"] = 4  # valid (a free-form value), not what a converter writes
    traces[2]["events"][0]["step"] = 2**63  # valid, beyond the typed field's range
    traces[3]["events"][0]["triggered"] = None
    out = same(monkeypatch, write(tmp_path, traces, False))
    assert [len(r.keys) for r in out if isinstance(r, Rows)] == [1]
    assert sorted(r[0].rsplit("/", 1)[1] for r in out if not isinstance(r, Rows)) == ["t001.json", "t002.json", "t003.json"]
    assert all(r[2] is not None for r in out if not isinstance(r, Rows))  # all valid


def test_text_that_is_not_unicode_is_refused_as_on_the_one_at_a_time_path(tmp_path, monkeypatch):
    """A file name the system could not decode and a --label value holding a lone surrogate cannot go to
    Parquet: the batch path leaves such traces to the one-at-a-time path, which names the problem."""
    good = tmp_path / "good.json"
    good.write_text(json.dumps(survey_trace()))
    odd = tmp_path / "odd-\udcff.json"  # the name of a file whose name is the bytes b'odd-\xff.json'
    with open(os.fsencode(odd), "w") as handle:
        handle.write(json.dumps(survey_trace()))
    out = same(monkeypatch, [str(good), str(odd)])
    _df, invalid = frame(out)
    assert [name for name, _ in invalid] == [str(odd)]
    assert "the file name: holds a lone surrogate (\\udcff)" in invalid[0][1][0]
    out = same(monkeypatch, [str(good)], {"run": "r\udc80"})
    assert not [r for r in out if isinstance(r, Rows)]
    assert "$.labels.run: holds a lone surrogate (\\udc80)" in out[0][3][0]


def test_a_whole_number_just_beyond_2_53_is_refused_as_on_the_one_at_a_time_path(tmp_path, monkeypatch):
    """2**53 + 1 becomes 2**53 as a double: the batch path compares the number itself."""
    traces = [survey_trace() for _ in range(4)]
    traces[0]["costs"]["tokens"] = 2**53 + 1
    traces[1]["rewards"] = {"team": 2**53 + 1}
    traces[2]["events"][0]["tokens"] = 2**53 + 1
    out = same(monkeypatch, write(tmp_path, traces, False))
    _df, invalid = frame(out)
    assert [name.rsplit("/", 1)[1] for name, _ in invalid] == ["t000.json", "t001.json", "t002.json"]
    assert "tokens: 9007199254740993 is beyond 2**53" in invalid[0][1][0]


def test_chunks_and_large_traces_give_the_same_rows(tmp_path, monkeypatch):
    """The batch path measures a bounded chunk of traces at a time (a JSON Lines file is read line by line)
    and leaves a large trace to the path that reads it in blocks: the rows are the same."""
    from masrl.trace import summarize

    broken = survey_trace()
    broken["events"][0]["t"] = -1
    traces = [swarm_for_events(30), survey_trace(), broken, swarm_for_events(10), survey_trace(), survey_trace()]
    files = write(tmp_path, traces, True)
    whole = summarize_batch(files, {})
    assert [len(r.keys) for r in whole if isinstance(r, Rows)] == [5]
    monkeypatch.setattr(summarize, "CHUNK_TRACES", 2)
    monkeypatch.setattr(summarize, "LARGE_TRACE", 3000)  # the 30-event swarm is larger
    chunked = summarize_batch(files, {})
    assert [len(r.keys) for r in chunked if isinstance(r, Rows)] == [1, 2, 1]
    assert sorted(r[1] for r in chunked if not isinstance(r, Rows)) == [1, 3]  # the large one, the broken one
    pd.testing.assert_frame_equal(frame(whole)[0], frame(chunked)[0])
    assert frame(whole)[1] == frame(chunked)[1] and len(frame(whole)[1]) == 1


@settings(max_examples=examples(300), deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers(-10**9, 10**9).map(lambda k: k / 2e6)
       | st.integers(-10**9, 10**9).map(lambda k: k / 1e7))
def test_a_column_is_rounded_as_python_rounds_each_value(value):
    """The rows' floats are rounded a column at a time (numpy) exactly as the one-trace path rounds each
    (Python's round to 6 decimals, no -0.0), halves at the 7th decimal included."""
    got = batch._rounded(np.array([[value], [-value]]))
    want = [round(value, 6) or 0.0, round(-value, 6) or 0.0]
    assert got.ravel().tolist() == want
    assert [math.copysign(1, v) for v in got.ravel().tolist()] == [math.copysign(1, v) for v in want]
