"""Shared fixtures: the trees the tests run on, copies of them, a CLI runner, a fixed clock.

Every test of the code runs on trees made from inputs that never change (tests/trees.py):
``published_tree`` (tests/data/survey, the bundled survey as release v1 published it, built) and
``grown_tree`` (the same grown by the manual's workflows on fixed days: tests/grow.py), each made
once per run by the first test process that asks (:func:`trees.made_once`). ``survey_tree`` runs a
test on both (ids ``[published]``, ``[grown]``); ``survey`` is a private writable copy of it,
``grown_survey`` one after :func:`grow.grow`; ``built`` / ``published`` are its Build and release
v1's results (``published_build``: the published tree's Build). ``repo`` is the repository, for its code and documents only.

Every test runs on :data:`SUITE_DAY` (``MASRL_TODAY``). Only tests marked ``live``
(tests/test_live_corpus.py) read the repository's ``corpus/``, ``exclusions/`` or ``reports/``, on
the environment's clock: an audit hook fails any other test that opens or lists a file there.
Markers: ``data`` (takes a tree), ``grown`` (its run on the grown tree), ``property``, ``live``,
``memos`` (skipped with ``MASRL_TEST_MEMOS=off``, a run with masrl's memos and build cache off).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import traceback
import warnings
from pathlib import Path

import pytest

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # xdist runs a worker per core
    os.environ.setdefault(_variable, "1")
gc.set_threshold(50_000, 20, 20)  # fewer full collections of the session's builds

REPO = Path(__file__).resolve().parent.parent


def _memory_folder(path: str = "/dev/shm", room: int = 4 << 30) -> None:
    """The run's temporary folders (every tree a test copies) in memory, on the machine's tmpfs, when
    it has ``room`` bytes free and the environment names no folder of its own (``TMPDIR``,
    ``PYTEST_DEBUG_TEMPROOT``): creating and removing a tree's few hundred files there costs a third
    of what a disk's file system takes. pytest keeps the last three runs' folders, as on disk."""
    import tempfile

    if os.environ.get("TMPDIR") or os.environ.get("PYTEST_DEBUG_TEMPROOT"):
        return
    try:
        stat = os.statvfs(path)
    except OSError:
        return
    if os.access(path, os.W_OK | os.X_OK) and stat.f_bavail * stat.f_frsize >= room:
        tempfile.tempdir = path


_memory_folder()
from trees import SUITE_DAY  # noqa: E402
os.environ.setdefault("MASRL_TESTS_ENVIRONMENT_DAY", os.environ.get("MASRL_TODAY", ""))  # for the live tests
ENVIRONMENT_DAY = os.environ["MASRL_TESTS_ENVIRONMENT_DAY"] or None
os.environ["MASRL_TODAY"] = SUITE_DAY
# The build cache is on, as for a user (whatever the environment says), and the trees the tests copy
# carry it (trees.copy_tree): a test's first build renders only what the test changed. It keys its
# entries by masrl's files on disk, which a patch of masrl does not change: a test that patches masrl
# turns it off (_Patches).
# ``MASRL_TEST_MEMOS=off`` (scripts/mutation.sh with ``MEMOS=off``) runs the suite with masrl's in-process memos
# and its build cache off throughout: what it kills then and not with them on, they hide.
MEMOS = os.environ.get("MASRL_TEST_MEMOS", "on") != "off"
os.environ["MASRL_CACHE"] = "on" if MEMOS else "off"

import profiles  # noqa: E402,F401  (the hypothesis profiles)
from grow import Run, set_field as _set_field  # noqa: E402
from trees import copy_tree, made_once, make_grown, make_published  # noqa: E402
from masrl.cli import main  # noqa: E402

if not MEMOS:
    from masrl.core import memo as _memo

    _memo.set_enabled(False)

TREES = ("published", "grown")
LIVE = tuple(str(REPO / name) for name in ("corpus", "exclusions", "reports"))
_LIVE_FILES = tuple(folder + os.sep for folder in LIVE)
_live_reads: list[tuple[str, str]] = []


def _audit(event: str, args: tuple) -> None:
    """An absolute path opened or listed under the live corpus (relative ones may be relative to a
    folder's descriptor, as ``shutil.rmtree`` opens them; masrl and the tests use absolute paths)."""
    if event in ("open", "os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(args[0])
        if os.path.isabs(path) and (path in LIVE or path.startswith(_LIVE_FILES)):
            _live_reads.append((path, "".join(traceback.format_stack(limit=8)[:-1])))


sys.addaudithook(_audit)


@pytest.fixture(scope="session")
def published_tree(request) -> Path:
    return made_once(request.config, "published", make_published, leaf="published")


@pytest.fixture(scope="session")
def grown_tree(request, published_tree) -> Path:
    return made_once(request.config, "grown", lambda root: make_grown(published_tree, root), leaf="grown")


@pytest.fixture(scope="session", params=TREES)
def survey_tree(request) -> Path:
    return request.getfixturevalue(f"{request.param}_tree")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture
def survey(survey_tree, tmp_path) -> Path:
    return copy_tree(survey_tree, tmp_path / "survey")


# What depends on the tree a test runs on (``survey_tree``, which a module may pin with trees.published_only or
# trees.grown_only) is function-scoped and keyed by the tree: a session fixture would keep the first tree's value.
@pytest.fixture
def grown_pool_tree(survey_tree: Path, request) -> Path:
    import grow

    return made_once(request.config, f"grown-pool-{survey_tree.name}",
                     lambda root: grow.grow(grow.run_captured, copy_tree(survey_tree, root)))


@pytest.fixture
def grown_survey(grown_pool_tree, tmp_path) -> Path:
    return copy_tree(grown_pool_tree, tmp_path / "grown-survey")


def _build(tree: Path):
    from masrl.build.pipeline import build
    from masrl.checks.validate import validate
    from masrl.corpus.load import load

    corpus = load(tree)
    assert validate(corpus) == []
    return build(corpus, {"survey_example": True})


@pytest.fixture(scope="session")
def published_build(published_tree):
    """The build results of the published tree (its pool, releases and claims)."""
    return _build(published_tree)


_BUILDS: dict[Path, object] = {}


@pytest.fixture
def built(survey_tree, request):
    if survey_tree.name == "published":
        return request.getfixturevalue("published_build")
    if survey_tree not in _BUILDS:
        _BUILDS[survey_tree] = _build(survey_tree)
    return _BUILDS[survey_tree]


@pytest.fixture
def published(built):
    return built.population("v1")


@pytest.fixture
def cli(capsys):
    """Run ``masrl`` in-process: ``cli("validate", "--root", path)`` -> :class:`grow.Run`."""

    def run(*args) -> Run:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def set_field():
    return _set_field


@pytest.fixture(autouse=True)
def no_network():
    """HTTP is mocked (``responses``): a request no test registered fails as a connection error."""
    import responses

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


@pytest.fixture(autouse=True)
def _clock_and_live_corpus(request):
    """The fixed clock (the environment's in a ``live`` test); every read of the live corpus since
    the last test ended (its wider fixtures' included) fails a test not marked ``live``."""
    live = request.node.get_closest_marker("live") is not None
    if live:
        os.environ.pop("MASRL_TODAY") if ENVIRONMENT_DAY is None else os.environ.update(MASRL_TODAY=ENVIRONMENT_DAY)
    yield
    os.environ["MASRL_TODAY"] = SUITE_DAY
    reads, where = sorted({path for path, _ in _live_reads}), _live_reads[0][1] if _live_reads else ""
    _live_reads.clear()
    if reads and not live:
        pytest.fail(f"a test of the code read the repository's live corpus: {reads[:5]}; take a tree fixture. "
                    f"The first read:\n{where}", pytrace=False)


def _forget_process_caches() -> None:
    for name, module in list(sys.modules.items()):
        if name.startswith("masrl.") and module is not None:
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", "") == name:
                    value.cache_clear()


#: What a test may patch and keep masrl's in-process memos: the file system's calls (the tests of a
#: write that fails), the clock that paces requests to a source, the search endpoints' variables,
#: the day (every memo whose value depends on it holds it in its key), the drawing workers and git's identity and
#: configuration files (who commits; what masrl reads through git is keyed by its content).
#: Any other patch (masrl, matplotlib, another variable, a dict) turns them off until the test ends.
_INERT = frozenset({"os", "posix", "posixpath", "pathlib", "tempfile", "shutil", "masrl.review.update.sources.pacing",
                    "MASRL_ARXIV_API", "MASRL_CROSSREF_API", "MASRL_OPENREVIEW_API", "MASRL_OPENREVIEW_V1_API", "MASRL_ACL_URL",
                    "MASRL_S2_API", "MASRL_TODAY",
                    "MASRL_DRAW_WORKERS", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                    "GIT_COMMITTER_EMAIL", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"})
_memos_off: list[bool] = []


class _Patches(pytest.MonkeyPatch):
    """pytest's monkeypatch, which turns masrl's memos and its build cache off at the first patch that may
    change what masrl computes (a target, or a variable's name, not in :data:`_INERT`)."""


def _minding(method):
    def patch(self, target, *args, **kwargs):
        if method.__name__.endswith("item"):  # setenv and delenv end here too, with os.environ and the name
            name = str(args[0]) if target is os.environ and args else ""
        else:
            name = (target if isinstance(target, str) else target.__name__ if isinstance(target, type(sys))
                    else (target if isinstance(target, type) else type(target)).__module__)
        if MEMOS and not _memos_off and not {name, name.rpartition(".")[0], name.partition(".")[0]} & _INERT:
            from masrl.core import memo

            _forget_process_caches()
            memo.set_enabled(False)
            _memos_off.append(os.environ.get("MASRL_CACHE"))
            os.environ["MASRL_CACHE"] = "off"
        return method(self, target, *args, **kwargs)
    return patch


for _method in ("setattr", "delattr", "setitem", "delitem", "setenv", "delenv"):
    setattr(_Patches, _method, _minding(getattr(pytest.MonkeyPatch, _method)))


@pytest.fixture
def monkeypatch():
    """pytest's monkeypatch, minding masrl's memos (:class:`_Patches`): after the test they are on
    again, holding nothing a patch computed."""
    with _Patches.context() as patches:
        yield patches
    if _memos_off:
        from masrl.core import memo

        cache = _memos_off.pop()
        os.environ.pop("MASRL_CACHE") if cache is None else os.environ.update(MASRL_CACHE=cache)
        memo.set_enabled(True)
        _forget_process_caches()


@pytest.fixture(autouse=True)
def _process_state(request):
    """A SIGINT handler a test left behind (the interrupt tests send real SIGINTs) is put back: the one the test
    began with (Python's, or SIG_IGN where the suite runs as a background job of a shell). A test that leaves a
    folder on ``sys.path`` fails: what is on it is part of the build cache's key (masrl.corpus.readcache.identity_text)."""
    before, path = signal.getsignal(signal.SIGINT), list(sys.path)
    yield
    if (handler := signal.getsignal(signal.SIGINT)) is not before:
        signal.signal(signal.SIGINT, before)
        warnings.warn(f"{request.node.nodeid} left a SIGINT handler of its own ({handler!r}); put back", stacklevel=1)
    added, sys.path[:] = [p for p in sys.path if p not in path], path
    if added:
        pytest.fail(f"the test left {added} on sys.path; it is taken off", pytrace=False)


#: The fixtures that hand a test a survey tree (the ``data`` marker's tests).
TREE_FIXTURES = frozenset({"published_tree", "grown_tree", "survey_tree", "grown_pool_tree", "survey", "grown_survey"})


def pytest_collection_modifyitems(items):
    """The markers pyproject.toml declares, on the tests they name: ``property`` (a hypothesis test), ``data``
    (takes a survey tree) and ``grown`` (its run on the grown tree), so that ``-m`` selects them."""
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)
        if TREE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.data)
            spec = getattr(item, "callspec", None)
            if "grown_tree" in item.fixturenames or (spec is not None and spec.params.get("survey_tree") == "grown"):
                item.add_marker(pytest.mark.grown)
        if not MEMOS and item.get_closest_marker("memos"):
            item.add_marker(pytest.mark.skip(reason="asserts what masrl's memos remember; this run has them off"))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """A pytest-xdist worker ends its process at once when its session is over (its results are
    sent): freeing the session's builds object by object took seconds of the run's wall time."""
    if os.environ.get("PYTEST_XDIST_WORKER") and hasattr(config, "workerinput"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def pytest_terminal_summary(terminalreporter):
    """Say at the end of the run when the browser tests of the site were skipped, and why."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "browser tests skipped" in str(r.longrepr)]
    if skipped:
        reason = str(skipped[0].longrepr[-1]) if isinstance(skipped[0].longrepr, tuple) else str(skipped[0].longrepr)
        terminalreporter.write_line(f"{len(skipped)} browser test(s) of the site were SKIPPED: "
                                    f"{reason.removeprefix('Skipped: ').removeprefix('browser tests skipped: ')}")
