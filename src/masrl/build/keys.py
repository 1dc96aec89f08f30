"""Content keys: what an output is computed from, as a digest that is the same in every process.

Every output of a build (a table in its three formats, a report file, a figure) is keyed by a
digest of exactly what it reads (:mod:`masrl.build.outputs`); the keys of the analysis tables
(:class:`masrl.build.pipeline.Results`) are digests of the declaration, the vocabulary and the
values of the columns they read. The same content gives the same key in every process and on
every machine (canonical JSON, then SHA-256), so that the build cache (:mod:`masrl.build.cache`)
can find an output of an earlier build by its key, and two equal contents in one process share
one computation (:class:`masrl.core.memo.Memo`). Pure; no file access.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
from typing import Any


def _encode(value: Any) -> Any:
    """What JSON cannot write itself, tagged with its type so that no two kinds of value meet."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"@": type(value).__name__, **{f.name: getattr(value, f.name) for f in dataclasses.fields(value)}}
    if isinstance(value, (set, frozenset)):
        return {"@set": sorted((stable(v).decode() for v in value))}
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return {"@" + type(value).__name__: value.isoformat()}
    if isinstance(value, bytes):
        return {"@bytes": hashlib.sha256(value).hexdigest()}
    return {"@repr": type(value).__name__, "value": repr(value)}


def stable(value: Any) -> bytes:
    """``value`` as canonical JSON bytes: mappings in their own order (a record's fields as
    written), ``True`` and ``1`` and ``1.0`` apart, dataclasses by field, sets sorted, dates as
    ISO text, anything else by its type and ``repr``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_encode, allow_nan=True).encode("utf-8")


def digest(*parts: Any) -> str:
    """SHA-256 (hex) of :func:`stable` of ``parts``."""
    return hashlib.sha256(stable(parts)).hexdigest()


class Remembered:
    """A value computed once per object (by identity) while the object lives in the process:
    the digest of a population's records, of a vocabulary. At most ``limit`` objects; each is
    held, so that its identity is not reused while it is known."""

    def __init__(self, limit: int = 64):
        self.limit = limit
        self._known: dict[int, tuple[Any, Any]] = {}

    def __call__(self, obj: Any, compute) -> Any:
        entry = self._known.get(id(obj))
        if entry is None or entry[0] is not obj:
            entry = (obj, compute(obj))
            self._known[id(obj)] = entry
            while len(self._known) > self.limit:
                self._known.pop(next(iter(self._known)))
        return entry[1]


_OBJECTS = Remembered(256)


def of_object(obj: Any) -> str:
    """:func:`digest` of ``obj``, computed once per object in the process (for values that are
    never changed after they are made: a population, its records, a vocabulary)."""
    return _OBJECTS(obj, lambda o: digest(o))
