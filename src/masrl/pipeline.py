"""The pure part of the build: validated corpus -> analyses -> rendered text files.

:func:`analyse` computes every frame, table, gap and claim result once;
:func:`render_text` turns them into ``{relative path: bytes}`` for the writer.
No file-system access here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from . import schema as schemas
from . import bibtex
from .analyses import audit, axes, claims, gaps, prisma, stats
from .analyses.table import Table
from .frame import excluded_frame, near_miss_frame, retained_frame
from .load import Corpus
from .render.csvout import table_csv
from .render.jsonout import json_bytes
from .render.escape import md_text
from .render.markdown import render_template, table_md
from .render import readme as readme_render
from .render.numbers import camel, numbers_tex
from .render.tex import table_tex
from .taxonomy import Taxonomy


@dataclass
class Results:
    """Everything the renderers need, computed once per build.

    Attributes:
        tax: the controlled vocabulary.
        retained, excluded: the typed frames (see :mod:`masrl.frame`).
        near_misses: frame of the near-miss exclusions tagged as if retained.
        retained_records, excluded_records: validated record mappings, sorted by key / record id.
        headline: retained / excluded / audited record counts.
        stats_tables: count tables and crosstabs (STATS.md).
        axis_tables: the survey's taxonomy tables (reward families, credit units, ...).
        gaps, narrowing, joint: the gap analysis.
        claims: the evaluated claim ledger.
        claims_raw: the ledger as written (for what-if re-evaluation).
    """

    tax: Taxonomy
    retained: pd.DataFrame
    excluded: pd.DataFrame
    near_misses: pd.DataFrame
    retained_records: list[dict]
    excluded_records: list[dict]
    headline: dict[str, int]
    stats_tables: list[Table] = field(default_factory=list)
    axis_tables: list[Table] = field(default_factory=list)
    gaps: list[gaps.Gap] = field(default_factory=list)
    narrowing: pd.DataFrame | None = None
    joint: dict = field(default_factory=dict)
    claims: list[claims.ClaimResult] = field(default_factory=list)
    claims_raw: list[dict] = field(default_factory=list)
    traces_valid: dict[str, bool] = field(default_factory=dict)
    prisma: dict = field(default_factory=dict)
    flow_tables: list[Table] = field(default_factory=list)
    audits: dict[str, dict] = field(default_factory=dict)

    def all_tables(self) -> list[Table]:
        """Every table written to reports/tables/ and reports/tex/."""
        return self.stats_tables + self.axis_tables + self.flow_tables

    def table(self, name: str) -> Table:
        """The table called ``name`` (KeyError if there is none)."""
        for table in self.all_tables():
            if table.name == name:
                return table
        raise KeyError(name)

    def populations(self) -> dict[str, pd.DataFrame]:
        """The record populations a claim check can select from."""
        return {
            "retained": self.retained,
            "retained_with_near_misses": pd.concat([self.retained, self.near_misses]),
            "excluded": self.excluded,
        }


def analyse(corpus: Corpus, traces_valid: dict[str, bool] | None = None) -> Results:
    """Compute all analyses of a corpus that :func:`masrl.validate.validate` accepted.

    ``traces_valid`` maps packaged example-trace names to whether they
    validate (for ``trace_valid`` claim checks).
    """
    tax = Taxonomy(corpus.taxonomy)
    retained_records = sorted(corpus.retained.values(), key=lambda r: r["key"])
    excluded_records = sorted(corpus.excluded.values(), key=lambda r: r["record_id"])
    retained = retained_frame(retained_records, tax)
    excluded = excluded_frame(excluded_records, tax)
    results = Results(
        tax=tax,
        retained=retained,
        excluded=excluded,
        near_misses=near_miss_frame(excluded_records, tax),
        retained_records=retained_records,
        excluded_records=excluded_records,
        headline=stats.headline(retained, excluded),
        stats_tables=stats.stats_tables(retained, excluded, tax),
        axis_tables=axes.axis_tables(retained, retained_records, tax),
        gaps=gaps.find_gaps(retained, tax),
        narrowing=gaps.narrowing(retained, tax),
        joint=gaps.joint_coverage(retained, tax),
        claims_raw=list(corpus.claims),
        traces_valid=dict(traces_valid or {}),
        prisma=prisma.prisma_flow(retained, excluded, tax),
        audits={a["audit_id"]: a for _, a in sorted(corpus.audits.items())},
    )
    results.flow_tables = [prisma.prisma_table(results.prisma), prisma.year_by_category(retained, tax)]
    results.claims = claims.claim_results(corpus.claims, results.populations(), tax, results.traces_valid)
    return results


def _table_files(table: Table) -> dict[str, bytes]:
    md = f"# {md_text(table.title)}\n\n" + table_md(table.frame)
    if table.note:
        md += f"\n{md_text(table.note)}\n"
    if table.source:
        md += f"\nSource: {md_text(table.source)}\n"
    return {
        f"reports/tables/{table.name}.csv": table_csv(table.frame),
        f"reports/tables/{table.name}.md": md.encode(),
        f"reports/tex/{table.name}.tex": table_tex(table.frame).encode(),
    }


def macros(results: Results) -> dict[str, int]:
    """LaTeX macro name -> number: headline counts, every count-table cell, claim figures."""
    out = {"NumRetained": results.headline["retained"], "NumExcluded": results.headline["excluded"],
           "NumAudited": results.headline["audited"]}
    for table in results.stats_tables:
        if "_x_" in table.name:
            continue
        for value, count in table.frame["count"].items():
            out[f"Num{camel(table.name)}{camel(str(value))}"] = int(count)
    for claim in results.claims:
        for check in claim.checks:
            if check.macro and check.count is not None:
                out[check.macro] = check.count
    return out


def claim_drift(result: claims.ClaimResult) -> str:
    """Drift of a claim's stated counts from the data: ``+1 (records with ...: stated 7, computed 8)``."""
    parts = []
    for check in result.checks:
        d = check.drift()
        if d:
            stated = check.expected.get("count", len(check.expected.get("keys", [])))
            parts.append(f"{d:+d} ({check.label}: stated {stated}, computed {check.count})")
    return "; ".join(parts) or "none (the stated figures still match the data)"


