"""Checks of the search protocol (``corpus/protocol.yaml``) and of the update rounds
(``corpus/rounds/<round>/``): every problem at once, never raises for user data.

The protocol: its form (:data:`PROTOCOL_SCHEMA`); every code it names is a value of the
vocabulary (of the fields ``corpus/taxonomy.yaml`` declares for the screening roles:
``found_in`` for a source's ``exclusion_source``, ``found_by`` for a family's ``exclusion_family``,
``inclusion`` and ``reasons`` for the rules' codes, ``stages`` for the stages); every query family's terms are split into its ``all_of`` groups
once each, and each of its queries names every term, for every source masrl searches.

A round: its three files are there; ``round.yaml`` has its form (:data:`ROUND_SCHEMA`), names
its own folder and counts exactly the rows of its sheets; ``queue.csv`` and ``duplicates.csv``
have exactly their columns (:data:`masrl.corpus.rounds.QUEUE_COLUMNS`, ``DUPLICATE_COLUMNS``); every
queue row has an identifier in ``scheme:value`` form that no other row of the round has, a
title, a year, a date, families and sources the protocol knows, a rank, and screener cells
from the vocabulary (an exclusion needs a stage, a reason class and a reason).
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections import Counter

from jsonschema import Draft202012Validator, FormatChecker

from ..analyses.rounds import queued_again
from ..bib.answers import MAX_CHARS
from ..bib.fetch import endpoint_problem, shown
from ..bib.identifiers import IdentifierError, SchemeError, arxiv_category_problem, conflicts, parse, scheme_and_value
from ..bib.urls import url_problem
from ..core.didyoumean import did_you_mean
from ..core.errors import Problem
from ..core import clock
from ..core.placeholders import author_problem, authors_problem, placeholder_problem
from ..core.text import text_problem
from ..corpus.load import TAXONOMY, Corpus
from ..corpus.rounds import (
    DECISIONS,
    DUPLICATE_COLUMNS,
    FAMILY_COLUMN,
    FOUND_CELLS,
    FOUND_SHEETS,
    PROTOCOL,
    QUEUE_COLUMNS,
    QUEUE_COLUMNS_WITHOUT_CATEGORY,
    REASON_COLUMN,
    ROUNDS,
    SCREENER_COLUMNS,
    SEARCHERS,
    STAGE_COLUMN,
    RoundFolder,
    found_digest,
    joined_ids,
    split_identifiers,
    split_list,
)
from ..corpus.taxonomy import Taxonomy
from .collector import Checker, remember_valid, schema_valid

#: The searchers sent a query string per family; the others list records and match ``all_of``.
QUERIED = ("arxiv", "crossref", "semanticscholar")
NOT_QUERIED = {"openreview": "the notes of its venues", "citations": "the references and citations of the retained records"}
#: How citation searching says a record was found: ``cites KEY`` (it cites retained record KEY) or
#: ``cited by KEY`` (KEY cites it), in a queue's family column and in duplicates.csv's.
CITATION_LINK = re.compile(r"(cites|cited by) [^\s;]+")
#: The ``searched_by`` of a protocol source that masrl does not search.
BY_HAND = "by hand"

_DATE = {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "format": "date"}
_TEXT = {"type": "string", "minLength": 1}
_NAMES = {"type": "array", "items": _TEXT, "minItems": 1, "uniqueItems": True}
_CODE_OR_NULL = {"type": ["string", "null"]}

PROTOCOL_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl search protocol (corpus/protocol.yaml)",
    "type": "object",
    "required": ["format_version", "source", "sources", "searchers", "query_families", "inclusion_rule",
                 "exclusion_rule", "stages"],
    "additionalProperties": False,
    "properties": {
        "format_version": {"const": 1},
        "source": _TEXT,
        "search_date": _DATE,
        "date_cutoff": _DATE,
        "window_overlap_days": {"type": "integer", "minimum": 0, "maximum": 366},
        "sources": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["name", "exclusion_source", "searched_by"], "additionalProperties": False,
            "properties": {"name": _TEXT, "exclusion_source": _CODE_OR_NULL,
                           "searched_by": {"oneOf": [{"type": "null"}, _TEXT, _NAMES]}}}},
        "searchers": {"type": "object", "minProperties": 1, "propertyNames": {"enum": list(SEARCHERS)},
                      "additionalProperties": {
                          "type": "object", "required": ["label", "api", "endpoint", "endpoint_env", "exclusion_source"],
                          "additionalProperties": False,
                          "properties": {"label": _TEXT, "api": _TEXT, "endpoint": {"type": "string", "pattern": "^https?://"},
                                         "endpoint_env": {"type": "string", "pattern": "^MASRL_[A-Z0-9_]*(API|URL)$"},
                                         "exclusion_source": _TEXT, "scope": _TEXT, "terms_of_use": _TEXT,
                                         "venues": _NAMES, "exclusion_family": _TEXT,
                                         "directions": {"type": "array", "minItems": 1, "uniqueItems": True,
                                                        "items": {"enum": ["backward", "forward"]}},
                                         "method": {"enum": ["database", "other"]}}}},
        "query_families": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["name", "terms", "exclusion_family", "all_of", "queries"], "additionalProperties": False,
            "properties": {"name": _TEXT, "terms": _NAMES, "exclusion_family": _TEXT,
                           "all_of": {"type": "array", "minItems": 1, "items": _NAMES},
                           "queries": {"type": "object", "additionalProperties": _TEXT}}}},
        "inclusion_rule": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["code", "text"], "additionalProperties": False,
            "properties": {"code": _TEXT, "text": _TEXT}}},
        "exclusion_rule": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["code", "text"], "additionalProperties": False,
            "properties": {"code": _TEXT, "text": _TEXT}}},
        "stages": _NAMES,
    },
}

_COUNT = {"type": "integer", "minimum": 0}
_TALLY = {"type": "object", "required": ["identified", "duplicates", "queued"], "additionalProperties": False,
          "properties": {"identified": _COUNT, "duplicates": _COUNT, "queued": _COUNT}}
_STAMP = {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"}

ROUND_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "masrl update round (corpus/rounds/<round>/round.yaml)",
    "type": "object",
    "required": ["format_version", "round", "window", "started", "finished", "protocol_sha256", "sources", "counts"],
    "additionalProperties": False,
    "properties": {
        "format_version": {"const": 1},
        "round": {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(-[0-9]+)?$"},
        "window": {"type": "object", "required": ["since", "until"], "additionalProperties": False,
                   "properties": {"since": _DATE, "until": _DATE}},
        "started": _STAMP,
        "finished": _STAMP,
        "protocol_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "sources": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["name", "label", "endpoint", "settings", "queries"], "additionalProperties": False,
            "properties": {
                "name": {"enum": list(SEARCHERS)}, "label": _TEXT, "endpoint": _TEXT, "method": {"enum": ["database", "other"]},
                "settings": {"type": "object", "additionalProperties": {"type": ["integer", "string", "boolean"]}},
                "queries": {"type": "array", "items": {
                    "type": "object", "required": ["family", "query", "sent", "requests", "pages", "total", "returned", "kept"],
                    "additionalProperties": False,
                    "properties": {"family": _TEXT, "query": _TEXT, "sent": _STAMP, "requests": _COUNT, "pages": _COUNT,
                                   "total": _COUNT, "returned": _COUNT, "kept": _COUNT, "outside_window": _COUNT,
                                   "outside_window_records": {"type": "array", "items": _TEXT}, "not_matching": _COUNT,
                                   "unusable": _COUNT, "unusable_records": {"type": "array", "items": _TEXT},
                                   "not_fetched": _COUNT, "stopped": _TEXT}}}}}},
        "found_sha256": {"type": "object", "additionalProperties": False,
                         "properties": {name: {"type": "string", "pattern": "^[0-9a-f]{64}$"} for name in FOUND_SHEETS}},
        "counts": {"type": "object", "required": ["identified", "duplicates", "queued", "by_source", "by_family"],
                   "additionalProperties": False,
                   "properties": {"identified": _COUNT, "duplicates": _COUNT, "queued": _COUNT,
                                  "by_source": {"type": "object", "additionalProperties": _TALLY},
                                  "by_family": {"type": "object", "additionalProperties": _TALLY}}},
    },
}


def _dotted(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _schema_problems(corpus: Corpus, file: str, value, schema: dict) -> list[Problem]:
    validator = Draft202012Validator(schema, format_checker=FormatChecker())
    if schema_valid(validator, value):  # found valid earlier in this process (the same content)
        return []
    out = []
    errors = sorted(validator.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    if not errors:
        remember_valid(validator, value)
    for err in errors:
        path = tuple(err.absolute_path)
        if err.validator == "required":
            missing = err.message.split("'")[1] if "'" in err.message else err.message
            path, message = path + (missing,), "required field is missing"
        elif err.validator == "additionalProperties":
            allowed = list((err.schema.get("properties") or {}).keys())
            extras = [k for k in err.instance if k not in allowed] if isinstance(err.instance, dict) else []
            for extra in extras:
                out.append(Problem(file, corpus.line(file, path + (extra,)), _dotted(path + (extra,)),
                                   f"unknown field '{extra}'{did_you_mean(extra, allowed) or '; allowed: ' + ', '.join(allowed)}"))
            continue
        elif err.validator == "propertyNames":
            message = f"unknown source {err.instance!r}: masrl searches {', '.join(SEARCHERS)}"
        elif err.validator == "format":
            message = f"{err.instance!r} is not a real date (YYYY-MM-DD)"
        else:  # worded as every other file's (the value, what is allowed), by the one explainer of schema errors
            words = Checker(Corpus(taxonomy=corpus.taxonomy, docs=corpus.docs))
            words.explain(file, path, err)
            out += [dataclasses.replace(found, field=_dotted(path) or None) for found in words.problems]
            continue
        out.append(Problem(file, corpus.line(file, path), _dotted(path) or None, message))
    return out


def _vocabulary_problem(corpus: Corpus, file: str, path: tuple, value, tax: Taxonomy, field: str | None) -> list[Problem]:
    """``value`` is a value of ``field`` (a field the taxonomy names for a screening role; None when
    the survey has no such field: then the value names nothing of the records and is not checked)."""
    if field is None:
        return []
    allowed = tax.values(field)
    if value is None or value in allowed:
        return []
    return [Problem(file, corpus.line(file, path), _dotted(path),
                    f"{value!r} is not a value of {field} in {TAXONOMY}; allowed: {', '.join(allowed)}{did_you_mean(value, tax.labels(field))}")]


def _balanced(query: str) -> str | None:
    """Why an arXiv query string is malformed (unbalanced parentheses or quotes), or None."""
    depth = 0
    for ch in re.sub(r'"[^"]*"', "", query):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return "closes a parenthesis it never opened"
    if query.count('"') % 2:
        return "has an unclosed quote"
    return "leaves a parenthesis open" if depth else None


def _family_problems(corpus: Corpus, family: dict, i: int, tax: Taxonomy, searchers: dict) -> list[Problem]:
    out: list[Problem] = []

    def add(path: tuple, message: str) -> None:
        out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("query_families", i) + path), _dotted(("query_families", i) + path),
                           message))

    out += _vocabulary_problem(corpus, PROTOCOL, ("query_families", i, "exclusion_family"), family["exclusion_family"], tax, tax.role("found_by"))
    grouped = [t for group in family["all_of"] for t in group]
    for term in sorted(set(family["terms"]) - set(grouped)):
        add(("all_of",), f"term {term!r} of the family is in no group of all_of")
    for term in sorted(set(grouped) - set(family["terms"])):
        add(("all_of",), f"{term!r} is not a term of the family (terms: {', '.join(family['terms'])})")
    for term in sorted({t for t in grouped if grouped.count(t) > 1}):
        add(("all_of",), f"term {term!r} is in more than one group")
    for name in [n for n in searchers if n in QUERIED]:
        query = family["queries"].get(name)
        if query is None:
            add(("queries",), f"no query for source {name!r}: give the string sent to it")
            continue
        missing = [t for t in family["terms"] if t.lower() not in query.lower()]
        if missing:
            add(("queries", name), f"does not name the term(s) {', '.join(repr(t) for t in missing)} of the family")
        if name == "arxiv" and (why := _balanced(query)):
            add(("queries", name), f"the arXiv query {why}")
    for name in sorted(set(family["queries"]) - set(searchers)):
        add(("queries", name), f"no source {name!r} under searchers{did_you_mean(name, searchers)}")
    for name in sorted((set(family["queries"]) & set(searchers)) - set(QUERIED)):
        add(("queries", name), f"{name} is sent no query (it lists {NOT_QUERIED[name]} and keeps the records that match "
                               "all_of): remove it")
    return out


def check_protocol(corpus: Corpus) -> list[Problem]:
    """Every problem of ``corpus/protocol.yaml`` (see the module docstring); ``[]`` when it is
    valid or absent (a survey may have no protocol until it runs update rounds)."""
    data = corpus.protocol
    if data is None:
        return []
    out = _schema_problems(corpus, PROTOCOL, data, PROTOCOL_SCHEMA)
    bad: set[tuple] = set()  # the entries the schema names (each reported): the others are judged in the same run
    for problem in out:
        at = re.match(r"(sources|query_families|inclusion_rule|exclusion_rule)\[([0-9]+)\]|searchers\.([^.\[]+)",
                      problem.field or "")
        if at is None:
            return out  # the file's own keys: the checks below need them
        bad.add(("searchers", at.group(3)) if at.group(3) else (at.group(1), int(at.group(2))))
    tax = Taxonomy(corpus.taxonomy)
    searchers = {k: v for k, v in data["searchers"].items() if ("searchers", k) not in bad}
    covered: set[str] = set()
    for i, source in enumerate(data["sources"]):
        if ("sources", i) in bad:
            continue
        out += _vocabulary_problem(corpus, PROTOCOL, ("sources", i, "exclusion_source"), source["exclusion_source"], tax,
                                   tax.role("found_in"))
        by = source["searched_by"]
        if by is None:
            out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("sources", i, "searched_by")), f"sources[{i}].searched_by",
                               f"is empty: write the searcher of `masrl update search` that covers {source['name']!r} "
                               f"(one of {', '.join(searchers)}, or a list), or {BY_HAND!r}"))
        names = [by] if isinstance(by, str) else list(by or [])
        for name in names:
            if name == BY_HAND and len(names) == 1:
                continue
            if name not in searchers:
                allowed = [*searchers, BY_HAND]
                out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("sources", i, "searched_by")), f"sources[{i}].searched_by",
                                   f"{name!r} is not a source under searchers, nor {BY_HAND!r}; allowed: "
                                   f"{', '.join(allowed)}{did_you_mean(name, allowed)}"))
            covered.add(name)
    for name, spec in searchers.items():  # the well-formed ones
        out += _vocabulary_problem(corpus, PROTOCOL, ("searchers", name, "exclusion_source"), spec["exclusion_source"], tax,
                                   tax.role("found_in"))
        if why := endpoint_problem(spec["endpoint"]):
            out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("searchers", name, "endpoint")), f"searchers.{name}.endpoint",
                               why))
        if name not in covered:
            out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("searchers", name)), f"searchers.{name}",
                               "covers no source of the protocol: name it in the searched_by of the source it searches"))
        for key, needed in (("venues", "openreview"), ("directions", "citations"), ("exclusion_family", "citations")):
            if key in spec and name != needed:
                out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("searchers", name, key)), f"searchers.{name}.{key}",
                                   f"only the {needed} searcher has {key}"))
        if name == "openreview" and "venues" not in spec:
            out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("searchers", name)), f"searchers.{name}.venues",
                               "required field is missing: the venue ids whose notes are searched (ICLR.cc/2026/Conference)"))
        if name == "citations":
            if "exclusion_family" not in spec:
                out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("searchers", name)), f"searchers.{name}.exclusion_family",
                                   "required field is missing: the query-family value an exclusion found by citation "
                                   "searching records"))
            else:
                out += _vocabulary_problem(corpus, PROTOCOL, ("searchers", name, "exclusion_family"), spec["exclusion_family"],
                                           tax, tax.role("found_by"))
    names = [f.get("name") if isinstance(f, dict) else None for f in data["query_families"]]
    for i, family in enumerate(data["query_families"]):
        if ("query_families", i) in bad:
            continue
        if names.index(family["name"]) != i:
            out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("query_families", i, "name")), f"query_families[{i}].name",
                               f"family {family['name']!r} is listed twice"))
        out += _family_problems(corpus, family, i, tax, searchers)
    for key, role in (("inclusion_rule", "inclusion"), ("exclusion_rule", "reasons")):
        for i, rule in enumerate(data[key]):
            if (key, i) not in bad:
                out += _vocabulary_problem(corpus, PROTOCOL, (key, i, "code"), rule["code"], tax, tax.role(role))
    stages = tax.values(tax.role("stages")) if tax.role("stages") else ()
    if stages and set(data["stages"]) != set(stages):
        out.append(Problem(PROTOCOL, corpus.line(PROTOCOL, ("stages",)), "stages",
                           f"must be the screening stages of {TAXONOMY}: {', '.join(stages)}"))
    return out


# ---------------------------------------------------------------- rounds
def _header_problem(folder: RoundFolder, name: str, expected: tuple[str, ...], older: tuple[str, ...] = ()) -> Problem | None:
    """The columns of a round's sheet must be ``expected``, in order, or ``older`` (the columns of a sheet
    written before masrl wrote its last column); an unnamed column left empty (the trailing column a spreadsheet
    may save) does not count."""
    header = folder.headers.get(name)
    if header is None:
        return None
    rows = folder.queue if name == "queue.csv" else folder.duplicates
    unnamed = [k for k, c in enumerate(header, 1) if c == ""]
    if unnamed and not any(row.get("") for row in rows):
        header = [c for c in header if c != ""]
        unnamed = []
    if list(header) in (list(expected), list(older)):
        return None
    missing = [c for c in expected if c not in header]
    extra = [repr(c) for c in header if c and c not in expected]
    extra += [f"an unnamed column (column {k}) that holds text" for k in unnamed]
    what = "; ".join(part for part in (f"missing {', '.join(missing)}" if missing else "",
                                       f"unknown {', '.join(extra)}" if extra else "") if part) or "in another order"
    return Problem(folder.path(name), 1, None, f"the columns must be exactly {', '.join(expected)} ({what})")


def _readable(folder: RoundFolder, name: str, expected: tuple[str, ...]) -> bool:
    """Whether a sheet's rows can be judged: it has every column ``expected``, each once (in any order: its rows are
    read by their columns' names, so their problems are named in the same run as the header's)."""
    header = folder.headers.get(name)
    named = [c for c in header or () if c]
    return header is not None and set(expected) <= set(named) and len(named) == len(set(named))


def _valid_date(text: str) -> bool:
    try:
        return bool(re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text)) and bool(datetime.date.fromisoformat(text))
    except ValueError:
        return False


def _moment(text: str) -> datetime.datetime | None:
    """A stamp (``YYYY-MM-DDTHH:MM:SSZ``, as :data:`_STAMP` has it) as the moment it names, or None if it names none."""
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None


def _stamp_problems(corpus: Corpus, folder: RoundFolder) -> list[Problem]:
    """The times of a round (``started``, ``finished``, each query's ``sent``) are real UTC times, in
    order (started, then every query sent, then finished), and none is after today (masrl's clock)."""
    file, meta, out = folder.path("round.yaml"), folder.meta, []
    stamps = [(("started",), meta["started"]), (("finished",), meta["finished"])]
    stamps += [(("sources", i, "queries", j, "sent"), query["sent"])
               for i, source in enumerate(meta["sources"]) for j, query in enumerate(source["queries"])]
    moments = {}
    for path, text in stamps:
        moments[path] = moment = _moment(text)
        if moment is None:
            out.append(Problem(file, corpus.line(file, path), _dotted(path),
                               f"{text!r} is not a real UTC time (YYYY-MM-DDTHH:MM:SSZ, e.g. 2026-12-01T09:30:00Z)"))
        elif moment.date() > clock.today():
            out.append(Problem(file, corpus.line(file, path), _dotted(path),
                               f"{text} is after today ({clock.today_iso()}): a round records when it was searched"))
    started, finished = moments[("started",)], moments[("finished",)]
    if started and finished and finished < started:
        out.append(Problem(file, corpus.line(file, ("finished",)), "finished",
                           f"{meta['finished']} is before started {meta['started']}: a round finishes after it starts"))
    for path, text in stamps[2:]:
        if moments[path] and started and finished and started <= finished and not started <= moments[path] <= finished:
            out.append(Problem(file, corpus.line(file, path), _dotted(path),
                               f"{text} is not between started {meta['started']} and finished {meta['finished']}: a "
                               "query is sent while its round runs"))
    return out


#: The cells of a round's sheets that may hold line breaks (the screener's reason, as an exclusion
#: record's ``exclusion_reason`` may); every other cell is one line.
_MULTILINE_CELLS = frozenset({"reason"})


def _cell_problems(file: str, rows) -> list[Problem]:
    """Every cell of a round's sheet follows the character policy (:mod:`masrl.core.text`): no
    control, bidirectional, zero-width or other invisible character, and one line except the reason,
    so that `masrl update show` and a spreadsheet show each cell as it is."""
    out = []
    for row in rows:
        for column, cell in row.cells.items():
            if cell and (why := text_problem(cell, column in _MULTILINE_CELLS)):
                out.append(Problem(file, row.line, column, f"{cell!r} {why}"))
    return out


def _text_problems(corpus: Corpus, file: str, value, path: tuple = ()) -> list[Problem]:
    """Every key and text of a YAML file of a round follows the character policy, one line each
    (:mod:`masrl.core.text`): what `update show`, the PRISMA flow and the reports print of it shows
    as it is."""
    if isinstance(value, dict):
        return [p for k, v in value.items()
                for p in _text_problems(corpus, file, k, path) + _text_problems(corpus, file, v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _text_problems(corpus, file, v, (*path, i))]
    if isinstance(value, str) and value and (why := text_problem(value, False)):
        return [Problem(file, corpus.line(file, path), _dotted(path) or None, f"{value[:80]!r} {why}")]
    return []


def _endpoint_problems(corpus: Corpus, file: str, meta: dict) -> list[Problem]:
    """Each source's endpoint in round.yaml is one masrl could have searched and recorded (no user
    name, password, query or fragment: the file is committed)."""
    out = []
    for i, source in enumerate(meta.get("sources") or []):
        endpoint = source.get("endpoint") if isinstance(source, dict) else None
        if isinstance(endpoint, str) and (why := endpoint_problem(endpoint)):
            out.append(Problem(file, corpus.line(file, ("sources", i, "endpoint")), f"sources[{i}].endpoint", why))
    return out


def _queue_problems(folder: RoundFolder, protocol: dict | None, tax: Taxonomy) -> list[Problem]:
    file = folder.path("queue.csv")
    families = [f["name"] for f in (protocol or {}).get("query_families") or []]
    labels = [s.get("label") for s in ((protocol or {}).get("searchers") or {}).values() if isinstance(s, dict)]
    citing = isinstance(((protocol or {}).get("searchers") or {}).get("citations"), dict)
    out: list[Problem] = []
    seen: dict[str, int] = {}
    ranks: dict[str, int] = {}
    for row in folder.queue:
        def bad(column: str, message: str) -> None:
            out.append(Problem(file, row.line, column, message))

        keys, parsed_ids, before = [], [], len(out)
        for ident in split_identifiers(row.get("identifier")) or [row.get("identifier")]:
            if joined_ids(ident):
                bad("identifier", f"{ident!r} is two ids written as one: separate them with '; ' (a semicolon and a space)")
                continue
            try:
                parsed = parse(*reversed(scheme_and_value(ident)))
            except SchemeError as err:
                bad("identifier", str(err))
                continue
            except (IdentifierError, KeyError, ValueError) as err:
                bad("identifier", f"{ident!r} is not an identifier: {err}")
                continue
            parsed_ids.append(parsed)
            keys.append(parsed.key)
        for scheme, first, other in conflicts(parsed_ids):
            bad("identifier", f"{scheme}:{first} and {scheme}:{other} are two {scheme} ids: a row is one paper, and its "
                              f"record keeps one id of each scheme (several URLs); keep this paper's")
        if again := next((key for key in keys if key in seen), None):
            bad("identifier", f"{again} is queued twice in this round (also line {seen[again]})")
            continue  # a row copied: the copy's other cells say nothing new (its rank is the first's)
        seen.update((key, row.line) for key in keys)
        if not row.get("title"):
            bad("title", "must not be empty")
        if not re.fullmatch(r"[0-9]{4}", row.get("year")):
            bad("year", f"{row.get('year')!r} is not a four-digit year")
        if not _valid_date(row.get("published")):
            bad("published", f"{row.get('published')!r} is not a date written YYYY-MM-DD")
        if category := row.get("arxiv_category"):
            if why := arxiv_category_problem(category):
                bad("arxiv_category", why)
            elif len(out) == before and not any(key.startswith("arxiv:") for key in keys):
                bad("arxiv_category", f"{category!r} is the category of a paper on arXiv, but the row names no arXiv id: "
                                      "leave it empty or add the paper's arxiv: id")
        for name in (split_list(row.get("query_families")) or [""]) if protocol is not None else ():  # (no protocol
            # read: named once, by its own problem)
            if name in families:
                continue
            if not CITATION_LINK.fullmatch(name):
                bad("query_families", f"{name!r} is not a query family of {PROTOCOL} nor a citation link (cites KEY, "
                                      f"cited by KEY){did_you_mean(name, families)}")
            elif not citing:
                bad("query_families", f"{name!r} is a citation link, but {PROTOCOL} has no citation searcher "
                                      "(searchers.citations) to name its query family in the exclusion log: restore it")
        for name in (split_list(row.get("sources")) or [""]) if protocol is not None else ():
            if name not in labels:
                bad("sources", f"{name!r} is not a source label of {PROTOCOL} ({', '.join(map(str, labels))})")
        rank = row.get("rank")
        if not re.fullmatch(r"[1-9][0-9]*", rank):
            bad("rank", f"{rank!r} is not a rank (1 = first to screen)")
        elif rank in ranks:
            bad("rank", f"rank {rank} is given twice (also line {ranks[rank]})")
        else:
            ranks[rank] = row.line
        if row.get("score") and not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", row.get("score")):
            bad("score", f"{row.get('score')!r} is not a number")
        if row.get("likely_reason"):
            out += [Problem(file, row.line, "likely_reason", p.message)
                    for p in _vocabulary_problem(Corpus(), file, (), row.get("likely_reason"), tax, tax.role("reasons"))]
        out += _decision_problems(file, row, tax)
    return out + _cell_problems(file, folder.queue)


def record_cell_problems(title: str, authors: list[str], year: str, identifiers: list[str], tax: Taxonomy,
                         decision: str = "include") -> list[tuple[str, str]]:
    """``[(column, why)]`` of the cells of a queue row that its record could not hold, whatever the
    screener decides (its cells are what the search found): a placeholder title or one longer than a
    source's title may be (:data:`masrl.bib.answers.MAX_CHARS`), a year out of the
    taxonomy's range, a URL no record may link, no author, an author that names no person, an author
    list that ``others`` does not end. An empty title, or one holding a character the text policy
    refuses, is said by the checks of every cell. ``update apply`` refuses such a row;
    ``update search`` counts such a record unusable instead of queueing it."""
    out = []
    if title.strip() and not text_problem(title) and (why := placeholder_problem(title)):
        out.append(("title", why))
    if len(title) > MAX_CHARS["title"]:
        out.append(("title", f"longer than the {MAX_CHARS['title']:,} characters a title may have (an abstract in the "
                             "title field?)"))
    latest = clock.today().year + 1
    if re.fullmatch(r"[0-9]{4}", year) and not tax.year_minimum <= int(year) <= latest:
        out.append(("year", f"{year} is out of range; allowed: {tax.year_minimum} to {latest}"))
    for ident in identifiers:
        scheme, _, link = ident.partition(":")
        if scheme == "url" and (why := url_problem(link)):
            out.append(("identifier", f"{shown(link)} {why}"))
    if not authors:
        out.append(("authors", f"an {decision}d paper needs its authors (Last, First; ...)"))
    for k, author in enumerate(authors):
        if author != "others" and (why := author_problem(author)):
            out.append(("authors", f"authors[{k}]: {why}"))
    if why := authors_problem(authors):
        out.append(("authors", why))
    return out


def _decision_problems(file: str, row, tax: Taxonomy) -> list[Problem]:
    """The screener's cells of one row, every problem at once: a decision that is none is reported
    and the rest of the row is checked as the decision it is closest to (``exlude`` as exclude), so
    that fixing it brings no new error; filled stage and reason cells are checked against the
    vocabulary whatever the decision."""
    decision = row.get("decision")
    out = []

    def vocabulary(column: str, role: str) -> None:
        field = tax.role(role)
        allowed = tax.values(field) if field else []
        if field and row.get(column) not in allowed:
            out.append(Problem(file, row.line, column, f"{row.get(column)!r} is not in the vocabulary; allowed: "
                                                       f"{', '.join(allowed)}{did_you_mean(row.get(column), allowed)}"))

    if decision and decision not in DECISIONS:
        hint = did_you_mean(decision, DECISIONS)
        out.append(Problem(file, row.line, "decision", f"{decision!r} is not a decision; write include or exclude "
                                                       f"(or leave it empty){hint}"))
        decision = hint.split("'")[1] if hint else None
    roles = ((STAGE_COLUMN, "stages"), (REASON_COLUMN, "reasons"))
    if decision in DECISIONS:  # the row becomes a record: its cells are checked as the record's will be
        out += [Problem(file, row.line, column, why) for column, why in record_cell_problems(
            row.get("title"), split_list(row.get("authors")), row.get("year"), split_identifiers(row.get("identifier")),
            tax, decision)]
        if decision == "exclude" and row.get("reason") and (why := placeholder_problem(row.get("reason"))):
            out.append(Problem(file, row.line, "reason", why))
    if decision == "include":
        for column, _ in roles:
            if row.get(column):
                out.append(Problem(file, row.line, column, f"an include has no {column}; clear it (or write exclude)"))
    elif decision == "exclude":
        for column, role in roles:
            if tax.role(role) is None:
                if row.get(column):
                    out.append(Problem(file, row.line, column, f"the survey declares no screening.{role} field; clear it"))
                continue
            vocabulary(column, role)
        if not row.get("reason"):
            out.append(Problem(file, row.line, "reason", "an exclusion must say why the paper is excluded"))
    else:
        for column, role in roles:
            if row.get(column):
                vocabulary(column, role)
        if not row.get("decision") and any(row.get(c) for c, _ in roles):
            out.append(Problem(file, row.line, "decision", f"{STAGE_COLUMN} or {REASON_COLUMN} is filled in but decision is "
                                                            "empty: write exclude (or clear them)"))
    return out


def _count_problems(folder: RoundFolder, corpus: Corpus) -> list[Problem]:
    """The counts of ``round.yaml`` against its sheets: the totals, each source's and each query family's tally
    (identified = queued + duplicates; they add up to the totals; a source's or family's queued are the queue's rows
    it found first, its duplicates the duplicates' rows it found), and the records of the sheets (found_sha256).
    Only the counts that are whole numbers are judged (the schema names the others, in the same run)."""
    counts = folder.meta.get("counts") if isinstance(folder.meta, dict) else None
    if not isinstance(counts, dict):
        return []
    file = folder.path("round.yaml")
    out = []

    def add(path: tuple, message: str) -> None:
        out.append(Problem(file, corpus.line(file, ("counts", *path)), _dotted(("counts", *path)), message))

    def whole(value) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    for name, rows, sheet in (("queued", folder.queue, "queue.csv"), ("duplicates", folder.duplicates, "duplicates.csv")):
        if whole(counts.get(name)) and counts[name] != len(rows) + folder.misshapen.get(sheet, 0):  # misshapen: named there
            add((name,), f"says {counts[name]} but {sheet} has {len(rows)} row(s): a round's sheets keep every record "
                         "found (exclude a candidate instead of deleting its row)")
    if all(whole(counts.get(k)) for k in ("identified", "queued", "duplicates")) \
            and counts["identified"] != counts["queued"] + counts["duplicates"]:
        add(("identified",), f"{counts['identified']} is not queued + duplicates ({counts['queued']} + {counts['duplicates']})")
    totals_hold = not out  # the sheets' rows are the totals': each source's and family's are judged against them
    for group, first_of, column, one in (("by_source", "sources", "source", "source"),
                                         ("by_family", "query_families", FAMILY_COLUMN, "query family")):
        tallies = counts.get(group)
        if not isinstance(tallies, dict) or not all(isinstance(t, dict) and all(whole(t.get(k)) for k in
                                                    ("identified", "queued", "duplicates")) for t in tallies.values()):
            continue
        for name, tally in tallies.items():
            if tally["identified"] != tally["queued"] + tally["duplicates"]:
                add((group, name, "identified"), f"{tally['identified']} is not queued + duplicates ({tally['queued']} + "
                                                 f"{tally['duplicates']})")
        for key in ("identified", "queued", "duplicates"):
            total = sum(t[key] for t in tallies.values())
            if whole(counts.get(key)) and total != counts[key]:
                add((group,), f"its {key} add up to {total}, not counts.{key} ({counts[key]}): each record found is "
                              f"counted once in {group}")
        if totals_hold and "queue.csv" in folder.headers and not folder.misshapen.get("queue.csv"):
            firsts = Counter((split_list(row.get(first_of)) or [""])[0] for row in folder.queue)
            for name in sorted(set(tallies) | set(firsts) - {""}):
                if tallies.get(name, {}).get("queued", 0) != firsts.get(name, 0):
                    add((group, name, "queued"), f"says {tallies.get(name, {}).get('queued', 0)} but queue.csv has "
                                                 f"{firsts.get(name, 0)} row(s) found first by the {one} {name!r} (the "
                                                 f"first of its {first_of})")
        if totals_hold and "duplicates.csv" in folder.headers and not folder.misshapen.get("duplicates.csv"):
            found = Counter(row.get(column) for row in folder.duplicates)
            for name in sorted(set(tallies) | set(found) - {""}):
                if tallies.get(name, {}).get("duplicates", 0) != found.get(name, 0):
                    add((group, name, "duplicates"), f"says {tallies.get(name, {}).get('duplicates', 0)} but duplicates.csv "
                                                     f"has {found.get(name, 0)} row(s) of the {one} {name!r}")
    recorded = folder.meta.get("found_sha256") or {}
    for sheet, rows in (("queue.csv", folder.queue), ("duplicates.csv", folder.duplicates)):
        if out or not isinstance(recorded, dict) or sheet not in recorded or folder.misshapen.get(sheet):
            continue  # a row lost or added is named above; a round written before masrl recorded its records
        if found_digest(rows) != recorded[sheet]:
            out.append(Problem(folder.path(sheet), None, "identifier", "the records of its rows are not the ones the search "
                               f"found (found_sha256 of round.yaml): a round's sheets keep every record found as the source "
                               f"gave it, none other. Restore their {', '.join(FOUND_CELLS)} (git diff {folder.path(sheet)}); "
                               f"the screener fills only {', '.join(SCREENER_COLUMNS)}"))
    return out


def _query_problems(folder: RoundFolder, corpus: Corpus) -> list[Problem]:
    """Each query's counts add up: returned = kept + outside the window + not matching + unusable,
    and the records named outside the window, and those named unusable, are as many as counted."""
    file = folder.path("round.yaml")
    out = []
    for i, source in enumerate(folder.meta["sources"]):
        for j, query in enumerate(source["queries"]):
            if "outside_window" not in query:
                continue  # written before masrl counted what it did not keep
            path = ("sources", i, "queries", j)
            parts = query["kept"] + query["outside_window"] + query.get("not_matching", 0) + query.get("unusable", 0)
            if parts != query["returned"]:
                out.append(Problem(file, corpus.line(file, path + ("returned",)), _dotted(path + ("returned",)),
                                   f"{query['returned']} is not kept + outside_window + not_matching + unusable ({query['kept']} + "
                                   f"{query['outside_window']} + {query.get('not_matching', 0)} + {query.get('unusable', 0)})"))
            for count in ("outside_window", "unusable"):
                named = len(query.get(f"{count}_records") or [])
                if named != query.get(count, 0):
                    out.append(Problem(file, corpus.line(file, path + (count,)), _dotted(path + (count,)),
                                       f"says {query.get(count, 0)} but {count}_records names {named}"))
    return out


def check_rounds(corpus: Corpus) -> list[Problem]:
    """Every problem of the update rounds (see the module docstring); ``[]`` without rounds."""
    out: list[Problem] = []
    if corpus.rounds and corpus.protocol is None and not any(p.file == PROTOCOL for p in corpus.problems):  # absent,
        # not one that could not be read (named already)
        out.append(Problem(PROTOCOL, None, None, f"missing: the rounds under {ROUNDS} were searched with a protocol; "
                                                 "restore corpus/protocol.yaml"))
    tax = Taxonomy(corpus.taxonomy)
    for round_id, folder in sorted(corpus.rounds.items()):
        for name in folder.missing:
            out.append(Problem(folder.path(name), None, None, "missing: a round folder holds round.yaml, queue.csv and "
                                                              "duplicates.csv (as `masrl update search` wrote them)"))
        # a sheet that could not be read at all (a workbook, another encoding) is reported once, by
        # the loader: its columns and its rows are not checked or counted again
        unread = {name for name in ("queue.csv", "duplicates.csv") if folder.path(name) in corpus.unreadable}
        out += [p for name, cols, older in (("queue.csv", QUEUE_COLUMNS, QUEUE_COLUMNS_WITHOUT_CATEGORY),
                                            ("duplicates.csv", DUPLICATE_COLUMNS, ()))
                if name not in unread and (p := _header_problem(folder, name, cols, older))]
        meta_ok = False
        if folder.meta is not None:
            found = _schema_problems(corpus, folder.path("round.yaml"), folder.meta, ROUND_SCHEMA)
            found += _text_problems(corpus, folder.path("round.yaml"), folder.meta)
            found += _endpoint_problems(corpus, folder.path("round.yaml"), folder.meta) if not found else []
            out += found
            meta_ok = not found
            if meta_ok and folder.meta["round"] != round_id:
                out.append(Problem(folder.path("round.yaml"), corpus.line(folder.path("round.yaml"), ("round",)), "round",
                                   f"{folder.meta['round']!r} does not match its folder {ROUNDS}{round_id}/"))
            window = folder.meta.get("window") if meta_ok else None
            if isinstance(window, dict) and str(window.get("since")) > str(window.get("until")):
                out.append(Problem(folder.path("round.yaml"), corpus.line(folder.path("round.yaml"), ("window", "since")),
                                   "window", f"since {window.get('since')} is after until {window.get('until')}: a search "
                                             "window runs forward"))
        if _readable(folder, "queue.csv", QUEUE_COLUMNS_WITHOUT_CATEGORY):
            out += _queue_problems(folder, corpus.protocol, tax)
        if meta_ok:
            out += _stamp_problems(corpus, folder)
            out += _query_problems(folder, corpus)
        if _readable(folder, "duplicates.csv", DUPLICATE_COLUMNS):
            out += _cell_problems(folder.path("duplicates.csv"), folder.duplicates)
            out += _matched_problems(corpus, folder)
        if folder.meta is not None and not folder.missing and not unread:
            # a sheet whose cells of its records are named wrong already: its records are judged once they read
            named = {p.file for p in out if p.field in FOUND_CELLS and p.line is not None}
            out += [p for p in _count_problems(folder, corpus) if p.file not in named]
    return out + _requeued_problems(corpus)


_QUEUE_ROW = re.compile(rf"(?:{re.escape(ROUNDS)}(?P<round>[^/]+)/)?queue\.csv:(?P<line>[0-9]+)")


def _matched_problems(corpus: Corpus, folder: RoundFolder) -> list[Problem]:
    """A duplicate that names a queue row (``queue.csv:N`` of its round, ``corpus/rounds/<id>/queue.csv:N`` of an
    earlier one) names a row that is there and can be its paper (:func:`masrl.bib.matching.may_be_one_paper`),
    itself or through the other duplicates naming that row (a preprint found one paper with the row's venue
    version by a record naming both): a round renamed by hand, or a merge that moved one, would leave it
    naming another paper."""
    from ..analyses.rounds import row_identifiers
    from ..bib.identifiers import as_mapping
    from ..bib.matching import make_known, may_be_one_paper

    def known(row):
        return make_known("", "", row.get("title"), as_mapping(row_identifiers(row.get("identifier"))))

    file, out, lines = folder.path("duplicates.csv"), [], {}  # round id -> its queue rows by line, read once
    naming: dict[tuple[str, int], list] = {}  # the queue row named -> the duplicates naming it
    for row in folder.duplicates:
        named = _QUEUE_ROW.fullmatch(row.get("matched") or "")
        if named is None:
            continue
        other = corpus.rounds.get(named["round"] or folder.round_id)
        if other is None:
            out.append(Problem(file, row.line, "matched", f"{row.get('matched')!r} names a round that is not under {ROUNDS}"))
            continue
        if not _rows_as_searched(corpus, other):
            continue  # a sheet unread, or rows added or deleted by hand: said once, by its own checks
        if other.round_id not in lines:
            lines[other.round_id] = {q.line: q for q in other.queue}
        if lines[other.round_id].get(int(named["line"])) is None:
            out.append(Problem(file, row.line, "matched", f"{row.get('matched')!r} names no row of that queue"))
        else:
            naming.setdefault((other.round_id, int(named["line"])), []).append(row)
    for (round_id, line), rows in naming.items():
        queued = lines[round_id][line]
        reached, frontier = [known(queued)], [known(queued)]
        left = [(row, known(row)) for row in rows]
        while frontier:  # the duplicates one paper with the row, directly or through another
            paper = frontier.pop()
            joined = [(row, item) for row, item in left if may_be_one_paper(item, paper)]
            left = [(row, item) for row, item in left if all(row is not r for r, _ in joined)]
            frontier += [item for _, item in joined]
            reached += [item for _, item in joined]
        for row, _ in left:
            out.append(Problem(file, row.line, "matched", f"{row.get('matched')} is {queued.get('title')[:60]!r}, another "
                                                          f"paper than this row's {row.get('title')[:60]!r}: a round renamed "
                                                          "after its duplicates were found? name the row of the same paper"))
    return sorted(out, key=lambda p: (p.line or 0))


def _rows_as_searched(corpus: Corpus, folder: RoundFolder) -> bool:
    """Whether a round's queue reads and holds as many rows as its round.yaml counts (its lines are the search's)."""
    counts = (folder.meta or {}).get("counts") if isinstance(folder.meta, dict) else None
    return (folder.path("queue.csv") not in corpus.unreadable and isinstance(counts, dict)
            and counts.get("queued") == len(folder.queue))


def round_form_problems(corpus: Corpus) -> list[Problem]:
    """The problems of every round's ``round.yaml`` with its form (:data:`ROUND_SCHEMA`): what a
    round's counts and window are read from, so that nothing reads them from a broken file."""
    return [p for _, folder in sorted(corpus.rounds.items()) if folder.meta is not None
            for p in _schema_problems(corpus, folder.path("round.yaml"), folder.meta, ROUND_SCHEMA)]


def _requeued_problems(corpus: Corpus) -> list[Problem]:
    """A paper that two rounds queue (branches merged) has one decision: the two rows' decisions agree or
    one is empty (:func:`masrl.analyses.rounds.queued_again`)."""
    out = []
    decisions = {(round_id, row.line): row.get("decision") for round_id, folder in corpus.rounds.items() for row in folder.queue}
    for hit in queued_again(corpus.rounds).values():
        later, earlier = decisions[hit.round_id, hit.line], decisions[hit.earlier_round, hit.earlier_line]
        if later and earlier and later != earlier:
            out.append(Problem(corpus.rounds[hit.round_id].path("queue.csv"), hit.line, "decision",
                               f"{later!r}, but round {hit.earlier_round} queued this paper too ({hit.rule}) and decides "
                               f"{earlier!r} at {hit.earlier}: one paper has one decision; make the two agree, or empty "
                               "this one (the earlier round's row counts)"))
    return out
