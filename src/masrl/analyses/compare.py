"""What changed between two versions of the corpus or two populations (pure functions).

* Between two builds (``masrl diff REV``: a git revision against the working
  tree): records added, removed, moved and retagged; every changed table cell
  and count; gap-status changes; claim edits (added, removed, status, scope,
  statement, stated values) and verdict changes, each claim judged by its own
  status on each side.
* Between the current pool and the latest release (reports/): which cells of a
  table moved since the published version (:func:`table_changes`), and count
  tables with the release's count beside the pool's (:func:`beside_release`).

Input: :class:`~masrl.build.pipeline.Build` and :class:`~masrl.analyses.table.Table`
objects. Output: plain dicts and new tables.
"""

from __future__ import annotations

import json
from typing import Any

from masrl.core.tabular import pd

from ..corpus.load import AUDITS
from .table import Table


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


def comparable(old: Table | None, new: Table) -> bool:
    """Whether two versions of a table can be compared cell by cell: same layout
    (:attr:`Table.layout`), so that a row means the same thing on both sides."""
    return old is None or old.layout == new.layout


def table_changes(old: pd.DataFrame | None, new: pd.DataFrame) -> list[dict]:
    """Every cell of ``new`` that differs from ``old`` (rows and columns matched by label;
    a row or column missing on one side reads ``(absent)``; a blank cell and an absent one are
    the same, and so are a count of 0 and an absent one of a table both sides have: a year or value without records): ``{"row", "column", "before", "after"}`` in table order. Without ``old`` every
    cell is a change. Each cell is compared as ``str`` of what ``frame.loc[row, column]`` gives."""
    changes = []
    rows = list(dict.fromkeys([*(old.index if old is not None else []), *new.index]))
    cols = list(dict.fromkeys([*(old.columns if old is not None else []), *new.columns]))
    old_cells, new_cells = _cells(old), _cells(new)
    for r in rows:
        for c in cols:
            a = _cell(old, old_cells, r, c)
            b = _cell(new, new_cells, r, c)
            if a != b and {a, b} != {"", "(absent)"} and (old is None or {a, b} != {"0", "(absent)"}):
                changes.append({"row": str(r), "column": str(c), "before": a, "after": b})
    return changes


def _cells(frame: pd.DataFrame | None) -> dict | None:
    """``{column: {row: str(cell)}}`` of a frame whose labels are unique (None otherwise: a
    duplicate label selects several cells, which :func:`_cell` reads through ``loc``)."""
    if frame is None or not (frame.index.is_unique and frame.columns.is_unique) or frame.index.hasnans or frame.columns.hasnans:
        return None
    out = {}
    for c in frame.columns:
        values = frame[c].array  # what ``loc`` indexes: numpy scalars, or the extension array's own
        out[c] = {r: str(values[i]) for i, r in enumerate(frame.index)}
    return out


def _cell(frame: pd.DataFrame | None, cells: dict | None, row, column) -> str:
    if cells is not None:
        return cells.get(column, {}).get(row, "(absent)")
    if frame is not None and row in frame.index and column in frame.columns:
        return str(frame.loc[row, column])
    return "(absent)"


def relabelled(old: Table | None, new: Table, old_tax, new_tax) -> Table | None:
    """``old`` (a release's table) with each row and column named by a value label that the vocabulary now
    labels otherwise (a label reworded, or corrected by an erratum: the same code of the same field) under
    its label now, so that tables are compared value by value, not wording by wording. Only a name that
    ``new`` no longer has is renamed, to one that ``old`` does not have, and only when the old label names
    one value of the vocabulary (an ambiguous one stays as it is)."""
    if old is None:
        return None
    moves: dict[str, set] = {}
    for name, field in old_tax.fields.items():
        now = new_tax.fields.get(name)
        if now is None:
            continue
        for code in set(field.values) & set(now.values):
            moves.setdefault(field.value_label(code), set()).add(now.value_label(code))
    taken = {*map(str, old.frame.index), *map(str, old.frame.columns)}
    have = {*map(str, new.frame.index), *map(str, new.frame.columns)}
    rename = {before: after for before, (after,) in ((b, a) for b, a in moves.items() if len(a) == 1)
              if before != after and before not in have and after not in taken}
    if not taken & set(rename):
        return old
    frame = old.frame.rename(index=lambda r: rename.get(str(r), r), columns=lambda c: rename.get(str(c), c))
    return Table(old.name, old.title, frame, old.source, old.note, old.layout)


