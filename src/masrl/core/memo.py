"""A bounded in-process memo of pure results, keyed by the exact content of their inputs.

Used where one process computes the same pure result twice (``masrl diff`` checks and analyses
both sides; a second ``validate`` of the same corpus): a YAML file parsed (:mod:`masrl.corpus.yamlio`), a document found valid against a schema
(:mod:`masrl.checks.collector`), the problems each per-record rule found in a record and those the
taxonomy's rules found in a vocabulary (:mod:`masrl.checks.validate`), a frozen snapshot's digest (:mod:`masrl.corpus.releases`), a frozen
release's analyses (:mod:`masrl.build.pipeline`), a vocabulary migrated to the current format
(:mod:`masrl.corpus.migrate`), the leave-one-out figures of the tag suggestions
(:mod:`masrl.review.suggest.evaluate`).
Nothing is kept between processes (the build cache, :mod:`masrl.build.cache`, does that).
"""

from __future__ import annotations

import hashlib
import pickle
from collections import OrderedDict
from typing import Any

#: What :meth:`Memo.get` returns for a key it does not hold.
MISSING = object()


def content_key(*parts: Any) -> bytes | None:
    """A 20-byte digest of ``parts`` pickled, so exact types count (``True`` and ``1`` differ, as do
    ``1`` and ``1.0``); None when a part cannot be pickled (then nothing is remembered for it)."""
    try:
        data = pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - an unpicklable input is simply computed every time
        return None
    return hashlib.blake2b(data, digest_size=20).digest()


#: Whether memos find and keep values (:func:`set_enabled`).
_enabled = True


def set_enabled(on: bool) -> None:
    """Turn every :class:`Memo` of the process off (``get`` finds nothing, ``put`` keeps nothing;
    what they hold is kept for when they are turned on again) or back on. The test suite turns
    them off while a test patches masrl, so that values of the patched code are neither used nor kept."""
    global _enabled
    _enabled = bool(on)


class Memo:
    """At most ``limit`` values by key, the least recently used dropped first (``limit`` 0: a memo
    that keeps nothing). A key of None is never held. Nothing is found or kept while memos are
    turned off (:func:`set_enabled`)."""

    def __init__(self, limit: int):
        self.limit = limit
        self._values: OrderedDict[bytes, Any] = OrderedDict()
        #: Values found and not found by :meth:`get` (while memos are on), for tests and measurements.
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._values)

    def get(self, key: bytes | None) -> Any:
        """The value held for ``key`` (now the most recent), or :data:`MISSING`."""
        if not _enabled or key is None:
            return MISSING
        if key not in self._values:
            self.misses += 1
            return MISSING
        self.hits += 1
        self._values.move_to_end(key)
        return self._values[key]

    def put(self, key: bytes | None, value: Any) -> None:
        """Hold ``value`` for ``key`` (nothing for a key of None or a limit of 0)."""
        if not _enabled or key is None or self.limit <= 0:
            return
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self.limit:
            self._values.popitem(last=False)

    def clear(self) -> None:
        """Forget every value."""
        self._values.clear()
