"""The replay metrics of large traces, column-wise with numpy (same definitions, same values).

:mod:`masrl.trace.metrics` defines every metric and computes it in plain Python,
which is fastest for traces of up to :data:`~masrl.trace.columns.SMALL` events (numpy
costs microseconds per call); above that it calls these, which compute the same
values a column at a time. The tests run both on the same generated traces.

* :func:`critical_path`: Kahn's algorithm one layer at a time (every event whose
  predecessors are all done), the layer's arcs gathered and relaxed at once
  (``np.maximum.at`` / ``np.minimum.at``). While layers are wide that is far fewer
  Python steps than events; after :data:`LAYER` layers in a row of fewer than
  :data:`LAYER` events (a long chain), or on a stall (a cycle), the remaining work
  goes to the plain loop of :func:`masrl.trace.longest_path.kahn`, from the same state.
* :func:`agent_intervals`: first and last actions, earliest spawn and latest despawn
  per agent by ``ufunc.at``.
* :func:`spawn_tree`: distinct (spawner, spawned) pairs by a sort; depth by
  levels from the roots; a spawn cycle goes to the plain loop (its rule for cycles).
"""

from __future__ import annotations

from array import array

import numpy as np

from .codes import DESPAWN, SPAWN, TOOL_RESULT
from .index import distinct, first_of_runs
from .longest_path import kahn
from .view import CheckedTrace, link_arrays

#: Below this many events in a layer, the plain loop is cheaper than numpy's calls.
LAYER = 64
_LONG = np.dtype(f"i{array('l').itemsize}")


def critical_path(c: CheckedTrace, dependency_codes: frozenset) -> dict:
    """:func:`masrl.trace.metrics.critical_path` for a large trace."""
    n = c.n
    ts = np.frombuffer(c.t, dtype=np.float64)
    src = np.frombuffer(c.esrc, dtype=_LONG).astype(np.int64)
    dst = np.frombuffer(c.edst, dtype=_LONG).astype(np.int64)
    mask = np.zeros(256, dtype=bool)
    mask[sorted(dependency_codes)] = True
    keep = mask[np.frombuffer(c.etype, dtype=np.uint8)]
    if not keep.all():
        src, dst = src[keep], dst[keep]
    order = np.argsort(src, kind="stable")
    adj = dst[order]
    starts = np.searchsorted(src[order], np.arange(n + 1))
    indeg = np.bincount(dst, minlength=n)
    steps = np.ones(n, dtype=np.int64)
    first = ts.copy()
    frontier = np.flatnonzero(indeg == 0)
    entered = [frontier]
    narrow = 0  # layers in a row narrower than LAYER (a long chain goes to the plain loop)
    while frontier.size and narrow < LAYER:
        narrow = narrow + 1 if frontier.size < LAYER else 0
        frontier = relax_layer(frontier, starts, adj, steps, first, indeg)
        if frontier is None:
            frontier = entered[-1][:0]
            break
        entered.append(frontier)
    done = int(sum(part.size for part in entered)) - frontier.size
    if done == n:  # every event relaxed in layers: no plain loop, no cycle
        return {"critical_path_steps": int(steps.max(initial=0)), "critical_path_time": float((ts - first).max(initial=0.0)),
                "ignored_cycle_edges": 0}
    queue = np.concatenate(entered).tolist()
    steps_l, first_l, indeg_l = steps.tolist(), first.tolist(), indeg.tolist()
    ignored = kahn(n, c.t, adj.tolist(), starts.tolist(), steps_l, first_l, indeg_l, queue, done)
    time = float((ts - np.array(first_l)).max()) if n else 0.0
    return {"critical_path_steps": max(steps_l, default=0), "critical_path_time": time, "ignored_cycle_edges": ignored}


def relax_layer(frontier, starts, adj, steps, first, indeg):
    """One layer of Kahn's algorithm: relax the arcs out of ``frontier`` (events whose predecessors are
    all done) at once, updating ``steps``, ``first`` and ``indeg`` in place; returns the next layer, or
    ``None`` when no arc leaves the frontier."""
    lo = starts[frontier]
    counts = starts[frontier + 1] - lo
    ends = np.cumsum(counts)
    total = int(ends[-1]) if ends.size else 0
    if not total:
        return None
    v = adj[np.arange(total) + np.repeat(lo - (ends - counts), counts)]  # the arcs' heads, arc by arc
    np.maximum.at(steps, v, np.repeat(steps[frontier] + 1, counts))
    np.minimum.at(first, v, np.repeat(first[frontier], counts))
    indeg -= np.bincount(v, minlength=indeg.size)
    ready = v[indeg[v] == 0]
    if ready.size * 16 < indeg.size:
        return distinct(ready)  # a few events became ready: sorted
    mark = np.zeros(indeg.size, dtype=bool)  # many: marked, which costs one pass over the events, not a sort
    mark[ready] = True
    return np.flatnonzero(mark)


