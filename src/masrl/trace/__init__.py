"""Orchestration traces: schema, semantic validation, replay metrics, converters."""
