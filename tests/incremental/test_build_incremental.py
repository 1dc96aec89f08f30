"""Incremental builds: each output keyed by what it reads, computed again only when that changed,
in one process (a test suite, ``masrl diff``) and across processes (the build cache), and never
other bytes than a build from scratch.

The tree is the test survey of tests/data/second-survey (seven records released as r1, one added).
The property test edits it at random (retags, lists, titles, records added and dropped, claims,
the vocabulary's wording, a report edited by hand) and holds every verdict of ``masrl build
--check`` and every file ``masrl build`` writes with the cache to a build of the same inputs from
scratch: no reports, no cache, nothing remembered in the process but drawn figures (keyed by what
they plot; tests/figures holds their bytes to a drawing).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings, strategies as st

from second_survey import EXCLUDED, KEYS, record
from soil_trees import files_of, run
from trees import copy_tree
from profiles import examples
from masrl.build import outputs, pipeline
from masrl.corpus.load import load


@pytest.fixture(scope="module")
def released(released_soil):
    return released_soil


# ---------------------------------------------------------------- in one process
def _retagged(corpus, key: str, field: str, value):
    rel = f"corpus/papers/{key}.yaml"
    corpus.retained = {**corpus.retained, rel: {**corpus.retained[rel], field: value}}
    return corpus


@pytest.mark.memos
def test_a_second_build_in_a_process_computes_only_the_tables_a_retag_touches(released):
    first = pipeline.build(load(released), {})
    text = outputs.render_text(first)
    misses, units = pipeline.TABLES.misses, outputs.UNITS.misses
    again = pipeline.build(load(released), {})
    assert outputs.render_text(again) == text
    assert pipeline.TABLES.misses == misses and outputs.UNITS.misses == units  # nothing computed twice
    assert again.releases[0] is first.releases[0]  # the release: analysed once in the process
    retagged = pipeline.build(_retagged(load(released), "jones2020", "scale", "plot"), {})
    misses = pipeline.TABLES.misses
    changed = outputs.render_text(retagged)
    computed = pipeline.TABLES.misses - misses
    # the pool's tables that read scale (its count, the regions split by scale, technique groups at plot
    # scale) and the gaps; nothing of the release; nothing that reads no scale
    assert 0 < computed <= 6
    assert retagged.releases[0] is first.releases[0]
    assert changed["reports/tables/technique.csv"] == text["reports/tables/technique.csv"]
    assert changed["reports/tables/scale.csv"] != text["reports/tables/scale.csv"]
    assert {k for k in text if k.startswith("reports/releases/") and changed[k] != text[k]} == set()


def test_the_key_of_a_table_is_what_it_reads(released):
    corpus = load(released)
    before = pipeline.build(corpus, {}).pool
    title = pipeline.build(_retagged(load(released), "jones2020", "title", "Another title of the study"), {}).pool
    scale = pipeline.build(_retagged(load(released), "jones2020", "scale", "plot"), {}).pool
    assert title.table_key("scale") == before.table_key("scale") != scale.table_key("scale")
    assert title.table_key("technique") == scale.table_key("technique") == before.table_key("technique")
    assert title.table_key("combustion_notes") != before.table_key("combustion_notes")  # a records table of titles
    assert scale.table_key("regions") != before.table_key("regions")  # split by scale
    assert title.table_key("regions") == before.table_key("regions")


# ---------------------------------------------------------------- random edits, against builds from scratch
FIELDS = {"technique": ["spectroscopy", "combustion", "remote_sensing", "NR"], "scale": ["plot", "field", "landscape"]}
REGIONS = ["tropics", "temperate", "boreal", "arid"]
REPORTS = ["reports/STATS.md", "reports/tables/technique.csv", "reports/releases/r1/STATS.md", "reports/gaps.json",
           "reports/figures/technique_counts.svg", "reports/releases/r1/figures/technique_counts.png"]


def _record_edit(key: str, change):
    def apply(root: Path) -> None:
        path = root / f"corpus/papers/{key}.yaml"
        if path.exists():
            record = yaml.safe_load(path.read_text())
            change(record)
            path.write_text(yaml.safe_dump(record, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return apply


def _add(index: int):
    def apply(root: Path) -> None:
        key = f"added{index}"
        rec = record(key, f"Soil carbon trial number {index} with new sensors", 40 + index, technique="combustion",
                     region=["arid"], scale="plot", date_added="2026-04-01")
        (root / f"corpus/papers/{key}.yaml").write_text(yaml.safe_dump(rec, sort_keys=False), encoding="utf-8")
    return apply


def _drop(key: str):
    def apply(root: Path) -> None:
        (root / f"corpus/papers/{key}.yaml").unlink(missing_ok=True)
    return apply


def _claim(which: int, bound: int):
    """The pool's claim (0) gets another bound, or the claim about release r1 (1) another count."""
    def apply(root: Path) -> None:
        path = root / "corpus/claims.yaml"
        data = yaml.safe_load(path.read_text())
        data["claims"][which]["checks"][0]["max_count" if which == 0 else "count"] = bound
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return apply


def _exclusion(rid: str, reason: str):
    def apply(root: Path) -> None:
        path = root / f"exclusions/{rid}.yaml"
        data = yaml.safe_load(path.read_text())
        data["exclusion_reason"] = reason
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return apply


