"""PRISMA 2020 screening flow, computed from the records (pure functions).

Every audited record (retained + excluded) enters the first screening stage;
at each stage (the values of the field the taxonomy declares as the screening
stage, ``screening.stages``, in taxonomy order) the records excluded there leave
the flow, split by exclusion-reason class (``screening.reasons``). What is left
after the last stage is the retained pool, split by the field of
``screening.included_by``. A survey that declares no stage field has one
screening stage, ``screening``; one without a reason field no split by reason.
Published figures this reproduces for release v1: 116 audited, 16 / 9 / 6 / 1
excluded at the four stages, 84 retained.

For an updated review (PRISMA 2020 flow diagram for updated systematic
reviews, Page et al. 2021, BMJ 372:n71, figure 1 "updated reviews"), the flow
also starts from the studies included in the previous version (the last
release), follows only the records identified and screened since, with their
exclusions by stage and reason class, and ends at the total included in this
version (previous - dropped + new). When update rounds ran since the previous version
(:mod:`masrl.analyses.rounds`), the identification step comes from them: records identified per
database (arXiv, Crossref, OpenReview, Semantic Scholar) and, as PRISMA 2020 separates them,
"via other methods": per method searched by the rounds (citation searching) and the records added
by hand; duplicates removed before screening, records
screened and those still awaiting a decision; the exclusions by stage and reason class are
those of the records decided since the previous version.
"""

from __future__ import annotations

from dataclasses import dataclass

from masrl.core.tabular import pd

from ..corpus.taxonomy import SINGLE_STAGE, Taxonomy
from .counts import count_by
from .table import Table

from ..corpus.declarations import FLOW_TABLE  # noqa: F401 (re-exported: the flow table's name)


@dataclass(frozen=True)
class Previous:
    """The previous version of the review: its label and its members.

    Attributes:
        label: how reports name it (``release v1 (2026-05-04)``).
        keys: keys of its retained records; ``record_ids``: ids of its excluded records.
        moved: ids of the excluded records that were retained records of it (moved to the exclusion log
            since, ``former_key`` one of ``keys``): dropped, never newly identified; ``moved_keys``: their
            former keys.
    """

    label: str
    keys: frozenset[str]
    record_ids: frozenset[str]
    moved: frozenset[str] = frozenset()
    moved_keys: frozenset[str] = frozenset()


def _dropped_step(dropped: int, moved: int) -> str:
    """The flow's step of the records dropped since the previous version: moved to the exclusion log, or not."""
    if moved == dropped:
        return "dropped since the previous version (moved to the exclusion log)"
    if not moved:
        return "dropped since the previous version (removed from the records)"
    return f"dropped since the previous version ({moved} moved to the exclusion log, {dropped - moved} removed from the records)"


def _stages(excluded: pd.DataFrame, tax: Taxonomy, entering: int) -> tuple[list[dict], int]:
    stage_field, reason_field = tax.role("stages"), tax.role("reasons")
    if stage_field is None:
        codes, labels = [SINGLE_STAGE], {SINGLE_STAGE: SINGLE_STAGE}
        at = {SINGLE_STAGE: pd.Series(True, index=excluded.index)}
    else:
        codes = list(tax.values(stage_field))
        labels = {c: tax.fields[stage_field].value_label(c) for c in codes}
        at = {c: excluded[stage_field].astype(str) == c for c in codes}
    reasons = list(tax.values(reason_field)) if reason_field else []
    remaining = entering
    stages = []
    for stage in codes:
        here = excluded[at[stage]]
        out = len(here)
        by_reason = {c: int((here[reason_field].astype(str) == c).sum()) for c in reasons}
        if reason_field:
            out = sum(by_reason.values())  # an exclusion counts at its stage and reason class, as in the crosstab
        stages.append({
            "stage": stage,
            "label": labels[stage],
            "assessed": remaining,
            "excluded": out,
            "remaining": remaining - out,
            "by_reason_class": by_reason,
        })
        remaining -= out
    return stages, remaining


def _included(frame: pd.DataFrame, tax: Taxonomy) -> dict[str, int]:
    field = tax.role("included_by")
    return {k: int(v) for k, v in count_by(frame, field, tax).items()} if field else {}


