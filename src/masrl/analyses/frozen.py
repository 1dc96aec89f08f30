"""What changed in the frozen releases between two versions of the corpus (pure; ``masrl diff``).

A release never changes: its snapshot (``corpus/releases/<name>.yaml``) is guarded by the
``content_sha256`` that ``corpus/releases.yaml`` records, and its reports
(``reports/releases/<name>/``) are computed from the snapshot alone. An edit of a snapshot
together with a matching digest passes ``masrl validate``, so the diff of a pull request must
show it: every release both sides hold is compared here value by value (records and
vocabulary), by recorded and actual digest, by its errata (:mod:`masrl.corpus.errata`) and by
the files of its report tree.

Input: each side as a :class:`Side` (the parsed releases list and snapshots, and the git blob
ids of the report files). Output: plain dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..corpus.errata import errata_from, errata_items
from ..corpus.load import RELEASE_REPORTS
from ..corpus.releases import content_digest, releases_from
from .compare import _flat, record_changes


@dataclass(frozen=True)
class Side:
    """One side of the comparison.

    Attributes:
        releases: the mapping of ``corpus/releases.yaml`` (None without releases).
        snapshots: snapshot file -> parsed mapping.
        reports: report file under ``reports/releases/`` -> git blob id.
    """

    releases: dict | None
    snapshots: dict[str, dict] = field(default_factory=dict)
    reports: dict[str, str] = field(default_factory=dict)


def _vocabulary(before: dict, after: dict) -> list[dict]:
    old, new = _flat(before.get("taxonomy") or {}), _flat(after.get("taxonomy") or {})
    return [{"path": p, "before": old.get(p, "(absent)"), "after": new.get(p, "(absent)")}
            for p in sorted(set(old) | set(new)) if old.get(p) != new.get(p)]


def _members(before: dict, after: dict, kind: str) -> tuple[list[str], list[str], list[dict]]:
    old = before.get(kind) if isinstance(before.get(kind), dict) else {}
    new = after.get(kind) if isinstance(after.get(kind), dict) else {}
    old = {str(k): v for k, v in old.items() if isinstance(v, dict)}
    new = {str(k): v for k, v in new.items() if isinstance(v, dict)}
    return sorted(set(new) - set(old)), sorted(set(old) - set(new)), record_changes(old, new, [])


def frozen_changes(before: Side, after: Side) -> list[dict]:
    """Every change to a release that both sides list, in release order: ``{"release", "digest":
    {"recorded_before", "recorded_after", "actual_before", "actual_after"}, "retained": {"added",
    "removed", "changed"}, "excluded": {...}, "vocabulary": [{"path", "before", "after"}],
    "snapshot_changed": bool, "errata": {"added", "removed"}, "reports": {"added", "removed",
    "changed"}, "listing": [{"key", "before", "after"}] (its date, search cutoff, title, source or notes
    in ``corpus/releases.yaml``), "claims": {"frozen", "unfrozen", "changed"} (claim ids of its
    ``claims:``)}``, each part None (the vocabulary ``[]``) when it did not change; releases without
    any change are left out. A changed record's fields are dotted paths (``identifiers.arxiv``). Then a
    report tree of no listed release whose files were added or changed (:func:`_unlisted`)."""
    old_rel = {r.name: r for r in releases_from(before.releases)}
    new_rel = {r.name: r for r in releases_from(after.releases)}
    old_err = errata_items(errata_from(before.releases))
    new_err = errata_items(errata_from(after.releases))
    out = []
    for name, rel in new_rel.items():
        if name not in old_rel:
            continue
        path = rel.snapshot_path
        old_snap, new_snap = before.snapshots.get(path) or {}, after.snapshots.get(path) or {}
        digests = {"recorded_before": old_rel[name].content_sha256, "recorded_after": rel.content_sha256,
                   "actual_before": content_digest(old_snap), "actual_after": content_digest(new_snap)}
        moved = digests["recorded_before"] != digests["recorded_after"] or digests["actual_before"] != digests["actual_after"]
        change: dict = {"release": name, "unlisted": None, "digest": digests if moved else None,
                        "vocabulary": _vocabulary(old_snap, new_snap)}
        for kind in ("retained", "excluded"):
            added, removed, changed = _members(old_snap, new_snap, kind)
            change[kind] = {"added": added, "removed": removed, "changed": changed} if added or removed or changed else None
        change["snapshot_changed"] = bool(moved or change["retained"] or change["excluded"] or change["vocabulary"])
        errata = {"added": [e for e in new_err if e["release"] == name and e not in old_err],
                  "removed": [e for e in old_err if e["release"] == name and e not in new_err]}
        change["errata"] = errata if errata["added"] or errata["removed"] else None
        tree = f"{RELEASE_REPORTS}{name}/"
        old_rep = {k: v for k, v in before.reports.items() if k.startswith(tree)}
        new_rep = {k: v for k, v in after.reports.items() if k.startswith(tree)}
        reports = {"added": sorted(set(new_rep) - set(old_rep)), "removed": sorted(set(old_rep) - set(new_rep)),
                   "changed": sorted(k for k in set(old_rep) & set(new_rep) if old_rep[k] != new_rep[k])}
        change["reports"] = reports if any(reports.values()) else None
        change["listing"] = _listing(old_rel[name], rel)
        change["claims"] = _claims(old_rel[name].frozen_claims, rel.frozen_claims)
        if change["snapshot_changed"] or change["errata"] or change["reports"] or change["listing"] or change["claims"]:
            out.append(change)
    return out + _unlisted(before, after, set(new_rel))


def _unlisted(before: Side, after: Side, listed: set[str]) -> list[dict]:
    """Report trees under ``reports/releases/`` of no release the newer side lists whose files were added
    or changed: ``{"release", "unlisted": {"added", "changed"}}`` and the other parts of a change, empty
    (reports that would pass for a release's published numbers)."""
    out = []
    names = sorted({rel[len(RELEASE_REPORTS):].split("/", 1)[0] for rel in after.reports if rel.startswith(RELEASE_REPORTS)}
                   - listed)
    for name in names:
        tree = f"{RELEASE_REPORTS}{name}/"
        new = {k: v for k, v in after.reports.items() if k.startswith(tree)}
        added = sorted(k for k in new if k not in before.reports)
        changed = sorted(k for k in new if k in before.reports and before.reports[k] != new[k])
        if added or changed:
            out.append({"release": name, "unlisted": {"added": added, "changed": changed}, "digest": None, "vocabulary": [],
                        "retained": None, "excluded": None, "snapshot_changed": False, "errata": None, "reports": None,
                        "listing": None, "claims": None})
    return out


def _listing(before, after) -> list[dict] | None:
    """The keys of a release's entry in ``corpus/releases.yaml`` that changed (besides its digests)."""
    out = [{"key": key, "before": "; ".join(b) if isinstance(b, tuple) else b, "after": "; ".join(a) if isinstance(a, tuple) else a}
           for key in ("date", "search_cutoff", "title", "source", "notes")
           if (b := getattr(before, key)) != (a := getattr(after, key))]
    return out or None


def _claims(before: dict[str, str], after: dict[str, str]) -> dict | None:
    """The claims a release froze, unfroze, or whose frozen digest changed (``claims:`` of its entry)."""
    out = {"frozen": sorted(set(after) - set(before)), "unfrozen": sorted(set(before) - set(after)),
           "changed": sorted(k for k in set(before) & set(after) if before[k] != after[k])}
    return out if any(out.values()) else None
