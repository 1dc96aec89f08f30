"""The session memo's analysis tables and BibTeX entries (tests/memo.py): a table of a changed pool
is computed again only when it reads a column the change touched, an entry only for a changed
record, and what the memo answers is what the code computes."""

from __future__ import annotations

import dataclasses

import memo
import pytest

from masrl.analyses import declared, stats
from masrl.bib import bibexport
from masrl.build import pipeline
from masrl.corpus.declarations import tables as declared_tables


def _retagged(population, field: str):
    """``population`` with the first retained record that has ``field`` given another value of it."""
    records = list(population.retained)
    index = next(i for i, r in enumerate(records) if isinstance(r.get(field), str))
    record = dict(records[index])
    record[field] = "math" if record[field] != "math" else "web"
    records[index] = record
    return dataclasses.replace(population, retained=type(population.retained)(records))


def _tables(results) -> dict:
    return {t.name: t for t in (*results.stats_tables, *results.axis_tables, *results.flow_tables)}


def test_the_analysis_tables_are_memoised_by_the_columns_they_read(built, monkeypatch):
    assert getattr(declared.declared_table, "__memo__", False) and getattr(stats.count_table, "__memo__", False)
    analyse = pipeline.analyse.__wrapped__  # the real analyse: its tables go through the memo
    population = built.pool.population
    previous = built.baseline.population if built.baseline is not None else None
    before = _tables(analyse(population, previous))
    changed = _retagged(population, "scenario")
    hits = memo.ANALYSIS_TABLES.hits + pipeline.TABLES.hits  # masrl's own memo answers first (masrl.build.pipeline.TABLES)
    after = _tables(analyse(changed, previous))
    assert memo.ANALYSIS_TABLES.hits + pipeline.TABLES.hits > hits
    assert after["scenario"] is not before["scenario"]  # the count of the retagged field: computed again
    assert after["reward_type"] is before["reward_type"]  # a field the change did not touch: remembered
    monkeypatch.setattr(memo, "enabled", False)
    fresh = _tables(analyse(changed, previous))
    assert after.keys() == fresh.keys()
    for name, table in fresh.items():
        assert memo._analysis_tables_same(after[name], table), name  # noqa: SLF001


@pytest.mark.parametrize("kind", ["count", "declared"])
def test_a_memoised_table_reads_what_its_key_names(built, kind):
    frame = built.pool.retained
    tax = built.pool.tax
    if kind == "count":
        reads = memo._count_reads(frame, "scenario", tax, "retained")  # noqa: SLF001
        assert list(reads[-1].index) == list(frame.index) and reads[-1].name == "scenario"
    else:
        decl = next(d for d in declared_tables(tax) if d.kind == "values")
        reads = memo._declared_reads(decl, frame, list(built.pool.retained_records), tax)  # noqa: SLF001
        assert decl.field in reads[3].columns and set(reads[3].columns) <= set(frame.columns)
        assert reads[4] is None  # the records themselves only for a table of records


def test_bibtex_entries_are_the_real_ones_and_only_a_changed_records_is_written_again(built):
    real = bibexport.entries.__wrapped__
    records = list(built.pool.retained_records)
    assert getattr(bibexport.entries, "__memo__", False)
    assert bibexport.entries(records) == real(records)
    changed = [dict(r, title=f"Changed, one of {len(records)}: {r['title']}") if i == 0 else r for i, r in enumerate(records)]
    misses = memo.BIB_ENTRIES.misses
    assert bibexport.entries(changed) == real(changed)
    assert memo.BIB_ENTRIES.misses == misses + 1
    twice = [*records, dict(records[0], title="The same key again")]
    with pytest.raises(ValueError, match=f"BibTeX key '{records[0]['key']}'"):
        bibexport.entries(twice)  # two records that share a key: the real function's error
