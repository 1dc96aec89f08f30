"""Audits as plain data for ``reports/audit.json``, ``reports/audit.md`` and ``masrl audit show``.

One entry per audit (:func:`audit_entries`): the sample, and per round the
readers, per field the coefficients with 95% intervals (rounded to 6
decimals; see :mod:`masrl.analyses.agreement` for their definitions and
sources), every disagreement with its resolution, and the audited values
the corpus changed since the sample. :func:`audit_markdown` renders entries
with the template shared by the report and the command.
"""

from __future__ import annotations

from ..analyses.agreement import Estimate
from ..corpus.taxonomy import Taxonomy
from .analysis import FieldResult, changed_since, round_results
from .model import Audit


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _ci(est: Estimate) -> list[float] | None:
    return None if est.low is None or est.high is None else [_r(est.low), _r(est.high)]


def _field(result: FieldResult) -> dict:
    a = result.agreement
    return {
        "field": result.field, "scope": result.scope, "items": a.items, "agree": a.agree, "categories": a.categories,
        "observed": _r(a.observed.value), "observed_ci": _ci(a.observed),
        "kappa_name": a.kappa_name, "kappa": _r(a.kappa.value), "kappa_ci": _ci(a.kappa),
        "ac1": _r(a.ac1.value), "ac1_ci": _ci(a.ac1), "pabak": _r(a.pabak.value), "pabak_ci": _ci(a.pabak),
        "prevalence": None if a.prevalence is None else [a.prevalence[0], _r(a.prevalence[1])],
        "paradox": a.paradox,
        "agree_all": a.items > 1 and a.agree == a.items and a.kappa.se == 0.0,
        "disagreements": [
            {"item": d.item, "record": d.record, "values": dict(d.values),
             "resolved": d.resolution.resolved if d.resolution else None,
             "by": d.resolution.by if d.resolution else None,
             "status": "not adjudicated" if d.resolution is None else ("pending" if d.resolution.resolved is None else "resolved")}
            for d in result.disagreements
        ],
    }


def audit_entry(audit: Audit, tax: Taxonomy, retained: dict[str, dict], excluded: dict[str, dict]) -> dict:
    """One audit as plain data (see the module doc). ``retained``: key -> record;
    ``excluded``: record id -> record (for the values changed since the sample)."""
    rounds = []
    for rr in round_results(audit, tax):
        fields = [_field(f) for f in rr.fields]
        statuses = [d["status"] for f in fields for d in f["disagreements"]]
        rounds.append({"round": rr.round, "readers": rr.readers, "fields": fields,
                       "disagreements": len(statuses), "resolved": statuses.count("resolved"),
                       "pending": len(statuses) - statuses.count("resolved")})
    sampling = audit.sampling
    return {
        "audit_id": audit.audit_id, "kind": audit.kind, "population": audit.population, "date": audit.date,
        "description": audit.description, "file": audit.file, "format": "single file" if audit.legacy else "folder",
        "fields": list(audit.fields),
        "sample": {"items": len(audit.items), "seed": sampling.get("seed"), "stratify": sampling.get("stratify"),
                   "method": sampling.get("method"), "strata": list(sampling.get("strata") or [])},
        "rounds": rounds,
        "changed": [list(c) for c in changed_since(audit, retained, excluded)],
        "applied": [list(c) for c in changed_since(audit, retained, excluded, adjudicated=True)],
    }


def audit_entries(audits: list[Audit], tax: Taxonomy, retained: dict[str, dict], excluded: dict[str, dict]) -> list[dict]:
    """:func:`audit_entry` of every audit, in audit-id order."""
    return [audit_entry(a, tax, retained, excluded) for a in audits]


def schema_files() -> dict[str, bytes]:
    """The JSON Schemas of an audit folder's files, as ``reports/schema/`` outputs."""
    from ..render.jsonout import json_bytes
    from .schema import ADJUDICATION_SCHEMA, AUDIT_FILE_SCHEMA, ROUND_SCHEMA

    return {"reports/schema/audit-sample.schema.json": json_bytes(AUDIT_FILE_SCHEMA),
            "reports/schema/audit-round.schema.json": json_bytes(ROUND_SCHEMA),
            "reports/schema/audit-adjudication.schema.json": json_bytes(ADJUDICATION_SCHEMA)}


def audit_markdown(entries: list[dict], heading: str = "###") -> str:
    """The Markdown of the second-reader section for ``entries`` (one heading per audit)."""
    from ..render.markdown import render_template

    return render_template("audit_rounds.md.j2", agreements=entries, h=heading)
