"""Everything ``masrl build`` generates, in memory: validated corpus -> ``{path: bytes}``.

Shared by ``masrl build`` (write or ``--check``) and ``masrl resolve`` (regenerate
after a merge). Reads only through :mod:`masrl.load` (via the figure cache) and
writes nothing; :mod:`masrl.write` writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import write
from .errors import UserError
from .load import Corpus


@dataclass(frozen=True)
class Generated:
    """The outputs of one build and the build they were rendered from.

    ``outputs`` maps every generated path to its bytes, or to None for a figure
    known to be stale that ``--check`` did not redraw.
    """

    outputs: dict
    build: object


def generate(root: Path, corpus: Corpus, check: bool = False, rerender: bool = False) -> Generated:
    """Render every generated file of a corpus that validates.

    Raises:
        UserError: if README.md is missing or lacks the paper-list markers.
    """
    from .commands.figures import figure_outputs
    from .examples import examples_valid, trace_report_files, validated_examples
    from .outputs import render_text, tree
    from .pipeline import build
    from .render.readme import MarkersMissing
    from .render.site import figure_files as site_figure_files

    validated = validated_examples()
    result = build(corpus, examples_valid(validated))
    if corpus.readme is None:
        raise UserError("README.md is missing at the survey root; it holds the generated paper list")
    try:
        outputs: dict[str, bytes | None] = dict(render_text(result, corpus.readme))
    except MarkersMissing as err:
        raise UserError(str(err)) from err
    outputs.update(trace_report_files(validated))
    cache: dict = {}
    for results in (result.pool, *result.releases):
        baseline = result.baseline if results is result.pool else None
        outputs.update(figure_outputs(root, results, check, rerender, folder=f"{tree(results)}figures", cache=cache,
                                      baseline=baseline))
    outputs.update(site_figure_files(outputs))
    outputs[write.GENERATED] = write.generated_list(outputs)
    return Generated(outputs, result)
