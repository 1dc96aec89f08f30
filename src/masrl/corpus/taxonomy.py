"""Read-only view of ``corpus/taxonomy.yaml``: fields, their ordered values, labels.

Every order used by a table, crosstab or figure comes from here (the order of
values in the file). Sources of the vocabulary: the survey's Reward Families
table, credit hierarchy figure, orchestration sub-decisions figure, Topology
Cheat Sheet, Benchmark Gap table and search protocol, as each field and value
of the file says.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    """One controlled field.

    Attributes:
        name: field name in records (``credit_granularity``).
        applies_to: ``"retained"`` or ``"excluded"``.
        multi: True when the field holds a list of values (``subdecisions``).
        values: the allowed codes, in taxonomy order.
        spec: the raw mapping of the field in taxonomy.yaml.
    """

    name: str
    applies_to: str
    multi: bool
    values: tuple[str, ...]
    spec: dict

    @property
    def label(self) -> str:
        """Human label of the field (``Credit unit``)."""
        return str(self.spec.get("label", self.name))

    def value_spec(self, code: str) -> dict:
        """The mapping of one value (label, definition, source, editorial extras)."""
        spec = (self.spec.get("values") or {}).get(code)
        return spec if isinstance(spec, dict) else {}

    def value_label(self, code: str) -> str:
        """Human label of one value (``tool call`` for ``tool``)."""
        return str(self.value_spec(code).get("label", code))

    @property
    def required_when(self) -> dict | None:
        """``{field: [values]}``: the field is present iff the record matches, else None (always required)."""
        return self.spec.get("required_when")


class Taxonomy:
    """The controlled vocabulary.

    Args:
        data: the mapping of ``corpus/taxonomy.yaml``; malformed parts are
            ignored here (``masrl validate`` reports them).
    """

    def __init__(self, data: dict):
        self.data = data if isinstance(data, dict) else {}
        fields = self.data.get("fields")
        self.fields: dict[str, Field] = {}
        for name, spec in (fields.items() if isinstance(fields, dict) else []):
            if not isinstance(spec, dict):
                continue
            values = spec.get("values")
            codes = tuple(str(v) for v in values) if isinstance(values, dict) else ()
            self.fields[name] = Field(name, str(spec.get("applies_to", "retained")), bool(spec.get("multi")), codes, spec)

    def of(self, applies_to: str) -> list[Field]:
        """The controlled fields of retained (``"retained"``) or excluded records, in file order."""
        return [f for f in self.fields.values() if f.applies_to == applies_to]

    def values(self, name: str) -> tuple[str, ...]:
        """Allowed codes of field ``name`` in taxonomy order (``()`` if unknown)."""
        field = self.fields.get(name)
        return field.values if field else ()

    @property
    def sparse_threshold(self) -> int:
        """A cell is sparse when its count is > 0 and <= this (taxonomy ``sparse_threshold``, default 2)."""
        value = self.data.get("sparse_threshold", 2)
        return value if isinstance(value, int) else 2

    @property
    def gap_skips(self) -> tuple[set[str], set[str]]:
        """(fields, values) the gap analysis leaves out (taxonomy ``gap_analysis``;
        default: no field, the value ``NA``)."""
        spec = self.data.get("gap_analysis") if isinstance(self.data.get("gap_analysis"), dict) else {}
        return set(spec.get("skip_fields") or []), set(spec.get("skip_values") or ["NA"])

    @property
    def gap_analysis(self) -> dict:
        """The taxonomy's ``gap_analysis`` mapping (``{}`` if absent): skips, named gaps,
        the tables whose axes combine and the tables left out, each with its reason."""
        spec = self.data.get("gap_analysis")
        return spec if isinstance(spec, dict) else {}

    @property
    def year_minimum(self) -> int:
        """Earliest allowed publication year (taxonomy ``year_minimum``, default 1950)."""
        value = self.data.get("year_minimum", 1950)
        return value if isinstance(value, int) else 1950

    @property
    def identifier_schemes(self) -> dict[str, dict]:
        """Scheme name -> {label, definition, pattern, resolver?, list?}."""
        schemes = self.data.get("identifier_schemes")
        return {k: v for k, v in schemes.items() if isinstance(v, dict)} if isinstance(schemes, dict) else {}

    @property
    def reward_families(self) -> dict[str, dict]:
        """Family id (R1-R8) -> {name, codes, typical_credit_unit, representatives, source}."""
        families = self.data.get("reward_families")
        return {k: v for k, v in families.items() if isinstance(v, dict)} if isinstance(families, dict) else {}

    @property
    def crosstabs(self) -> list[tuple[str, str]]:
        """The (rows, columns) field pairs of the crosstab tables."""
        pairs = self.data.get("crosstabs")
        return [tuple(p) for p in pairs if isinstance(p, list) and len(p) == 2] if isinstance(pairs, list) else []
