"""The executable claim ledger: ``corpus/claims.yaml`` evaluated against the frames.

A claim is *about* one population (its ``scope``): a release (``v1``, the survey
as published: evaluated on that release's frozen records, so adding papers can
never change its verdict) or the current ``pool`` (evaluated on the working
tree's records). A check selects records with a declarative filter (see the
header of ``corpus/claims.yaml``) and compares the selection with its
expectation (``count``, ``min_count``, ``max_count``, ``keys``, ``max_percent``
of a denominator selection) or asks whether a packaged example trace
validates (``trace_valid``). Statements quote numbers only through
placeholders (``{broad}`` is the stated value of the check with id ``broad``),
so the prose and the checks cannot disagree. No code is ever evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from ..corpus.taxonomy import Taxonomy

if TYPE_CHECKING:  # pandas is imported where a mask is made: `masrl validate` reads the ledger's grammar without it
    from masrl.core.tabular import pd

PLAIN_FIELDS = ("key", "record_id", "year")

#: What a check can expect of its selection.
EXPECTATIONS = ("count", "min_count", "max_count", "keys", "max_percent", "trace_valid")

#: Record populations a check can select from, within its claim's scope.
CHECK_POPULATIONS = ("retained", "retained_with_near_misses", "near_misses", "excluded")

#: ``{check_id}`` or ``{check_id.keys}`` in a statement.
PLACEHOLDER = re.compile(r"\{([a-z0-9_]+)(\.keys)?\}")
#: A number written in prose (not part of a code such as A1, B2-B4 or K2.5).
BARE_NUMBER = re.compile(r"(?<![\w.])[0-9]+(?:[.,][0-9]+)?(?![\w])")


def percent(share: float, bound: float | None = None, exact: Fraction | None = None) -> str:
    """A share in [0, 1] as text: ``0.1`` -> ``10%``, ``0.0417`` -> ``4.2%``. With a ``bound`` (a
    percentage) and the ``exact`` share, as many more decimals as it takes for the text to fall on
    the same side of the bound as the share: 16 of 84 against a bound of 19% is ``19.05%``, not the
    ``19%`` that would read as within it."""
    above = None if bound is None or exact is None else exact * 100 > Fraction(str(bound))
    for places in range(1, 13):
        text = f"{share * 100:.{places}f}".rstrip("0").rstrip(".")
        if above is None or (Fraction(text) > Fraction(str(bound))) == above:
            break
    return f"{text}%"


@dataclass(frozen=True)
class CheckResult:
    """One check of a claim, evaluated.

    Attributes:
        id: the check's id (statements refer to it), or None.
        label: what the check counts, in words.
        population: which records of the claim's scope it selects from.
        where: the filter; ``of``: the denominator filter of a share.
        expected: the stated expectation (``{"count": 2}``, ``{"keys": [...]}``, ``{"max_percent": 10}``).
        count: records selected (None for a trace check); ``keys``: their sorted keys. A share
            check selects the records matching both ``where`` and ``of`` (its numerator).
        denominator: records matching ``of`` (share checks only).
        holds: whether computed and stated agree.
        macro: LaTeX macro carrying ``count``, or None.
    """

    id: str | None
    label: str
    population: str
    where: dict
    expected: dict
    count: int | None
    keys: tuple[str, ...]
    holds: bool
    macro: str | None = None
    of: dict | None = None
    denominator: int | None = None

    @property
    def share(self) -> float | None:
        """count / denominator for a share check (None otherwise or when the denominator is 0)."""
        if self.denominator:
            return (self.count or 0) / self.denominator
        return None

    def stated(self) -> str:
        """The expectation as text: ``= 2``, ``>= 1``, ``{c3}``, ``<= 10%``, ``trace survey_example valid``."""
        e = self.expected
        if "trace_valid" in e:
            return f"trace {e['trace_valid']} valid"
        parts = []
        if "count" in e:
            parts.append(f"= {e['count']}")
        if "min_count" in e:
            parts.append(f">= {e['min_count']}")
        if "max_count" in e:
            parts.append(f"<= {e['max_count']}")
        if "max_percent" in e:
            parts.append(f"<= {e['max_percent']}%")
        if "keys" in e:
            parts.append("{" + ", ".join(e["keys"]) + "}")
        return "; ".join(parts)

    def stated_number(self) -> str | None:
        """The number a statement quotes for this check: the stated count, the number of stated
        keys, a bound, or a share in percent; None for a trace check."""
        e = self.expected
        for name in ("count", "min_count", "max_count"):
            if name in e:
                return str(e[name])
        if "keys" in e:
            return str(len(e["keys"]))
        if "max_percent" in e:
            return f"{e['max_percent']}%"
        return None

    def computed(self) -> str:
        """The computed value as text: ``2``, ``2 {c3, x}``, ``2 of 48 = 4.2%``, ``valid`` / ``invalid``."""
        if "trace_valid" in self.expected:
            return "valid" if self.holds else "invalid"
        if "max_percent" in self.expected:
            share = self.share
            if share is None:
                return f"{self.count} of {self.denominator} = n/a"
            exact = Fraction(self.count or 0, self.denominator)
            return f"{self.count} of {self.denominator} = {percent(share, self.expected['max_percent'], exact)}"
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


@dataclass(frozen=True)
class ClaimResult:
    """A claim of the ledger with the results of its checks in its scope."""

    id: str
    statement: str
    evidence_boundary: str
    source: str
    status: str
    scope: str
    checks: tuple[CheckResult, ...] = field(default_factory=tuple)
    superseded_by: str | None = None

    @property
    def holds(self) -> bool:
        """True when every check holds."""
        return all(c.holds for c in self.checks)

    @property
    def text(self) -> str:
        """The statement with every placeholder replaced by its check's stated value."""
        return render_statement(self.statement, {c.id: c for c in self.checks if c.id})


