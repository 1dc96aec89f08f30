"""The manifest of a frozen release's report tree: ``reports/releases/<name>/manifest.json``.

A release's reports never change while its snapshot is unchanged. Its manifest records the
*fingerprint* of everything the tree is computed from (:func:`fingerprint`: the release's
population with its errata and frozen identification counts, the members of the release before
it, the claims about it as written, whether each example trace
validates, masrl's code that computes and writes the tree, and the figure toolchain with its font
files) and the SHA-256 of each of its files. A build or ``masrl build --check`` whose
fingerprint is the recorded one, and whose files still have the recorded digests, takes the
tree as it is: nothing of the release is analysed, rendered or drawn. That holds on a fresh
clone too (no build cache is involved: the manifest is a generated file, committed with the
reports, that the cache can neither write nor change); a manifest recorded for other inputs or
code, or a file that differs, means the tree is rendered and compared as a whole.
Pure; no file access.
"""

from __future__ import annotations

import hashlib
import json
from typing import Mapping

from ..render.jsonout import json_bytes
from . import keys

#: The file name of the manifest in a release's tree.
NAME = "manifest.json"
#: Format of the fingerprint; another value never matches.
FORMAT = 1

ABOUT = ("Written by masrl build. fingerprint: a digest of everything this release's reports are computed "
         "from (its snapshot and errata, the release before it, the claims about it, the example traces' "
         "validity, masrl's code and the figure toolchain with its fonts); files: the SHA-256 of each file of "
         "the tree. masrl build --check confirms the files by these digests instead of computing them again.")


def path(folder: str) -> str:
    """The manifest of the report tree under ``folder`` (``reports/releases/<name>/``)."""
    return f"{folder}{NAME}"


def fingerprint(build, results, code: str, toolchain: str) -> str:
    """The fingerprint of a release's tree (``results``, a release of ``build``): see the module
    docstring. ``code``: :func:`masrl.corpus.readcache.code_digest`; ``toolchain``: the figure
    code's fingerprint and the figure toolchain, as text."""
    return keys.digest("release tree", FORMAT, results.digest,
                       [c for c in build.claims_raw if c.get("scope") == results.name], build.traces_valid, code, toolchain)


def manifest_bytes(fingerprint_: str, files: Mapping[str, bytes | None], folder: str,
                   known: Mapping[str, str] | None = None) -> bytes | None:
    """The manifest of the tree whose files (paths from the survey root, under ``folder``) are
    ``files``; None when one of them is not known (a stale figure ``--check`` did not draw), unless
    ``known`` gives its SHA-256 (a damaged figure file whose right digest its figure manifest records)."""
    known = known or {}
    if any(data is None and rel not in known for rel, data in files.items()):
        return None
    recorded = {rel[len(folder):]: known[rel] if data is None else hashlib.sha256(data).hexdigest()
                for rel, data in sorted(files.items()) if rel.startswith(folder) and rel != path(folder)}
    return json_bytes({"about": ABOUT, "fingerprint": fingerprint_, "files": recorded})


def confirmed(existing: Mapping[str, bytes], folder: str, fingerprint_: str) -> dict[str, bytes] | None:
    """``{path: bytes}`` of the tree under ``folder`` as it is on disk (``existing``), manifest
    included, when its manifest records ``fingerprint_`` and every file it lists is there with its
    digest; None otherwise (the tree is then rendered)."""
    raw = existing.get(path(folder))
    try:
        recorded = json.loads(raw) if raw else None
    except ValueError:
        return None
    if not isinstance(recorded, dict) or recorded.get("fingerprint") != fingerprint_ or not isinstance(recorded.get("files"), dict):
        return None
    files = recorded["files"]
    out = {path(folder): raw}
    for rel, sha in files.items():
        data = existing.get(folder + str(rel))
        if data is None or not isinstance(sha, str) or hashlib.sha256(data).hexdigest() != sha:
            return None
        out[folder + str(rel)] = data
    return out
