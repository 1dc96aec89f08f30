"""Checks of the claim ledger (``corpus/claims.yaml``), one function per rule group.

Called by :func:`masrl.checks.validate.validate` with its checker (which collects the
problems). A claim is checked against the population it is about: a claim
about a release names fields, values and records of that release's frozen
snapshot; a claim about the pool those of the working tree.
"""

from __future__ import annotations

import re
from typing import Any

from jsonschema import Draft202012Validator

from ..bib.latex import latex_defines
from ..analyses.claims import BARE_NUMBER, PLACEHOLDER
from ..corpus import schema as schemas
from ..corpus.load import CLAIMS
from ..corpus.population import POOL
from ..corpus.releases import RELEASES, claim_digest, releases_from
from ..corpus.taxonomy import Taxonomy
from .collector import malformed_entries

#: Anchors the claim ledger's report (``reports/claims.md``) has besides its claims' (one heading per claim id).
PAGE_ANCHORS = ("claim-ledger",)
#: Prefixes of the macros masrl generates itself (claim macros may not use them).
GENERATED_MACRO_PREFIXES = ("Num", "Current")


class Scope:
    """What a claim about one population may name: its vocabulary, records and near misses."""

    def __init__(self, tax: Taxonomy, keys: set[str], record_ids: set[str], near_ids: set[str]):
        self.tax, self.keys, self.record_ids, self.near_ids = tax, keys, record_ids, near_ids

    def known(self, population: str) -> set[str]:
        """Record keys (or ids) a check selecting from ``population`` can name."""
        return {"excluded": self.record_ids, "near_misses": self.near_ids,
                "retained_with_near_misses": self.keys | self.near_ids}.get(population, self.keys)


def check_claims(checker, scopes: dict[str, Scope], traces: list[str], listed: frozenset[str] = frozenset()) -> None:
    """Every rule of the ledger: its schema, ids, scopes, filters, records, macros, statements.

    ``listed``: release names of ``corpus/releases.yaml`` whose snapshot did not validate (reported
    there); a claim about one of them is not checked further, and not reported again."""
    corpus = checker.corpus
    if CLAIMS not in corpus.docs:
        if CLAIMS not in corpus.unreadable:
            checker.add(CLAIMS, (), "missing: the claim ledger is required (an empty ledger is the line `claims: []`)")
        return
    before = len(checker.problems)
    checker.schema_errors(CLAIMS, corpus.docs[CLAIMS].value, Draft202012Validator(schemas.CLAIMS_SCHEMA))
    malformed = malformed_entries(checker.problems[before:], "claims")
    if malformed is None:
        return  # the ledger itself is not a list of claims: the checks below need one
    claims = corpus.claims
    ids = [c.get("id") if isinstance(c, dict) else None for c in claims]
    macros: dict[str, tuple] = {}
    for i, claim in enumerate(claims):
        if i in malformed:
            if isinstance(claim, dict) and isinstance(claim.get("statement"), str):
                _statement(checker, claim, ("claims", i))  # its prose is judged in the same run as its form
            continue
        path = ("claims", i)
        if claim["id"] in ids[:i]:
            checker.add(CLAIMS, path + ("id",), f"claim id {claim['id']!r} is used twice")
        elif claim["id"] in PAGE_ANCHORS:
            checker.add(CLAIMS, path + ("id",), f"{claim['id']!r} is the anchor of the claim ledger's own title in "
                                                "reports/claims.md (a link to the claim would open the page's top); "
                                                "choose another id")
        target = claim.get("superseded_by")
        if target is not None and target == claim["id"]:
            checker.add(CLAIMS, path + ("superseded_by",), "a claim cannot be superseded by itself")
        elif target is not None and target not in ids:
            checker.add(CLAIMS, path + ("superseded_by",), f"names claim {target!r}, which does not exist"
                                                           f"{checker.suggest(target, [x for x in ids if isinstance(x, str)])}")
        elif target is not None and claim.get("status") != "superseded":
            checker.add(CLAIMS, path + ("status",), f"{claim.get('status')!r}, but superseded_by names {target!r}: a claim "
                                                    "with a successor is superseded (status: superseded), or remove "
                                                    "superseded_by")
        elif target is not None and (loop := _succession(claims, claim["id"])):
            checker.add(CLAIMS, path + ("superseded_by",), f"{target!r} leads back to this claim ({' -> '.join(loop)}): a "
                                                           "chain of successors ends at a claim that holds now (status: "
                                                           "current)")
        name = claim.get("scope")
        if name is None:
            allowed = ", ".join([POOL, *[s for s in scopes if s != POOL]])
            checker.add(CLAIMS, path, f"say what the claim is about: scope: {allowed}", field=f"claims[{i}].scope")
            continue
        if name not in scopes and name in listed:
            continue  # its release's snapshot is reported already
        if name not in scopes:
            allowed = [POOL, *[s for s in scopes if s != POOL]]
            checker.add(CLAIMS, path + ("scope",), f"{name!r} is neither the pool nor a release; allowed: {', '.join(allowed)}"
                                                    f"{checker.suggest(name, allowed)}")
            continue
        _checks(checker, claim, path, scopes[name], traces, macros)
        _statement(checker, claim, path)
    _frozen(checker, claims, scopes, malformed)


