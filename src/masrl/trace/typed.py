"""The fast, accept-only path of trace validation: a typed decoder derived from the schema.

:data:`Event` and :data:`Edge` are msgspec Struct types built from
``trace.schema.json`` itself (:func:`_struct_from_schema`: required keys, string
``minLength``, number ``minimum``, enums, ``additionalProperties: false``), so the
typed path and the published contract cannot disagree on a field. Numbers must also
be finite (``le`` the largest float). The rules no Struct can state are checked here
in bulk: the ``decision`` constraints of the schema's ``allOf``, free-form event
properties (finite numbers, nesting at most :data:`~masrl.trace.load.MAX_DEPTH`), then
the graph rules (:mod:`masrl.trace.rules`; for large traces the lifecycle and return
rules run in bulk with numpy, :func:`_lifecycle_ok` and :func:`_returns_ok`).

:func:`check_data` parses the bytes with jiter (``catch_duplicate_keys``, no
NaN/Infinity): whole for small files, in blocks through :mod:`masrl.trace.load` for
large ones. :func:`check_tree` (and the same sink, :class:`_Filler`) fills a
:class:`TraceChecker`'s columns from the typed values, column by column, instead of
event by event. The path only ever
*accepts*: on the first doubt (a parse error, a duplicate key, a type error, any
problem) it returns ``None`` and :func:`masrl.trace.validate.check_bytes` runs the
exact element-by-element checker, whose messages name every problem. So a trace is
valid on this path iff it is valid on the slow path (the tests run both on the same
generated traces).
"""

from __future__ import annotations

import math
import sys
from array import array
from operator import attrgetter
from typing import Annotated, Literal, Union

import msgspec
import numpy as np
from jiter import from_json
from msgspec import UNSET, Meta, UnsetType

from . import rules
from .checker import TraceChecker
from .codes import (
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
)
from .load import MAX_DEPTH, STREAMED_KEYS, TraceSyntaxError, load
from .schema import TOP_REQUIRED, schema

MAX_FLOAT = sys.float_info.max
#: Elements converted to typed values at a time (bounds the memory of the typed copies).
CHUNK = 1 << 14
#: Up to this many events (or edges in a chunk), plain Python beats numpy's per-call cost.
SMALL = 2048


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


def _struct_from_schema(name: str, definition: dict, strict: bool = False):
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
        name, fields, forbid_unknown_fields=strict or definition.get("additionalProperties") is False, gc=False
    )


Event = _struct_from_schema("Event", schema()["$defs"]["event"])
#: The same, refusing keys the schema does not name: most events have none, and then
#: the free-form values need no look (see _Filler._events).
KnownEvent = _struct_from_schema("KnownEvent", schema()["$defs"]["event"], strict=True)
#: Optional number fields of an event, their minimum and getter (checked in bulk; see _struct_from_schema).
_OPTIONAL_NUMBERS = tuple(
    (key, spec.get("minimum", -MAX_FLOAT), attrgetter(key))
    for key, spec in schema()["$defs"]["event"]["properties"].items()
    if spec.get("type") == "number" and key not in schema()["$defs"]["event"]["required"]
)
Edge = _struct_from_schema("Edge", schema()["$defs"]["edge"])
EVENT_KEYS = frozenset(schema()["$defs"]["event"]["properties"])
_EVENTS = list[Event]
_KNOWN_EVENTS = list[KnownEvent]
_EDGES = list[Edge]


class _Doubt(Exception):
    """The typed path cannot accept this trace; the exact checker must look at it."""


#: Files up to this size are parsed whole by jiter (fast; the tree is at most a few
#: times this size); larger ones are streamed in blocks by :mod:`masrl.trace.load`
#: into the same typed checks, which bounds memory.
WHOLE_BYTES = 8 << 20
_DOUBTS = (_Doubt, msgspec.ValidationError, TypeError, ValueError, KeyError, OverflowError, RecursionError)


