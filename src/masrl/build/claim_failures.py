"""The message of a current claim the records no longer hold, as `masrl build` and `masrl resolve` print it."""

from __future__ import annotations


def failure_message(build, claim) -> str:
    """One line naming a failing current claim, both values of each failing check, and the
    records that moved it: those selected now that the latest release did not select
    (``+key``) or the reverse (``-key``)."""
    from ..analyses.claims import evaluate_check

    parts = []
    base = build.baseline if claim.scope == "pool" else None
    raw = next((c for c in build.claims_raw if c["id"] == claim.id), {"checks": []})
    for check, spec in zip(claim.checks, raw["checks"]):
        if check.holds:
            continue
        detail = f"{check.label}: stated {check.stated()}, computed {check.computed()}"
        if base is not None and "trace_valid" not in check.expected:
            was = evaluate_check(spec, base.populations(), base.tax, build.traces_valid)
            moved = [f"+{k}" for k in check.keys if k not in was.keys] + [f"-{k}" for k in was.keys if k not in check.keys]
            detail += f" (moved by {', '.join(moved)} since release {base.name})" if moved else f" (as in release {base.name})"
        elif check.keys:
            detail += f" (records: {', '.join(check.keys)})"
        parts.append(detail)
    return (f"masrl: error: claim '{claim.id}' ({claim.text}) no longer holds: {'; '.join(parts)}. "
            f"Revisit the text of the claim in corpus/claims.yaml (and the survey), or the tags.")
