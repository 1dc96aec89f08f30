"""Rendering of every figure: identical bytes on every run, literal text, missing glyphs
collapsed into one report, and drawing from data other than the survey's."""

from __future__ import annotations

import copy
import warnings
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.text import Text

from masrl.render import figures
from masrl.render.figures import draw
from figure_specs import FIGURES, spec_of


NAMES = [spec.name for spec in FIGURES]
LITERAL = ["cost_$5 #1 100%", "a_b $x$ #2 50%", "$", "100% _under_ #hash"]
CJK = "多智能体"


def shown(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


@pytest.mark.parametrize("name", NAMES)
def test_render_is_deterministic(name, figure_data, figure_notes, published_tree):
    """A render is the bytes another process drew from the same data: release v1's figure as
    ``masrl build`` wrote it in the published tree (tests/trees.py). Two renders in one process are
    tests/test_build.py's determinism test; the committed figures are tests/test_live_corpus.py's."""
    spec = spec_of(name)
    first, missing = draw.render(spec, figure_data[name], figure_notes[name])
    assert set(first) == {"svg", "pdf", "png"}
    assert missing == []
    for fmt in first:
        assert first[fmt], fmt
        assert first[fmt] == (published_tree / f"reports/releases/v1/figures/{name}.{fmt}").read_bytes(), \
            f"{name}.{fmt} differs from release v1's drawn by masrl build"
    assert first["png"].startswith(b"\x89PNG") and first["pdf"].startswith(b"%PDF")
    assert b"<svg" in first["svg"][:2000]


# --- literal text: $ # _ % are drawn as written, never parsed as mathtext -----------------------

def _literal_variant(name: str, data, labels: list[str]):
    """A copy of figure ``name``'s real data whose display labels are ``labels`` (cycled)."""
    pick = lambda k: labels[k % len(labels)]  # noqa: E731
    if name == "topology_counts":
        data["topology"] = [pick(k) for k in range(len(data))]
    elif name == "category_counts":
        data["label"] = [pick(k) for k in range(len(data))]
    elif name == "credit_hierarchy":
        data["label"] = [pick(k) for k in range(len(data))]
        data["bracket"] = [pick(0) if b == data["bracket"].iloc[0] else pick(1) for b in data["bracket"]]
    elif name == "subdecision_chain":
        data["sub-decision"] = [pick(k) for k in range(len(data))]
        data["anchors"] = [pick(k + 1) for k in range(len(data))]
    elif name == "reward_credit_heatmap":
        data["rows"] = [f"{pick(k)}{k}" for k in range(len(data["rows"]))]
        data["columns"] = [f"{pick(k)}{k}" for k in range(len(data["columns"]))]
    elif name == "records_per_year":
        data.columns = [f"{pick(k)}{k}" for k in range(len(data.columns))]
    elif name == "prisma_flow":
        for k, stage in enumerate(data["stages"]):
            stage["label"] = pick(k)
        data["reason_classes"] = {cls: pick(k) for k, cls in enumerate(data["reason_classes"])}
        data["category_labels"] = {code: pick(k) for k, code in enumerate(data["category_labels"])}
    return data


def _copy(data):
    return copy.deepcopy(data) if isinstance(data, dict) else data.copy(deep=True)


@pytest.mark.parametrize("name", NAMES)
def test_literal_special_characters(name, figure_data, drawn):
    data = _literal_variant(name, _copy(figure_data[name]), LITERAL)
    files, missing = draw.render(spec_of(name), data)
    assert missing == [] and all(files.values())
    text = "\n".join(shown(drawn(name, data))).replace("\n", " ")
    for label in LITERAL[:2]:
        assert label in text, label  # held literally (a mathtext parse would have dropped the $)


def test_topology_literal_labels_exact(figure_data, drawn):
    data = figure_data["topology_counts"].copy(deep=True)
    data["topology"] = [f"cost_$5 #{k} 100%" for k in range(len(data))]
    fig = drawn("topology_counts", data)
    ticks = [t for t in fig.axes[0].get_yticklabels()]
    assert sorted(t.get_text() for t in ticks) == sorted(data["topology"])
    assert all(t.get_parse_math() is False for t in fig.findobj(Text))


# --- glyphs the font lacks: reported once, no warning flood ------------------------------------

@pytest.mark.parametrize("name", ["topology_counts", "credit_hierarchy", "subdecision_chain", "prisma_flow",
                                  "records_per_year", "reward_credit_heatmap"])
def test_cjk_labels_collapse_glyph_warnings(name, figure_data):
    data = _literal_variant(name, _copy(figure_data[name]), [CJK, f"{CJK} agents"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        files, missing = draw.render(spec_of(name), data)
    assert all(files.values())
    assert set(missing) == set(CJK)
    assert [str(w.message) for w in caught] == []


# --- data other than the survey's: drawn only from what is passed --------------------------------

def test_records_per_year_other_span(figure_data, drawn):
    table = figure_data["records_per_year"]
    years = range(2010, 2013)
    data = figures.year_bins(pd.DataFrame({c: [1, 0, 2] for c in table.columns[:2]}, index=pd.Index(years, name="year")))
    fig = drawn("records_per_year", data, notes=["n = 6"])
    ax = fig.axes[0]
    assert [round(p.get_height()) for p in ax.containers[1]] == [1, 0, 2]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2010", "2011", "2012"]
    assert [p.get_gid() for p in ax.patches if (p.get_gid() or "").startswith("empty:")] == ["empty:2011"]


def test_year_bins_fold_early_years_into_one_slot():
    table = pd.DataFrame({"a": [1, 0, 2, 0, 5], "b": [0, 0, 1, 1, 0]},
                         index=pd.Index([2001, 2002, 2003, 2004, 2005], name="year"))
    binned = figures.year_bins(table, shown=3)
    assert list(binned.index) == ["before 2003", "2003", "2004", "2005"]
    assert binned.to_dict(orient="list") == {"a": [1, 2, 0, 5], "b": [0, 1, 1, 0]}
    assert list(figures.year_bins(table, shown=5).index) == ["2001", "2002", "2003", "2004", "2005"]


def test_heatmap_without_na_and_all_zero(figure_data, drawn):
    data = {"counts": [[0, 0, 0], [0, 0, 0]], "rows": ["a", "b"], "columns": ["x", "y", "z"],
            "row_codes": ["a", "b"], "column_codes": ["x", "y", "z"], "structural": "NA",
            "row_title": "Rows", "column_title": "Columns"}
    fig = drawn("reward_credit_heatmap", data, notes=["n = 0"])
    gaps = [p for p in fig.axes[0].patches if (p.get_gid() or "").startswith("gap:")]
    assert len(gaps) == 6
    assert fig.axes[0].get_title(loc="left") == "Rows × columns"


def test_prisma_other_flow(figure_data, drawn):
    data = copy.deepcopy(figure_data["prisma_flow"])
    data["stages"] = data["stages"][:2]
    data["stages"][1]["by_reason_class"] = {cls: 0 for cls in data["stages"][1]["by_reason_class"]}
    data["stages"][1]["excluded"] = 0
    fig = drawn("prisma_flow", data)
    text = "\n".join(shown(fig))
    assert f"Excluded at {data['stages'][1]['label']} (n = 0)" in text
    assert "reasons:" + data["stages"][1]["stage"] not in {t.get_gid() for t in fig.findobj(Text)}
    arrows = [t for t in fig.axes[0].texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == 5


def test_a_long_value_label_in_the_years_legend_is_wrapped_and_the_year_labels_never_meet(figure_data, drawn):
    """A label of 43 characters ("learned from data with a pretrained encoder") was one legend line that squeezed the
    plot to 60% of the figure, until "before 2017", "2017", "2018" ... ran into each other."""
    table = figure_data["records_per_year"]
    long = "learned from data with a pretrained encoder"
    data = table.rename(columns={table.columns[0]: long, table.columns[1]: "a second label that is long as well, too"})
    fig = drawn("records_per_year", data, notes=["n = 6"])
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0].replace("\n", " ") == long and "\n" in legend[0]
    renderer = fig.canvas.get_renderer()
    extents = [t.get_window_extent(renderer) for t in ax.get_xticklabels()]
    assert len(extents) == len(data.index) and all(a.x1 < b.x0 for a, b in zip(extents, extents[1:]))
    assert ax.get_window_extent(renderer).width > 0.6 * fig.get_window_extent(renderer).width


def test_the_years_note_speaks_of_one_early_record_in_the_singular():
    from types import SimpleNamespace

    from masrl.render.figures import _year_notes

    def notes(counts):
        frame = pd.DataFrame({"a": counts}, index=pd.Index(range(1999, 1999 + len(counts)), name="year"))
        results = SimpleNamespace(headline={"retained": sum(counts)}, table=lambda name: SimpleNamespace(frame=frame))
        return _year_notes(results, SimpleNamespace(table="t"))[1]

    assert notes([1] + [0] * 11 + [3] * 10).startswith("The 1 record published 1999 is counted in the first bar")
    assert notes([1, 1] + [0] * 10 + [3] * 10).startswith("The 2 records published 1999–2000 share the first bar")
