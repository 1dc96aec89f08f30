"""A session memo of masrl's pure, expensive stages, so that each report tree and each figure
is computed once per pytest session however many tests ask for it.

The stages are pure by the project's architecture (same inputs, same bytes; no file access):

- ``masrl.build.pipeline.build(corpus, traces_valid)``: keyed by the content of the corpus
  (every parsed input file) and ``traces_valid``;
- ``masrl.build.pipeline.analyse(population, previous, audits)`` (one population of a build:
  a frozen release is analysed once however many builds hold it): keyed by the content of
  its arguments;
- ``masrl.build.outputs.render_text(build, readme)``: keyed by the build (a memoised one) and
  the README text;
- ``masrl.build.outputs.render_tree(build, results)`` for a frozen release (its text reports,
  rendered again by every build whose pool changed): keyed by what the build cache keys them
  by (:func:`masrl.build.cache.release_key`: exactly what a release tree is computed from);
- ``masrl.render.figures.draw.render(spec, data, notes)`` and ``render_many``: keyed by what
  :func:`masrl.render.figures.fingerprint` covers (name, kind, options, plotted data, footnote).
  A figure the memo does not hold is *stood in for* in a test that does not read figures (not
  marked ``figures``): when a figure of the same kind and shape (number of footnote lines;
  plotted numbers all zero, any negative) was really drawn in this process, and its text has
  no ``$`` and no character but digits that no drawn figure of its kind had, its files are that
  figure's followed by a mark holding its key (:func:`_stand_in`). Its drawing could not show
  such a test anything a real drawing had not (a missing glyph, a mathtext or empty-plot
  error), and figures of different data still differ. Figures are really drawn while a fixture
  wider than one test is set up (but those of :data:`STAND_IN_FIXTURES`), and the trees built
  in other processes (the repository, the grown tree) are memoised from their files
  (:func:`seed_figures`), so that a test which draws them again gets their bytes. This is the
  figure code run once per figure and shape, not per pool state: every figure test
  (tests/figures) reads real drawings;
- ``masrl.checks.validate.validate(corpus, skip)`` (every command validates the tree it reads,
  and most trees of a session are the same few): keyed by the whole corpus, line numbers and
  reading problems included, ``skip`` and today's date (the rule on dates in the future); each
  caller gets its own list;
- ``masrl.analyses.declared.declared_table``, ``masrl.analyses.stats.count_table`` and
  ``crosstab_table`` (a changed pool's analysis recomputes only the tables that read a changed
  column: a retag of one field reuses every table of the other fields): keyed by what each reads
  (:func:`_declared_reads`, :func:`_count_reads`, :func:`_crosstab_reads`: the declaration, the
  vocabulary, the frame's index and only the columns the table reads);
- ``masrl.bib.bibexport.entries(records)`` (``reports/papers.bib`` and the site's citations): each
  record's entry memoised by the record and the entries joined in key order (:func:`_entries_wrapper`);
- ``masrl.render.tex.table_tex``, ``masrl.render.csvout.table_csv`` and
  ``masrl.render.markdown.table_md`` (most tables of a changed pool are those of the pool
  before it): keyed by the pickled frame (equal pickles, identical frames) and the arguments;
- ``masrl.corpus.yamlio.dump_record(record)`` (a release's snapshot of the same pool, frozen again
  by many tests): keyed by the pickled record (bytes are immutable, so shared);
- ``masrl.corpus.yamlio.parse(data, file)`` (every input file of every CLI run reads the same
  records again): keyed by the bytes and the name, its value stored encoded and decoded for each
  caller (:func:`_pack`), so that no caller sees another's values (a twentieth of the time of
  parsing again).

:func:`install` replaces those functions by memoising wrappers before any test module
imports them (tests/conftest.py calls it at import). The memo is on for every test except
those marked ``uncached`` (a test of determinism, which must compute twice), and it goes off
for the rest of a test the moment the test patches masrl (``monkeypatch`` on a masrl module,
class or function, or on a name under ``masrl.``: :func:`watch_monkeypatch`), except in the layers
above ``masrl.build`` (the CLI, the commands, the review's network layer: :data:`ABOVE`), which the
memoised stages cannot import: from then on
every call goes to the real function and nothing is stored. Patching the standard library
(``os.replace``, ``tempfile``, the environment) leaves it on: the memoised stages are pure
and read neither files nor the environment. A memoised value is shared, never copied: the code under test treats a
build and its frames as read-only, and so must tests.

``MASRL_TEST_MEMO=0`` turns the memo off for a whole run (to compare), ``MASRL_TEST_MEMO=verify``
computes every call afresh as well and fails on any difference from the memoised value.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import pickle
import re
import time
import weakref
from collections import OrderedDict
from typing import Any, Callable

MODE = os.environ.get("MASRL_TEST_MEMO", "1")

#: Whether the running test may use the memo (set per test by tests/conftest.py).
enabled = MODE != "0"

#: The stores the running test may not use (``@pytest.mark.memo_off("release tree")``; set per test by
#: tests/conftest.py): a store keyed by what the code under test keys its own cache by.
off: frozenset[str] = frozenset()

#: Whether a figure the memo does not hold may be stood in for (set per test by tests/conftest.py:
#: off in tests marked ``figures``, in ``verify`` mode and while a fixture wider than a test is set up,
#: but for those of :data:`STAND_IN_FIXTURES`).
stand_ins = False

#: The figures the running test reads (``@pytest.mark.figures("prisma_flow")``): never stood in for,
#: while the others may be (set per test by tests/conftest.py).
reads: frozenset[str] = frozenset()

#: Fixtures wider than one test whose trees no test draws again to compare with (their figures are
#: read by no test but those marked ``figures``): set up with stand-ins, unless a selected test marked
#: ``figures`` takes them (tests/conftest.py). The grown pools (``grown_pool_tree``): each is a build
#: of a new pool state, seven figures drawn for nothing but their stand-ins' place in the reports.
#: A tree that a test builds again with the memo off (the reference of tests/test_build_cache.py)
#: must not be here: its real drawings would differ from the stand-ins.
STAND_IN_FIXTURES: set[str] = {"grown_pool_tree"}


class Store:
    """One memo: at most ``limit`` values, least recently used dropped first."""

    def __init__(self, name: str, limit: int):
        self.name, self.limit = name, limit
        if "STORES" in globals():
            STORES.append(self)
        self.values: OrderedDict = OrderedDict()
        self.hits = self.misses = 0
        self.saved = 0.0  # seconds the hits would have cost
        self.spent = 0.0  # seconds the misses cost

    def put(self, key: bytes, value, cost: float) -> None:
        self.misses += 1
        self.spent += cost
        self.values[key] = (value, cost)
        if len(self.values) > self.limit:
            self.values.popitem(last=False)

    def call(self, key: bytes | None, compute: Callable[[], Any], same: Callable[[Any, Any], bool] | None = None):
        """The memoised value of ``key``, or ``compute()`` (stored under ``key``)."""
        if not enabled or key is None or self.name in off:
            return compute()
        if key in self.values:
            self.values.move_to_end(key)
            value, cost = self.values[key]
            self.hits += 1
            self.saved += cost
            if MODE == "verify" and not (same or _same)(value, compute()):
                raise AssertionError(f"memo {self.name}: a memoised value differs from a fresh computation")
            return value
        started = time.perf_counter()
        value = compute()
        self.put(key, value, time.perf_counter() - started)
        return value


def _same(a, b) -> bool:
    return a == b


def digest(*parts) -> bytes | None:
    """A content key for ``parts`` (None when they cannot be pickled: then nothing is memoised)."""
    try:
        data = pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - an unpicklable input is simply not memoised
        return None
    return hashlib.blake2b(data, digest_size=24).digest()


#: Fields of a :class:`masrl.corpus.load.Corpus` that are about reading, not content (line numbers,
#: problems found while reading): the build of a corpus that validates does not depend on them.
READING_FIELDS = {"docs", "problems", "unreadable"}


def corpus_digest(corpus, *more, reading: bool = False) -> bytes | None:
    """The content of a :class:`masrl.corpus.load.Corpus` and of ``more``: every field but
    :data:`READING_FIELDS` (all of them with ``reading``: line numbers and reading problems are
    part of what ``validate`` reports), so that a field added to the corpus is part of the key
    without a change here. A field of plain values is serialised with :mod:`marshal` (twice as
    fast as pickle, and as exact: ``True``, ``1`` and ``1.0`` differ), its documents by the key of
    the bytes they were parsed from when the parse memo made them (:func:`_doc_source`; a
    record's value is also the value of its field, hashed there, so a change made to it in place
    still changes the key), else as their value, lines and comments; anything else is pickled."""
    import marshal

    hasher = hashlib.blake2b(digest_size=24)
    for f in dataclasses.fields(corpus):
        if not reading and f.name in READING_FIELDS:
            continue
        value = getattr(corpus, f.name)
        if f.name == "docs":
            value = {rel: _doc_source(doc) or (doc.value, doc.lines, doc.comments) for rel, doc in value.items()}
        try:
            data = b"m" + marshal.dumps(value)
        except ValueError:  # not plain values (problems, round folders): pickled
            part = digest(value)
            if part is None:
                return None
            data = b"p" + part
        hasher.update(f.name.encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    rest = digest(*more)
    if rest is None:
        return None
    hasher.update(rest)
    return hasher.digest()


#: id(document) -> (weak reference to it, key of the bytes and file name it was parsed from), for
#: every document the parse memo handed out (:func:`_doc_source`).
_doc_keys: dict[int, tuple[weakref.ref, bytes]] = {}


def _remember_source(doc, key: bytes) -> None:
    """Note that ``doc`` is what parsing the bytes and file name of ``key`` gives."""
    ident = id(doc)

    def forget(ref, ident=ident):
        if _doc_keys.get(ident, (None,))[0] is ref:
            del _doc_keys[ident]

    _doc_keys[ident] = (weakref.ref(doc, forget), key)


def _doc_source(doc) -> bytes | None:
    """The key of the bytes and file name ``doc`` was parsed from (a document of the parse memo:
    its value, lines and comments are what parsing them gives; masrl reads documents and never
    changes them, and no test does), or None for a document made otherwise (a copy, a test's)."""
    known = _doc_keys.get(id(doc))
    return b"s" + known[1] if known is not None and known[0]() is doc else None


BUILDS = Store("build", 64)
ANALYSES = Store("analyse", 128)
TEXTS = Store("render_text", 32)
TREES = Store("release tree", 64)
FIGURES = Store("figure", 512)
STAND_INS = Store("figure stand-in", 4096)
PARSES = Store("yaml parse", 20000)
VALIDATIONS = Store("validate", 256)
TABLES = Store("table file", 20000)
ANALYSIS_TABLES = Store("analysis table", 20000)
BIB_ENTRIES = Store("bibtex entry", 20000)
DUMPS = Store("yaml dump", 256)
STORES: list[Store] = [BUILDS, ANALYSES, TEXTS, TREES, FIGURES, STAND_INS, PARSES, VALIDATIONS, TABLES, ANALYSIS_TABLES, BIB_ENTRIES, DUMPS]

#: id(build) -> content key of a memoised build (so that render_text can be keyed by content).
_build_keys: dict[int, bytes] = {}


class FigureKey(tuple):
    """What the memo knows of one figure to draw: ``(key, kind, shape, text)``.

    ``key`` covers the name, kind, options, plotted data and footnote (the memo's key); ``kind``
    the name, kind and options; ``shape`` the kind, the number of footnote lines and whether the
    plotted numbers are all zero or any negative (:data:`_NUMBER`); ``text`` is the plotted data
    (as :func:`masrl.render.figures.data_bytes` reads it) and the footnote. All None when the data
    cannot be read (then nothing is memoised)."""

    key = property(lambda self: self[0])


def _figure_keys(spec, data, notes) -> FigureKey:
    from masrl.render.figures import data_bytes

    try:
        plotted = data_bytes(data).decode("utf-8")
    except Exception:  # noqa: BLE001 - data the fingerprint cannot read is not memoised
        return FigureKey((None, None, None, None))
    kind = (spec.name, spec.module, repr(sorted(spec.options.items())))
    numbers = [float(n) for n in _NUMBER.findall(plotted)]
    shape = digest(*kind, len(notes), all(n == 0 for n in numbers), any(n < 0 for n in numbers))
    return FigureKey((digest(*kind, plotted, tuple(notes)), kind, shape, plotted + "\n" + "\n".join(notes)))


#: A number standing alone in plotted data (a CSV cell, a JSON value); "R1" or "v1.2" is a label.
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w]|\.\d)")