def beside_release(table: Table, release: Table | None, release_name: str) -> Table:
    """A count table (column ``count``) with the release's count and the change beside it,
    when they differ: columns ``count``, ``<release_name>``, ``change`` (this pool minus the release: 3, -1, 0).
    Returns ``table`` itself when the release has no such table, the table has no
    ``count`` column, or no count differs."""
    if release is None or "count" not in table.frame.columns or "count" not in release.frame.columns:
        return table
    gone = [r for r in release.frame.index if r not in table.frame.index]  # values of the release's vocabulary only
    new = [r for r in table.frame.index if r not in release.frame.index]  # values the release's vocabulary lacked
    old = release.frame["count"].reindex(table.frame.index, fill_value=0).astype("int64")
    if old.equals(table.frame["count"].astype("int64")) and not gone:
        return table  # no count differs (a value added to the vocabulary since, no record holds)
    frame = table.frame.copy()
    if gone:  # a value no longer in the vocabulary: its row stays, with no record now, so the release's column adds up
        rows = release.frame.loc[gone].reindex(columns=frame.columns, fill_value="")
        rows["count"] = 0
        frame = pd.concat([frame, rows.astype(frame.dtypes.to_dict())])
    old = release.frame["count"].reindex(frame.index, fill_value=0).astype("int64")
    change = (frame["count"].astype("int64") - old).astype("int64")
    if new:  # no count of the release for a value it could not hold: blank, not 0
        old, change = old.astype(object), change.astype(object)
        old[new] = ""
        change[new] = ""
    frame[release_name], frame["change"] = old, change
    note = (table.note + " " if table.note else "") + f"{release_name}: the count in release {release_name}; change: this pool minus it."
    if new:
        note += f" A blank: a value release {release_name}'s vocabulary did not have."
    if gone:
        note += f" {', '.join(map(str, gone))}: no longer in the vocabulary, shown for release {release_name}'s count."
    return Table(table.name, table.title, frame, table.source, note)


def cell_changes(before, after) -> list[dict]:
    """Every changed cell of every table, and every changed headline count, between the
    pools of two builds: ``{"table", "row", "column", "before", "after"}``."""
    changes = []
    for name in ("retained", "excluded", "audited"):
        if before.pool.headline[name] != after.pool.headline[name]:
            changes.append({"table": "headline", "row": name, "column": "count",
                            "before": str(before.pool.headline[name]), "after": str(after.pool.headline[name])})
    old_tables = {t.name: t for t in before.pool.all_tables()}
    new_tables = {t.name: t for t in after.pool.all_tables()}
    for name in list(dict.fromkeys([*new_tables, *old_tables])):
        old, new = old_tables.get(name), new_tables.get(name)
        if new is None:
            changes.append({"table": name, "row": "(table)", "column": "", "before": "present", "after": "(absent)"})
        elif not comparable(old, new):
            changes.append({"table": name, "row": "(layout)", "column": "", "before": old.layout or "whole review",
                            "after": new.layout or "whole review"})
        else:
            changes += [{"table": name, **c} for c in table_changes(old.frame if old is not None else None, new.frame)]
    return changes


def gap_moves(before: list, after: list) -> list[dict]:
    """Cells whose gap status changed between two lists of :class:`masrl.analyses.gaps.Gap`: a gap
    opened or closed, or went from empty to sparse or back. A cell that stays sparse with another
    count has not moved (its count is a changed cell). ``{"table", "cell", "before", "after"}``
    (``sparse (2)``, ``not a gap``), sorted by table, row and column; ``masrl diff`` and ``gaps.md``
    both list these."""
    old = {(g.table, g.row, g.column): g for g in before}
    new = {(g.table, g.row, g.column): g for g in after}
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if (a.status if a else None) != (b.status if b else None):
            out.append({"table": key[0], "cell": key[1] + (f" × {key[2]}" if key[2] else ""),
                        "before": f"{a.status} ({a.count})" if a else "not a gap",
                        "after": f"{b.status} ({b.count})" if b else "not a gap"})
    return out


def gap_changes(before, after) -> list[dict]:
    """Cells of the pool whose gap status changed between two builds (:func:`gap_moves`)."""
    return gap_moves(list(before.pool.gaps), list(after.pool.gaps))


def verdict(claim) -> str:
    """A claim's verdict read with its status: ``holds`` / ``fails`` for a current claim,
    ``matches the data`` / ``drifted`` for a superseded one, ``(absent)`` for None."""
    if claim is None:
        return "(absent)"
    if claim.status == "superseded":
        return "matches the data" if claim.holds else "drifted"
    return "holds" if claim.holds else "fails"


