"""The figures, drawn from the build's data of release v1, show the numbers counted here directly
from the release's frozen snapshot (corpus/releases/v1.yaml) with plain PyYAML: no masrl loader,
frame or analysis computes the expectation, and adding papers to the pool changes neither side."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml
from matplotlib.text import Text


#: The frozen test survey (tests/data/survey): release v1 as published.
SNAPSHOT = Path(__file__).resolve().parents[1] / "data/survey/corpus/releases/v1.yaml"


@pytest.fixture(scope="module")
def counted():
    snapshot = yaml.safe_load(SNAPSHOT.read_text(encoding="utf-8"))
    retained, excluded = list(snapshot["retained"].values()), list(snapshot["excluded"].values())
    tax = snapshot["taxonomy"]["fields"]
    labels = {code: spec["label"] for code, spec in tax["category"]["values"].items()}
    reward = {str(code): spec["label"] for code, spec in tax["reward_type"]["values"].items()}
    credit = {str(code): spec["label"] for code, spec in tax["credit_granularity"]["values"].items()}
    return {
        "retained": len(retained), "excluded": len(excluded),
        "category": Counter(labels[r["category"]] for r in retained),
        "year_category": Counter((int(r["year"]), labels[r["category"]]) for r in retained),
        "reward_credit": Counter((reward[str(r["reward_type"])], credit[str(r["credit_granularity"])]) for r in retained),
        "stage": Counter(r["stage"] for r in excluded),
        "stage_labels": {code: spec["label"] for code, spec in tax["stage"]["values"].items()},
    }


def test_category_bars(figure_data, drawn, counted):
    ax = drawn("category_counts", figure_data["category_counts"]).axes[0]
    bars = {t.get_text(): round(p.get_width()) for t, p in zip(ax.get_yticklabels(), ax.containers[0])}
    assert {k: v for k, v in bars.items() if v} == dict(counted["category"])
    assert sum(bars.values()) == counted["retained"] == 84


def test_records_per_year_bars(figure_data, drawn, counted):
    ax = drawn("records_per_year", figure_data["records_per_year"]).axes[0]
    ticks = {round(pos): label.get_text() for pos, label in zip(ax.get_xticks(), ax.get_xticklabels())}
    shown = Counter()
    for container in ax.containers:
        for patch in container:
            height = round(patch.get_height())
            if height:
                shown[(ticks[round(patch.get_x() + patch.get_width() / 2)], container.get_label())] += height
    early = next((label for label in ticks.values() if label.split()[0] == "before"), None)
    cut = int(early.split()[1]) if early else None
    expected = Counter()
    for (year, category), n in counted["year_category"].items():
        expected[(early if cut is not None and year < cut else str(year), category)] += n
    assert shown == expected


def test_heatmap_cells(figure_data, drawn, counted):
    ax = drawn("reward_credit_heatmap", figure_data["reward_credit_heatmap"]).axes[0]
    rows = [t.get_text() for t in ax.get_yticklabels()]
    cols = [t.get_text() for t in ax.get_xticklabels()]
    array = np.asarray(ax.images[0].get_array())
    shown = Counter({(r, c): int(array[i, j]) for i, r in enumerate(rows) for j, c in enumerate(cols) if array[i, j]})
    assert shown == counted["reward_credit"]


def test_prisma_boxes(figure_data, drawn, counted):
    fig = drawn("prisma_flow", figure_data["prisma_flow"])
    texts = {t.get_gid(): t.get_text().replace("\n", " ") for t in fig.findobj(Text) if t.get_gid()}
    n = {gid: int(m.group(1)) for gid, text in texts.items() if (m := re.search(r"\(n = (\d+)\)", text))}
    assert n["audited"] == counted["retained"] + counted["excluded"] == 116
    assert n["retained"] == counted["retained"]
    for stage, label in counted["stage_labels"].items():
        assert n[f"excluded:{stage}"] == counted["stage"][stage], stage
        assert label in texts[f"excluded:{stage}"]