def screening_flow(retained: pd.DataFrame, excluded: pd.DataFrame, tax: Taxonomy, previous: Previous | None = None,
                   rounds: dict | None = None) -> dict:
    """The flow as plain data.

    Returns:
        ``{"audited": int, "stages": [{"stage", "label", "assessed", "excluded",
        "remaining", "by_reason_class": {class: n}}...], "retained": int,
        "retained_by_category": {value: n}, "reason_classes": {class: label},
        "category_labels": {value: label}}`` with every vocabulary value present (the values of
        the fields the taxonomy declares as ``screening.reasons`` and ``screening.included_by``;
        empty mappings when it declares none);
        plus ``"update"`` when ``previous`` is given (a version that only corrects records has one
        too, with no record identified): ``{"previous": label, "previous_included": n, "identified": n,
        "stages": [...] (the new records only), "new_included": n,
        "new_by_category": {value: n}, "dropped": [keys], "total_included": n}``; with
        ``rounds`` (:func:`masrl.analyses.rounds.identification` of the rounds since the previous
        version) the update also has ``"identification": {"rounds", "identified_by_source",
        "identified_by_other_method", "duplicates_removed", "other_methods", "screened",
        "awaiting"}`` (identified_by_other_method: citation searching and the like, by method;
        other_methods: the records added by hand; carried_over: the records added since from the queue
        of a round the previous version covered, which were awaiting a decision then;
        screened (the records to screen) = queued + other methods + carried over = identified + awaiting; awaiting_earlier: the
        candidates of the rounds an earlier version covered that still await a decision, in no other count).

    Raises:
        ValueError: if the flow does not end at the number of retained records
            (it always does for a valid corpus).
    """
    audited = len(retained) + len(excluded)
    stages, remaining = _stages(excluded, tax, audited)
    if remaining != len(retained):
        raise ValueError(f"flow ends at {remaining}, not at {len(retained)} retained records")
    reason_field, group_field = tax.role("reasons"), tax.role("included_by")
    flow = {
        "audited": audited,
        "stages": stages,
        "retained": len(retained),
        "retained_by_category": _included(retained, tax),
        "reason_classes": {c: tax.fields[reason_field].value_label(c) for c in tax.values(reason_field)} if reason_field else {},
        "category_labels": {c: tax.fields[group_field].value_label(c) for c in tax.values(group_field)} if group_field else {},
    }
    if previous is not None:
        update = _update(retained, excluded, tax, previous, rounds)
        if update is not None:
            flow["update"] = update
    return flow


def _update(retained: pd.DataFrame, excluded: pd.DataFrame, tax: Taxonomy, previous: Previous,
            rounds: dict | None = None) -> dict | None:
    new_retained = retained[~retained.index.isin(previous.keys)]
    new_excluded = excluded[~excluded.index.isin(previous.record_ids | previous.moved)]
    dropped = sorted(previous.keys - set(retained.index))
    identified = len(new_retained) + len(new_excluded)
    stages, remaining = _stages(new_excluded, tax, identified)
    if remaining != len(new_retained):
        raise ValueError(f"update flow ends at {remaining}, not at {len(new_retained)} new records")
    update = {
        "previous": previous.label,
        "previous_included": len(previous.keys),
        "identified": identified,
        "stages": stages,
        "new_included": len(new_retained),
        "new_by_category": _included(new_retained, tax),
        "dropped": dropped,
        "dropped_moved": sorted(set(dropped) & previous.moved_keys),
        "total_included": len(previous.keys) - len(dropped) + len(new_retained),
    }
    if rounds:
        carried = int(rounds.get("carried_over", 0))
        other = max(0, identified - rounds["applied"] - carried)
        update["identification"] = {
            "rounds": list(rounds["rounds"]), "identified_by_source": dict(rounds["identified_by_source"]),
            "identified_by_other_method": dict(rounds.get("identified_by_other_method") or {}),
            "duplicates_removed": rounds["duplicates_removed"], "other_methods": other,
            "screened": rounds["queued"] + other + carried, "awaiting": rounds["awaiting"],
            "found_again": int(rounds.get("found_again", 0)), "carried_over": carried,
            "awaiting_earlier": int(rounds.get("awaiting_earlier", 0))}
    return update


def prisma_table(flow: dict, tax: Taxonomy | None = None) -> Table:
    """The flow as a table: one row per screening stage with records assessed,
    excluded (total and per reason class) and remaining; for an updated review,
    the update's steps instead (see :func:`update_table`). ``tax`` names the stage and
    reason fields in the table's source line."""
    if "update" in flow:
        return update_table(flow)
    rows = []
    for s in flow["stages"]:
        rows.append({"stage": s["stage"], "assessed": s["assessed"], "excluded": s["excluded"],
                     **s["by_reason_class"], "remaining": s["remaining"]})
    frame = pd.DataFrame(rows).set_index("stage")
    return Table(FLOW_TABLE, "Screening flow (PRISMA 2020)", frame,
                 f"computed from exclusions/*.yaml ({_roles(tax)}) and the retained pool",
                 f"{flow['audited']} audited records; {flow['retained']} retained after the last stage.")


def _roles(tax: Taxonomy | None) -> str:
    """The stage and reason fields of the screening, as the flow table's source names them."""
    names = [tax.role(r) for r in ("stages", "reasons")] if tax is not None else []
    return ", ".join(n for n in names if n) or "the exclusion log"


