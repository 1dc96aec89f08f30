"""Fuzzing the trace validator and every converter: a result or a one-line error, never a traceback.

Profile: 150 examples per test under the ``ci`` profile (what CI runs, a few seconds in all),
30 times as many under ``long`` (tests/profiles.py); ``MASRL_FUZZ_EXAMPLES`` sets the number
by hand, e.g. ``MASRL_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -q tests/trace/test_trace_fuzz.py``.
A converted trace must also validate.
"""

from __future__ import annotations

import base64
import json
import os

from conftest import SURVEY_BYTES
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from profiles import examples

from masrl.trace.convert import ConvertError, convert
from masrl.trace.validate import validate_bytes, validate_trace

FUZZ = settings(
    max_examples=int(os.environ.get("MASRL_FUZZ_EXAMPLES") or examples(150)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

json_scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)


def one_line_problems(problems) -> None:
    for p in problems:
        text = str(p)
        assert text and "\n" not in text and "Traceback" not in text


@FUZZ
@given(st.binary(max_size=300))
def test_validator_on_arbitrary_bytes(data):
    trace, problems = validate_bytes(data, "f.json")
    assert (trace is None) == bool(problems)
    one_line_problems(problems)


@FUZZ
@given(st.data())
def test_validator_on_mutated_survey_text(data):
    text = bytearray(SURVEY_BYTES)
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(text)))
        action = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = data.draw(st.sampled_from([b'"', b",", b"}", b"{", b"[", b"]", b":", b"NaN", b"1e400", b'"t": 1, "t": 2,',
                                           b"\\u003a", b"\\", b"\xff", b"-", b"0", b'"x"', b" "]))
        if action == "insert":
            text[pos:pos] = piece
        elif action == "delete":
            del text[pos:pos + len(piece)]
        else:
            text[pos:pos + len(piece)] = piece
    trace, problems = validate_bytes(bytes(text), "f.json")
    assert (trace is None) == bool(problems)
    one_line_problems(problems)


@FUZZ
@given(json_values)
def test_validator_on_arbitrary_json(value):
    trace, problems = validate_bytes(json.dumps(value).encode(), "f.json")
    assert (trace is None) == bool(problems)
    one_line_problems(problems)


# -- converters ---------------------------------------------------------------------
IDS = ["a1", "b2", "c3", "d4", "00f067aa0ba902b7", base64.b64encode(bytes(range(1, 9))).decode(), "0" * 16, ""]
OPS = ["invoke_agent", "create_agent", "execute_tool", "chat", "call_llm", "embeddings", "invoke_workflow", "", "weird"]
times = st.one_of(st.integers(0, 10**10), st.integers(0, 10**10).map(str), st.just("0"), st.none(), st.just("x"), st.just(-5))
usage_value = st.one_of(st.integers(-5, 10**6), st.floats(-1, 1e6, allow_nan=False), st.text(max_size=3), st.none())


@st.composite
def otel_attrs(draw):
    out = []
    op = draw(st.sampled_from(OPS))
    if op:
        out.append({"key": "gen_ai.operation.name", "value": {"stringValue": op}})
    for key in draw(st.lists(st.sampled_from(["gen_ai.agent.name", "gen_ai.agent.id", "gen_ai.tool.name", "gen_ai.request.model",
                                              "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
                                              "gen_ai.usage.prompt_tokens", "gen_ai.usage.total_tokens"]), max_size=4)):
        kind = draw(st.sampled_from(["stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue"]))
        raw = draw(usage_value | st.sampled_from(["lead", "helper", "search"]))
        out.append({"key": key, "value": {kind: raw}})
    return out


@st.composite
def otel_span(draw):
    span = {
        "traceId": draw(st.sampled_from(["0af7651916cd43dd8448eb211c80319c", "T"])) ,
        "spanId": draw(st.sampled_from(IDS)),
        "parentSpanId": draw(st.sampled_from(IDS)),
        "name": draw(st.sampled_from(["invoke_agent lead", "execute_tool x", "chat m", "call_llm m", "HTTP", ""])),
        "startTimeUnixNano": draw(times),
        "endTimeUnixNano": draw(times),
        "attributes": draw(otel_attrs()),
    }
    if draw(st.booleans()):
        span[draw(st.sampled_from(list(span)))] = draw(json_values)
    return span


