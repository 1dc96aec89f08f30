"""Shared fixtures: the survey trees every data-dependent test runs on, cheap copies of them,
a CLI runner, and the session memo that computes each report tree and figure once.

Trees. A test whose expectation depends on the bundled data takes one of these, and then runs
twice, once per tree (test ids end in ``[published]`` and ``[grown]``):

``survey_tree``
    read-only path of the tree; parametrised over the two trees below. Never write there.
``survey``
    a private copy of ``survey_tree`` (corpus/, exclusions/, reports/, README.md; no git
    repository), to modify freely. A copy takes a few milliseconds: its records and reports are
    hard links (tests/trees.py); a file a test writes into in place through a link is made again
    in the shared private copy after the test (``trees.own(path)`` or ``trees.replace(path, text)``
    make it the test's own first, as masrl's own writes do).
``published_survey``
    a private copy of the tree made the survey as release v1 froze it (its 84 retained and 32 excluded records,
    no later release; :func:`grow.restrict_to_release`, done once per tree and run in the
    read-only ``published_survey_tree``), for tests whose expectations are v1's sample sizes or
    strata.
``grown_survey``
    a private copy of the tree after :func:`grow.grow` (papers added and tagged, an exclusion
    logged, built), grown once per tree and run in the read-only ``grown_pool_tree``
    (:func:`trees.made_once`: by the first pytest-xdist worker that needs it).
``built`` / ``published``
    the :class:`masrl.build.pipeline.Build` of ``survey_tree`` / its release v1 results, the
    only population whose numbers tests may state as literals.

and the two trees themselves, when a test needs one of them only:

``published_tree``
    the survey as this repository bundles it (the repository root; read-only).
``grown_tree``
    a copy of it grown once per session by every workflow of the README, each through the
    CLI (:func:`grow.grow_tree`): papers and exclusions added and tagged, the next release
    frozen, an audit round sampled, read, adjudicated and applied, two branches that each add
    a paper merged with ``masrl resolve``. It is a git repository on ``main``, clean, its
    reports current. It is grown by a helper process started as soon as the tests are
    collected, so that it is ready when the first test needs it (its log:
    ``<basetemp>/grown-tree.log``). ``grown_facts`` says what it holds (``release``: the
    release frozen; ``audit``: the audit applied).

Other fixtures: ``repo`` (the repository root, for its code and documents: README.md,
src/, .gitattributes; take data from a tree fixture instead), ``cli`` (run masrl in-process:
``cli("validate", "--root", path)`` -> :class:`Run` with ``code``, ``out``, ``err``),
``set_field`` (replace a top-level line of a record file), ``no_network`` (autouse: HTTP is
mocked with ``responses``).

A new test that writes takes ``survey`` (its own cheap copy); one that only reads takes
``survey_tree`` or ``built`` (shared by every test of the session). Take every expectation that
depends on the corpus from the tree in front of the test (the latest release: ``built.baseline``,
the next free release name, the audits present, the claims' current values, the next free record
id); :mod:`grow` has helpers (``next_release_name``, ``next_record_id``, ``restrict_to_release``).
``MASRL_GROWN_TREE=DIR`` keeps the grown tree in DIR between runs, to iterate on tests by hand
(remove DIR after changing masrl or the data; CI never sets it).

Markers: ``data`` is added to every test that takes a tree fixture (``pytest -m data`` runs the
data-dependent tests, ``-m "data and not grown"`` those on the bundled tree only), ``grown`` to
their runs on the grown tree, ``property`` to every hypothesis test (tests/profiles.py:
``MASRL_HYPOTHESIS_PROFILE=long ... -m property``); ``uncached`` marks a test that must compute
everything itself (determinism tests). The session memo (tests/memo.py) is off in ``uncached``
tests and in tests from the moment they patch masrl with ``monkeypatch``.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

# One thread per process for the numerical libraries (OpenBLAS, OpenMP: scikit-learn's models in
# `masrl suggest`, numpy): pytest-xdist already runs one worker per core, beside the helper that grows
# the second tree, and each library's own pool of one thread per core only made them take turns
# (tests/test_suggest.py alone: 42 s of CPU with a thread per core, 37 s with one). Set before numpy
# is imported, here and so in every process the tests start (workers, the helper, `python -m masrl`).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

# The cyclic garbage collector less often (every 50,000 allocations of container objects instead of
# 700): a worker holds the session memo's builds and parsed documents, and each full collection walks
# them all. Measured on tests/test_workflow.py and tests/test_living_review.py in one process (83
# tests, 39 s): 3,421 collections taking 3.3 s with Python's thresholds, 21 taking 1.0 s with these.
# Nothing is collected that would not be: the same objects, later (the helper that grows the second
# tree does the same: tests/grow.py).
GC_THRESHOLDS = (50_000, 20, 20)
gc.set_threshold(*GC_THRESHOLDS)

# Under mutation testing (scripts/mutation.sh: mutmut sets MUTANT_UNDER_TEST while it maps tests to
# functions and while it runs a mutant's tests) nothing is memoised: a test answered from the memo,
# or from masrl's in-process memos, would not be mapped to the functions it depends on, and so
# would never judge their mutants.
if "MUTANT_UNDER_TEST" in os.environ:
    os.environ["MASRL_TEST_MEMO"] = "0"

import profiles  # noqa: E402,F401  (tests/profiles.py: the hypothesis profiles, ci by default)
import memo  # noqa: E402  (tests/memo.py: wraps masrl's pure stages before any test module imports them)

# The build cache (``.masrl-cache/``, masrl.build.cache) keys its entries by masrl's files on disk: a test
# that patches masrl in memory would be answered from entries of the unpatched code. The suite runs
# without it; tests/test_build_cache.py turns it on where it is tested.
os.environ.setdefault("MASRL_CACHE", "off")

memo.install()
memo.watch_monkeypatch()

import tempfolders  # noqa: E402  (tests/tempfolders.py)
from trees import TREE_PARTS, LinkedTree, copy_tree, linked_copy, made_once, replace  # noqa: F401 (TREE_PARTS: what a copy holds)
from masrl.cli import main  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TREES = ("published", "grown")
#: The fixtures every data fixture stems from: a test whose fixtures reach one is marked ``data``.
TREE_FIXTURES = {"survey_tree", "published_tree", "grown_tree"}


# ---------------------------------------------------------------------------- the grown tree
def _shared_dir(config) -> Path:
    """A folder every pytest-xdist worker of this run shares (the run's base temp), or
    ``MASRL_GROWN_TREE``: a folder kept between runs, for iterating on tests by hand (a tree
    grown there before is reused as it is, so remove the folder after changing masrl or the
    data; CI never sets it)."""
    if os.environ.get("MASRL_GROWN_TREE"):
        folder = Path(os.environ["MASRL_GROWN_TREE"]).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    base = Path(config._tmp_path_factory.getbasetemp())  # noqa: SLF001 - pytest's own session factory
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


class GrownTree:
    """The helper process that grows the tree (``python tests/grow.py``), and where it puts it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.root = folder / "grown"
        self.log = folder / "grown-tree.log"
        self.facts = folder / "grown-tree.json"
        self.marker = folder / "grown-tree.pid"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start growing, once per run: the first xdist worker to get here starts the helper."""
        import fcntl

        with open(self.folder / "grown-tree.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self.facts.exists() and "error" not in json.loads(self.facts.read_text()):
                return
            if self.marker.exists() and not self.facts.exists() and _alive(int(self.marker.read_text() or 0)):
                return
            self.facts.unlink(missing_ok=True)
            shutil.rmtree(self.root, ignore_errors=True)
            copy_tree(REPO, self.root)
            shutil.copy(REPO / ".gitattributes", self.root / ".gitattributes")
            with open(self.log, "wb") as log:
                self.process = subprocess.Popen([sys.executable, str(REPO / "tests/grow.py"), str(self.root), str(self.facts)],
                                                stdout=log, stderr=subprocess.STDOUT, cwd=self.folder)
            self.marker.write_text(str(self.process.pid))

    def wait(self) -> dict:
        """The facts of the grown tree, once it is ready. Fails with the helper's log if it failed."""
        if not self.facts.exists() and not self.marker.exists():
            self.start()
        while not self.facts.exists():
            helper = self.process.pid if self.process is not None else int(self.marker.read_text() or 0)
            if (self.process.poll() is not None) if self.process is not None else not _alive(helper):
                break
            time.sleep(0.05)
        facts = json.loads(self.facts.read_text()) if self.facts.exists() else {"error": "the helper ended without a word"}
        if "error" in facts:
            pytest.fail(f"growing the tree failed; its log ({self.log}):\n{self.log.read_text(errors='replace')[-6000:]}",
                        pytrace=False)
        return facts

    def stop(self) -> None:
        """End the helper if it still runs (the run was interrupted, or no test needs it any more)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the data-dependent tests (``data``, and ``grown`` for their runs on the grown tree) and
    the property tests (``property``), before ``-m`` selects by these marks."""
    for item in items:
        if set(getattr(item, "fixturenames", ())) & TREE_FIXTURES:
            item.add_marker(pytest.mark.data)
        if _needs_grown(item):
            item.add_marker(pytest.mark.grown)
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)