def claim_changes(before, after) -> list[dict]:
    """Every claim check whose computed result or verdict changed:
    ``{"claim", "check", "before", "after", "holds_before", "holds_after"}``; checks
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


def _selection(check) -> str:
    """What a check selects, as one line: ``retained where {"field": "value"}``, with its share's
    ``of`` and its macro when it has them (a trace check: the trace it validates)."""
    if "trace_valid" in check.expected:
        return f"trace {check.expected['trace_valid']}"
    text = f"{check.population} where {json.dumps(check.where, sort_keys=True, ensure_ascii=False, default=str)}"
    if check.of is not None:
        text += f" of {json.dumps(check.of, sort_keys=True, ensure_ascii=False, default=str)}"
    return text + (f", macro {check.macro}" if check.macro else "")


def claim_edits(before, after) -> list[dict]:
    """Edits of the claim ledger itself, claim by claim (ledger order of the newer side):
    ``{"claim", "edit", "before", "after"}`` where ``edit`` is ``added``, ``removed``,
    ``status``, ``scope``, ``statement``, ``check <label> added`` / ``removed``, ``selection of
    <check>`` (its population, filters, macro: :func:`_selection`) or ``stated value of <check>``, plus one
    ``verdict`` row per claim whose verdict (read with its status on each side) changed."""
    old = {c.id: c for c in before.claims}
    new = {c.id: c for c in after.claims}
    edits = []
    for cid in list(dict.fromkeys([*new, *old])):
        a, b = old.get(cid), new.get(cid)
        if a is None:
            edits.append({"claim": cid, "edit": "added", "before": "(absent)", "after": f"{b.status}, about {b.scope}: {b.text}"})
        elif b is None:
            edits.append({"claim": cid, "edit": "removed", "before": f"{a.status}, about {a.scope}: {a.text}", "after": "(absent)"})
        else:
            for attr in ("status", "scope"):
                if getattr(a, attr) != getattr(b, attr):
                    edits.append({"claim": cid, "edit": attr, "before": getattr(a, attr), "after": getattr(b, attr)})
            if a.text != b.text:
                edits.append({"claim": cid, "edit": "statement", "before": a.text, "after": b.text})
            old_checks = {k.label: k for k in a.checks}
            new_labels = {k.label for k in b.checks}
            for k in b.checks:
                o = old_checks.get(k.label)
                if o is None:
                    edits.append({"claim": cid, "edit": f"check '{k.label}' added", "before": "(absent)",
                                  "after": f"{_selection(k)}; {k.stated()}"})
                    continue
                if _selection(o) != _selection(k):
                    edits.append({"claim": cid, "edit": f"selection of '{k.label}'", "before": _selection(o), "after": _selection(k)})
                if o.stated() != k.stated():
                    edits.append({"claim": cid, "edit": f"stated value of '{k.label}'", "before": o.stated(), "after": k.stated()})
            for o in a.checks:
                if o.label not in new_labels:
                    edits.append({"claim": cid, "edit": f"check '{o.label}' removed", "before": f"{_selection(o)}; {o.stated()}",
                                  "after": "(absent)"})
        if a is not None and b is not None and verdict(a) != verdict(b):
            edits.append({"claim": cid, "edit": "verdict", "before": verdict(a), "after": verdict(b)})
    return edits


def audit_changes(before: dict[str, bytes], after: dict[str, bytes]) -> dict | None:
    """The audits (``corpus/audits/<id>.yaml`` or the folder ``corpus/audits/<id>/``) that one tree of files
    has and the other not, or whose files differ: ``{"added", "removed", "changed"}`` (audit ids), or None
    when none did. An audit's readings are the survey's published agreement (``reports/audit.md``)."""
    def audits(files: dict[str, bytes]) -> dict[str, dict[str, bytes]]:
        out: dict[str, dict[str, bytes]] = {}
        for rel, data in files.items():
            if rel.startswith(AUDITS) and rel.endswith(".yaml"):
                name = rel[len(AUDITS):].split("/", 1)[0].removesuffix(".yaml")
                out.setdefault(name, {})[rel] = data
        return out

    old, new = audits(before), audits(after)
    out = {"added": sorted(set(new) - set(old)), "removed": sorted(set(old) - set(new)),
           "changed": sorted(a for a in set(old) & set(new) if old[a] != new[a])}
    return out if any(out.values()) else None


def compare(before, after) -> dict:
    """The whole difference between two builds (pools, claims, releases) as a plain dict."""
    old_ret = {r["key"]: r for r in before.pool.retained_records}
    new_ret = {r["key"]: r for r in after.pool.retained_records}
    old_exc = {r["record_id"]: r for r in before.pool.excluded_records}
    new_exc = {r["record_id"]: r for r in after.pool.excluded_records}
    moved = {r.get("former_key"): rid for rid, r in new_exc.items() if r.get("former_key") and rid not in old_exc}
    removed = sorted(set(old_ret) - set(new_ret))
    controlled = [f.name for f in after.pool.tax.of("retained")]
    old_rel = [r.name for r in before.releases]
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
            "changed": record_changes(old_exc, new_exc, [f.name for f in after.pool.tax.of("excluded")]),
        },
        "releases": {
            "added": [{"name": r.name, "date": r.population.release.date, "retained": r.headline["retained"],
                       "excluded": r.headline["excluded"]} for r in after.releases if r.name not in old_rel],
            "removed": [name for name in old_rel if name not in {r.name for r in after.releases}],
        },
        "cells": cell_changes(before, after),
        "gaps": gap_changes(before, after),
        "claims": claim_changes(before, after),
        "claim_edits": claim_edits(before, after),
        "failing_current_claims": sorted(c.id for c in after.claims if c.status == "current" and not c.holds),
        "frozen": [],  # changes to frozen releases: compared from the files (masrl.analyses.frozen), by masrl diff
    }