@FUZZ
@given(st.lists(otel_span(), max_size=8), st.booleans(), st.booleans())
def test_otel_converter(spans, lines, one_trace):
    if one_trace:
        for s in spans:
            if isinstance(s, dict):
                s["traceId"] = "T"
    doc = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"spans": spans}]}]}
    data = "\n".join(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [s]}]}]}) for s in spans) if lines and spans else json.dumps(doc)
    check_converter(data.encode(), "otel")


@FUZZ
@given(json_values)
def test_converters_on_arbitrary_json(value):
    for fmt in (None, "otel", "langfuse", "openai-agents", "openinference", "mlflow", "message-log"):
        check_converter(json.dumps(value).encode(), fmt)


OI_KINDS = ["AGENT", "TOOL", "LLM", "CHAIN", "GUARDRAIL", "RETRIEVER", "agent", "", None]


@st.composite
def openinference_span(draw):
    attrs = {"openinference.span.kind": draw(st.sampled_from(OI_KINDS))}
    for key in draw(st.lists(st.sampled_from(["agent.name", "graph.node.id", "graph.node.parent_id", "tool.name",
                                              "llm.token_count.prompt", "llm.token_count.completion",
                                              "llm.token_count.total", "llm.model_name", "session.id", "metadata"]),
                             max_size=5)):
        attrs[key] = draw(usage_value | st.sampled_from(["lead", "helper", "handoff to helper", "a1", '{"step": 3}']))
    span = {"name": draw(st.sampled_from(["lead", "turn", "handoff to helper", "generation", ""])),
            "context": {"trace_id": draw(st.sampled_from(["0af7651916cd43dd8448eb211c80319c", "T"])),
                        "span_id": draw(st.sampled_from(IDS))},
            "span_kind": draw(st.sampled_from(OI_KINDS)),
            "parent_id": draw(st.sampled_from(IDS + [None])),
            "start_time": draw(times | st.sampled_from(["2025-01-01T00:00:00Z", "2025-01-01T00:00:01.5+00:00", "nope"])),
            "end_time": draw(times | st.sampled_from(["2025-01-01T00:00:02Z", None])),
            "attributes": attrs if draw(st.booleans()) else {"openinference": {"span": {"kind": attrs.pop("openinference.span.kind")}}, **attrs}}
    if draw(st.booleans()):
        span[draw(st.sampled_from(list(span)))] = draw(json_values)
    return span


@FUZZ
@given(st.lists(openinference_span(), min_size=1, max_size=8), st.booleans())
def test_openinference_converter(spans, wrapped):
    for s in spans:
        if isinstance(s.get("context"), dict) and s["context"].get("trace_id") is not None:
            s["context"]["trace_id"] = "T"
    check_converter(json.dumps({"data": spans} if wrapped else spans).encode(), "openinference")


@st.composite
def langfuse_doc(draw):
    def iso(ms):
        return f"2025-01-01T00:00:{ms // 1000 % 60:02d}.{ms % 1000:03d}Z"

    observations = []
    for _ in range(draw(st.integers(0, 7))):
        observations.append({
            "id": draw(st.sampled_from(IDS)),
            "parentObservationId": draw(st.sampled_from(IDS + [None])),
            "type": draw(st.sampled_from(["AGENT", "TOOL", "GENERATION", "SPAN", "GUARDRAIL", "EVENT", 7])),
            "name": draw(st.sampled_from(["lead", "helper", "search", ""])),
            "startTime": draw(st.integers(0, 50_000).map(iso) | st.just("garbage") | st.none()),
            "endTime": draw(st.integers(0, 50_000).map(iso) | st.none()),
            "usageDetails": draw(st.dictionaries(st.sampled_from(["input", "output", "total"]), usage_value, max_size=3)),
        })
    return {"trace": {"id": "t", "name": draw(st.sampled_from(["app", ""]))}, "observations": observations}


@FUZZ
@given(langfuse_doc())
def test_langfuse_converter(doc):
    check_converter(json.dumps(doc).encode(), "langfuse")


