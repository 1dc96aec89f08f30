"""Orchestration traces: the published schema, validation (a typed decoder for structure and
graph rules on columns), replay metrics, converters from OpenTelemetry, Langfuse and the Agents
SDK, and batch summaries to Parquet. Independent of the corpus.

May import: :mod:`masrl.render` (escaping, figure style), :mod:`masrl.core`.
"""
