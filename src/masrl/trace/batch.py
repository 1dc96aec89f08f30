"""Checks and metrics of many small traces at once, on the columns of the whole batch.

:func:`summarize_items` is the fast path of ``masrl trace summarize``. Each trace of a
batch (one file or one JSON Lines line) is decoded into msgspec Structs whose types come
from the schema (every structure rule, the top level's included, is checked in C while
parsing), and right away the fields that the rules and metrics read are pulled out into
compact columns: the events' fields as one tuple per field (``msgspec.structs.astuple``
and ``zip``), names and ids coded by C-level dict calls, the per-trace
sums and rewards added up as the one-trace path adds them. The trace's objects are then
dropped (their memory is reused by the next trace). The graph
rules and every metric of :func:`masrl.trace.metrics.trace_metrics` are then computed on
the columns with numpy, for all traces of the batch together (a trace is a segment of the
columns; agent codes are unique per trace, so grouping by agent is grouping within a trace).

Free-form event properties: the schema allows any other key on an event (its value
finite, nested at most :data:`~masrl.trace.load.MAX_DEPTH` levels). The ones masrl's
own converters write (:data:`CONVERTER_FIELDS`: ``model``, ``guardrail``,
``triggered``, ``step``) are typed fields of the batch's event Struct, so converted
traces are measured here too; any other key, or one of these with another type of
value, sends the trace to the one-at-a-time path.

Like the typed path of validation (:mod:`masrl.trace.typed`), this path only
*accepts*: a trace it has any doubt about (a decode or schema error, a repeated key,
another free-form event property, a duplicate id, an edge to an unknown event, a
despawn, equal-time edges that close a cycle, a broken graph rule, a sum that overflows,
a number beyond 2**53 in its row) is handed back, and the caller validates and measures
it one at a time, which names every problem. The tests require the rows of both paths to
be identical.
"""

from __future__ import annotations

import gc
from array import array
from functools import partial
from itertools import compress, repeat
from operator import is_not, itemgetter
from typing import Annotated, Literal, Union

import msgspec
import numpy as np
from msgspec import NODEFAULT, UNSET, Meta, UnsetType

from .codes import (
    ACYCLIC_EDGES,
    CONTACT_TYPES,
    DESPAWN,
    EDGE_CODE,
    LINK_TYPES,
    MAX_FLOAT,
    OD,
    RETURN,
    SPAWN,
    STOP,
    TOOL_RESULT,
    TYPE_CODE,
    number_sum,
    reward_sum,
)
from .bulk_metrics import relax_layer, spawn_depths
from .index import distinct
from .metrics import reward_by_credit_unit, tokens_per_reward
from .schema import CREDIT_UNITS, DECISIONS, EVENT_TYPES, TOPOLOGIES, schema
from .typed import _COLON_ESCAPE, MAX_INT, Edge, _attr, _field_type

#: Largest magnitude of a number in a row (see :data:`masrl.trace.summarize.MAX_SUMMARY`).
MAX_SUMMARY = 2**53

_NUM = Union[Annotated[int, Meta(ge=-MAX_INT, le=MAX_INT)], Annotated[float, Meta(ge=-MAX_FLOAT, le=MAX_FLOAT)]]
_NONNEG = Union[Annotated[int, Meta(ge=0, le=MAX_INT)], Annotated[float, Meta(ge=0, le=MAX_FLOAT)]]
_LABEL = Union[str, bool, _NUM]

#: Free-form event properties that masrl's converters write (masrl.trace.convert), with the type
#: they write: typed fields of :data:`BatchEvent`. Each is a value the schema allows (any finite,
#: shallow value), so a trace that has one with another type only goes the one-at-a-time way.
CONVERTER_FIELDS: dict = {"model": str, "guardrail": str, "triggered": bool, "step": _NUM}
_NAN = float("nan")
_QUOTE = ord('"')


def _event_struct():
    """The schema's event plus :data:`CONVERTER_FIELDS`, other keys refused; and ``(name, default,
    is text)`` of each field (``msgspec.NODEFAULT`` for a required one). An optional field that is
    absent holds a default that the encoder leaves out (so the re-encoded text has the keys of the
    original): this NaN object for the numbers, None for the others."""
    spec = schema()["$defs"]["event"]
    required = set(spec["required"])
    fields = [(_attr(k), _field_type(v, True), msgspec.field(name=k)) for k, v in spec["properties"].items() if k in required]
    fields += [(_attr(k), _field_type(v, False), msgspec.field(default=_NAN if v.get("type") == "number" else None, name=k))
               for k, v in spec["properties"].items() if k not in required]
    fields += [(k, kind, msgspec.field(default=None)) for k, kind in CONVERTER_FIELDS.items()]
    texts = {_attr(k) for k, v in spec["properties"].items() if v.get("type") == "string" or "enum" in v}
    texts |= {k for k, kind in CONVERTER_FIELDS.items() if kind is str}
    return (msgspec.defstruct("BatchEvent", fields, forbid_unknown_fields=True, omit_defaults=True, gc=False),
            [(name, field.default, name in texts) for name, _, field in fields])


