"""Each figure, drawn from the real data, plots exactly the numbers of its table.

Numbers are read back from the matplotlib artists (image array, bar patches,
texts), never from the data passed in.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from matplotlib.colors import to_hex
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from masrl.render.figures import style



def hex_of(colour) -> str:
    return to_hex(colour).lower()


def texts(fig) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_text() and t.get_visible()]


def by_gid(fig, cls=object) -> dict:
    return {a.get_gid(): a for a in fig.findobj(lambda a: isinstance(a, cls) and a.get_gid())}


def text_at(ax, x: float, y: float) -> list[str]:
    return [t.get_text() for t in ax.texts if np.allclose(t.get_position(), (x, y))]


def assert_inside_figure(fig) -> None:
    """Nothing drawn (texts, tick labels, legends, patches) sticks out of the figure: no cut-off label."""
    tight = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
    width, height = fig.get_size_inches()
    slack = 0.01
    assert tight.x0 >= -slack and tight.y0 >= -slack, tight
    assert tight.x1 <= width + slack and tight.y1 <= height + slack, tight


def inside(inner, outer, renderer, slack: float = 1.0) -> bool:
    a, b = inner.get_window_extent(renderer), outer.get_window_extent(renderer)
    return a.x0 >= b.x0 - slack and a.x1 <= b.x1 + slack and a.y0 >= b.y0 - slack and a.y1 <= b.y1 + slack


# --- reward type x credit granularity --------------------------------------------------------

def test_heatmap_array_and_cells(figure_data, drawn):
    data = figure_data["reward_credit_heatmap"]
    counts = np.asarray(data["counts"])
    fig = drawn("reward_credit_heatmap", data)
    ax = fig.axes[0]
    plotted = np.asarray(ax.images[0].get_array())
    assert (plotted == counts).all()
    # taxonomy labels on the axes, not codes
    assert [t.get_text() for t in ax.get_yticklabels()][:3] == ["shared team reward", "individual reward",
                                                                "role-specific reward"]
    assert [t.get_text() for t in ax.get_xticklabels()][:3] == ["token", "tool call", "message"]
    assert ax.get_title(loc="left") == "Primary reward type × credit unit"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("credit unit", "primary reward type")

    patches = by_gid(fig, Rectangle)
    for i, reward in enumerate(data["row_codes"]):
        for j, credit in enumerate(data["column_codes"]):
            value = int(plotted[i, j])
            in_cell = text_at(ax, j, i)
            if "NA" in (reward, credit):
                # structural: greyed, never a gap
                assert f"gap:{reward}:{credit}" not in patches
                assert hex_of(patches[f"structural:{reward}:{credit}"].get_facecolor()) == hex_of(style.STRUCTURAL)
                assert in_cell == ([str(value)] if value else [])
            elif value == 0:
                gap = patches[f"gap:{reward}:{credit}"]
                assert gap.get_hatch() and hex_of(gap.get_facecolor()) == hex_of(style.GAP_FILL)
                assert in_cell == [style.GAP_SYMBOL]
            else:
                assert f"gap:{reward}:{credit}" not in patches
                assert in_cell == [str(value)]
    assert plotted[data["row_codes"].index("tool")].sum() == 0  # tool-use reward: a gap row
    assert_inside_figure(fig)


# --- credit hierarchy -----------------------------------------------------------------------

def test_credit_hierarchy_bars(figure_data, drawn):
    table = figure_data["credit_hierarchy"]
    fig = drawn("credit_hierarchy", table)
    ax = fig.axes[0]
    broad, strict = ax.containers[0], ax.containers[1]
    assert [round(p.get_width()) for p in broad] == [int(v) for v in table["broad"]]
    assert [round(p.get_width()) for p in strict] == [int(v) for v in table["strict"]]
    # finest first: the first unit is drawn on top (smallest y, axis inverted)
    ticks = ax.get_yticklabels()
    assert [t.get_text() for t in ticks] == [f"× {label}" if b == 0 else label
                                             for label, b in zip(table["label"], table["broad"])]
    assert ax.yaxis_inverted()
    for unit, tick, b in zip(table.index, ticks, table["broad"]):
        assert (tick.get_gid() == f"gap:{unit}") == (int(b) == 0), unit
        assert (hex_of(tick.get_color()) == hex_of(style.GAP)) == (int(b) == 0), unit
    shown = [t.get_text() for t in texts(fig)]
    for bracket in dict.fromkeys(table["bracket"]):
        assert bracket in shown
    # every bar carries its number, zero included: zero is drawn as zero, no bar stands in for a gap
    labels = [t.get_text() for t in ax.texts if not (t.get_gid() or "").startswith("bracket:")]
    assert sorted(labels) == sorted(str(int(v)) for v in list(table["broad"]) + list(table["strict"]))
    assert not [p for p in ax.patches if (p.get_gid() or "").startswith("gap:")]
    assert_inside_figure(fig)


# --- sub-decision chain ---------------------------------------------------------------------

def test_subdecision_chain_counts(figure_data, drawn):
    table = figure_data["subdecision_chain"]
    fig = drawn("subdecision_chain", table)
    renderer = fig.canvas.get_renderer()
    rects = by_gid(fig, Rectangle)
    boxes = {gid: a for gid, a in by_gid(fig).items() if gid.startswith("box:")}
    assert list(boxes) == [f"box:{i}" for i in table.index]
    statuses = ("explicit RL", "partial", "none")
    segments = {gid: r.get_width() for gid, r in rects.items() if gid.startswith("bar:")}
    total_count = int(table[list(statuses)].to_numpy().sum())
    unit = sum(segments.values()) / total_count
    all_texts = by_gid(fig, Text)
    for oid, row in table.iterrows():
        for status in statuses:
            width = segments.get(f"bar:{oid}:{status}", 0.0)
            assert round(width / unit) == int(row[status]), (oid, status)
            if row[status]:
                assert inside(rects[f"bar:{oid}:{status}"], boxes[f"box:{oid}"], renderer)
        assert all_texts[f"statuses:{oid}"].get_text().splitlines() == [f"{s}: {int(row[s])}" for s in statuses]
        records = all_texts[f"records:{oid}"]
        assert re.match(rf"{int(row['records'])} record", records.get_text())
        assert inside(records, boxes[f"box:{oid}"], renderer)
        box = boxes[f"box:{oid}"]
        if str(row["gap"]).strip():
            assert hex_of(box.get_edgecolor()) == hex_of(style.GAP) and hex_of(box.get_facecolor()) == hex_of(style.GAP_FILL)
            assert all_texts[f"gap:{oid}"].get_text().replace("\n", " ") == f"× {row['gap']}"
        else:
            assert to_hex(box.get_facecolor()) == "#ffffff"
            assert f"gap:{oid}" not in all_texts
    # the chain: one arrow between each pair of consecutive boxes
    arrows = [t for t in fig.axes[0].texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == len(table) - 1
    assert_inside_figure(fig)


# --- topologies -----------------------------------------------------------------------------

def test_topology_counts_bars(figure_data, drawn):
    table = figure_data["topology_counts"]
    fig = drawn("topology_counts", table)
    ax = fig.axes[0]
    widths = [round(p.get_width()) for p in ax.containers[0]]
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert dict(zip(names, widths)) == dict(zip(table["topology"], (int(v) for v in table["count"])))
    assert names == list(table["topology"])[::-1]  # first row on top
    assert sorted(t.get_text() for t in ax.texts) == sorted(str(int(v)) for v in table["count"])
    assert_inside_figure(fig)


# --- records per year -----------------------------------------------------------------------

def test_records_per_year_stacks(figure_data, drawn, figure_results):
    table = figure_data["records_per_year"]
    fig = drawn("records_per_year", table)
    ax = fig.axes[0]
    assert len(ax.containers) == len(table.columns)
    for container, category in zip(ax.containers, table.columns):
        assert container.get_label() == category
        heights = [round(p.get_height()) for p in container]
        assert heights == [int(v) for v in table[category]]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [str(c) for c in table.columns]
    totals = {gid: t.get_text() for gid, t in by_gid(fig, Text).items() if gid.startswith("total:")}
    for slot, total in table.sum(axis=1).items():
        assert totals.get(f"total:{slot}") == (str(int(total)) if total else None)
    # readable where the records are: one slot per year of the last ten, the earlier ones in one slot
    full = figure_results.table("year_x_category").frame
    last = int(full.index[-1])
    labels = [t.get_text().replace("\n", " ") for t in ax.get_xticklabels()]
    assert labels == [f"before {last - 9}"] + [str(y) for y in range(last - 9, last + 1)]
    assert int(table.iloc[0].sum()) == int(full.loc[full.index < last - 9].to_numpy().sum())
    assert int(table.to_numpy().sum()) == int(full.to_numpy().sum())
    renderer = fig.canvas.get_renderer()
    extents = [t.get_window_extent(renderer) for t in ax.get_xticklabels()]
    assert all(a.x1 < b.x0 for a, b in zip(extents, extents[1:]))
    assert_inside_figure(fig)


# --- PRISMA flow ----------------------------------------------------------------------------

def _n(text: str) -> int:
    found = re.findall(r"\(n = (\d+)\)", text.replace("\n", " "))
    assert len(found) == 1, text
    return int(found[0])


def test_prisma_flow_counts_in_their_boxes(figure_data, drawn):
    data = figure_data["prisma_flow"]
    fig = drawn("prisma_flow", data)
    renderer = fig.canvas.get_renderer()
    gids = by_gid(fig)
    text = {g: a for g, a in gids.items() if isinstance(a, Text)}

    def in_box(gid: str, box: str | None = None) -> str:
        artist = text[gid]
        assert inside(artist, gids[f"box:{box or gid}"], renderer), gid
        return artist.get_text()

    assert "Records audited" in in_box("audited") and _n(in_box("audited")) == data["audited"]
    assessed = []
    for stage in data["stages"]:
        key = stage["stage"]
        main = in_box(f"assessed:{key}")
        assert stage["label"] in main.replace("\n", " ")
        assessed.append(_n(main))
        assert assessed[-1] == stage["assessed"]
        side = in_box(f"excluded:{key}")
        assert stage["label"] in side.replace("\n", " ") and _n(side) == stage["excluded"]
        listed = text[f"reasons:{key}"].get_text().splitlines() if f"reasons:{key}" in text else []
        if listed:
            in_box(f"reasons:{key}", f"excluded:{key}")
        expected = [f"{cls} {data['reason_classes'][cls]}: {n}" for cls, n in stage["by_reason_class"].items() if n]
        assert listed == expected
        assert sum(int(line.rsplit(": ", 1)[1]) for line in listed) == stage["excluded"]
    retained = in_box("retained")
    assert "retained" in retained and _n(retained) == data["retained"]
    # each stage's remaining records are the next box of the chain
    chain = assessed[1:] + [_n(retained)]
    assert chain == [stage["remaining"] for stage in data["stages"]]
    listed = []
    for k in (0, 1):
        listed += in_box(f"retained_by_category:{k}", "categories_header").splitlines()
    expected = [f"{data['category_labels'][c]}: {n}" for c, n in data["retained_by_category"].items()]
    assert listed == expected
    assert sum(int(line.rsplit(": ", 1)[1]) for line in listed) == data["retained"]
    # PRISMA look: the three phases, an arrow down the chain and one to each exclusion box
    shown = {t.get_text() for t in texts(fig)}
    assert {"Identification", "Screening", "Included"} <= shown
    arrows = [t for t in fig.axes[0].texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == 2 * len(data["stages"]) + 1
    assert_inside_figure(fig)
