"""Which tables the gap analysis reads, and checks of its declarations in ``corpus/taxonomy.yaml``.

Kept free of pandas so that ``masrl validate`` can check the declarations
without importing the analysis stack.
"""

from __future__ import annotations

from ..corpus.taxonomy import Taxonomy


def gap_tables(tax: Taxonomy) -> list[str]:
    """Names of the tables the gap analysis takes cells from, in report order."""
    skip_fields = tax.gap_skips[0]
    names = [f.name for f in tax.of("retained") if f.name not in skip_fields]
    for rows, cols in tax.crosstabs:
        if rows in tax.fields and tax.fields[rows].applies_to == "retained" and not {rows, cols} & skip_fields:
            names.append(f"{rows}_x_{cols}")
    return names


def declaration_problems(tax: Taxonomy) -> list[tuple[tuple, str]]:
    """``(path in taxonomy.yaml, message)`` for every gap-analysis declaration that is
    incomplete or names something unknown: a table of the analysis in neither
    ``combine`` nor ``left_out``, a table in both, an unknown table."""
    plan = tax.gap_analysis
    combine, left_out = plan.get("combine") or {}, plan.get("left_out") or {}
    tables = gap_tables(tax)
    problems: list[tuple[tuple, str]] = []
    for name in tables:
        if name not in combine and name not in left_out:
            problems.append((("gap_analysis",), f"table {name!r} is in neither combine nor left_out; "
                                                 "say whether its axes combine, or why it is left out"))
        elif name in combine and name in left_out:
            problems.append((("gap_analysis", "left_out", name), f"table {name!r} is also in combine; keep one"))
    retained = {f.name for f in tax.of("retained")}
    known = set(tables) | retained | {f"{r}_x_{c}" for r, c in tax.crosstabs if r in retained}
    excluded = {f.name for f in tax.of("excluded")} | {f"{r}_x_{c}" for r, c in tax.crosstabs if r not in retained}
    for key, decl in (("combine", combine), ("left_out", left_out)):
        for name in decl:
            if name in excluded:
                problems.append((("gap_analysis", key, name), f"{name!r} is a table of excluded records; the gap "
                                                              "analysis reads the retained records only (remove it)"))
            elif name not in known:
                problems.append((("gap_analysis", key, name), f"{name!r} is not a table of the gap analysis; "
                                                              f"tables: {', '.join(tables)}"))
    return problems  # a named gap's selections are filters of claims: masrl.checks.taxonomy judges them as such
