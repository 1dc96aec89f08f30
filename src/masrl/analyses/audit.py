"""Audit of inclusion decisions (pure functions): what-ifs and consistency.

Second-reader agreement is computed by :mod:`masrl.audits.analysis` with the
coefficients of :mod:`masrl.analyses.agreement`. Here:

* near-miss what-if: every claim recomputed as if the near-miss exclusions
  were retained, with the results that change;
* consistency of every retained record with its BibTeX entry (year, title,
  identifiers, first author), every mismatch with both values.
"""

from __future__ import annotations

import pandas as pd

from ..bibtex import decode_latex, identifiers_in
from ..records import normalize_identifier, normalize_title
from ..taxonomy import Taxonomy
from .claims import claim_results


def what_if(claims: list[dict], populations: dict[str, pd.DataFrame], tax: Taxonomy, traces_valid: dict[str, bool]) -> list[dict]:
    """Every claim check evaluated with the pool as it is and with the near misses retained.

    Returns one dict per check: ``{"claim", "status", "check", "before", "after", "holds_before",
    "holds_after", "changed"}`` (``before``/``after`` the computed values as text).
    """
    base = claim_results(claims, populations, tax, traces_valid)
    widened = dict(populations, retained=populations["retained_with_near_misses"])
    alt = claim_results(claims, widened, tax, traces_valid)
    rows = []
    for b, a in zip(base, alt):
        for cb, ca in zip(b.checks, a.checks):
            rows.append({
                "claim": b.id, "status": b.status, "check": cb.label,
                "before": cb.computed(), "after": ca.computed(),
                "holds_before": cb.holds, "holds_after": ca.holds,
                "changed": cb.computed() != ca.computed() or cb.holds != ca.holds,
            })
    return rows


def _bib_identifiers(bib: dict) -> dict[str, set[str]]:
    ids: dict[str, set[str]] = {}
    for scheme, value in identifiers_in(bib):
        ids.setdefault(scheme, set()).add(normalize_identifier(scheme, value))
    return ids


def bibtex_mismatches(records: list[dict]) -> list[dict]:
    """Every disagreement between a retained record and its own BibTeX entry.

    Compares the record's ``year`` with ``bibtex.year``, its ``title`` with the
    decoded ``bibtex.title`` (normalized: case, braces, punctuation and spaces ignored), its
    ``first_author`` with the first BibTeX author, and each identifier the
    BibTeX entry gives (arXiv id in ``journal``, ``doi``, ``url``/``howpublished``)
    with the record's ``identifiers``. One dict per mismatch:
    ``{"key", "bibtex_key", "field", "record", "bibtex"}``.
    """
    found = []
    for rec in records:
        bib = rec.get("bibtex") or {}
        key = rec["key"]

        def add(field, mine, theirs):
            found.append({"key": key, "bibtex_key": rec.get("bibtex_key", ""), "field": field,
                          "record": str(mine), "bibtex": str(theirs)})

        if "year" in bib and str(bib["year"]).strip() != str(rec["year"]):
            add("year", rec["year"], bib["year"])
        if "title" in bib:
            theirs = decode_latex(bib["title"])
            if normalize_title(theirs).replace(" ", "") != normalize_title(rec["title"]).replace(" ", ""):
                add("title", rec["title"], theirs)
        authors = rec.get("authors") or []
        if authors and normalize_title(authors[0]) != normalize_title(rec.get("first_author", "")):
            add("first_author", rec.get("first_author", ""), authors[0])
        mine = {}
        for scheme, value in (rec.get("identifiers") or {}).items():
            for item in value if isinstance(value, list) else [value]:
                mine.setdefault(scheme, set()).add(normalize_identifier(scheme, item))
        for scheme, values in sorted(_bib_identifiers(bib).items()):
            for value in sorted(values - mine.get(scheme, set())):
                add(f"identifiers.{scheme}", ", ".join(sorted(mine.get(scheme, set()))) or "(none)", value)
    return found


def inclusion_provenance(records: list[dict]) -> dict[str, list[str]]:
    """How each record's inclusion criterion was set: ``{"derived from category": keys,
    "hand-tagged": keys, "nearest criterion (no exact fit)": keys}``."""
    groups: dict[str, list[str]] = {"derived from category": [], "hand-tagged": [], "nearest criterion (no exact fit)": [], "not recorded": []}
    for rec in records:
        how = (rec.get("tag_provenance") or {}).get("inclusion_criterion", "")
        if how.startswith("derived"):
            groups["derived from category"].append(rec["key"])
        elif "nearest" in how:
            groups["nearest criterion (no exact fit)"].append(rec["key"])
        elif how:
            groups["hand-tagged"].append(rec["key"])
        else:
            groups["not recorded"].append(rec["key"])
    return groups
