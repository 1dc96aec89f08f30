"""The shipped examples and the pure functions the build calls."""

from __future__ import annotations

import json

from conftest import SURVEY_BYTES

from masrl.trace.examples import load_examples
from masrl.trace.metrics import trace_metrics
from masrl.trace.report import metrics_markdown
from masrl.trace.schema import schema_bytes
from masrl.trace.synth import example_traces, to_json_bytes
from masrl.trace.validate import validate_bytes


def test_examples_are_sorted_and_complete():
    examples = load_examples()
    assert list(examples) == ["centralized", "debate", "hierarchy", "survey_example", "swarm_100"]


def test_survey_example_is_shipped_byte_for_byte():
    assert load_examples()["survey_example"] == SURVEY_BYTES


def test_own_examples_equal_their_builders():
    examples = load_examples()
    for name, trace in example_traces().items():
        assert examples[name] == to_json_bytes(trace), name


def test_every_example_is_valid_with_stop_and_decisions():
    for name, data in load_examples().items():
        trace, problems = validate_bytes(data, name)
        assert problems == [], name
        if name == "survey_example":
            continue
        types = [e["type"] for e in trace["events"]]
        assert "stop" in types, name
        assert any("decision" in e for e in trace["events"]), name
        assert {e["agent"] for e in trace["events"]} and trace["topology"]


def test_swarm_example_has_100_sub_agents():
    trace = json.loads(load_examples()["swarm_100"])
    assert sum(e["type"] == "spawn" for e in trace["events"]) == 100


def test_markdown_report_is_deterministic():
    metrics = {name: trace_metrics(json.loads(data)) for name, data in load_examples().items()}
    text = metrics_markdown(metrics)
    assert text == metrics_markdown(dict(reversed(list(metrics.items()))))
    assert text.startswith("# Orchestration trace metrics\n")
    assert text.endswith("\n") and "\r" not in text and not text.endswith("\n\n")
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(table) == 1 + len(metrics)  # header + one row per trace
    assert "| survey_example | centralized | 8 | 3 | 7 | 7 | 1.143 | 3 | 2 | 1 | 0.75 | 1 | 12000 | 1.4 | 8571.429 |" in text
    for name in metrics:
        assert f"\n## {name}\n" in text


def test_markdown_escapes_pipes_and_shows_null():
    m = trace_metrics(json.loads(load_examples()["survey_example"]))
    m["tokens_per_reward"] = None
    text = metrics_markdown({"a|b": m})
    assert "| a\\|b |" in text and "| n/a |" in text


def test_schema_bytes_parse():
    assert json.loads(schema_bytes())["title"] == "Orchestration trace"


def test_markdown_escapes_names_and_ids_of_hostile_traces():
    m = trace_metrics(json.loads(load_examples()["survey_example"]))
    m["trace_id"], m["task_id"] = "a`b", "[x](javascript:alert(1))"
    text = metrics_markdown({"<img src=x onerror=alert(1)>": m})
    assert text.count("<img") == text.count("\\<img") == 2  # the table row and the heading, both escaped
    assert "- trace: ``a`b``, task: `[x](javascript:alert(1))`, topology: centralized" in text
