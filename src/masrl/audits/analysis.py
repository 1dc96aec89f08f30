"""Per round and field: the readers' values, agreement with intervals, disagreements (pure).

Round n compares the original values (the corpus at sampling time) with every
reading imported for round n. the stage and reason class of a screening
audit are compared on the items every reader excluded (a reason is only
given for an exclusion); every other field on all items.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analyses.agreement import Agreement, agreement
from ..corpus.taxonomy import SINGLE_STAGE, Taxonomy
from .fields import DECISION, EXCLUDE, INCLUDE, ORIGINAL, AuditField, allowed_fields, with_vocabulary
from .model import Audit, Item, Resolution


@dataclass(frozen=True)
class Disagreement:
    """Readers who gave different values for one item and field.

    ``values``: reader -> value, the original first; ``resolution``: its adjudication, if any.
    """

    item: str
    record: str
    field: str
    values: dict[str, str | None]
    resolution: Resolution | None


@dataclass(frozen=True)
class FieldResult:
    """Agreement on one field in one round. ``scope``: ``all items`` or ``items every reader excluded``."""

    field: str
    scope: str
    agreement: Agreement
    disagreements: list[Disagreement]


@dataclass(frozen=True)
class RoundResult:
    """One round: its readers (original first) and one :class:`FieldResult` per audited field."""

    round: int
    readers: list[str]
    fields: list[FieldResult]


def fields_of(audit: Audit, tax: Taxonomy) -> dict[str, AuditField]:
    """The audit's fields with their vocabularies, in the audit's order."""
    allowed = with_vocabulary(allowed_fields(tax, audit.population), audit.vocabulary)
    return {name: allowed[name] for name in audit.fields if name in allowed}


def reader_values(audit: Audit, round_no: int) -> dict[str, dict[str, dict[str, str | None]]]:
    """reader -> item -> field -> value for one round (the original reader included)."""
    out: dict[str, dict[str, dict[str, str | None]]] = {
        ORIGINAL: {i.item: {name: i.value(name) for name in audit.fields} for i in audit.items}}
    for reading in audit.readings_of(round_no):
        out[reading.reader] = {i.item: {name: reading.values.get(i.item, {}).get(name) for name in audit.fields}
                               for i in audit.items}
    return out


def round_results(audit: Audit, tax: Taxonomy) -> list[RoundResult]:
    """Agreement of every round of an audit, field by field (audit order)."""
    spec = fields_of(audit, tax)
    results = []
    for round_no in audit.rounds():
        values = reader_values(audit, round_no)
        readers = audit.readers(round_no)
        out = []
        for name, field in spec.items():
            items: list[Item] = list(audit.items)
            scope = "all items"
            if field.only_if_excluded:
                items = [i for i in items if all(values[r][i.item][DECISION] == EXCLUDE for r in readers)]
                scope = "items every reader excluded"
            ratings = [tuple(str(values[r][i.item][name]) for r in readers) for i in items]
            disagreements = [
                Disagreement(i.item, i.record, name, {r: values[r][i.item][name] for r in readers},
                             audit.resolution(round_no, i.item, name))
                for i, rating in zip(items, ratings) if len(set(rating)) > 1
            ]
            out.append(FieldResult(name, scope, agreement(ratings, field.values), disagreements))
        results.append(RoundResult(round_no, readers, out))
    return results


def current_values(audit: Audit, retained: dict[str, dict], excluded: dict[str, dict]) -> dict[str, dict[str, str | None]]:
    """item -> the values the corpus holds now for the audit's fields (an item whose record
    is gone is left out). ``retained``: key -> record; ``excluded``: record id -> record.

    A record found under its history (an exclusion now retained with
    ``former_record_id``, a retained record moved to the exclusion log with
    ``former_key``) counts with its current kind.
    """
    moved_in = {str(r.get("former_record_id")): r for r in retained.values() if r.get("former_record_id")}
    moved_out = {str(r.get("former_key")): r for r in excluded.values() if r.get("former_key")}
    out = {}
    for item in audit.items:
        rec = retained.get(item.record) or moved_in.get(item.record)
        if rec is not None:
            out[item.item] = {n: (INCLUDE if n == DECISION else _text(rec.get(n))) for n in audit.fields}
            continue
        rec = excluded.get(item.record) or moved_out.get(item.record)
        if rec is not None:
            out[item.item] = {n: (EXCLUDE if n == DECISION else _text(rec.get(n))) for n in audit.fields}
    return out


def _text(value) -> str | None:
    return None if value is None else str(value)


def changed_since(audit: Audit, retained: dict[str, dict], excluded: dict[str, dict],
                  adjudicated: bool = False) -> list[tuple[str, str, str, str]]:
    """``(record, field, value at sampling time, value now)`` for every audited value the corpus changed since:
    those the audit's own adjudication set (the value now is the latest resolution of that item and field)
    when ``adjudicated``, else the others (edits made apart from the audit)."""
    now = current_values(audit, retained, excluded)
    resolved = {(r.item, r.field): r.resolved for r in sorted(audit.resolutions, key=lambda r: r.round)
                if r.resolved is not None}
    changed = []
    moved_out = {str(r.get("former_key")) for r in excluded.values() if r.get("former_key")}
    for item in audit.items:
        if not adjudicated and DECISION not in audit.fields and item.kind == "retained" and item.record not in retained \
                and item.record in moved_out:  # a tags audit's record moved to the exclusion log since the sample
            changed.append((item.record, DECISION, INCLUDE, EXCLUDE))
            continue
        for name in audit.fields:
            if item.item in now:
                before, after = item.value(name), now[item.item].get(name)
                if not ((after is not None and before is not None and before != after)
                        or (name == DECISION and before != after)):
                    continue
                if (resolved.get((item.item, name)) == str(after)) == adjudicated:
                    changed.append((item.record, name, str(before), str(after)))
    return changed


def confirmations(audits: list[Audit], excluded: dict[str, dict], stage_field: str | None = None) -> dict[str, dict[str, int]]:
    """Exclusions a second reader checked and confirmed, per screening stage (the record's current
    value of ``stage_field``, the taxonomy's ``screening.stages``; without one, the one stage
    ``screening`` of :data:`masrl.corpus.taxonomy.SINGLE_STAGE`).

    An exclusion is *checked* when a reader other than the original read it in
    a screening audit; it is *confirmed* when, in the latest round that read
    it (audits ordered by date), every such reader also chose ``exclude``, or
    when an adjudication of that round resolved its decision as ``exclude``. Records no longer excluded
    are not counted. Returns ``{stage: {"checked": n, "confirmed": m}}`` for
    the stages that have a checked record.
    """
    latest: dict[str, tuple[tuple, bool]] = {}
    for audit in audits:
        if audit.kind != "screening":
            continue
        for round_no in audit.rounds():
            readings = audit.readings_of(round_no)
            for item in audit.items:
                if item.kind != "excluded" or item.record not in excluded:
                    continue
                agree = all(r.values.get(item.item, {}).get(DECISION) == EXCLUDE for r in readings)
                res = audit.resolution(round_no, item.item, DECISION)
                if res is not None and res.resolved is not None:
                    agree = res.resolved == EXCLUDE
                when = (audit.date, audit.audit_id, round_no)
                if item.record not in latest or when >= latest[item.record][0]:
                    latest[item.record] = (when, agree)
    out: dict[str, dict[str, int]] = {}
    for record_id, (_, confirmed) in latest.items():
        stage = str(excluded[record_id].get(stage_field)) if stage_field else SINGLE_STAGE
        counts = out.setdefault(stage, {"checked": 0, "confirmed": 0})
        counts["checked"] += 1
        counts["confirmed"] += int(confirmed)
    return out
