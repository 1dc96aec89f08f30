"""The graph rules of a trace, on a checker's columns (no JSON Schema can state them).

* spawn, causal and return edges form no cycle (:func:`check_cycles`);
* no agent spawns itself (:func:`check_self_spawns`);
* an agent acts only while spawned (:func:`check_lifecycle`);
* a return goes to an agent that spawned the returner or sent it a message or a
  delegation at or before the return (:func:`check_returns`).

Each function takes a :class:`~masrl.trace.checker.TraceChecker` whose events and
edges are all fed, and records its problems there (``other_problems``).
"""

from __future__ import annotations

from bisect import bisect_right

from .codes import (
    ACYCLIC_EDGES,
    CONTACT_TYPES,
    DESPAWN,
    EDGE_TYPES,
    INF,
    MAX_FLOAT,
    RETURN,
    SPAWN,
    fmt_t,
    nonfinite,
    reward_by_credit_unit,
    reward_sum,
)


def label(c, k: int) -> str:
    eid = c.id_list[k]
    return f"event {eid}" if eid is not None else f"event at index {k}"

def check_cycles(c) -> None:
    """Kahn's algorithm over spawn/causal/return edges.

    When no edge goes back in time, a cycle can only join events of equal ``t``,
    so only the equal-time edges are examined; otherwise all of them.
    """
    if c._backward:
        edges = [
            (c.eidx[k], c.esrc[k], c.edst[k], c.etype[k])
            for k in range(len(c.eidx))
            if c.etype[k] in ACYCLIC_EDGES
        ]
    else:
        edges = c._cycle_candidates
    if not edges:
        return
    edge_type = {j: code for j, _s, _d, code in edges}
    succ: dict[int, list[tuple[int, int]]] = {}
    indeg: dict[int, int] = {}
    for j, s, d, _code in edges:
        succ.setdefault(s, []).append((j, d))
        indeg[d] = indeg.get(d, 0) + 1
        indeg.setdefault(s, 0)
    queue = [v for v, k in indeg.items() if k == 0]
    for v in queue:
        for _, d in succ.get(v, ()):
            indeg[d] -= 1
            if indeg[d] == 0:
                queue.append(d)
    left = {v for v, k in indeg.items() if k > 0}
    if not left:
        return
    pred: dict[int, tuple[int, int]] = {}  # node -> (edge index, predecessor) inside the cycle part
    for j, s, d, _code in sorted(edges):
        if s in left and d in left and d not in pred:
            pred[d] = (j, s)
    done: set[int] = set()
    for start in sorted(left):
        if start in done:
            continue
        order: dict[int, int] = {}
        walk: list[int] = []
        v = start
        while v not in order and v not in done:
            order[v] = len(walk)
            walk.append(v)
            v = pred[v][1]
        done.update(walk)
        if v not in order:
            continue
        cycle = walk[order[v]:]  # each node's predecessor is the next one: reversed order
        cycle.reverse()  # now each node's successor is the next one
        links = [pred[cycle[(k + 1) % len(cycle)]][0] for k in range(len(cycle))]
        k_last = max(range(len(links)), key=links.__getitem__)
        j = links[k_last]
        names = [c.id_list[cycle[(k_last + 1 + k) % len(cycle)]] for k in range(len(cycle))]
        names.append(names[0])
        if len(names) > 12:  # a long cycle: its ends and its length, not every event
            names = [*names[:5], f"... ({len(names) - 10} more)", *names[-5:]]
        src, dst = c.id_list[cycle[k_last]], c.id_list[cycle[(k_last + 1) % len(cycle)]]
        typ = EDGE_TYPES[edge_type[j]]
        c._other(
            f"$.edges[{j}]",
            f"edge {src}->{dst} ({typ}): closes a cycle of spawn/causal/return edges: {' -> '.join(names)}",
        )

def check_self_spawns(c) -> None:
    """A spawn whose sender (``from``, else ``agent``) is its ``to``: an agent cannot start
    itself, and counting it would add fan-out and depth that the run does not have."""
    names = c.agent_names
    for idx, tc, sender, to in c.links:
        if tc == SPAWN and to == sender and to >= 0:
            c._other(
                f"$.events[{idx}].to",
                f"{label(c, idx)}: agent '{names[to]}' spawns itself; a spawn's 'to' must name another agent "
                "than its sender ('from', else 'agent')",
            )


def check_reward_sums(c) -> None:
    """The rewards' total and their sums per credit unit (what the metrics report, summed the same
    way) must be finite: each reward may be, and their sum overflow a double."""
    rewards = c.top_values.get("rewards")
    units = c.top_values.get("reward_credit_units")
    if type(rewards) is not dict or not all(type(v) in (int, float) and nonfinite(v) is None for v in rewards.values()):
        return  # the schema or the finiteness check reports it
    units = {k: v for k, v in units.items() if type(v) is str} if type(units) is dict else {}
    total = reward_sum(rewards.values())
    by_unit = reward_by_credit_unit(rewards, units)
    for what, value in (("rewards", total), *((f"rewards of credit unit '{u}'", v) for u, v in by_unit.items())):
        if not -MAX_FLOAT <= value <= MAX_FLOAT:
            c._other("$.rewards", f"the sum of the {what} overflows a double ({fmt_t(value)}); "
                                  "the rewards are too large to add up")
            return


