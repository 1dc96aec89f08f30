"""A build cache that cannot lie: whatever is read from ``.masrl-cache/`` decides only what a build
may skip, never what a report says. An entry forged as a person or a program could forge it (its
content edited, its checksum recomputed) changes no byte that a build writes and no verdict of
``masrl build --check``. Only the command line is used here, so that the same tests run against
any version of masrl's cache. The tree is the test survey of tests/data/second-survey, released as
r1, with one record added since and one retagged before the build that the forgery could reach.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from soil_trees import CACHE as FOLDER, files_of, run as build
from trees import copy_tree


RECORD = "corpus/papers/jones2020.yaml"
RETAG = ("technique: combustion\n", "technique: spectroscopy\n")


def retag(root: Path) -> None:
    text = (root / RECORD).read_text()
    assert RETAG[0] in text
    (root / RECORD).write_text(text.replace(*RETAG, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def reference(released_soil, tmp_path_factory) -> dict[str, bytes]:
    root = copy_tree(released_soil, tmp_path_factory.mktemp("reference") / "survey")
    retag(root)
    assert build(root, "build", cache="off") == 0
    return files_of(root)


def _forge(value):
    """An entry's content with the text of every file it names replaced by a forgery."""
    if isinstance(value, dict):
        return {k: ({rel: "FORGED\n" for rel in v} if k == "files" and isinstance(v, dict) else _forge(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_forge(v) for v in value]
    return value


def test_a_forged_cache_entry_never_reaches_a_report_nor_a_check(released_soil, reference, tmp_path, capsys):
    root = copy_tree(released_soil, tmp_path / "survey")
    forged = 0
    for path in sorted((root / FOLDER).rglob("*.json")):
        outer = json.loads(path.read_bytes())
        payload = json.dumps(_forge(json.loads(outer["payload"])))
        path.write_text(json.dumps({"sha256": hashlib.sha256(payload.encode()).hexdigest(), "payload": payload}))
        forged += 1
    assert forged
    retag(root)
    assert build(root, "build") == 0
    written = files_of(root)
    assert not [rel for rel, data in written.items() if b"FORGED" in data]
    assert written == reference
    capsys.readouterr()
    assert build(root, "build", "--check") == 0
    assert build(root, "build", "--check", cache="off") == 0
