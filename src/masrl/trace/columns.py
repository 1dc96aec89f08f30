"""Typed events and edges -> a :class:`~masrl.trace.checker.TraceChecker`'s columns, in bulk.

:class:`Columns` receives blocks of msgspec Structs (:mod:`masrl.trace.typed`) and
fills the columns that the graph rules and the metrics read, a block at a time,
with C-level passes (``map``, ``bytes.count``, numpy) instead of a Python loop per
event. It only ever *accepts*: on the first doubt it raises :class:`Doubt`, and the
exact checker (:mod:`masrl.trace.checker`) runs instead and names every problem.

The graph rules run on the finished columns: the cycle rule always exactly
(:func:`masrl.trace.rules.check_cycles`, which looks only at equal-time edges); for
traces of up to :data:`SMALL` events the exact lifecycle and return rules, above it
their numpy forms (:func:`lifecycle_ok`, :func:`returns_ok`), and the self-spawn
rule in bulk.
"""

from __future__ import annotations

from array import array
from functools import partial
from itertools import compress, count
from operator import attrgetter, is_not

import numpy as np
from msgspec import UNSET

from . import rules
from .checker import TraceChecker
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
    TYPE_CODE,
    number_sum,
)
from .index import IdIndex, IndexDoubt, first_of_runs
from .load import MAX_DEPTH
from .view import Links
from .schema import TOP_REQUIRED, schema

#: Up to this many events (or edges in a block), plain Python beats numpy's per-call cost.
SMALL = 2048


class Doubt(Exception):
    """The typed path cannot accept this trace; the exact checker must look at it."""


def free_ok(value, depth: int) -> bool:
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