def check_data(data: bytes, file: str, keep: bool = False):
    """Bytes -> ``(finished checker, tree or None)`` of a valid trace, or ``None``.

    The tree is returned only if ``keep``.
    """
    if len(data) <= WHOLE_BYTES:
        body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
        try:
            doc = from_json(body, catch_duplicate_keys=True, allow_inf_nan=False, cache_mode="all")
        except (ValueError, RecursionError):
            return None
        checker = check_tree(doc, file, release=not keep)
        return None if checker is None else (checker, doc if keep else None)
    sink = _Filler(file)
    try:
        tree, problems = load(data, file, sink, keep)
        if problems:
            return None
        return sink.finish(), tree
    except (TraceSyntaxError, *_DOUBTS):
        return None


def check_tree(doc, file: str, release: bool = False) -> TraceChecker | None:
    """A parsed trace -> a finished :class:`TraceChecker` with no problem, or ``None``.

    ``release``: the caller does not need ``doc`` afterwards, so converted array
    elements may be replaced by ``None`` to free them early.
    """
    if type(doc) is not dict:
        return None
    try:
        return _Filler(file).run(doc, release)
    except _DOUBTS:
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
    """A loader sink (the interface of :class:`TraceChecker`) that fills a checker's
    columns from typed values, a chunk at a time, in bulk; raises on any doubt."""

    def __init__(self, file: str):
        self.c = TraceChecker(file)
        self.t: list = []
        self.type_codes = bytearray()
        self.agent_codes: list = []
        self.link_idx: list = []
        self.link_tc: list = []
        self.link_sender: list = []
        self.link_to: list = []
        self.early_edges: list = []  # edge chunks that came before the events
        self.times = None

    def run(self, doc: dict, release: bool) -> TraceChecker:
        """Feed a parsed document in document order, then finish."""
        for key, value in doc.items():
            if key in STREAMED_KEYS and type(value) is list:
                self.begin(key)
                feed = self.events if key == "events" else self.edges
                for start in range(0, len(value), CHUNK):
                    stop = min(start + CHUNK, len(value))
                    feed(start, value[start:stop])
                    if release:
                        value[start:stop] = [None] * (stop - start)
                self.end(key, len(value))
            else:
                self.top(key, value)
        return self.finish()

    # -- the sink interface ------------------------------------------------------------
    def whole(self, value) -> None:
        raise _Doubt

    def top(self, key: str, value) -> None:
        self.c.top(key, value)
        if self.c.schema_problems or self.c.other_problems:
            raise _Doubt

    def begin(self, key: str) -> None:
        self.c.present.add(key)

    def events(self, start: int, items: list) -> None:
        self._events(items, start)

    def edges(self, start: int, items: list) -> None:
        if self.times is None:
            self.early_edges.append((start, items))
        else:
            self._edges(items, start)

    def end(self, key: str, count: int) -> None:
        if key != "events":
            return
        c = self.c
        if not count:
            raise _Doubt
        c.events_ok = c.events_done = True
        c.n = n = count
        c.t = array("d", self.t)
        c.types = self.type_codes
        c.agents = array("l", self.agent_codes)
        c.links = list(zip(self.link_idx, self.link_tc, self.link_sender, self.link_to))
        self.t = self.agent_codes = None
        ids = dict(zip(c.id_list, range(n)))
        if len(ids) != n:
            raise _Doubt  # a duplicate event id
        c.ids = ids
        self.times = np.frombuffer(c.t, dtype=np.float64)
        early, self.early_edges = self.early_edges, []
        for start, items in early:
            self._edges(items, start)

    def finish(self) -> TraceChecker:
        c = self.c
        if self.times is None or self.early_edges or not c.present.issuperset(TOP_REQUIRED):
            raise _Doubt
        if "edges" not in c.present:
            raise _Doubt
        if not all(math.isfinite(total) for total in c.sums.values()):
            raise _Doubt  # a sum overflowed: the exact path says so
        rules.check_cycles(c)
        if c.n <= SMALL:  # the exact checks are cheaper than numpy's per-call cost here
            rules.check_lifecycle(c)
            rules.check_returns(c)
            if c.other_problems:
                raise _Doubt
            return c
        links = [np.array(column, dtype=np.int64) for column in (self.link_idx, self.link_tc, self.link_sender, self.link_to)]
        if c.other_problems or not _lifecycle_ok(c, self.times, links) or not _returns_ok(c, self.times, links):
            raise _Doubt
        return c

    def _events(self, chunk: list, a: int) -> None:
        c = self.c
        if self.times is not None:
            raise _Doubt  # a second events array
        try:
            typed = msgspec.convert(chunk, _KNOWN_EVENTS)
        except msgspec.ValidationError:
            typed = msgspec.convert(chunk, _EVENTS)  # raises on a real type error
            for d in chunk:
                if not d.keys() <= EVENT_KEYS:
                    for k, v in d.items():
                        if k not in EVENT_KEYS and type(v) in (dict, list, float, int) and not _free_ok(v, 4):
                            raise _Doubt from None
        c.id_list.extend(map(_ID, typed))
        self.t.extend(map(_T, typed))
        codes_start = len(self.type_codes)
        self.type_codes.extend(map(TYPE_CODE.__getitem__, map(_TYPE, typed)))
        agents = list(map(_AGENT, typed))
        codes = c.agent_code
        _register(c, agents)
        agent_codes = list(map(codes.__getitem__, agents))
        self.agent_codes.extend(agent_codes)
        tcs = self.type_codes[codes_start:]
        link_types = LINK_TYPES
        picked = [k for k, tc in enumerate(tcs) if tc in link_types]
        if picked:
            rows = [typed[k] for k in picked]
            froms = list(map(_FROM, rows))
            tos = list(map(_TO, rows))
            _register(c, [x for x in froms if x is not UNSET] + [x for x in tos if x is not UNSET])
            self.link_idx.extend([a + k for k in picked])
            self.link_tc.extend([tcs[k] for k in picked])
            self.link_sender.extend([agent_codes[k] if f is UNSET else codes[f] for k, f in zip(picked, froms)])
            self.link_to.extend([-1 if x is UNSET else codes[x] for x in tos])
        decisions = list(map(_DECISION, typed))
        if decisions.count(UNSET) != len(decisions):
            for k, d in enumerate(decisions):
                if d is not UNSET:
                    tc = tcs[k]
                    if tc != OD and tc != STOP or (tc == STOP and d != "O5"):
                        raise _Doubt
                    key = (tc, d)
                    c.decisions[key] = c.decisions.get(key, 0) + 1
        sums = c.sums
        for field, minimum, get in _OPTIONAL_NUMBERS:
            values = list(map(get, typed))
            if values.count(UNSET) != len(values):
                values = [v for v in values if v is not UNSET]
                low, high = min(values), max(values)
                if not (low >= minimum and high <= MAX_FLOAT and low - low == 0.0 and high - high == 0.0):
                    raise _Doubt  # below the minimum, not finite, or beyond a float
                sums[field] += sum(values)

    def _edges(self, chunk: list, a: int) -> None:
        c = self.c
        times = self.times
        typed = msgspec.convert(chunk, _EDGES)
        b = a + len(typed)
        get = c.ids.__getitem__
        codes = bytes(map(EDGE_CODE.__getitem__, map(_TYPE, typed)))
        if len(typed) <= SMALL:  # numpy's per-call cost would dominate
            src = list(map(get, map(_SRC, typed)))
            dst = list(map(get, map(_DST, typed)))
            t_src = list(map(c.t.__getitem__, src))
            t_dst = list(map(c.t.__getitem__, dst))
            if any(map(float.__gt__, t_src, t_dst)):
                raise _Doubt  # time goes backwards along an edge
            for k in [k for k, (x, y) in enumerate(zip(t_src, t_dst)) if x == y]:
                if codes[k] in ACYCLIC_EDGES:
                    c._cycle_candidates.append((a + k, src[k], dst[k], codes[k]))
            c.esrc.extend(src)
            c.edst.extend(dst)
            c.eidx.extend(range(a, b))
            c.etype.extend(codes)
            return
        try:
            src = np.array(list(map(get, map(_SRC, typed))), dtype=np.int64)
            dst = np.array(list(map(get, map(_DST, typed))), dtype=np.int64)
        except KeyError:
            raise _Doubt from None  # an edge to an unknown event
        t_src, t_dst = times[src], times[dst]
        if (t_src > t_dst).any():
            raise _Doubt  # time goes backwards along an edge
        for k in np.flatnonzero(t_src == t_dst).tolist():
            if codes[k] in ACYCLIC_EDGES:
                c._cycle_candidates.append((a + k, int(src[k]), int(dst[k]), codes[k]))
        c.esrc.frombytes(src.astype(_LONG).tobytes())
        c.edst.frombytes(dst.astype(_LONG).tobytes())
        c.eidx.frombytes(np.arange(a, b, dtype=_LONG).tobytes())
        c.etype.extend(codes)


