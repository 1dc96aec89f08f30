"""The build cache (``.masrl-cache/`` at the survey root), as pure functions over bytes.

It holds digests, never report content: whatever a build writes comes from its own computation
or from the generated files on disk that still have the digest recorded for them, so that an
entry that is damaged, forged or out of date can at worst make a build render what it could
have kept. Two kinds of entry, each keyed by a SHA-256 of exactly what determines it:

* the **stamp** (:data:`STAMP`): the digest of every input file of the last clean build (as
  :func:`masrl.corpus.load.read_tree` reads them, after the build's own writes), of masrl's
  code and toolchain (:attr:`Identity.digest`), and the SHA-256 of each file it generated.
  While the inputs and the code are unchanged, ``masrl build --check`` and a no-change build
  need only hash the generated files: no parsing, validation, analysis or rendering.
* the **outputs** (:data:`OUTPUTS`): for each output of the last build (a table in its three
  formats, a report file, ...; :func:`masrl.build.outputs.tree_units`), the key of what it
  read and the SHA-256 of each of its files. An output whose key is unchanged, and whose files
  on disk still have those digests, is kept as it is instead of being computed again: a build
  after one retag renders only the outputs that read the retagged field.

A frozen release's tree is not in the cache: its manifest, a generated file committed with it
(:mod:`masrl.build.manifest`), confirms it. Every entry carries the SHA-256 of its own content:
an entry that is damaged, truncated, of another format, or recorded for other code is ignored
(the build renders instead). The loader reads the entries (:mod:`masrl.corpus.readcache`),
:func:`masrl.build.write.write_cache` writes them; ``MASRL_CACHE=off`` makes a build neither
read nor write them.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Mapping

#: The folder of the cache, at the survey root (it holds its own ``.gitignore``).
FOLDER = ".masrl-cache"
#: The stamp of the last clean build.
STAMP = f"{FOLDER}/build.json"
#: Format of the entries; another value is ignored.
FORMAT = 2
#: The keys and digests of the outputs of the last build.
OUTPUTS = f"{FOLDER}/outputs.json"


def enabled() -> bool:
    """False when the environment says ``MASRL_CACHE=off`` (or ``0``): then nothing is read or written."""
    return os.environ.get("MASRL_CACHE", "on").strip().lower() not in ("off", "0", "no", "false")


@dataclass(frozen=True)
class Identity:
    """What a build's bytes depend on besides its input files.

    Attributes:
        digest: SHA-256 (hex) of masrl's package files, the Python version, the installed
            distributions and the current year (:func:`masrl.corpus.readcache.identity_text`;
            the year bounds the records' ``year`` in validation).
        entries: the cache's files as read, ``{path from the survey root: bytes}``.
    """

    digest: str
    entries: Mapping[str, bytes]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def inputs_key(files: Mapping[str, bytes], identity: str) -> str:
    """The stamp's key: SHA-256 over every input file (path and bytes, in path order) and ``identity``."""
    digest = hashlib.sha256(f"masrl-build-inputs {FORMAT}\n{identity}\n".encode())
    for rel in sorted(files):
        data = files[rel]
        digest.update(f"{len(rel)}:{rel}:{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


def _entry(kind: str, key: str, body: dict) -> bytes:
    payload = json.dumps({"format": FORMAT, "kind": kind, "key": key, "body": body}, sort_keys=True, ensure_ascii=False)
    return json.dumps({"sha256": _sha(payload.encode()), "payload": payload}, ensure_ascii=False).encode()


def _read_entry(raw: bytes | None, kind: str, key: str) -> dict | None:
    """The body of an entry of ``kind`` recorded for ``key``, or None if absent, damaged or another."""
    if not raw:
        return None
    try:
        outer = json.loads(raw)
        payload = outer["payload"]
        if not isinstance(payload, str) or outer.get("sha256") != _sha(payload.encode()):
            return None
        inner = json.loads(payload)
        if inner.get("format") != FORMAT or inner.get("kind") != kind or inner.get("key") != key:
            return None
        body = inner["body"]
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    return body if isinstance(body, dict) else None


# ---------------------------------------------------------------- the stamp
def stamp_bytes(key: str, outputs: Mapping[str, bytes]) -> bytes:
    """The stamp of a clean build: ``key`` (:func:`inputs_key`) and the SHA-256 of every generated file."""
    return _entry("stamp", key, {"outputs": {rel: _sha(data) for rel, data in sorted(outputs.items())}})


def stamped_outputs(raw: bytes | None, key: str) -> dict[str, str] | None:
    """``{path: SHA-256}`` of the files the stamp ``raw`` records for ``key``; None when the stamp
    is absent, damaged, or recorded for other inputs or code."""
    body = _read_entry(raw, "stamp", key)
    outputs = body.get("outputs") if body else None
    if not isinstance(outputs, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in outputs.items()):
        return None
    return outputs


def current_outputs(stamped: Mapping[str, str], on_disk: Mapping[str, bytes | None]) -> dict[str, bytes | None]:
    """``{path: bytes}`` of the generated files as a full build would render them, from the files on
    disk that still hash as stamped; None for a file that is missing or differs (as
    :func:`masrl.build.write.stale` takes a file known to be stale)."""
    return {rel: data if data is not None and _sha(data) == sha else None
            for rel, sha in stamped.items() for data in [on_disk.get(rel)]}


# ---------------------------------------------------------------- outputs
def outputs_entry(identity: str, units: Mapping[str, tuple[str, Mapping[str, str]]]) -> bytes:
    """The entry of a build's outputs: ``{unit id: (key, {path: SHA-256 of its bytes})}``,
    recorded for the code and toolchain ``identity``."""
    body = {unit: {"key": key, "files": dict(sorted(files.items()))} for unit, (key, files) in sorted(units.items())}
    return _entry("outputs", identity, {"units": body})


def recorded_outputs(raw: bytes | None, identity: str) -> dict[str, tuple[str, dict[str, str]]]:
    """``{unit id: (key, {path: SHA-256})}`` of an outputs entry recorded for ``identity``
    (empty when absent, damaged, or recorded for other code)."""
    body = _read_entry(raw, "outputs", identity)
    units = body.get("units") if body else None
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for unit, value in (units.items() if isinstance(units, dict) else []):
        if (isinstance(value, dict) and isinstance(value.get("key"), str) and isinstance(value.get("files"), dict)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in value["files"].items())):
            out[unit] = (value["key"], value["files"])
    return out


def kept(recorded: Mapping[str, tuple[str, Mapping[str, str]]], unit: str, key: str,
         on_disk: Mapping[str, bytes]) -> dict[str, bytes] | None:
    """``{path: bytes}`` of an output whose ``key`` is the one recorded for ``unit`` and whose
    files on disk all still have their recorded digests; None otherwise (it is computed)."""
    entry = recorded.get(unit)
    if not key or entry is None or entry[0] != key or not entry[1]:
        return None
    files = {}
    for rel, sha in entry[1].items():
        data = on_disk.get(rel)
        if data is None or _sha(data) != sha:
            return None
        files[rel] = data
    return files


def digests(files: Mapping[str, bytes]) -> dict[str, str]:
    """``{path: SHA-256}`` of ``files``."""
    return {rel: _sha(data) for rel, data in files.items()}
