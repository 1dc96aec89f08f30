"""The PRISMA flow follows the taxonomy's stage order (not the records' order or a golden file)."""

from __future__ import annotations

import copy

import pytest

from masrl.load import load
from masrl.pipeline import analyse


@pytest.fixture(scope="module")
def corpus(repo):
    return load(repo)


def flow_rows(corpus, order):
    c = copy.deepcopy(corpus)
    values = c.taxonomy["fields"]["stage"]["values"]
    c.taxonomy["fields"]["stage"]["values"] = {k: values[k] for k in order}
    flow = analyse(c, {}).prisma
    return [(s["stage"], s["assessed"], s["excluded"], s["remaining"]) for s in flow["stages"]]


def test_stages_in_taxonomy_order(corpus):
    order = ["abstract_screen", "full_text_screen", "artifact_screen", "duplicate_screen"]
    assert flow_rows(corpus, order) == [("abstract_screen", 116, 16, 100), ("full_text_screen", 100, 9, 91),
                                        ("artifact_screen", 91, 6, 85), ("duplicate_screen", 85, 1, 84)]


def test_reordered_taxonomy_reorders_the_flow(corpus):
    order = ["duplicate_screen", "artifact_screen", "full_text_screen", "abstract_screen"]
    assert flow_rows(corpus, order) == [("duplicate_screen", 116, 1, 115), ("artifact_screen", 115, 6, 109),
                                        ("full_text_screen", 109, 9, 100), ("abstract_screen", 100, 16, 84)]


def test_records_listed_in_another_order_change_nothing(corpus):
    c = copy.deepcopy(corpus)
    c.excluded = dict(reversed(list(c.excluded.items())))
    assert analyse(c, {}).prisma == analyse(corpus, {}).prisma