def _frozen(checker, claims: list[dict], scopes: dict[str, Scope], malformed: set[int]) -> None:
    """A claim a release froze (its ``claims:`` in ``corpus/releases.yaml``) is still in the ledger,
    still about that release, and counts what it counted then (:func:`claim_digest`): its numbers
    are the release's published numbers. ``scopes``: the valid populations (a release whose
    snapshot has problems is judged once it is valid; a ``malformed`` claim, reported by the schema, once it
    is well formed)."""
    at = {c["id"]: i for i, c in enumerate(claims) if isinstance(c, dict) and isinstance(c.get("id"), str)}
    new = ("to state a new reading, add a claim about the pool (or a later release) and mark this one "
           "`status: superseded` with `superseded_by:` the new claim")
    for j, rel in enumerate(releases_from(checker.corpus.releases)):
        if rel.name not in scopes:
            continue
        for cid, digest in rel.claims:
            i = at.get(cid)
            if i in malformed:
                continue
            if i is None:
                checker.add(RELEASES, ("releases", j, "claims", cid), f"claim {cid!r} about release {rel.name} is not in "
                            f"{CLAIMS}, but the release froze it with its numbers: restore it (a claim that no longer "
                            "holds stays on record, marked superseded)")
            elif claims[i].get("scope") != rel.name:
                checker.add(CLAIMS, ("claims", i, "scope"), f"{claims[i].get('scope')!r}, but release {rel.name} froze this "
                            f"claim with its numbers ({RELEASES}): it stays about {rel.name}; {new}")
            elif claim_digest(claims[i]) != digest:
                checker.add(CLAIMS, ("claims", i, "checks"), f"what claim {cid!r} counts changed since release {rel.name} "
                            f"froze it ({RELEASES} records the digest of its checks): a release's numbers never change. "
                            f"Restore its checks (git diff {CLAIMS}); {new}")


def _succession(claims: list[dict], start: str) -> list[str]:
    """The ids from ``start`` along ``superseded_by`` when they come back to ``start`` (a loop), else []."""
    successor = {c["id"]: c.get("superseded_by") for c in claims if isinstance(c, dict) and isinstance(c.get("id"), str)}
    chain, seen, at = [start], {start}, successor.get(start)
    while at is not None and at not in seen:
        chain.append(at)
        seen.add(at)
        at = successor.get(at)
    return chain + [start] if at == start else []


