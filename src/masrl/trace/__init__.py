"""Orchestration traces: the published schema, validation (a typed decoder for structure and
graph rules on columns), replay metrics, converters from OpenInference, OpenTelemetry, Langfuse,
the Agents SDK, MLflow and multi-agent message logs, and summaries to Parquet, checked and
measured a batch of traces at a time. Independent of the corpus.

May import: :mod:`masrl.render` (escaping, figure style), :mod:`masrl.core`.
"""
