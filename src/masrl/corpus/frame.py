"""Validated records -> one typed pandas frame per record kind.

* retained frame: one row per retained record, index ``key`` (sorted);
  one ``Categorical`` column per single-valued controlled field with the
  categories in taxonomy order (the not-applicable value is a category, never a missing value);
  one column of tuples per multi-valued field (``subdecisions``,
  values of a list field); ``year`` as int64; text fields as strings.
* excluded frame: one row per excluded record, index ``record_id``, the same
  conventions; the near-miss what-if tags are not columns (see
  :func:`near_miss_frame`).
"""

from __future__ import annotations

from masrl.core.tabular import pd

from .taxonomy import Taxonomy

RETAINED_TEXT = ("title", "first_author", "affiliation", "venue", "url", "one_liner", "notes", "bibtex_key")
EXCLUDED_TEXT = ("screening_label", "url", "date_screened", "exclusion_reason")


def _frame(records: list[dict], tax: Taxonomy, kind: str, index: str, text: tuple[str, ...]) -> pd.DataFrame:
    records = sorted(records, key=lambda r: r[index])
    data: dict[str, object] = {}
    for name in text:
        data[name] = pd.array([str(r.get(name, "")) for r in records], dtype=object)
    for field in tax.of(kind):
        raw = [r.get(field.name) for r in records]
        if field.multi:
            cells = pd.array([None] * len(raw), dtype=object)
            for i, v in enumerate(raw):
                cells[i] = tuple(v or ())
            data[field.name] = cells
        else:
            # records without the field (benchmark-only fields) hold the empty string
            cats = list(field.values) + ([""] if any(v is None for v in raw) else [])
            data[field.name] = pd.Categorical(["" if v is None else v for v in raw], categories=cats, ordered=True)
    frame = pd.DataFrame(data, index=pd.Index([r[index] for r in records], name=index, dtype=object))
    if kind == "retained":
        frame["year"] = pd.array([int(r["year"]) for r in records], dtype="int64")
    return frame


def retained_frame(records: list[dict], tax: Taxonomy) -> pd.DataFrame:
    """DataFrame, one row per retained record (index ``key``), typed as described in the module doc."""
    return _frame(records, tax, "retained", "key", RETAINED_TEXT)


def excluded_frame(records: list[dict], tax: Taxonomy) -> pd.DataFrame:
    """DataFrame, one row per excluded record (index ``record_id``), typed as described in the module doc."""
    return _frame(records, tax, "excluded", "record_id", EXCLUDED_TEXT)


def near_miss_frame(records: list[dict], tax: Taxonomy) -> pd.DataFrame:
    """DataFrame in the shape of the retained frame for the excluded records that
    carry ``if_retained`` tags (the survey's near misses), index = record_id.

    Fields a near miss leaves untagged are the taxonomy's not-applicable value (single; empty when
    the field has none) or ``()`` (multi).
    """
    rows = []
    for rec in records:
        tags = rec.get("if_retained")
        if not isinstance(tags, dict):
            continue
        year = rec.get("year")  # the exclusion's own, when it records one (0: not known)
        row = {"key": rec["record_id"], "year": year if isinstance(year, int) and not isinstance(year, bool) else 0,
               "title": rec.get("screening_label", "")}
        for field in tax.of("retained"):
            default = () if field.multi else (tax.not_applicable if tax.not_applicable in field.values else None)
            row[field.name] = tags.get(field.name, default)
        rows.append(row)
    return _frame(rows, tax, "retained", "key", ("title",)) if rows else retained_frame([], tax)
