"""Deterministic JSON: sorted keys, two-space indent, UTF-8, final newline."""

from __future__ import annotations

import json


def json_bytes(obj: object) -> bytes:
    """``obj`` as JSON bytes (sorted keys, indent 2, non-ASCII kept, ``\\n`` at the end)."""
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
