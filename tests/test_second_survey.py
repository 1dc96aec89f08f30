"""A second survey, sharing no field with the bundled one, through the whole workflow.

The survey (tests/data/second-survey: "Measuring soil organic carbon", records tagged by technique,
region and scale, exclusions by screening phase and reason; its taxonomy declares every kind of
table and figure) is validated, built, released as r1, grown by one record (and a claim about r1:
tests/data/second-survey-late), audited by a second reader and built again, all through the CLI. Its outputs are checked cell
by cell against values worked out by hand from its records, and no report names a field,
label or code of the bundled survey.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from wordscan import standalone
from masrl.cli import main

DATA = Path(__file__).resolve().parent / "data"
#: The frozen test survey (tests/data/survey).
SURVEY = DATA / "survey"


def _run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as done:  # a usage error
            code = done.code
    return code, out.getvalue(), err.getvalue()


FILLED = "item,identifier,title,link,technique,scale,note\n" \
         "S01,,,,combustion,plot,\nS02,,,,remote_sensing,landscape,\nS03,,,,spectroscopy,field,\nS04,,,,spectroscopy,plot,unsure\n"


@pytest.fixture(scope="module")
def survey(tmp_path_factory) -> Path:
    """The second survey after the whole workflow: built, released as r1, one record added,
    audited (4 records, technique and scale; the reader differs on the scale of chen2021)."""
    root = tmp_path_factory.mktemp("soil") / "survey"
    shutil.copytree(DATA / "second-survey", root)
    steps = [("validate",), ("build",), ("release", "r1", "--date", "2026-02-01", "--title", "First release of the test survey")]
    for step in steps:
        code, out, err = _run(*step, "--root", root)
        assert code == 0, (step, out, err)
    shutil.copytree(DATA / "second-survey-late", root, dirs_exist_ok=True)
    code, out, err = _run("audit", "sample", "--population", "retained", "--n", "4", "--seed", "1", "--id", "tags-test",
                          "--date", "2026-03-02", "--root", root)
    assert code == 0, (out, err)
    sample = yaml.safe_load((root / "corpus/audits/tags-test/audit.yaml").read_text())
    assert [(i["item"], i["record"]) for i in sample["items"]] == [
        ("S01", "okafor2022"), ("S02", "garcia2021"), ("S03", "silva2025"), ("S04", "chen2021")]
    filled = root.parent / "filled.csv"
    filled.write_text(FILLED, encoding="utf-8")
    for step in [("audit", "import", filled, "--audit", "tags-test", "--reader", "Per Lindqvist"), ("build",), ("build", "--check")]:
        code, out, err = _run(*step, "--root", root)
        assert code == 0, (step, out, err)
    return root


def _csv(root: Path, rel: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO((root / rel).read_text(encoding="utf-8"))))


def test_count_tables_and_crosstabs_cell_by_cell(survey):
    assert _csv(survey, "reports/releases/r1/tables/technique.csv") == [
        ["technique", "label", "count"], ["spectroscopy", "spectroscopy", "2"], ["combustion", "dry combustion", "2"],
        ["remote_sensing", "remote sensing", "2"], ["NR", "not reported", "1"]]
    # the pool shows release r1 beside itself: silva2025 (spectroscopy; arid, temperate; field) was added
    assert _csv(survey, "reports/tables/technique.csv")[1] == ["spectroscopy", "spectroscopy", "3", "2", "1"]
    assert _csv(survey, "reports/tables/region.csv") == [
        ["region", "label", "count", "r1", "change"], ["tropics", "tropical", "3", "3", "0"],
        ["temperate", "temperate", "3", "2", "1"], ["boreal", "boreal", "2", "2", "0"], ["arid", "arid or semi-arid", "2", "1", "1"]]
    assert _csv(survey, "reports/tables/technique_x_region.csv") == [
        ["technique", "tropics", "temperate", "boreal", "arid"], ["spectroscopy", "1", "2", "0", "1"],
        ["combustion", "1", "1", "1", "0"], ["remote_sensing", "1", "0", "1", "1"], ["NR", "0", "0", "0", "0"]]
    assert _csv(survey, "reports/tables/phase_x_why.csv") == [["phase", "W1", "W2"], ["title_screen", "1", "0"],
                                                               ["full_read", "1", "1"]]


def test_declared_tables_cell_by_cell(survey):
    assert _csv(survey, "reports/tables/technique_groups.csv") == [
        ["group", "name", "techniques", "records", "at plot scale", "representatives"],
        ["LAB", "Laboratory", "spectroscopy, combustion", "5", "2", "smith2019"],
        ["SAT", "Remote", "remote_sensing", "2", "0", "none"]]
    assert _csv(survey, "reports/tables/regions.csv") == [
        ["region", "label", "records", "plot", "field", "landscape", "studies", "coverage"],
        ["tropics", "tropical", "3", "1", "1", "1", "chen2021, garcia2021, okafor2022", ""],
        ["temperate", "temperate", "3", "1", "2", "0", "jones2020, silva2025, smith2019", ""],
        ["boreal", "boreal", "2", "0", "2", "0", "jones2020, tanaka2024", "gap: no plot study"],
        ["arid", "arid or semi-arid", "2", "0", "1", "1", "garcia2021, silva2025", "gap: no plot study"]]
    assert _csv(survey, "reports/releases/r1/tables/regions.csv")[4] == [
        "arid", "arid or semi-arid", "1", "0", "0", "1", "garcia2021", "gap: no plot study"]
    assert _csv(survey, "reports/tables/combustion_notes.csv") == [
        ["key", "title", "note"],
        ["jones2020", "Dry combustion benchmarks for boreal and temperate forest soils", "cores every 10 m to 30 cm depth"],
        ["okafor2022", "Combustion analysis of carbon in tropical plot trials", "composite samples of five cores"]]
    assert _csv(survey, "reports/tables/year_x_technique.csv") == [
        ["year", "spectroscopy", "combustion", "remote_sensing", "NR"], ["2019", "1", "0", "0", "0"],
        ["2020", "0", "1", "0", "0"], ["2021", "1", "0", "1", "0"], ["2022", "0", "1", "0", "0"],
        ["2023", "0", "0", "0", "1"], ["2024", "0", "0", "1", "0"], ["2025", "1", "0", "0", "0"]]
    tables = (survey / "reports/TABLES.md").read_text(encoding="utf-8")
    assert [line[3:] for line in tables.splitlines() if line.startswith("## ")] == [
        "Technique groups", "Climate regions by scale", "How combustion studies sample"]
    assert "Changed since release r1: LAB × records: 4 → 5." in tables


def test_screening_flow_and_exclusion_log(survey):
    assert _csv(survey, "reports/releases/r1/tables/prisma_flow.csv") == [
        ["stage", "assessed", "excluded", "W1", "W2", "remaining"], ["title_screen", "10", "1", "1", "0", "9"],
        ["full_read", "9", "2", "1", "1", "7"]]
    assert _csv(survey, "reports/tables/prisma_flow.csv")[1:3] == [
        ["included in the previous version", "7", "", ""], ["new records identified and screened", "1", "", ""]]
    assert _csv(survey, "reports/tables/exclusion_log.csv")[:2] == [
        ["record_id", "title", "authors", "year", "phase", "why", "reason", "near miss", "url"],
        ["E001", "Carbon markets and farmer incentives", "Doe", "2022", "title screen", "W1 off topic",
         "about carbon markets, not measurement", "no", "https://arxiv.org/abs/2201.00001"]]
    log = (survey / "reports/exclusions.md").read_text(encoding="utf-8")
    assert "| id | title | authors | year | phase | why | reason | near miss |" in log
    assert "the class of its exclusion reason (W1-W2, `corpus/taxonomy.yaml`)" in log


def test_gaps_named_sections_and_cells(survey):
    data = json.loads((survey / "reports/gaps.json").read_text(encoding="utf-8"))
    assert data["named_gaps"][0]["selections"][0]["records"] == ["garcia2021"]
    assert data["named_gaps"][0]["claim_holds"] is True
    assert data["region_coverage"] == {"measures": ["tropics", "temperate", "boreal", "arid"], "joint": [],
                                       "by_benchmark": {"chen2021": ["tropics"], "jones2020": ["temperate", "boreal"],
                                                        "silva2025": ["temperate", "arid"], "tanaka2024": ["boreal"]}}
    cells = {(c["table"], c["row"], c["column"]): (c["count"], c["status"]) for c in data["cells"]}
    assert cells[("technique_x_region", "spectroscopy", "boreal")] == (0, "empty")
    assert cells[("technique_x_region", "combustion", "arid")] == (0, "empty")
    assert cells[("technique_x_region", "remote_sensing", "temperate")] == (0, "empty")
    assert cells[("scale", "landscape", "")] == (1, "sparse")
    assert not any("NR" in key for key in cells)
    md = (survey / "reports/gaps.md").read_text(encoding="utf-8")
    assert "Field studies covering all of tropics, temperate, boreal, arid: **none**." in md
    assert "counted: the structural values\nNR." in md
    assert "| technique_x_region | spectroscopy × arid | empty (0) | sparse (1) |" in md


def test_claims_in_their_scopes(survey):
    claims = (survey / "reports/claims.md").read_text(encoding="utf-8")
    assert "At most 1 retained record measures arid soils by remote sensing." in claims
    assert "4 records of release r1 measure carbon in the laboratory." in claims
    tex = (survey / "reports/tex/numbers.tex").read_text(encoding="utf-8")
    assert "\\newcommand{\\NumTechniqueSpectroscopy}{2}" in tex and "\\newcommand{\\CurrentNumTechniqueSpectroscopy}{3}" in tex


def test_readme_list_groups_by_its_own_field_with_its_own_tags(survey):
    readme = (survey / "README.md").read_text(encoding="utf-8")
    listed = readme.split("<!-- masrl:papers:start -->")[1].split("<!-- masrl:papers:end -->")[0]
    assert listed.startswith("\n8 retained records in 4 techniques (and 3 screened-but-excluded records in `exclusions/`).\n"
                             "Tags: Spatial scale · Climate region. Generated by")
    assert [line for line in listed.splitlines() if line.startswith("### ")] == [
        "### spectroscopy (3)", "### dry combustion (2)", "### remote sensing (2)", "### not reported (1)"]
    assert "  scale `landscape` · arid, tropics\n" in listed
    assert listed.count("scale `") == 8


def test_site_shows_its_own_columns_tables_and_identity(survey):
    index = (survey / "reports/site/index.html").read_text(encoding="utf-8")
    headers = re.findall(r'<th scope="col" data-col="([a-z_]+)">', index)
    assert headers == ["title", "authors", "year", "venue", "technique", "region", "scale"]
    assert "The record data are CC-BY-4.0." in index and 'href="https://example.org/soil-carbon-survey"' in index
    taxonomy = (survey / "reports/site/taxonomy.html").read_text(encoding="utf-8")
    assert re.findall(r'<h2 id="([a-z-]+)">', taxonomy) == ["named-gaps", "technique-groups", "regions", "crosstabs"]
    assert '<td class="num"><a href="index.html#technique=spectroscopy&amp;technique=combustion&amp;scale=plot">2' in taxonomy
    assert '<th scope="row"><a href="index.html#region=arid">arid</a></th>' in taxonomy
    assert "<td>spectroscopy, dry combustion</td>" in taxonomy
    screening = (survey / "reports/site/screening.html").read_text(encoding="utf-8")
    assert '<img src="figures/screening_flow.svg"' in screening and "<th scope=\"col\">Database</th>" in screening
    assert "<td>Web of Science</td>" in screening
    assert "Retained by measurement technique:" in screening


def test_figures_are_its_own(survey):
    manifest = json.loads((survey / "reports/figures/manifest.json").read_text(encoding="utf-8"))
    assert sorted(manifest["figures"]) == ["region_chain", "screening_flow", "studies_per_year", "technique_counts",
                                           "technique_region_heatmap"]
    assert {name: entry["table"] for name, entry in manifest["figures"].items()}["region_chain"] == "regions"
    index = (survey / "reports/figures/README.md").read_text(encoding="utf-8")
    assert "n = 8 retained records; 1 with technique 'not reported'." in index
    assert "n = 8 retained records; 7 address at least one region (a record can address several, so the boxes sum to 10)" in index
    for name in manifest["figures"]:
        assert (survey / f"reports/figures/{name}.svg").read_bytes().startswith(b"<?xml")
        assert (survey / f"reports/site/figures/{name}.svg").is_file()


def test_audit_agreement_from_its_own_fields(survey):
    audit = json.loads((survey / "reports/audit.json").read_text(encoding="utf-8"))
    fields = {f["field"]: f for f in audit["agreements"][0]["rounds"][0]["fields"]}
    assert (fields["technique"]["agree"], fields["technique"]["observed"]) == (4, 1.0)
    # scale: p_o = 3/4; marginals original (plot 1, landscape 1, field 2) and reader (plot 2, landscape 1, field 1):
    # p_e = (1*2 + 1*1 + 2*1) / 16 = 5/16, kappa = (3/4 - 5/16) / (11/16) = 7/11; PABAK = (3 * 3/4 - 1) / 2 = 0.625
    assert (fields["scale"]["agree"], fields["scale"]["kappa"], fields["scale"]["pabak"]) == (3, round(7 / 11, 6), 0.625)
    assert audit["inclusion_criteria"] == {} and "## Inclusion criteria" not in (survey / "reports/audit.md").read_text()


def test_no_traces_no_trace_report(survey):
    assert not (survey / "reports/traces.md").exists() and not (survey / "reports/schema/trace.schema.json").exists()


def test_exclude_asks_for_its_own_fields(survey):
    code, out, err = _run("exclude", "--root", survey, "--title", "Carbon in deep ocean sediments", "--arxiv", "2202.00042",
                          "--author", "Doe, Alex", "--year", "2022", "--reason", "marine sediments, not soil",
                          "--phase", "title_screen", "--why", "W1", "--searched-in", "Scopus", "--dry-run")
    assert code == 0, err
    rec = yaml.safe_load(out.split("\n", 1)[1].rsplit("dry run", 1)[0])
    assert (rec["phase"], rec["why"], rec["searched_in"]) == ("title_screen", "W1", "Scopus")
    assert rec["tag_provenance"] == {"why": "masrl exclude (screener's choice)"}
    code, _, err = _run("exclude", "--root", survey, "--title", "x", "--arxiv", "2202.00043", "--reason", "r",
                        "--phase", "title_screen", "--why", "W1")
    assert code == 2 and "the following arguments are required: --searched-in" in err
    code, _, err = _run("exclude", "--root", survey, "--title", "Carbon in deep ocean sediments", "--arxiv", "2202.00044",
                        "--author", "Doe, Alex", "--year", "2022", "--reason", "marine", "--phase", "abstract",
                        "--why", "W3", "--searched-in", "Scopus", "--dry-run")
    assert code == 1
    assert "--phase: 'abstract' is not in the vocabulary; allowed: title_screen, full_read" in err
    assert "--why: 'W3' is not in the vocabulary; allowed: W1, W2" in err


def _bundled_axes() -> set[str]:
    """What would show the bundled survey in a report: its fields, the codes and labels of its
    axes (not plain words that any survey may use)."""
    tax = yaml.safe_load((SURVEY / "corpus/taxonomy.yaml").read_text(encoding="utf-8"))
    out = set(tax["fields"]) | set(tax["free_fields"])
    for field in tax["fields"].values():
        out.add(field["label"])
        for code, value in field["values"].items():
            out.add(str(code))
            out.add(value["label"])
    for table in tax["tables"]:
        out |= {table["name"], table["title"], *(table.get("families") or {})}
        out |= {f["name"] for f in (table.get("families") or {}).values()}
    out |= {f["name"] for f in tax["figures"]}
    out |= {"multi-agent", "LLM", "Orchestration Traces", "2605.02801", "CC0", "near-strict", "coverage stress test"}
    plain = {n for n in out if re.fullmatch(r"[a-z]+|[A-Z][a-z]+", n)}
    generic = {"Screening stage", "arXiv", "OpenReview", "full-text screen", "abstract screen", "not applicable", "unassessed", "partial", "none",
               "Source", "Category", "category", "Scenario", "source", "stage", "domain", "scenario", "verified", "survey"}
    return out - plain - generic - {"prisma_flow"}  # masrl's own table of the screening flow, in every survey


def test_standalone_words_are_what_the_look_behind_pattern_finds():
    text = "credit-unit x-turn turn, (turn) turn_x a b -a b agent-level"
    words = ["a b", "turn", "b", "agent"]
    slow = re.compile("|".join(rf"(?<![\w-]){re.escape(w)}(?![\w-])" for w in words))
    assert standalone(words, text) == [m.group(0) for m in slow.finditer(text)] == ["turn", "turn", "a b", "b"]


def test_no_report_names_the_bundled_surveys_axes(survey):
    axes = sorted(_bundled_axes(), key=len, reverse=True)
    keywords = re.compile(r"(?i:reward|credit|orchestrat|sub-decision)")
    found = {}
    for path in sorted((survey / "reports").rglob("*")) + [survey / "README.md"]:
        rel = path.relative_to(survey).as_posix()
        if not path.is_file() or path.suffix in (".png", ".pdf") or rel == "reports/site/assets/site.js":
            continue  # site.js is masrl's script, copied as it is (see tests/test_no_survey_names.py)
        text = path.read_text(encoding="utf-8")
        if rel.startswith("reports/site/"):  # the exclusion log's URL parameter of site.js (not a field)
            text = text.replace("reason_class=", "")
        hits = sorted(set(standalone(axes, text)) | {m.group(0) for m in keywords.finditer(text)})
        if hits:
            found[rel] = hits
    assert not found, found