@st.composite
def agents_batch(draw):
    def iso(s):
        return f"2025-03-11T12:{s // 60 % 60:02d}:{s % 60:02d}.000000+00:00"

    items = [{"object": "trace", "id": "trace_x", "workflow_name": "wf", "metadata": draw(st.dictionaries(st.sampled_from(["step", "run"]), json_scalars, max_size=2))}]
    for _ in range(draw(st.integers(0, 7))):
        typ = draw(st.sampled_from(["agent", "function", "generation", "response", "handoff", "guardrail", "custom", "speech", 3]))
        items.append({
            "object": "trace.span", "id": draw(st.sampled_from(IDS)), "trace_id": "trace_x",
            "parent_id": draw(st.sampled_from(IDS + [None])),
            "started_at": draw(st.integers(0, 500).map(iso) | st.none()),
            "ended_at": draw(st.integers(0, 500).map(iso) | st.none()),
            "span_data": {"type": typ, "name": draw(st.sampled_from(["a", "b", ""])), "from_agent": "a", "to_agent": "b",
                          "triggered": draw(st.booleans()), "usage": {"input_tokens": draw(usage_value), "output_tokens": draw(usage_value)}},
        })
    return {"data": items}


@FUZZ
@given(agents_batch())
def test_agents_sdk_converter(doc):
    check_converter(json.dumps(doc).encode(), "openai-agents")


def check_converter(data: bytes, fmt) -> None:
    try:
        result = convert(data, "f.json", fmt)
    except ConvertError as err:
        text = str(err)
        assert text and "\n" not in text
        return
    assert validate_trace(result.trace) == [], (result.notes, result.trace)
    assert all("\n" not in note for note in result.notes)


@st.composite
def mlflow_trace(draw):
    spans = []
    for _ in range(draw(st.integers(0, 6))):
        attrs = {"mlflow.spanType": json.dumps(draw(st.sampled_from(["AGENT", "TOOL", "CHAT_MODEL", "LLM", "CHAIN", "X"])))}
        if draw(st.booleans()):
            attrs["mlflow.chat.tokenUsage"] = json.dumps({"input_tokens": draw(usage_value), "total_tokens": draw(usage_value)})
        span = {"trace_id": "AAAAAAAAAAAAAAAAAAAAAQ==", "span_id": draw(st.sampled_from(IDS)),
                "parent_span_id": draw(st.sampled_from(IDS + [None])),
                "name": draw(st.sampled_from(["planner", "worker", "search", ""])),
                "start_time_unix_nano": draw(times), "end_time_unix_nano": draw(times), "attributes": attrs}
        if draw(st.booleans()):
            span[draw(st.sampled_from(list(span)))] = draw(json_values)
        spans.append(span)
    return {"info": {"trace_id": draw(st.sampled_from(["tr-1", ""]))}, "data": {"spans": spans}}


@FUZZ
@given(mlflow_trace())
def test_mlflow_converter(doc):
    check_converter(json.dumps(doc).encode(), "mlflow")


ROLES = ["Orchestrator (thought)", "Orchestrator (-> A)", "Orchestrator (-> )", "Orchestrator (termination condition)",
         "A", "B (x)", "human", "user", "assistant", "", "(-> A)", "A (-> A)"]


@st.composite
def message_log(draw):
    history = []
    for _ in range(draw(st.integers(0, 8))):
        message = {"role": draw(st.sampled_from(ROLES)), "content": draw(st.text(max_size=3) | st.none())}
        if draw(st.booleans()):
            message["name"] = draw(st.sampled_from(["A", "B", "", "Orchestrator"]))
        if draw(st.booleans()):
            message[draw(st.sampled_from(list(message)))] = draw(json_values)
        history.append(message)
    labels = draw(st.fixed_dictionaries({}, optional={
        "mistake_step": st.integers(-2, 10) | st.text(max_size=3) | json_values, "mistake_agent": st.text(max_size=3),
        "is_correct": st.booleans(), "level": json_values, "question": st.text(max_size=3)}))
    return {"question_ID": draw(st.text(max_size=3) | st.integers()), "history": history, **labels}


@FUZZ
@given(message_log())
@example({"question_ID": "", "history": [{"role": "Orchestrator (thought)", "content": ""}], "mistake_step": "\u00b2"})
@example({"question_ID": "", "history": [{"role": "Orchestrator (thought)", "content": ""}], "level": "\u00b2"})
@example({"question_ID": "", "history": [{"role": "Orchestrator (thought)", "content": ""}], "mistake_step": "9" * 5000})
def test_message_log_converter(doc):
    check_converter(json.dumps(doc).encode(), "message-log")