#: ``{shape: (files, [])}``: the first figure of each shape really drawn in this process without a
#: missing glyph.
_REFERENCES: dict[bytes, tuple[dict[str, bytes], list[str]]] = {}
#: ``{kind: characters}``: every character of the plotted data and footnotes of the figures of that
#: kind really drawn in this process without a missing glyph.
_DRAWN_TEXT: dict[tuple, set[str]] = {}

#: The text of every stand-in's mark (``tests/grow.py`` looks for it in a grown tree's figures).
STAND_IN_TEXT = b"test stand-in "
_STAND_IN_MARK = {"svg": b"<!-- " + STAND_IN_TEXT + b"%s -->\n", "pdf": b"%%" + STAND_IN_TEXT + b"%s\n", "png": STAND_IN_TEXT + b"%s"}


@contextlib.contextmanager
def stand_ins_allowed(allowed: bool):
    """Set :data:`stand_ins` to ``allowed`` for a block, then back to what it was."""
    global stand_ins
    before, stand_ins = stand_ins, allowed
    try:
        yield
    finally:
        stand_ins = before


#: Whether every figure not memoised is stood in for, of a drawn shape or not (:func:`drafts`).
drafting = False


@contextlib.contextmanager
def drafts():
    """Stand in for every figure of a block that the memo does not hold, even of a shape no figure
    was drawn with (then with a mark alone, :func:`_stand_in`): for builds whose figures are all
    drawn again later, and which nothing reads (the grow helper's two branches: the merge draws
    their pool figures again, and growing fails if a stand-in is left: tests/grow.py). Not in
    ``verify`` mode, nor with the memo off."""
    global drafting
    before, drafting = drafting, True
    try:
        with stand_ins_allowed(True):
            yield
    finally:
        drafting = before


