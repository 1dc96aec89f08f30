"""The fast, accept-only path of trace validation: a typed decoder derived from the schema.

:data:`Event` and :data:`Edge` are msgspec Struct types built from
``trace.schema.json`` itself (:func:`_struct_from_schema`: required keys, string
``minLength``, number ``minimum``, enums, ``additionalProperties: false``), so the
typed path and the published contract cannot disagree on a field. Numbers must also
be finite (``le`` the largest float). The rules no Struct can state are checked here
in bulk: the ``decision`` constraints of the schema's ``allOf``, free-form event
properties (finite numbers, nesting at most :data:`~masrl.trace.load.MAX_DEPTH`), then
the graph rules of :class:`~masrl.trace.checker.TraceChecker` (its ``finish``).

:func:`check_data` parses the bytes with jiter (``catch_duplicate_keys``, no
NaN/Infinity) and :func:`check_tree` fills a :class:`TraceChecker`'s columns from
the typed values, column by column, instead of event by event. The path only ever
*accepts*: on the first doubt (a parse error, a duplicate key, a type error, any
problem) it returns ``None`` and :func:`masrl.trace.validate.check_bytes` runs the
exact element-by-element checker, whose messages name every problem. So a trace is
valid on this path iff it is valid on the slow path (the tests run both on the same
generated traces).
"""

from __future__ import annotations

import sys
from array import array
from typing import Annotated, Literal, Union

import msgspec
import numpy as np
from jiter import from_json
from msgspec import UNSET, Meta, UnsetType

from .checker import (
    ACYCLIC_EDGES,
    CONTACT_TYPES,
    DESPAWN,
    EDGE_CODE,
    LINK_TYPES,
    OD,
    RETURN,
    SPAWN,
    STOP,
    TYPE_CODE,
    TraceChecker,
)
from .load import MAX_DEPTH, STREAMED_KEYS
from .schema import TOP_REQUIRED, schema

MAX_FLOAT = sys.float_info.max
#: Elements converted to typed values at a time (bounds the memory of the typed copies).
CHUNK = 1 << 16


def _field_type(spec: dict):
    """A msgspec type for one property of the schema (the kinds the trace schema uses)."""
    if "enum" in spec:
        return Literal[tuple(spec["enum"])]
    kind = spec.get("type")
    if kind == "string":
        return Annotated[str, Meta(min_length=spec["minLength"])] if "minLength" in spec else str
    if kind == "number":
        return Annotated[float, Meta(ge=spec.get("minimum", -MAX_FLOAT), le=MAX_FLOAT)]
    if kind == "boolean":
        return bool
    raise ValueError(f"no typed form for schema property {spec}")  # pragma: no cover - schema is fixed


def _struct_from_schema(name: str, definition: dict):
    required = set(definition.get("required", ()))
    fields = []
    for key, spec in definition["properties"].items():
        typ = _field_type(spec)
        attr = key if key.isidentifier() and key not in ("from",) else f"{key}_"
        if key in required:
            fields.append((attr, typ, msgspec.field(name=key)))
    for key, spec in definition["properties"].items():
        typ = _field_type(spec)
        attr = key if key.isidentifier() and key not in ("from",) else f"{key}_"
        if key not in required:
            if spec.get("type") == "number":  # keep ints as ints (sums must equal the exact path's); bounds checked in bulk
                typ = Union[int, float]
            fields.append((attr, Union[typ, UnsetType], msgspec.field(default=UNSET, name=key)))
    return msgspec.defstruct(
        name, fields, forbid_unknown_fields=definition.get("additionalProperties") is False, gc=False
    )


Event = _struct_from_schema("Event", schema()["$defs"]["event"])
#: Optional number fields of an event and their minimum (checked in bulk; see _struct_from_schema).
_OPTIONAL_NUMBERS = tuple(
    (key, spec.get("minimum", -MAX_FLOAT))
    for key, spec in schema()["$defs"]["event"]["properties"].items()
    if spec.get("type") == "number" and key not in schema()["$defs"]["event"]["required"]
)
Edge = _struct_from_schema("Edge", schema()["$defs"]["edge"])
EVENT_KEYS = frozenset(schema()["$defs"]["event"]["properties"])
_EVENTS = list[Event]
_EDGES = list[Edge]


class _Doubt(Exception):
    """The typed path cannot accept this trace; the exact checker must look at it."""