def _needs_grown(item) -> bool:
    callspec = getattr(item, "callspec", None)
    return "grown_tree" in getattr(item, "fixturenames", ()) or (callspec is not None and callspec.params.get("survey_tree") == "grown")


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    """Note the fixtures of the selected tests that read figures (:class:`_WideFixtures`);
    start growing the tree as soon as the tests are collected, if a selected test needs it."""
    session.config._masrl_figure_fixtures = {  # noqa: SLF001
        name for item in session.items if item.get_closest_marker("figures") for name in getattr(item, "fixturenames", ())}
    if any(_needs_grown(item) for item in session.items):
        session.config._masrl_grown = GrownTree(_shared_dir(session.config))  # noqa: SLF001
        session.config._masrl_grown.start()


def pytest_sessionstart(session):
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # counters of an earlier run in a kept folder (MASRL_GROWN_TREE)
        for path in _shared_dir(session.config).glob("memo-gw*.json"):
            path.unlink()
    tempfolders.start(session.config)  # earlier runs' folders, removed by a process of their own


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:  # the memo's counters of this worker, for the closing line of the run (pytest_terminal_summary)
        (_shared_dir(session.config) / f"memo-{worker}.json").write_text(json.dumps(memo.counters()))
    grown = getattr(session.config, "_masrl_grown", None)
    if grown is not None and grown.process is not None:
        if exitstatus == pytest.ExitCode.INTERRUPTED or not os.environ.get("PYTEST_XDIST_WORKER"):
            grown.stop()
        else:  # another xdist worker may still be waiting for it
            grown.process.wait()


