"""The statistics of ``reports/STATS.md`` (survey: artifact docs/STATS.md).

Headline counts, one count table per controlled field (retained and
excluded), and the crosstabs named in ``taxonomy.yaml``. Published values
this reproduces: 84 retained, 32 excluded, 116 audited; the category,
reward_type, credit_granularity, orchestration_form and stage counts of the
survey's statistics snapshot.
"""

from __future__ import annotations

import pandas as pd

from ..taxonomy import Taxonomy
from .counts import count_by, crosstab
from .table import Table


def headline(retained: pd.DataFrame, excluded: pd.DataFrame) -> dict[str, int]:
    """``{"retained": n, "excluded": m, "audited": n + m}`` (record counts)."""
    return {"retained": len(retained), "excluded": len(excluded), "audited": len(retained) + len(excluded)}


def count_table(frame: pd.DataFrame, field: str, tax: Taxonomy, population: str) -> Table:
    """Table of one controlled field: index = every value (taxonomy order), columns ``label``, ``count``."""
    spec = tax.fields[field]
    counts = count_by(frame, field, tax)
    table = pd.DataFrame({"label": [spec.value_label(v) for v in counts.index], "count": counts.to_numpy()}, index=counts.index)
    note = "A record counts once under each value it carries." if spec.multi else ""
    return Table(field, f"{spec.label} ({field}) of {population} records", table, str(spec.spec.get("source", "")), note)


def crosstab_table(frame: pd.DataFrame, rows: str, cols: str, tax: Taxonomy) -> Table:
    """Crosstab table ``<rows>_x_<cols>``: every value on both axes, zero cells included."""
    table = crosstab(frame, rows, cols, tax)
    population = "retained" if tax.fields[rows].applies_to == "retained" else "excluded"
    title = f"{tax.fields[rows].label} x {tax.fields[cols].label} ({population} records)"
    return Table(f"{rows}_x_{cols}", title, table, "crosstab of corpus fields")


def stats_tables(retained: pd.DataFrame, excluded: pd.DataFrame, tax: Taxonomy) -> list[Table]:
    """All tables of STATS.md, in report order: retained field counts, crosstabs,
    exclusion-log counts (stage, reason class, source, query family)."""
    tables = [count_table(retained, f.name, tax, "retained") for f in tax.of("retained")]
    for rows, cols in tax.crosstabs:
        frame = retained if tax.fields[rows].applies_to == "retained" else excluded
        tables.append(crosstab_table(frame, rows, cols, tax))
    tables += [count_table(excluded, f.name, tax, "excluded") for f in tax.of("excluded")]
    return tables
