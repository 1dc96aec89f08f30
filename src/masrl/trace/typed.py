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
from typing import Annotated, Literal, Union

import msgspec
from jiter import from_json
from msgspec import UNSET, Meta, UnsetType

from .checker import ACYCLIC_EDGES, EDGE_CODE, LINK_TYPES, OD, STOP, TYPE_CODE, TraceChecker
from .load import MAX_DEPTH, STREAMED_KEYS
from .schema import schema

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
            fields.append((attr, Union[typ, UnsetType], msgspec.field(default=UNSET, name=key)))
    return msgspec.defstruct(
        name, fields, forbid_unknown_fields=definition.get("additionalProperties") is False, gc=False
    )


Event = _struct_from_schema("Event", schema()["$defs"]["event"])
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
    """Fills a TraceChecker's columns from typed values, a chunk at a time."""

    def __init__(self, file: str):
        self.c = TraceChecker(file)

    def run(self, doc: dict, release: bool) -> TraceChecker:
        c = self.c
        events, edges = doc.get("events"), doc.get("edges")
        if type(events) is not list or type(edges) is not list or not events:
            raise _Doubt
        for key, value in doc.items():
            if key not in STREAMED_KEYS:
                c.top(key, value)
        if c.schema_problems or c.other_problems:
            raise _Doubt
        c.present.update(STREAMED_KEYS)
        c.events_ok = True
        for start in range(0, len(events), CHUNK):
            self._events(events, start, min(start + CHUNK, len(events)), release)
        c.events_done = True
        c.n = len(events)
        ids = dict(zip(c.id_list, range(c.n)))
        if len(ids) != c.n:
            raise _Doubt  # a duplicate event id
        c.ids = ids
        for start in range(0, len(edges), CHUNK):
            self._edges(edges, start, min(start + CHUNK, len(edges)), release)
        if c.finish():
            raise _Doubt
        return c

    def _events(self, events: list, a: int, b: int, release: bool) -> None:
        c = self.c
        chunk = events[a:b]
        typed = msgspec.convert(chunk, _EVENTS)
        if not set().union(*map(dict.keys, chunk)) <= EVENT_KEYS:
            for d in chunk:
                for k, v in d.items():
                    if k not in EVENT_KEYS and type(v) in (dict, list, float, int) and not _free_ok(v, 4):
                        raise _Doubt
        if release:
            events[a:b] = [None] * (b - a)
        del chunk
        ids = [e.id for e in typed]
        c.id_list.extend(ids)
        c.t.extend([e.t for e in typed])
        names = [e.type for e in typed]
        c.types.extend(map(TYPE_CODE.__getitem__, names))
        agents = [e.agent for e in typed]
        codes = c.agent_code
        for name in dict.fromkeys(agents):
            if name not in codes:
                c._code(name)
        c.agents.extend(map(codes.__getitem__, agents))
        link_names = _LINK_NAMES
        for k in [k for k, name in enumerate(names) if name in link_names]:
            e = typed[k]
            tc = TYPE_CODE[e.type]
            sender = c._code(e.from_) if e.from_ is not UNSET else codes[e.agent]
            to = c._code(e.to) if e.to is not UNSET else -1
            c.links.append((a + k, tc, sender, to))
        decided = [e for e in typed if e.decision is not UNSET]
        for e in decided:
            tc = TYPE_CODE[e.type]
            if tc != OD and tc != STOP or (tc == STOP and e.decision != "O5"):
                raise _Doubt
            key = (tc, e.decision)
            c.decisions[key] = c.decisions.get(key, 0) + 1
        sums = c.sums
        for field in ("tokens", "cost", "duration_s"):
            values = [v for v in (getattr(e, field) for e in typed) if v is not UNSET]
            if values:
                sums[field] += sum(values)

    def _edges(self, edges: list, a: int, b: int, release: bool) -> None:
        c = self.c
        typed = msgspec.convert(edges[a:b], _EDGES)
        if release:
            edges[a:b] = [None] * (b - a)
        ids = c.ids
        src = list(map(ids.get, [e.src for e in typed]))
        dst = list(map(ids.get, [e.dst for e in typed]))
        if None in src or None in dst:
            raise _Doubt
        codes = list(map(EDGE_CODE.__getitem__, [e.type for e in typed]))
        ts = c.t
        t_src = list(map(ts.__getitem__, src))
        t_dst = list(map(ts.__getitem__, dst))
        if any(map(float.__gt__, t_src, t_dst)):
            raise _Doubt  # time goes backwards along an edge
        acyclic = ACYCLIC_EDGES
        candidates = c._cycle_candidates
        for k in [k for k, (x, y) in enumerate(zip(t_src, t_dst)) if x == y]:
            if codes[k] in acyclic:
                candidates.append((a + k, src[k], dst[k], codes[k]))
        c.esrc.extend(src)
        c.edst.extend(dst)
        c.eidx.extend(range(a, b))
        c.etype.extend(codes)


_LINK_NAMES = frozenset(name for name, code in TYPE_CODE.items() if code in LINK_TYPES)

__all__ = ["Edge", "Event", "check_data", "check_tree"]