def check_data(data: bytes, file: str, keep: bool = False):
    """Bytes -> ``(finished checker, tree or None)`` of a valid trace, or ``None``.

    The tree is returned only if ``keep`` (otherwise the parsed arrays are released
    while they are converted, to bound memory).
    """
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    try:
        doc = from_json(body, catch_duplicate_keys=True, allow_inf_nan=False, cache_mode="keys")
    except (ValueError, RecursionError):
        return None
    checker = check_tree(doc, file, release=not keep)
    if checker is None:
        return None
    return checker, (doc if keep else None)


def check_tree(doc, file: str, release: bool = False) -> TraceChecker | None:
    """A parsed trace -> a finished :class:`TraceChecker` with no problem, or ``None``.

    ``release``: the caller does not need ``doc`` afterwards, so converted array
    elements may be replaced by ``None`` to free them early.
    """
    if type(doc) is not dict:
        return None
    try:
        return _Filler(file).run(doc, release)
    except (_Doubt, msgspec.ValidationError, TypeError, ValueError, OverflowError, RecursionError):
        return None


def _free_ok(value, depth: int) -> bool:
    """A free-form value: finite numbers, at most MAX_DEPTH levels of containers (iterative)."""
    stack = [(value, depth)]
    while stack:
        node, level = stack.pop()
        t = type(node)
        if t is dict or t is list:
            if level > MAX_DEPTH:
                return False
            stack.extend((v, level + 1) for v in (node.values() if t is dict else node))
        elif t is float:
            if not node - node == 0.0:
                return False
        elif t is int:
            if not -MAX_FLOAT <= node <= MAX_FLOAT:
                return False
    return True


class _Filler:
    """Fills a TraceChecker's columns from typed values, a chunk at a time, in bulk."""

    def __init__(self, file: str):
        self.c = TraceChecker(file)
        self.t: list = []
        self.type_codes = bytearray()
        self.agent_codes: list = []
        self.link_rows: list = []  # (index, type code, sender code, to code)

    def run(self, doc: dict, release: bool) -> TraceChecker:
        c = self.c
        events, edges = doc.get("events"), doc.get("edges")
        if type(events) is not list or type(edges) is not list or not events:
            raise _Doubt
        for key, value in doc.items():
            if key not in STREAMED_KEYS:
                c.top(key, value)
        c.present.update(STREAMED_KEYS)
        if c.schema_problems or c.other_problems or not c.present.issuperset(TOP_REQUIRED):
            raise _Doubt
        c.events_ok = True
        for start in range(0, len(events), CHUNK):
            self._events(events, start, min(start + CHUNK, len(events)), release)
        c.events_done = True
        c.n = n = len(events)
        c.t = array("d", self.t)
        c.types = self.type_codes
        c.agents = array("l", self.agent_codes)
        c.links = self.link_rows
        self.t = self.agent_codes = None
        ids = dict(zip(c.id_list, range(n)))
        if len(ids) != n:
            raise _Doubt  # a duplicate event id
        c.ids = ids
        times = np.frombuffer(c.t, dtype=np.float64)
        for start in range(0, len(edges), CHUNK):
            self._edges(edges, start, min(start + CHUNK, len(edges)), release, times)
        c._check_cycles()
        if c.other_problems or not _lifecycle_ok(c, times) or not _returns_ok(c, times):
            raise _Doubt
        return c

    def _events(self, events: list, a: int, b: int, release: bool) -> None:
        c = self.c
        chunk = events[a:b]
        typed = msgspec.convert(chunk, _EVENTS)
        if not set().union(*map(dict.keys, chunk)) <= EVENT_KEYS:
            for d in chunk:
                if not d.keys() <= EVENT_KEYS:
                    for k, v in d.items():
                        if k not in EVENT_KEYS and type(v) in (dict, list, float, int) and not _free_ok(v, 4):
                            raise _Doubt
        if release:
            events[a:b] = [None] * (b - a)
        del chunk
        c.id_list.extend([e.id for e in typed])
        self.t.extend([e.t for e in typed])
        codes_start = len(self.type_codes)
        self.type_codes.extend(map(TYPE_CODE.__getitem__, [e.type for e in typed]))
        agents = [e.agent for e in typed]
        codes = c.agent_code
        _register(c, agents)
        agent_codes = list(map(codes.__getitem__, agents))
        self.agent_codes.extend(agent_codes)
        tcs = self.type_codes[codes_start:]
        link_types = LINK_TYPES
        picked = [k for k, tc in enumerate(tcs) if tc in link_types]
        if picked:
            froms = [typed[k].from_ for k in picked]
            tos = [typed[k].to for k in picked]
            _register(c, [x for x in froms if x is not UNSET] + [x for x in tos if x is not UNSET])
            senders = [agent_codes[k] if f is UNSET else codes[f] for k, f in zip(picked, froms)]
            to_codes = [-1 if x is UNSET else codes[x] for x in tos]
            self.link_rows.extend(zip([a + k for k in picked], [tcs[k] for k in picked], senders, to_codes))
        decisions = [e.decision for e in typed]
        if decisions.count(UNSET) != len(decisions):
            for k, d in enumerate(decisions):
                if d is not UNSET:
                    tc = tcs[k]
                    if tc != OD and tc != STOP or (tc == STOP and d != "O5"):
                        raise _Doubt
                    key = (tc, d)
                    c.decisions[key] = c.decisions.get(key, 0) + 1
        sums = c.sums
        for field, minimum in _OPTIONAL_NUMBERS:
            values = [getattr(e, field) for e in typed]
            if values.count(UNSET) != len(values):
                values = [v for v in values if v is not UNSET]
                low, high = min(values), max(values)
                if not (low >= minimum and high <= MAX_FLOAT and low - low == 0.0 and high - high == 0.0):
                    raise _Doubt  # below the minimum, not finite, or beyond a float
                sums[field] += sum(values)

    def _edges(self, edges: list, a: int, b: int, release: bool, times) -> None:
        c = self.c
        typed = msgspec.convert(edges[a:b], _EDGES)
        if release:
            edges[a:b] = [None] * (b - a)
        get = c.ids.__getitem__
        try:
            src = np.fromiter(map(get, [e.src for e in typed]), dtype=np.int64, count=len(typed))
            dst = np.fromiter(map(get, [e.dst for e in typed]), dtype=np.int64, count=len(typed))
        except KeyError:
            raise _Doubt from None  # an edge to an unknown event
        codes = bytes(map(EDGE_CODE.__getitem__, [e.type for e in typed]))
        t_src, t_dst = times[src], times[dst]
        if (t_src > t_dst).any():
            raise _Doubt  # time goes backwards along an edge
        for k in np.flatnonzero(t_src == t_dst).tolist():
            if codes[k] in ACYCLIC_EDGES:
                c._cycle_candidates.append((a + k, int(src[k]), int(dst[k]), codes[k]))
        c.esrc.frombytes(src.astype(_LONG).tobytes())
        c.edst.frombytes(dst.astype(_LONG).tobytes())
        c.eidx.extend(range(a, b))
        c.etype.extend(codes)


