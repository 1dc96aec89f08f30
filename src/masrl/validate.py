"""Records + taxonomy -> every problem at once. Never raises for user data, never writes.

Checks, in order (all problems of a run are collected):

1. reading: UTF-8, YAML syntax, duplicate keys, anchors/aliases, one mapping per file
   (found by :mod:`masrl.load`);
2. the taxonomy against its own schema, and its cross-references (reward
   families cover every reward type once; named representatives and anchors
   exist as retained records; crosstabs name real fields);
3. each record against the JSON Schema derived from the taxonomy (required
   fields, types, allowed values, identifier formats, year range);
4. rules across fields of one record: file name = key; ``untagged``
   placeholders; ``credit_mechanism`` is NA iff ``credit_granularity`` is NA;
   benchmark-only fields; the inclusion criterion a category implies;
5. rules across records: keys and BibTeX keys unique; every identifier used by
   one record only, across retained AND excluded records; sub-decision anchors
   tagged with their sub-decision;
6. the claim ledger and the audits: their schema, and every field, value and
   key they name exists.
"""

from __future__ import annotations

import datetime
import difflib
import re
from typing import Any, Iterable

from jsonschema import Draft202012Validator, FormatChecker

from . import schema as schemas
from .derived_names import collisions
from .errors import Problem, sort_key
from .load import CLAIMS, EXCLUSIONS, PAPERS, TAXONOMY, Corpus
from .records import UNTAGGED, classify_url, identifier_pairs
from .taxonomy import Taxonomy
from .urls import url_problem

_JSON_TYPES = {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "a list", dict: "a mapping", type(None): "empty"}
_EXPECTED = {"string": "a string", "integer": "an integer", "number": "a number", "array": "a list", "object": "a mapping", "boolean": "true or false"}


