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
