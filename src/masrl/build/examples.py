"""The packaged example traces as the build uses them: validity and their report.

``trace_valid`` claim checks ask whether a packaged example trace validates;
``masrl build`` also writes ``reports/traces.md`` (metrics of every valid
example) and ``reports/schema/trace.schema.json``. Trace modules are imported
lazily, so that commands that never look at traces stay fast.
"""

from __future__ import annotations


def validated_examples() -> dict[str, tuple]:
    """Packaged example trace name -> (trace or None, problems)."""
    from ..trace.examples import load_examples
    from ..trace.validate import validate_bytes

    return {name: validate_bytes(data, f"{name}.json") for name, data in load_examples().items()}


def examples_valid(validated: dict[str, tuple] | None = None) -> dict[str, bool]:
    """Packaged example trace name -> whether it validates (for ``trace_valid`` claim checks)."""
    validated = validated_examples() if validated is None else validated
    return {name: not problems for name, (_, problems) in validated.items()}


def trace_report_files(validated: dict[str, tuple]) -> dict[str, bytes]:
    """``reports/traces.md`` (metrics of every valid example) and ``reports/schema/trace.schema.json``."""
    from ..trace.metrics import trace_metrics
    from ..trace.report import metrics_markdown
    from ..trace.schema import schema_bytes

    metrics = {name: trace_metrics(trace) for name, (trace, problems) in validated.items() if trace is not None and not problems}
    return {"reports/traces.md": metrics_markdown(metrics).encode(), "reports/schema/trace.schema.json": schema_bytes()}
