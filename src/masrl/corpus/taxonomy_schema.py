"""JSON Schema (Draft 2020-12) of ``corpus/taxonomy.yaml``, format 2.

The schema checks the shape of every declaration; what a declaration names (a field, a value,
a column, a figure kind) is checked by the rules of :mod:`masrl.checks.taxonomy` and
:mod:`masrl.checks.declarations`. ``masrl build`` also writes it to
``reports/schema/taxonomy.schema.json``.
"""

from __future__ import annotations

from .declarations import TABLE_KINDS
from .migrate import FORMAT

_TEXT = {"type": "string", "minLength": 1}
_KEY = {"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]*$"}
_NAME = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_]*$"}
_STEM = {"type": "string", "pattern": "^[a-z0-9][a-z0-9_.-]*$"}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_WHERE = {"type": "object"}
#: A decimal number, written as YAML reads it (masrl's YAML has no floats: ``2.6`` is a string).
_DECIMAL = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?$"}]}

_VALUE = {
    "type": "object",
    "properties": {"label": _TEXT, "definition": _TEXT, "source": _TEXT,
                   "representatives": {"type": "array", "items": _KEY},
                   "anchors": {"type": "array", "items": _KEY},
                   "implies": {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}},
    "required": ["label", "definition", "source"],
}

#: The keys every value of a controlled field may have; a field adds its own editorial
#: attributes in ``value_attributes`` (``masrl.checks.taxonomy.value_keys`` refuses others).
VALUE_KEYS = tuple(_VALUE["properties"])

_FIELD = {
    "type": "object",
    "properties": {
        "applies_to": {"enum": ["retained", "excluded"]},
        "multi": {"type": "boolean"},
        "required": {"type": "boolean"},
        "show_code": {"type": "boolean"},
        "suggest": {"type": "boolean"},
        "label": _TEXT, "definition": _TEXT, "source": _TEXT,
        "value_attributes": {"type": "array", "items": _NAME, "uniqueItems": True},
        "required_when": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "na_iff": {"type": "object", "additionalProperties": {"type": "string"}},
        "values": {"type": "object", "minProperties": 1, "additionalProperties": _VALUE},
    },
    "required": ["applies_to", "label", "definition", "source", "values"],
    "additionalProperties": False,
}

_FREE_FIELD = {
    "type": "object",
    "properties": {
        "applies_to": {"enum": ["retained", "excluded"]},
        "type": {"enum": ["text", "multiline", "list", "mapping"]},
        "required": {"type": "boolean"},
        "label": _TEXT, "definition": _TEXT, "source": _TEXT,
        "schema": {"type": "object"},
        "text": _STRINGS,
    },
    "required": ["applies_to", "type", "label", "definition"],
    "additionalProperties": False,
}

_COLUMN = {
    "type": "object",
    "properties": {
        "name": _TEXT, "attr": _TEXT, "count": _WHERE, "keys": _WHERE, "distinct": _TEXT, "split": _TEXT,
        "all_of": _TEXT, "field": _TEXT, "records": {"type": "boolean"}, "missing": {"enum": ["code", "empty"]},
        "type": {"enum": ["integer", "text"]},
        "flag": {"type": "array", "minItems": 1, "items": {
            "type": "object", "properties": {"zero": _WHERE, "text": _TEXT}, "required": ["zero", "text"],
            "additionalProperties": False}},
    },
    "additionalProperties": False,
}

_SITE_TABLE = {
    "type": "object",
    "properties": {
        "id": _STEM, "toc": _TEXT, "heading": _TEXT, "intro": _TEXT, "caption": _TEXT,
        "row_header": {"type": "object", "properties": {"header": _TEXT, "column": _TEXT, "link": {"type": "boolean"}},
                       "required": ["header"], "additionalProperties": False},
        "columns": {"type": "array", "items": {
            "type": "object",
            "properties": {"column": _TEXT, "split": _TEXT, "header": _TEXT, "show": {"enum": ["labels", "text"]},
                           "zero": {"enum": ["gap", "structural"]}, "newline": {"type": "boolean"}},
            "additionalProperties": False}},
    },
    "required": ["id", "toc", "heading", "caption", "row_header", "columns"],
    "additionalProperties": False,
}

_TABLE_BODY = {
    "kind": {"enum": list(TABLE_KINDS)},
    "title": _TEXT, "field": _TEXT, "by": _TEXT, "where": _WHERE, "skip": _STRINGS, "index": _TEXT,
    "columns": {"type": "array", "items": _COLUMN},
    "source": {"type": "string"}, "note": {"type": "string"}, "skipped_note": _TEXT,
    "families": {"type": "object", "additionalProperties": {
        "type": "object", "properties": {"name": _TEXT, "codes": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                                         "representatives": {"type": "array", "items": _KEY}},
        "required": ["name", "codes"]}},
    "require": _TEXT,
    "site": _SITE_TABLE,
}

_TABLE = {"type": "object", "properties": {"name": _STEM, **_TABLE_BODY}, "required": ["name", "kind", "title"],
          "additionalProperties": False}

