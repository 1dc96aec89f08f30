"""The collector every check adds its problems to, and the wording of JSON Schema errors.

A rule (see :data:`masrl.checks.validate.RULES`) gets a :class:`Checker` and calls
:meth:`Checker.add` for each problem: file, line (from the loader's line map), field and a
message that names the bad value and what is allowed. Schema errors are worded by
:meth:`Checker.explain` ("'hybird' is not in the vocabulary; allowed: ...; did you mean 'hybrid'?").
"""

from __future__ import annotations

import dataclasses
import re
from collections import OrderedDict
from typing import Any, Iterable, Mapping

from jsonschema import Draft202012Validator

from ..bib.identifiers import arxiv_problem, stored_hint
from ..bib.urls import lower_schemes, scheme_case_problem
from ..core.didyoumean import did_you_mean as _suggest
from ..core.errors import Problem
from ..core.memo import MISSING, Memo, content_key
from ..corpus.load import Corpus
from ..corpus.records import UNTAGGED
from ..corpus.yamlio import plain_value
from ..corpus.taxonomy import Taxonomy

#: The code of problems found while reading the files (UTF-8, YAML syntax, duplicate keys, ...).
READING = "R001"

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


#: Words YAML reads as nothing (null) when they are not quoted.
_NULL_WORDS = ("null", "~")


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "nothing (an empty value)"
    kind = _JSON_TYPES.get(type(value), type(value).__name__).split(" ", 1)[-1]
    return f"the {kind} {value!r}"



#: (schema, document) pairs found valid in this process, by :func:`_validity_key`: a document
#: validated again against the same schema (a second ``validate`` of the same corpus, the other side
#: of ``masrl diff``, a frozen snapshot read by every command) is not walked again. Only validity is
#: remembered; a document with errors is always checked in full, so that its messages are worded anew.
_VALID = Memo(8192)


#: id(validator) -> (validator, key of its kind, schema and format checking), the 64 most recent: a
#: validator checks every record of a corpus, and its schema is digested once for all their keys.
_SCHEMA_KEYS: OrderedDict[int, tuple[Draft202012Validator, bytes | None]] = OrderedDict()


def _schema_key(validator: Draft202012Validator) -> bytes | None:
    entry = _SCHEMA_KEYS.get(id(validator))
    if entry is None or entry[0] is not validator:  # held, so that its id is not reused while known
        entry = _SCHEMA_KEYS[id(validator)] = (validator, content_key(
            type(validator).__name__, validator.format_checker is not None, validator.schema))
        if len(_SCHEMA_KEYS) > 64:
            _SCHEMA_KEYS.popitem(last=False)
    return entry[1]


def _validity_key(validator: Draft202012Validator, value: Any) -> bytes | None:
    """What the schema check of ``value`` depends on: the validator's kind, its schema, whether it
    checks formats (digested once per validator), and ``value`` with its exact types
    (:func:`masrl.core.memo.content_key`)."""
    schema = _schema_key(validator)
    return None if schema is None else content_key(schema, value)


def schema_valid(validator: Draft202012Validator, value: Any) -> bool:
    """Whether ``value`` was found valid against ``validator``'s schema earlier in this process."""
    return _VALID.get(_validity_key(validator, value)) is not MISSING


def remember_valid(validator: Draft202012Validator, value: Any) -> None:
    """Note that ``value`` was found valid against ``validator``'s schema (:func:`schema_valid`)."""
    _VALID.put(_validity_key(validator, value), True)



def _or_null(alternatives) -> bool:
    """Whether ``anyOf``/``oneOf`` alternatives are one kind of value or null (each a schema mapping)."""
    return (isinstance(alternatives, list) and all(isinstance(a, dict) for a in alternatives)
            and any(a.get("type") == "null" for a in alternatives))

