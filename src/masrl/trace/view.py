"""The public view of a checked trace: the columns the metrics read.

:func:`checked_view` takes a finished :class:`~masrl.trace.checker.TraceChecker`
(filled by the exact path or by :mod:`masrl.trace.typed`) of a *valid* trace and
returns a :class:`CheckedTrace`, so :mod:`masrl.trace.metrics` depends on these
fields only, never on the checker's internals.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CheckedTrace:
    """Columns of a valid trace (event index order; edges in file order).

    Attributes:
        n: events.
        t: event times (floats, unit of the trace's ``t``).
        types: event type codes (:data:`masrl.trace.codes.TYPE_CODE`).
        agents: agent code of each event; ``agent_names[code]`` is its name.
        agent_names: code -> agent name (every agent, sender and recipient).
        links: ``(event index, type code, sender code, to code or -1)`` of every
            orchestrator_decision, spawn, despawn, message and return event: a list
            of tuples, or for a large trace a :class:`Links` of numpy columns
            (iterating it gives the same tuples; :func:`link_arrays` the columns).
        esrc, edst, eidx, etype: each edge's source and destination event index,
            position in the file and type code (:data:`masrl.trace.codes.EDGE_CODE`).
        decisions: ``{(type code, "O1"..."O5"): events}``.
        sums: totals of the per-event ``tokens``, ``cost`` and ``duration_s``.
        top: the top-level values other than ``events`` and ``edges``.
    """

    n: int
    t: array
    types: bytearray
    agents: array
    agent_names: list
    links: list
    esrc: array
    edst: array
    eidx: array
    etype: bytearray
    decisions: dict
    sums: dict
    top: dict


class Links:
    """The link columns of a large trace as numpy arrays, read as the list of
    ``(event index, type code, sender code, to code)`` tuples when iterated (the
    exact rules and the small-trace metrics iterate; the bulk metrics use ``arrays``)."""

    __slots__ = ("arrays",)

    def __init__(self, idx, tc, sender, to):
        self.arrays = (idx, tc, sender, to)

    def __iter__(self):
        return zip(*(column.tolist() for column in self.arrays))

    def __len__(self) -> int:
        return len(self.arrays[0])


def link_arrays(links) -> tuple:
    """``(idx, type code, sender, to)`` int64 arrays of a checker's links (list or :class:`Links`)."""
    if type(links) is Links:
        return links.arrays
    if not links:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    return tuple(np.array(column, dtype=np.int64) for column in zip(*links))


def checked_view(checker) -> CheckedTrace:
    """The view of a finished checker of a valid trace (shares its columns, copies nothing)."""
    c = checker
    return CheckedTrace(c.n, c.t, c.types, c.agents, c.agent_names, c.links, c.esrc, c.edst, c.eidx, c.etype,
                        c.decisions, c.sums, c.top_values)
