"""Replay metrics of an orchestration trace (this project's definitions, docs/traces.md).

Every metric is recomputed from the event graph, never copied from the trace's own
``metrics`` object (the survey's example reports ``protocol_overhead: 0.18`` without
saying how; recomputed here by the definition below it is 0.75). Units: counts are
events or agents; times are in the unit of ``t`` (seconds when ``t`` is seconds, as in
the OpenTelemetry converter's output; the survey's example uses an ordinal clock 0-7);
tokens are the trace's ``costs.tokens``.

All functions take the :class:`~masrl.trace.view.CheckedTrace` of a *valid* trace
(its columns) and run in time linear in events + edges (the interval sweep of
:func:`peak_concurrent_agents` sorts the agents: O(agents log agents)).
"""

from __future__ import annotations

from itertools import accumulate, compress
from operator import sub

from .codes import DESPAWN, EDGE_CODE, MAX_FLOAT, SPAWN, TOOL_RESULT, TYPE_CODE, reward_by_credit_unit, reward_sum
from .schema import DECISIONS, EVENT_TYPES
from . import bulk_metrics
from .longest_path import kahn
from .columns import SMALL
from .view import CheckedTrace, checked_view

#: Edge types that make their destination wait for their source (critical path).
#: ``temporal`` (mere ordering) and ``safety_flow`` (a monitoring relation) are not.
DEPENDENCY_EDGES = ("spawn", "causal", "return", "message", "tool_dependency", "aggregate")
#: Event types that coordinate agents rather than do task work (protocol overhead).
COORDINATION_EVENTS = ("orchestrator_decision", "spawn", "despawn", "message", "return", "aggregate", "stop")

_DEP_CODES = frozenset(EDGE_CODE[name] for name in DEPENDENCY_EDGES)


def critical_path(c: CheckedTrace) -> dict:
    """Longest dependency chains, by steps and by time.

    Graph: events as nodes, :data:`DEPENDENCY_EDGES` as arcs. Topological order by
    Kahn's algorithm; then ``steps[v] = 1 + max(steps[u] for u -> v)`` (1 for a
    source) and ``start[v] = min(start[u] for u -> v)`` (``t[v]`` for a source).

    Returns ``{"critical_path_steps": max_v steps[v]`` (events on the longest chain;
    the "critical steps" that Kimi K2.5's PARL rewards; >= 1 and <= events),
    ``"critical_path_time": max_v (t[v] - start[v])`` (the longest elapsed time from
    the first to the last event of a chain, in units of t), ``"ignored_cycle_edges"``
    (dependency arcs dropped to break a cycle: message/tool_dependency/aggregate
    edges between events of equal time may form one, which the validator allows;
    Kahn's algorithm then stalls, and the remaining event with the smallest
    (t, index) loses its remaining incoming arcs, repeated until done; 0 normally)}.
    """
    n = c.n
    if n > SMALL:
        return bulk_metrics.critical_path(c, _DEP_CODES)
    ts = c.t
    dep = _DEP_CODES
    if all(c.etype.count(code) == 0 for code in range(len(EDGE_CODE)) if code not in dep):
        src, dst = c.esrc.tolist(), c.edst.tolist()  # every edge is a dependency edge
    else:
        keep = [code in dep for code in c.etype]
        src = list(compress(c.esrc, keep))
        dst = list(compress(c.edst, keep))
    indeg = [0] * n
    count = [0] * (n + 1)
    for d in dst:
        indeg[d] += 1
    for s in src:
        count[s + 1] += 1
    starts = list(accumulate(count))
    pos = starts[:-1]
    adj = [0] * len(src)
    for s, d in zip(src, dst):
        p = pos[s]
        adj[p] = d
        pos[s] = p + 1
    steps = [1] * n
    first = ts.tolist()
    queue = [v for v in range(n) if not indeg[v]]
    ignored = kahn(n, ts, adj, starts, steps, first, indeg, queue, 0)
    time = max(map(sub, ts, first), default=0.0)
    return {
        "critical_path_steps": max(steps, default=0),
        "critical_path_time": time,
        "ignored_cycle_edges": ignored,
    }