_SECTION = {
    "type": "object",
    "properties": {
        "kind": {"enum": ["table", "coverage"]}, "json": _NAME, "title": _TEXT, "intro": _TEXT,
        "table": {"type": "object", "properties": _TABLE_BODY, "required": ["kind"], "additionalProperties": False},
        "where": _WHERE, "field": _TEXT, "lead": _TEXT, "columns": {"type": "array", "items": _TEXT, "minItems": 2, "maxItems": 2},
        "empty": _TEXT,
    },
    "required": ["kind", "json", "title"],
    "additionalProperties": False,
}

_FIGURE = {
    "type": "object",
    "properties": {
        "name": _STEM, "kind": _TEXT, "table": _TEXT, "caption": _TEXT, "title": _TEXT, "empty_title": _TEXT,
        "notes": {"type": "array", "items": _TEXT},
        "labels": _TEXT, "values": _TEXT, "groups": _TEXT, "series": {"type": "array", "items": _TEXT, "minItems": 1, "maxItems": 2},
        "height": _DECIMAL, "bar_height": _DECIMAL,
        "xlabel": {"type": "string"}, "ylabel": {"type": "string"}, "legend_title": {"type": "string"},
        "item": _TEXT, "name_column": _TEXT, "count_column": _TEXT, "split": _TEXT, "flag_column": _TEXT,
        "anchors_column": _TEXT, "gap_legend": _TEXT,
    },
    "required": ["name", "kind", "table", "caption"],
    "additionalProperties": False,
}

TAXONOMY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl taxonomy: controlled vocabulary and the survey's declarations (corpus/taxonomy.yaml)",
    "type": "object",
    "required": ["format_version", "fields", "identifier_schemes"],
    "additionalProperties": False,
    "properties": {
        "format_version": {"const": FORMAT},
        "survey": {"type": "object", "additionalProperties": {
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}},
        "sparse_threshold": {"type": "integer", "minimum": 0},
        "gap_analysis": {
            "type": "object",
            "properties": {
                "skip_fields": {"type": "array", "items": {"type": "string"}},
                "skip_values": {"type": "array", "items": {"type": "string"}},
                "named": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"id": _TEXT, "title": _TEXT, "claim": _TEXT, "source": _TEXT,
                                   "selections": {"type": "array", "minItems": 1, "items": {
                                       "type": "object", "properties": {"label": _TEXT, "where": {"type": "object"}},
                                       "required": ["label", "where"], "additionalProperties": False}}},
                    "required": ["id", "title", "source", "selections"], "additionalProperties": False}},
                "combine": {"type": "object", "additionalProperties": _TEXT},
                "left_out": {"type": "object", "additionalProperties": _TEXT},
                "sections": {"type": "array", "items": _SECTION},
            },
            "additionalProperties": False,
        },
        "year_minimum": {"type": "integer", "minimum": 1000},
        "identifier_schemes": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"label": _TEXT, "definition": _TEXT, "pattern": _TEXT, "resolver": _TEXT, "list": {"type": "boolean"}},
                "required": ["label", "definition"],
                "additionalProperties": False,
            },
        },
        "fields": {"type": "object", "minProperties": 1, "propertyNames": _NAME, "additionalProperties": _FIELD},
        "not_applicable": {"type": "string", "minLength": 1},
        "free_fields": {"type": "object", "propertyNames": _NAME, "additionalProperties": _FREE_FIELD},
        "record_order": {"type": "object", "properties": {"retained": _STRINGS, "excluded": _STRINGS},
                         "additionalProperties": False},
        "crosstabs": {"type": "array", "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}},
        "tables": {"type": "array", "items": _TABLE},
        "figures": {"type": "array", "items": _FIGURE},
        "screening": {"type": "object", "properties": {"stages": _TEXT, "reasons": _TEXT, "included_by": _TEXT, "inclusion": _TEXT,
                                                        "found_in": _TEXT, "found_by": _TEXT, "abstract": _TEXT},
                      "additionalProperties": False},
        "readme": {"type": "object", "properties": {
            "group_by": _TEXT, "group_noun": {"type": "array", "items": _TEXT, "minItems": 2, "maxItems": 2},
            "tags_legend": _TEXT,
            "tags": {"type": "array", "items": {"type": "object", "properties": {"field": _TEXT, "prefix": _TEXT},
                                                "required": ["field"], "additionalProperties": False}}},
            "additionalProperties": False},
        "site": {"type": "object", "properties": {
            "columns": {"type": "array", "items": _TEXT, "uniqueItems": True},
            "exclusion_columns": {"type": "array", "items": {"type": "object", "properties": {"field": _TEXT, "header": _TEXT},
                                                             "required": ["field", "header"], "additionalProperties": False}}},
            "additionalProperties": False},
        "audit": {"type": "object", "properties": {
            "default_fields": {"type": "array", "items": _TEXT, "minItems": 1, "uniqueItems": True},
            "row_fields": {"type": "object", "propertyNames": _NAME, "additionalProperties": {"type": "object"}}},
            "additionalProperties": False},
        "traces": {"type": "boolean"},
        "sentences": {"type": "object", "additionalProperties": _TEXT},
    },
}
