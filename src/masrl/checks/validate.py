"""Records + taxonomy -> every problem at once. Never raises for user data, never writes.

Checks, in order (all problems of a run are collected):

1. reading: UTF-8, YAML syntax, duplicate keys, anchors/aliases, one mapping per file
   (found by :mod:`masrl.corpus.load`);
2. the taxonomy against its own schema, and its cross-references (reward
   families cover every reward type once; named representatives and anchors
   exist as retained records; crosstabs name real fields);
3. each record against the JSON Schema derived from the taxonomy (required
   fields, types, allowed values, identifier formats, year range);
4. rules across fields of one record: file name = key; ``untagged``
   placeholders; ``credit_mechanism`` is NA iff ``credit_granularity`` is NA;
   benchmark-only fields; the inclusion criterion a category implies;
5. rules across records: keys and BibTeX keys unique; every canonical
   identifier used by one record only and no two near-identical titles, across
   retained AND excluded records; a record agrees with its ``bibtex`` block
   (:mod:`masrl.checks.pool`); sub-decision anchors tagged with their sub-decision;
6. the claim ledger and the audits: their schema, and every field, value and
   key they name exists (audit folders: :mod:`masrl.checks.audits`);
7. the search protocol and the update rounds (:mod:`masrl.checks.protocol`).
"""

from __future__ import annotations

import datetime
import re
from typing import Any, Iterable

from jsonschema import Draft202012Validator, FormatChecker

from ..analyses.gap_plan import declaration_problems as gap_declaration_problems
from ..bib.identifiers import STORED_PATTERNS, IdentifierError, from_url, stored_hint
from ..bib.urls import url_problem
from ..core.didyoumean import did_you_mean as _suggest
from ..core.errors import Problem, sort_key
from ..core.placeholders import author_problem, placeholder_problem
from ..corpus import schema as schemas
from ..corpus.load import EXCLUSIONS, PAPERS, TAXONOMY, Corpus
from ..corpus.population import POOL
from ..corpus.records import UNTAGGED
from ..corpus.releases import RELEASES, releases_from
from ..corpus.taxonomy import Taxonomy
from ..trace.examples import load_examples
from . import pool as pool_checks
from .audits import check_audit_folders
from .claims import Scope, check_claims
from .derived_names import collisions
from .protocol import check_protocol, check_rounds
from .releases import check_releases

_JSON_TYPES = {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "a list", dict: "a mapping", type(None): "empty"}
_EXPECTED = {"string": "a string", "integer": "an integer", "number": "a number", "array": "a list", "object": "a mapping", "boolean": "true or false"}


