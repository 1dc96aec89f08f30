"""The survey trees of the tests, and copies of them.

Two trees are made from inputs that never change, once per run (:func:`made_once`): ``published``,
tests/data/survey copied and built (:func:`make_published`), and ``grown``, a copy of it grown by
the manual's workflows on fixed days (:func:`make_grown`). A test takes its own copy.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

TREE_PARTS = ("corpus", "exclusions", "reports", ".masrl-cache")

#: The suite's clock (``MASRL_TODAY``, tests/conftest.py): every shared tree is made on it, whichever test asks
#: first (a module whose tests run on another day would otherwise key the tree's build cache to that day's year).
SUITE_DAY = "2027-01-15"

SOURCE = Path(__file__).resolve().parent / "data/survey"


def copy_tree(source: Path, dest: Path) -> Path:
    """Copy a survey tree's inputs, reports, build cache, README.md and .gitattributes (no git repository) to ``dest``."""
    dest.mkdir(parents=True)
    for name in TREE_PARTS:
        if (source / name).exists():
            shutil.copytree(source / name, dest / name, copy_function=shutil.copyfile)
    for name in ("README.md", ".gitattributes"):
        if (source / name).exists():
            shutil.copyfile(source / name, dest / name)
    return dest


def made_once(config, name: str, make, leaf: str = "survey") -> Path:
    """The tree ``make(dest)`` makes (``dest``: ``<name>/<leaf>``), made once per run by the first
    pytest-xdist worker that asks (the others wait on a lock). Read-only."""
    import fcntl

    base = Path(config._tmp_path_factory.getbasetemp())  # noqa: SLF001 - pytest's own session factory
    base = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "made-once"
    base.mkdir(exist_ok=True)
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (base / f"{name}.failed").exists():
            pytest.fail(f"making the tree {name!r} failed in another test process; see its first error", pytrace=False)
        if not (base / f"{name}.done").exists():
            shutil.rmtree(base / name, ignore_errors=True)
            saved = {variable: os.environ.get(variable) for variable in ("MASRL_CACHE", "MASRL_TODAY")}
            # every tree carries its build cache and is made on the suite's day, whichever test asked first (no cache
            # when the suite runs without it)
            os.environ.update(MASRL_CACHE="off" if os.environ.get("MASRL_TEST_MEMOS") == "off" else "on",
                              MASRL_TODAY=SUITE_DAY)
            try:
                make(base / name / leaf)
            except BaseException:
                (base / f"{name}.failed").write_text("")
                raise
            finally:
                for variable, value in saved.items():
                    os.environ.pop(variable, None) if value is None else os.environ.update({variable: value})
            (base / f"{name}.done").write_text("")
    return base / name / leaf


def make_published(root: Path) -> None:
    """tests/data/survey copied to ``root`` and built."""
    import grow

    grow._ok(grow.run_captured("build", "--root", copy_tree(SOURCE, root)), "masrl build of the test survey")


def make_grown(published: Path, root: Path) -> None:
    """A copy of the published tree at ``root``, grown by the manual's workflows (:func:`grow.grow_tree`)."""
    import grow

    grow.grow_tree(grow.run_captured, copy_tree(published, root))


@pytest.fixture(scope="session", name="survey_tree")
def published_only(published_tree: Path) -> Path:
    """``from trees import published_only``: the module's tests that take ``survey_tree`` (or
    ``survey``) run on the published tree only; for checks of input handling and messages, which do
    not depend on the tree's history."""
    return published_tree


@pytest.fixture(scope="session", name="survey_tree")
def grown_only(grown_tree: Path) -> Path:
    """``from trees import grown_only``: the module's tests run on the grown tree only; for workflows
    (merges of branches) that the grown tree's history (releases, rounds, audits, a merge) exercises
    beyond what the published tree holds."""
    return grown_tree
