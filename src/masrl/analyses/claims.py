"""The executable claim ledger: ``corpus/claims.yaml`` evaluated against the frames.

A check selects records with a declarative filter (see the header of
``corpus/claims.yaml``) and compares the selection with its expectation
(``count``, ``min_count``, ``max_count``, ``keys``) or asks whether a packaged
example trace validates (``trace_valid``). No code is ever evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..taxonomy import Taxonomy

PLAIN_FIELDS = ("key", "record_id", "year")


@dataclass
class CheckResult:
    """One check of a claim.

    ``expected`` holds the stated expectation (``{"count": 2}``, ``{"keys": [...]}``),
    ``count`` and ``keys`` the computed selection (None for a trace check),
    ``holds`` whether they agree.
    """

    label: str
    population: str
    where: dict
    expected: dict
    count: int | None
    keys: list[str]
    holds: bool
    macro: str | None = None

    def stated(self) -> str:
        """The expectation as text: ``= 2``, ``>= 1``, ``{c3}``, ``valid``."""
        parts = []
        e = self.expected
        if "trace_valid" in e:
            return f"trace {e['trace_valid']} valid"
        if "count" in e:
            parts.append(f"= {e['count']}")
        if "min_count" in e:
            parts.append(f">= {e['min_count']}")
        if "max_count" in e:
            parts.append(f"<= {e['max_count']}")
        if "keys" in e:
            parts.append("{" + ", ".join(e["keys"]) + "}")
        return "; ".join(parts)

    def computed(self) -> str:
        """The computed value as text: ``2`` or ``2 {c3, x}`` or ``valid`` / ``invalid``."""
        if "trace_valid" in self.expected:
            return "valid" if self.holds else "invalid"
        if "keys" in self.expected:
            return f"{self.count} {{" + ", ".join(self.keys) + "}"
        return str(self.count)

    def drift(self) -> int | None:
        """computed count - stated count (None without an exact ``count`` or keys expectation)."""
        if "count" in self.expected and self.count is not None:
            return self.count - int(self.expected["count"])
        if "keys" in self.expected and self.count is not None:
            return self.count - len(self.expected["keys"])
        return None


@dataclass
class ClaimResult:
    """A claim of the ledger with the results of its checks."""

    id: str
    statement: str
    evidence_boundary: str
    source: str
    status: str
    checks: list[CheckResult] = field(default_factory=list)
    superseded_by: str | None = None

    @property
    def holds(self) -> bool:
        """True when every check holds."""
        return all(c.holds for c in self.checks)


def _matches(series: pd.Series, cond, multi: bool) -> pd.Series:
    if isinstance(cond, dict):
        mask = pd.Series(True, index=series.index)
        for op, arg in cond.items():
            args = arg if isinstance(arg, list) else [arg]
            if op == "in":
                mask &= _matches(series, args, multi)
            elif op in ("not", "not_in"):
                mask &= ~_matches(series, args, multi)
            elif op == "all":
                mask &= series.map(lambda tags: all(a in tags for a in args)) if multi else series.astype(str).isin(args) & (len(set(args)) <= 1)
            elif op == "any":
                mask &= _matches(series, args, multi)
        return mask
    values = [str(v) for v in (cond if isinstance(cond, list) else [cond])]
    if multi:
        return series.map(lambda tags: any(v in tags for v in values))
    return series.astype(str).isin(values)


def select(frame: pd.DataFrame, where: dict, tax: Taxonomy) -> list[str]:
    """Sorted keys (index values) of the records of ``frame`` matching every condition of ``where``."""
    mask = pd.Series(True, index=frame.index)
    for name, cond in where.items():
        if name in ("key", "record_id"):
            series = pd.Series(frame.index.astype(str), index=frame.index)
        else:
            series = frame[name]
        multi = name in tax.fields and tax.fields[name].multi
        mask &= _matches(series, cond, multi)
    return sorted(map(str, frame.index[mask]))


def evaluate_check(check: dict, populations: dict[str, pd.DataFrame], tax: Taxonomy, traces_valid: dict[str, bool]) -> CheckResult:
    """Evaluate one check against the named populations (``retained``,
    ``retained_with_near_misses``, ``excluded``) or the trace results."""
    expected = {k: check[k] for k in ("count", "min_count", "max_count", "keys", "trace_valid") if k in check}
    population = check.get("population", "retained")
    if "trace_valid" in check:
        ok = bool(traces_valid.get(check["trace_valid"], False))
        return CheckResult(check["label"], population, {}, expected, None, [], ok, check.get("macro"))
    where = check.get("where") or {}
    keys = select(populations[population], where, tax)
    n = len(keys)
    ok = True
    if "count" in check:
        ok &= n == check["count"]
    if "min_count" in check:
        ok &= n >= check["min_count"]
    if "max_count" in check:
        ok &= n <= check["max_count"]
    if "keys" in check:
        ok &= keys == sorted(check["keys"])
    return CheckResult(check["label"], population, where, expected, n, keys, bool(ok), check.get("macro"))


def claim_results(claims: list[dict], populations: dict[str, pd.DataFrame], tax: Taxonomy, traces_valid: dict[str, bool]) -> list[ClaimResult]:
    """Every claim of the ledger with its evaluated checks, in ledger order."""
    results = []
    for claim in claims:
        result = ClaimResult(
            id=claim["id"], statement=claim["statement"], evidence_boundary=claim["evidence_boundary"],
            source=claim["source"], status=claim["status"], superseded_by=claim.get("superseded_by"),
        )
        result.checks = [evaluate_check(c, populations, tax, traces_valid) for c in claim["checks"]]
        results.append(result)
    return results


def failing_current(results: list[ClaimResult]) -> list[ClaimResult]:
    """The ``current`` claims that do not hold (each makes ``masrl build`` exit 1)."""
    return [r for r in results if r.status == "current" and not r.holds]