#: What the patterns of masrl's schemas allow, in words (a pattern not named here is quoted as it is).
PATTERN_WORDS = {
    "\\S": "text: it holds only blanks (write the value, or leave the field out where it may be)",
    "^[A-Za-z0-9][A-Za-z0-9_]*$": "a name: an ASCII letter or digit, then ASCII letters, digits and '_' (no space)",
    "^[a-z0-9][a-z0-9._-]*$": "a lower-case name: a letter or digit, then lower-case letters, digits, '.', '_' and '-'",
    "^[a-z0-9][a-z0-9_.-]*$": "a lower-case name: a letter or digit, then lower-case letters, digits, '.', '_' and '-'",
    "^[a-z0-9_]+$": "an id of lower-case letters, digits and '_'",
    "^[A-Za-z]+$": "a LaTeX macro name: ASCII letters only",
    "^[0-9a-f]{64}$": "a SHA-256 digest: 64 lower-case hexadecimal digits",
    "^E[0-9]{3,}$": "a record id: E followed by at least three digits (E033)",
    "^[A-Za-z0-9_:.+/-]+$": "a BibTeX key: ASCII letters, digits and _ : . + / -",
    "^[0-9]+(\\.[0-9]+)?$": "a decimal number written with digits and one '.'",
    "^[A-Za-z0-9_]+$": "a field name: ASCII letters, digits and '_'",
    "^MASRL_[A-Z0-9_]*(API|URL)$": "the name of an environment variable of an address, MASRL_..._API or MASRL_..._URL "
                                   "(upper-case letters, digits and '_'; not another variable of masrl's, such as MASRL_MAILTO)",
    "^https?://": "an http(s) URL",
}


def malformed_entries(problems: Iterable[Problem], key: str) -> set[int] | None:
    """The indices of the entries of the list ``key`` that schema ``problems`` name (``key[3]...``), or None
    when one of them is about something else (the file's own keys): the checks of the well-formed entries
    then run in the same run, so that every problem is named at once."""
    out = set()
    for problem in problems:
        at = re.match(rf"{re.escape(key)}\[([0-9]+)\]", problem.field or "")
        if at is None:
            return None
        out.add(int(at.group(1)))
    return out


