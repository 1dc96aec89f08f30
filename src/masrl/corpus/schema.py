"""JSON Schemas (Draft 2020-12) of every input file, derived from the taxonomy.

The controlled fields' ``enum`` lists and the survey's free fields come from
``corpus/taxonomy.yaml``, so a new vocabulary value or field is a data change. masrl's
own fields of every record (title, year, identifiers, ...) are fixed here. ``masrl
build`` also writes these schemas to ``reports/schema/``.
"""

from __future__ import annotations


from ..bib.bibtex import BIBTEX_TYPES
from ..bib.identifiers import STORED_PATTERNS
from .records import UNTAGGED
from .taxonomy import Taxonomy
from .taxonomy_schema import TAXONOMY_SCHEMA, VALUE_KEYS  # noqa: F401  (re-exported: every schema of the inputs is here)
from ..core import clock

_TEXT = {"type": "string", "minLength": 1, "pattern": "\\S"}  # text: not empty, nor only blanks
_STR_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
#: ``tag_provenance``: one line of text per field, keyed by the field's name (a name as the taxonomy
#: writes field names, masrl.corpus.taxonomy_schema: never a space or a line break).
_PROVENANCE = {**_STR_MAP, "propertyNames": {"type": "string", "pattern": "^[A-Za-z0-9_]+$"}}
_KEY = {"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]*$"}
_DATE = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "format": "date"}



def _free(field) -> dict:
    """The schema of one free field of the taxonomy."""
    if field.type == "mapping":
        schema = field.spec.get("schema")
        return dict(schema) if isinstance(schema, dict) else {"type": "object"}
    if field.type == "list":
        return {"type": "array", "items": _TEXT}
    return dict(_TEXT) if field.type == "text" else {"type": "string"}


def _controlled(field, allow_untagged: bool = False) -> dict:
    codes = list(field.values) + ([UNTAGGED] if allow_untagged else [])
    item = {"type": "string", "enum": codes}
    if field.multi:
        return {"type": "array", "items": item, "uniqueItems": True}
    return item


def identifiers_schema(tax: Taxonomy) -> dict:
    """Schema of an ``identifiers`` mapping: one property per scheme, at least one.

    The stored form of a scheme masrl knows comes from :data:`masrl.bib.identifiers.STORED_PATTERNS`;
    a scheme the taxonomy adds gives its own ``pattern``.
    """
    props = {}
    for name, scheme in tax.identifier_schemes.items():
        one = {"type": "string", "pattern": STORED_PATTERNS.get(name) or str(scheme.get("pattern", ".+"))}
        props[name] = {"type": "array", "items": one, "minItems": 1, "uniqueItems": True} if scheme.get("list") else one
    return {"type": "object", "properties": props, "additionalProperties": False, "minProperties": 1}