def _may_stand_in(figure: FigureKey) -> bool:
    """Whether :func:`_stand_in` may answer for ``figure``, not drawn and not memoised: the
    running test allows it (:data:`stand_ins`), a figure of its shape was drawn, and its text
    has no character but digits that no figure of its kind was drawn with, and no ``$`` (matplotlib's
    mathtext). What such a figure's drawing would add to a test that does not read figure
    bytes (a missing glyph, an error from a label or from an empty or negative plot) is then
    what a real drawing already gave: nothing."""
    key, kind, shape, text = figure
    return (enabled and stand_ins and MODE != "verify" and key is not None and kind[0] not in reads and key not in FIGURES.values
            and (drafting or (shape in _REFERENCES and "$" not in text and set(text) - _DIGITS <= _DRAWN_TEXT.get(kind, set()))))


_DIGITS = set("0123456789")


def _stand_in(figure: FigureKey):
    """A figure for ``figure`` that is not drawn: the bytes of a figure of its shape really drawn,
    each file followed by a mark holding its key (after SVG's root element, PDF's ``%%EOF`` and
    PNG's ``IEND`` chunk, which readers ignore), so that figures of different data still differ,
    and no missing glyph (:func:`_may_stand_in`); in :func:`drafts`, a figure of a shape not drawn
    is its mark alone in each format."""
    files, missing = _REFERENCES.get(figure[2]) or (dict.fromkeys(_STAND_IN_MARK, b""), [])
    return {ext: data + _STAND_IN_MARK[ext] % figure.key.hex().encode() for ext, data in files.items()}, list(missing)


