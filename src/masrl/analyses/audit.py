"""Audit of inclusion decisions (pure functions): agreement, what-ifs, consistency.

* second-reader agreement per field: observed agreement and Cohen's kappa,
  with every disagreement (survey: independent spot-check 2026-05-03 reports
  32/32 for category, is_rl, reward_type and orchestration_form and 31/32 for
  credit_granularity, the halo row);
* near-miss what-if: every claim recomputed as if the near-miss exclusions
  were retained, with the results that change;
* consistency of every retained record with its BibTeX entry (year, title,
  identifiers, first author), every mismatch with both values.

Cohen's kappa is computed here from a pandas crosstab,
kappa = (p_o - p_e) / (1 - p_e), with p_o the observed agreement and p_e the
agreement expected from the two readers' marginal frequencies (Cohen 1960).
scikit-learn's ``cohen_kappa_score`` gives the same value (the tests check
it) but importing scikit-learn costs more than a whole build.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..bibimport import entry_identifiers
from ..identifiers import keys_of
from ..pool_checks import bibtex_disagreements
from ..records import normalize_title
from ..taxonomy import Taxonomy
from .claims import claim_results


def cohen_kappa(first: list[str], second: list[str]) -> float | None:
    """Cohen's kappa of two readers' labels for the same items (unweighted).

    Returns None when it is undefined: no items, or chance agreement p_e = 1
    (both readers used one and the same label for every item).

    Raises:
        ValueError: if the two lists differ in length.
    """
    if len(first) != len(second):
        raise ValueError("both readers must label the same items")
    n = len(first)
    if n == 0:
        return None
    table = pd.crosstab(pd.Series(first, name="a"), pd.Series(second, name="b"))
    labels = sorted(set(first) | set(second))
    table = table.reindex(index=labels, columns=labels, fill_value=0)
    p_o = sum(int(table.loc[v, v]) for v in labels) / n
    p_e = float((table.sum(axis=1) * table.sum(axis=0)).sum()) / (n * n)
    if p_e == 1.0:
        return None
    return (p_o - p_e) / (1.0 - p_e)


@dataclass
class FieldAgreement:
    """Agreement of the two readers on one field: items, agreements, observed
    agreement p_o in [0, 1], Cohen's kappa (None if undefined), and the
    disagreements as ``(key, original, second reader)``."""

    field: str
    items: int
    agree: int
    observed: float
    kappa: float | None
    disagreements: list[tuple[str, str, str]]


def agreement(audit: dict) -> list[FieldAgreement]:
    """Per-field agreement of one second-reader audit (``corpus/audits/*.yaml``), in its field order."""
    out = []
    rows = audit["rows"]
    for name in audit["fields"]:
        first = [str(r["original"][name]) for r in rows]
        second = [str(r["second_reader"][name]) for r in rows]
        agree = sum(a == b for a, b in zip(first, second))
        out.append(FieldAgreement(
            field=name, items=len(rows), agree=agree, observed=agree / len(rows) if rows else 0.0,
            kappa=cohen_kappa(first, second),
            disagreements=[(r["key"], a, b) for r, a, b in zip(rows, first, second) if a != b],
        ))
    return out


def tags_changed_since(audit: dict, records: dict[str, dict]) -> list[tuple[str, str, str, str]]:
    """Rows whose current record no longer carries the audited original tag:
    ``(key, field, original at audit time, current)``."""
    changed = []
    for row in audit["rows"]:
        rec = records.get(row["key"], {})
        for name in audit["fields"]:
            if name in rec and str(rec[name]) != str(row["original"][name]):
                changed.append((row["key"], name, str(row["original"][name]), str(rec[name])))
    return changed


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


def bibtex_mismatches(records: list[dict]) -> list[dict]:
    """Every disagreement between a retained record and its own BibTeX entry.

    Compares the record's ``year``, ``title`` (normalized: case, braces, punctuation
    and spaces ignored) and venue kind with its ``bibtex`` block
    (:func:`masrl.pool_checks.bibtex_disagreements`), its ``first_author`` with the
    first author, and each identifier the BibTeX entry gives (arXiv id in
    ``journal``/``eprint``, ``doi``, ``url``/``howpublished``) with the record's
    canonical ids. One dict per mismatch: ``{"key", "bibtex_key", "field", "record",
    "bibtex", "reason"}``; ``reason`` is the record's ``bibtex_differs`` explanation
    ("" when there is none: ``masrl validate`` refuses those for title, year and venue).
    """
    found = []
    for rec in records:
        bib = rec.get("bibtex") or {}
        key = rec["key"]
        reasons = rec.get("bibtex_differs") or {}

        def add(field, mine, theirs):
            found.append({"key": key, "bibtex_key": rec.get("bibtex_key", ""), "field": field,
                          "record": str(mine), "bibtex": str(theirs), "reason": reasons.get(field, "")})

        for field, mine, theirs in bibtex_disagreements(rec):
            add(field, mine, theirs)
        authors = rec.get("authors") or []
        if authors and normalize_title(authors[0]) != normalize_title(rec.get("first_author", "")):
            add("first_author", rec.get("first_author", ""), authors[0])
        mine = keys_of(rec.get("identifiers"))
        theirs, _ = entry_identifiers({k: str(v) for k, v in bib.items()})
        for ident in sorted({i.key: i for i in theirs}.values(), key=lambda i: i.key):
            if not set(ident.keys()) & mine:
                have = sorted(k.split(":", 1)[1] for k in mine if k.startswith(ident.scheme + ":"))
                add(f"identifiers.{ident.scheme}", ", ".join(have) or "(none)", ident.value)
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