def _checks(checker, claim: dict, path: tuple, scope: Scope, traces: list[str], macros: dict) -> None:
    labels = [c["label"] for c in claim["checks"]]
    check_ids = [c.get("id") for c in claim["checks"]]
    for j, check in enumerate(claim["checks"]):
        cpath = path + ("checks", j)
        if check["label"] in labels[:j]:
            checker.add(CLAIMS, cpath + ("label",), f"two checks of claim {claim['id']!r} have the label {check['label']!r}")
        if check.get("id") is not None and check["id"] in check_ids[:j]:
            checker.add(CLAIMS, cpath + ("id",), f"two checks of claim {claim['id']!r} have the id {check['id']!r}")
        population = check.get("population", "retained")
        for key in ("where", "of"):
            for name, cond in (check.get(key) or {}).items():
                filter_condition(checker, cpath + (key, name), name, cond, population, scope.tax, scope.known(population))
        low = max([check[k] for k in ("count", "min_count") if isinstance(check.get(k), int)], default=None)
        high = min([check[k] for k in ("count", "max_count") if isinstance(check.get(k), int)], default=None)
        if low is not None and high is not None and low > high:
            bounds = ", ".join(f"{k}: {check[k]}" for k in ("count", "min_count", "max_count") if k in check)
            checker.add(CLAIMS, cpath, f"no count can meet {bounds}: the check could never hold")
        if "of" in check and "max_percent" not in check:
            checker.add(CLAIMS, cpath + ("of",), "'of' is the denominator of a share: use it with max_percent")
        known = scope.known(population)
        for key in check.get("keys") or []:
            if key not in known:
                checker.add(CLAIMS, cpath + ("keys",), f"names record {key!r}, which is not in the {population} population "
                                                       f"of {claim['scope']}{checker.suggest(key, known)}")
        if "trace_valid" in check and not traces:
            checker.add(CLAIMS, cpath + ("trace_valid",), "this survey has no orchestration traces: set traces: true in "
                                                          "corpus/taxonomy.yaml to check the packaged example traces")
        elif "trace_valid" in check and check["trace_valid"] not in traces:
            checker.add(CLAIMS, cpath + ("trace_valid",), f"no packaged example trace {check['trace_valid']!r}; known: {', '.join(traces)}")
        macro = check.get("macro")
        if macro is not None:
            if macro.startswith(GENERATED_MACRO_PREFIXES):
                checker.add(CLAIMS, cpath + ("macro",), f"macro names starting with {' or '.join(map(repr, GENERATED_MACRO_PREFIXES))} "
                                                        f"are generated by masrl; choose another than {macro!r}")
            elif isinstance(macro, str) and (macro.islower() or macro.startswith("end")):
                checker.add(CLAIMS, cpath + ("macro",), f"{macro!r}: LaTeX and its classes define most names in lower "
                                                        "case (\\small, \\table), and \\newcommand refuses any that "
                                                        "begins with 'end': write it with capitals, such as ShareLearned")
            elif isinstance(macro, str) and latex_defines(macro):
                checker.add(CLAIMS, cpath + ("macro",), f"{macro!r}: \\{macro} is a command of LaTeX already, which "
                                                        "\\newcommand in reports/tex/numbers.tex would refuse: choose a "
                                                        "name of your own (such as ShareLearned)")
            elif macro in macros:
                checker.add(CLAIMS, cpath + ("macro",), f"macro {macro!r} is already defined by claims[{macros[macro][0]}].checks[{macros[macro][1]}]")
            macros.setdefault(macro, (path[1], j))


def _statement(checker, claim: dict, path: tuple) -> None:
    """A statement quotes numbers only through placeholders naming checks that state one."""
    listed = claim.get("checks") if isinstance(claim.get("checks"), list) else []
    checks = {c["id"]: c for c in listed if isinstance(c, dict) and isinstance(c.get("id"), str) and c["id"]}
    statement = claim["statement"]
    for match in PLACEHOLDER.finditer(statement):
        check = checks.get(match.group(1))
        if check is None:
            checker.add(CLAIMS, path + ("statement",), f"placeholder {match.group(0)} names no check of this claim; "
                                                       f"check ids: {', '.join(checks) or 'none (give a check an id)'}"
                                                       f"{checker.suggest(match.group(1), checks)}")
        elif match.group(2) and "keys" not in check:
            checker.add(CLAIMS, path + ("statement",), f"placeholder {match.group(0)}: check {match.group(1)!r} states no keys")
        elif not match.group(2) and "trace_valid" in check:
            checker.add(CLAIMS, path + ("statement",), f"placeholder {match.group(0)}: check {match.group(1)!r} states no number")
    prose = PLACEHOLDER.sub("", statement)
    braced = (m.group() for m in re.finditer(r"\{+[^{}]*\}*|\}+", statement))  # as written: '{{id}}', not what is left
    for stray in dict.fromkeys(b for b in braced if not PLACEHOLDER.fullmatch(b)):  # each once, all in one run
        checker.add(CLAIMS, path + ("statement",), f"{stray!r} is not a placeholder: write {{id}} (the stated value of the "
                                                   "check with that id) or {id.keys} (its records)")
    bare = BARE_NUMBER.findall(prose)
    if bare:
        checker.add(CLAIMS, path + ("statement",), f"the number {bare[0]} is written in the statement; take it from a check "
                                                   "instead ({id} quotes the stated value of the check with that id), "
                                                   "so that the prose and the checks cannot disagree")