def _dotted(path: Iterable[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _non_ascii(value: str) -> str:
    odd = [ch for ch in value if ord(ch) > 127]
    if not odd:
        return ""
    return " (it contains " + ", ".join(f"'{ch}' U+{ord(ch):04X}" for ch in dict.fromkeys(odd)) + ", which looks like ASCII but is not)"


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "nothing (an empty value)"
    kind = _JSON_TYPES.get(type(value), type(value).__name__).split(" ", 1)[-1]
    return f"the {kind} {value!r}"


class _Checker:
    """Collects problems for one corpus; one method per group of checks."""

    def __init__(self, corpus: Corpus):
        self.corpus = corpus
        self.problems: list[Problem] = list(corpus.problems)
        self.tax = Taxonomy(corpus.taxonomy)

    @staticmethod
    def suggest(value: Any, allowed: Iterable[str]) -> str:
        """`` (did you mean 'x'?)`` for the closest allowed value, or ''."""
        return _suggest(value, allowed)

    def add(self, file: str, path: tuple, message: str, field: str | None = None) -> None:
        self.problems.append(Problem(file, self.corpus.line(file, path), field if field is not None else (_dotted(path) or None), message))

    # ---------------------------------------------------------------- schema errors
    def schema_errors(self, file: str, value: Any, validator: Draft202012Validator, base: tuple = ()) -> None:
        errors = sorted(validator.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
        enum_paths = {tuple(e.absolute_path) for e in errors if e.validator == "enum"}
        pattern_paths = {tuple(e.absolute_path) for e in errors if e.validator == "pattern"}
        for err in errors:
            path = base + tuple(err.absolute_path)
            if err.validator == "type" and tuple(err.absolute_path) in enum_paths:
                continue  # the enum message says it better
            if err.validator == "format" and tuple(err.absolute_path) in pattern_paths:
                continue  # one message per bad date
            self.explain(file, path, err)

    def explain(self, file: str, path: tuple, err) -> None:
        kind, value = err.validator, err.instance
        field = path[-1] if path else None
        if kind == "enum":
            allowed = [str(a) for a in err.validator_value if a != UNTAGGED]
            if isinstance(value, str):
                self.add(file, path, f"{value!r} is not in the vocabulary; allowed: {', '.join(allowed)}{_suggest(value, allowed)}{_non_ascii(value)}")
            else:
                hint = " (YAML read it as a boolean: quote it, e.g. \"yes\")" if isinstance(value, bool) else ""
                self.add(file, path, f"{_describe(value)} is not in the vocabulary; allowed: {', '.join(allowed)}{hint}")
        elif kind == "required":
            missing = err.message.split("'")[1] if "'" in err.message else err.message
            self.add(file, path + (missing,), "required field is missing")
        elif kind == "additionalProperties":
            allowed = list((err.schema.get("properties") or {}).keys())
            extras = [k for k in value if k not in allowed] if isinstance(value, dict) else []
            what = "identifier scheme" if path and path[-1] == "identifiers" else "field"
            for extra in extras:
                hint = _suggest(extra, allowed) or f"; allowed: {', '.join(allowed)}"
                self.add(file, path + (extra,), f"unknown {what} '{extra}'{hint}")
        elif kind == "type":
            expected = err.validator_value
            names = " or ".join(_EXPECTED.get(t, t) for t in (expected if isinstance(expected, list) else [expected]))
            hint = " (write it without quotes)" if expected == "integer" and isinstance(value, str) and value.strip().isdigit() else ""
            self.add(file, path, f"expected {names}, got {_describe(value)}{hint}")
        elif kind == "pattern":
            self.add(file, path, self.pattern_message(path, value))
        elif kind in ("minimum", "maximum"):
            sch = err.schema
            self.add(file, path, f"{value} is out of range; allowed: {sch.get('minimum', '-inf')} to {sch.get('maximum', 'inf')}")
        elif kind in ("maxItems", "minItems") and "crosstabs" in path:
            self.add(file, path, "a crosstab names exactly two fields: [rows, columns]")
        elif kind in ("minItems", "minLength"):
            self.add(file, path, "must not be empty")
        elif kind == "minProperties":
            schemes = ", ".join(self.tax.identifier_schemes)
            self.add(file, path, f"needs at least one identifier ({schemes})" if field == "identifiers" else "must not be empty")
        elif kind == "uniqueItems":
            self.add(file, path, f"lists a value twice: {value!r}")
        elif kind == "format":
            self.add(file, path, f"{value!r} is not a real date (YYYY-MM-DD)")
        elif kind == "oneOf" and isinstance(value, dict) and "label" in value:
            self.add(file, path, "a check either names a trace (trace_valid) or selects records (where with count, "
                                 "min_count, max_count or keys), not both and not neither")

        else:
            self.add(file, path, err.message)

    def pattern_message(self, path: tuple, value: Any) -> str:
        schemes = self.tax.identifier_schemes
        scheme = next((p for p in reversed(path) if isinstance(p, str)), "")
        if len(path) >= 2 and "identifiers" in path and scheme in schemes:
            spec = schemes[scheme]
            hint = stored_hint(scheme, value) if isinstance(value, str) else None
            return (f"{value!r} is not a valid {spec.get('label', scheme)}: expected {spec.get('definition')}"
                    + (f"; write it as {hint}" if hint else ""))
        if scheme in ("key", "former_key"):
            return f"{value!r} is not a valid key: use lower-case letters, digits, '.', '_' and '-'"
        if scheme == "record_id":
            return f"{value!r} is not a valid record id: use E followed by at least three digits (E033)"
        if scheme == "url":
            return f"{value!r} is not an http(s) URL (several URLs are separated by ' ; ')"
        if scheme in ("date_screened", "date"):
            return f"{value!r} is not a date written YYYY-MM-DD"
        return f"{value!r} does not have the required form"

    # ---------------------------------------------------------------- taxonomy
    def taxonomy(self) -> bool:
        if TAXONOMY not in self.corpus.docs:
            return False
        before = len(self.problems)
        self.schema_errors(TAXONOMY, self.corpus.taxonomy, Draft202012Validator(schemas.TAXONOMY_SCHEMA))
        tax = self.tax
        reward_codes = set(tax.values("reward_type"))
        seen: dict[str, str] = {}
        for fid, fam in tax.reward_families.items():
            for code in fam.get("codes") or []:
                path = ("reward_families", fid, "codes")
                if code not in reward_codes:
                    self.add(TAXONOMY, path, f"reward type {code!r} is not a value of reward_type{_suggest(code, reward_codes)}")
                elif code in seen:
                    self.add(TAXONOMY, path, f"reward type {code!r} is in two families ({seen[code]} and {fid})")
                seen[code] = fid
        for code in sorted(reward_codes - set(seen) - {"NA"}):
            self.add(TAXONOMY, ("fields", "reward_type", "values", code), f"reward type {code!r} belongs to no reward family")
        for i, (rows, cols) in enumerate(tax.crosstabs):
            for name in (rows, cols):
                if name not in tax.fields:
                    self.add(TAXONOMY, ("crosstabs", i), f"crosstab names unknown field {name!r}{_suggest(name, tax.fields)}")
            if rows in tax.fields and cols in tax.fields and tax.fields[rows].applies_to != tax.fields[cols].applies_to:
                self.add(TAXONOMY, ("crosstabs", i), f"crosstab [{rows}, {cols}] mixes a field of {tax.fields[rows].applies_to} "
                                                     f"records with one of {tax.fields[cols].applies_to} records")
        for name, applies_to, multi in schemas.REQUIRED_FIELDS:
            field = tax.fields.get(name)
            if field is None:
                self.add(TAXONOMY, ("fields",), f"the field {name!r} is missing; masrl's tables and figures need it")
            elif field.applies_to != applies_to or field.multi != multi:
                self.add(TAXONOMY, ("fields", name), f"must apply to {applies_to} records{' and hold a list (multi: true)' if multi else ''}")
        for name, scheme in tax.identifier_schemes.items():
            if name not in STORED_PATTERNS and "pattern" not in scheme:
                self.add(TAXONOMY, ("identifier_schemes", name), f"masrl does not know the scheme {name!r}: give its pattern (a regular expression of its ids)")
            try:
                re.compile(str(scheme.get("pattern", "")))
            except re.error as err:
                self.add(TAXONOMY, ("identifier_schemes", name, "pattern"), f"not a valid regular expression: {err}")
            resolver = scheme.get("resolver")
            if resolver is not None:
                try:
                    ok = "{id}" in resolver and resolver.format(id="x")
                except (KeyError, IndexError, ValueError):
                    ok = False
                if not ok:
                    self.add(TAXONOMY, ("identifier_schemes", name, "resolver"), f"{resolver!r} must be a URL with the placeholder {{id}} and no other braces")
        for path, message in [*gap_declaration_problems(tax), *collisions(tax)]:
            self.add(TAXONOMY, path, message)
        if tax.year_minimum > datetime.date.today().year:
            self.add(TAXONOMY, ("year_minimum",), f"{tax.year_minimum} is after this year; no record could be valid")
        for field in tax.fields.values():
            for key in ("required_when", "na_iff"):
                for other, vals in (field.spec.get(key) or {}).items():
                    if other not in tax.fields:
                        self.add(TAXONOMY, ("fields", field.name, key), f"names unknown field {other!r}")
                        continue
                    for val in vals if isinstance(vals, list) else [vals]:
                        if val not in tax.values(other):
                            self.add(TAXONOMY, ("fields", field.name, key), f"{val!r} is not a value of {other}")
            for code in field.values:
                implied = field.value_spec(code).get("inclusion_criterion")
                if implied is not None and implied not in tax.values("inclusion_criterion"):
                    self.add(TAXONOMY, ("fields", field.name, "values", code), f"inclusion_criterion {implied!r} is not a value of inclusion_criterion")
        return len(self.problems) == before

    def editorial_keys(self, keys: set[str]) -> None:
        """Representatives and anchors named in the taxonomy must be retained records."""
        tax = self.tax
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
                self.add(TAXONOMY, path, f"names record {key!r}, which is not a retained record{_suggest(key, keys)}")

    # ---------------------------------------------------------------- records
    def records(self) -> None:
        retained_v = Draft202012Validator(schemas.retained_schema(self.tax), format_checker=FormatChecker())
        excluded_v = Draft202012Validator(schemas.excluded_schema(self.tax), format_checker=FormatChecker())
        for file, rec in self.corpus.retained.items():
            self.schema_errors(file, rec, retained_v)
            self.text(file, rec, ())
            self.placeholders(file, rec, ("title",))
            self.braces(file, rec)
            self.file_name(file, rec, "key", PAPERS)
            self.untagged(file, rec)
            self.cross_fields(file, rec, ())
            self.urls(file, rec)
        for file, rec in self.corpus.excluded.items():
            self.schema_errors(file, rec, excluded_v)
            self.text(file, rec, ())
            self.placeholders(file, rec, ("screening_label", "exclusion_reason"))
            self.date_range(file, rec)
            self.file_name(file, rec, "record_id", EXCLUSIONS)
            self.urls(file, rec)
            if isinstance(rec.get("if_retained"), dict):
                self.cross_fields(file, rec["if_retained"], ("if_retained",), partial=True)

    _MULTILINE = {"notes", "note", "one_liner", "exclusion_reason", "former_file"}

    def placeholders(self, file: str, rec: dict, fields: tuple[str, ...]) -> None:
        """Titles, reasons and authors hold real text, not a placeholder copied from an example
        (``TODO``, ``...``, ``Last, First``) or a name without a last name."""
        for name in fields:
            value = rec.get(name)
            if isinstance(value, str) and (why := placeholder_problem(value)):
                self.add(file, (name,), f"{why}; write the real text")
        authors = rec.get("authors")
        for i, author in enumerate(authors if isinstance(authors, list) else []):
            if isinstance(author, str) and author != "others" and (why := author_problem(author)):
                self.add(file, ("authors", i), f"{why}; write the real author")

    def text(self, file: str, value: Any, path: tuple) -> None:
        """Single-line fields hold no line breaks or control characters (a trailing newline
        would leak into links, BibTeX keys and tables)."""
        if isinstance(value, dict):
            for k, v in value.items():
                self.text(file, v, path + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                self.text(file, v, path + (i,))
        elif isinstance(value, str) and not (set(path) & self._MULTILINE):
            bad = [ch for ch in value if ord(ch) < 32 or ch in "\x7f\u2028\u2029\x85"]
            if bad:
                self.add(file, path, f"{value!r} contains a line break or control character ({', '.join(f'U+{ord(c):04X}' for c in dict.fromkeys(bad))}); write it on one line")

    def braces(self, file: str, rec: dict) -> None:
        """BibTeX values must have balanced braces, or reports/papers.bib would not parse."""
        bib = rec.get("bibtex")
        for name, value in (bib.items() if isinstance(bib, dict) else []):
            if isinstance(value, str):
                depth = 0
                for i, ch in enumerate(value):
                    if ch == "{" and (i == 0 or value[i - 1] != "\\"):
                        depth += 1
                    elif ch == "}" and (i == 0 or value[i - 1] != "\\"):
                        depth -= 1
                    if depth < 0:
                        break
                if depth != 0:
                    self.add(file, ("bibtex", name), f"unbalanced braces in {value!r}; every {{ needs its }} (write \\{{ for a literal brace)")

    def date_range(self, file: str, rec: dict) -> None:
        value = rec.get("date_screened")
        if isinstance(value, str) and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
            year, latest = int(value[:4]), datetime.date.today().year + 1
            if not self.tax.year_minimum <= year <= latest:
                self.add(file, ("date_screened",), f"{value!r} is out of range; allowed: years {self.tax.year_minimum} to {latest}")

    def file_name(self, file: str, rec: dict, id_field: str, folder: str) -> None:
        stem = file[len(folder):].rsplit(".", 1)[0]
        value = rec.get(id_field)
        valid = re.fullmatch(r"[a-z0-9][a-z0-9._-]*" if id_field == "key" else r"E[0-9]{3,}", value) if isinstance(value, str) else None
        if valid and value != stem:
            self.add(file, (id_field,), f"{value!r} does not match the file name '{file[len(folder):]}'; rename the file to '{value}.yaml' or fix the {id_field}")

    def untagged(self, file: str, rec: dict) -> None:
        for field in self.tax.of("retained"):
            value = rec.get(field.name)
            if value == UNTAGGED or (isinstance(value, list) and UNTAGGED in value):
                self.add(file, (field.name,), f"untagged: tag it with {'a list (possibly empty) of' if field.multi else 'one of'} {', '.join(field.values)}")
        if rec.get("one_liner") == UNTAGGED:
            self.add(file, ("one_liner",), "untagged: write a one-line summary of the paper")

    def cross_fields(self, file: str, rec: dict, base: tuple, partial: bool = False) -> None:
        tax = self.tax
        for field in tax.of("retained"):
            name = field.name
            for other, na_value in (field.spec.get("na_iff") or {}).items():
                if name not in rec or other not in rec or UNTAGGED in (rec[name], rec[other]):
                    continue
                if (rec[name] == "NA") != (rec[other] == na_value):
                    if rec[name] == "NA":
                        allowed = ", ".join(v for v in field.values if v != "NA")
                        self.add(file, base + (name,), f"'NA' but {other} is {rec[other]!r}; use one of {allowed}")
                    else:
                        self.add(file, base + (name,), f"{rec[name]!r} but {other} is {na_value!r}; use 'NA'")
            cond = field.required_when
            if cond:
                applies = all(rec.get(f) in vals for f, vals in cond.items())
                what = " and ".join(f"{f} {', '.join(map(repr, vals))}" for f, vals in cond.items())
                if applies and name not in rec and not partial:
                    self.add(file, base, f"required field is missing (required for {what})", field=_dotted(base + (name,)))
                elif not applies and name in rec and all(f in rec for f in cond):
                    self.add(file, base + (name,), f"only records with {what} have this field; remove it")
        category = rec.get("category")
        implied = tax.fields["category"].value_spec(category).get("inclusion_criterion") if "category" in tax.fields and isinstance(category, str) else None
        chosen = rec.get("inclusion_criterion")
        if implied and chosen not in (None, UNTAGGED, implied):
            self.add(file, base + ("inclusion_criterion",), f"{chosen!r} contradicts category {category!r}, which implies {implied!r}")

    def urls(self, file: str, rec: dict) -> None:
        urls = (rec.get("identifiers") or {}).get("url") if isinstance(rec.get("identifiers"), dict) else None
        links = rec.get("url").split(" ; ") if isinstance(rec.get("url"), str) else []
        for path, url in [(("url",), u) for u in links] + [(("identifiers", "url", i), u) for i, u in
                                                           enumerate(urls if isinstance(urls, list) else [])]:
            why = url_problem(url) if isinstance(url, str) and re.fullmatch(r"https?://\S+", url) else None
            if why:
                self.add(file, path, f"{url!r} {why}")
        for i, url in enumerate(urls if isinstance(urls, list) else []):
            if isinstance(url, str):
                try:
                    ident = from_url(url)
                except IdentifierError:
                    continue  # the schema reports it
                if ident.scheme != "url":
                    self.add(file, ("identifiers", "url", i), f"{url!r} is the landing page of {ident.scheme} id {ident.value!r}; write it as {ident.scheme}: {ident.value!r}")

    # ---------------------------------------------------------------- across records
    def across(self) -> None:
        bib_owners: dict[str, str] = {}
        key_owners: dict[str, str] = {}
        stems: dict[str, str] = {}
        for file in sorted(self.corpus.retained) + sorted(self.corpus.excluded):
            rec = self.corpus.retained.get(file) or self.corpus.excluded.get(file) or {}
            stem = file.lower()
            if stem in stems:
                self.add(file, (), f"same name as {stems[stem]} except for case; keys must be unique")
            stems[stem] = file
            key = rec.get("key")
            if isinstance(key, str) and file.startswith(PAPERS):
                if key in key_owners:
                    self.add(file, ("key",), f"key {key!r} is also the key of {key_owners[key]}; keys must be unique")
                key_owners.setdefault(key, file)
            bkey = rec.get("bibtex_key")
            if isinstance(bkey, str) and file.startswith(PAPERS):
                if bkey in bib_owners:
                    self.add(file, ("bibtex_key",), f"{bkey!r} is also the bibtex_key of {bib_owners[bkey]}")
                bib_owners.setdefault(bkey, file)
        # reports/papers.bib is keyed by record key with bibtex_key as an alias: one key space
        keys = {r.get("key"): f for f, r in self.corpus.retained.items() if isinstance(r.get("key"), str)}
        for bkey, file in sorted(bib_owners.items()):
            other = keys.get(bkey)
            if other is not None and other != file:
                self.add(file, ("bibtex_key",), f"{bkey!r} is the key of {other}; papers.bib would have one key for two papers")

        self.problems += pool_checks.identifier_problems(self.corpus)
        self.problems += pool_checks.title_problems(self.corpus)
        self.problems += pool_checks.bibtex_problems(self.corpus)

    def anchors(self, by_key: dict[str, dict]) -> None:
        field = self.tax.fields.get("subdecisions")
        if not field:
            return
        for code in field.values:
            for key in field.value_spec(code).get("anchors") or []:
                rec = by_key.get(key)
                tags = rec.get("subdecisions") if rec else None
                if isinstance(tags, list) and code not in tags:
                    self.add(f"{PAPERS}{key}.yaml", ("subdecisions",), f"the taxonomy names this record as an anchor of {code} but it is not tagged {code}")

    # ---------------------------------------------------------------- audits
    def audits(self, by_key: dict[str, dict], keys: set[str]) -> None:
        validator = Draft202012Validator(schemas.AUDIT_SCHEMA, format_checker=FormatChecker())
        seen: dict[str, str] = {}
        for file, audit in self.corpus.audits.items():
            before = len(self.problems)
            self.schema_errors(file, audit, validator)
            if len(self.problems) != before:
                continue
            if audit["audit_id"] in seen:
                self.add(file, ("audit_id",), f"audit id {audit['audit_id']!r} is also used by {seen[audit['audit_id']]}")
            seen.setdefault(audit["audit_id"], file)
            fields = audit["fields"]
            for name in fields:
                if name not in self.tax.fields:
                    self.add(file, ("fields",), f"unknown field {name!r}{_suggest(name, self.tax.fields)}")
            for i, row in enumerate(audit["rows"]):
                if row["key"] not in keys:
                    self.add(file, ("rows", i, "key"), f"names record {row['key']!r}, which is not a retained record{_suggest(row['key'], keys)}")
                for side in ("original", "second_reader"):
                    for name in fields:
                        value = row[side].get(name)
                        if value is None:
                            self.add(file, ("rows", i, side, name), "required field is missing")
                        elif name in self.tax.fields and value not in self.tax.values(name):
                            allowed = self.tax.values(name)
                            self.add(file, ("rows", i, side, name), f"{value!r} is not in the vocabulary; allowed: {', '.join(allowed)}{_suggest(value, allowed)}")


def _scopes(corpus: Corpus, tax: Taxonomy, keys: set[str], snapshots: dict) -> dict[str, Scope]:
    """What a claim about each population may name: the pool and every valid release."""
    near = {r.get("record_id") for r in corpus.excluded.values()
            if isinstance(r.get("if_retained"), dict) and isinstance(r.get("record_id"), str)}
    ids = {r.get("record_id") for r in corpus.excluded.values() if isinstance(r.get("record_id"), str)}
    scopes = {POOL: Scope(tax, keys, ids, near)}
    for name, snap in snapshots.items():
        snap_near = {rid for rid, r in snap.excluded.items() if isinstance(r.get("if_retained"), dict)}
        scopes[name] = Scope(Taxonomy(snap.taxonomy), set(snap.retained), set(snap.excluded), snap_near)
    return scopes


def from_older_format(problem: Problem) -> bool:
    """Whether ``problem`` only says the files predate the current format (records without
    ``date_added``, claims without a ``scope`` or with numbers typed in a statement). ``masrl diff``
    tolerates these on the side of an older git revision, whose claims are then read as
    claims about the pool."""
    if problem.field and problem.field.endswith("date_added") and problem.message == "required field is missing":
        return True
    if problem.file == "corpus/claims.yaml" and problem.field and problem.field.startswith("claims["):
        return (problem.field.endswith(".scope") and problem.message.startswith("say what the claim is about")) or \
            (problem.field.endswith(".statement") and problem.message.startswith("the number "))
    return False


def validate(corpus: Corpus) -> list[Problem]:
    """Every problem of the corpus (reading, taxonomy, records, claims, audits), sorted by file and line.

    Returns an empty list when the corpus is valid. Raises nothing for bad user data.
    """
    checker = _Checker(corpus)
    if not checker.taxonomy():
        if TAXONOMY in corpus.docs:
            checker.problems.append(Problem(TAXONOMY, None, None, "the records, claims and audits were not checked: fix the taxonomy first"))
    else:
        by_key = {r.get("key"): r for r in corpus.retained.values() if isinstance(r.get("key"), str)}
        # a record that could not be read is reported once; its key still counts as known
        keys = set(by_key) | {f[len(PAPERS):].rsplit(".", 1)[0] for f in corpus.unreadable if f.startswith(PAPERS)}
        checker.editorial_keys(keys)
        checker.records()
        checker.across()
        checker.anchors(by_key)
        snapshots = check_releases(checker)
        listed = frozenset(r.name for r in releases_from(corpus.releases)) - set(snapshots)
        if RELEASES in corpus.unreadable:  # reported as unreadable: no claim scope can be checked against it
            listed = frozenset(str(c.get("scope")) for c in corpus.claims if isinstance(c, dict)) - {POOL}
        check_claims(checker, _scopes(corpus, checker.tax, keys, snapshots), sorted(load_examples()), listed)
        checker.audits(by_key, keys)
        check_audit_folders(checker, {a.get("audit_id") for a in corpus.audits.values()})
        checker.problems.extend(check_protocol(corpus) + check_rounds(corpus))
    unique = sorted(set(checker.problems), key=sort_key)
    return unique