def render_text(results: Results, readme: str | None = None) -> dict[str, bytes]:
    """Every generated text file except figures: ``{relative posix path: UTF-8 bytes}``.

    With ``readme`` (the current text of README.md), the README with its paper
    list regenerated is included as ``README.md``.

    Raises:
        ValueError: if ``readme`` lacks the paper-list markers.
    """
    out: dict[str, bytes] = {}
    if readme is not None:
        papers = readme_render.papers_markdown(results.retained_records, results.tax, results.headline)
        out["README.md"] = readme_render.splice(readme, papers).encode()
    tax = results.tax
    retained_fields = {f.name for f in tax.of("retained")}
    sections = [
        ("Retained records", [t for t in results.stats_tables if t.name in retained_fields]),
        ("Crosstabs", [t for t in results.stats_tables if "_x_" in t.name]),
        ("Exclusion log", [t for t in results.stats_tables if t.name not in retained_fields and "_x_" not in t.name]),
    ]
    out["reports/STATS.md"] = render_template("stats.md.j2", headline=results.headline, sections=sections, tex=True).encode()
    out["reports/TABLES.md"] = render_template("tables.md.j2", tables=results.axis_tables).encode()
    for table in results.all_tables():
        out.update(_table_files(table))

    by_table: dict[str, list] = {}
    for gap in results.gaps:
        by_table.setdefault(gap.table, []).append(gap)
    out["reports/gaps.md"] = render_template(
        "gaps.md.j2", threshold=tax.sparse_threshold, tables=by_table, narrowing=results.narrowing, joint=results.joint,
        empty=sum(g.status == "empty" for g in results.gaps), sparse=sum(g.status == "sparse" for g in results.gaps),
        skip_fields=sorted(tax.gap_skips[0]), skip_values=sorted(tax.gap_skips[1]),
    ).encode()
    out["reports/gaps.json"] = json_bytes(gaps.gaps_json(results.gaps, results.narrowing, results.joint, tax.sparse_threshold))

    drift = {c.id: claim_drift(c) for c in results.claims}
    out["reports/claims.md"] = render_template("claims.md.j2", claims=results.claims, drift=drift).encode()
    out["reports/tex/numbers.tex"] = numbers_tex(macros(results)).encode()

    out["reports/papers.bib"] = bibtex.export(results.retained_records).encode()
    survey_title = str((tax.data.get("survey") or {}).get("title", "Paper pool"))
    out["reports/papers.html"] = readme_render.papers_html(results.retained_records, results.headline, survey_title).encode()
    out["reports/audit.md"], out["reports/audit.json"] = render_audit(results)

    out["reports/schema/retained-record.schema.json"] = json_bytes(schemas.retained_schema(tax, for_report=True))
    out["reports/schema/excluded-record.schema.json"] = json_bytes(schemas.excluded_schema(tax))
    out["reports/schema/claims.schema.json"] = json_bytes(schemas.CLAIMS_SCHEMA)
    out["reports/schema/taxonomy.schema.json"] = json_bytes(schemas.TAXONOMY_SCHEMA)
    out["reports/schema/audit.schema.json"] = json_bytes(schemas.AUDIT_SCHEMA)
    return out