@pytest.fixture(scope="session")
def published_tree() -> Path:
    """The survey as this repository bundles it (the repository root). Read-only."""
    memo.seed_figures(REPO)  # its figures, as committed, are what a test that draws them again gets
    return REPO


@pytest.fixture(scope="session")
def grown_facts(request) -> dict:
    """What the grown tree holds: ``{"release": name frozen, "audit": audit id applied}``."""
    grown = getattr(request.config, "_masrl_grown", None)
    if grown is None:  # a run that collected no grown test but asks for it anyway
        grown = request.config._masrl_grown = GrownTree(_shared_dir(request.config))  # noqa: SLF001
    return grown.wait()


@pytest.fixture(scope="session")
def grown_tree(request, grown_facts) -> Path:
    """The survey grown by every workflow of the README (see the module docstring). Read-only."""
    memo.seed_figures(request.config._masrl_grown.root)  # noqa: SLF001  (its figures, as the helper drew them)
    return request.config._masrl_grown.root  # noqa: SLF001


@pytest.fixture(scope="session", params=TREES)
def survey_tree(request) -> Path:
    """The tree of this run of the test: the published one, then the grown one. Read-only."""
    return request.getfixturevalue(f"{request.param}_tree")


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository root (its code and documents; for data, take a tree fixture)."""
    return REPO


@pytest.fixture(scope="session")
def _linked_trees(tmp_path_factory):
    """``linked(source)``: the private copy of a read-only tree that the tests' copies of that tree
    hard-link their files to (tests/trees.py), made once per tree and session."""
    made: dict[Path, LinkedTree] = {}

    def linked(source: Path) -> LinkedTree:
        if source not in made:
            made[source] = LinkedTree(source, tmp_path_factory.mktemp("linked-tree") / "survey")
        return made[source]

    return linked


@pytest.fixture
def survey(survey_tree: Path, tmp_path: Path, _linked_trees) -> Path:
    """A copy of the survey tree (records, taxonomy, claims, audits, releases, README, reports) to
    modify freely (tests/trees.py: its records and reports are hard links)."""
    yield from linked_copy(survey_tree, tmp_path / "survey", _linked_trees(survey_tree))


@pytest.fixture(scope="session")
def built(survey_tree):
    """The :class:`masrl.build.pipeline.Build` of the tree's corpus (pool and every release)."""
    from masrl.build.pipeline import build
    from masrl.checks.validate import validate
    from masrl.corpus.load import load

    corpus = load(survey_tree)
    assert validate(corpus) == []
    return build(corpus, {"survey_example": True})