def agent_intervals(c: CheckedTrace) -> dict[int, tuple[float, float]]:
    """Live interval ``[start, end]`` of every agent (by agent code), in units of t.

    Agents: every ``agent`` of an event other than a tool_result (a tool_result's
    ``agent`` is the tool in the survey's example), plus every spawn target.
    ``start`` = the agent's earliest spawn if it is ever spawned, else its first
    action; ``end`` = the latest of its last action, its last despawn and ``start``.
    """
    inf = float("inf")
    size = len(c.agent_names)
    first = [inf] * size
    last = [-inf] * size
    for code, tc, tval in zip(c.agents, c.types, c.t):
        if tc != TOOL_RESULT and code >= 0:
            if tval < first[code]:
                first[code] = tval
            if tval > last[code]:
                last[code] = tval
    spawned: dict[int, float] = {}
    despawned: dict[int, float] = {}
    ts = c.t
    for idx, tc, _sender, to in c.links:
        if tc == SPAWN and to >= 0:
            tval = ts[idx]
            if tval < spawned.get(to, inf):
                spawned[to] = tval
        elif tc == DESPAWN:
            target = to if to >= 0 else c.agents[idx]
            if target >= 0 and ts[idx] > despawned.get(target, -inf):
                despawned[target] = ts[idx]
    out = {}
    for code in range(size):
        acted = first[code] != inf
        if not acted and code not in spawned:
            continue
        start = spawned.get(code, first[code])
        end = max(last[code] if acted else start, despawned.get(code, start), start)
        out[code] = (start, end)
    return out


def peak_concurrent_agents(intervals: dict[int, tuple[float, float]]) -> int:
    """Largest number of closed live intervals (:func:`agent_intervals`) that share a time point."""
    starts = sorted(s for s, _ in intervals.values())
    ends = sorted(e for _, e in intervals.values())
    peak = 0
    k = 0  # ends strictly before the current start
    for i, s in enumerate(starts):
        while ends[k] < s:
            k += 1
        peak = max(peak, i + 1 - k)
    return peak


def spawn_tree(c: CheckedTrace) -> dict:
    """Spawn fan-out and depth.

    Children of an agent: the distinct agents it spawns (spawn events whose sender,
    ``from`` else ``agent``, is it). ``spawn_fanout_max`` / ``spawn_fanout_mean``: max and
    mean number of children over agents that spawn at least one (0 if none).
    ``spawn_depth``: levels of the spawn forest, where an agent's parent is the sender
    of its earliest spawn (0: nobody is spawned; 1: a root spawns sub-agents; 2: a
    sub-agent spawns its own; a cycle of spawns is followed once).
    """
    if c.n > SMALL:
        found = bulk_metrics.spawn_tree(c)
        if found is not None:
            return found
    children: dict[int, set[int]] = {}
    parent: dict[int, tuple[float, int, int]] = {}
    ts = c.t
    for idx, tc, sender, to in c.links:
        if tc != SPAWN or to < 0 or sender < 0:
            continue
        children.setdefault(sender, set()).add(to)
        key = (ts[idx], idx, sender)
        if to not in parent or key < parent[to]:
            parent[to] = key
    sizes = [len(v) for v in children.values()]
    depth: dict[int, int] = {}
    for start in parent:
        path = []
        v = start
        seen = set()
        while v in parent and v not in depth and v not in seen:
            seen.add(v)
            path.append(v)
            v = parent[v][2]
        base = depth.get(v, 0)
        for node in reversed(path):
            base += 1
            depth[node] = base
    return {
        "spawn_fanout_max": max(sizes, default=0),
        "spawn_fanout_mean": sum(sizes) / len(sizes) if sizes else 0.0,
        "spawn_depth": max(depth.values(), default=0),
    }


def event_type_counts(c: CheckedTrace) -> dict[str, int]:
    """Number of events of each type (every type of the schema, zeros included)."""
    return {name: c.types.count(TYPE_CODE[name]) for name in EVENT_TYPES}


def decision_counts(c: CheckedTrace, counts: dict[str, int]) -> dict[str, int]:
    """Events tagged with each sub-decision O1-O5, plus ``untagged`` orchestrator_decision events."""
    out = {d: 0 for d in DECISIONS}
    tagged_od = 0
    for (tc, d), k in c.decisions.items():
        out[d] += k
        if tc == TYPE_CODE["orchestrator_decision"]:
            tagged_od += k
    out["untagged"] = counts["orchestrator_decision"] - tagged_od
    return out


def protocol_overhead(counts: dict[str, int]) -> float:
    """Share of coordination events: ``sum(counts[t] for t in COORDINATION_EVENTS) / events``.

    Coordination events are orchestrator_decision, spawn, despawn, message, return,
    aggregate and stop; task work is tool_call and tool_result; human_intervention and
    safety_event count in the denominator only. Dimensionless, in [0, 1].
    """
    total = sum(counts.values())
    return sum(counts.get(t, 0) for t in COORDINATION_EVENTS) / total if total else 0.0



