"""The survey trees of the tests, and copies of them.

``python tests/trees.py FOLDER [--published-only]`` (started by tests/conftest.py) makes two trees from inputs that
never change: ``published``, tests/data/survey copied and built, then ``grown``, a copy of it grown
by the manual's workflows on fixed days (:func:`grow.grow_tree`). A test takes its own copy.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

TREE_PARTS = ("corpus", "exclusions", "reports")

SOURCE = Path(__file__).resolve().parent / "data/survey"


def copy_tree(source: Path, dest: Path) -> Path:
    """Copy a survey tree's inputs, reports, README.md and .gitattributes (no git repository) to ``dest``."""
    dest.mkdir(parents=True)
    for name in TREE_PARTS:
        if (source / name).exists():
            shutil.copytree(source / name, dest / name, copy_function=shutil.copyfile)
    for name in ("README.md", ".gitattributes"):
        if (source / name).exists():
            shutil.copyfile(source / name, dest / name)
    return dest


def made_once(config, name: str, make) -> Path:
    """The tree ``make(dest)`` makes, made once per run by the first pytest-xdist worker that asks
    (the others wait on a lock). Read-only."""
    import fcntl

    base = Path(config._tmp_path_factory.getbasetemp())  # noqa: SLF001 - pytest's own session factory
    base = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "made-once"
    base.mkdir(exist_ok=True)
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / f"{name}.done").exists():
            shutil.rmtree(base / name, ignore_errors=True)
            make(base / name / "survey")
            (base / f"{name}.done").write_text("")
    return base / name / "survey"


def wait_for(folder: Path, name: str, maker) -> Path:
    """The tree ``name`` made in ``folder`` by the maker process (``maker``: its ``Popen`` in the
    process that started it), once ready; fails with the maker's log if it failed."""
    done, failed = folder / f"{name}.done", folder / "trees.failed"
    while not done.exists() and not failed.exists() and (maker is None or maker.poll() is None):
        time.sleep(0.05)
    if not done.exists():
        pytest.fail(f"making the test trees failed; the log ({folder / 'trees.log'}):\n"
                    f"{(folder / 'trees.log').read_text(errors='replace')[-6000:]}", pytrace=False)
    return folder / name


def main(folder: Path, grown: bool = True) -> None:
    """Make the ``published`` tree, then (with ``grown``) the ``grown`` one, in ``folder``; mark each ready."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import grow

    try:
        published = copy_tree(SOURCE, folder / "published")
        grow._ok(grow.run_captured("build", "--root", published), "masrl build of the test survey")
        (folder / "published.done").write_text("")
        if not grown:
            return
        facts = grow.grow_tree(grow.run_captured, copy_tree(published, folder / "grown"))
        (folder / "grown.done").write_text(json.dumps(facts))
    except BaseException:
        import traceback

        traceback.print_exc()
        (folder / "trees.failed").write_text("")
        raise SystemExit(1) from None



@pytest.fixture(scope="session", name="survey_tree")
def published_only(published_tree: Path) -> Path:
    """``from trees import published_only``: the module's tests that take ``survey_tree`` (or
    ``survey``) run on the published tree only; for checks of input handling and messages, which do
    not depend on the tree's history."""
    return published_tree


if __name__ == "__main__":  # pragma: no cover - run by tests/conftest.py
    main(Path(sys.argv[1]), grown="--published-only" not in sys.argv[2:])
