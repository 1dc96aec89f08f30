"""The fast, accept-only path of trace validation: typed decoding in C, derived from the schema.

:data:`Event`, :data:`KnownEvent` and :data:`Edge` are msgspec Struct types built from
``trace.schema.json`` itself (:func:`_struct_from_schema`: required keys, string
``minLength``, number ``minimum``, enums, ``additionalProperties: false``), so the
typed path and the published contract cannot disagree on a field. Numbers must also
be finite (``le`` the largest float; integers within 64 bits, larger ones go to the
exact path). :data:`Trace` is the top level: the streamed arrays as raw bytes, every
other value checked by the exact checker's own top-level code (they are few).

:func:`check_data` decodes the bytes with msgspec, which checks the structure in C
while it parses: the top level once, then the ``events`` and ``edges`` arrays in
blocks of about :data:`BLOCK_BYTES` (bounded memory), each block straight into a list
of Structs (:mod:`masrl.trace.columns` then fills the checker's columns in bulk and
runs the graph rules). A block with event keys the schema does not name is decoded
untyped and converted, and its free-form values are checked (finite, at most
:data:`~masrl.trace.load.MAX_DEPTH` levels). msgspec rejects NaN/Infinity, numbers
that overflow a double, invalid UTF-8, lone surrogates and runaway nesting itself.

Duplicate keys: msgspec keeps the last value of a repeated key, so the path proves
there is none by counting. In JSON text a ``:`` is either a key's separator or a
character of a string; a string's ``:`` can only be written as ``:`` or as the escape
``\\u003a``. With no such escape in the file (else the path gives up), re-encoding
the decoded values writes exactly one ``:`` per key kept and one per ``:`` in every
string kept; a dropped duplicate drops at least its own key's ``:``. So the file has
no repeated key iff its ``:`` count equals that of the re-encoded values, which
msgspec's encoder writes in C.

:func:`check_tree` runs the same Structs on an already-parsed trace
(``msgspec.convert``). The path only ever *accepts*: on the first doubt (a decode
error, a validation error, any broken rule) it returns ``None`` and
:func:`masrl.trace.validate.check_bytes` runs the exact element-by-element checker,
whose messages name every problem. So a trace is valid on this path iff it is valid
on the exact path (the tests run both on the same generated traces).
"""

from __future__ import annotations

import re
import sys
from typing import Annotated, Any, Literal, Union

import msgspec
from msgspec import UNSET, Meta, Raw, UnsetType

from .checker import TraceChecker
from .codes import MAX_EXACT
from .columns import Columns, Doubt, free_ok
from .load import STREAMED_KEYS
from .schema import schema

MAX_FLOAT = sys.float_info.max
#: Integers beyond 64 bits are left to the exact path (msgspec bounds only fit int64).
MAX_INT = (1 << 63) - 1
#: Bytes of an events or edges array decoded in one call (a block; bounds the typed copies).
#: Small enough that a block's Structs stay in the CPU cache while the columns are filled from
#: them (every field is one pass over the block): 4 MiB blocks made validating a million-event
#: trace about 1.4x slower than 128 KiB ones (scripts/bench_trace.py).
BLOCK_BYTES = 1 << 17
#: Elements of a parsed array converted at a time (:func:`check_tree`; cache-sized, as above).
CHUNK = 1 << 11


def _number(minimum: float | None):
    low = -MAX_FLOAT if minimum is None else minimum
    return Union[Annotated[int, Meta(ge=max(int(low), -MAX_INT), le=MAX_INT)], Annotated[float, Meta(ge=low, le=MAX_FLOAT)]]


def _field_type(spec: dict, required: bool):
    """A msgspec type for one property of the schema (the kinds the trace schema uses)."""
    if "enum" in spec:
        return Literal[tuple(spec["enum"])]
    kind = spec.get("type")
    if kind == "string":
        return Annotated[str, Meta(min_length=spec["minLength"])] if "minLength" in spec else str
    if kind == "number":  # the required number is the time; optional ones keep ints as ints
        if required:  # an integer time beyond 2**53 is left to the exact path, which names it (codes.inexact_time)
            low = spec.get("minimum", -MAX_FLOAT)
            return Union[Annotated[int, Meta(ge=max(int(low), -MAX_EXACT), le=MAX_EXACT)],
                         Annotated[float, Meta(ge=low, le=MAX_FLOAT)]]
        return _number(spec.get("minimum"))
    if kind == "boolean":
        return bool
    raise ValueError(f"no typed form for schema property {spec}")  # pragma: no cover - schema is fixed