def retained_schema(tax: Taxonomy, for_report: bool = False) -> dict:
    """Schema of one retained record (``corpus/papers/<key>.yaml``).

    The latest allowed year is next year (today's year + 1); the copy written
    to ``reports/schema/`` (``for_report``) states that in words instead, so
    that the generated file does not change on New Year's Day.
    """
    controlled = {f.name: _controlled(f, True) for f in tax.of("retained")}
    props = {
        "key": _KEY,
        "title": _TEXT,
        "authors": {"type": "array", "items": _TEXT, "minItems": 1},
        "first_author": _TEXT,
        "affiliation": _TEXT,
        "year": _year(tax, for_report),
        "venue": _TEXT,
        "url": {"type": "string", "pattern": r"^https?://\S+( ; https?://\S+)*$"},
        "identifiers": identifiers_schema(tax),
        **({} if tax.abstract_declared else {tax.abstract_field: _TEXT}),
        **controlled,
        **{f.name: _free(f) for f in tax.free_of("retained")},
        "one_liner": _TEXT,
        "notes": {"type": "string"},
        "date_added": _DATE,
        "tag_provenance": _PROVENANCE,
        "forced": _TEXT,
        "former_record_id": {"type": "string", "pattern": "^E[0-9]{3,}$"},
        "former_exclusion": {"type": "object"},
        "bibtex_key": {"type": "string", "pattern": r"^[A-Za-z0-9_:.+/-]+$"},
        "bibtex": {
            "type": "object",
            "properties": {"type": {"enum": list(BIBTEX_TYPES)}},
            "additionalProperties": {"type": "string"},
            # a BibTeX field name: a letter, then letters, digits, '_' or '-' (anything else is written
            # into papers.bib as it is and changes the entry: "note = {x}, author")
            "propertyNames": {"pattern": "^[A-Za-z][A-Za-z0-9_-]*$"},
            "required": ["type"],
        },
        "bibtex_differs": {
            "type": "object",
            "description": "why the record's title, year or venue deliberately differs from its bibtex block",
            "properties": {"title": _TEXT, "year": _TEXT, "venue": _TEXT},
            "additionalProperties": False,
            "minProperties": 1,
        },
        "provenance": _STR_MAP,
    }
    always = [f.name for f in tax.of("retained") if f.always] + [f.name for f in tax.free_of("retained") if f.required]
    required = ["key", "title", "authors", "first_author", "affiliation", "year", "venue", "url",
                "identifiers", *always, "one_liner", "notes", "date_added", "bibtex_key", "bibtex", "provenance"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "masrl retained record (corpus/papers/<key>.yaml)",
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def _year(tax: Taxonomy, for_report: bool) -> dict:
    """A record's year: from the taxonomy's ``year_minimum`` to next year (today's year + 1); the
    copy written to ``reports/schema/`` (``for_report``) states the maximum in words, so that the
    generated file does not change on New Year's Day."""
    if for_report:
        return {"type": "integer", "minimum": tax.year_minimum,
                "description": "publication year, from year_minimum of the taxonomy to next year"}
    return {"type": "integer", "minimum": tax.year_minimum, "maximum": clock.today().year + 1}


def excluded_schema(tax: Taxonomy, for_report: bool = False) -> dict:
    """Schema of one excluded record (``exclusions/<record_id>.yaml``); ``for_report`` as for
    :func:`retained_schema`."""
    controlled = {f.name: _controlled(f) for f in tax.of("excluded")}
    if_retained = {f.name: _controlled(f) for f in tax.of("retained")}
    props = {
        "record_id": {"type": "string", "pattern": "^E[0-9]{3,}$"},
        "screening_label": _TEXT,
        "authors": {"type": "array", "items": _TEXT, "minItems": 1},
        "year": _year(tax, for_report),
        "identifiers": identifiers_schema(tax),
        "url": {"type": "string", "pattern": r"^https?://\S+$"},
        **controlled,
        **{f.name: _free(f) for f in tax.free_of("excluded")},
        "date_screened": _DATE,
        "date_added": _DATE,
        "exclusion_reason": _TEXT,
        "if_retained": {"type": "object", "properties": if_retained, "additionalProperties": False},
        "former_key": _KEY,
        "former_record": {"type": "object"},
        "former_file": {"type": "string"},
        "forced": _TEXT,
        "tag_provenance": _PROVENANCE,
        "provenance": _STR_MAP,
    }
    always = [f.name for f in tax.of("excluded") if f.always] + [f.name for f in tax.free_of("excluded") if f.required]
    required = ["record_id", "screening_label", "identifiers", "url", *always, "date_screened", "date_added",
                "exclusion_reason", "provenance"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "masrl excluded record (exclusions/<record_id>.yaml)",
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


_FILTER = {"type": "object", "minProperties": 1}

CLAIMS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl claim ledger (corpus/claims.yaml)",
    "type": "object",
    "required": ["claims"],
    "properties": {
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "statement", "evidence_boundary", "source", "status", "checks"],
                "additionalProperties": False,
                "properties": {
                    "id": _KEY,
                    "statement": _TEXT,
                    "evidence_boundary": _TEXT,
                    "source": _TEXT,
                    "status": {"enum": ["current", "superseded"]},
                    "scope": {"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]*$"},
                    "superseded_by": _KEY,
                    "checks": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["label"],
                            "properties": {
                                "id": {"type": "string", "pattern": "^[a-z0-9_]+$"},
                                "label": _TEXT,
                                "macro": {"type": "string", "pattern": "^[A-Za-z]+$"},
                                "population": {"enum": ["retained", "retained_with_near_misses", "near_misses", "excluded"]},
                                "where": _FILTER,
                                "of": {"type": "object"},
                                "max_percent": {"type": "integer", "minimum": 0, "maximum": 100},
                                "trace_valid": _TEXT,
                                "count": {"type": "integer", "minimum": 0},
                                "min_count": {"type": "integer", "minimum": 0},
                                "max_count": {"type": "integer", "minimum": 0},
                                "keys": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                            },
                            "oneOf": [
                                {"required": ["trace_valid"], "not": {"anyOf": [{"required": ["where"]}, {"required": ["count"]}, {"required": ["min_count"]}, {"required": ["max_count"]}, {"required": ["keys"]}, {"required": ["max_percent"]}]}},
                                {"anyOf": [{"required": ["count"]}, {"required": ["min_count"]}, {"required": ["max_count"]}, {"required": ["keys"]}, {"required": ["max_percent"]}], "not": {"required": ["trace_valid"]}},
                            ],
                        },
                    },
                },
            },
        }
    },
    "additionalProperties": False,
}

