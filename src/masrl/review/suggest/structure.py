"""The structure of the controlled vocabulary that a suggestion must respect, read from the taxonomy.

Nothing here names a field of this survey: every rule comes from ``corpus/taxonomy.yaml``
(:class:`masrl.corpus.taxonomy.Taxonomy`), the same rules ``masrl validate`` checks
(:mod:`masrl.checks.validate`, ``cross_fields``):

* a field with ``multi: true`` holds a set of values (a list, possibly empty);
* ``required_when: {other: [values]}``: the field exists exactly when the record's ``other``
  holds one of ``values``; it is suggested only together with such a value;
* ``na_iff: {other: value}``: the field holds the taxonomy's ``not_applicable`` value exactly
  when ``other`` is ``value``;
* a value's ``implies: {field: value}`` implies that field's value, as ``masrl validate``
  refuses any other.

:func:`order` puts every field after the fields its rules depend on, so that a suggestion
for a field is made knowing the value (tagged or best suggested) of each of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ...corpus.records import UNTAGGED
from ...corpus.taxonomy import Field, Taxonomy

@dataclass(frozen=True)
class Rule:
    """One constraint on ``field`` from the value of ``other``.

    Attributes:
        kind: ``"required_when"``, ``"na_iff"`` or ``"implied"``.
        field: the constrained field.
        other: the field it depends on.
        values: for ``required_when``, the values of ``other`` under which ``field`` exists; for
            ``na_iff``, the one value of ``other`` that makes ``field`` not applicable; for ``implied``, the
            value of ``other`` that implies ``target``.
        target: for ``implied``, the value ``field`` must take; else None.
    """

    kind: str
    field: str
    other: str
    values: tuple[str, ...]
    target: str | None = None

    def describe(self) -> str:
        """The rule as one phrase, naming the taxonomy key it comes from."""
        if self.kind == "required_when":
            return f"{self.field} exists only when {self.other} is {' or '.join(self.values)} (taxonomy required_when)"
        if self.kind == "na_iff":
            return f"{self.field} is not applicable exactly when {self.other} is {self.values[0]} (taxonomy na_iff)"
        return f"{self.other} {self.values[0]} implies {self.field} {self.target} (taxonomy: value {self.values[0]} of {self.other})"


def fields(tax: Taxonomy) -> list[Field]:
    """The controlled fields of retained records, in taxonomy order."""
    return tax.of("retained")


def rules(tax: Taxonomy) -> tuple[Rule, ...]:
    """Every rule between controlled fields of retained records, in taxonomy order (computed
    once per taxonomy object)."""
    return _rules(tax)


@lru_cache(maxsize=8)
def _rules(tax: Taxonomy) -> tuple[Rule, ...]:
    names = {f.name for f in fields(tax)}
    out: list[Rule] = []
    for field in fields(tax):
        for other, vals in (field.required_when or {}).items():
            if other in names:
                out.append(Rule("required_when", field.name, other, tuple(str(v) for v in (vals if isinstance(vals, list) else [vals]))))
        for other, value in (field.spec.get("na_iff") or {}).items():
            if other in names:
                out.append(Rule("na_iff", field.name, other, (str(value),)))
    for field in fields(tax):
        for code in field.values:
            for target_name, target in (field.value_spec(code).get("implies") or {}).items():
                if target_name in names and target_name != field.name and isinstance(target, str) and target in tax.values(target_name):
                    out.append(Rule("implied", target_name, field.name, (code,), target))
    return tuple(out)


def order(tax: Taxonomy) -> list[Field]:
    """The controlled fields with every field after the fields its rules depend on (taxonomy
    order otherwise). A cycle of rules (not expected in a valid taxonomy) keeps taxonomy order."""
    deps: dict[str, set[str]] = {f.name: set() for f in fields(tax)}
    for rule in rules(tax):
        deps[rule.field].add(rule.other)
    done: list[str] = []
    remaining = [f.name for f in fields(tax)]
    while remaining:
        ready = [n for n in remaining if deps[n] <= set(done)] or remaining[:1]
        done.append(ready[0])
        remaining.remove(ready[0])
    by_name = {f.name: f for f in fields(tax)}
    return [by_name[n] for n in done]


def applies(field: Field, tax: Taxonomy, context: dict) -> bool | None:
    """Whether ``field`` exists for a record whose known values are ``context`` (field -> value):
    True, False, or None when a field its ``required_when`` names is not known yet."""
    for rule in rules(tax):
        if rule.field == field.name and rule.kind == "required_when":
            value = context.get(rule.other)
            if value is None or value == UNTAGGED:
                return None
            if value not in rule.values:
                return False
    return True


def allowed(field: Field, tax: Taxonomy, context: dict) -> tuple[list[str], list[Rule]]:
    """The values ``field`` may take given ``context`` (field -> known value), in taxonomy
    order, and the rules that narrowed them. A multi field's values are the members of its set."""
    values = [v for v in field.values]
    used: list[Rule] = []
    for rule in rules(tax):
        if rule.field != field.name:
            continue
        value = context.get(rule.other)
        if value is None or value == UNTAGGED:
            continue
        if rule.kind == "na_iff":
            keep = [v for v in values if (v == tax.not_applicable) == (value == rule.values[0])]
        elif rule.kind == "implied" and value == rule.values[0]:
            keep = [v for v in values if v == rule.target]
        else:
            continue
        if keep != values:
            values = keep
            used.append(rule)
    return values, used


def dependents(tax: Taxonomy, name: str) -> list[str]:
    """The fields whose rules depend on field ``name``."""
    return sorted({r.field for r in rules(tax) if r.other == name})
