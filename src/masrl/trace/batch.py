"""Checks and metrics of many small traces at once, on the columns of the whole batch.

:func:`summarize_items` is the fast path of ``masrl trace summarize``: a batch of
traces (one file or one JSON Lines line each) is decoded into msgspec Structs whose
types come from the schema (every structure rule, the top level's included, is
checked in C while parsing), their events and edges are concatenated into columns,
and the graph rules and every metric of :func:`masrl.trace.metrics.trace_metrics` are
computed on those columns with numpy, for all traces of the batch together (a trace
is a segment of the columns; agent codes are unique per trace, so grouping by agent
is grouping within a trace). Per trace, Python does a handful of C-level calls (its id
table, its agent codes, its reward sums).

Like the typed path of validation (:mod:`masrl.trace.typed`), this path only
*accepts*: a trace it has any doubt about (a decode or schema error, a repeated key,
free-form event properties, a despawn, equal-time edges that might close a cycle, a
broken graph rule, a number beyond 2**53 in its row) is handed back, and the caller
validates and measures it one at a time, which names every problem. The tests require
the rows of both paths to be identical.
"""

from __future__ import annotations

import gc
from itertools import chain, compress, count, repeat
from operator import attrgetter, is_not
from functools import partial
from typing import Annotated, Literal, Union

import msgspec
import numpy as np
from msgspec import UNSET, Meta, UnsetType

from .codes import (
    ACYCLIC_EDGES,
    CONTACT_TYPES,
    DESPAWN,
    EDGE_CODE,
    OD,
    RETURN,
    SPAWN,
    STOP,
    TOOL_RESULT,
    TYPE_CODE,
    MAX_FLOAT,
    number_sum,
)
from .bulk_metrics import relax_layer, spawn_depths
from .schema import CREDIT_UNITS, DECISIONS, EVENT_TYPES, TOPOLOGIES, schema
from .index import distinct
from .typed import MAX_INT, Edge, KnownEvent, _COLON_ESCAPE

#: Largest magnitude of a number in a row (see :data:`masrl.trace.summarize.MAX_SUMMARY`).
MAX_SUMMARY = 2**53

_NUM = Union[Annotated[int, Meta(ge=-MAX_INT, le=MAX_INT)], Annotated[float, Meta(ge=-MAX_FLOAT, le=MAX_FLOAT)]]
_NONNEG = Union[Annotated[int, Meta(ge=0, le=MAX_INT)], Annotated[float, Meta(ge=0, le=MAX_FLOAT)]]
_LABEL = Union[str, bool, _NUM]


