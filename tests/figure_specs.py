"""The figures the test survey (tests/data/survey) declares, for the figure tests (a plain module: ``from conftest
import`` takes whichever folder's conftest pytest imported last when several folders are selected)."""

from __future__ import annotations

from pathlib import Path

from masrl.corpus.load import read_taxonomy
from masrl.corpus.taxonomy import Taxonomy
from masrl.render import figures

#: The figures the test survey declares, in its order.
FIGURES = figures.figures_of(Taxonomy(read_taxonomy(Path(__file__).resolve().parent / "data/survey")))


def spec_of(name: str) -> figures.FigureSpec:
    """The declared figure called ``name`` (StopIteration if there is none)."""
    return next(spec for spec in FIGURES if spec.name == name)