@pytest.fixture(scope="session")
def published(built):
    """Results of release v1, the survey as published (its frozen snapshot): the only
    population whose numbers tests may state as literals, since adding papers never changes it."""
    return built.population("v1")


def tree_name(survey_tree: Path) -> str:
    """``published`` or ``grown``: which of :data:`TREES` ``survey_tree`` is."""
    return "published" if survey_tree == REPO else "grown"


@pytest.fixture(scope="session")
def grown_pool_tree(survey_tree: Path, request) -> Path:
    """``survey_tree`` after :func:`grow.grow` (its papers added and tagged and its exclusion
    logged through the CLI, then built), once per tree and run (:func:`trees.made_once`).
    Read-only: take ``grown_survey`` to modify it."""
    import grow

    def make(root: Path) -> None:
        copy_tree(survey_tree, root)
        grow.grow(grow.run_captured, root)

    return made_once(request.config, f"grown-pool-{tree_name(survey_tree)}", make)


@pytest.fixture
def grown_survey(grown_pool_tree: Path, tmp_path: Path, _linked_trees) -> Path:
    """A copy of ``grown_pool_tree`` to modify freely (beside ``survey``, the tree before growing)."""
    yield from linked_copy(grown_pool_tree, tmp_path / "grown-survey", _linked_trees(grown_pool_tree))


@pytest.fixture(scope="session")
def published_survey_tree(survey_tree: Path, request) -> Path:
    """``survey_tree`` restricted to release v1's membership (:func:`grow.restrict_to_release`),
    once per tree and run (:func:`trees.made_once`). Read-only: take ``published_survey`` to modify it."""
    from grow import restrict_to_release

    return made_once(request.config, f"published-survey-{tree_name(survey_tree)}",
                     lambda root: restrict_to_release(copy_tree(survey_tree, root)))


@pytest.fixture
def published_survey(published_survey_tree: Path, tmp_path: Path, _linked_trees) -> Path:
    """A copy of the survey whose pool is release v1's membership (84 retained, 32 excluded), for
    tests whose expectations depend on the pool's composition (sample sizes, strata): they stay
    true however the real pool grows."""
    yield from linked_copy(published_survey_tree, tmp_path / "survey", _linked_trees(published_survey_tree))


class Run:
    """Result of one CLI run: exit code, stdout, stderr."""

    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Run(code={self.code}, out={self.out[-500:]!r}, err={self.err[-2000:]!r})"


