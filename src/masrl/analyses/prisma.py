"""PRISMA 2020-style screening flow, computed from the records (pure functions).

Every audited record (retained + excluded) enters the first screening stage;
at each stage (in the taxonomy order of ``stage``: abstract, full text,
artifact, duplicate screen) the records excluded there leave the flow, split
by exclusion-reason class (X1-X5, survey: search protocol). What is left after
the last stage is the retained pool, split by category. Published figures
this reproduces: 116 audited, 16 / 9 / 6 / 1 excluded at the four stages,
84 retained.
"""

from __future__ import annotations

import pandas as pd

from ..taxonomy import Taxonomy
from .counts import count_by, crosstab
from .table import Table


def prisma_flow(retained: pd.DataFrame, excluded: pd.DataFrame, tax: Taxonomy) -> dict:
    """The flow as plain data.

    Returns:
        ``{"audited": int, "stages": [{"stage", "label", "assessed", "excluded",
        "remaining", "by_reason_class": {class: n}}...], "retained": int,
        "retained_by_category": {category: n}, "reason_classes": {class: label},
        "category_labels": {category: label}}`` with every vocabulary value present.

    Raises:
        ValueError: if the flow does not end at the number of retained records
            (it always does for a valid corpus).
    """
    audited = len(retained) + len(excluded)
    by_stage = crosstab(excluded, "stage", "reason_class", tax)
    remaining = audited
    stages = []
    for stage in tax.values("stage"):
        out = int(by_stage.loc[stage].sum())
        stages.append({
            "stage": stage,
            "label": tax.fields["stage"].value_label(stage),
            "assessed": remaining,
            "excluded": out,
            "remaining": remaining - out,
            "by_reason_class": {c: int(by_stage.loc[stage, c]) for c in by_stage.columns},
        })
        remaining -= out
    if remaining != len(retained):
        raise ValueError(f"flow ends at {remaining}, not at {len(retained)} retained records")
    categories = count_by(retained, "category", tax)
    return {
        "audited": audited,
        "stages": stages,
        "retained": len(retained),
        "retained_by_category": {k: int(v) for k, v in categories.items()},
        "reason_classes": {c: tax.fields["reason_class"].value_label(c) for c in tax.values("reason_class")},
        "category_labels": {c: tax.fields["category"].value_label(c) for c in tax.values("category")},
    }


def prisma_table(flow: dict) -> Table:
    """The flow as a table: one row per screening stage with records assessed,
    excluded (total and per reason class) and remaining."""
    rows = []
    for s in flow["stages"]:
        rows.append({"stage": s["stage"], "assessed": s["assessed"], "excluded": s["excluded"],
                     **s["by_reason_class"], "remaining": s["remaining"]})
    frame = pd.DataFrame(rows).set_index("stage")
    return Table("prisma_flow", "Screening flow (PRISMA 2020)", frame,
                 "computed from exclusions/*.yaml (stage, reason_class) and the retained pool",
                 f"{flow['audited']} audited records; {flow['retained']} retained after the last stage.")


def year_by_category(retained: pd.DataFrame, tax: Taxonomy) -> Table:
    """Retained records per publication year (every year from the earliest to the
    latest, gaps included) and category (taxonomy order)."""
    years = list(range(int(retained["year"].min()), int(retained["year"].max()) + 1)) if len(retained) else []
    table = pd.crosstab(retained["year"], retained["category"].astype(str)) if len(retained) else pd.DataFrame()
    table = table.reindex(index=years, columns=list(tax.values("category")), fill_value=0).astype("int64")
    table.index.name = "year"
    table.columns.name = None
    return Table("year_x_category", "Retained records per year and category", table,
                 "records' year and category")


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