def _drew(figure: FigureKey, value) -> None:
    """Note a figure really drawn (``value``: its files and missing glyphs) as a reference."""
    key, kind, shape, text = figure
    if enabled and key is not None and not value[1]:
        _REFERENCES.setdefault(shape, value)
        _DRAWN_TEXT.setdefault(kind, set()).update(text)


_FONT_CHARS: set[str] = set()


def _font_has(text: str) -> bool:
    """Whether the house font (its regular and bold faces: ``masrl.render.figures.style.RC``)
    has a glyph of every character of ``text`` but newlines, and ``text`` has no ``$``
    (matplotlib's mathtext)."""
    if not _FONT_CHARS:
        from matplotlib import font_manager
        from matplotlib.ft2font import FT2Font

        from masrl.render.figures.style import RC

        maps = [set(map(chr, FT2Font(font_manager.findfont(font_manager.FontProperties(
            family=RC["font.family"], weight=weight))).get_charmap())) for weight in ("normal", "bold")]
        _FONT_CHARS.update(maps[0] & maps[1])
    return "$" not in text and set(text.replace("\n", "")) <= _FONT_CHARS


def seed_figures(root) -> int:
    """Memoise the figures of the built tree at ``root`` from its files, as if drawn here: each
    figure whose manifest entry (``<tree>/figures/manifest.json``) has the fingerprint of what
    this code would draw and the digests of the files on disk, and whose text the house font
    has every glyph of (:func:`_font_has`: no missing glyph). A test that draws one of them
    again, in a copy of the tree, gets the bytes on disk, never a stand-in: they were drawn in
    another process (the repository's, the grow helper's). Returns how many were memoised."""
    import hashlib
    import json

    from masrl.build import figures as build_figures
    from masrl.build.examples import examples_valid, validated_examples
    from masrl.build.outputs import tree
    from masrl.build.pipeline import build
    from masrl.corpus.load import load, package_sources, read_figure_files
    from masrl.corpus.taxonomy import Taxonomy
    from masrl.render import figures
    from masrl.render.figures import draw

    if not enabled:
        return 0
    corpus = load(root)
    result = build(corpus, examples_valid(validated_examples()) if Taxonomy(corpus.taxonomy).traces else {})
    files = read_figure_files(root)
    code = figures.code_fingerprint(package_sources(figures.__name__))
    seeded = 0
    for results in (result.pool, *result.releases):
        folder = f"{tree(results)}figures"
        try:
            manifest = json.loads(files[f"{folder}/manifest.json"])
        except (KeyError, ValueError):
            continue
        toolchain = draw.toolchain_text(manifest.get("toolchain", {}))
        baseline = result.baseline if results is result.pool else None
        for spec in figures.figures_of(results.tax):
            data = spec.data(results)
            notes = [*spec.notes(results), *filter(None, [build_figures.release_note(spec, results, baseline)])]
            entry = (manifest.get("figures") or {}).get(spec.name) or {}
            on_disk = {ext: files.get(f"{folder}/{spec.name}.{ext}") for ext in figures.FORMATS}
            figure = _figure_keys(spec, data, notes)
            if (figure.key is None or entry.get("fingerprint") != figures.fingerprint(spec, data, code, notes, toolchain)
                    or not _font_has(figure[3])
                    or any(b is None or hashlib.sha256(b).hexdigest() != (entry.get("sha256") or {}).get(ext)
                           for ext, b in on_disk.items())):
                continue
            if figure.key not in FIGURES.values:
                FIGURES.put(figure.key, (on_disk, []), 0.0)
                FIGURES.misses -= 1  # not a draw
                seeded += 1
            SEEDED.setdefault(str(root), {}).setdefault(figure.key, set()).add(results.name)
            _drew(figure, FIGURES.values[figure.key][0])
    return seeded


def _figure(figure: FigureKey, draw):
    """The figure of ``figure``: memoised, stood in for (:func:`_may_stand_in`), or drawn by
    ``draw()`` and memoised."""
    if _may_stand_in(figure):
        return STAND_INS.call(figure.key, lambda: _stand_in(figure))
    value = FIGURES.call(figure.key, draw, same=_figures_same)
    _drew(figure, value)
    return value


#: The figures :func:`seed_figures` memoised from each tree's files: root -> {key: the names of
#: the populations (``pool``, ``v1``, ...) whose figure it is}.
SEEDED: dict[str, dict[bytes, set[str]]] = {}

#: While :func:`figures_from` is on: the keys an ``uncached`` test may take from the memo, and the
#: list of those taken; None otherwise.
_serving: tuple[frozenset[bytes], list[bytes]] | None = None


@contextlib.contextmanager
def figures_from(root):
    """Within it, a batch of figures drawn with the memo off (an ``uncached`` test,
    ``render_many``) takes each figure that :func:`seed_figures` memoised from the files of the
    tree at ``root`` from those files, and draws every other one for real. For the determinism
    test on the grown tree: the figures it shares with the repository's tree (release v1's) are
    the repository's committed files, which the same test on the repository draws twice for real
    and compares with; drawing them again on the grown tree would compare the same inputs with
    the same bytes. Yields the list of keys served, so that the test can say which they were."""
    global _serving
    before, _serving = _serving, (frozenset(SEEDED.get(str(root), ())), [])
    try:
        yield _serving[1]
    finally:
        _serving = before