def update_table(flow: dict) -> Table:
    """The PRISMA 2020 flow of an updated review as a table: one row per step
    (included in the previous version; new records identified and screened;
    excluded at each stage, per reason class; new included; dropped; total
    included), records in column ``records``."""
    up = flow["update"]
    classes = list(flow["reason_classes"])
    blank = {c: "" for c in classes}
    rows = [{"step": "included in the previous version", "records": up["previous_included"], **blank}]
    ident = up.get("identification")
    if ident:
        rows += [{"step": f"records identified from {source} (update rounds)", "records": n, **blank}
                 for source, n in ident["identified_by_source"].items()]
        rows += [{"step": f"records identified by {method} (update rounds; other methods)", "records": n, **blank}
                 for method, n in (ident.get("identified_by_other_method") or {}).items()]
        rows += [
            {"step": "duplicates removed before screening", "records": ident["duplicates_removed"], **blank},
            {"step": "records identified by other methods (added by hand)", "records": ident["other_methods"], **blank},
            *([{"step": "awaiting a decision at the previous version (found by its update rounds)",
                "records": ident["carried_over"], **blank}] if ident.get("carried_over") else []),
            {"step": "records to screen", "records": ident["screened"], **blank},
            {"step": "awaiting a screening decision", "records": ident["awaiting"], **blank},
            *([{"step": "still awaiting a decision since an earlier version (found by its update rounds)",
                "records": ident["awaiting_earlier"], **blank}] if ident.get("awaiting_earlier") else []),
            {"step": "new records with a screening decision", "records": up["identified"], **blank},
        ]
    else:
        rows.append({"step": "new records identified and screened", "records": up["identified"], **blank})
    for s in up["stages"]:
        rows.append({"step": f"excluded at {s['label']}", "records": s["excluded"],
                     **{c: s["by_reason_class"].get(c, 0) for c in classes}})
    rows += [
        {"step": "new records included", "records": up["new_included"], **blank},
        {"step": _dropped_step(len(up["dropped"]), len(up.get("dropped_moved", up["dropped"]))), "records": len(up["dropped"]),
         **blank},
        {"step": "total included in this version", "records": up["total_included"], **blank},
    ]
    frame = pd.DataFrame(rows).set_index("step")
    frame[classes] = frame[classes].astype(str)
    source = "computed from the records: those of the previous version (its frozen snapshot) and those added since"
    if ident:
        source += f"; identification from the update rounds {', '.join(ident['rounds'])} (corpus/rounds/)"
        if ident.get("found_again"):
            source += (f"; {ident['found_again']} record(s) that a later round found again are counted once, "
                       "where they were first identified")
    return Table(FLOW_TABLE, "Screening flow of this update (PRISMA 2020 for updated reviews)", frame, source,
                 f"Previous version: {up['previous']}. Total included = {up['previous_included']} - {len(up['dropped'])} + "
                 f"{up['new_included']} = {up['total_included']}; {flow['audited']} records audited over all versions.",
                 layout=f"update of {up['previous']}")


def second_reader_note(table: Table, confirmed: dict[str, dict[str, int]], tax: Taxonomy) -> Table:
    """An updated review's flow table (its rows count the records added since the previous version) with the
    exclusions a second reader checked and confirmed over the whole exclusion log said in its note, per stage."""
    if not confirmed:
        return table
    stages = tax.role("stages")
    shown = "; ".join(f"{tax.label(stages, stage) if stages else stage} {n['checked']} checked, {n['confirmed']} confirmed"
                      for stage, n in confirmed.items())
    note = (f"{table.note} Second reader, over the whole exclusion log: {shown} (exclusions a screening audit re-read "
            "at each stage, and those the reader also excluded or adjudication kept excluded).").strip()
    return Table(table.name, table.title, table.frame, f"{table.source}; screening audits under corpus/audits/", note,
                 table.layout)


def with_second_reader(table: Table, confirmed: dict[str, dict[str, int]]) -> Table:
    """The flow table plus, per stage, the exclusions a second reader checked and confirmed.

    ``confirmed`` is ``{stage: {"checked": n, "confirmed": m}}`` (from
    :func:`masrl.audits.analysis.confirmations`). When no exclusion has been
    audited the table is returned unchanged, so the survey's published table keeps its shape.
    """
    if not confirmed:
        return table
    frame = table.frame.copy()
    frame["2nd reader checked"] = [int(confirmed.get(stage, {}).get("checked", 0)) for stage in frame.index]
    frame["2nd reader confirmed"] = [int(confirmed.get(stage, {}).get("confirmed", 0)) for stage in frame.index]
    note = (f"{table.note} Second reader: exclusions a screening audit re-read at each stage, and those the "
            "reader also excluded (or adjudication kept excluded).").strip()
    return Table(table.name, table.title, frame, f"{table.source}; screening audits under corpus/audits/", note)
