"""The relaxation loop of the critical path (Kahn's algorithm), shared by the plain and the bulk metrics.

:func:`masrl.trace.metrics.critical_path` runs it from the start; for large traces
:func:`masrl.trace.bulk_metrics.critical_path` relaxes wide layers with numpy first
and hands it the state.
"""

from __future__ import annotations

from itertools import islice


def kahn(n: int, ts, adj: list, starts: list, steps: list, first: list, indeg: list, queue: list, done: int) -> int:
    """The relaxation loop of :func:`critical_path`, from a given state; returns the ignored arcs.

    ``adj[starts[u]:starts[u + 1]]`` are the successors of ``u``; ``queue`` lists the
    events whose predecessors are all done, of which the first ``done`` are relaxed
    already; ``steps``, ``first`` and ``indeg`` are updated in place. When it stalls
    (a cycle), the remaining event with the smallest ``(t, index)`` loses its
    remaining incoming arcs, which are counted.
    """
    ignored = 0
    fallback = None
    while True:
        for u in islice(queue, done, None):
            a = starts[u]
            b = starts[u + 1]
            if a == b:
                continue
            su = steps[u] + 1
            fu = first[u]
            for v in adj[a:b]:
                k = indeg[v]
                if k <= 0:
                    continue  # an arc into an event released to break a cycle: one of the arcs it ignores
                if steps[v] < su:
                    steps[v] = su
                if fu < first[v]:
                    first[v] = fu
                indeg[v] = k - 1
                if k == 1:
                    queue.append(v)
        done = len(queue)
        if done >= n:
            return ignored
        if fallback is None:  # a cycle: break it at the earliest remaining event
            fallback = iter(sorted((ts[v], v) for v in range(n) if indeg[v]))
        for _t, v in fallback:
            if indeg[v]:
                ignored += indeg[v]
                indeg[v] = 0
                queue.append(v)
                break