def filter_condition(checker, path: tuple, name: str, cond: Any, population: str, tax: Taxonomy,
                     known: set[str] | None = None, file: str = CLAIMS) -> None:
    """One condition of a check's ``where`` (or ``of``): a known field of the population's
    records, known operators (``all``/``any`` only on a field with several values), values of the
    vocabulary, and (given ``known``, the population's keys or ids) records that exist. Problems
    are reported in ``file`` (the claim ledger, or the taxonomy for a declaration's filter)."""
    kind = "excluded" if population == "excluded" else "retained"
    plain = {"record_id"} if kind == "excluded" else {"key", "year"}
    field = tax.fields.get(name)
    operators = ("in", "not", "not_in", "all", "any")
    empty = [op for op, arg in cond.items() if arg in ([], {}, None)] if isinstance(cond, dict) else []
    if cond in ([], {}, None) or empty:  # it would select no record ({in: []}) or every one ({all: []}, {not_in: []})
        said = f"{{{empty[0]}: []}}" if empty else repr(cond) if cond is not None else "nothing"
        checker.add(file, path, f"{name}: {said} names no value, so it would select no record or every one; list the "
                                f"values to select")
        return
    if field is None or field.applies_to != kind:
        if name not in plain:
            allowed = [f.name for f in tax.of(kind)] + sorted(plain)
            what = f"unknown field {name!r}" if field is None else f"{name!r} is a field of {field.applies_to} records, not of the {population} population"
            if field is None and kind == "excluded" and name in ("key", "year"):
                what = f"{name!r} filters retained records and near misses; the excluded population has record_id"
            checker.add(file, path, f"{what}{checker.suggest(name, allowed)}")
            return
        if isinstance(cond, dict):
            bad = [op for op in cond if op not in ("in", "not", "not_in")]
            if bad:
                checker.add(file, path, f"unknown operator {bad[0]!r} for {name}; allowed: in, not_in, not")
        named = [v for arg in (cond.values() if isinstance(cond, dict) else [cond])
                 for v in (arg if isinstance(arg, list) else [arg])]
        if name == "year":
            for value in named:
                if type(value) is not int or not 1000 <= value <= 9999:
                    checker.add(file, path, f"{value!r} is not a year: write an integer YYYY (2025), or a list of them")
        if name in ("key", "record_id") and known is not None:
            for value in named:
                if value not in known:
                    checker.add(file, path, f"names record {value!r}, which is not in the {population} population"
                                              f"{checker.suggest(str(value), known)}")
        return
    values = []
    if isinstance(cond, dict):
        for op, arg in cond.items():
            if op not in operators:
                checker.add(file, path, f"unknown operator {op!r}; allowed: {', '.join(operators)}")
            elif op in ("all", "any") and not field.multi:
                checker.add(file, path, f"{op!r} is for a field with several values per record; {name} holds one: "
                                          f"use a value, a list, in, not or not_in")
            values += arg if isinstance(arg, list) else [arg]
    else:
        values = cond if isinstance(cond, list) else [cond]
    for value in values:
        if value not in field.values:
            checker.add(file, path, f"{value!r} is not a value of {name}; allowed: {', '.join(field.values)}{checker.suggest(value, field.labels)}")