def agent_intervals(c: CheckedTrace) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, ends)`` of every agent's live interval (:func:`masrl.trace.metrics.agent_intervals`)."""
    size = len(c.agent_names)
    ts = np.frombuffer(c.t, dtype=np.float64)
    agents = np.frombuffer(c.agents, dtype=_LONG).astype(np.int64)
    acting = (np.frombuffer(c.types, dtype=np.uint8) != TOOL_RESULT) & (agents >= 0)
    first = np.full(size, np.inf)
    last = np.full(size, -np.inf)
    np.minimum.at(first, agents[acting], ts[acting])
    np.maximum.at(last, agents[acting], ts[acting])
    idx, tc, _sender, to = link_arrays(c.links)
    spawns = (tc == SPAWN) & (to >= 0)
    spawned = np.full(size, np.inf)
    np.minimum.at(spawned, to[spawns], ts[idx[spawns]])
    is_spawned = np.zeros(size, dtype=bool)
    is_spawned[to[spawns]] = True
    despawns = tc == DESPAWN
    target = np.where(to[despawns] >= 0, to[despawns], agents[idx[despawns]])
    ok = target >= 0
    despawned = np.full(size, -np.inf)
    np.maximum.at(despawned, target[ok], ts[idx[despawns]][ok])
    has_despawn = np.zeros(size, dtype=bool)
    has_despawn[target[ok]] = True
    acted = first != np.inf
    present = acted | is_spawned
    start = np.where(is_spawned, spawned, first)
    end = np.maximum(np.maximum(np.where(acted, last, start), np.where(has_despawn, despawned, start)), start)
    return start[present], end[present]


def peak_concurrent_agents(starts: np.ndarray, ends: np.ndarray) -> int:
    """:func:`masrl.trace.metrics.peak_concurrent_agents` on interval columns."""
    if not starts.size:
        return 0
    s, e = np.sort(starts), np.sort(ends)
    before = np.searchsorted(e, s, side="left")  # intervals that ended strictly before each start
    return int((np.arange(1, s.size + 1) - before).max())


def spawn_tree(c: CheckedTrace) -> dict | None:
    """:func:`masrl.trace.metrics.spawn_tree` for a large trace, or ``None`` when spawns form a
    cycle (the plain loop's rule for cycles then decides the depth)."""
    idx, tc, sender, to = link_arrays(c.links)
    keep = (tc == SPAWN) & (to >= 0) & (sender >= 0)
    idx, sender, to = idx[keep], sender[keep], to[keep]
    if not idx.size:
        return {"spawn_fanout_max": 0, "spawn_fanout_mean": 0.0, "spawn_depth": 0}
    width = len(c.agent_names) + 1
    pairs = distinct(sender * width + to)
    heads = first_of_runs(pairs // width)  # pairs are sorted, so are their spawners
    sizes = np.diff(np.append(heads, pairs.size))
    depth = spawn_depths(idx, np.frombuffer(c.t, dtype=np.float64)[idx], sender, to, width)
    if depth is None:
        return None  # a cycle of spawns
    return {
        "spawn_fanout_max": int(sizes.max()),
        "spawn_fanout_mean": int(sizes.sum()) / sizes.size,
        "spawn_depth": int(depth.max()),
    }


def spawn_depths(idx: np.ndarray, when: np.ndarray, sender: np.ndarray, to: np.ndarray, width: int) -> np.ndarray | None:
    """Level of every agent code below ``width`` in the spawn forest (0: never spawned), or ``None`` for a
    cycle. The spawns are given as columns: event index, time, sender and spawned agent; an agent's parent
    is the sender of its earliest spawn (by time, then position)."""
    order = np.lexsort((idx, when, to))  # per spawned agent, its earliest spawn first
    to_sorted = to[order]
    head = np.ones(order.size, dtype=bool)
    head[1:] = to_sorted[1:] != to_sorted[:-1]
    parent = np.full(width, -1, dtype=np.int64)
    parent[to_sorted[head]] = sender[order][head]
    depth = np.where(parent >= 0, -1, 0)
    unknown = np.flatnonzero(depth < 0)
    while unknown.size:
        above = depth[parent[unknown]]
        ready = above >= 0
        if not ready.any():
            return None
        depth[unknown[ready]] = above[ready] + 1
        unknown = unknown[~ready]
    return depth


__all__ = ["agent_intervals", "critical_path", "peak_concurrent_agents", "relax_layer", "spawn_depths", "spawn_tree"]
