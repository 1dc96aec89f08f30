"""What the author of a second survey found. BibTeX keys as Google Scholar and
Zotero write them, claims whose shares are shares of their population (checked against hand
counts), every key of the taxonomy checked, the format-1 message and the not-applicable value,
colours that follow the value, arrows only between steps, no suggestion from nothing, and one line
for a JSON file that is no trace."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import import_module

import pytest
import yaml

from hostile_surveys import edit_record, soil  # noqa: F401 (fixtures)
from masrl.build.pipeline import build
from masrl.corpus.load import load
from masrl.render.figures import figures_of

# The soil survey's retained records, by hand (tests/second_survey.py):
#   smith2019  spectroscopy    temperate        plot
#   jones2020  combustion      temperate boreal field
#   garcia2021 remote_sensing  arid tropics     landscape
#   chen2021   spectroscopy    tropics          field
#   okafor2022 combustion      tropics          plot
#   muller2023 NR              (none)           plot
#   tanaka2024 remote_sensing  boreal           field
# and its excluded ones: E001 title_screen W1, E002 full_read W2, E003 full_read W1.


# ---------------------------------------------------------------------------- BibTeX keys in any case
@pytest.mark.skipif(shutil.which("bibtex") is None or shutil.which("biber") is None, reason="bibtex and biber needed")
def test_a_bibtex_key_that_is_the_record_key_in_another_case_builds(soil, cli, edit_record, tmp_path):
    edit_record(soil / "corpus/papers/smith2019.yaml", bibtex_key="Smith2019")
    edit_record(soil / "corpus/papers/jones2020.yaml", bibtex_key="JONES2020")
    assert cli("validate", "--root", soil).code == 0
    run = cli("build", "--root", soil)
    assert run.code == 0, run.err
    bib = (soil / "reports/papers.bib").read_text(encoding="utf-8")
    assert "@misc{smith2019,\n" in bib and "  ids = {Smith2019},\n" in bib and "  ids = {JONES2020},\n" in bib
    (tmp_path / "doc.aux").write_text("\\relax\n\\citation{Smith2019}\n\\citation{jones2020}\n\\bibdata{papers}\n"
                                      "\\bibstyle{plain}\n")
    shutil.copy(soil / "reports/papers.bib", tmp_path / "papers.bib")
    done = subprocess.run(["bibtex", "doc"], cwd=tmp_path, capture_output=True, text=True)
    log = (tmp_path / "doc.blg").read_text()
    assert done.returncode == 0 and "error" not in log.lower().replace("(there were 0 error", ""), log
    assert (tmp_path / "doc.bbl").read_text().count("\\bibitem") == 2  # \cite{Smith2019} finds smith2019
    biber = subprocess.run(["biber", "--tool", "--output-file", "out.bib", "papers.bib"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert biber.returncode == 0 and "WARN" not in biber.stdout, biber.stdout


@pytest.mark.parametrize("owner, bibtex_key, other", [
    ("jones2020", "Smith2019", "corpus/papers/smith2019.yaml"),   # another record's key in another case
    ("jones2020", "smith2019", "corpus/papers/smith2019.yaml"),   # another record's key
])
def test_a_key_bibtex_would_read_as_another_records_is_refused_and_the_build_names_it(soil, cli, edit_record,
                                                                                       owner, bibtex_key, other):
    edit_record(soil / f"corpus/papers/{owner}.yaml", bibtex_key=bibtex_key)
    for command in ("validate", "build"):
        run = cli(command, "--root", soil)
        assert run.code == 1 and "Traceback" not in run.err
        assert f"corpus/papers/{owner}.yaml" in run.err and f"is the key of {other}" in run.err.replace(
            f"is in another case ('smith2019') the key of {other}", f"is the key of {other}"), run.err


def test_two_aliases_in_different_case_are_refused(soil, cli, edit_record):
    edit_record(soil / "corpus/papers/smith2019.yaml", bibtex_key="Soil2020")
    edit_record(soil / "corpus/papers/jones2020.yaml", bibtex_key="soil2020")
    run = cli("build", "--root", soil)
    assert run.code == 1 and "Traceback" not in run.err
    assert "'soil2020' is 'Soil2020', the bibtex_key of corpus/papers/smith2019.yaml, in another case" in run.err, run.err


# ---------------------------------------------------------------------------- shares of their population
SHARES = [
    # (population, where, of, max_percent, hand count, denominator, keys, holds)
    ("retained", {"region": "tropics"}, {"scale": "field"}, 50, 1, 3, ["chen2021"], True),
    ("retained", {"technique": "spectroscopy"}, {"scale": "plot"}, 30, 1, 3, ["smith2019"], False),
    ("retained", {"technique": ["spectroscopy", "combustion", "remote_sensing"]}, {"region": "tropics"}, 100, 3, 3,
     ["chen2021", "garcia2021", "okafor2022"], True),
    ("retained", {"region": "boreal"}, {"technique": {"not": "NR"}}, 40, 2, 6, ["jones2020", "tanaka2024"], True),
    ("retained", {"scale": "plot"}, {}, 40, 3, 7, ["muller2023", "okafor2022", "smith2019"], False),
    ("excluded", {"why": "W1"}, {"phase": "full_read"}, 50, 1, 2, ["E003"], True),
    ("excluded", {"why": "W2"}, {"why": "W1"}, 0, 0, 2, [], True),
]


def test_a_share_counts_only_records_of_its_population_as_counted_by_hand(soil, cli):
    claims = {"claims": [
        {"id": f"share-{i}", "statement": "A share: {s}.", "evidence_boundary": "test", "source": "test survey",
         "status": "current", "scope": "pool",
         "checks": [{"id": "s", "label": "a share", "population": population, "where": where, "of": of,
                     "max_percent": bound}]}
        for i, (population, where, of, bound, *_rest) in enumerate(SHARES)]}
    (soil / "corpus/claims.yaml").write_text(yaml.safe_dump(claims, sort_keys=False), encoding="utf-8")
    assert cli("validate", "--root", soil).code == 0
    results = {c.id: c.checks[0] for c in build(load(soil)).claims}
    for i, (_, _, _, _, count, denominator, keys, holds) in enumerate(SHARES):
        check = results[f"share-{i}"]
        assert (check.count, check.denominator, list(check.keys), check.holds) == (count, denominator, keys, holds), i
        assert check.count <= check.denominator
        share = f"{count * 100 / denominator:.1f}".rstrip("0").rstrip(".") + "%"
        assert check.computed() == f"{count} of {denominator} = {share}"
    run = cli("build", "--root", soil)
    assert run.code == 1  # two claims fail, as counted by hand
    table = (soil / "reports/claims.md").read_text(encoding="utf-8")
    assert "| 3 of 3 = 100% |" in table and "| 1 of 3 = 33.3% |" in table and "of 3 = 200%" not in table


# ---------------------------------------------------------------------------- the taxonomy's own keys
@pytest.mark.parametrize("line, message", [
    ("  data_license: CC-BY-4.0", "survey.data_license: unknown field 'data_license' (did you mean 'data_licence'?)"),
    ("  titel: Soil", "survey.titel: unknown field 'titel' (did you mean 'title'?)"),
    ("  homepage: https://example.org", "survey.homepage: unknown field 'homepage'; allowed: title, author, authors"),
])
def test_the_survey_section_refuses_an_unknown_key(soil, cli, line, message):
    tax = soil / "corpus/taxonomy.yaml"
    tax.write_text(tax.read_text(encoding="utf-8").replace("  data_licence: CC-BY-4.0", line), encoding="utf-8")
    run = cli("validate", "--root", soil)
    assert run.code == 1
    assert message in run.err, run.err


def test_format_1_asks_for_format_version_only_and_a_missing_not_applicable_is_warned(tmp_path, cli):
    root = tmp_path / "survey"
    assert cli("init", str(root)).code == 0
    tax = root / "corpus/taxonomy.yaml"
    text = tax.read_text(encoding="utf-8")
    tax.write_text(text.replace("format_version: 2\n", "").replace("\nnot_applicable: NA\n", "\n"), encoding="utf-8")
    old = cli("validate", "--root", root)
    assert old.code == 1
    assert "set format_version: 2 (the one key format 2 requires)" in old.err
    assert "it lacks" not in old.err and "(optional;" in old.err
    tax.write_text(text.replace("\nnot_applicable: NA\n", "\n"), encoding="utf-8")
    for command in ("validate", "build"):
        run = cli(command, "--root", root)
        assert run.code == 0, run.err
        warning = [line for line in run.err.splitlines() if "warning:" in line]
        assert len(warning) == 1 and "fields.method.values.NA: warning: 'NA' (not applicable) reads as 'not applicable', " \
                                     "but the taxonomy declares no not_applicable" in warning[0], run.err
    tax.write_text(text, encoding="utf-8")
    assert "warning" not in cli("validate", "--root", root).err


# ---------------------------------------------------------------------------- figure colours and arrows
CHAIN_BY_TECHNIQUE = '''  - name: regions_by_technique
    kind: values
    field: region
    title: Climate regions by technique
    index: region
    columns:
      - {name: label, attr: label}
      - {name: records, count: {}}
      - {split: technique, name: label}
    source: "test survey"
figures:
  - name: technique_chain
    kind: chain
    table: regions_by_technique
    caption: The regions with their studies by technique.
    title: "Regions by technique"
    item: region
    name_column: label
    count_column: records
    split: technique
'''


def _figures(root) -> dict:
    """``{figure name: matplotlib Figure}`` of every figure of the survey at ``root``, drawn."""
    results = build(load(root)).pool
    out = {}
    for spec in figures_of(results.tax):
        module = import_module(f"masrl.render.figures.{spec.module}")
        out[spec.name] = module.draw(spec.data(results), spec.options)
    return out


def _hex(colour) -> str:
    from matplotlib.colors import to_hex

    return to_hex(colour)


def test_a_value_has_one_colour_in_every_figure_and_not_applicable_is_grey(soil):
    tax = soil / "corpus/taxonomy.yaml"
    tax.write_text(tax.read_text(encoding="utf-8").replace("figures:\n", CHAIN_BY_TECHNIQUE, 1), encoding="utf-8")
    figures = _figures(soil)
    chain = {p.get_gid().split(":")[2]: _hex(p.get_facecolor()) for p in figures["technique_chain"].axes[0].patches
             if (p.get_gid() or "").startswith("bar:")}
    years = {c.get_label(): _hex(c.patches[0].get_facecolor()) for c in figures["studies_per_year"].axes[0].containers}
    assert set(chain) == {"spectroscopy", "dry combustion", "remote sensing"}  # no region record is NR
    assert set(years) == {"spectroscopy", "dry combustion", "remote sensing", "not reported"}
    assert {label: years[label] for label in chain} == chain
    assert years["not reported"] == "#b3b3b3"
    assert len(set(years.values())) == 4 and "#d55e00" not in years.values()  # the gap colour is no value's
    # the legends say the same
    legend = {t.get_text(): _hex(h.get_facecolor()) for t, h in zip(figures["technique_chain"].axes[0].get_legend().get_texts(),
                                                                     figures["technique_chain"].axes[0].get_legend().legend_handles)}
    assert legend == {**chain, "not reported": "#b3b3b3"}


def _arrows(fig) -> int:
    return sum(1 for t in fig.axes[0].texts if getattr(t, "arrow_patch", None) is not None)


def test_the_chain_draws_arrows_only_between_steps_in_order(soil):
    assert _arrows(_figures(soil)["region_chain"]) == 0  # tropical, temperate, boreal, arid: no sequence
    tax = soil / "corpus/taxonomy.yaml"
    tax.write_text(tax.read_text(encoding="utf-8").replace("  region:\n    applies_to: retained\n    multi: true\n",
                                                           "  region:\n    applies_to: retained\n    multi: true\n"
                                                           "    ordered: true\n"), encoding="utf-8")
    assert _arrows(_figures(soil)["region_chain"]) == 3


# ---------------------------------------------------------------------------- suggestions from nothing
def test_suggest_proposes_nothing_when_no_record_is_tagged(tmp_path, cli):
    root = tmp_path / "survey"
    assert cli("init", str(root)).code == 0
    assert cli("add", "--root", root, "--no-fetch", "--arxiv", "2605.01234", "--title", "Learning to orchestrate agents",
               "--author", "Doe, Jane", "--year", "2026").code == 0
    run = cli("suggest", "--root", root, "doe2026", "--json")
    assert run.code == 0, run.err
    assert json.loads(run.out) == {"method": [], "evaluation": []}
    text = cli("suggest", "--root", root, "doe2026")
    assert "no retained record is tagged yet, so there is nothing to learn from" in text.out
    assert "score" not in text.out and "[] (none)" not in text.out
    draft = cli("suggest", "--root", root, "doe2026", "--draft")
    assert draft.code == 1 and "no field has a suggestion to write as a draft" in draft.err


# ---------------------------------------------------------------------------- JSON that is no trace
@pytest.mark.parametrize("document, shape", [
    ({"foo": 1, "data": {"x": [1, 2]}, "spans": 3}, "a JSON object with the keys foo, data, spans"),
    ({"name": "run 7", "steps": [], "agents": {}}, "a JSON object with the keys name, steps, agents"),
    ([1, 2, 3], "a JSON array of 3 items"),
    ("just a string", "a JSON string"),
])
def test_json_that_no_converter_reads_is_named_in_one_line(tmp_path, cli, document, shape):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    convert = cli("trace", "convert", path)
    assert convert.code == 1
    assert convert.err.count("\n") == 1 and "give --from FORMAT" not in convert.err
    assert convert.err.startswith(f"masrl: error: {path}: not an export in a format masrl trace convert reads: it is {shape}; "
                                  "tried openinference (no spans with openinference.span.kind); otel (no resourceSpans, and "
                                  "no spans with traceId and spanId); langfuse (no trace with observations); openai-agents "
                                  "(no \"data\" list of trace and trace.span items); mlflow (no info with data.spans); "
                                  "message-log (no history of messages with a role or content)."), \
        convert.err
    validate = cli("trace", "validate", path)
    assert validate.code == 1
    problems = validate.err.splitlines()[:-1]
    assert len(problems) == 1, validate.err
    if isinstance(document, dict):
        assert problems[0].startswith(f"{path}: neither an orchestration trace (no events and edges) nor an export in a "
                                      f"format masrl trace convert reads: it is {shape}; tried openinference"), problems


def test_a_figure_on_a_table_of_the_wrong_kind_names_the_tables_that_would_do(soil, cli):
    tax = soil / "corpus/taxonomy.yaml"
    text = tax.read_text(encoding="utf-8")
    for old, new in (("    kind: chain\n    table: regions\n", "    kind: chain\n    table: technique\n"),
                     ("    kind: years\n    table: year_x_technique\n", "    kind: years\n    table: regions\n")):
        assert old in text
        text = text.replace(old, new, 1)
    tax.write_text(text, encoding="utf-8")
    lines = cli("validate", "--root", soil).err.splitlines()
    assert any(line.endswith("figures[2].table: a chain figure is drawn from a values table; 'technique' is none of "
                             "regions") for line in lines), lines
    assert any(line.endswith("figures[3].table: a years figure is drawn from a years table; 'regions' is none of "
                             "year_x_technique") for line in lines), lines


# ---------------------------------------------------------------------------- taxonomy codes, names and links
def test_a_value_code_that_reads_the_same_as_another_or_hides_a_character_is_refused(soil, cli):
    tax = soil / "corpus/taxonomy.yaml"
    text = tax.read_text(encoding="utf-8")
    anchor = "\nfields:\n"
    assert anchor in text
    lines = [line for line in text.splitlines() if line.startswith("      ") and ": {label:" in line]
    first = lines[0]
    indent = first[:len(first) - len(first.lstrip())]
    extra = (f'{indent}"lea\u200brned": {{label: zero width, definition: d, source: s}}\n'
             f'{indent}"cafe\u0301": {{label: b, definition: d, source: s}}\n'
             f'{indent}untagged: {{label: not known, definition: d, source: s}}\n')
    tax.write_text(text.replace(first + "\n", first + "\n" + extra, 1), encoding="utf-8")
    err = cli("validate", "--root", soil).err
    assert "the name 'lea\\u200brned' contains a character that is invisible" in err, err
    assert "'cafe\u0301' is written decomposed ('cafe\\u0301': a letter and a combining mark); write it composed " \
           "(NFC: 'caf\\xe9')" in err, err
    assert "'untagged' is masrl's placeholder for a field not tagged yet, so no value's code" in err, err
