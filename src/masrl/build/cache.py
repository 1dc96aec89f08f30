"""The build cache (``.masrl-cache/`` at the survey root), as pure functions over bytes.

Two kinds of entry, each keyed by a SHA-256 of exactly what determines it, so that an entry
is used only when a full build would give the same bytes:

* the **stamp** (:data:`STAMP`): the digest of every input file of the last clean build (as
  :func:`masrl.corpus.load.read_tree` reads them, after the build's own writes), of masrl's
  code and toolchain (:attr:`Identity.digest`), and the SHA-256 of each file it generated.
  While the inputs and the code are unchanged, ``masrl build --check`` and a no-change build
  need only hash the generated files: no parsing, validation, analysis or rendering.
* a **frozen release's text reports** (:func:`release_path`): a release's reports depend only
  on its population (snapshot records and vocabulary, errata), the previous release's
  members, the claims about it, the release labels, the example traces' validity, and the
  code; keyed by their digest, a build of a pool change does not render release v1 again.

Every entry carries the SHA-256 of its own content: an entry that is damaged, truncated, of
another format, or recorded for other inputs is ignored (the build renders instead). The
loader reads the entries (:mod:`masrl.corpus.readcache`), :func:`masrl.build.write.write_cache`
writes them; ``MASRL_CACHE=off`` makes a build neither read nor write them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any, Mapping

#: The folder of the cache, at the survey root (it holds its own ``.gitignore``).
FOLDER = ".masrl-cache"
#: The stamp of the last clean build.
STAMP = f"{FOLDER}/build.json"
#: Format of the entries; another value is ignored.
FORMAT = 1


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


def _canonical(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"@": type(value).__name__, **{f.name: _canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return {"@repr": type(value).__name__, "value": repr(value)}  # a date read from YAML, ...


def digest_of(value: Any) -> str:
    """SHA-256 (hex) of a canonical JSON form of ``value`` (mappings sorted, dataclasses by field,
    sets sorted, other objects by type and ``repr``)."""
    return _sha(json.dumps(_canonical(value), sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode())


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


# ---------------------------------------------------------------- frozen releases
def release_path(name: str) -> str:
    """Where the cached text reports of the release ``name`` are kept."""
    return f"{FOLDER}/releases/{name}.json"


def release_key(build, results, identity: str) -> str:
    """The key of a release's text reports: the digest of everything :func:`masrl.build.outputs.render_tree`
    reads for a release tree (its population; the label, keys and record ids of the release
    before it, which its PRISMA flow counts from; the claims about it, as written; every
    release's label; the example traces' validity) and ``identity`` (code and toolchain)."""
    names = [r.name for r in build.releases]
    at = names.index(results.name)
    previous = build.releases[at - 1].population if at else None
    return digest_of({
        "identity": identity,
        "population": results.population,
        "previous": None if previous is None else [previous.label, sorted(previous.keys), sorted(previous.record_ids)],
        "claims": [c for c in build.claims_raw if c.get("scope") == results.name],
        "labels": {r.name: r.population.label for r in build.releases},
        "traces_valid": build.traces_valid,
    })


def release_entry(key: str, files: Mapping[str, bytes]) -> bytes:
    """The cache entry of one release's text reports (``{path: UTF-8 bytes}``)."""
    return _entry("release", key, {"files": {rel: data.decode("utf-8") for rel, data in sorted(files.items())}})


def release_files(raw: bytes | None, key: str) -> dict[str, bytes] | None:
    """The text reports an entry holds for ``key``, or None (absent, damaged, another key)."""
    body = _read_entry(raw, "release", key)
    files = body.get("files") if body else None
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return None
    return {rel: text.encode("utf-8") for rel, text in files.items()}