def render_statement(statement: str, checks: dict[str, CheckResult]) -> str:
    """``statement`` with ``{id}`` replaced by the stated number of check ``id`` and
    ``{id.keys}`` by its stated keys (comma-separated). Unknown ids stay as written
    (``masrl validate`` reports them). A share is written with its percent sign, once: ``{p}%``
    reads as ``{p}`` ("at most 50%", never "50%%")."""
    def sub(match: re.Match) -> str:
        check = checks.get(match.group(1))
        if check is None:
            return match.group(0)
        if match.group(2):
            return ", ".join(check.expected.get("keys", [])) or "none"
        number = check.stated_number()
        if number and number.endswith("%") and statement.startswith("%", match.end()):
            return number[:-1]
        return number or match.group(0)

    return PLACEHOLDER.sub(sub, statement)


def _match_values(values: list, cond, multi: bool) -> list[bool]:
    """Which of ``values`` (one per record: a tag, or a list of tags when ``multi``) meet ``cond``
    (a value, a list of values, or a mapping of operators ``in``, ``not``/``not_in``, ``all``,
    ``any``). Plain Python over the values: on a survey's few hundred records this is many times
    faster than a chain of pandas operations per condition (cProfile of ``masrl build``: the
    declared tables call it a few hundred times). A single-valued tag is compared as text, as
    ``Series.astype(str)`` gives it."""
    if isinstance(cond, dict):
        mask = [True] * len(values)
        for op, arg in cond.items():
            args = arg if isinstance(arg, list) else [arg]
            if op in ("in", "any"):
                part = _match_values(values, args, multi)
            elif op in ("not", "not_in"):
                part = [not m for m in _match_values(values, args, multi)]
            elif op == "all":
                if multi:
                    part = [all(a in tags for a in args) for tags in values]
                else:
                    one = len(set(args)) <= 1  # the text of the tag against the values as written (Series.isin)
                    part = [one and str(v) in args for v in values]
            else:
                continue
            mask = [m and p for m, p in zip(mask, part)]
        return mask
    wanted = [str(v) for v in (cond if isinstance(cond, list) else [cond])]
    if multi:
        return [any(v in tags for v in wanted) for tags in values]
    allowed = set(wanted)
    return [str(v) in allowed for v in values]


def _matches(series: pd.Series, cond, multi: bool) -> pd.Series:
    """Boolean Series over ``series``: :func:`_match_values` of its values."""
    from masrl.core.tabular import pd

    return pd.Series(_match_values(series.tolist(), cond, multi), index=series.index, dtype=bool)


