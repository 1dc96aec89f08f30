"""Every converter reads the labels run, step and policy of a trace's metadata: a value a label can hold is
kept, any other is named on stderr (a note), never dropped silently. Real exports (tests/trace/data) with
their metadata replaced."""

from __future__ import annotations

import base64
import json

import pytest

from conftest import DATA
from test_convert_faithful import agents_sdk
from masrl.trace.convert import convert
from masrl.trace.validate import validate_bytes

META = {"run": "r1", "step": True, "policy": {"name": "ppo"}}


def _langfuse(meta):
    d = json.loads((DATA / "langfuse-openai-agents-2025-09-30.trace.json").read_text(encoding="utf-8"))
    d.get("trace", d)["metadata"] = meta
    return d, "langfuse", "metadata"


def _agents_sdk(meta):
    d = json.loads(agents_sdk())  # a single-agent run of the Agents SDK (test_convert_faithful)
    d["data"][0]["metadata"] = meta
    return d, "openai-agents", "metadata"


def _mlflow(meta):
    d = json.loads((DATA / "mlflow-3-single.trace.json").read_text(encoding="utf-8"))
    d["info"]["trace_metadata"] = {**d["info"].get("trace_metadata", {}), **meta}
    return d, "mlflow", "trace metadata"


def _openinference(meta):
    d = json.loads((DATA / "openinference-openai-agents-single.otlp.json").read_text(encoding="utf-8"))
    first = d["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    first["attributes"].append({"key": "metadata", "value": {"stringValue": json.dumps(meta)}})
    return d, "openinference", f"span {base64.b64decode(first['spanId']).hex()}: metadata"  # base64 in the export


@pytest.mark.parametrize("make", [_langfuse, _agents_sdk, _mlflow, _openinference], ids=lambda f: f.__name__[1:])
def test_a_label_no_label_can_hold_is_named(make):
    doc, fmt, where = make(META)
    result = convert(json.dumps(doc).encode(), "x.json", fmt)
    assert result.trace["labels"] == {"run": "r1", "step": True}
    assert f"{where}.policy: an object is not text, yes/no or a number within ±2**53; not kept as the label 'policy'" in result.notes
    assert validate_bytes(json.dumps(result.trace).encode(), "t.json")[1] == []
    doc, fmt, _ = make({"run": "r2", "step": 3, "policy": "ppo"})
    result = convert(json.dumps(doc).encode(), "x.json", fmt)
    assert result.trace["labels"] == {"run": "r2", "step": 3, "policy": "ppo"}
    assert not [n for n in result.notes if "label" in n]


def test_otel_label_attributes_a_label_cannot_hold_or_that_disagree_are_named():
    """``masrl.label.KEY`` on the resource and the spans: an array, a map, NaN (the protobuf JSON mapping's
    "NaN", which had ended in a traceback writing the trace) and an integer beyond 2**53 are named, not kept; a
    second value of a label is named, the first kept."""
    from test_convert_otel_cases import TRACE, agent, attr, otlp

    span = agent("a1", "", "bot", 0, 1000)
    span["attributes"] += [attr("masrl.label.x", "A"),
                           {"key": "masrl.label.policy", "value": {"arrayValue": {"values": [{"stringValue": "g"}]}}},
                           {"key": "masrl.label.run", "value": {"kvlistValue": {"values": []}}},
                           {"key": "masrl.label.step", "value": {"doubleValue": "NaN"}},
                           {"key": "masrl.label.big", "value": {"intValue": "99999999999999999999"}}]
    doc = otlp(("app", [span]))
    doc["resourceSpans"][0]["resource"]["attributes"].append(attr("masrl.label.x", "B"))
    result = convert(json.dumps(doc).encode(), "x.json", "otel")
    assert result.trace["labels"] == {"x": "B"} and TRACE
    where = "span 'invoke_agent bot' (a1)"
    notes = [n for n in result.notes if "masrl.label." in n]
    assert notes == [
        f"{where}: masrl.label.x = 'A', but the label 'x' is 'B' already; the first is kept",
        f"{where}: masrl.label.policy: an array is not text, yes/no or a number within ±2**53; not kept as the label 'policy'",
        f"{where}: masrl.label.run: an object is not text, yes/no or a number within ±2**53; not kept as the label 'run'",
        f"{where}: masrl.label.step: nan is not text, yes/no or a number within ±2**53; not kept as the label 'step'",
        f"{where}: masrl.label.big: 99999999999999999999 is not text, yes/no or a number within ±2**53; not kept as the "
        "label 'big'"]
    assert validate_bytes(json.dumps(result.trace).encode(), "t.json")[1] == []
