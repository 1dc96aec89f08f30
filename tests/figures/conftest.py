"""Fixtures of the figure tests: the real plotted data of every figure, and drawing helpers."""

from __future__ import annotations

import copy
from importlib import import_module
from pathlib import Path

import pytest

from masrl.load import load
from masrl.pipeline import build
from masrl.render import figures

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def figure_data() -> dict:
    """``{figure name: plotted data}`` of release v1, the survey as published (its frozen
    snapshot: adding papers to the pool never changes it)."""
    results = build(load(REPO), {"survey_example": True}).population("v1")
    return {spec.name: spec.data(results) for spec in figures.FIGURES}


@pytest.fixture
def data_of(figure_data):
    """``data_of(name)``: a private copy of one figure's real data, free to modify."""

    def get(name: str):
        data = figure_data[name]
        return data.copy(deep=True) if hasattr(data, "copy") and not isinstance(data, dict) else copy.deepcopy(data)

    return get


def spec_of(name: str) -> figures.FigureSpec:
    return next(spec for spec in figures.FIGURES if spec.name == name)


@pytest.fixture
def drawn():
    """``drawn(name, data)``: the matplotlib Figure of figure ``name``, drawn inside the house style.

    The figure is also laid out and drawn once on its Agg canvas, so text extents can be checked.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from masrl.render.figures import style

    def draw(name: str, data):
        module = import_module(f"masrl.render.figures.{spec_of(name).module}")
        with style.style_context():
            fig = module.draw(data)
            FigureCanvasAgg(fig).draw()
        return fig

    return draw