def _served_or_drawn(jobs, real_many):
    """``real_many(jobs)``, but for the figures :func:`figures_from` serves that the memo holds:
    those are taken from it."""
    keys, served_log = _serving
    figures = [_figure_keys(spec, data, notes) for spec, data, notes in jobs]
    served = {i: FIGURES.values[f.key][0] for i, f in enumerate(figures) if f.key in keys and f.key in FIGURES.values}
    served_log.extend(figures[i].key for i in served)
    drawn = iter(real_many([job for i, job in enumerate(jobs) if i not in served]))
    return [served[i] if i in served else next(drawn) for i in range(len(jobs))]


def _figures_same(a, b) -> bool:
    return a[0] == b[0] and list(a[1]) == list(b[1])


#: id(population) -> (population, its canonical form): a release's population (frozen, and shared
#: read-only by every build that holds the release) is canonicalised once for the keys of its tree.
_POPULATION_FORMS: OrderedDict = OrderedDict()


def _once_per_object(known: OrderedDict, obj, compute: Callable):
    """``compute(obj)``, computed once per object (``known``: id -> (object, value), the 64 most recent;
    the object is held, so that its id is not reused while it is known)."""
    entry = known.get(id(obj))
    if entry is None or entry[0] is not obj:
        entry = known[id(obj)] = (obj, compute(obj))
        if len(known) > 64:
            known.popitem(last=False)
    return entry[1]


def _release_tree_key(cache, build, results) -> bytes:
    """:func:`masrl.build.cache.release_key` of a release tree (exactly what the build cache keys it
    by), with the canonical form of ``results.population`` (most of that key's time: every record of
    the release) computed once per population object."""
    population = results.population
    form = _once_per_object(_POPULATION_FORMS, population, cache._canonical)  # noqa: SLF001
    real = cache._canonical  # noqa: SLF001
    cache._canonical = lambda value: form if value is population else real(value)  # noqa: SLF001
    try:
        return cache.release_key(build, results, "tests/memo.py").encode()
    finally:
        cache._canonical = real  # noqa: SLF001


def install() -> None:
    """Wrap the memoised stages (idempotent). Raises AttributeError if one was renamed, so that
    a refactoring of masrl cannot silently turn the memo off."""
    from masrl.build import outputs, pipeline
    from masrl.checks import validate as validation
    from masrl.corpus import yamlio
    from masrl.render.figures import draw

    if getattr(pipeline.build, "__memo__", False):
        return
    from masrl.build import cache

    real_build, real_text, real_analyse = pipeline.build, outputs.render_text, pipeline.analyse
    real_tree = outputs.render_tree
    real_render, real_many = draw.render, draw.render_many
    real_parse = yamlio.parse
    real_validate = validation.validate

    def build(corpus, traces_valid=None):
        key = corpus_digest(corpus)
        full = None if key is None else digest(key, sorted(dict(traces_valid or {}).items()))
        result = BUILDS.call(full, lambda: real_build(corpus, traces_valid),
                             same=lambda a, b: real_text(a, corpus.readme) == real_text(b, corpus.readme))
        if full is not None and enabled:
            _build_keys[id(result)] = full
        return result

    def analyse(*args, **kwargs):
        key = digest(args, sorted(kwargs.items()))
        return ANALYSES.call(key, lambda: real_analyse(*args, **kwargs), same=lambda a, b: True)

    def render_text(build, readme=None, trees=None):
        if trees:  # release trees from the build cache (tests/test_build_cache.py): not memoised
            return real_text(build, readme, trees)
        key = _build_keys.get(id(build))
        full = None if key is None or BUILDS.values.get(key, (None,))[0] is not build else digest(key, readme)
        return TEXTS.call(full, lambda: real_text(build, readme))

    def render_tree(build, results):
        if results.name == outputs.POOL:  # the pool's tree: a part of render_text's memo
            return real_tree(build, results)
        try:
            key = _release_tree_key(cache, build, results) if enabled else None
        except Exception:  # noqa: BLE001 - a population the key cannot read is not memoised
            key = None
        return TREES.call(key, lambda: real_tree(build, results))

    def render(spec, data, notes=()):
        return _figure(_figure_keys(spec, data, notes), lambda: real_render(spec, data, notes))

    def render_many(jobs):
        if not enabled:
            return _served_or_drawn(jobs, real_many) if _serving is not None else real_many(jobs)
        figures = [_figure_keys(spec, data, notes) for spec, data, notes in jobs]
        # Those to draw, neither memoised nor stood in for, are drawn together (real_many may share them out).
        missing = [i for i, figure in enumerate(figures) if figure.key is None
                   or figure.key not in FIGURES.values and not _may_stand_in(figure)]
        started = time.perf_counter()
        with stand_ins_allowed(False):  # real_many draws through render (this module's): for real
            drawn = dict(zip(missing, real_many([jobs[i] for i in missing]))) if missing else {}
        cost = (time.perf_counter() - started) / max(1, len(missing))
        out = []
        for i, figure in enumerate(figures):
            if i in drawn:
                if figure.key is not None:
                    FIGURES.put(figure.key, drawn[i], cost)
                    _drew(figure, drawn[i])
                out.append(drawn[i])
            else:
                out.append(_figure(figure, lambda job=jobs[i]: real_render(*job)))
        return out

    def parse(data, file):
        if not enabled:
            return real_parse(data, file)
        key = digest(bytes(data), file)
        parsed = _unpack(PARSES.call(key, lambda: _pack(real_parse(data, file)),
                                     same=lambda a, b: _unpack(a) == _unpack(b)))
        if key is not None and parsed[0] is not None and not parsed[1]:
            _remember_source(parsed[0], key)
        return parsed

    def validate(corpus, skip=frozenset()):
        import datetime

        key = corpus_digest(corpus, sorted(skip), datetime.date.today().isoformat(), reading=True)
        return list(VALIDATIONS.call(key, lambda: tuple(real_validate(corpus, skip))))

    real_dump = yamlio.dump_record

    def dump_record(record):
        return DUMPS.call(digest(record), lambda: real_dump(record))

    dump_record.__wrapped__, dump_record.__doc__, dump_record.__memo__ = real_dump, real_dump.__doc__, True
    yamlio.dump_record = dump_record
    _rebind(real_dump, dump_record)
    parse.__wrapped__, parse.__doc__ = real_parse, real_parse.__doc__
    validate.__wrapped__, validate.__doc__ = real_validate, real_validate.__doc__
    for wrapper in (build, analyse, render_text, render_tree, render, render_many, parse, validate):
        wrapper.__memo__ = True
    build.__wrapped__, render_text.__wrapped__, analyse.__wrapped__ = real_build, real_text, real_analyse
    analyse.__doc__ = real_analyse.__doc__
    render.__wrapped__, render_many.__wrapped__, render_tree.__wrapped__ = real_render, real_many, real_tree
    render_tree.__doc__ = real_tree.__doc__
    build.__doc__, render_text.__doc__ = real_build.__doc__, real_text.__doc__
    render.__doc__, render_many.__doc__ = real_render.__doc__, real_many.__doc__
    pipeline.build, pipeline.analyse, outputs.render_text, outputs.render_tree = build, analyse, render_text, render_tree
    draw.render, draw.render_many = render, render_many
    yamlio.parse = parse
    validation.validate = validate
    _rebind(real_validate, validate)
    from masrl.render import csvout, markdown, tex

    for module, name in ((tex, "table_tex"), (csvout, "table_csv"), (markdown, "table_md")):
        real = getattr(module, name)
        wrapper = _table_wrapper(real)
        setattr(module, name, wrapper)
        _rebind(real, wrapper)
    from masrl.analyses import declared, stats

    for module, name, reads in ((declared, "declared_table", _declared_reads), (stats, "count_table", _count_reads),
                                (stats, "crosstab_table", _crosstab_reads)):
        real = getattr(module, name)
        wrapper = _analysis_wrapper(real, reads)
        setattr(module, name, wrapper)
        _rebind(real, wrapper)
    from masrl.bib import bibexport

    entries = _entries_wrapper(bibexport.entries)
    _rebind(entries.__wrapped__, entries)


