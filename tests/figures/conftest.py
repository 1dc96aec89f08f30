"""Fixtures of the figure tests: the real plotted data and footnotes of every figure, and drawing helpers."""

from __future__ import annotations

from importlib import import_module

import pytest

from masrl.render import figures
from figure_specs import FIGURES, spec_of  # noqa: F401 (spec_of: for the tests of this folder)

@pytest.fixture(scope="session")
def figure_results(published_build):
    """The build results of release v1, the survey as published."""
    return published_build.population("v1")


@pytest.fixture(scope="session")
def figure_data(figure_results) -> dict:
    """``{figure name: plotted data}`` of release v1."""
    return {spec.name: spec.data(figure_results) for spec in FIGURES}


@pytest.fixture(scope="session")
def figure_notes(figure_results) -> dict:
    """``{figure name: footnote lines}`` of release v1."""
    return {spec.name: spec.notes(figure_results) for spec in FIGURES}


#: Figures drawn for the tests, once per figure, data and footnote in a session.
_DRAWN: dict = {}


@pytest.fixture
def drawn(figure_notes):
    """``drawn(name, data, notes=None)``: the matplotlib Figure of figure ``name`` with its footnote
    (the real one unless ``notes`` is given), drawn inside the house style and laid out once on its
    Agg canvas as the build does, so text extents can be checked. The same figure of the same data
    and footnote is drawn once per session and shared: inspect it, never change it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from masrl.render.figures import style

    def draw(name: str, data, notes=None):
        notes = figure_notes[name] if notes is None else notes

        def fresh():
            spec = spec_of(name)
            module = import_module(f"masrl.render.figures.{spec.module}")
            with style.style_context():
                fig = module.draw(data, spec.options)
                style.add_footnote(fig, notes)
                FigureCanvasAgg(fig).draw()
                fig.set_layout_engine(None)
            return fig

        key = (name, figures.data_bytes(data), tuple(notes))
        if key not in _DRAWN:
            _DRAWN[key] = fresh()
        return _DRAWN[key]

    return draw
