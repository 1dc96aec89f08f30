"""Audit of inclusion decisions (pure functions): what-ifs and consistency.

Second-reader agreement is computed by :mod:`masrl.audits.analysis` with the
coefficients of :mod:`masrl.analyses.agreement`. Here:

* near-miss what-if: every claim recomputed as if the near-miss exclusions
  were retained, with the results that change;
* consistency of every retained record with its BibTeX entry (year, title,
  identifiers, first author), every mismatch with both values;
* how tags were set: the inclusion criterion's provenance, and the tags ``masrl suggest``
  proposed (confirmed or not) counted apart from the others.
"""

from __future__ import annotations

from masrl.core.tabular import pd

from ..bib.bibimport import entry_identifiers
from ..bib.consistency import bibtex_disagreements
from ..bib.identifiers import keys_of
from ..bib.matching import normalize_title
from ..corpus import provenance
from ..corpus.taxonomy import Taxonomy
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


def bibtex_mismatches(records: list[dict]) -> list[dict]:
    """Every disagreement between a retained record and its own BibTeX entry.

    Compares the record's ``year``, ``title`` (normalized: case, braces, punctuation
    and spaces ignored) and venue kind with its ``bibtex`` block
    (:func:`masrl.bib.consistency.bibtex_disagreements`), its ``first_author`` with the
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


#: The groups of suggested tags (:mod:`masrl.corpus.provenance`), apart from hand tags.
SUGGESTED_CONFIRMED = "suggested by masrl suggest, confirmed"
SUGGESTED_DRAFT = "suggested by masrl suggest, not confirmed"


def inclusion_provenance(records: list[dict], tax: Taxonomy) -> dict[str, list[str]]:
    """How each record's inclusion criterion (the field of the taxonomy's ``screening.inclusion``)
    was set, from its ``tag_provenance``: ``{"derived from <field>": keys, "hand-tagged": keys,
    "nearest criterion (no exact fit)": keys, "not recorded": keys}``, where ``<field>`` is the
    field whose values imply the criterion (``implies``), and, only when some record has one,
    :data:`SUGGESTED_CONFIRMED` and :data:`SUGGESTED_DRAFT` (a tag ``masrl suggest`` proposed is
    counted apart from hand tags); ``{}`` without an inclusion field."""
    field = tax.role("inclusion")
    if field is None:
        return {}
    source = next((f.name for f in tax.of("retained") for code in f.values if field in (f.value_spec(code).get("implies") or {})),
                  "another field")
    derived = f"derived from {source}"
    groups: dict[str, list[str]] = {derived: [], "hand-tagged": [], "nearest criterion (no exact fit)": [], "not recorded": []}
    suggested: dict[str, list[str]] = {SUGGESTED_CONFIRMED: [], SUGGESTED_DRAFT: []}
    for rec in records:
        how = (rec.get("tag_provenance") or {}).get(field, "")
        state = provenance.state(how)
        if state is not None:
            suggested[SUGGESTED_CONFIRMED if state == provenance.CONFIRMED else SUGGESTED_DRAFT].append(rec["key"])
        elif how.startswith("derived"):
            groups[derived].append(rec["key"])
        elif "nearest" in how:
            groups["nearest criterion (no exact fit)"].append(rec["key"])
        elif how:
            groups["hand-tagged"].append(rec["key"])
        else:
            groups["not recorded"].append(rec["key"])
    groups.update((name, keys) for name, keys in suggested.items() if keys)
    return groups


def suggested_tags(records: list[dict], tax: Taxonomy) -> list[dict]:
    """Per controlled field of retained records, how many tags ``masrl suggest`` proposed, apart
    from the others (hand tags, imports, audits): ``[{"field", "tags", "confirmed": keys,
    "not_confirmed": keys, "other": count}]`` in taxonomy order, only for fields with at least
    one suggested tag (``[]`` when no record has one). ``tags`` counts the records holding the
    field; the state is read from ``tag_provenance`` (:func:`masrl.corpus.provenance.state`)."""
    out = []
    for field in tax.of("retained"):
        holders = [r for r in records if field.name in r]
        confirmed, draft = [], []
        for rec in holders:
            state = provenance.state((rec.get("tag_provenance") or {}).get(field.name))
            if state == provenance.CONFIRMED:
                confirmed.append(rec["key"])
            elif state == provenance.NOT_CONFIRMED:
                draft.append(rec["key"])
        if confirmed or draft:
            out.append({"field": field.name, "tags": len(holders), "confirmed": confirmed, "not_confirmed": draft,
                        "other": len(holders) - len(confirmed) - len(draft)})
    return out
