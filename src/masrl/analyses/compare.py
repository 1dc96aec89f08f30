"""What changed between two builds of the corpus (pure): records, cells, claims.

Input: the :class:`~masrl.pipeline.Results` of the corpus before (a git
revision) and after (the working tree). Output: a plain dict that
``masrl diff`` prints as Markdown or JSON.
"""

from __future__ import annotations

from typing import Any


def _flat(value: Any, prefix: str = "") -> dict[str, str]:
    if isinstance(value, dict):
        out: dict[str, str] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list):
        return {prefix: ", ".join(str(v) for v in value)}
    return {prefix: str(value)}


def record_changes(before: dict[str, dict], after: dict[str, dict], controlled: list[str]) -> list[dict]:
    """Field-by-field changes of records present in both: ``{"key", "field", "before", "after"}``,
    controlled fields first (in taxonomy order), then the others alphabetically."""
    rank = {name: i for i, name in enumerate(controlled)}
    changes = []
    for key in sorted(set(before) & set(after)):
        old, new = _flat(before[key]), _flat(after[key])
        fields = sorted(set(old) | set(new), key=lambda f: (rank.get(f, len(rank)), f))
        for field in fields:
            if old.get(field) != new.get(field):
                changes.append({"key": key, "field": field, "before": old.get(field, "(absent)"), "after": new.get(field, "(absent)")})
    return changes


def cell_changes(before, after) -> list[dict]:
    """Every changed cell of every table, and every changed headline count:
    ``{"table", "row", "column", "before", "after"}`` (absent rows/columns count as '(absent)')."""
    changes = []
    for name in ("retained", "excluded", "audited"):
        if before.headline[name] != after.headline[name]:
            changes.append({"table": "headline", "row": name, "column": "count",
                            "before": str(before.headline[name]), "after": str(after.headline[name])})
    old_tables = {t.name: t.frame for t in before.all_tables()}
    new_tables = {t.name: t.frame for t in after.all_tables()}
    for name in list(dict.fromkeys([*new_tables, *old_tables])):
        old, new = old_tables.get(name), new_tables.get(name)
        if new is None:
            changes.append({"table": name, "row": "(table)", "column": "", "before": "present", "after": "(absent)"})
            continue
        rows = list(dict.fromkeys([*(old.index if old is not None else []), *new.index]))
        cols = list(dict.fromkeys([*(old.columns if old is not None else []), *new.columns]))
        for r in rows:
            for c in cols:
                a = str(old.loc[r, c]) if old is not None and r in old.index and c in old.columns else "(absent)"
                b = str(new.loc[r, c]) if r in new.index and c in new.columns else "(absent)"
                if a != b:
                    changes.append({"table": name, "row": str(r), "column": str(c), "before": a, "after": b})
    return changes


def gap_changes(before, after) -> list[dict]:
    """Cells whose gap status changed (empty / sparse / neither): ``{"table", "cell", "before", "after"}``."""
    def status(results):
        return {(g.table, g.row, g.column): f"{g.status} ({g.count})" for g in results.gaps}

    old, new = status(before), status(after)
    out = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            cell = key[1] + (f" x {key[2]}" if key[2] else "")
            out.append({"table": key[0], "cell": cell, "before": old.get(key, "not a gap"), "after": new.get(key, "not a gap")})
    return out


def claim_changes(before, after) -> list[dict]:
    """Every claim check whose computed result or verdict changed:
    ``{"claim", "check", "before", "after", "holds_before", "holds_after"}``; claims
    that appear or disappear are listed with '(absent)'."""
    old = {(c.id, k.label): k for c in before.claims for k in c.checks}
    new = {(c.id, k.label): k for c in after.claims for k in c.checks}
    changes = []
    for key in list(dict.fromkeys([*old, *new])):
        a, b = old.get(key), new.get(key)
        if a and b and a.computed() == b.computed() and a.holds == b.holds:
            continue
        changes.append({
            "claim": key[0], "check": key[1],
            "before": a.computed() if a else "(absent)", "after": b.computed() if b else "(absent)",
            "holds_before": a.holds if a else None, "holds_after": b.holds if b else None,
        })
    return changes


def compare(before, after) -> dict:
    """The whole difference between two builds as a plain dict."""
    old_ret = {r["key"]: r for r in before.retained_records}
    new_ret = {r["key"]: r for r in after.retained_records}
    old_exc = {r["record_id"]: r for r in before.excluded_records}
    new_exc = {r["record_id"]: r for r in after.excluded_records}
    moved = {r.get("former_key"): rid for rid, r in new_exc.items() if r.get("former_key") and rid not in old_exc}
    removed = sorted(set(old_ret) - set(new_ret))
    controlled = [f.name for f in after.tax.of("retained")]
    return {
        "records": {
            "added": [{"key": k, "title": new_ret[k]["title"]} for k in sorted(set(new_ret) - set(old_ret))],
            "removed": [{"key": k, "title": old_ret[k]["title"]} for k in removed if k not in moved],
            "moved_to_exclusions": [{"key": k, "record_id": moved[k], "title": old_ret[k]["title"]} for k in removed if k in moved],
            "retagged": record_changes(old_ret, new_ret, controlled),
        },
        "exclusions": {
            "added": [{"record_id": k, "screening_label": new_exc[k]["screening_label"]}
                      for k in sorted(set(new_exc) - set(old_exc)) if k not in moved.values()],
            "removed": [{"record_id": k, "screening_label": old_exc[k]["screening_label"]} for k in sorted(set(old_exc) - set(new_exc))],
            "changed": record_changes(old_exc, new_exc, [f.name for f in after.tax.of("excluded")]),
        },
        "cells": cell_changes(before, after),
        "gaps": gap_changes(before, after),
        "claims": claim_changes(before, after),
        "failing_current_claims": sorted(c.id for c in after.claims if c.status == "current" and not c.holds),
    }
