"""The audit report of the pool's tree (``reports/audit.md`` and ``reports/audit.json``): why each
record is in or out, inter-rater agreement of the audit rounds, the near-miss what-if, BibTeX
mismatches and suggested tags (pure; no file access). One entry of :data:`masrl.build.outputs.OUTPUTS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..analyses import audit
from ..analyses.prisma import FLOW_TABLE
from ..audits import report as audit_report
from ..corpus.population import POOL
from ..render.escape import MdSafe, md_text
from ..render.jsonout import json_bytes
from ..render.markdown import render_template

if TYPE_CHECKING:
    from .pipeline import Build


def audit_data(build: "Build") -> dict:
    """Everything of the audit report as plain data (also ``reports/audit.json``), for the pool."""
    results = build.pool
    by_key = {r["key"]: r for r in results.retained_records}
    by_id = {r["record_id"]: r for r in results.excluded_records}
    agreements = audit_report.audit_entries(list(build.audits), results.tax, by_key, by_id)
    what_if = []
    for scope in [POOL, *[r.name for r in build.releases]]:
        scoped = [c for c in build.claims_raw if c.get("scope", POOL) == scope]
        if scoped:
            pop = build.population(scope)
            what_if += audit.what_if(scoped, pop.populations(), pop.tax, build.traces_valid)
    order = {c["id"]: i for i, c in enumerate(build.claims_raw)}
    what_if.sort(key=lambda row: order[row["claim"]])
    before = {c.id: c.holds for c in build.claims}
    after: dict[str, bool] = {}
    for row in what_if:
        after[row["claim"]] = after.get(row["claim"], True) and row["holds_after"]
    inclusion_field = results.tax.role("inclusion")
    inclusion = results.table(inclusion_field).frame if inclusion_field else None
    suggested = audit.suggested_tags(list(results.retained_records), results.tax)
    return {
        "flow": results.prisma,
        "inclusion_criteria": {str(k): int(v) for k, v in inclusion["count"].items()} if inclusion is not None else {},
        "inclusion_how": audit.inclusion_provenance(list(results.retained_records), results.tax),
        "agreements": agreements,
        "near_misses": [r["record_id"] for r in results.excluded_records if r.get("if_retained")],
        "what_if": what_if,
        "verdict_changed": sorted(cid for cid in before if before[cid] != after.get(cid, before[cid])),
        "bibtex_mismatches": audit.bibtex_mismatches(list(results.retained_records)),
        # only a pool with suggested tags has the section (the other reports keep their bytes)
        **({"suggested_tags": suggested} if suggested else {}),
    }


#: The paragraph that opens the near-miss what-if of audit.md, unless the taxonomy gives its own
#: (``sentences.near_misses``; ``{records}``: the near misses).
NEAR_MISSES = ("The exclusion records that carry the tags they would have if retained (`if_retained`) are the near\n"
               "misses ({records}). Every claim is recomputed as if they were retained.")

#: ... when no exclusion record carries such tags.
NO_NEAR_MISSES = ("No exclusion record carries the tags it would have if retained (`if_retained`): there is no near\n"
                  "miss, and every claim reads the retained records only.")


def audit_files(view) -> dict[str, bytes]:
    """``audit.md`` and ``audit.json`` of the pool's tree; ``view``: the :class:`masrl.build.outputs.View` of the pool."""
    data = audit_data(view.build)
    results = view.results
    tax = results.tax
    inclusion_field, group = tax.role("inclusion"), tax.role("included_by")
    intro = tax.sentence("near_misses", NEAR_MISSES).replace("{records}", md_text(", ".join(data["near_misses"])))
    if not data["near_misses"]:
        intro = NO_NEAR_MISSES
    md = render_template(
        "audit.md.j2", flow=data["flow"], prisma_table=results.table(FLOW_TABLE).frame,
        prisma_note=results.table(FLOW_TABLE).note if "update" in data["flow"] else "",  # an update's: its second readers
        inclusion_table=results.table(inclusion_field).frame if inclusion_field else None,
        inclusion_how=data["inclusion_how"], included_by=tax.fields[group].label.lower() if group else "",
        near_miss_intro=MdSafe(intro), near_miss_conclusion=MdSafe(tax.sentence("near_misses_conclusion")),
        agreements_md=MdSafe(audit_report.audit_markdown(data["agreements"])), near_misses=data["near_misses"],
        what_if_changed=[r for r in data["what_if"] if r["changed"]], verdict_changed=data["verdict_changed"],
        mismatches=data["bibtex_mismatches"], suggested_tags=data.get("suggested_tags", []),
    )
    return {"audit.md": md.encode(), "audit.json": json_bytes(data)}
