"""``reports/gaps.md`` and ``reports/gaps.json`` from the build results.

gaps.md leads with the gaps the survey names (their records and the claim
each supports), then the sections the taxonomy declares (``gap_analysis.sections``:
a table, or the coverage of a list field), then the empty and sparse cells of the
tables whose axes are meant to combine, and the reason each other table is left
out. gaps.json keeps every cell.
"""

from __future__ import annotations

from ..analyses import gaps
from .escape import MdSafe, md_code, md_text
from .jsonout import json_bytes
from .markdown import render_template


def gaps_files(results, claims=(), population: str = "", moved=(), base_name: str = "", release: str = "") -> dict[str, bytes]:
    """``{"gaps.md": ..., "gaps.json": ...}`` (paths relative to the report tree) for one
    population's ``results`` (:class:`masrl.build.pipeline.Results`).

    ``claims``: the evaluated claims the named gaps refer to; ``population``: the line that
    says which population the report is about; ``moved``: cells whose status changed since
    release ``base_name`` (``{"table", "cell", "before", "after"}``; only those of listed tables are shown). A taxonomy that declares
    no ``combine`` tables (one frozen before the declaration existed) lists every table.
    ``release``: the release the report is about ('' for the pool); a named gap's claim about another
    population is then named as such, without its verdict (which the release's report never changes with).
    """
    tax = results.tax
    plan = tax.gap_analysis
    tables = gaps.gap_tables(tax)
    if "combine" in plan:
        combine, left_out = dict(plan.get("combine") or {}), dict(plan.get("left_out") or {})
    else:
        combine = {name: "not declared in this population's taxonomy (every table is listed)" for name in tables}
        left_out = {}
    named = gaps.named_gaps(results.retained, tax, list(claims))
    by_table: dict[str, list] = {name: [] for name in tables if name in combine}
    for gap in results.gaps:
        if gap.table in by_table:
            by_table[gap.table].append(gap)
    listed = [g for cells in by_table.values() for g in cells]
    labelled = {table: [(_cell_label(g, tax), g) for g in cells] for table, cells in by_table.items()}
    titles = {table: _table_title(table, tax) for table in list(by_table) + list(left_out)}
    md = render_template(
        "gaps.md.j2", threshold=tax.sparse_threshold, named=named, tables=labelled, titles=titles, reasons=combine,
        left_out=left_out, sections=[_section(s) for s in results.gap_sections],
        empty=sum(g.status == "empty" for g in listed), sparse=sum(g.status == "sparse" for g in listed),
        total=len(results.gaps), skip_fields=sorted(tax.gap_skips[0]), skip_values=sorted(tax.gap_skips[1]),
        structural=tax.sentence("structural_values"),
        population=population, moved=[m for m in moved if m["table"] in by_table], base_name=base_name, release=release,
    )
    data = gaps.gaps_json(list(results.gaps), tax.sparse_threshold, named, tax, list(results.gap_sections))
    return {"gaps.md": md.encode(), "gaps.json": json_bytes(data)}


def _section(result: gaps.SectionResult) -> dict:
    """One declared section as the template shows it: heading, Markdown intro, and a table
    or the coverage lines."""
    spec = result.section.spec
    out = {"title": result.section.title, "intro": MdSafe(result.section.intro), "table": None, "coverage": None}
    if result.table is not None:
        out["table"] = result.table.frame
    else:
        cov = result.coverage
        columns = [str(c) for c in spec.get("columns") or []] + ["record", "values"]
        out["coverage"] = {"lead": str(spec.get("lead", "Records carrying all of {values}")).replace("{values}", ", ".join(cov["measures"])),
                           "joint": cov["joint"], "rows": cov["by_benchmark"], "header": columns[:2],
                           "empty": str(spec.get("empty", "none"))}
    return out


def _cell_label(gap: gaps.Gap, tax) -> str:
    """``label (`code`)``, or ``code label`` for a field that shows its codes (``show_code``):
    taxonomy labels, codes beside them; a crosstab's two parts joined with ``×``."""
    fields = gap.table.split("_x_", 1) if gap.column else [gap.table]
    parts = []
    for field, code in zip(fields, (gap.row, gap.column)):
        label = tax.fields[field].value_label(code) if field in tax.fields else code
        parts.append(md_text(f"{code} {label}") if field in tax.fields and tax.fields[field].show_code
                     else (md_text(label) if label == code else f"{md_text(label)} ({md_code(code)})"))
    return MdSafe(" × ".join(parts))


def _table_title(table: str, tax) -> str:
    """``Field label (`field`)`` or ``Rows label × Columns label (`rows_x_columns`)``."""
    pair = next(((r, c) for r, c in tax.crosstabs if f"{r}_x_{c}" == table), None)
    names = list(pair) if pair else [table]
    label = " × ".join(tax.fields[n].label if n in tax.fields else n for n in names)
    return MdSafe(f"{md_text(label)} ({md_code(table)})")