def audit_schema(tax: Taxonomy) -> dict:
    """Schema of a single-file second-reader audit (``corpus/audits/*.yaml``); the extra columns
    of its rows are the taxonomy's ``audit.row_fields`` (each with its own schema)."""
    extra = tax.declared("audit").get("row_fields")
    extra = {str(k): v for k, v in extra.items() if isinstance(v, dict)} if isinstance(extra, dict) else {}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "masrl second-reader audit (corpus/audits/*.yaml)",
        "type": "object",
        "required": ["audit_id", "kind", "date", "fields", "rows", "provenance"],
        "additionalProperties": False,
        "properties": {
            "audit_id": _KEY,
            "kind": {"enum": ["second_reader"]},
            "date": _DATE,
            "description": _TEXT,
            "fields": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": True},
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["key", "original", "second_reader"],
                    "additionalProperties": False,
                    "properties": {
                        "key": _KEY,
                        "original": _STR_MAP,
                        "second_reader": _STR_MAP,
                        **extra,
                        "agreement_note": {"type": "string"},
                        "annotator_note": {"type": "string"},
                    },
                },
            },
            "provenance": _STR_MAP,
        },
    }


RELEASES_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl releases (corpus/releases.yaml)",
    "type": "object",
    "required": ["format_version", "releases"],
    "additionalProperties": False,
    "properties": {
        "format_version": {"const": 1},
        "releases": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "date", "search_cutoff", "title"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]*$"},
                    "date": _DATE,
                    "search_cutoff": _DATE,
                    "title": _TEXT,
                    "source": _TEXT,
                    "content_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                    "notes": {"type": "array", "items": _TEXT},
                    "claims": {"type": "object", "propertyNames": _KEY,
                               "additionalProperties": {"type": "string", "pattern": "^[0-9a-f]{64}$"}},
                },
            },
        },
        "errata": {"type": "array"},  # each item: ERRATA_SCHEMA (checked by its own rule)
    },
}

ERRATA_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl errata of frozen releases (corpus/releases.yaml, errata)",
    "type": "array",
    "items": {
        "type": "object",
        "required": ["release", "date", "reason", "corrections"],
        "additionalProperties": False,
        "properties": {
            "release": {"type": "string"},
            "date": _DATE,
            "reason": _TEXT,
            "corrections": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "required": ["field", "key", "was", "now"],
                "additionalProperties": False,
                "properties": {
                    "field": _TEXT, "value": _TEXT, "key": {"enum": ["label", "definition"]},
                    "was": {"type": "string"}, "now": _TEXT,
                    "drop": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": True},
                },
            }},
        },
    },
}

SNAPSHOT_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl frozen release snapshot (corpus/releases/<name>.yaml)",
    "type": "object",
    "required": ["format_version", "release", "date", "taxonomy", "retained", "excluded"],
    "additionalProperties": False,
    "properties": {
        "format_version": {"const": 1},
        "release": {"type": "string"},
        "date": _DATE,
        "search_cutoff": _DATE,
        "taxonomy": {"type": "object"},
        "retained": {"type": "object", "additionalProperties": {"type": "object"}},
        "excluded": {"type": "object", "additionalProperties": {"type": "object"}},
        "identification": {"type": "object"},
    },
}
