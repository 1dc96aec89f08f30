"""Event id -> event index for large traces: a hash table in numpy, exact by a final comparison.

A Python dict of a million ids costs a dependent chain of cache misses per insert and
per lookup (index slot, entry, key string), which made resolving the edges of a
million-event trace the largest part of validating it. Here the ids' ``hash()``
values go into an open-addressing table (linear probing, load at most one half)
that numpy fills and probes a whole column at a time, so the memory accesses of
many ids are in flight together. A hash match is only a candidate: every resolved
endpoint is then compared with the id it was matched to, string against string
(:meth:`IdIndex.lookup`), so a collision can never resolve an edge wrongly.

Refusals are doubts (:class:`~masrl.trace.columns.Doubt`): two ids with the same
hash (a duplicate id, or a real 64-bit collision), or an endpoint that is no id. The
exact checker then names the problem.
"""

from __future__ import annotations

import numpy as np


#: When this few lookups are still probing, they finish one at a time (numpy calls cost more).
_TAIL = 32


class IndexDoubt(Exception):
    """Two ids share a hash, or a looked-up string is not an id."""


class IdIndex:
    """The positions of ``ids`` (a list of distinct strings), for :meth:`lookup`."""

    def __init__(self, ids: list, hashes: np.ndarray | None = None):
        """``hashes``: ``hash()`` of each id, if the caller has them (int64)."""
        n = len(ids)
        size = 1 << max(4, (2 * n).bit_length())
        self.mask = size - 1
        self.ids = np.array(ids, dtype=object)  # gathered by numpy for the final comparison
        if hashes is None:
            hashes = np.fromiter(map(hash, ids), dtype=np.int64, count=n)
        self.hashes = hashes
        table = np.full(size, -1, dtype=np.int64)
        pending = np.arange(n, dtype=np.int64)
        pos = hashes & self.mask
        while pending.size:
            free = table[pos] == -1
            table[pos[free]] = pending[free]  # of several claims on one slot, one wins
            holder = table[pos]
            placed = holder == pending
            if (hashes[holder[~placed]] == hashes[pending[~placed]]).any():
                raise IndexDoubt  # two ids with one hash: a duplicate id (or a collision)
            pending, pos = pending[~placed], (pos[~placed] + 1) & self.mask
        self.table = table

    def lookup(self, strings: list) -> np.ndarray:
        """Event indices of ``strings`` (int64); raises :class:`IndexDoubt` if one is not an id."""
        wanted = np.fromiter(map(hash, strings), dtype=np.int64, count=len(strings))
        found = np.empty(len(strings), dtype=np.int64)
        active = np.arange(len(strings), dtype=np.int64)
        pos = wanted & self.mask
        table, hashes, mask = self.table, self.hashes, self.mask
        while active.size > _TAIL:
            holder = table[pos]
            if (holder < 0).any():
                raise IndexDoubt  # an empty slot before a match: not an id
            hit = hashes[holder] == wanted[active]
            found[active[hit]] = holder[hit]
            active, pos = active[~hit], (pos[~hit] + 1) & mask
        for k, p in zip(active.tolist(), pos.tolist()):  # the long probes of a few: one at a time
            h = int(wanted[k])
            while True:
                holder = int(table[p])
                if holder < 0:
                    raise IndexDoubt
                if int(hashes[holder]) == h:
                    found[k] = holder
                    break
                p = (p + 1) & mask
        if self.ids[found].tolist() != strings:  # a list comparison in C: identity, then equal text
            raise IndexDoubt  # a hash matched, the text did not
        return found


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of an integer array, sorted (as ``np.unique``, by a sort: numpy 2's
    hash-based ``np.unique`` took about 0.8 µs per element, a sort some 20 ns)."""
    values = np.sort(values)
    return values[first_of_runs(values)]


def first_of_runs(sorted_values: np.ndarray) -> np.ndarray:
    """Positions where a sorted array's runs of equal values start (``return_index`` of ``np.unique``)."""
    head = np.ones(sorted_values.size, dtype=bool)
    head[1:] = sorted_values[1:] != sorted_values[:-1]
    return np.flatnonzero(head)
