"""Per-edge checks of :class:`~masrl.trace.checker.TraceChecker` (a mixin).

An edge is resolved to event indices once every event is known (edges listed before
the events wait in ``_pending``); :meth:`EdgeChecks._resolve` reports unknown ids
and time going backwards, and keeps equal-time spawn/causal/return edges as
candidates for the cycle check.
"""

from __future__ import annotations

from .codes import ACYCLIC_EDGES, EDGE_CODE, EDGE_TYPES, fmt_t, show
from .load import key_path
from .schema import EDGE_REQUIRED


class EdgeChecks:
    """The edge half of the checker (uses its columns and ``_schema``/``_other``)."""

    def edges(self, start: int, items: list) -> None:
        """Check edges ``start, start+1, ...``; the common case inline, anything unusual via :meth:`edge`."""
        if not self.events_done:
            for j, ed in enumerate(items, start):
                self.edge(j, ed)
            return
        ids_get = self.ids.get
        ts = self.t
        src_append = self.esrc.append
        dst_append = self.edst.append
        idx_append = self.eidx.append
        type_append = self.etype.append
        edge_code = EDGE_CODE.get
        slow = self.edge
        j = start - 1
        for ed in items:
            j += 1
            if type(ed) is not dict or len(ed) != 3:
                slow(j, ed)
                continue
            try:
                src = ed["src"]
                dst = ed["dst"]
                typ = ed["type"]
            except KeyError:
                slow(j, ed)
                continue
            # Only strings are keys of ``ids`` and ``EDGE_CODE``: a hit proves the type.
            try:
                s = ids_get(src)
                d = ids_get(dst)
                code = edge_code(typ)
            except TypeError:  # an unhashable value (array, object)
                slow(j, ed)
                continue
            if s is not None and d is not None and code is not None and ts[s] < ts[d]:
                src_append(s)
                dst_append(d)
                idx_append(j)
                type_append(code)
                continue
            slow(j, ed)

    def edge(self, j: int, ed) -> None:
        """Check edge ``j`` (any JSON value); resolve it now if all events are known."""
        if type(ed) is dict and len(ed) == 3:
            try:
                src = ed["src"]
                dst = ed["dst"]
                typ = ed["type"]
            except KeyError:
                src = None
            if type(src) is str and src and type(dst) is str and dst and type(typ) is str:
                code = EDGE_CODE.get(typ)
                if code is not None:
                    if not self.events_done:
                        self._pending.append((j, src, dst, code))
                        return
                    ids = self.ids
                    s = ids.get(src)
                    d = ids.get(dst)
                    if s is not None and d is not None:
                        ts = self.t
                        if ts[s] < ts[d]:  # the common case, inlined from _resolve
                            self.esrc.append(s)
                            self.edst.append(d)
                            self.eidx.append(j)
                            self.etype.append(code)
                            return
                    self._resolve(j, src, dst, code)
                    return
        self._edge_slow(j, ed)

    def _edge_slow(self, j: int, ed) -> None:
        where = f"$.edges[{j}]"
        if type(ed) is not dict:
            self._schema(where, f"an edge must be a JSON object, got {show(ed)}")
            return
        src, dst, typ = ed.get("src"), ed.get("dst"), ed.get("type")
        if type(src) is str and type(dst) is str and type(typ) is str:
            label = f"edge {src}->{dst} ({typ}): "
        else:
            label = f"edge at index {j}: "
        ok = True
        for req in EDGE_REQUIRED:
            if req not in ed:
                self._schema(where, f"{label}missing required key '{req}'")
                ok = False
        for end, value in (("src", src), ("dst", dst)):
            if end in ed and not (type(value) is str and value):
                self._schema(f"{where}.{end}", f"{label}{end} must be a non-empty string, got {show(value)}")
                ok = False
        code = EDGE_CODE.get(typ) if type(typ) is str else None
        if "type" in ed and code is None:
            self._schema(f"{where}.type", f"{label}{show(typ)} is not an edge type; allowed: {', '.join(EDGE_TYPES)}")
            ok = False
        for k in ed:
            if k not in ("src", "dst", "type"):
                self._schema(key_path(where, k), f"{label}unknown key '{k}'; an edge has only src, dst and type")
        if ok:
            if self.events_done:
                self._resolve(j, src, dst, code)
            else:
                self._pending.append((j, src, dst, code))

    def _resolve(self, j: int, src: str, dst: str, code: int) -> None:
        ids = self.ids
        s = ids.get(src)
        d = ids.get(dst)
        if s is None or d is None:
            if self.events_ok:
                label = f"edge {src}->{dst} ({EDGE_TYPES[code]}): "
                if s is None:
                    self._other(f"$.edges[{j}].src", f"{label}src {show(src)} is not an event id")
                if d is None:
                    self._other(f"$.edges[{j}].dst", f"{label}dst {show(dst)} is not an event id")
            return
        ts = self.t
        a = ts[s]
        b = ts[d]
        if not a < b:
            if a > b:
                self._backward = True
                self._other(
                    f"$.edges[{j}]",
                    f"edge {src}->{dst} ({EDGE_TYPES[code]}): time goes backwards along the edge: "
                    f"t={fmt_t(a)} at {src} > t={fmt_t(b)} at {dst}",
                )
            if code in ACYCLIC_EDGES:
                self._cycle_candidates.append((j, s, d, code))
        self.esrc.append(s)
        self.edst.append(d)
        self.eidx.append(j)
        self.etype.append(code)
