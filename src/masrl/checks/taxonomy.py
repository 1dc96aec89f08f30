"""Rules of ``corpus/taxonomy.yaml``: its schema and its cross-references.

Each function is one rule of :data:`masrl.checks.validate.RULES`: it takes the
:class:`~masrl.checks.collector.Checker` and adds a problem for each finding. The records are
checked only when no taxonomy rule found anything (a broken vocabulary would make every record
look wrong).
"""

from __future__ import annotations

import datetime
import re

from jsonschema import Draft202012Validator

from ..analyses.gap_plan import declaration_problems as gap_declaration_problems
from ..bib.identifiers import STORED_PATTERNS
from ..core.didyoumean import did_you_mean as _suggest
from ..corpus import schema as schemas
from ..corpus.load import TAXONOMY
from .derived_names import collisions


def schema(c) -> None:
    """The taxonomy against its JSON Schema (:data:`masrl.corpus.schema.TAXONOMY_SCHEMA`)."""
    c.schema_errors(TAXONOMY, c.corpus.taxonomy, Draft202012Validator(schemas.TAXONOMY_SCHEMA))


def reward_families(c) -> None:
    """Every reward type belongs to exactly one reward family, and families name real reward types."""
    tax = c.tax
    reward_codes = set(tax.values("reward_type"))
    seen: dict[str, str] = {}
    for fid, fam in tax.reward_families.items():
        for code in fam.get("codes") or []:
            path = ("reward_families", fid, "codes")
            if code not in reward_codes:
                c.add(TAXONOMY, path, f"reward type {code!r} is not a value of reward_type{_suggest(code, reward_codes)}")
            elif code in seen:
                c.add(TAXONOMY, path, f"reward type {code!r} is in two families ({seen[code]} and {fid})")
            seen[code] = fid
    for code in sorted(reward_codes - set(seen) - {"NA"}):
        c.add(TAXONOMY, ("fields", "reward_type", "values", code), f"reward type {code!r} belongs to no reward family")


def crosstabs(c) -> None:
    """A crosstab names two fields of the same kind of record."""
    tax = c.tax
    for i, (rows, cols) in enumerate(tax.crosstabs):
        for name in (rows, cols):
            if name not in tax.fields:
                c.add(TAXONOMY, ("crosstabs", i), f"crosstab names unknown field {name!r}{_suggest(name, tax.fields)}")
        if rows in tax.fields and cols in tax.fields and tax.fields[rows].applies_to != tax.fields[cols].applies_to:
            c.add(TAXONOMY, ("crosstabs", i), f"crosstab [{rows}, {cols}] mixes a field of {tax.fields[rows].applies_to} "
                                              f"records with one of {tax.fields[cols].applies_to} records")


def required_fields(c) -> None:
    """The fields masrl's tables and figures read exist, on the right records, single- or multi-valued."""
    tax = c.tax
    for name, applies_to, multi in schemas.REQUIRED_FIELDS:
        field = tax.fields.get(name)
        if field is None:
            c.add(TAXONOMY, ("fields",), f"the field {name!r} is missing; masrl's tables and figures need it")
        elif field.applies_to != applies_to or field.multi != multi:
            c.add(TAXONOMY, ("fields", name), f"must apply to {applies_to} records{' and hold a list (multi: true)' if multi else ''}")


def identifier_schemes(c) -> None:
    """Each identifier scheme is known to masrl or gives its pattern; patterns compile; resolvers
    are URLs with one ``{id}`` placeholder."""
    for name, scheme in c.tax.identifier_schemes.items():
        if name not in STORED_PATTERNS and "pattern" not in scheme:
            c.add(TAXONOMY, ("identifier_schemes", name), f"masrl does not know the scheme {name!r}: give its pattern (a regular expression of its ids)")
        try:
            re.compile(str(scheme.get("pattern", "")))
        except re.error as err:
            c.add(TAXONOMY, ("identifier_schemes", name, "pattern"), f"not a valid regular expression: {err}")
        resolver = scheme.get("resolver")
        if resolver is not None:
            try:
                ok = "{id}" in resolver and resolver.format(id="x")
            except (KeyError, IndexError, ValueError):
                ok = False
            if not ok:
                c.add(TAXONOMY, ("identifier_schemes", name, "resolver"), f"{resolver!r} must be a URL with the placeholder {{id}} and no other braces")


def gap_declarations(c) -> None:
    """The gap analysis declarations name real tables, rows and columns (:mod:`masrl.analyses.gap_plan`)."""
    for path, message in gap_declaration_problems(c.tax):
        c.add(TAXONOMY, path, message)


def derived_names(c) -> None:
    """Names derived from codes (LaTeX macros, table files) stay distinct (:mod:`masrl.checks.derived_names`)."""
    for path, message in collisions(c.tax):
        c.add(TAXONOMY, path, message)


def year_minimum(c) -> None:
    """The earliest allowed publication year is not in the future."""
    if c.tax.year_minimum > datetime.date.today().year:
        c.add(TAXONOMY, ("year_minimum",), f"{c.tax.year_minimum} is after this year; no record could be valid")


def conditions(c) -> None:
    """``required_when`` and ``na_iff`` name real fields and values; a value's implied inclusion
    criterion is a value of ``inclusion_criterion``."""
    tax = c.tax
    for field in tax.fields.values():
        for key in ("required_when", "na_iff"):
            for other, vals in (field.spec.get(key) or {}).items():
                if other not in tax.fields:
                    c.add(TAXONOMY, ("fields", field.name, key), f"names unknown field {other!r}")
                    continue
                for val in vals if isinstance(vals, list) else [vals]:
                    if val not in tax.values(other):
                        c.add(TAXONOMY, ("fields", field.name, key), f"{val!r} is not a value of {other}")
        for code in field.values:
            implied = field.value_spec(code).get("inclusion_criterion")
            if implied is not None and implied not in tax.values("inclusion_criterion"):
                c.add(TAXONOMY, ("fields", field.name, "values", code), f"inclusion_criterion {implied!r} is not a value of inclusion_criterion")


def editorial_keys(c, keys: set[str]) -> None:
    """Representatives and anchors named in the taxonomy are retained records."""
    tax = c.tax
    named: list[tuple[tuple, str]] = []
    for fid, fam in tax.reward_families.items():
        named += [(("reward_families", fid, "representatives"), k) for k in fam.get("representatives") or []]
    for field in tax.fields.values():
        for code in field.values:
            spec = field.value_spec(code)
            for role in ("representatives", "anchors"):
                named += [(("fields", field.name, "values", code, role), k) for k in spec.get(role) or []]
    for path, key in named:
        if key not in keys:
            c.add(TAXONOMY, path, f"names record {key!r}, which is not a retained record{_suggest(key, keys)}")
