"""What an audit can ask: its kinds, populations, fields and their allowed values.

A tags audit (population ``retained``) asks for single-valued controlled fields
of retained records; the vocabulary is ``corpus/taxonomy.yaml``. A screening
audit (population ``excluded`` or ``all``) asks for the screening decision and,
when the decision is ``exclude``, the screening stage and exclusion-reason
class (``stage`` and ``reason_class`` of the taxonomy). The decision's two
values are defined here: they are the screening's outcome itself, not a
vocabulary of the literature.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..corpus.taxonomy import Taxonomy

POPULATIONS = ("retained", "excluded", "all")
KINDS = ("tags", "screening")
#: The first reader of every audit: the values the corpus held at sampling time.
ORIGINAL = "original"

DECISION = "decision"
INCLUDE, EXCLUDE = "include", "exclude"
#: Fields of a screening audit, in sheet order.
SCREENING_FIELDS = (DECISION, "stage", "reason_class")
#: Default fields of a tags audit: the survey's spot-check fields.
DEFAULT_TAG_FIELDS = ("category", "is_rl", "reward_type", "credit_granularity", "orchestration_form")


@dataclass(frozen=True)
class AuditField:
    """One field a reader fills in.

    Attributes:
        name: column and field name.
        values: allowed values in vocabulary order (q = their number).
        labels, definitions: value -> text, for the reader's instructions.
        only_if_excluded: True for ``stage`` and ``reason_class`` of a screening
            audit: answered only when the decision is ``exclude``, left empty otherwise.
    """

    name: str
    label: str
    values: tuple[str, ...]
    labels: dict[str, str]
    definitions: dict[str, str]
    only_if_excluded: bool = False


def kind_of(population: str) -> str:
    """``tags`` for the retained population, ``screening`` otherwise."""
    return "tags" if population == "retained" else "screening"


def _from_taxonomy(tax: Taxonomy, name: str, only_if_excluded: bool = False) -> AuditField:
    field = tax.fields[name]
    return AuditField(name, field.label, field.values, {v: field.value_label(v) for v in field.values},
                      {v: str(field.value_spec(v).get("definition", "")) for v in field.values}, only_if_excluded)


def decision_field(tax: Taxonomy) -> AuditField:
    """The screening decision: include (meets an inclusion criterion) or exclude."""
    criteria = ", ".join(tax.values("inclusion_criterion")) or "the inclusion criteria"
    return AuditField(DECISION, "Screening decision", (INCLUDE, EXCLUDE), {INCLUDE: "include", EXCLUDE: "exclude"}, {
        INCLUDE: f"the record meets one of the inclusion criteria ({criteria}) and is retained",
        EXCLUDE: "the record meets none of the inclusion criteria; give the stage and the exclusion-reason class",
    })


def allowed_fields(tax: Taxonomy, population: str) -> dict[str, AuditField]:
    """Every field an audit of ``population`` may ask for, by name, in sheet order.

    Retained: the single-valued controlled fields of retained records (a list
    field such as ``subdecisions`` has no single value to agree on).
    Excluded or all: decision, stage, reason_class.
    """
    if population == "retained":
        return {f.name: _from_taxonomy(tax, f.name) for f in tax.of("retained") if not f.multi}
    out = {DECISION: decision_field(tax)}
    for name in SCREENING_FIELDS[1:]:
        if name in tax.fields:
            out[name] = _from_taxonomy(tax, name, only_if_excluded=True)
    return out


def stratify_choices(tax: Taxonomy, population: str) -> tuple[str, ...]:
    """Fields a sample of ``population`` can be stratified by: the single-valued
    controlled fields of its records; for ``all``, the decision (retained vs excluded)."""
    if population == "all":
        return (DECISION,)
    return tuple(f.name for f in tax.of(population) if not f.multi)