BatchEvent, _EVENT_FIELDS = _event_struct()
assert not set(CONVERTER_FIELDS) & set(schema()["$defs"]["event"]["properties"]), "a converter field is a schema field"


class BatchTrace(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A whole trace with every top-level value typed (the exact checker's top-level rules, in C)."""

    trace_id: str
    task_id: str
    events: list[BatchEvent]
    edges: list[Edge]
    rewards: dict[str, _NUM]
    costs: dict[str, _NONNEG]
    schema_version: Union[str, UnsetType] = UNSET
    system: Union[str, UnsetType] = UNSET
    topology: Union[Literal[tuple(TOPOLOGIES)], UnsetType] = UNSET
    metrics: Union[dict[str, _NUM], UnsetType] = UNSET
    labels: Union[dict[str, _LABEL], UnsetType] = UNSET
    annotations: Union[dict[str, _LABEL], UnsetType] = UNSET
    reward_credit_units: Union[dict[str, Literal[tuple(CREDIT_UNITS)]], UnsetType] = UNSET


# The struct must name exactly the schema's top-level keys (a new key there must be typed here too).
assert set(BatchTrace.__struct_fields__) == set(schema()["properties"]), "BatchTrace and trace.schema.json disagree"

_DECODE = msgspec.json.Decoder(BatchTrace).decode
_ENCODE = msgspec.json.Encoder().encode
_ASTUPLE = msgspec.structs.astuple
_AT = {name: k for k, name in enumerate(BatchEvent.__struct_fields__)}
_I_ID, _I_T, _I_TYPE, _I_AGENT, _I_FROM, _I_TO, _I_DECISION = (
    _AT[name] for name in ("id", "t", "type", "agent", "from_", "to", "decision"))
#: The optional numbers of an event, summed per trace (their position in an event's fields).
_OPTIONAL = {name: _AT[name] for name in ("tokens", "cost", "duration_s")}
#: (position, default, is text) of each optional field of an event: what counting its keys and texts reads.
_OPTIONAL_FIELDS = [(k, default, text) for k, (_, default, text) in enumerate(_EVENT_FIELDS) if default is not NODEFAULT]
#: Keys and texts of an event's required fields, and of an edge (every edge field is a required text).
_REQUIRED_STRINGS = sum(1 + text for _, default, text in _EVENT_FIELDS if default is NODEFAULT)
_EDGE_STRINGS = 2 * len(Edge.__struct_fields__)
#: The optional fields that are texts (absent: None) and the others, for counting the absent ones a kind at a time;
#: the strings of an event that has every optional field.
_OPTIONAL_TEXTS = itemgetter(*[k for k, default, text in _OPTIONAL_FIELDS if text])
_OPTIONAL_OTHERS = itemgetter(*[k for k, default, text in _OPTIONAL_FIELDS if not text])
_OTHER_DEFAULTS = tuple(default for _, default, text in _OPTIONAL_FIELDS if not text)
assert all(default is None for _, default, text in _OPTIONAL_FIELDS if text), "an optional text's default is not None"
_OPTIONAL_MOST = _REQUIRED_STRINGS + sum(1 + text for _, _, text in _OPTIONAL_FIELDS)
#: The top-level values that are objects (their keys and texts are counted).
_TOP_DICTS = itemgetter(*[k for k, name in enumerate(BatchTrace.__struct_fields__)
                          if schema()["properties"][name].get("type") == "object"])
_E_SRC, _E_DST, _E_TYPE = (Edge.__struct_fields__.index(name) for name in ("src", "dst", "type"))
assert not Edge.__struct_defaults__, "an edge field is optional: count its keys as an event's"
_GIVEN = partial(is_not, _NAN)  # an optional number that the event has
_TYPE_CODES = {name: TYPE_CODE[name] for name in EVENT_TYPES}
#: Type code -> 1 for the event types whose ``from``/``to`` name agents (as the exact checker reads them),
#: and for those that may carry a decision (the schema's allOf): ``bytes.translate`` tables.
_LINK_TABLE = bytes(1 if code in LINK_TYPES else 0 for code in range(256))
_DECIDES_TABLE = bytes(1 if code in (OD, STOP) else 0 for code in range(256))
_NT = len(EVENT_TYPES)
_DEP = np.zeros(256, dtype=bool)
_DEP[[EDGE_CODE[n] for n in ("spawn", "causal", "return", "message", "tool_dependency", "aggregate")]] = True
_ACYCLIC = np.zeros(256, dtype=bool)
_ACYCLIC[sorted(ACYCLIC_EDGES)] = True
_LINK = np.frombuffer(_LINK_TABLE, dtype=np.uint8).astype(bool)
_DECIDES = np.frombuffer(_DECIDES_TABLE, dtype=np.uint8).astype(bool)
_CONTACT = np.array(sorted(CONTACT_TYPES), dtype=np.int64)
_COORD = np.array([TYPE_CODE[n] for n in ("orchestrator_decision", "spawn", "despawn", "message", "return",
                                          "aggregate", "stop")], dtype=np.int64)
#: Decision -> 1 + its position in DECISIONS.
_DEC_CODE = {d: k + 1 for k, d in enumerate(DECISIONS)}
_O5 = _DEC_CODE["O5"]
_UNITS = (*CREDIT_UNITS, "unmapped")
_UNIT_INDEX = {unit: j for j, unit in enumerate(_UNITS)}


def _decode(body: bytes):
    """``(doc, quotes)``: one trace's typed document, and the number of ``"`` in its text when the proof
    that no key is repeated is left to :meth:`_Columns.add` (-1 when it is made here); None when this
    path cannot vouch for the trace.

    The proof: msgspec keeps the last value of a repeated key, so a trace decoded with one has fewer
    keys than its text. In a text without a backslash every string (key or value) is two ``"``, and
    nothing else is, so it has ``quotes / 2`` strings: the trace's keys and texts must be that many
    (:func:`_strings`). A text with a backslash (an escaped quote, or an escaped ':' that re-encodes
    as ':') is re-encoded instead and its ':' counted, one per key, outside the strings that have them."""
    if body.startswith(b"\xef\xbb\xbf"):
        body = body[3:]
    escaped = b"\\" in body
    if escaped and _COLON_ESCAPE(body):
        return None
    try:
        doc = _DECODE(body)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError, RecursionError):
        return None
    if not doc.events or "tokens" not in doc.costs or "wall_clock_s" not in doc.costs:
        return None
    if not escaped:
        return doc, int(np.count_nonzero(np.frombuffer(body, dtype=np.uint8) == _QUOTE))  # a third of bytes.count's time
    if _ENCODE(doc).count(b":") != body.count(b":"):
        return None  # a repeated key somewhere (msgspec kept its last value)
    return doc, -1


def _strings(doc, fields: list, n: int) -> int:
    """The keys and texts of a decoded trace (``fields``: its events' values, a tuple per field): a
    field that is absent holds its default object (compared by identity first, so a value equal to it
    is never taken for it: None and the NaN object are no value JSON decodes to here)."""
    count = n * _OPTIONAL_MOST + _EDGE_STRINGS * len(doc.edges)  # as if every optional field were given
    count -= 2 * sum(map(tuple.count, _OPTIONAL_TEXTS(fields), repeat(None)))  # the absent texts: key and text
    count -= sum(map(tuple.count, _OPTIONAL_OTHERS(fields), _OTHER_DEFAULTS))  # the absent others: key
    top = _ASTUPLE(doc)
    count += len(top) - top.count(UNSET) + list(map(type, top)).count(str)  # the top-level keys and texts
    for value in _TOP_DICTS(top):
        if value is not UNSET:
            count += len(value) + list(map(type, value.values())).count(str)
    return count


_CODE = np.dtype("<u4")
_CODES: list = [b""]


def _codes(k: int) -> tuple:
    """The numbers 0 .. k-1 (at least), each as 4 bytes (:data:`_CODE`): a trace's positions and name codes
    are joined into one bytes object, which numpy reads as it is (a list of ints costs it a conversion each)."""
    if len(_CODES[0]) < 4 * k:
        size = max(k, 2 * len(_CODES[0]) // 4, 1024)
        data = np.arange(size, dtype=_CODE).tobytes()
        _CODES[:] = [data, tuple(data[i:i + 4] for i in range(0, len(data), 4))]
    return _CODES[1]


def _positions(parts: list) -> np.ndarray:
    """The 4-byte numbers of ``parts`` (bytes objects) as one int64 array."""
    return np.frombuffer(b"".join(parts), dtype=_CODE).astype(np.int64)


def _look(keys: tuple, table: dict) -> tuple:
    """``table[key]`` of each key (KeyError if one is missing), in one C call."""
    return itemgetter(*keys)(table) if len(keys) > 1 else (table[keys[0]],)


class _Columns:
    """What the rules and metrics read of the traces of a batch, gathered a trace at a time (:meth:`add`)
    right after it is decoded: only one trace's objects are alive at a time (the next trace's reuse their
    memory, still in the CPU cache), and the batch keeps compact columns.

    Per event: t, type code, agent/from/to codes (local to the trace: the running number of the name's
    first appearance), decision code (events that may carry one); per edge: the positions of its ends
    within its trace, type code; per trace: the counts, the event sums, the rewards and the top-level
    values of the row."""

    def __init__(self):
        self.t = array("d")
        self.types, self.etypes, self.decisions = bytearray(), bytearray(), bytearray()
        self.agent, self.frm, self.to, self.src, self.dst = [], [], [], [], []
        self.n_ev, self.n_ed, self.n_names, self.none = [], [], [], []
        self.sums = {name: [] for name in _OPTIONAL}
        self.top = []  # (trace_id, task_id, topology, labels, tokens, wall_clock_s, reward total, by unit, tokens/reward)

    def add(self, doc, quotes: int) -> bool:
        """Gather one decoded trace (``quotes``: see :func:`_decode`); False (nothing gathered) when a key is
        repeated, a rule read here fails or a sum overflows."""
        events, edges = doc.events, doc.edges
        n = len(events)
        fields = list(zip(*map(_ASTUPLE, events)))  # a tuple per field
        if quotes >= 0 and 2 * _strings(doc, fields, n) != quotes:
            return False  # a repeated key: the text has more strings than the trace
        ids = dict(zip(fields[_I_ID], _codes(n)))  # id -> position in the trace (4 bytes)
        if len(ids) != n:
            return False  # a duplicate event id
        if edges:
            ends = list(zip(*map(_ASTUPLE, edges)))
            try:
                src, dst = b"".join(_look(ends[_E_SRC], ids)), b"".join(_look(ends[_E_DST], ids))
            except KeyError:
                return False  # an edge to an unknown event
            edge_types = _look(ends[_E_TYPE], EDGE_CODE)
        else:
            src = dst = b""
            edge_types = ()
        types = bytes(_look(fields[_I_TYPE], _TYPE_CODES))
        decisions = fields[_I_DECISION]
        may = types.translate(_DECIDES_TABLE)
        decided = list(compress(decisions, may))
        if n - decisions.count(None) != len(decided) - decided.count(None):
            return False  # a decision on an event type that may not carry one (the schema's allOf)
        sums = []
        for index in _OPTIONAL.values():
            values = fields[index]
            if values.count(_NAN) == n:  # no event has it (the default object, compared by identity)
                sums.append(0)
                continue
            try:
                sums.append(number_sum(list(filter(_GIVEN, values)) if _NAN in values else values))
            except OverflowError:
                return False
        rewards = doc.rewards
        total = reward_sum(rewards.values())
        units = doc.reward_credit_units
        by_unit = reward_by_credit_unit(rewards, units if units is not UNSET else {})
        if not -MAX_FLOAT <= total <= MAX_FLOAT or not all(-MAX_FLOAT <= v <= MAX_FLOAT for v in by_unit.values()):
            return False  # the sums of the rewards overflow (the exact path names it)
        costs = doc.costs
        tokens = costs["tokens"]
        self.top.append((doc.trace_id, doc.task_id, None if doc.topology is UNSET else doc.topology,
                         None if doc.labels is UNSET else doc.labels, tokens, costs["wall_clock_s"], total, by_unit,
                         tokens_per_reward(tokens, total)))
        for name, value in zip(_OPTIONAL, sums):
            self.sums[name].append(value)
        link = types.translate(_LINK_TABLE)
        linked = link.count(1)
        names: dict = {}
        serial = iter(_codes(n + 2 * linked))  # a code per name: the position of its first appearance
        named = names.setdefault
        self.agent.append(b"".join(map(named, fields[_I_AGENT], serial)))
        self.frm.append(b"".join(map(named, compress(fields[_I_FROM], link), serial)))
        self.to.append(b"".join(map(named, compress(fields[_I_TO], link), serial)))
        self.n_names.append(n + 2 * linked)
        self.none.append(int.from_bytes(names[None], "little") if None in names else -1)
        self.t.extend(array("d", fields[_I_T]))
        self.types += types
        self.decisions.extend(map(_DEC_CODE.get, decided, repeat(0)))
        self.src.append(src)
        self.dst.append(dst)
        self.etypes.extend(edge_types)
        self.n_ev.append(n)
        self.n_ed.append(len(edges))
        return True

    def arrays(self) -> dict:
        """The columns as numpy arrays; agent codes made unique to their trace; ``tr``/``etr``: each
        event's and edge's trace."""
        n_ev = np.array(self.n_ev, dtype=np.int64)
        n_ed = np.array(self.n_ed, dtype=np.int64)
        traces = np.arange(n_ev.size)
        tr, etr = np.repeat(traces, n_ev), np.repeat(traces, n_ed)
        types = np.frombuffer(self.types, dtype=np.uint8).astype(np.intp)
        link = _LINK[types]
        name_base = np.concatenate(([0], np.cumsum(self.n_names)))[:-1]
        none = np.array(self.none, dtype=np.int64)
        agent_local = _positions(self.agent)
        agent = name_base[tr] + agent_local
        ltr = tr[link]
        frm_local, to_local = _positions(self.frm), _positions(self.to)
        sender = agent.copy()
        has_from = frm_local != none[ltr]
        sender[np.flatnonzero(link)[has_from]] = (name_base[ltr] + frm_local)[has_from]
        to = np.full(types.size, -1, dtype=np.int64)
        has_to = to_local != none[ltr]
        to[np.flatnonzero(link)[has_to]] = (name_base[ltr] + to_local)[has_to]
        # the codes are positions of first appearance, so most are never used: number the used ones densely,
        # so that every per-name array of the rules is as long as the batch has names (not events and links)
        used = np.zeros(int(np.sum(self.n_names)), dtype=bool)
        used[agent] = used[sender] = True
        named = to >= 0
        used[to[named]] = True
        dense = np.cumsum(used) - 1
        agent, sender = dense[agent], dense[sender]
        to[named] = dense[to[named]]
        ev_off = np.concatenate(([0], np.cumsum(n_ev)))
        decides = np.flatnonzero(_DECIDES[types])
        return {
            "n_ev": n_ev, "n_ed": n_ed, "tr": tr, "etr": etr, "ev_off": ev_off,
            "t": np.frombuffer(self.t, dtype=np.float64), "types": types, "agent": agent, "sender": sender, "to": to,
            "decides": decides, "decisions": np.frombuffer(self.decisions, dtype=np.uint8).astype(np.intp),
            "esrc": ev_off[etr] + _positions(self.src), "edst": ev_off[etr] + _positions(self.dst),
            "etypes": np.frombuffer(self.etypes, dtype=np.uint8).astype(np.intp),
            "M": int(dense[-1]) + 2 if dense.size else 1,
            "sums": self.sums, "top": self.top,
        }


def _without(c: dict, bad: set) -> dict:
    """The columns without the traces (positions) in ``bad``."""
    K = c["n_ev"].size
    keep = np.ones(K, dtype=bool)
    keep[sorted(bad)] = False
    ev, ed = keep[c["tr"]], keep[c["etr"]]
    n_ev, n_ed = c["n_ev"][keep], c["n_ed"][keep]
    traces = np.arange(n_ev.size)
    ev_off = np.concatenate(([0], np.cumsum(n_ev)))
    moved = np.full(c["tr"].size, -1, dtype=np.int64)  # old event index -> new
    moved[ev] = np.arange(int(ev.sum()))
    out = {
        "n_ev": n_ev, "n_ed": n_ed, "tr": np.repeat(traces, n_ev), "etr": np.repeat(traces, n_ed), "ev_off": ev_off,
        "esrc": moved[c["esrc"][ed]], "edst": moved[c["edst"][ed]], "etypes": c["etypes"][ed],
        "decides": moved[c["decides"][ev[c["decides"]]]], "decisions": c["decisions"][ev[c["decides"]]],
        "M": c["M"], "sums": {k: list(compress(v, keep.tolist())) for k, v in c["sums"].items()},
        "top": list(compress(c["top"], keep.tolist())),
    }
    for name in ("t", "types", "agent", "sender", "to"):
        out[name] = c[name][ev]
    return out


def summarize_items(items: list, labels: dict) -> tuple[dict | None, list[int]]:
    """Rows of the traces in ``items`` (``[(file, line, name, bytes)]``) that this path accepts.

    Returns ``(block, others)``: ``block`` is ``{"keys": [(file, line)], "columns": {name:
    list or array}}`` for the accepted traces (None if none), ``others`` the positions in
    ``items`` to validate and measure one at a time.
    """
    collecting = gc.isenabled()
    gc.disable()  # decoding and measuring create no reference cycles; collections would only rescan
    try:
        return _summarize(items, labels)
    finally:
        if collecting:
            gc.enable()


def _summarize(items: list, labels: dict) -> tuple[dict | None, list[int]]:
    kept, others = [], []
    columns = _Columns()
    for k, item in enumerate(items):
        doc = _decode(item[3])
        if doc is not None and columns.add(*doc):
            kept.append(k)
        else:
            others.append(k)
        del doc  # its memory goes to the next trace's objects
    if not kept:
        return None, others
    found = columns.arrays()
    del columns
    while True:
        try:
            block = _measure(found, [items[k] for k in kept], labels)
            return block, sorted(others)
        except _Retry as retry:  # some traces need the one-at-a-time path: measure the rest again
            bad = set(retry.positions)
            others += [kept[k] for k in bad]
            if len(bad) == len(kept):
                return None, sorted(others)
            found = _without(found, bad)
            kept = [p for k, p in enumerate(kept) if k not in bad]


class _Retry(Exception):
    def __init__(self, positions):
        super().__init__()
        self.positions = positions


def _flag(bad, where) -> None:
    """Raise :class:`_Retry` for the traces marked in the boolean array ``bad`` (or listed in ``where``)."""
    if where:
        raise _Retry(sorted(set(where)))
    if bad is not None and bad.any():
        raise _Retry(np.flatnonzero(bad).tolist())


def _flag_rows(tr, mask) -> None:
    """Raise :class:`_Retry` for the traces (``tr``: the trace of each row) of the rows marked in ``mask``."""
    if mask.any():
        raise _Retry(np.unique(tr[mask]).tolist())


def _measure(c: dict, items: list, labels: dict) -> dict:
    K = len(items)
    n_ev, n_ed, tr, etr, t, types = c["n_ev"], c["n_ed"], c["tr"], c["etr"], c["t"], c["types"]
    agent, sender, to, esrc, edst, ecodes, M = c["agent"], c["sender"], c["to"], c["esrc"], c["edst"], c["etypes"], c["M"]
    N = t.size
    _flag_rows(tr, types == DESPAWN)  # the exact lifecycle rule decides
    # -- graph rules ---------------------------------------------------------------
    t_src, t_dst = t[esrc], t[edst]
    _flag_rows(etr, t_src > t_dst)  # time goes backwards along an edge
    same = (t_src == t_dst) & _ACYCLIC[ecodes]
    if same.any():
        _flag(None, _cycle_traces(esrc[same], edst[same], etr[same]))
    spawn = (types == SPAWN) & (to >= 0)
    _flag_rows(tr, spawn & (sender == to))  # an agent spawns itself
    if spawn.any():
        first_spawn = np.full(M, -np.inf)
        first_spawn[to[spawn]] = np.inf
        np.minimum.at(first_spawn, to[spawn], t[spawn])
        _flag_rows(tr, t < first_spawn[agent])  # acts before it is spawned
    returns = types == RETURN
    if returns.any():
        _flag_rows(tr[returns], ~_returns_ok(t, types, sender, to, returns, M))
    decides, dec = c["decides"], c["decisions"]
    tagged = dec > 0
    dtr, dtypes = tr[decides], types[decides]
    _flag_rows(dtr, tagged & (dtypes == STOP) & (dec != _O5))  # a stop's decision is O5 (the schema's allOf)
    dec_counts = np.bincount(dtr[tagged] * len(DECISIONS) + dec[tagged] - 1, minlength=K * len(DECISIONS))
    dec_counts = dec_counts.reshape(K, len(DECISIONS))
    tagged_od = np.bincount(dtr[tagged & (dtypes == OD)], minlength=K)
    # -- metrics ---------------------------------------------------------------------
    type_counts = np.bincount(tr * _NT + types, minlength=K * _NT).reshape(K, _NT)
    agents_n, peak = _agents(t, types, agent, to, spawn, tr, M, K)
    steps, cp_time = _critical_path(t, esrc, edst, ecodes, tr, N, K)
    fan_max, fan_mean, depth = _spawn_tree(t, sender, to, spawn, tr, M, K)
    n_f = n_ev.astype(np.float64)
    coord = type_counts[:, _COORD].sum(axis=1)
    ints = {
        "events": n_ev, "edges": n_ed, "agents": agents_n, "critical_path_steps": steps,
        "ignored_cycle_edges": np.zeros(K, dtype=np.int64), "peak_concurrent_agents": peak,
        "spawn_fanout_max": fan_max, "spawn_depth": depth,
        "tool_calls": type_counts[:, TYPE_CODE["tool_call"]], "messages": type_counts[:, TYPE_CODE["message"]],
        **{f"decision_{d}": dec_counts[:, j] for j, d in enumerate(DECISIONS)},
        "decision_untagged": type_counts[:, OD] - tagged_od,
        **{f"events_{name}": type_counts[:, TYPE_CODE[name]] for name in EVENT_TYPES},
    }
    floats = {"critical_path_time": cp_time, "parallelism": n_f / steps, "spawn_fanout_mean": fan_mean,
              "protocol_overhead": coord / n_f}
    return _block(items, labels, c, ints, floats)


def _cycle_traces(src: np.ndarray, dst: np.ndarray, etr: np.ndarray) -> list[int]:
    """Traces whose equal-time spawn/causal/return edges close a cycle (Kahn's algorithm on them)."""
    succ: dict = {}
    indeg: dict = {}
    for s, d in zip(src.tolist(), dst.tolist()):
        succ.setdefault(s, []).append(d)
        indeg[d] = indeg.get(d, 0) + 1
        indeg.setdefault(s, 0)
    queue = [v for v, k in indeg.items() if not k]
    for v in queue:
        for d in succ.get(v, ()):
            indeg[d] -= 1
            if not indeg[d]:
                queue.append(d)
    left = {v for v, k in indeg.items() if k}
    return sorted({int(k) for s, k in zip(src.tolist(), etr.tolist()) if s in left})


def _returns_ok(t, types, sender, to, returns, M) -> np.ndarray:
    """Per return event: its recipient spawned, messaged or delegated to the returner at or before it."""
    ok = np.zeros(int(returns.sum()), dtype=bool)
    rto, rsender, rt = to[returns], sender[returns], t[returns]
    contact = np.isin(types, _CONTACT) & (to >= 0)
    if not contact.any():
        return ok
    width = M + 1
    keys = sender[contact] * width + to[contact]
    when = t[contact]
    order = np.lexsort((when, keys))
    keys, when = keys[order], when[order]
    head = np.ones(keys.size, dtype=bool)
    head[1:] = keys[1:] != keys[:-1]
    unique, earliest = keys[head], when[head]
    wanted = rto * width + rsender
    pos = np.minimum(np.searchsorted(unique, wanted), unique.size - 1)
    ok = (rto >= 0) & (unique[pos] == wanted) & (earliest[pos] <= rt)
    return ok


def _agents(t, types, agent, to, spawn, tr, M, K):
    """Agents (actors other than tool results, and spawn targets) and the peak of live agents, per trace."""
    acting = types != TOOL_RESULT
    first = np.full(M, np.inf)
    last = np.full(M, -np.inf)
    np.minimum.at(first, agent[acting], t[acting])
    np.maximum.at(last, agent[acting], t[acting])
    spawned = np.full(M, np.inf)
    is_spawned = np.zeros(M, dtype=bool)
    if spawn.any():
        np.minimum.at(spawned, to[spawn], t[spawn])
        is_spawned[to[spawn]] = True
    acted = first != np.inf
    present = acted | is_spawned
    owner = np.full(M, -1, dtype=np.int64)
    owner[agent] = tr
    owner[to[to >= 0]] = tr[to >= 0]
    codes = np.flatnonzero(present)
    start = np.where(is_spawned, spawned, first)[codes]
    end = np.where(acted[codes], np.maximum(last[codes], start), start)
    trace_of = owner[codes]
    agents_n = np.bincount(trace_of, minlength=K)
    # closed intervals: at equal times a start comes before an end
    times = np.concatenate((start, end))
    kind = np.concatenate((np.zeros(codes.size, dtype=np.int64), np.ones(codes.size, dtype=np.int64)))
    owners = np.concatenate((trace_of, trace_of))
    order = np.lexsort((kind, times, owners))
    delta = np.where(kind[order] == 0, 1, -1)
    running = np.cumsum(delta)
    peak = np.zeros(K, dtype=np.int64)
    if running.size:
        np.maximum.at(peak, owners[order], running)
    return agents_n, peak


def _critical_path(t, esrc, edst, ecodes, tr, N, K):
    """Longest dependency chains per trace (steps, time): Kahn's algorithm a layer at a time over the batch."""
    keep = _DEP[ecodes]
    src, dst = esrc[keep], edst[keep]
    order = np.argsort(src, kind="stable")
    adj = dst[order]
    starts = np.zeros(N + 1, dtype=np.int64)  # where each event's arcs start in adj: the running count
    np.cumsum(np.bincount(src, minlength=N), out=starts[1:])
    indeg = np.bincount(dst, minlength=N)
    steps = np.ones(N, dtype=np.int64)
    first = t.copy()
    frontier = np.flatnonzero(indeg == 0)
    done = frontier.size
    while frontier.size:
        frontier = relax_layer(frontier, starts, adj, steps, first, indeg)
        if frontier is None:
            break
        done += frontier.size
    if done != N:  # a cycle among message/tool_dependency/aggregate edges: the one-at-a-time rule for it
        raise _Retry(np.unique(tr[indeg > 0]).tolist())
    bounds = np.flatnonzero(np.concatenate(([True], tr[1:] != tr[:-1])))
    cp_steps = np.maximum.reduceat(steps, bounds)
    cp_time = np.maximum.reduceat(t - first, bounds)
    return cp_steps, cp_time


def _spawn_tree(t, sender, to, spawn, tr, M, K):
    """Fan-out (max, mean over spawners) and depth of the spawn forest, per trace."""
    fan_max = np.zeros(K, dtype=np.int64)
    fan_mean = np.zeros(K, dtype=np.float64)
    depth_out = np.zeros(K, dtype=np.int64)
    keep = spawn & (sender >= 0)
    if not keep.any():
        return fan_max, fan_mean, depth_out
    idx = np.flatnonzero(keep)
    s, d = sender[idx], to[idx]
    width = M + 1
    pairs = distinct(s * width + d)
    spawner = pairs // width
    heads = np.flatnonzero(np.concatenate(([True], spawner[1:] != spawner[:-1])))
    sizes = np.diff(np.append(heads, pairs.size))
    owner = np.full(M, -1, dtype=np.int64)
    owner[sender[keep]] = tr[keep]
    owner[to[keep]] = tr[keep]
    spawner_trace = owner[spawner[heads]]
    np.maximum.at(fan_max, spawner_trace, sizes)
    per_sum = np.bincount(spawner_trace, weights=sizes, minlength=K)
    per_n = np.bincount(spawner_trace, minlength=K)
    fan_mean = np.divide(per_sum, per_n, out=np.zeros(K), where=per_n > 0)
    depth = spawn_depths(idx, t[idx], s, d, width)
    if depth is None:  # a cycle of spawns: the one-at-a-time rule for it
        raise _Retry(np.unique(owner[d]).tolist())
    valid = np.flatnonzero(depth[:M] > 0)
    np.maximum.at(depth_out, owner[valid], depth[valid])
    return fan_max, fan_mean, depth_out


def _rounded(values) -> np.ndarray:
    """Floats to 6 decimals with no -0.0, exactly as :func:`masrl.trace.metrics._clean` rounds one
    (Python's ``round``: the nearest decimal, then the nearest double), for a whole column.

    numpy's ``rint(x * 1e6) / 1e6`` gives the same double unless the product's rounding error can put it
    on the other side of a half (then, and for magnitudes from 2**33 on, Python's ``round`` decides):
    both then round the same decimal, and dividing an integer below 2**53 by 1e6 is correctly rounded."""
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # beyond 2**33 (inf products included): Python's round
        p = x * 1e6
        out = np.rint(p) / 1e6
        near_half = np.abs(np.abs(p - np.floor(p)) - 0.5) <= 4 * np.spacing(np.abs(p))
    for k in zip(*np.nonzero(near_half | (np.abs(x) >= 2.0**33))):
        out[k] = round(float(x[k]), 6)
    out[out == 0] = 0.0
    return out


def _block(items, labels, c, ints: dict, floats: dict) -> dict:
    """The rows of the batch as columns (numpy arrays; lists for texts and labels); a row with a number
    beyond 2**53 in magnitude or a text that is not Unicode goes to the one-at-a-time path (which names it)."""
    K = len(items)
    cols: dict = {}
    keys = [(item[0], item[1]) for item in items]
    cols["trace"] = [item[2] for item in items]
    cols["file"] = [item[0] for item in items]
    cols["line"] = [item[1] for item in items]
    trace_id, task_id, topology, found_labels, tokens, wall, total, by_unit, per_reward = zip(*c["top"])
    cols["trace_id"], cols["task_id"], cols["topology"] = list(trace_id), list(task_id), list(topology)
    counts = np.stack([np.asarray(values, dtype=np.int64) for values in ints.values()])
    bad = (np.abs(counts) > MAX_SUMMARY).any(axis=0)
    cols.update(zip(ints, counts))
    exact = {"tokens": tokens, **{f"event_{name}": values for name, values in c["sums"].items()},
             "wall_clock_s": wall, "reward_total": total}
    for values in exact.values():
        _beyond(values, bad)  # before doubles round a whole number beyond 2**53 to it
    numbers = {**floats, **exact}
    units = np.zeros((K, len(_UNITS)))
    for k, found in enumerate(by_unit):
        for unit, value in found.items():
            units[k, _UNIT_INDEX[unit]] = value
            if not -MAX_SUMMARY <= value <= MAX_SUMMARY:
                bad[k] = True
    numbers.update((f"reward_{unit}", units[:, j]) for j, unit in enumerate(_UNITS))
    numbers["tokens_per_reward"] = [np.nan if v is None else v for v in per_reward]
    rounded = _rounded(np.stack([np.asarray(values, dtype=np.float64) for values in numbers.values()]))
    bad |= (np.abs(rounded) > MAX_SUMMARY).any(axis=0)  # NaN (no ratio) compares false
    cols.update(zip(numbers, rounded))
    cols["tokens_per_reward"] = [None if v != v else v for v in cols["tokens_per_reward"].tolist()]
    label_rows = [{**found, **labels} if found else labels for found in found_labels]
    names = sorted({k for row in label_rows for k in row})
    for key in names:
        cols[key if key in ("run", "step", "policy") else f"label_{key}"] = values = [row.get(key) for row in label_rows]
        _beyond(values, bad)
    # msgspec decodes only Unicode text; a file name (undecodable bytes) or a --label value may not be
    if not all(_unicode(v) for v in labels.values()):
        bad[:] = True
    if not "".join([item[0] + item[2] for item in items]).isascii():
        for k, item in enumerate(items):
            if not (_unicode(item[0]) and _unicode(item[2])):
                bad[k] = True
    _flag(bad, None)
    return {"keys": keys, "columns": cols}


def _unicode(value) -> bool:
    """False for a text with a lone surrogate (which Parquet cannot store)."""
    if type(value) is not str or value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _beyond(values: list, bad: np.ndarray) -> None:
    """Mark the rows whose number in ``values`` is beyond 2**53 in magnitude (the one-at-a-time path names it)."""
    try:  # a column of numbers only, all within: one C-level pass each way
        if -MAX_SUMMARY <= min(values) and max(values) <= MAX_SUMMARY:
            return
    except (TypeError, ValueError):  # texts, None or nothing: each value on its own
        pass
    for k, v in enumerate(values):
        if (type(v) is int or type(v) is float) and not -MAX_SUMMARY <= v <= MAX_SUMMARY:
            bad[k] = True


__all__ = ["BatchEvent", "BatchTrace", "CONVERTER_FIELDS", "summarize_items"]