def _pack(parsed):
    """A parse result ``(document, problems)`` as the parse memo stores it: the document's value
    encoded with msgspec (MessagePack; decoded for each caller, four times as fast as unpickling
    the whole document), its line and comment maps as they are (nothing in masrl or the tests
    changes them); or the whole result pickled when the value does not survive MessagePack
    unchanged (a tuple, an integer beyond 64 bits)."""
    import msgspec

    doc, problems = parsed
    if doc is not None and not problems:
        try:
            encoded = msgspec.msgpack.encode(doc.value)
            if _exactly(msgspec.msgpack.decode(encoded), doc.value):
                return ("msgpack", encoded, doc.lines, doc.comments)
        except (TypeError, ValueError, OverflowError, msgspec.MsgspecError):
            pass
    return ("pickle", pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL))


def _unpack(stored):
    """A fresh copy of a parse result from :func:`_pack`'s form."""
    import msgspec

    from masrl.corpus.yamlio import Document

    if stored[0] == "msgpack":
        return Document(msgspec.msgpack.decode(stored[1]), stored[2], stored[3]), []
    return pickle.loads(stored[1])


def _exactly(a, b) -> bool:
    """Whether ``a`` and ``b`` are equal with the same types throughout (``True`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(type(k) is type(j) for k, j in zip(a, b)) and all(_exactly(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_exactly(x, y) for x, y in zip(a, b))
    return a == b


#: id(frame) -> (frame, its digest): a table's frame is written as CSV, Markdown and LaTeX, and
#: pickled once for the three keys (frames are read-only, as every memoised value is).
_FRAME_KEYS: OrderedDict = OrderedDict()


def _table_wrapper(real: Callable) -> Callable:
    """``real(frame, *args)`` memoised in :data:`TABLES` by the pickled frame and the arguments."""

    def wrapper(frame, *args, **kwargs):
        if not enabled:
            return real(frame, *args, **kwargs)
        key = _once_per_object(_FRAME_KEYS, frame, digest)
        return TABLES.call(None if key is None else digest(real.__name__, key, args, sorted(kwargs.items())),
                           lambda: real(frame, *args, **kwargs))

    wrapper.__wrapped__, wrapper.__doc__, wrapper.__name__, wrapper.__memo__ = real, real.__doc__, real.__name__, True
    return wrapper


#: id(taxonomy) -> (taxonomy, digest of its data): a build's vocabulary is digested once for the keys of
#: its analysis tables (:func:`_analysis_wrapper`).
_TAXONOMY_KEYS: OrderedDict = OrderedDict()


def _taxonomy_key(tax) -> bytes | None:
    return _once_per_object(_TAXONOMY_KEYS, tax, lambda t: digest(t.data))


def _strings(value, out: set[str]) -> set[str]:
    """Every string in ``value`` (a declaration: dataclasses, mappings, sequences), keys included."""
    if isinstance(value, str):
        out.add(value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            _strings(getattr(value, item.name), out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings(k, out)
            _strings(v, out)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            _strings(v, out)
    return out


def _declared_reads(decl, retained, records, tax):
    """What :func:`masrl.analyses.declared.declared_table` reads: the declaration, the taxonomy, the
    frame's index and the columns the declaration names anywhere (a field is named by its name:
    the rows' field, ``where`` filters, column arguments; a years table reads ``year`` too), and
    the records themselves for a table of records."""
    names = _strings(decl, {"year"} if decl.kind == "years" else set())
    columns = [c for c in retained.columns if c in names]
    return (decl, _taxonomy_key(tax), retained.index, retained[columns], records if decl.kind == "records" else None)


def _count_reads(frame, field, tax, population):
    """What :func:`masrl.analyses.stats.count_table` reads: one column, the taxonomy, the population's name."""
    return (field, population, _taxonomy_key(tax), frame[field])


