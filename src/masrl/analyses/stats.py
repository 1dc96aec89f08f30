"""The statistics of ``reports/STATS.md`` (survey: artifact docs/STATS.md).

Headline counts, one count table per controlled field (retained and
excluded), and the crosstabs named in ``taxonomy.yaml``. Published values
this reproduces for release v1: 84 retained, 32 excluded, 116 audited, and the
count tables of the survey's statistics snapshot.
"""

from __future__ import annotations

from masrl.core.tabular import pd

from ..corpus.taxonomy import Taxonomy
from .counts import count_by, crosstab
from .table import Table
from ..bib.bibtex import display_name, name_parts
from ..core.names import record_id_order


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
    the counts of the fields of excluded records."""
    tables = [count_table(retained, f.name, tax, "retained") for f in tax.of("retained")]
    for rows, cols in tax.crosstabs:
        frame = retained if tax.fields[rows].applies_to == "retained" else excluded
        tables.append(crosstab_table(frame, rows, cols, tax))
    tables += [count_table(excluded, f.name, tax, "excluded") for f in tax.of("excluded")]
    return tables


def _authors_short(authors) -> str:
    names = [a for a in (authors or []) if a != "others"]
    if not names:
        return ""
    parts = name_parts(names[0])  # a person's last name; an organisation whole, without its braces
    first = parts[0] if parts else display_name(names[0])
    return first if len(names) == 1 and len(authors) == 1 else f"{first} et al."


def log_column(field: str) -> str:
    """The exclusion log's column of a screening field: its name with spaces (``reason class``)."""
    return field.replace("_", " ")


def exclusion_log(records: list[dict], tax: Taxonomy) -> Table:
    """The readable exclusion log: one row per excluded record (index ``record_id``,
    in id order) with title, first author's surname (``et al.`` when more),
    year, screening stage and exclusion-reason class (the fields the taxonomy declares as
    ``screening.stages`` and ``screening.reasons``, as labels; a column each, named after the
    field), the exclusion reason, whether it is a near miss (carries ``if_retained``
    tags) and its landing page. Authors and year are empty where the screening
    log did not record them."""
    stage, reason = tax.role("stages"), tax.role("reasons")
    rows = []
    for rec in sorted(records, key=lambda r: record_id_order(r["record_id"])):
        row = {
            "record_id": rec["record_id"],
            "title": rec.get("screening_label", ""),
            "authors": _authors_short(rec.get("authors")),
            "year": str(rec.get("year", "")),
        }
        if stage:
            row[log_column(stage)] = tax.fields[stage].value_label(rec.get(stage, ""))
        if reason:
            code = rec.get(reason, "")
            row[log_column(reason)] = f"{code} {tax.fields[reason].value_label(code)}".strip()
        row.update({
            "reason": rec.get("exclusion_reason", ""),
            "near miss": "yes" if isinstance(rec.get("if_retained"), dict) else "no",
            "url": rec.get("url", ""),
        })
        rows.append(row)
    columns = ["record_id", "title", "authors", "year", *[log_column(f) for f in (stage, reason) if f],
               "reason", "near miss", "url"]
    frame = pd.DataFrame(rows, columns=columns).set_index("record_id")
    return Table("exclusion_log", "Exclusion log: every screened-but-excluded record", frame,
                 "exclusions/*.yaml (screening stage and exclusion reason as logged; reason class per the search protocol)",
                 "Near misses carry the tags they would have if retained (if_retained), used by the near-miss what-if.")