def _attr(key: str) -> str:
    return key if key.isidentifier() and key != "from" else f"{key}_"


def _struct_from_schema(name: str, definition: dict, strict: bool = False):
    required = set(definition.get("required", ()))
    fields = [(_attr(key), _field_type(spec, True), msgspec.field(name=key))
              for key, spec in definition["properties"].items() if key in required]
    fields += [(_attr(key), Union[_field_type(spec, False), UnsetType], msgspec.field(default=UNSET, name=key))
               for key, spec in definition["properties"].items() if key not in required]
    return msgspec.defstruct(
        name, fields, forbid_unknown_fields=strict or definition.get("additionalProperties") is False, gc=False
    )


def _top_struct(name: str, arrays: dict):
    """The top level: events and edges as ``arrays`` says (raw bytes, or typed lists), other values
    untyped (the exact checker's top-level code checks them); unknown keys refused, required keys required."""
    top = schema()
    required = set(top["required"])
    fields = [(key, arrays.get(key, Any)) for key in top["properties"] if key in required]
    fields += [(key, Union[arrays.get(key, Any), UnsetType], UNSET) for key in top["properties"] if key not in required]
    return msgspec.defstruct(name, fields, forbid_unknown_fields=True, gc=False)


Event = _struct_from_schema("Event", schema()["$defs"]["event"])
#: The same, refusing keys the schema does not name: most events have none, and then
#: there is no free-form value to look at.
KnownEvent = _struct_from_schema("KnownEvent", schema()["$defs"]["event"], strict=True)
Edge = _struct_from_schema("Edge", schema()["$defs"]["edge"])
Trace = _top_struct("Trace", {"events": Raw, "edges": Raw})
#: A small trace in one call: the arrays typed as well (events without free-form properties).
WholeTrace = _top_struct("WholeTrace", {"events": list[KnownEvent], "edges": list[Edge]})
EVENT_KEYS = frozenset(schema()["$defs"]["event"]["properties"])

_TRACE = msgspec.json.Decoder(Trace)
_WHOLE = msgspec.json.Decoder(WholeTrace)
_KNOWN = msgspec.json.Decoder(list[KnownEvent])
_ANY = msgspec.json.Decoder(list[dict])
_EDGES = msgspec.json.Decoder(list[Edge])
_ENCODE = msgspec.json.Encoder().encode
_NO_ARRAY = Raw(b"[]")
_TOP_FIELDS = tuple(key for key in Trace.__struct_fields__ if key not in STREAMED_KEYS)
#: The one escape that writes a ':' inside a string; with it the colon count proves nothing.
_COLON_ESCAPE = re.compile(rb"\\u003[aA]").search
_CUT = re.compile(rb"\}[ \t\n\r]*,[ \t\n\r]*").search
_DOUBTS = (Doubt, msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError, KeyError, OverflowError,
           RecursionError)


def check_data(data: bytes, file: str) -> TraceChecker | None:
    """Bytes -> the finished :class:`TraceChecker` of a valid trace, or ``None`` (any doubt)."""
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    if _COLON_ESCAPE(body):
        return None
    if len(body) <= BLOCK_BYTES:
        try:
            return _whole(body, file)
        except msgspec.ValidationError:
            pass  # e.g. free-form event properties: the block path below reads them
        except _DOUBTS:
            return None
    try:
        top = _TRACE.decode(body)
        sink = Columns(file)
        for key in _TOP_FIELDS:
            value = getattr(top, key)
            if value is not UNSET:
                sink.top(key, value)
        colons = _ENCODE(msgspec.structs.replace(top, events=_NO_ARRAY, edges=_NO_ARRAY)).count(b":")
        colons += _blocks(top.events, _events_block, sink)
        sink.end_events()
        colons += _blocks(top.edges, _edges_block, sink)
        if colons != body.count(b":"):
            raise Doubt  # a repeated key somewhere (msgspec kept its last value)
        return sink.finish()
    except _DOUBTS:
        return None


