"""Helpers of the build tests (a plain module: ``from conftest import`` takes whichever folder's
conftest pytest imported last): the test survey of tests/data/second-survey, its builds with the
cache on or off, and every generated file of a tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from masrl.cli import main

#: "Today" of every build here (masrl.core.clock).
TODAY = "2026-06-30"
#: The build cache's folder at the survey root.
CACHE = ".masrl-cache"


def run(root: Path, *args: str, cache: str = "on") -> int:
    """``masrl ARGS --root ROOT --quiet`` with the build cache on or off, on :data:`TODAY`."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MASRL_CACHE", cache)
        mp.setenv("MASRL_TODAY", TODAY)
        return main([*args, "--root", str(root), "--quiet"])


def files_of(root: Path) -> dict[str, bytes]:
    """Every generated file of a tree (README.md and everything under reports/)."""
    out = {"README.md": (root / "README.md").read_bytes()}
    out.update({p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "reports").rglob("*")) if p.is_file()})
    return out


def generate_for(root: Path):
    """What ``masrl build`` computes for ``root`` with the build cache on (its reading, validation
    and :func:`masrl.build.generate.generate`), without writing: the
    :class:`masrl.build.generate.Generated`, which names the outputs it rendered."""
    import hashlib

    from masrl.build import cache
    from masrl.build.generate import generate
    from masrl.checks.validate import validate
    from masrl.corpus.load import parse_tree, read_tree
    from masrl.corpus.readcache import identity_text, read_cache, read_reports

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MASRL_TODAY", TODAY)
        corpus = parse_tree(read_tree(root))
        assert validate(corpus) == []
        identity = cache.Identity(hashlib.sha256(identity_text().encode()).hexdigest(), read_cache(root, CACHE))
        return generate(corpus, read_reports(root), identity=identity)