def _dotted(path: Iterable[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _suggest(value: Any, allowed: Iterable[str]) -> str:
    allowed = [str(a) for a in allowed]
    text = str(value)
    lowered = {a.lower(): a for a in allowed}
    if text.lower() in lowered:
        return f" (did you mean '{lowered[text.lower()]}'?)"
    close = difflib.get_close_matches(text, allowed, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


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
            return f"{value!r} is not a valid {spec.get('label', scheme)}: expected {spec.get('definition')}"
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
        for path, message in collisions(tax):
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
            self.braces(file, rec)
            self.file_name(file, rec, "key", PAPERS)
            self.untagged(file, rec)
            self.cross_fields(file, rec, ())
            self.urls(file, rec)
        for file, rec in self.corpus.excluded.items():
            self.schema_errors(file, rec, excluded_v)
            self.text(file, rec, ())
            self.date_range(file, rec)
            self.file_name(file, rec, "record_id", EXCLUSIONS)
            self.urls(file, rec)
            if isinstance(rec.get("if_retained"), dict):
                self.cross_fields(file, rec["if_retained"], ("if_retained",), partial=True)

    _MULTILINE = {"notes", "note", "one_liner", "exclusion_reason", "former_file"}

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
                scheme, value = classify_url(url)
                if scheme != "url":
                    self.add(file, ("identifiers", "url", i), f"{url!r} is the landing page of {scheme} id {value!r}; write it as {scheme}: {value!r}")

    # ---------------------------------------------------------------- across records
    def across(self) -> None:
        owners: dict[tuple[str, str], str] = {}
        bib_owners: dict[str, str] = {}
        key_owners: dict[str, str] = {}
        stems: dict[str, str] = {}
        for file in sorted(self.corpus.retained) + sorted(self.corpus.excluded):
            rec = self.corpus.retained.get(file) or self.corpus.excluded.get(file) or {}
            stem = file.lower()
            if stem in stems:
                self.add(file, (), f"same name as {stems[stem]} except for case; keys must be unique")
            stems[stem] = file
            ids = rec.get("identifiers")
            for scheme, value in identifier_pairs(ids if isinstance(ids, dict) else {}):
                other = owners.get((scheme, value))
                if other is None:
                    owners[(scheme, value)] = file
                    continue
                mine, theirs = rec, self.corpus.retained.get(other) or self.corpus.excluded.get(other) or {}
                if mine.get("forced") or theirs.get("forced"):
                    continue  # added with --force and a reason: a deliberate second record of one paper
                if other.startswith(PAPERS) and file.startswith(EXCLUSIONS):
                    msg = f"identifier {scheme}:{value} is also retained as {other} — a paper cannot be both"
                else:
                    msg = f"identifier {scheme}:{value} is also used by {other} — one paper, one record"
                self.add(file, ("identifiers", scheme), msg)
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

    # ---------------------------------------------------------------- claims and audits
    def claims(self, keys: set[str]) -> None:
        if CLAIMS not in self.corpus.docs:
            if CLAIMS not in self.corpus.unreadable:
                self.add(CLAIMS, (), "missing: the claim ledger is required (an empty ledger is the line `claims: []`)")
            return
        before = len(self.problems)
        self.schema_errors(CLAIMS, self.corpus.docs[CLAIMS].value, Draft202012Validator(schemas.CLAIMS_SCHEMA))
        if len(self.problems) != before:
            return  # the checks below need a well-formed ledger
        claims = self.corpus.claims
        ids = [c["id"] for c in claims]
        record_ids = {r.get("record_id") for r in self.corpus.excluded.values() if isinstance(r.get("record_id"), str)}
        near_ids = {r.get("record_id") for r in self.corpus.excluded.values()
                    if isinstance(r.get("if_retained"), dict) and isinstance(r.get("record_id"), str)}
        from .trace.examples import load_examples

        traces = sorted(load_examples())
        macros: dict[str, tuple] = {}
        for i, claim in enumerate(claims):
            if claim["id"] in ids[:i]:
                self.add(CLAIMS, ("claims", i, "id"), f"claim id {claim['id']!r} is used twice")
            target = claim.get("superseded_by")
            if target is not None and target not in ids:
                self.add(CLAIMS, ("claims", i, "superseded_by"), f"names claim {target!r}, which does not exist{_suggest(target, ids)}")
            labels = [c["label"] for c in claim["checks"]]
            for j, check in enumerate(claim["checks"]):
                path = ("claims", i, "checks", j)
                if check["label"] in labels[:j]:
                    self.add(CLAIMS, path + ("label",), f"two checks of claim {claim['id']!r} have the label {check['label']!r}")
                population = check.get("population", "retained")
                for name, cond in (check.get("where") or {}).items():
                    self.filter_condition(path + ("where", name), name, cond, population)
                known = record_ids if population == "excluded" else (keys | near_ids if population == "retained_with_near_misses" else keys)
                for key in check.get("keys") or []:
                    if key not in known:
                        self.add(CLAIMS, path + ("keys",), f"names record {key!r}, which is not in the {population} population{_suggest(key, known)}")
                if "trace_valid" in check and check["trace_valid"] not in traces:
                    self.add(CLAIMS, path + ("trace_valid",), f"no packaged example trace {check['trace_valid']!r}; known: {', '.join(traces)}")
                macro = check.get("macro")
                if macro is not None:
                    if macro.startswith("Num"):
                        self.add(CLAIMS, path + ("macro",), f"macro names starting with 'Num' are generated by masrl; choose another than {macro!r}")
                    elif macro in macros:
                        self.add(CLAIMS, path + ("macro",), f"macro {macro!r} is already defined by claims[{macros[macro][0]}].checks[{macros[macro][1]}]")
                    macros.setdefault(macro, (i, j))

    def filter_condition(self, path: tuple, name: str, cond: Any, population: str) -> None:
        kind = "excluded" if population == "excluded" else "retained"
        plain = {"record_id"} if kind == "excluded" else {"key", "year"}
        field = self.tax.fields.get(name)
        operators = ("in", "not", "not_in", "all", "any")
        if field is None or field.applies_to != kind:
            if name not in plain:
                allowed = [f.name for f in self.tax.of(kind)] + sorted(plain)
                what = f"unknown field {name!r}" if field is None else f"{name!r} is a field of {field.applies_to} records, not of the {population} population"
                self.add(CLAIMS, path, f"{what}{_suggest(name, allowed)}")
                return
            if isinstance(cond, dict):
                bad = [op for op in cond if op not in ("in", "not", "not_in")]
                if bad:
                    self.add(CLAIMS, path, f"unknown operator {bad[0]!r} for {name}; allowed: in, not_in, not")
            return
        values = []
        if isinstance(cond, dict):
            for op, arg in cond.items():
                if op not in operators:
                    self.add(CLAIMS, path, f"unknown operator {op!r}; allowed: {', '.join(operators)}")
                values += arg if isinstance(arg, list) else [arg]
        else:
            values = cond if isinstance(cond, list) else [cond]
        for value in values:
            if value not in field.values:
                self.add(CLAIMS, path, f"{value!r} is not a value of {name}; allowed: {', '.join(field.values)}{_suggest(value, field.values)}")

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
        checker.claims(keys)
        checker.audits(by_key, keys)
    unique = sorted(set(checker.problems), key=sort_key)
    return unique
