"""The PRISMA flow follows the taxonomy's stage order (not the records' order or a golden file)."""

from __future__ import annotations

import copy

import pytest

from masrl.build.pipeline import analyse as analyse_population
from masrl.corpus.load import load
from masrl.corpus.population import pool


@pytest.fixture(scope="module")
def corpus(published_tree):
    """The test survey, whose pool is release v1's membership (the published flow: 116 -> 84)."""
    return load(published_tree)


def analyse(corpus, traces_valid):
    return analyse_population(pool(corpus))


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


def test_prisma_table_and_labels(corpus):
    from masrl.analyses.prisma import prisma_table

    results = analyse(corpus, {})
    flow = results.prisma
    assert flow["category_labels"]["rl_method"] == "RL method" and list(flow["category_labels"])[0] == "rl_method"
    table = prisma_table(flow, results.tax)
    assert prisma_table(flow).source == "computed from exclusions/*.yaml (the exclusion log) and the retained pool"
    assert list(table.frame.columns) == ["assessed", "excluded", "X1", "X2", "X3", "X4", "X5", "remaining"]
    assert table.frame.loc["abstract_screen"].to_dict() == {
        "assessed": 116, "excluded": 16, **flow["stages"][0]["by_reason_class"], "remaining": 100}
    assert (table.name, table.title) == ("prisma_flow", "Screening flow (PRISMA 2020)")
    assert table.source == "computed from exclusions/*.yaml (stage, reason_class) and the retained pool"
    assert table.note == "116 audited records; 84 retained after the last stage."


def test_years_without_records_are_rows_too():
    import pandas as pd

    from masrl.analyses.declared import declared_table
    from masrl.corpus.declarations import table_of
    from masrl.corpus.taxonomy import Taxonomy

    tax = Taxonomy({"format_version": 2, "fields": {"category": {"applies_to": "retained", "values": {"rl_method": {}, "survey": {}}}}})
    frame = pd.DataFrame({"year": [2020, 2022, 2022], "category": ["survey", "survey", "rl_method"]},
                         index=pd.Index(["a", "b", "c"], name="key"))
    decl = table_of({"name": "year_x_category", "kind": "years", "by": "category", "title": "Per year"})

    def year_by_category(frame, tax):
        return declared_table(decl, frame, [], tax)

    table = year_by_category(frame, tax)
    assert table.frame.to_dict(orient="index") == {2020: {"rl_method": 0, "survey": 1}, 2021: {"rl_method": 0, "survey": 0},
                                                   2022: {"rl_method": 1, "survey": 1}}
    assert (table.frame.index.name, table.frame.columns.name, table.name) == ("year", None, "year_x_category")
    empty = year_by_category(frame.iloc[:0], tax).frame
    assert (len(empty), list(empty.columns)) == (0, ["rl_method", "survey"])


def test_a_years_table_counts_only_the_records_of_its_where():
    """A years table with ``where: {category: rl_method}`` (its filter had been ignored: every record counted)."""
    import pandas as pd

    from masrl.analyses.declared import declared_table
    from masrl.corpus.declarations import table_of
    from masrl.corpus.taxonomy import Taxonomy

    tax = Taxonomy({"format_version": 2, "fields": {"category": {"applies_to": "retained", "values": {"rl_method": {}, "survey": {}}}}})
    frame = pd.DataFrame({"year": [2020, 2022, 2023], "category": ["rl_method", "rl_method", "survey"]},
                         index=pd.Index(["a", "b", "c"], name="key"))
    decl = table_of({"name": "rl_years", "kind": "years", "by": "category", "where": {"category": "rl_method"},
                     "title": "RL methods per year"})
    table = declared_table(decl, frame, [], tax)
    assert table.frame.to_dict(orient="index") == {2020: {"rl_method": 1, "survey": 0}, 2021: {"rl_method": 0, "survey": 0},
                                                   2022: {"rl_method": 1, "survey": 0}}


def test_a_distinct_column_lists_the_values_of_a_list_field_not_its_tuples():
    """A ``distinct`` column over a list field, and over an optional field some records lack: the values the
    records carry, in taxonomy order (it had written Python tuples, ``()``, and a trailing empty item)."""
    import pandas as pd

    from masrl.analyses.declared import declared_table
    from masrl.corpus.declarations import table_of
    from masrl.corpus.taxonomy import Taxonomy

    tax = Taxonomy({"format_version": 2, "fields": {
        "method": {"applies_to": "retained", "values": {"learned": {}, "hand": {}}},
        "evaluation": {"applies_to": "retained", "multi": True, "values": {"benchmark": {}, "user_study": {}}},
        "venue_kind": {"applies_to": "retained", "required": False, "values": {"journal": {}, "conf": {}}}}})
    frame = pd.DataFrame({"year": [2020, 2021, 2022], "method": ["learned", "learned", "hand"],
                          "evaluation": [("user_study", "benchmark"), ("benchmark",), ()],
                          "venue_kind": ["conf", "", ""]}, index=pd.Index(["a", "b", "c"], name="key"))
    decl = table_of({"name": "by_method", "kind": "values", "field": "method", "title": "Methods",
                     "columns": [{"name": "evaluations", "distinct": "evaluation"}, {"name": "venues", "distinct": "venue_kind"}]})
    table = declared_table(decl, frame, [], tax)
    assert table.frame.to_dict(orient="index") == {"learned": {"evaluations": "benchmark, user_study", "venues": "conf"},
                                                   "hand": {"evaluations": "none", "venues": "none"}}