def _crosstab_reads(frame, rows, cols, tax):
    """What :func:`masrl.analyses.stats.crosstab_table` reads: two columns (and the index they are paired by)."""
    return (rows, cols, _taxonomy_key(tax), frame[[rows, cols]])


def _analysis_tables_same(a, b) -> bool:
    """Two :class:`masrl.analyses.table.Table` values with the same fields and exactly equal frames."""
    return (type(a) is type(b) and a.frame.equals(b.frame) and list(a.frame.dtypes) == list(b.frame.dtypes)
            and a.frame.index.equals(b.frame.index) and list(a.frame.columns) == list(b.frame.columns)
            and list(a.frame.index.names) == list(b.frame.index.names) and a.frame.columns.name == b.frame.columns.name
            and all(getattr(a, f.name) == getattr(b, f.name) for f in dataclasses.fields(a) if f.name != "frame"))


def _analysis_wrapper(real: Callable, reads: Callable) -> Callable:
    """``real`` (one analysis table of a population) memoised in :data:`ANALYSIS_TABLES` by what it
    reads (``reads(*args)``: the columns of the frame it uses, not the whole frame), so that a
    changed record recomputes only the tables that read one of its changed fields (the issue's "a
    test that needs one changed record rebuilds only what that record touches")."""

    def wrapper(*args, **kwargs):
        if not enabled:
            return real(*args, **kwargs)
        try:
            key = digest(real.__name__, reads(*args, **kwargs))
        except Exception:  # noqa: BLE001 - arguments the key cannot read are not memoised
            key = None
        return ANALYSIS_TABLES.call(key, lambda: real(*args, **kwargs), same=_analysis_tables_same)

    wrapper.__wrapped__, wrapper.__doc__, wrapper.__name__, wrapper.__memo__ = real, real.__doc__, real.__name__, True
    return wrapper


def _entries_wrapper(real: Callable) -> Callable:
    """``masrl.bib.bibexport.entries(records)`` as the entry of each record alone, memoised in
    :data:`BIB_ENTRIES` by the record, joined in key order by the blank line between entries (the
    file is its entries, each written on its own: a changed pool writes only its changed records'
    entries again). Records of which two share a name (the error the real function raises), and
    ``MASRL_TEST_MEMO=verify``, go to the real function (``verify`` compares the two)."""

    def entries(records):
        records = list(records)
        if not enabled or len(records) < 2:
            return real(records)
        names = []
        for r in records:
            key, alias = r.get("key"), r.get("bibtex_key")
            if not isinstance(key, str) or (alias and not isinstance(alias, str)):
                return real(records)
            names += [key.lower()] + ([alias.lower()] if alias and alias != key else [])
        if len(set(names)) < len(names):  # a name used twice: the real function's error
            return real(records)
        joined = "\n".join(BIB_ENTRIES.call(digest(r), lambda r=r: real([r]))
                           for r in sorted(records, key=lambda r: r["key"]))
        if MODE == "verify" and joined != real(records):
            raise AssertionError("memo bibtex entry: the joined entries differ from the real function's")
        return joined

    entries.__wrapped__, entries.__doc__, entries.__name__, entries.__memo__ = real, real.__doc__, real.__name__, True
    return entries


def _rebind(real: Callable, wrapper: Callable) -> None:
    """Point every name of an already imported masrl module that holds ``real`` (``from
    ..checks.validate import validate``) at ``wrapper``; modules imported later take it from
    the patched module."""
    import sys

    for name, module in list(sys.modules.items()):
        if module is not None and (name == "masrl" or name.startswith("masrl.")):
            for attr, value in list(vars(module).items()):
                if value is real:
                    setattr(module, attr, wrapper)


def counters() -> dict[str, list[float]]:
    """``{store name: [hits, misses, seconds the misses cost, seconds the hits saved]}`` of this process."""
    return {s.name: [s.hits, s.misses, s.spent, s.saved] for s in STORES}


