"""The registered trace-conversion formats: name, what it reads, the module that converts it.

Kept apart from :mod:`masrl.trace.convert` so that the CLI can list the formats
without importing any converter (``masrl --help`` stays fast). Each module named
here has ``detect(values) -> bool`` and ``convert(data, file, trace_id=None)``.
"""

from __future__ import annotations

#: (name, what it reads, module) in detection order.
FORMATS: tuple[tuple[str, str, str], ...] = (
    (
        "openinference",
        "OpenInference spans (openinference.span.kind): OTLP JSON, OTLP JSON Lines, OTel SDK span JSON, "
        "Phoenix span export",
        "masrl.trace.convert.openinference",
    ),
    (
        "otel",
        "OpenTelemetry GenAI spans: OTLP JSON, OTLP JSON Lines (collector file exporter), OTel SDK span JSON",
        "masrl.trace.convert.otel",
    ),
    ("langfuse", "Langfuse trace export ({trace, observations})", "masrl.trace.convert.langfuse"),
    (
        "openai-agents",
        'OpenAI Agents SDK trace export ({"data": [trace and trace.span items]})',
        "masrl.trace.convert.agents_sdk",
    ),
    ("mlflow", "MLflow trace JSON ({info, data: {spans}}, MLflow 2 and 3)", "masrl.trace.convert.mlflow"),
    (
        "message-log",
        "multi-agent message logs (Who&When: {history: [{role, name, content}], mistake_agent, mistake_step})",
        "masrl.trace.convert.message_log",
    ),
)

#: What marks each format, for the message that says a file is none of them (a format not listed
#: here is named by what it reads).
SIGNS: dict[str, str] = {
    "openinference": "no spans with openinference.span.kind",
    "otel": "no resourceSpans, and no spans with traceId and spanId",
    "langfuse": "no trace with observations",
    "openai-agents": 'no "data" list of trace and trace.span items',
    "mlflow": "no info with data.spans",
    "message-log": "no history of messages with a role or content",
}


def json_shape(values: list) -> str:
    """What parsed JSON ``values`` are, in words: ``a JSON object with the keys a, b, c``, ``a JSON
    array of 3 items``, ``2 JSON values (JSON Lines)``, ``a JSON number``."""
    if len(values) != 1:
        return f"{len(values)} JSON values (JSON Lines or documents one after another)"
    value = values[0]
    if isinstance(value, dict):
        keys = [str(k) for k in value]
        shown = ", ".join(keys[:8]) + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")
        return f"a JSON object with the keys {shown}" if keys else "an empty JSON object"
    if isinstance(value, list):
        return f"a JSON array of {len(value)} item{'s' if len(value) != 1 else ''}"
    kind = ("true or false" if isinstance(value, bool) else "null" if value is None else
            "number" if isinstance(value, (int, float)) else "string")
    return f"a JSON {kind}"


def not_a_format(file: str, shape: str, trace_too: bool) -> str:
    """One line saying what ``file`` (of the JSON ``shape``, :func:`json_shape`) is not: an
    orchestration trace (when ``trace_too``) nor any format ``masrl trace convert`` reads, each named
    with what it lacks."""
    tried = "; ".join(f"{name} ({SIGNS.get(name, 'not ' + reads)})" for name, reads, _module in FORMATS)
    what = "neither an orchestration trace (no events and edges) nor an export" if trace_too else "not an export"
    return (f"{file}: {what} in a format masrl trace convert reads: it is {shape}; tried {tried}. "
            "`masrl trace convert --formats` lists what each reads")
