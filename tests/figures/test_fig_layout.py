"""What every figure says about itself and how its labels sit: the footnote with n and what is
left out, and no two texts on top of each other, in the real data and in the states other data
can take (0, 1 and many records per box and per RL status in the sub-decision chain)."""

from __future__ import annotations

import itertools
import re

import pandas as pd
import pytest
from matplotlib.text import Text

from masrl.render import figures

from figure_specs import FIGURES

NAMES = [spec.name for spec in FIGURES]
STATUSES = ("explicit RL", "partial", "none")


def visible_texts(fig) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def overlapping(fig, slack: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of visible texts whose bounding boxes overlap (each shrunk by ``slack`` pixels)."""
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer).expanded(1, 1).padded(-slack)) for t in visible_texts(fig)]
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]


def inside(artist, outer, renderer, slack: float = 1.0) -> bool:
    a, b = artist.get_window_extent(renderer), outer.get_window_extent(renderer)
    return a.x0 >= b.x0 - slack and a.x1 <= b.x1 + slack and a.y0 >= b.y0 - slack and a.y1 <= b.y1 + slack


def assert_inside_figure(fig) -> None:
    tight = fig.get_tightbbox(fig.canvas.get_renderer())
    width, height = fig.get_size_inches()
    assert tight.x0 >= -0.01 and tight.y0 >= -0.01 and tight.x1 <= width + 0.01 and tight.y1 <= height + 0.01, tight


def footnote(fig) -> Text:
    [note] = [t for t in fig.findobj(Text) if t.get_gid() == "footnote"]
    return note


# --- the footnote: n and what is left out ------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_every_figure_states_its_n_and_what_it_leaves_out(name, figure_data, figure_notes, drawn):
    notes = figure_notes[name]
    assert re.match(r"n = \d+ ", notes[0]), notes
    assert "left out" in notes[0].lower(), notes
    fig = drawn(name, figure_data[name])
    note = footnote(fig)
    assert " ".join(note.get_text().split()) == " ".join(" ".join(notes).split())
    # under everything else, inside the figure
    renderer = fig.canvas.get_renderer()
    top = note.get_window_extent(renderer).y1
    for text in visible_texts(fig):
        if text is not note:
            assert text.get_window_extent(renderer).y0 >= top - 0.5, text.get_text()
    assert_inside_figure(fig)


def test_footnote_counts_add_up(figure_results, figure_notes):
    retained = figure_results.retained
    n = len(retained)
    na_form = int((retained["orchestration_form"].astype(str) == "NA").sum())
    assert figure_notes["topology_counts"] == [
        f"n = {n} retained records; drawn: the {n - na_form} with an orchestration form. Left out: {na_form} with "
        "orchestration form 'not applicable' (no agent-team topology)."]
    assert int(figure_results.table("topologies").frame["count"].sum()) == n - na_form
    na_credit = int((retained["credit_granularity"].astype(str) == "NA").sum())
    assert figure_notes["credit_hierarchy"][0] == (
        f"n = {n} retained records; drawn: the {n - na_credit} with a credit unit, each under its finest unit. "
        f"Left out: {na_credit} with credit unit 'not applicable'.")
    tagged = int(retained["subdecisions"].map(len).gt(0).sum())
    assert figure_notes["subdecision_chain"][0].startswith(
        f"n = {n} retained records; {tagged} address at least one sub-decision")
    assert figure_notes["subdecision_chain"][0].endswith(f"Left out: {n - tagged} records tagged with no sub-decision.")
    early = retained[retained["year"] < int(retained["year"].max()) - 9]
    assert figure_notes["records_per_year"][1].startswith(
        f"The {len(early)} records published {early['year'].min()}–{early['year'].max()} share the first bar")


def test_extra_notes_are_appended_and_change_the_fingerprint(figure_data, figure_notes, drawn):
    extra = figure_notes["category_counts"] + ["published release v1: 84 retained records"]
    fig = drawn("category_counts", figure_data["category_counts"], notes=extra)
    assert footnote(fig).get_text().splitlines()[-1] == "published release v1: 84 retained records"
    spec = next(s for s in FIGURES if s.name == "category_counts")
    data = figure_data["category_counts"]
    assert figures.fingerprint(spec, data, "c", figure_notes["category_counts"]) != figures.fingerprint(spec, data, "c", extra)


# --- no label collisions -----------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_no_two_texts_overlap_with_the_real_data(name, figure_data, drawn):
    fig = drawn(name, figure_data[name])
    assert overlapping(fig) == []


def _chain(rows: list[tuple[int, int, int]], names=None, anchors=None) -> pd.DataFrame:
    """A sub-decision table with the given (explicit RL, partial, none) counts per box, gaps as the analysis sets them."""
    out = []
    for k, (yes, partial, none) in enumerate(rows):
        total = yes + partial + none
        out.append({"id": f"O{k + 1}", "sub-decision": (names or {}).get(k, f"decision {k + 1}"),
                    "anchors": (anchors or {}).get(k, "none" if not total else "alpha, beta-gamma"),
                    "records": total, "explicit RL": yes, "partial": partial, "none": none,
                    "gap": "gap: no record" if total == 0 else ("gap: no explicit-RL record" if yes == 0 else "")})
    return pd.DataFrame(out).set_index("id")


_COMBOS = list(itertools.product((0, 1, 57), repeat=3))  # 0, 1 and many records per RL status
CHAIN_STATES = {
    **{f"combos-{k}": _chain(_COMBOS[k:k + 5]) for k in range(0, len(_COMBOS), 5)},
    "all-empty": _chain([(0, 0, 0)] * 5),
    "one-non-RL-record-in-O5": _chain([(1, 2, 0), (2, 0, 0), (1, 0, 1), (2, 0, 0), (0, 0, 1)]),
    "one-box": _chain([(0, 1, 0)]),
    "eight-boxes": _chain([(1, 0, 0), (0, 0, 0), (0, 1, 1), (300, 200, 100), (0, 0, 1), (1, 1, 1), (9, 0, 0), (0, 0, 0)]),
    "long-texts": _chain([(1, 1, 1), (0, 0, 1), (12, 0, 0), (0, 0, 0), (0, 3, 0)],
                         names={0: "when and how many sub-agents to spawn under a budget", 3: "aggregation"},
                         anchors={0: "kimi-k2-5, agentspawn, halo, wideseek-r1-2026, a-very-long-record-key-without-any-space-2026",
                                  1: "x" * 60, 4: "one, two, three, four, five, six, seven, eight, nine, ten"}),
}


@pytest.mark.parametrize("state", list(CHAIN_STATES))
def test_subdecision_labels_never_collide(state, drawn):
    table = CHAIN_STATES[state]
    fig = drawn("subdecision_chain", table, notes=["n = 1000 retained records; left out: none.", "× = a gap."])
    assert overlapping(fig) == []
    renderer = fig.canvas.get_renderer()
    boxes = {a.get_gid()[4:]: a for a in fig.findobj(lambda a: (a.get_gid() or "").startswith("box:"))}
    assert list(boxes) == list(table.index)
    for artist in fig.findobj(lambda a: re.match(r"(id|name|records|statuses|gap|anchors|track|bar):", a.get_gid() or "")):
        oid = artist.get_gid().split(":")[1]
        assert inside(artist, boxes[oid], renderer), artist.get_gid()
    texts = {t.get_gid(): t.get_text() for t in visible_texts(fig) if t.get_gid()}
    for oid, row in table.iterrows():
        # one line per status, wrapped in narrow boxes
        assert " ".join(texts[f"statuses:{oid}"].split()) == " ".join(f"{s}: {int(row[s])}" for s in STATUSES)
        assert (f"gap:{oid}" in texts) == bool(row["gap"])
    assert_inside_figure(fig)


LONG = "user study with a very very long label that goes on and on and on about what the study measured and more"


@pytest.mark.parametrize("name", ["reward_credit_heatmap", "topology_counts"])
def test_one_long_value_label_is_wrapped_and_cut_and_crops_no_other(name, figure_data, drawn):
    """A value label of 100 characters took the whole canvas: every column label was cut at the bottom ("chmark"),
    the axis titles vanished, and the build said nothing. It is wrapped to two lines and cut with an ellipsis."""
    data = figure_data[name]
    if name == "reward_credit_heatmap":
        data = {**data, "rows": [LONG, *data["rows"][1:]], "columns": [LONG, *data["columns"][1:]]}
    else:
        data = data.copy()
        data["topology"] = [LONG, *list(data["topology"])[1:]]
    fig = drawn(name, data)
    assert_inside_figure(fig)
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    labels = [t for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text() and not t.get_text().isdigit()]
    assert any(t.get_text().endswith("…") and t.get_text().count("\n") == 1 for t in labels), [t.get_text() for t in labels]
    for text in labels + [ax.xaxis.label, ax.yaxis.label]:
        if text.get_text():
            assert inside(text, fig, renderer), text.get_text()


UNBROKEN = "Supercalifragilisticexpialidocious_unbreakable_bracket_label_word_that_never_ends_at_all"


@pytest.mark.parametrize("name", ["credit_hierarchy", "topology_counts"])
def test_an_unbroken_title_or_band_name_is_cut_to_fit_and_crops_nothing(name, figure_data):
    """A title or a band name of one long word was cut at the figure's edge and pushed the value labels and the axis
    label out: both are broken to fit now (a band name cut with an ellipsis past the lines its band holds)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from masrl.render.figures import bars, paired_bars, style

    from figure_specs import spec_of

    spec = spec_of(name)
    data = figure_data[name].copy()
    if name == "credit_hierarchy":
        data[spec.options["groups"]] = [UNBROKEN] * len(data)
    with style.style_context():
        fig = (paired_bars if name == "credit_hierarchy" else bars).draw(data, {**spec.options, "title": UNBROKEN * 2})
        FigureCanvasAgg(fig).draw()
    assert_inside_figure(fig)
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    for text in [t for t in ax.get_yticklabels() if t.get_text()] + [ax.yaxis.label, ax.title]:
        if text.get_text():
            assert inside(text, fig, renderer), text.get_text()
    if name == "credit_hierarchy":
        (band,) = [t for t in fig.findobj(Text) if str(t.get_gid()).startswith("bracket:")]
        assert "\n" in band.get_text() and inside(band, fig, renderer), band.get_text()  # broken to its margin


def test_wrapped_bar_labels_never_run_into_each_other():
    """Neighbouring labels wrapped to two lines were drawn over each other at the figure's default height."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from masrl.render.figures import bars, style

    table = pd.DataFrame({"label": [LONG, UNBROKEN, LONG + " again", UNBROKEN + "s", "short", "shorter", "one", "two"],
                          "count": [18, 4, 8, 4, 13, 3, 2, 1]})
    with style.style_context():
        fig = bars.draw(table, {"labels": "label", "values": "count", "title": "Records"})
        FigureCanvasAgg(fig).draw()
    assert sum("\n" in t.get_text() for t in fig.axes[0].get_yticklabels()) == 4
    assert overlapping(fig) == []
    assert_inside_figure(fig)


def test_a_years_figure_of_many_values_holds_its_legend_and_hatches_the_values_past_the_palette():
    """Run 41: with 24 values the legend ran off the figure at its fixed height (the SVG drew entries outside its
    viewBox), and values 12 and on took the colours of values 0 and on, so stacked segments could not be told apart."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from masrl.render.figures import style, years
    from masrl.render.figures.colours import PALETTE

    columns = [f"Soil organic carbon method {k}" for k in range(24)]
    table = pd.DataFrame([[1] * 24, [0] * 23 + [2]], index=["2019", "2020"], columns=columns)
    colours = {c: PALETTE[k % 12] for k, c in enumerate(columns)}
    hatches = {c: "//" for c in columns[12:]}
    with style.style_context():
        fig = years.draw(table, {"legend_title": "method", "colours": colours, "hatches": hatches})
        FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    legend = fig.axes[0].get_legend()
    assert len(legend.get_texts()) == 24 and all(inside(t, fig, renderer) for t in legend.get_texts())
    patches = fig.axes[0].patches
    assert {p.get_hatch() for p in patches[:12]} == {None} and {p.get_hatch() for p in patches[24:]} == {"//"}


def test_value_hatches_start_where_the_palette_runs_out():
    from masrl.corpus.taxonomy import Field
    from masrl.render.figures.colours import value_colours, value_hatches

    codes = tuple(f"m{k}" for k in range(26)) + ("NA",)
    field = Field("method", "retained", False, codes, {"values": {c: {"label": f"M {c}"} for c in codes}})
    assert value_hatches(field, "NA") == {"M m12": "//", "M m13": "//", **{f"M m{k}": "//" for k in range(14, 24)},
                                          "M m24": "\\\\", "M m25": "\\\\"}
    many = Field("method", "retained", False, tuple(f"m{k}" for k in range(200)), {})
    hatched = value_hatches(many, None)  # run 42: the hatches came round again after 96 values
    assert len({(k % 12, hatched.get(f"m{k}", "")) for k in range(200)}) == 200
    assert value_colours(field, "NA")["M m12"] == value_colours(field, "NA")["M m0"]
    small = Field("method", "retained", False, codes[:12], {})
    assert value_hatches(small, None) == {}


def test_a_heatmap_of_many_long_values_grows_so_its_labels_never_overprint():
    """Run 41: 36 rows and 26 columns of long labels were drawn in the house size, the labels over each other."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from masrl.render.figures import heatmap, style

    rows = [f"Soil organic carbon sequestration method {k}" for k in range(36)]
    cols = [f"evaluation by field trial {k}" for k in range(26)]
    data = {"counts": [[int(i % 26 == j) for j in range(26)] for i in range(36)], "rows": rows, "columns": cols,
            "row_codes": rows, "column_codes": cols, "structural": None, "row_title": "Method", "column_title": "Evaluation"}
    with style.style_context():
        fig = heatmap.draw(data)
        FigureCanvasAgg(fig).draw()
    width, height = fig.get_size_inches()
    assert width > style.WIDTH and height > heatmap.HEIGHT
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    for labels in (ax.get_yticklabels(), ax.get_xticklabels()):
        boxes = [t.get_window_extent(renderer).padded(-0.5) for t in labels]
        assert not any(a.overlaps(b) for a, b in zip(boxes, boxes[1:]))
    assert_inside_figure(fig)
