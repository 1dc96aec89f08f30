"""Everything ``masrl build`` generates, in memory: validated corpus -> ``{path: bytes}``.

Shared by ``masrl build`` (write or ``--check``) and ``masrl resolve`` (regenerate
after a merge). Reads nothing and writes nothing: the loader (:mod:`masrl.corpus.load`)
reads the corpus and the figure files, and :mod:`masrl.build.write` writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from . import cache, write
from .cache import Identity
from ..core.errors import UserError
from ..corpus.load import Corpus
from ..corpus.taxonomy import Taxonomy


@dataclass(frozen=True)
class Generated:
    """The outputs of one build and the build they were rendered from.

    ``outputs`` maps every generated path to its bytes, or to None for a figure
    known to be stale that ``--check`` did not redraw. ``cache`` holds the build-cache
    entries (:mod:`masrl.build.cache`) that were missing or outdated, for the writer.
    """

    outputs: dict
    build: object
    cache: dict = field(default_factory=dict)


def generate(corpus: Corpus, figure_files: Mapping[str, bytes], check: bool = False, rerender: bool = False,
             identity: Identity | None = None) -> Generated:
    """Render every generated file of a corpus that validates.

    ``figure_files`` are the figure files as they are now (:func:`masrl.corpus.load.read_figure_files`):
    figures whose data, code and files are unchanged are reused instead of drawn. With
    ``identity`` (the code's and toolchain's digest and the build cache's entries), the text
    reports of a frozen release are taken from its cache entry when the entry was recorded
    for the same inputs (:func:`masrl.build.cache.release_key`), and rendered otherwise.

    Raises:
        UserError: if README.md is missing or lacks the paper-list markers.
    """
    from .figures import figure_outputs
    from .examples import examples_valid, trace_report_files, validated_examples
    from .outputs import render_text, tree
    from .pipeline import build
    from ..render.readme import MarkersMissing
    from ..render.site import figure_files as site_figure_files

    traces = Taxonomy(corpus.taxonomy).traces
    validated = validated_examples() if traces else {}
    result = build(corpus, examples_valid(validated))
    if corpus.readme is None:
        raise UserError("README.md is missing at the survey root; it holds the generated paper list")
    trees, entries = _release_trees(result, identity)
    try:
        outputs: dict[str, bytes | None] = dict(render_text(result, corpus.readme, trees))
    except MarkersMissing as err:
        raise UserError(str(err)) from err
    if traces:  # a survey with orchestration traces (taxonomy ``traces: true``) gets their report and schema
        outputs.update(trace_report_files(validated))
    cache: dict = {}
    for results in (result.pool, *result.releases):
        baseline = result.baseline if results is result.pool else None
        outputs.update(figure_outputs(figure_files, results, check, rerender, folder=f"{tree(results)}figures", cache=cache,
                                      baseline=baseline))
    outputs.update(site_figure_files(outputs, result.pool.tax))
    outputs[write.GENERATED] = write.generated_list(outputs)
    return Generated(outputs, result, entries)


def _release_trees(result, identity: Identity | None) -> tuple[dict[str, dict[str, bytes]], dict[str, bytes]]:
    """Each release's text reports (from the cache, or rendered) and the cache entries to write."""
    from .outputs import render_tree

    trees: dict[str, dict[str, bytes]] = {}
    entries: dict[str, bytes] = {}
    if identity is None:
        return trees, entries
    for results in result.releases:
        key = cache.release_key(result, results, identity.digest)
        path = cache.release_path(results.name)
        files = cache.release_files(identity.entries.get(path), key)
        if files is None:
            files = render_tree(result, results)
            entries[path] = cache.release_entry(key, files)
        trees[results.name] = files
    return trees, entries