@pytest.fixture
def cli(capsys):
    """Run ``masrl`` in-process: ``cli("validate", "--root", path)`` -> :class:`Run`."""

    def run(*args: str) -> Run:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def _set_field(path: Path, field: str, value: str) -> None:
    """Replace the line ``field: ...`` (top level) of a record file with ``field: value``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"{field}:"):
            lines[i] = f"{field}: {value}"
            break
    else:
        raise AssertionError(f"{field} not in {path}")
    replace(path, "\n".join(lines) + "\n")  # a new file: the copy's files are hard links (tests/trees.py)


@pytest.fixture
def set_field():
    """``set_field(path, field, value)``: replace the top-level line ``field: ...`` of a record file."""
    return _set_field


@pytest.fixture(autouse=True)
def no_network():
    """Every test runs with HTTP mocked: a request no test registered fails as a
    connection error (``responses``), so no test can reach the network."""
    import responses

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


#: The id of the test that ran last in this process (for the warning of :func:`_python_sigint_handler`).
_last_test: list[str] = [""]


@pytest.fixture(autouse=True)
def _python_sigint_handler(request):
    """Every test starts with Python's own SIGINT handler (``KeyboardInterrupt``), as a masrl
    process does: the interrupt tests (tests/test_write.py) send themselves a real SIGINT. A
    handler left by an earlier test is put back to Python's, with a warning that names that test
    (pytest's warnings summary)."""
    import signal
    import warnings

    handler = signal.getsignal(signal.SIGINT)
    if handler is not signal.default_int_handler:
        warnings.warn(f"SIGINT's handler was {handler!r} after {_last_test[0] or 'the start of the run'}; "
                      "put back to Python's own", UserWarning, stacklevel=1)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    _last_test[0] = request.node.nodeid


@pytest.fixture(autouse=True)
def _session_memo(request):
    """The memo of tests/memo.py: off in tests marked ``uncached``, and from the moment a test
    patches masrl (:func:`memo.watch_monkeypatch`)."""
    memo.enabled = memo.MODE != "0" and request.node.get_closest_marker("uncached") is None
    stores = request.node.get_closest_marker("memo_off")
    memo.off = frozenset(stores.args if stores is not None else ())
    unknown = memo.off - {store.name for store in memo.STORES}
    assert not unknown, f"memo_off: no memo store named {sorted(unknown)}"
    reads = request.node.get_closest_marker("figures")
    memo.stand_ins = reads is None or bool(reads.args)  # figures("name", ...): only those are read
    memo.reads = frozenset(reads.args if reads is not None else ())
    memo.process_caches(memo.enabled)
    yield
    memo.enabled = memo.MODE != "0"
    memo.stand_ins, memo.reads, memo.off = False, frozenset(), frozenset()
    memo.process_caches(memo.enabled)


class _WideFixtures:
    """Figures are really drawn while a fixture wider than one test is set up (a tree built once
    for many tests, some of which read its figures): no stand-ins there (tests/memo.py). But for
    the fixtures of :data:`memo.STAND_IN_FIXTURES` that no selected test marked ``figures`` takes,
    directly or through another fixture: they are set up as a test that reads no figures runs.

    A plugin of the whole run (:func:`pytest_configure`), not a hook of this file: pytest asks a
    conftest's hooks about the nodes under its folder only, and a session fixture is set up for the
    session, above tests/."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        if fixturedef.scope == "function":
            yield
            return
        readers = getattr(request.config, "_masrl_figure_fixtures", None)
        allowed = fixturedef.argname in memo.STAND_IN_FIXTURES and readers is not None and fixturedef.argname not in readers
        with memo.stand_ins_allowed(allowed):
            yield


def pytest_configure(config):
    if not config.pluginmanager.has_plugin("masrl-wide-fixtures"):
        config.pluginmanager.register(_WideFixtures(), "masrl-wide-fixtures")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """A pytest-xdist worker ends its process here, once its session is over and every other
    plugin has unconfigured: its results, and the closing message the controlling process waits
    for, were sent when its session finished. The controlling process waits for every worker's
    process to end before it prints the closing line, and a worker's interpreter took 3 to 4 s to
    end (freeing the session memo's builds, parsed documents and figures object by object), all of
    it on the run's wall time (timestamps of each process's last hooks and exit, whole suite).
    The worker's output is flushed first; nothing the tests make is written at its exit."""
    if os.environ.get("PYTEST_XDIST_WORKER") and hasattr(config, "workerinput"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def pytest_terminal_summary(terminalreporter):
    """Say at the end of the run when the browser tests of the site were skipped, and why; and
    what the session memo saved."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "browser tests skipped" in str(r.longrepr)]
    if skipped:
        reason = str(skipped[0].longrepr[-1]) if isinstance(skipped[0].longrepr, tuple) else str(skipped[0].longrepr)
        reason = reason.removeprefix('Skipped: ').removeprefix('browser tests skipped: ')
        terminalreporter.write_line(f"{len(skipped)} browser test(s) of the site were SKIPPED: {reason}")
    workers = []
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = _shared_dir(terminalreporter.config)
        workers = [json.loads(path.read_text()) for path in sorted(folder.glob("memo-gw*.json"))]
    line = memo.summary(workers)
    if line and terminalreporter.config.getoption("verbose") >= 0:
        terminalreporter.write_line(line)