def lifecycles(c):
    """Live spans of the agents that are spawned or despawned.

    Returns ``(once, lives)``: ``once`` maps an agent spawned exactly once and never
    despawned to ``(spawn t, spawn index)`` (the common case, checked with one
    comparison); ``lives`` maps every other such agent to its sorted spans
    ``[(start t, end t, spawn index or -1, despawn index or -1)]`` (a root, never
    spawned, starts at -inf; an open span ends at +inf).
    """
    once: dict[int, tuple[float, int]] = {}
    entries: dict[int, list[tuple[float, int, int]]] = {}
    ts = c.t
    agents = c.agents
    for idx, tc, _sender, to in c.links:
        if tc == SPAWN:
            if to < 0:
                continue
            if to in entries:
                entries[to].append((ts[idx], idx, 0))
            elif to in once:
                entries[to] = [(*once.pop(to), 0), (ts[idx], idx, 0)]
            else:
                once[to] = (ts[idx], idx)
        elif tc == DESPAWN:
            target = to if to >= 0 else (agents[idx] if to == -1 else -1)
            if target < 0:
                continue
            if target in once:
                entries[target] = [(*once.pop(target), 0)]
            entries.setdefault(target, []).append((ts[idx], idx, 1))
    lives = {}
    for code, items in entries.items():
        items.sort()
        alive = not any(kind == 0 for _t, _i, kind in items)  # a root starts alive
        start, first = -INF, -1
        spans = []
        for tval, idx, kind in items:
            if tval != tval:
                continue
            if kind == 0 and not alive:
                alive, start, first = True, tval, idx
            elif kind == 1 and alive:
                spans.append((start, tval, first, idx))
                alive = False
        if alive:
            spans.append((start, INF, first, -1))
        lives[code] = spans
    return once, lives

def check_lifecycle(c) -> None:
    once, lives = lifecycles(c)
    if not once and not lives:
        return
    simple = {code: value[0] for code, value in once.items()}
    starts = {code: [span[0] for span in spans] for code, spans in lives.items()}
    ts = c.t
    for i, code in enumerate(c.agents):
        lo = simple.get(code)
        if lo is not None:
            tval = ts[i]
            if tval >= lo or tval != tval or lo != lo:  # a time that is not a number is named where it is
                continue
            spans = [(lo, INF, once[code][1], -1)]
            k = -1
        elif code in lives:
            tval = ts[i]
            if tval != tval or any(start != start for start in starts[code]):
                continue
            spans = lives[code]
            k = bisect_right(starts[code], tval) - 1
            if k >= 0 and tval <= spans[k][1]:
                continue
        else:
            continue
        name = c.agent_names[code]
        where = f"$.events[{i}].t"
        if k < 0 and spans:
            first = spans[0][2]
            c._other(
                where,
                f"{label(c, i)}: agent '{name}' acts at t={fmt_t(tval)} before it is spawned "
                f"(first spawn: {label(c, first)} at t={fmt_t(ts[first])})",
            )
        elif k < 0:
            c._other(where, f"{label(c, i)}: agent '{name}' acts at t={fmt_t(tval)} but is never alive")
        else:
            gone = spans[k][3]
            c._other(
                where,
                f"{label(c, i)}: agent '{name}' acts at t={fmt_t(tval)} after it was despawned "
                f"({label(c, gone)} at t={fmt_t(ts[gone])})",
            )

def check_returns(c) -> None:
    contact: dict[tuple[int, int], float] = {}
    returns = []
    ts = c.t
    for link in c.links:
        idx, tc, sender, to = link
        if tc == RETURN:
            returns.append(link)
        elif tc in CONTACT_TYPES and to >= 0:
            key = (sender, to)
            tval = ts[idx]
            if tval < contact.get(key, INF):
                contact[key] = tval
    names = c.agent_names
    for idx, _tc, sender, to in returns:
        tval = ts[idx]
        if to == -2 or sender < 0 or tval != tval:
            continue  # the schema check reports the bad 'to', 'agent' or 't'

        if to == -1:
            c._other(f"$.events[{idx}]", f"{label(c, idx)}: a return must name the agent it returns to in 'to'")
            continue
        first = contact.get((to, sender))
        if first is None or not first <= tval:
            c._other(
                f"$.events[{idx}].to",
                f"{label(c, idx)}: return from '{names[sender]}' goes to '{names[to]}', which did not spawn "
                f"'{names[sender]}' or send it a message or delegation at or before t={fmt_t(tval)}",
            )