class BatchTrace(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A whole trace with every top-level value typed (the exact checker's top-level rules, in C)."""

    trace_id: str
    task_id: str
    events: list[KnownEvent]
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
_ID, _T, _TYPE, _AGENT = (attrgetter(name) for name in ("id", "t", "type", "agent"))
_FROM, _TO, _DECISION, _SRC, _DST = (attrgetter(name) for name in ("from_", "to", "decision", "src", "dst"))
_OPTIONAL = tuple((name, attrgetter(name)) for name in ("tokens", "cost", "duration_s"))
_IS_SET = partial(is_not, UNSET)
_TYPE_CODES = {name: TYPE_CODE[name] for name in EVENT_TYPES}
_NT = len(EVENT_TYPES)
_DEP = np.zeros(256, dtype=bool)
_DEP[[EDGE_CODE[n] for n in ("spawn", "causal", "return", "message", "tool_dependency", "aggregate")]] = True
_ACYCLIC = np.zeros(256, dtype=bool)
_ACYCLIC[sorted(ACYCLIC_EDGES)] = True
_CONTACT = np.array(sorted(CONTACT_TYPES), dtype=np.int64)
_COORD = np.array([TYPE_CODE[n] for n in ("orchestrator_decision", "spawn", "despawn", "message", "return",
                                          "aggregate", "stop")], dtype=np.int64)
_DEC_INDEX = {d: k for k, d in enumerate(DECISIONS)}


def _decode(body: bytes) -> BatchTrace | None:
    """One trace's typed document, or None when this path cannot vouch for it."""
    if body.startswith(b"\xef\xbb\xbf"):
        body = body[3:]
    if _COLON_ESCAPE(body):
        return None
    try:
        doc = _DECODE(body)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError, RecursionError):
        return None
    if not doc.events or "tokens" not in doc.costs or "wall_clock_s" not in doc.costs:
        return None
    if _ENCODE(doc).count(b":") != body.count(b":"):
        return None  # a repeated key somewhere (msgspec kept its last value)
    return doc


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
    docs, kept, others = [], [], []
    for k, item in enumerate(items):
        doc = _decode(item[3])
        if doc is None:
            others.append(k)
        else:
            docs.append(doc)
            kept.append(k)
    while docs:
        try:
            block = _measure(docs, [items[k] for k in kept], labels)
            return block, others
        except _Retry as retry:  # some traces need the one-at-a-time path: measure the rest again
            bad = set(retry.positions)
            others += [kept[k] for k in sorted(bad)]
            docs = [d for k, d in enumerate(docs) if k not in bad]
            kept = [p for k, p in enumerate(kept) if k not in bad]
    return None, sorted(others)


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


def _measure(docs: list, items: list, labels: dict) -> dict:
    K = len(docs)
    events: list = []
    edges: list = []
    for doc in docs:
        events += doc.events
        edges += doc.edges
    n_ev = np.fromiter(map(len, map(attrgetter("events"), docs)), dtype=np.int64, count=K)
    n_ed = np.fromiter(map(len, map(attrgetter("edges"), docs)), dtype=np.int64, count=K)
    ev_off = np.concatenate(([0], np.cumsum(n_ev)))
    ed_off = np.concatenate(([0], np.cumsum(n_ed)))
    N, E = int(ev_off[-1]), int(ed_off[-1])
    tr = np.repeat(np.arange(K), n_ev)
    t = np.fromiter(map(_T, events), dtype=np.float64, count=N)
    types = np.frombuffer(bytes(map(_TYPE_CODES.__getitem__, map(_TYPE, events))), dtype=np.uint8).astype(np.int64)
    if (types == DESPAWN).any():
        _flag(np.bincount(tr[types == DESPAWN], minlength=K) > 0, None)  # the exact lifecycle rule decides
    ecodes = np.frombuffer(bytes(map(EDGE_CODE.__getitem__, map(_TYPE, edges))), dtype=np.uint8).astype(np.int64)
    # Names and ids are coded densely for the whole batch (a dict of the distinct names, C-level maps);
    # a code is then made unique to its trace as trace * width + code, and renumbered through a table,
    # so that traces never share an agent or an id.
    agents_raw = list(map(_AGENT, events))
    froms_raw = list(map(_FROM, events))
    tos_raw = list(map(_TO, events))
    names = {name: k for k, name in enumerate(dict.fromkeys(chain(agents_raw, froms_raw, tos_raw)))}
    width = len(names)
    unset = names.get(UNSET, -1)
    lookup = names.__getitem__
    a_raw = np.fromiter(map(lookup, agents_raw), dtype=np.int64, count=N)
    f_raw = np.fromiter(map(lookup, froms_raw), dtype=np.int64, count=N)
    t_raw = np.fromiter(map(lookup, tos_raw), dtype=np.int64, count=N)
    base = tr * width
    has_from, has_to = f_raw != unset, t_raw != unset
    keys = (base + a_raw, base + f_raw, base + t_raw)
    dense = _dense(np.concatenate((keys[0], keys[1][has_from], keys[2][has_to])), K * width, N)
    agent = dense(keys[0])
    frm = np.where(has_from, dense(keys[1]), -1)
    to = np.where(has_to, dense(keys[2]), -1)
    M = int(max(agent.max(), frm.max(), to.max())) + 2  # agent codes of the batch (each unique to its trace)
    ids = list(map(_ID, events))
    id_names = {name: k for k, name in enumerate(dict.fromkeys(ids))}
    id_width = len(id_names)
    id_key = tr * id_width + np.fromiter(map(id_names.__getitem__, ids), dtype=np.int64, count=N)
    order = np.argsort(id_key, kind="stable")
    sorted_keys = id_key[order]
    bad = np.zeros(K, dtype=bool)
    dup = sorted_keys[1:] == sorted_keys[:-1]
    if dup.any():
        bad[tr[order[1:][dup]]] = True  # a duplicate event id
    get = id_names.get
    etr = np.repeat(np.arange(K), n_ed)
    find = _finder(id_key, sorted_keys, order, K * id_width, N)
    esrc = _resolve(np.fromiter(map(get, map(_SRC, edges), repeat(-1, E)), dtype=np.int64, count=E), etr, id_width, find, bad)
    edst = _resolve(np.fromiter(map(get, map(_DST, edges), repeat(-1, E)), dtype=np.int64, count=E), etr, id_width, find, bad)
    _flag(bad, None)
    # -- graph rules ---------------------------------------------------------------
    t_src, t_dst = t[esrc], t[edst]
    _flag(np.bincount(etr[t_src > t_dst], minlength=K) > 0, None)  # time goes backwards along an edge
    same = (t_src == t_dst) & _ACYCLIC[ecodes]
    if same.any():
        _flag(None, _cycle_traces(esrc[same], edst[same], etr[same]))
    sender = np.where(frm >= 0, frm, agent)
    spawn = (types == SPAWN) & (to >= 0)
    _flag(np.bincount(tr[spawn & (sender == to)], minlength=K) > 0, None)  # an agent spawns itself
    first_spawn = np.full(M, -np.inf)
    if spawn.any():
        first_spawn[to[spawn]] = np.inf
        np.minimum.at(first_spawn, to[spawn], t[spawn])
        _flag(np.bincount(tr[t < first_spawn[agent]], minlength=K) > 0, None)  # acts before it is spawned
    returns = types == RETURN
    if returns.any():
        _flag(np.bincount(tr[returns][~_returns_ok(t, types, sender, to, returns, M)], minlength=K) > 0, None)
    decisions = list(map(_DECISION, events))
    tagged = list(compress(range(N), map(_IS_SET, decisions)))
    dec_counts = np.zeros((K, len(DECISIONS)), dtype=np.int64)
    tagged_od = np.zeros(K, dtype=np.int64)
    if tagged:
        tt = types[tagged]
        names = [decisions[i] for i in tagged]
        stop_not_o5 = (tt == STOP) & np.array([d != "O5" for d in names])
        wrong = ((tt != OD) & (tt != STOP)) | stop_not_o5
        _flag(np.bincount(tr[tagged][wrong], minlength=K) > 0, None)  # the schema's allOf
        col = np.fromiter(map(_DEC_INDEX.__getitem__, names), dtype=np.int64, count=len(names))
        np.add.at(dec_counts, (tr[tagged], col), 1)
        np.add.at(tagged_od, tr[tagged][tt == OD], 1)
    sums = {}
    bad = []
    for name, get in _OPTIONAL:
        values = list(map(get, events))
        sums[name] = [0] * K if values.count(UNSET) == N else _event_sums(values, tr, ev_off, K, bad)
    rewards, by_unit, reward_total = _rewards(docs, bad)
    _flag(None, bad)
    # -- metrics ---------------------------------------------------------------------
    type_counts = np.bincount(tr * _NT + types, minlength=K * _NT).reshape(K, _NT)
    agents_n, peak = _agents(t, types, agent, to, spawn, tr, M, K)
    steps, cp_time = _critical_path(t, esrc, edst, ecodes, tr, N, K)
    fan_max, fan_mean, depth = _spawn_tree(t, sender, to, spawn, tr, M, K)
    n_f = n_ev.astype(np.float64)
    coord = type_counts[:, _COORD].sum(axis=1)
    return _block(docs, items, labels, {
        "events": n_ev, "edges": n_ed, "agents": agents_n, "critical_path_steps": steps,
        "critical_path_time": cp_time, "ignored_cycle_edges": np.zeros(K, dtype=np.int64),
        "parallelism": n_f / steps, "peak_concurrent_agents": peak, "spawn_fanout_max": fan_max,
        "spawn_fanout_mean": fan_mean, "spawn_depth": depth, "protocol_overhead": coord / n_f,
        "tool_calls": type_counts[:, TYPE_CODE["tool_call"]], "messages": type_counts[:, TYPE_CODE["message"]],
        "event_tokens": sums["tokens"], "event_cost": sums["cost"], "event_duration_s": sums["duration_s"],
        "reward_total": reward_total,
    }, type_counts, dec_counts, tagged_od, by_unit)


#: A table indexed by a (trace, code) key is used while it is at most this many times the events (plus a
#: constant); larger key spaces (names or ids unique to each trace of a batch of large traces) are sorted.
TABLE_FACTOR = 8


def _small(size: int, n: int) -> bool:
    return size <= TABLE_FACTOR * n + 65536


def _dense(keys: np.ndarray, size: int, n: int):
    """A function mapping each of ``keys`` (ints below ``size``) to its rank among the distinct ones."""
    if _small(size, n):
        table = np.zeros(size + 1, dtype=np.int64)
        table[keys] = 1
        table = np.cumsum(table) - 1
        return table.__getitem__
    uniq = distinct(keys)
    return partial(np.searchsorted, uniq)


def _finder(keys: np.ndarray, sorted_keys: np.ndarray, order: np.ndarray, size: int, n: int):
    """A function mapping (trace, id) keys to the index of the event with that key, -1 where none."""
    if _small(size, n):
        where = np.full(size, -1, dtype=np.int64)
        where[keys] = np.arange(keys.size)
        return where.__getitem__

    def find(wanted):
        pos = np.minimum(np.searchsorted(sorted_keys, wanted), sorted_keys.size - 1)
        return np.where(sorted_keys[pos] == wanted, order[pos], -1)

    return find


def _resolve(code, etr, width, find, bad) -> np.ndarray:
    """Event index of each edge endpoint (its id's code within its trace); an unknown id marks its trace."""
    known = code >= 0
    found = np.where(known, find(etr * width + np.where(known, code, 0)), -1)
    if (found < 0).any():
        bad[etr[found < 0]] = True  # an edge to an unknown event
    return found


def _event_sums(values: list, tr, ev_off, K: int, bad: list) -> list:
    """Per trace, the sum of an optional event number (:func:`masrl.trace.codes.number_sum`): exact for
    ints (added as doubles only while every sum stays below 2**53), else the correctly rounded float sum."""
    is_set = list(map(_IS_SET, values))
    found = list(compress(values, is_set))
    if set(map(type, found)) == {int} and max(map(abs, found)) * len(found) < 2**53:
        where = np.fromiter(compress(range(len(values)), is_set), dtype=np.int64, count=len(found))
        totals = np.bincount(tr[where], weights=np.fromiter(found, dtype=np.float64, count=len(found)), minlength=K)
        return [int(v) for v in totals.tolist()]
    out = []
    for k in range(K):
        part = [v for v in values[int(ev_off[k]):int(ev_off[k + 1])] if v is not UNSET]
        try:
            total = number_sum(part) if part else 0
        except OverflowError:
            bad.append(k)
            total = 0
        out.append(total)
    return out


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


def _rewards(docs: list, bad: list):
    """Per trace: the rewards, their sums per credit unit and in total (a sum that overflows: a doubt)."""
    units_all = (*CREDIT_UNITS, "unmapped")
    by_unit = {u: [] for u in units_all}
    totals = []
    rewards = []
    for k, doc in enumerate(docs):
        values = doc.rewards
        rewards.append(values)
        total = 0
        per = {}
        units = doc.reward_credit_units if doc.reward_credit_units is not UNSET else {}
        for channel, value in values.items():
            total += value
            unit = units.get(channel, "unmapped")
            per[unit] = per.get(unit, 0) + value
        if not -MAX_FLOAT <= total <= MAX_FLOAT or any(not -MAX_FLOAT <= v <= MAX_FLOAT for v in per.values()):
            bad.append(k)
        totals.append(total)
        for u in units_all:
            by_unit[u].append(per.get(u, 0.0))
    return rewards, by_unit, totals


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
    starts = np.searchsorted(src[order], np.arange(N + 1))
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


def _clean(value):
    """As :func:`masrl.trace.metrics._clean` does for one value: floats to 6 decimals, no -0.0."""
    if type(value) is float:
        r = round(value, 6)
        return r if r != 0 else 0.0
    return value


def _floats(values) -> list:
    """:func:`_clean` of every value (inlined: this runs for every row)."""
    if isinstance(values, np.ndarray):
        values = values.tolist()
    return [(r if (r := round(v, 6)) != 0 else 0.0) if type(v) is float else v for v in values]


def _block(docs, items, labels, m, type_counts, dec_counts, tagged_od, by_unit) -> dict:
    K = len(docs)
    cols: dict = {}
    keys = [(item[0], item[1]) for item in items]
    cols["trace"] = [item[2] for item in items]
    cols["file"] = [item[0] for item in items]
    cols["line"] = [item[1] for item in items]
    cols["trace_id"] = [d.trace_id for d in docs]
    cols["task_id"] = [d.task_id for d in docs]
    cols["topology"] = [None if d.topology is UNSET else d.topology for d in docs]
    for name in ("events", "edges", "agents", "critical_path_steps", "ignored_cycle_edges", "peak_concurrent_agents",
                 "spawn_fanout_max", "spawn_depth", "tool_calls", "messages"):
        cols[name] = np.asarray(m[name], dtype=np.int64)
    for name in ("critical_path_time", "parallelism", "spawn_fanout_mean", "protocol_overhead"):
        cols[name] = _floats(np.asarray(m[name], dtype=np.float64))
    costs = [d.costs for d in docs]
    cols["tokens"] = _floats([c["tokens"] for c in costs])
    for name in ("event_tokens", "event_cost", "event_duration_s", "reward_total"):
        cols[name] = _floats(m[name])
    cols["wall_clock_s"] = _floats([c["wall_clock_s"] for c in costs])
    cols["tokens_per_reward"] = [
        _clean(r) if (r := _ratio(c["tokens"], total)) is not None else None for c, total in zip(costs, m["reward_total"])
    ]
    for j, d in enumerate(DECISIONS):
        cols[f"decision_{d}"] = dec_counts[:, j]
    cols["decision_untagged"] = type_counts[:, TYPE_CODE["orchestrator_decision"]] - tagged_od
    for name in EVENT_TYPES:
        cols[f"events_{name}"] = type_counts[:, TYPE_CODE[name]]
    for unit, values in by_unit.items():
        cols[f"reward_{unit}"] = _floats(values)
    label_rows = [{**(d.labels if d.labels is not UNSET else {}), **labels} for d in docs]
    names = sorted({k for row in label_rows for k in row})
    for key in names:
        cols[key if key in ("run", "step", "policy") else f"label_{key}"] = [row.get(key) for row in label_rows]
    _odd(cols, K)
    return {"keys": keys, "columns": cols}


def _ratio(tokens, total):
    if not total > 0:
        return None
    ratio = tokens / total
    return ratio if ratio <= MAX_FLOAT else None


def _odd(cols: dict, K: int) -> None:
    """A row with a number beyond 2**53 in magnitude goes to the one-at-a-time path (which names it)."""
    bad = np.zeros(K, dtype=bool)
    for name, values in cols.items():
        if isinstance(values, np.ndarray):
            if values.size and int(np.abs(values).max()) > MAX_SUMMARY:
                bad |= np.abs(values) > MAX_SUMMARY
        elif name not in ("trace", "file", "trace_id", "task_id", "topology"):
            try:
                largest = max(map(abs, values), default=0)  # every value a number: the common case, in C
            except TypeError:  # a text, a null or a yes/no among them
                largest = max((abs(v) for v in values if type(v) is int or type(v) is float), default=0)
            if largest > MAX_SUMMARY:
                for k, v in enumerate(values):
                    if (type(v) is int or type(v) is float) and abs(v) > MAX_SUMMARY:
                        bad[k] = True
    _flag(bad, None)


__all__ = ["BatchTrace", "summarize_items"]
