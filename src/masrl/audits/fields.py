"""What an audit can ask: its kinds, populations, fields and their allowed values.

A tags audit (population ``retained``) asks for single-valued controlled fields
of retained records; the vocabulary is ``corpus/taxonomy.yaml``, whose
``audit.default_fields`` are asked when the sample names none. A screening
audit (population ``excluded`` or ``all``) asks for the screening decision and,
when the decision is ``exclude``, the screening stage and exclusion-reason
class (the fields of the taxonomy's ``screening.stages`` and ``screening.reasons``).
The decision's two values are defined here: they are the screening's outcome
itself, not a vocabulary of the literature.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..corpus.taxonomy import Taxonomy

POPULATIONS = ("retained", "excluded", "all")
KINDS = ("tags", "screening")
#: The first reader of every audit: the values the corpus held at sampling time.
ORIGINAL = "original"
#: Names a reader cannot take: the other columns of the table of disagreements, where readers are columns too.
TABLE_COLUMNS = ("item", "record", "field", "resolved", "by")

DECISION = "decision"
INCLUDE, EXCLUDE = "include", "exclude"


def screening_fields(tax: Taxonomy) -> tuple[str, ...]:
    """Fields of a screening audit, in sheet order: the decision, then the survey's screening
    stage and reason-class fields (``screening`` of the taxonomy), where it declares them."""
    return (DECISION, *[f for f in (tax.role("stages"), tax.role("reasons")) if f])


def default_tag_fields(tax: Taxonomy) -> tuple[str, ...]:
    """Fields a tags audit asks for when the sample names none: the taxonomy's
    ``audit.default_fields``, else every single-valued field of retained records."""
    declared = tax.declared("audit").get("default_fields")
    if isinstance(declared, list) and declared:
        return tuple(str(f) for f in declared)
    return tuple(f.name for f in tax.of("retained") if not f.multi and f.required_when is None)


@dataclass(frozen=True)
class AuditField:
    """One field a reader fills in.

    Attributes:
        name: column and field name.
        values: allowed values in vocabulary order (q = their number).
        labels, definitions: value -> text, for the reader's instructions.
        only_if_excluded: True for the stage and reason class of a screening audit:
            answered only when the decision is ``exclude``, left empty otherwise.
    """

    name: str
    label: str
    values: tuple[str, ...]
    labels: dict[str, str]
    definitions: dict[str, str]
    only_if_excluded: bool = False

    @property
    def value_labels(self) -> dict[str, str]:
        """``{value: label}`` of every allowed value (a "did you mean" maps a label to its value)."""
        return {v: self.labels.get(v, v) for v in self.values}


def kind_of(population: str) -> str:
    """``tags`` for the retained population, ``screening`` otherwise."""
    return "tags" if population == "retained" else "screening"


def _from_taxonomy(tax: Taxonomy, name: str, only_if_excluded: bool = False) -> AuditField:
    field = tax.fields[name]
    return AuditField(name, field.label, field.values, {v: field.value_label(v) for v in field.values},
                      {v: str(field.value_spec(v).get("definition", "")) for v in field.values}, only_if_excluded)


def decision_field(tax: Taxonomy) -> AuditField:
    """The screening decision: include (meets an inclusion criterion) or exclude."""
    inclusion = tax.role("inclusion")
    criteria = (", ".join(tax.values(inclusion)) if inclusion else "") or "the inclusion criteria"
    return AuditField(DECISION, "Screening decision", (INCLUDE, EXCLUDE), {INCLUDE: "include", EXCLUDE: "exclude"}, {
        INCLUDE: f"the record meets one of the inclusion criteria ({criteria}) and is retained",
        EXCLUDE: "the record meets none of the inclusion criteria; give the stage and the exclusion-reason class",
    })


def allowed_fields(tax: Taxonomy, population: str) -> dict[str, AuditField]:
    """Every field an audit of ``population`` may ask for, by name, in sheet order.

    Retained: the single-valued controlled fields every retained record carries (a list
    field has no single value to agree on; a field ``required_when`` some records only has
    none on the others).
    Excluded or all: the decision, the stage and the reason class (:func:`screening_fields`).
    """
    if population == "retained":
        return {f.name: _from_taxonomy(tax, f.name) for f in tax.of("retained") if not f.multi and f.required_when is None}
    out = {DECISION: decision_field(tax)}
    for name in screening_fields(tax)[1:]:
        out[name] = _from_taxonomy(tax, name, only_if_excluded=True)
    return out


def with_vocabulary(allowed: dict[str, AuditField], vocabulary) -> dict[str, AuditField]:
    """``allowed`` with the values of each field as the audit recorded them when it was sampled (its
    ``vocabulary``), in place of today's: an audit is a dated record, so a value retired since is still
    one of its values, a value added since is none, and its agreement (whose categories are these
    values) does not move when the taxonomy changes. A field it recorded nothing for keeps today's
    values; ``masrl audit apply`` writes only values of today's vocabulary."""
    if not isinstance(vocabulary, dict) or not vocabulary:
        return allowed
    out = dict(allowed)
    for name, spec in allowed.items():
        recorded = vocabulary.get(name)
        if not isinstance(recorded, list) or not recorded or spec.name == DECISION:
            continue
        values = tuple(str(v) for v in recorded)
        out[name] = AuditField(spec.name, spec.label, values, {v: spec.labels.get(v, v) for v in values},
                               {v: spec.definitions.get(v, "(a value of the vocabulary when the audit was sampled)")
                                for v in values}, spec.only_if_excluded)
    return out


def released_vocabulary(snapshots, names, date: str) -> dict[str, list[str]]:
    """The values each field of ``names`` had in the first release frozen on or after ``date`` (the
    ``taxonomy`` of its snapshot in ``corpus/releases/``): the vocabulary an audit of that date that
    recorded none (one sampled by an earlier masrl) was sampled under, as near as the releases tell;
    empty when no release followed it (today's vocabulary then stands)."""
    after = sorted(((str(s.get("date")), _natural(str(name)), s) for name, s in snapshots.items()
                    if isinstance(s, dict) and str(s.get("date")) >= str(date) and isinstance(s.get("taxonomy"), dict)),
                   key=lambda found: found[:2])  # releases of one day: in the order of their names (v2 before v10)
    if not after:
        return {}
    fields = after[0][2]["taxonomy"].get("fields")
    out: dict[str, list[str]] = {}
    for name in names if isinstance(fields, dict) else ():
        values = fields.get(name, {}).get("values") if isinstance(fields.get(name), dict) else None
        if isinstance(values, dict) and values:
            out[name] = [str(v) for v in values]
    return out


def _natural(name: str) -> tuple:
    """``name`` as a key that orders the numbers in it by value (``v2`` before ``v10``)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"([0-9]+)", name))


def stratify_choices(tax: Taxonomy, population: str) -> tuple[str, ...]:
    """Fields a sample of ``population`` can be stratified by: the single-valued
    controlled fields every record of it carries (a field its ``required_when`` gives only some
    records would leave the others in no stratum); for ``all``, the decision (retained vs excluded)."""
    if population == "all":
        return (DECISION,)
    return tuple(f.name for f in tax.of(population) if not f.multi and f.required_when is None)
