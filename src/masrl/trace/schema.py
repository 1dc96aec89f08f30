"""The published orchestration-trace schema (JSON Schema 2020-12) and its vocabularies.

``trace.schema.json`` (package data) is the contract: the survey's minimal schema
(arXiv 2605.02801, facts file section ``trace_schema``) plus this project's optional
extensions (a ``stop`` event type, ``decision`` tags O1-O5, ``reward_credit_units``,
``schema_version``, ``labels``, ``annotations``, per-event ``tokens``/``cost``/``duration_s``). The vocabularies
below are read from that file, so the fast validator (:mod:`masrl.trace.checker`) and
the schema cannot disagree on an enum.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

SCHEMA_FILE = "trace.schema.json"


def schema_bytes() -> bytes:
    """The shipped schema file, byte for byte (what the build writes to reports/schema/)."""
    return resources.files("masrl.trace").joinpath(SCHEMA_FILE).read_bytes()


@lru_cache(maxsize=1)
def schema() -> dict:
    """The schema as a dict (parsed once, cached; do not mutate)."""
    return json.loads(schema_bytes())


def _enum(*path: str) -> tuple[str, ...]:
    node = schema()
    for key in path:
        node = node[key]
    return tuple(node["enum"])


TOPOLOGIES: tuple[str, ...] = _enum("properties", "topology")
EVENT_TYPES: tuple[str, ...] = _enum("$defs", "event", "properties", "type")
EDGE_TYPES: tuple[str, ...] = _enum("$defs", "edge", "properties", "type")
DECISIONS: tuple[str, ...] = _enum("$defs", "event", "properties", "decision")
CREDIT_UNITS: tuple[str, ...] = _enum("properties", "reward_credit_units", "additionalProperties")
TOP_REQUIRED: tuple[str, ...] = tuple(schema()["required"])
TOP_KEYS: tuple[str, ...] = tuple(schema()["properties"])
EVENT_REQUIRED: tuple[str, ...] = tuple(schema()["$defs"]["event"]["required"])
EDGE_REQUIRED: tuple[str, ...] = tuple(schema()["$defs"]["edge"]["required"])
COST_REQUIRED: tuple[str, ...] = tuple(schema()["properties"]["costs"]["required"])
COST_NONNEGATIVE: tuple[str, ...] = tuple(schema()["properties"]["costs"]["properties"])

#: Sub-decision names (survey facts, ``subdecisions``).
DECISION_NAMES = {
    "O1": "when to spawn",
    "O2": "whom to delegate to",
    "O3": "how to communicate",
    "O4": "how to aggregate",
    "O5": "when to stop",
}


def jsonschema_validator():
    """A ``jsonschema.Draft202012Validator`` for the shipped schema (reference implementation).

    Used by the tests and the benchmark to prove that the fast validator agrees
    with the published contract; the ``masrl trace`` commands never call it.
    """
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema())