def _whole(body: bytes, file: str) -> TraceChecker:
    """A small trace decoded, typed, in one call; the same checks as the block path."""
    doc = _WHOLE.decode(body)
    encoded = _ENCODE(doc)
    if encoded.count(b":") != body.count(b":"):
        raise Doubt  # a repeated key somewhere
    sink = Columns(file)
    for key in _TOP_FIELDS:
        value = getattr(doc, key)
        if value is not UNSET:
            sink.top(key, value)
    sink.events(doc.events, 0, encoded)  # the whole document's text: a key found elsewhere only costs a pass
    sink.end_events()
    sink.edges(doc.edges, 0)  # the whole body's count above covers the edges
    return sink.finish()


def _free_form_ok(events: list) -> bool:
    """Every value under a key the schema does not name is finite and nests at most MAX_DEPTH levels."""
    for d in events:
        if not d.keys() <= EVENT_KEYS:
            for k, v in d.items():
                if k not in EVENT_KEYS and type(v) in (dict, list, float, int) and not free_ok(v, 4):
                    return False
    return True


def _events_block(chunk, sink: Columns, a: int) -> tuple[int, int]:
    """One block of events -> (its ``:`` count re-encoded, events)."""
    try:
        typed = _KNOWN.decode(chunk)
        encoded = _ENCODE(typed)
    except msgspec.ValidationError:  # keys the schema does not name (or a real error: convert says so)
        loose = _ANY.decode(chunk)
        typed = msgspec.convert(loose, list[Event])
        if not _free_form_ok(loose):
            raise Doubt from None
        encoded = _ENCODE(loose)
    sink.events(typed, a, encoded)
    return encoded.count(b":"), len(typed)


def _edges_block(chunk, sink: Columns, a: int) -> tuple[int, int]:
    typed = _EDGES.decode(chunk)
    text = chunk if type(chunk) is bytearray else bytes(chunk)
    return sink.edges(typed, a, text.count(b":")), len(typed)


def _blocks(raw: Raw, feed, sink: Columns) -> int:
    """Cut a raw array into blocks of about BLOCK_BYTES after a ``},``, feed each; returns the ``:`` count.

    A cut inside a string or a nested value (a free-form event property) leaves a
    block that is not JSON, which msgspec refuses before anything is fed; the block
    then grows to the next cut (after a few tries, it doubles), so only an error of
    the text itself, in the array's last block, is a doubt.
    """
    view = memoryview(raw)
    n = len(view)
    if n < 2 or view[0] != 0x5B:  # not an array: the exact checker names it
        raise Doubt
    if n <= BLOCK_BYTES:
        return feed(view, sink, 0)[0]
    colons = index = 0
    i = 1
    while True:
        limit, tries = i + BLOCK_BYTES, 0
        while True:
            m = _CUT(view, limit) if limit < n else None
            chunk = bytearray(b"[")
            chunk += view[i:] if m is None else view[i:m.start() + 1]
            if m is not None:
                chunk += b"]"
            try:
                found, count = feed(chunk, sink, index)
                break
            except msgspec.DecodeError:
                if m is None:
                    raise
                tries += 1
                limit = m.end() if tries < 4 else i + 2 * (m.end() - i)
        colons += found
        index += count
        if m is None:
            return colons
        i = m.end()


def check_tree(doc, file: str) -> TraceChecker | None:
    """A parsed trace -> a finished :class:`TraceChecker` with no problem, or ``None``."""
    if type(doc) is not dict:
        return None
    try:
        sink = Columns(file)
        for key, value in doc.items():
            if key not in STREAMED_KEYS:
                sink.top(key, value)
        events, edges = doc.get("events"), doc.get("edges")
        if type(events) is not list or type(edges) is not list:
            raise Doubt
        for start in range(0, len(events), CHUNK):
            chunk = events[start:start + CHUNK]
            try:
                typed = msgspec.convert(chunk, list[KnownEvent])
            except msgspec.ValidationError:
                typed = msgspec.convert(chunk, list[Event])  # raises on a real type error
                if not _free_form_ok(chunk):
                    raise Doubt from None
            sink.events(typed, start)
        sink.end_events()
        for start in range(0, len(edges), CHUNK):
            sink.edges(msgspec.convert(edges[start:start + CHUNK], list[Edge]), start)
        return sink.finish()
    except _DOUBTS:
        return None


__all__ = ["Edge", "Event", "KnownEvent", "Trace", "WholeTrace", "check_data", "check_tree"]