def audit_data(results: Results) -> dict:
    """Everything of the audit report as plain data (also ``reports/audit.json``)."""
    by_key = {r["key"]: r for r in results.retained_records}
    agreements = []
    for audit_id, data in results.audits.items():
        fields = audit.agreement(data)
        agreements.append({
            "audit_id": audit_id, "description": data.get("description", ""),
            "fields": [
                {"field": f.field, "items": f.items, "agree": f.agree, "observed": round(f.observed, 6),
                 "kappa": None if f.kappa is None else round(f.kappa, 6),
                 "disagreements": [list(d) for d in f.disagreements]}
                for f in fields
            ],
            "changed": [list(c) for c in audit.tags_changed_since(data, by_key)],
        })
    what_if = audit.what_if(results.claims_raw, results.populations(), results.tax, results.traces_valid)
    before = {c.id: c.holds for c in results.claims}
    after: dict[str, bool] = {}
    for row in what_if:
        after[row["claim"]] = after.get(row["claim"], True) and row["holds_after"]
    inclusion = results.table("inclusion_criterion").frame
    return {
        "flow": results.prisma,
        "inclusion_criteria": {str(k): int(v) for k, v in inclusion["count"].items()},
        "inclusion_how": audit.inclusion_provenance(results.retained_records),
        "agreements": agreements,
        "near_misses": [r["record_id"] for r in results.excluded_records if r.get("if_retained")],
        "what_if": what_if,
        "verdict_changed": sorted(cid for cid in before if before[cid] != after.get(cid, before[cid])),
        "bibtex_mismatches": audit.bibtex_mismatches(results.retained_records),
    }


def render_audit(results: Results) -> tuple[bytes, bytes]:
    """``(reports/audit.md, reports/audit.json)``."""
    data = audit_data(results)
    md = render_template(
        "audit.md.j2", flow=data["flow"], prisma_table=results.table("prisma_flow").frame,
        inclusion_table=results.table("inclusion_criterion").frame, inclusion_how=data["inclusion_how"],
        agreements=data["agreements"], near_misses=data["near_misses"],
        what_if_changed=[r for r in data["what_if"] if r["changed"]], verdict_changed=data["verdict_changed"],
        mismatches=data["bibtex_mismatches"],
    )
    return md.encode(), json_bytes(data)