class Checker:
    """Collects the problems of one corpus; the rules (:data:`masrl.checks.validate.RULES`) add to it.

    Attributes:
        corpus: the corpus checked.
        tax: its vocabulary.
        problems: every problem found so far, the loader's first (code ``R001``).
        code: the code of the rule now running; :meth:`add` stamps it on each problem.
    """

    def __init__(self, corpus: Corpus):
        self.corpus = corpus
        self.problems: list[Problem] = [dataclasses.replace(p, code=p.code or READING) for p in corpus.problems]
        self.tax = Taxonomy(corpus.taxonomy)
        self.code: str | None = None

    def extend(self, problems: Iterable[Problem]) -> None:
        """Add problems found by a helper, stamped with the running rule's code."""
        self.problems += [dataclasses.replace(p, code=p.code or self.code) for p in problems]

    @staticmethod
    def suggest(value: Any, allowed: Iterable[str] | Mapping[str, str]) -> str:
        """`` (did you mean 'x'?)`` for the closest allowed value (:func:`masrl.core.didyoumean.did_you_mean`), or ''."""
        return _suggest(value, allowed)

    def add(self, file: str, path: tuple, message: str, field: str | None = None) -> None:
        """One problem at ``path`` of ``file`` (its line from the loader); ``field`` defaults to the dotted path."""
        self.problems.append(Problem(file, self.corpus.line(file, path), field if field is not None else (_dotted(path) or None),
                                     message, self.code))

    def schema_errors(self, file: str, value: Any, validator: Draft202012Validator, base: tuple = ()) -> None:
        """One problem per JSON Schema error of ``value``, worded for a person (:meth:`explain`).
        A document this process found valid against the same schema before is not walked again
        (:func:`schema_valid`)."""
        key = _validity_key(validator, value)
        if _VALID.get(key) is not MISSING:
            return
        errors = sorted(validator.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
        if not errors:
            _VALID.put(key, True)
            return
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
                named = next((p for p in reversed(path) if isinstance(p, str)), None)
                labels = self.tax.labels(named) if named else {}
                self.add(file, path, f"{value!r} is not in the vocabulary; allowed: {', '.join(allowed)}"
                                     f"{_suggest(value, {a: labels.get(a, a) for a in allowed})}{_non_ascii(value)}")
            else:
                words = [a for a in allowed if a.lower() in _NULL_WORDS] if value is None else []
                written = [a for a in allowed if type(plain_value(a)) is int and plain_value(a) == value]  # '1', '01'
                hint = (" (YAML read it as a boolean: quote it, e.g. \"yes\")" if isinstance(value, bool) else
                        f" (YAML read {words[0]} as nothing: quote it, '{words[0]}')" if words else
                        f" (YAML read it as the number {value}; the code{'s' if len(written) > 1 else ''} that read{'' if len(written) > 1 else 's'} "
                        f"as {value}: {' or '.join(repr(a) for a in written)}: quote the one you mean)"
                        if written and type(value) is int else "")
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
            hint = (" (write it without quotes)" if expected == "integer" and isinstance(value, str) and value.strip().isdigit()
                    else f" (YAML read it as a number: quote it, '{value}')"
                    if expected == "string" and type(value) is int and "bibtex" in path else "")  # month: 6, volume: 12
            if expected == "integer" and isinstance(value, str) and re.fullmatch(r"[-+]?([0-9]*\.[0-9]+|[0-9]+\.)", value.strip()):
                self.add(file, path, f"expected {names}, got {value.strip()}, a number with decimals: give a whole number")
            else:
                self.add(file, path, f"expected {names}, got {_describe(value)}{hint}")
        elif kind == "pattern":
            message = self.pattern_message(path, value, err.validator_value)
            if "propertyNames" in err.schema_path:  # a key: named by its mapping, at its own line
                self.problems.append(Problem(file, self.corpus.line(file, path + (value,)) or self.corpus.line(file, path),
                                             _dotted(path) or None, message, self.code))
            else:
                self.add(file, path, message)
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
            seen: list = []
            twice = next((v for v in value if v in seen or seen.append(v)), None) if isinstance(value, list) else None
            self.add(file, path, f"lists {twice!r} twice; each value once" if twice is not None
                     else f"lists a value twice: {value!r}")
        elif kind == "format":
            self.add(file, path, f"{value!r} is not a real date (YYYY-MM-DD)")
        elif kind == "oneOf" and isinstance(value, dict) and "label" in value:
            self.add(file, path, "a check either names a trace (trace_valid) or selects records (where with count, "
                                 "min_count, max_count or keys), not both and not neither")
        elif kind in ("anyOf", "oneOf") and value is not None and err.context and _or_null(err.validator_value):
            # a value or nothing (``date: null``): what the value must be, as its own schema says it
            subs = [e for e in err.context if err.validator_value[e.schema_path[0]].get("type") != "null"]
            for sub in subs:
                if not (sub.validator == "format" and any(e.validator == "pattern" for e in subs)):
                    self.explain(file, path + tuple(sub.relative_path), sub)

        else:
            self.add(file, path, err.message)

    def pattern_message(self, path: tuple, value: Any, pattern: str = "") -> str:
        schemes = self.tax.identifier_schemes
        scheme = next((p for p in reversed(path) if isinstance(p, str)), "")
        if len(path) >= 2 and "identifiers" in path and scheme in schemes:
            spec = schemes[scheme]
            hint = stored_hint(scheme, value) if isinstance(value, str) else None
            why = arxiv_problem(value) if scheme == "arxiv" and isinstance(value, str) and not hint else None
            return (f"{value!r} is not a valid {spec.get('label', scheme)}: "
                    + (why if why else f"expected {spec.get('definition')}") + (f"; write it as {hint}" if hint else ""))
        if scheme in ("key", "former_key"):
            return f"{value!r} is not a valid key: use lower-case letters, digits, '.', '_' and '-'"
        if scheme == "record_id":
            return f"{value!r} is not a valid record id: use E followed by at least three digits (E033)"
        if isinstance(value, str) and pattern and lower_schemes(value) != value and re.search(pattern, lower_schemes(value)):
            return f"{value!r} {scheme_case_problem(value)}"
        if scheme == "url":
            return f"{value!r} is not an http(s) URL (several URLs are separated by ' ; ')"
        if scheme in ("date_screened", "date"):
            return f"{value!r} is not a date written YYYY-MM-DD"
        if scheme == "tag_provenance":  # a key of it (propertyNames)
            return f"{value!r} is not a field name: each key names the field whose tag it explains (letters, digits and '_')"
        if scheme == "bibtex":  # a key of the block (propertyNames)
            return (f"{value!r} is not a BibTeX field name: write a letter, then letters, digits, '_' or '-' "
                    "(one field per key, e.g. note)")
        if pattern in PATTERN_WORDS:
            return f"{value!r} is not {PATTERN_WORDS[pattern]}"
        return f"{value!r} does not have the required form: it must match the regular expression {pattern}"