def summary(others: list[dict[str, list[float]]] = ()) -> str | None:
    """One line of hits, misses and the time the hits saved (this process's counters plus
    ``others``: those of pytest-xdist's workers), or None when nothing was memoised."""
    total = counters()
    for other in others:
        for name, values in other.items():
            total[name] = [a + b for a, b in zip(total.get(name, [0, 0, 0.0, 0.0]), values)]
    if not any(hits or misses for hits, misses, _, _ in total.values()):
        return None
    return "memo: " + "; ".join(f"{name} {hits:.0f} hit(s), {misses:.0f} miss(es) ({spent:.0f} s), {saved:.0f} s saved"
                                for name, (hits, misses, spent, saved) in total.items())


#: The LaTeX decoder with its cache, while :func:`process_caches` has it off (None while on).
_saved: Callable | None = None


def process_caches(on: bool) -> None:
    """Turn masrl's own in-process memos (:class:`masrl.core.memo.Memo`: schema validity, each record's
    problems, a vocabulary's problems, snapshot digests, release analyses, migrated taxonomies, the
    suggestions' leave-one-out figures; and LaTeX decoding; normalised titles, LaTeX encoding,
    Markdown escapes and the figure toolchain, emptied at each call while off) off or back on
    (idempotent). Off while the test memo is off: a test that patches masrl, or computes everything
    itself, is answered by the code it runs, computes every value again, and leaves nothing its
    patched code computed to the tests after it."""
    global _saved
    from masrl.bib import latex, matching
    from masrl.build import figures
    from masrl.core import memo as process_memo
    from masrl.render import escape

    if not on or _saved is not None:  # nothing remembered while off is kept after it, nor before it
        for cached in (latex.encode_latex, matching.normalize_title, escape._md_text, figures._identity):  # noqa: SLF001
            cached.cache_clear()
    if not on and _saved is None:
        _saved = latex._decode  # noqa: SLF001
        latex._decode = latex._decode.__wrapped__  # noqa: SLF001
    elif on and _saved is not None:
        latex._decode = _saved  # noqa: SLF001
        _saved = None
    process_memo.set_enabled(on)


def _off() -> None:
    global enabled
    if enabled:
        enabled = False
        process_caches(False)


def _above_the_memo() -> tuple[str, ...]:
    """The packages of the layers above ``masrl.build`` (pyproject.toml's layers contract, which
    tests/test_architecture.py enforces with import-linter): the memoised stages and the process
    caches live in ``masrl.build`` and below, and cannot import these, so a patch there cannot
    change what they compute for given inputs (the memo is keyed by the inputs)."""
    import tomllib
    from pathlib import Path

    config = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")["layers"]
    above = []
    for layer in layers:
        names = [part.strip() for part in layer.split("|")]
        if "masrl.build" in names:
            return tuple(above)
        above += names
    raise LookupError("pyproject.toml's layers contract names no masrl.build layer")


ABOVE = _above_the_memo()
#: Packages above ``masrl.build`` that hold a process memo of their own (:class:`masrl.core.memo.Memo`:
#: the leave-one-out figures of the tag suggestions): a patch there turns the memos off too.
MEMOISED_ABOVE = ("masrl.review.suggest",)


def _module_of(target) -> str:
    if isinstance(target, str):
        return target
    return getattr(target, "__name__", "") if isinstance(target, type(os)) else getattr(target, "__module__", "") or ""


def _is_masrl(target) -> bool:
    """Whether a monkeypatch target can change what the memoised stages compute: a name under
    ``masrl.``, or a module, class or function whose module is masrl or one of its sub-modules,
    except those of the layers above ``masrl.build`` (:data:`ABOVE`: the CLI, the commands and the
    review's network layer, which the memoised stages never import) that hold no process memo of
    their own (:data:`MEMOISED_ABOVE`)."""
    module = _module_of(target)
    if not (module == "masrl" or module.startswith("masrl.")):
        return False
    if any(module == name or module.startswith(name + ".") for name in MEMOISED_ABOVE):
        return True
    return not any(module == name or module.startswith(name + ".") for name in ABOVE)


def watch_monkeypatch() -> None:
    """Turn the memo off for the rest of a test as soon as it patches masrl (idempotent): wraps
    ``pytest.MonkeyPatch.setattr``, ``delattr`` and ``setitem`` (a dict of masrl's modules is
    found by identity among their globals)."""
    import sys

    import pytest

    mp = pytest.MonkeyPatch
    if getattr(mp.setattr, "__memo__", False):
        return
    real_setattr, real_delattr, real_setitem = mp.setattr, mp.delattr, mp.setitem

    def masrl_dict(dic) -> bool:
        return any(name.startswith("masrl") and any(v is dic for v in vars(module).values())
                   for name, module in list(sys.modules.items()) if module is not None)

    def setattr(self, target, *args, **kwargs):  # noqa: A001 - pytest's own name
        if _is_masrl(target):
            _off()
        return real_setattr(self, target, *args, **kwargs)

    def delattr(self, target, *args, **kwargs):  # noqa: A001
        if _is_masrl(target):
            _off()
        return real_delattr(self, target, *args, **kwargs)

    def setitem(self, dic, name, value):
        if dic is not os.environ and masrl_dict(dic):
            _off()
        return real_setitem(self, dic, name, value)

    for wrapper in (setattr, delattr, setitem):
        wrapper.__memo__ = True
    mp.setattr, mp.delattr, mp.setitem = setattr, delattr, setitem