class Columns:
    """Fills one checker's columns from typed blocks; raises :class:`Doubt` on anything unusual.

    Feed :meth:`top` for each top-level value other than the arrays, :meth:`events`
    for each block of typed events, :meth:`end_events`, :meth:`edges` for each block
    of typed edges, then :meth:`finish`.

    Agent names get a provisional code from one ``dict.setdefault`` per name (a
    counter supplies the candidates, so codes have gaps); :meth:`end_events` makes
    them consecutive, in order of first appearance.
    """

    def __init__(self, file: str):
        self.c = TraceChecker(file)
        self.type_codes = bytearray()
        self.raw = {}  # agent name (or UNSET, for an absent 'from'/'to') -> provisional code
        self.counter = count()
        self.agent_raw = array("q")
        self.id_hashes = array("q")
        self.link_idx = array("q")
        self.link_tc = bytearray()
        self.link_from = array("q")
        self.link_to = array("q")
        self.numbers: dict[str, list] = {key: [] for key in self.c.sums}
        self.times = None
        self.index = None

    def top(self, key: str, value) -> None:
        """One top-level value (exact checks: they are few and small)."""
        self.c.top(key, value)
        if self.c.schema_problems or self.c.other_problems:
            raise Doubt

    def events(self, typed: list, a: int, encoded: bytes | None = None) -> None:
        """Events ``a, a+1, ...`` as :data:`~masrl.trace.typed.Event` Structs (structure already checked).

        ``encoded``: the block re-encoded as JSON, if the caller has it. An optional field
        that no event of the block has is then skipped without a pass over the block: the
        encoder writes the key ``"tokens":`` of every event that has one, so where the text
        ``"tokens"`` is absent no event has it (where present, the pass decides)."""
        c = self.c
        if self.times is not None:
            raise Doubt  # a second events array
        ids = list(map(_ID, typed))
        c.id_list += ids
        self.id_hashes.extend(map(hash, ids))  # while the block is in the cache (str caches its hash)
        c.t.extend(map(_T, typed))
        tcs = bytes(map(TYPE_CODE.__getitem__, map(_TYPE, typed)))
        self.type_codes += tcs
        code = self.raw.setdefault
        self.agent_raw.extend(map(code, map(_AGENT, typed), self.counter))
        mask = tcs.translate(_LINK_TABLE)
        if mask.count(1):
            rows = list(compress(typed, mask))
            self.link_idx.extend(compress(range(a, a + len(typed)), mask))
            self.link_tc += bytes(compress(tcs, mask))
            self.link_from.extend(map(code, map(_FROM, rows), self.counter))
            self.link_to.extend(map(code, map(_TO, rows), self.counter))
        if encoded is None or b'"decision"' in encoded:
            decisions = list(map(_DECISION, typed))
            if decisions.count(UNSET) != len(decisions):
                self._decisions(decisions, tcs)
        for field, get, key in _OPTIONAL_NUMBERS:
            if encoded is not None and key not in encoded:
                continue
            values = list(map(get, typed))
            unset = values.count(UNSET)
            if not unset:
                self.numbers[field] += values
            elif unset != len(values):
                self.numbers[field] += filter(_IS_SET, values)

    def _decisions(self, decisions: list, tcs: bytes) -> None:
        counts = self.c.decisions
        for k, d in enumerate(decisions):
            if d is not UNSET:
                tc = tcs[k]
                if tc != OD and (tc != STOP or d != "O5"):
                    raise Doubt  # the schema's allOf: only on decisions and stops; a stop's is O5
                key = (tc, d)
                counts[key] = counts.get(key, 0) + 1

    def end_events(self) -> None:
        """The events are all fed: consecutive agent codes, the id index (a duplicate id is a doubt)."""
        c = self.c
        n = len(c.id_list)
        if not n:
            raise Doubt
        c.present.update(("events", "edges"))
        c.events_ok = c.events_done = True
        c.n = n
        c.types = self.type_codes
        raw = self.raw
        unset = raw.pop(UNSET, -1)
        c.agent_names = list(raw)
        if n <= SMALL:  # plain Python: numpy's per-call cost would dominate
            code = dict(zip(raw.values(), range(len(raw))))
            code[unset] = -1  # an absent 'from'/'to'
            self.code = code
            c.agents = array("l", map(code.__getitem__, self.agent_raw))
            ids = dict(zip(c.id_list, range(n)))
            if len(ids) != n:
                raise Doubt  # a duplicate event id
            c.ids = ids
        else:
            remap = np.full(next(self.counter) + 1, -1, dtype=np.int64)  # -1: an absent 'from'/'to' (UNSET)
            remap[np.fromiter(raw.values(), dtype=np.int64, count=len(raw))] = np.arange(len(raw), dtype=np.int64)
            if unset >= 0:
                remap[unset] = -1
            self.remap = remap
            self.agents = remap[np.frombuffer(self.agent_raw, dtype=np.int64)]
            c.agents = array("l", self.agents.astype(_LONG).tobytes())
            try:
                self.index = IdIndex(c.id_list, np.frombuffer(self.id_hashes, dtype=np.int64))
            except IndexDoubt:
                raise Doubt from None
        self.times = np.frombuffer(c.t, dtype=np.float64) if n > SMALL else c.t
        for field, values in self.numbers.items():
            if values:
                c.sums[field] = number_sum(values)  # OverflowError: the exact path says so

    def edges(self, typed: list, a: int, text_colons: int | None = None) -> int:
        """Edges ``a, a+1, ...`` as :data:`~masrl.trace.typed.Edge` Structs; returns the number of
        ``:`` that these edges take in JSON: three keys each, and those in their ids. When the
        text they came from has exactly three per edge (``text_colons``), that is the count
        (each edge's three keys take three; so no id has one), without reading the ids."""
        c = self.c
        b = a + len(typed)
        codes = bytes(map(EDGE_CODE.__getitem__, map(_TYPE, typed)))
        srcs = list(map(_SRC, typed))
        dsts = list(map(_DST, typed))
        colons = 3 * len(typed)
        if text_colons != colons:
            colons += "".join(srcs).count(":") + "".join(dsts).count(":")
        if self.index is None:  # a small trace: a dict, and plain Python
            get = c.ids.__getitem__
            src = list(map(get, srcs))  # KeyError: an edge to an unknown event
            dst = list(map(get, dsts))
            ts = c.t
            t_src = list(map(ts.__getitem__, src))
            t_dst = list(map(ts.__getitem__, dst))
            if any(map(float.__gt__, t_src, t_dst)):
                raise Doubt  # time goes backwards along an edge
            if not all(map(float.__lt__, t_src, t_dst)):
                for k in [k for k, (x, y) in enumerate(zip(t_src, t_dst)) if x == y]:
                    if codes[k] in ACYCLIC_EDGES:
                        c._cycle_candidates.append((a + k, src[k], dst[k], codes[k]))
            c.esrc.extend(src)
            c.edst.extend(dst)
            c.eidx.extend(range(a, b))
            c.etype.extend(codes)
            return colons
        try:  # one lookup for both ends: numpy's cost per call is paid once
            both = self.index.lookup(srcs + dsts)
            src, dst = both[:len(srcs)], both[len(srcs):]
        except IndexDoubt:
            raise Doubt from None  # an edge to an unknown event
        times = self.times
        t_src, t_dst = times[src], times[dst]
        if (t_src > t_dst).any():
            raise Doubt  # time goes backwards along an edge
        for k in np.flatnonzero(t_src == t_dst).tolist():
            if codes[k] in ACYCLIC_EDGES:
                c._cycle_candidates.append((a + k, int(src[k]), int(dst[k]), codes[k]))
        c.esrc.frombytes(src.astype(_LONG).tobytes())
        c.edst.frombytes(dst.astype(_LONG).tobytes())
        c.eidx.frombytes(np.arange(a, b, dtype=_LONG).tobytes())
        c.etype.extend(codes)
        return colons

    def finish(self) -> TraceChecker:
        """Run the graph rules; the finished checker (no problem), else raise :class:`Doubt`."""
        c = self.c
        if self.times is None or not c.present.issuperset(TOP_REQUIRED):
            raise Doubt
        rules.check_reward_sums(c)
        rules.check_cycles(c)
        if c.n <= SMALL:  # the exact checks are cheaper than numpy's per-call cost here
            code = self.code.__getitem__
            agents = c.agents
            senders = [agents[k] if f < 0 else f for k, f in zip(self.link_idx, map(code, self.link_from))]
            c.links = list(zip(self.link_idx, self.link_tc, senders, map(code, self.link_to)))
            rules.check_self_spawns(c)
            rules.check_lifecycle(c)
            rules.check_returns(c)
            if c.other_problems:
                raise Doubt
            return c
        remap = self.remap
        idx = np.frombuffer(self.link_idx, dtype=np.int64)
        tc = np.frombuffer(bytes(self.link_tc), dtype=np.uint8).astype(np.int64)
        frm = remap[np.frombuffer(self.link_from, dtype=np.int64)]
        to = remap[np.frombuffer(self.link_to, dtype=np.int64)]
        sender = np.where(frm >= 0, frm, self.agents[idx])
        links = (idx, tc, sender, to)
        c.links = Links(*links)
        if c.other_problems or ((tc == SPAWN) & (sender == to)).any():
            raise Doubt  # a cycle, or an agent that spawns itself
        if not lifecycle_ok(c, self.times, links) or not returns_ok(c, self.times, links):
            raise Doubt
        return c


