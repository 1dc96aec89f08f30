"""JSON Schemas (Draft 2020-12) of the files of an audit folder.

``audit.yaml`` (the sample), ``rounds/round-<n>-<reader>.yaml`` (one imported
sheet) and ``adjudication-round-<n>.yaml``. Field names and values are
checked against the taxonomy by :mod:`masrl.checks.audits`, not here;
``masrl build`` writes these schemas to ``reports/schema/``.
"""

from __future__ import annotations

from ..corpus.schema import _DATE, _KEY, _STR_MAP, _TEXT
from .fields import KINDS, POPULATIONS

_ITEM = {"type": "string", "pattern": "^S[0-9]{2,}$"}
_RECORD = {"type": "string", "pattern": "^([a-z0-9][a-z0-9._-]*|E[0-9]{3,})$"}
_VALUE = {"type": ["string", "null"]}

AUDIT_FILE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl audit sample (corpus/audits/<audit_id>/audit.yaml)",
    "type": "object",
    "required": ["audit_id", "kind", "date", "population", "fields", "sampling", "instructions", "items", "provenance"],
    "additionalProperties": False,
    "properties": {
        "audit_id": _KEY,
        "kind": {"enum": list(KINDS)},
        "date": _DATE,
        "description": _TEXT,
        "population": {"enum": list(POPULATIONS)},
        "fields": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": True},
        "vocabulary": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}},
        "sampling": {
            "type": "object",
            "required": ["n", "seed", "method"],
            "additionalProperties": False,
            "properties": {
                "n": {"type": "integer", "minimum": 1},
                # a seed every JSON reader reads exactly (the site's JavaScript too): 0 to 2**53 - 1
                "seed": {"type": "integer", "minimum": 0, "maximum": 2**53 - 1},
                "stratify": {"type": ["string", "null"]},
                "method": _TEXT,
                "strata": {
                    "type": "array",
                    "items": {"type": "object", "required": ["value", "population", "sampled"], "additionalProperties": False,
                              "properties": {"value": {"type": "string"}, "population": {"type": "integer", "minimum": 0},
                                             "sampled": {"type": "integer", "minimum": 0}}},
                },
            },
        },
        "instructions": _TEXT,
        "sheet": _STR_MAP,
        "items": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["item", "record", "kind", "identifier", "original"],
                "additionalProperties": False,
                "properties": {
                    "item": _ITEM,
                    "record": _RECORD,
                    "kind": {"enum": ["retained", "excluded"]},
                    "stratum": {"type": ["string", "null"]},
                    "identifier": {"type": "string"},
                    "original": _STR_MAP,
                },
            },
        },
        "provenance": _STR_MAP,
    },
}

ROUND_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl audit reading (corpus/audits/<audit_id>/rounds/round-<n>-<reader>.yaml)",
    "type": "object",
    "required": ["audit_id", "round", "reader", "date", "source", "rows"],
    "additionalProperties": False,
    "properties": {
        "audit_id": _KEY,
        "round": {"type": "integer", "minimum": 1},
        "reader": _TEXT,
        "date": _DATE,
        "source": {"type": "object", "required": ["file", "sha256"], "additionalProperties": False,
                   "properties": {"file": _TEXT, "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}},
        "rows": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["item", "record", "values"],
                "additionalProperties": False,
                "properties": {"item": _ITEM, "record": _RECORD,
                               "values": {"type": "object", "additionalProperties": _VALUE},
                               "note": {"type": "string"}},
            },
        },
    },
}

ADJUDICATION_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl audit adjudication (corpus/audits/<audit_id>/adjudication-round-<n>.yaml)",
    "type": "object",
    "required": ["audit_id", "round", "resolutions"],
    "additionalProperties": False,
    "properties": {
        "audit_id": _KEY,
        "round": {"type": "integer", "minimum": 1},
        "instructions": {"type": "string"},
        "resolutions": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["item", "record", "field", "values", "resolved", "by"],
                "additionalProperties": False,
                "properties": {
                    "item": _ITEM,
                    "record": _RECORD,
                    "field": {"type": "string"},
                    "values": {"type": "object", "additionalProperties": _VALUE},
                    "resolved": _VALUE,
                    "by": {"type": ["string", "null"], "minLength": 1},
                    "date": {"anyOf": [_DATE, {"type": "null"}]},
                    "note": {"type": ["string", "null"]},
                    "authors": {"type": ["array", "null"], "items": _TEXT, "minItems": 1},
                    "year": {"type": ["integer", "null"]},
                    "venue": {"type": ["string", "null"], "minLength": 1},
                },
            },
        },
    },
}