def _register(c: TraceChecker, names: list) -> None:
    """Give every new agent name a code, in order of first appearance."""
    codes = c.agent_code
    for name in dict.fromkeys(names):
        if name not in codes:
            codes[name] = len(c.agent_names)
            c.agent_names.append(name)


def _lifecycle_ok(c: TraceChecker, times) -> bool:
    """The lifecycle rule, in bulk for traces without despawns; else the exact check.

    Without despawns an agent that is ever spawned is alive from its earliest spawn
    on (spawning a live agent changes nothing) and a root always; so every event's
    time must be at least its agent's earliest spawn time.
    """
    if c.types.count(DESPAWN):
        c._check_lifecycle()
        return not c.other_problems
    rows = [(idx, to) for idx, tc, _sender, to in c.links if tc == SPAWN and to >= 0]
    if not rows:
        return True
    first = np.full(len(c.agent_names), -np.inf)
    idx = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    to = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    first[to] = np.inf
    np.minimum.at(first, to, times[idx])
    agents = np.frombuffer(c.agents, dtype=_LONG)
    return bool((times >= first[agents]).all())


def _returns_ok(c: TraceChecker, times) -> bool:
    """The return rule in bulk: each return's recipient contacted the returner at or before it."""
    links = c.links
    if not links:
        return True
    arr = np.array(links, dtype=np.int64)
    idx, tc, sender, to = arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]
    returns = tc == RETURN
    if not returns.any():
        return True
    if (to[returns] < 0).any():
        return False
    width = len(c.agent_names) + 1
    contact = np.isin(tc, _CONTACT) & (to >= 0)
    keys = sender[contact] * width + to[contact]
    when = times[idx[contact]]
    order = np.lexsort((when, keys))
    keys, when = keys[order], when[order]
    unique, first = np.unique(keys, return_index=True)
    earliest = when[first]
    wanted = to[returns] * width + sender[returns]
    pos = np.minimum(np.searchsorted(unique, wanted), max(len(unique) - 1, 0))
    if not len(unique):
        return False
    found = unique[pos] == wanted
    return bool((found & (earliest[pos] <= times[idx[returns]])).all())


_CONTACT = np.array(sorted(CONTACT_TYPES), dtype=np.int64)
_LONG = np.dtype(f"i{array('l').itemsize}")

__all__ = ["Edge", "Event", "check_data", "check_tree"]