def _readme(text: str):
    def apply(root: Path) -> None:
        path = root / "README.md"
        path.write_text(path.read_text().replace("A test survey.", text, 1), encoding="utf-8")
    return apply


def _label(field: str, value: str, label: str):
    def apply(root: Path) -> None:
        path = root / "corpus/taxonomy.yaml"
        text = path.read_text()
        old = f"      {value}: {{label: "
        at = text.index(old, text.index(f"  {field}:\n"))
        end = text.index(",", at)
        path.write_text(text[:at] + old + label + text[end:], encoding="utf-8")
    return apply


def _report(rel: str):
    def apply(root: Path) -> None:
        path = root / rel
        if path.exists():
            path.write_bytes(b"edited by hand\n" if rel.endswith((".md", ".csv", ".json")) else b"<svg/>")
    return apply


EDITS = st.one_of(
    st.builds(lambda k, fv: _record_edit(k, lambda r: r.__setitem__(*fv)),
              st.sampled_from(KEYS), st.sampled_from([(f, v) for f, values in FIELDS.items() for v in values])),
    st.builds(lambda k, rs: _record_edit(k, lambda r: r.__setitem__("region", rs)), st.sampled_from(KEYS),
              st.lists(st.sampled_from(REGIONS), unique=True, max_size=3)),
    st.builds(lambda k, n: _record_edit(k, lambda r: r.__setitem__("title", f"{r['title']}: a revised edition {n}")),
              st.sampled_from(KEYS), st.integers(0, 9)),
    st.builds(_add, st.integers(0, 3)),
    st.builds(_drop, st.sampled_from(KEYS)),
    st.builds(_claim, st.integers(0, 1), st.integers(0, 4)),
    st.builds(_exclusion, st.sampled_from(EXCLUDED), st.sampled_from(["off topic", "measures nothing at all"])),
    st.builds(_readme, st.sampled_from(["A test survey, revised.", "Another introduction."])),
    st.builds(lambda fv, label: _label(*fv, label),
              st.sampled_from([("technique", "combustion"), ("technique", "spectroscopy"), ("scale", "field"), ("scale", "plot")]),
              st.sampled_from(["burnt", "field plots", "PLOT", "dry combustion"])),
    st.builds(_report, st.sampled_from(REPORTS)),
)


def _fresh(root: Path, dest: Path) -> dict[str, bytes] | None:
    """The files a build from scratch writes for ``root``'s inputs (no reports, no cache, no
    text or analysis remembered in the process); None when that build fails on the inputs."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for part in ("corpus", "exclusions"):
        if (root / part).exists():
            shutil.copytree(root / part, dest / part)
    shutil.copy(root / "README.md", dest / "README.md")
    for memo in (outputs.UNITS, pipeline.TABLES, pipeline._POOLS, pipeline._RELEASES):  # noqa: SLF001
        memo.clear()
    code = run(dest, "build", cache="off")
    return files_of(dest) if code in (0, 1) and (dest / "reports").exists() else None


def _tree_of(figure: str) -> str:
    """The report tree of a figure file (the site's copies are the pool's figures)."""
    return "reports" if figure.startswith("reports/site/figures/") else figure.split("/figures/")[0]


@settings(max_examples=examples(2), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rounds=st.lists(st.lists(EDITS, min_size=1, max_size=3), min_size=1, max_size=2))
@example(rounds=[[_label("technique", "spectroscopy", "dry combustion")]])  # two values, one label: the years figure's legend
@example(rounds=[[_report("reports/figures/technique_counts.svg"), _readme("Another introduction.")]])  # that file alone is stale
@example(rounds=[[_report("reports/releases/r1/figures/technique_counts.png"), _readme("Another introduction.")]])  # not r1's manifest
def test_check_and_build_with_the_cache_say_and_write_what_a_build_from_scratch_does(released, tmp_path_factory, rounds,
                                                                                    capsys):
    work = tmp_path_factory.mktemp("edits")
    root = copy_tree(released, work / "survey")
    for edits in rounds:
        for edit in edits:
            edit(root)
        capsys.readouterr()
        check = run(root, "build", "--check")
        said = capsys.readouterr().err
        fresh = _fresh(root, work / "fresh")
        if fresh is None:  # the edits made the inputs invalid: the check said so too
            assert check == 1 and "error" in said
            return
        on_disk = files_of(root)
        differ = {rel for rel in set(on_disk) | set(fresh) if on_disk.get(rel) != fresh.get(rel)}
        stale = {line.split(": ", 1)[1].split(" ", 1)[0] for line in said.splitlines()
                 if line.startswith(("stale: ", "missing: ", "orphaned (no longer generated): "))}
        if check == 0:
            assert differ == set(), "--check said current, a build from scratch writes otherwise"
        assert differ <= stale, "--check said current of a file a build from scratch writes otherwise"
        # a figure whose plotted data changed is stale to --check, which never draws, even where the
        # drawing comes out the same (its manifest records the new fingerprint: stale either way)
        assert all("/figures/" in rel and f"{_tree_of(rel)}/figures/manifest.json" in differ
                   for rel in stale - differ), sorted(stale - differ)
        assert run(root, "build") in (0, 1)
        assert files_of(root) == fresh