def where_mask(frame: pd.DataFrame, where: dict, tax: Taxonomy) -> pd.Series:
    """Boolean Series over ``frame``'s rows: which match every condition of ``where`` (a record that a
    conditional field, ``required_when``, does not apply to meets no condition on that field)."""
    from masrl.core.tabular import pd

    mask = [True] * len(frame)
    for name, cond in where.items():
        values = [str(i) for i in frame.index] if name in ("key", "record_id") else frame[name].tolist()
        mask = [m and p for m, p in zip(mask, condition_mask(values, cond, tax.fields.get(name)))]
    return pd.Series(mask, index=frame.index, dtype=bool)


def condition_mask(values: list, cond, field) -> list[bool]:
    """Which of a column's ``values`` meet one condition of a ``where`` (of a claim, a declared table, a gap's
    plan): the field's (``field``, None for key, record_id and year) values as :func:`_match_values` compares them.
    A record that a conditional field (``required_when``) does not apply to meets no condition on it, not even a
    negation: "not v" counts the records the field applies to whose value is not v, never the others (a record
    without a conditional list field holds no value of it, as one whose list is empty)."""
    multi = field is not None and field.multi
    found = _match_values(values, cond, multi)
    if field is not None and field.required_when is not None:
        found = [p and not (v is None or (not v if multi else v == "")) for p, v in zip(found, values)]
    return found


def select(frame: pd.DataFrame, where: dict, tax: Taxonomy) -> list[str]:
    """Sorted keys (index values) of the records of ``frame`` matching every condition of ``where``."""
    return sorted(map(str, frame.index[where_mask(frame, where, tax)]))


def evaluate_check(check: dict, populations: dict[str, pd.DataFrame], tax: Taxonomy, traces_valid: dict[str, bool]) -> CheckResult:
    """Evaluate one check against the populations of its claim's scope (``retained``,
    ``retained_with_near_misses``, ``near_misses``, ``excluded``) or the trace results."""
    expected = {k: check[k] for k in EXPECTATIONS if k in check}
    population = check.get("population", "retained")
    cid, macro = check.get("id"), check.get("macro")
    if "trace_valid" in check:
        ok = bool(traces_valid.get(check["trace_valid"], False))
        return CheckResult(cid, check["label"], population, {}, expected, None, (), ok, macro)
    where = check.get("where") or {}
    frame = populations[population]
    keys = select(frame, where, tax)
    of = select(frame, check.get("of") or {}, tax) if "max_percent" in check else None
    if of is not None:
        # a share counts the records of its population (``of``) that match ``where``, never a record
        # outside the records it is a share of: "7 of 54" means 7 of those 54
        within = set(of)
        keys = [k for k in keys if k in within]
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
    denominator = None
    if of is not None:
        denominator = len(of)
        ok &= denominator > 0 and n * 100 <= check["max_percent"] * denominator
    return CheckResult(cid, check["label"], population, where, expected, n, tuple(keys), bool(ok), macro,
                       check.get("of"), denominator)


def claim_result(claim: dict, populations: dict[str, pd.DataFrame], tax: Taxonomy, traces_valid: dict[str, bool]) -> ClaimResult:
    """One claim with every check evaluated on ``populations`` (the frames of its scope)."""
    return ClaimResult(
        id=claim["id"], statement=claim["statement"], evidence_boundary=claim["evidence_boundary"],
        source=claim["source"], status=claim["status"], scope=claim.get("scope", "pool"),
        checks=tuple(evaluate_check(c, populations, tax, traces_valid) for c in claim["checks"]),
        superseded_by=claim.get("superseded_by"),
    )


def failing_current(results: list[ClaimResult]) -> list[ClaimResult]:
    """The ``current`` claims that do not hold (each makes ``masrl build`` exit 1)."""
    return [r for r in results if r.status == "current" and not r.holds]


def claim_results(claims: list[dict], populations: dict[str, pd.DataFrame], tax: Taxonomy, traces_valid: dict[str, bool]) -> list[ClaimResult]:
    """Every claim of the ledger evaluated on the same ``populations``, whatever its scope
    (what-if analyses: "what would each claim say of these records?"), in ledger order."""
    return [claim_result(c, populations, tax, traces_valid) for c in claims]