def tokens_per_reward(tokens: float, reward_total: float) -> float | None:
    """Cost per unit of reward: ``costs.tokens / sum(rewards)`` in tokens per reward unit.

    ``None`` (JSON null) when the total reward is 0 or negative, or the ratio overflows
    a double (a tiny positive reward): the ratio is then undefined or meaningless (never inf).
    """
    if not reward_total > 0:
        return None
    ratio = tokens / reward_total
    return ratio if ratio <= MAX_FLOAT else None


def _clean(value):
    """Round floats to 6 decimals (no -0.0), recursively; ints and others unchanged."""
    if type(value) is float:
        r = round(value, 6)
        return r if r != 0 else 0.0
    if type(value) is dict:
        return {k: (v if type(v) is int or type(v) is str else _clean(v)) for k, v in value.items()}
    return value


def metrics_from_checker(checker) -> dict:
    """All metrics of a finished checker of a valid trace (see :func:`trace_metrics` for the keys)."""
    return metrics_of(checked_view(checker))


def metrics_of(c: CheckedTrace) -> dict:
    """All metrics of a checked, valid trace (see :func:`trace_metrics` for the keys)."""
    top = c.top
    counts = event_type_counts(c)
    rewards = dict(top.get("rewards", {}))
    costs = dict(top.get("costs", {}))
    reward_total = reward_sum(rewards.values())
    if c.n > SMALL:
        starts, ends = bulk_metrics.agent_intervals(c)
        agents, peak = len(starts), bulk_metrics.peak_concurrent_agents(starts, ends)
    else:
        intervals = agent_intervals(c)
        agents, peak = len(intervals), peak_concurrent_agents(intervals)
    out = {
        "trace_id": top.get("trace_id"),
        "task_id": top.get("task_id"),
        "topology": top.get("topology"),
        "events": c.n,
        "edges": len(c.eidx),
        "agents": agents,
        "event_types": counts,
        "decisions": decision_counts(c, counts),
        "protocol_overhead": protocol_overhead(counts),
        "tool_calls": counts["tool_call"],
        "messages": counts["message"],
        "tokens": costs.get("tokens"),
        "event_tokens": c.sums["tokens"],
        "event_cost": c.sums["cost"],
        "event_duration_s": c.sums["duration_s"],
        "costs": costs,
        "rewards": rewards,
        "reward_total": reward_total,
        "reward_by_credit_unit": reward_by_credit_unit(rewards, top.get("reward_credit_units", {})),
        "tokens_per_reward": tokens_per_reward(costs.get("tokens", 0), reward_total),
        "peak_concurrent_agents": peak,
    }
    out.update(critical_path(c))
    out["parallelism"] = c.n / out["critical_path_steps"] if out["critical_path_steps"] else 0.0
    out.update(spawn_tree(c))
    return _clean(out)


def trace_metrics(trace: dict) -> dict:
    """Metrics of one valid trace, JSON-serialisable and deterministic.

    Keys: trace_id, task_id, topology (or null); events, edges, agents (counts);
    critical_path_steps (events), critical_path_time (units of t), ignored_cycle_edges
    (:func:`critical_path`); parallelism = events / critical_path_steps (>= 1);
    peak_concurrent_agents (:func:`peak_concurrent_agents`); spawn_fanout_max,
    spawn_fanout_mean, spawn_depth (:func:`spawn_tree`); event_types (per type);
    decisions (O1-O5 and untagged); protocol_overhead (:func:`protocol_overhead`);
    tool_calls, messages (events); tokens (costs.tokens); event_tokens, event_cost,
    event_duration_s (sums of the per-event extension fields); costs, rewards (copied);
    reward_total; reward_by_credit_unit (:func:`reward_by_credit_unit`);
    tokens_per_reward (:func:`tokens_per_reward`, null if reward <= 0). Floats are
    rounded to 6 decimals.

    Raises:
        ValueError: the trace is not valid (the message lists its first problems).
    """
    from .validate import checker_for, sort_problems

    checker = checker_for(trace)
    problems = sort_problems(checker.schema_problems + checker.other_problems)
    if problems:
        shown = "; ".join(str(p) for p in problems[:3])
        raise ValueError(f"trace is not valid ({len(problems)} problems): {shown}")
    return metrics_from_checker(checker)