def lifecycle_ok(c: TraceChecker, times, links) -> bool:
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


def returns_ok(c: TraceChecker, times, links) -> bool:
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
    first = first_of_runs(keys)
    unique, earliest = keys[first], when[first]
    wanted = to[returns] * width + sender[returns]
    pos = np.minimum(np.searchsorted(unique, wanted), len(unique) - 1)
    found = unique[pos] == wanted
    return bool((found & (earliest[pos] <= times[idx[returns]])).all())


_CONTACT = np.array(sorted(CONTACT_TYPES), dtype=np.int64)
_ID, _T, _TYPE, _AGENT = (attrgetter(name) for name in ("id", "t", "type", "agent"))
_FROM, _TO, _DECISION, _SRC, _DST = (attrgetter(name) for name in ("from_", "to", "decision", "src", "dst"))
#: Optional number fields of an event (their minimum is checked by the Structs).
_OPTIONAL_NUMBERS = tuple(
    (key, attrgetter(key), f'"{key}"'.encode())
    for key, spec in schema()["$defs"]["event"]["properties"].items()
    if spec.get("type") == "number" and key not in schema()["$defs"]["event"]["required"]
)
_IS_SET = partial(is_not, UNSET)
#: Type code -> 1 for the event types whose ``to`` names an agent (``bytes.translate`` table).
_LINK_TABLE = bytes(1 if code in LINK_TYPES else 0 for code in range(256))
_LONG = np.dtype(f"i{array('l').itemsize}")