def _register(c: TraceChecker, names: list) -> None:
    """Give every new agent name a code, in order of first appearance."""
    codes = c.agent_code
    for name in dict.fromkeys(names):
        if name not in codes:
            codes[name] = len(c.agent_names)
            c.agent_names.append(name)


def _lifecycle_ok(c: TraceChecker, times, links) -> bool:
    """The lifecycle rule, in bulk for traces without despawns; else the exact check.

    Without despawns an agent that is ever spawned is alive from its earliest spawn
    on (spawning a live agent changes nothing) and a root always; so every event's
    time must be at least its agent's earliest spawn time.
    """
    if c.types.count(DESPAWN):
        rules.check_lifecycle(c)
        return not c.other_problems
    idx, tc, _sender, to = links
    spawns = (tc == SPAWN) & (to >= 0)
    if not spawns.any():
        return True
    first = np.full(len(c.agent_names), -np.inf)
    first[to[spawns]] = np.inf
    np.minimum.at(first, to[spawns], times[idx[spawns]])
    agents = np.frombuffer(c.agents, dtype=_LONG)
    return bool((times >= first[agents]).all())


def _returns_ok(c: TraceChecker, times, links) -> bool:
    """The return rule in bulk: each return's recipient contacted the returner at or before it."""
    idx, tc, sender, to = links
    returns = tc == RETURN
    if not returns.any():
        return True
    if (to[returns] < 0).any():
        return False
    width = len(c.agent_names) + 1
    contact = np.isin(tc, _CONTACT) & (to >= 0)
    if not contact.any():
        return False
    keys = sender[contact] * width + to[contact]
    when = times[idx[contact]]
    order = np.lexsort((when, keys))
    keys, when = keys[order], when[order]
    unique, first = np.unique(keys, return_index=True)
    earliest = when[first]
    wanted = to[returns] * width + sender[returns]
    pos = np.minimum(np.searchsorted(unique, wanted), len(unique) - 1)
    found = unique[pos] == wanted
    return bool((found & (earliest[pos] <= times[idx[returns]])).all())


_CONTACT = np.array(sorted(CONTACT_TYPES), dtype=np.int64)
_ID, _T, _TYPE, _AGENT = (attrgetter(name) for name in ("id", "t", "type", "agent"))
_FROM, _TO, _DECISION, _SRC, _DST = (attrgetter(name) for name in ("from_", "to", "decision", "src", "dst"))
_LONG = np.dtype(f"i{array('l').itemsize}")

__all__ = ["Edge", "Event", "check_data", "check_tree"]
