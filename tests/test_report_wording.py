"""Reports say what is true and what changed: the site names the latest release for what it is,
hand-set tags are not "as imported", tables follow a blank line, help examples run, a known paper
is refused before any lookup, intervals that cannot be estimated say so, "changed" says what."""

from __future__ import annotations

import re
import shlex

import grow
import pytest

from masrl.core import clock
from masrl.analyses.agreement import agreement
from masrl.build.outputs import render_text
from masrl.build.pipeline import build
from masrl.corpus.load import load
from trees import published_only  # noqa: F401 - the published tree only


def _built(root):
    return build(load(root), {"survey_example": True})


def test_the_site_calls_only_the_published_release_the_survey_as_published(survey, cli):
    from masrl.render.site import site_files

    name = "v" + str(len(_built(survey).releases) + 1)
    today = clock.today().isoformat()
    grow.confirm_drafts(survey)  # a contributor's drafted tags, confirmed as a maintainer does before releasing
    assert cli("release", "--root", survey, name, "--date", today).code == 0
    result = _built(survey)
    page = site_files(result.pool, result.claims, result.baseline, result.pending)["site/index.html"].decode()
    note = re.search(r'<p class="release-note">(.*?)</p>', page, re.S).group(1)
    assert note.startswith(f"The latest release is <strong>{name}</strong> ({today}): Release {name} of the living review.")
    assert "survey as published" not in note


def test_hand_set_tags_of_a_stub_are_not_called_imported():
    from masrl.render.site.data import _tags
    from masrl.corpus.taxonomy import Taxonomy

    tax = Taxonomy({"fields": {"category": {"applies_to": "retained", "label": "Category", "values": {"survey": {"label": "survey"}}}}})
    stub = {"category": "survey", "provenance": {"source": "masrl add (command-line arguments)", "added": "2026-12-01"}}
    imported = {"category": "survey", "provenance": {"source": "upstream papers.csv line 11"}}
    given = {**stub, "tag_provenance": {"category": "hand-tagged: a survey of stopping rules"}}
    assert _tags(stub, tax)[0]["provenance"] == \
        "set by hand: masrl add wrote the record untagged (no tag_provenance given)"
    assert _tags(imported, tax)[0]["provenance"] == "as imported (upstream papers.csv line 11)"
    assert _tags(given, tax)[0]["provenance"] == "hand-tagged: a survey of stopping rules"
    # a record a person wrote (its source is no masrl command): not "hand wrote the record untagged"
    written = {"category": "survey", "provenance": {"source": "hand", "added": "2026-12-01"}}
    assert _tags(written, tax)[0]["provenance"] == "set by hand (the record's source: hand; no tag_provenance given)"


def test_every_generated_markdown_table_follows_a_blank_line(survey, cli):
    """A Markdown table right after a line of text is not a table for many renderers."""
    run = cli("exclude", "--root", survey, "--title", "PromptTeams: Prompting Agent Teams", "--arxiv", "2606.04567",
              "--author", "Novak, Petra", "--year", "2026", "--stage", "abstract_screen", "--reason", "prompted only",
              "--reason-class", "X1", "--source", "arXiv", "--query-family", "multi-agent LLM")
    assert run.code == 0, run.err
    corpus = load(survey)
    outputs = render_text(build(corpus, {"survey_example": True}), corpus.readme)
    text = outputs["reports/exclusions.md"].decode()
    assert "Records marked **new** were excluded after release" in text
    bad = []
    for rel, data in outputs.items():
        if not rel.endswith(".md") or data is None:
            continue
        lines = data.decode().splitlines()
        for i in range(1, len(lines)):
            if lines[i].startswith("|") and lines[i - 1].strip() and not lines[i - 1].startswith("|"):
                bad.append(f"{rel}:{i + 1}: {lines[i - 1][:60]!r}")
    assert bad == []


def _examples(command: str) -> list[list[str]]:
    from masrl.cli import EXAMPLES

    return [shlex.split(line.strip(), comments=True)[1:] for line in EXAMPLES[command].splitlines()
            if line.strip().startswith("masrl ")]


@pytest.mark.parametrize("command", ["add", "exclude", "release"])
def test_the_help_examples_that_need_no_network_run(survey, cli, command):
    ran = 0
    for argv in _examples(command):
        offline = command != "add" or "--no-fetch" in argv
        if not offline or "--bibtex" in argv:
            continue
        argv = [a for a in argv if a != "--dry-run"]
        if command == "exclude":  # FIELDS: what the help says it stands for, from the survey's taxonomy
            from masrl.cli import exclusion_example
            from masrl.commands.exclude import vocabulary
            from masrl.corpus.taxonomy import Taxonomy

            at = argv.index("FIELDS")
            argv[at:at + 1] = shlex.split(exclusion_example(vocabulary(Taxonomy(load(survey).taxonomy))))
        if "--freeze-claims" in argv:
            continue  # freezes the claims written about a release since: the releases guide runs it as written
        if command == "release":  # the next free name and today, from the tree in front of the test
            from masrl.corpus.releases import next_name, releases_from

            grow.confirm_drafts(survey)  # a contributor's drafted tags, confirmed as before a release

            argv[1] = next_name(releases_from(load(survey).releases))
            argv[argv.index("--date") + 1] = clock.today().isoformat()
            if "--cutoff" in argv:
                argv[argv.index("--cutoff") + 1] = clock.today().isoformat()
        if command == "exclude" and "--key" in argv:  # a record the taxonomy does not name, from the data
            names = {k for f in load(survey).taxonomy["fields"].values() for v in f["values"].values()
                     for k in v.get("representatives", []) + v.get("anchors", [])}
            argv[argv.index("--key") + 1] = sorted(p.stem for p in (survey / "corpus/papers").glob("*.yaml")
                                                   if p.stem not in names and p.stem != "c3")[0]
        run = cli(*argv, "--root", survey, "--dry-run")
        assert run.code == 0, (argv, run.err)
        ran += 1
    assert ran >= 1


def test_add_of_a_known_paper_is_refused_before_any_lookup(survey, cli):
    """Offline (every request fails in the tests), a paper already retained is named as such."""
    record = next(r for r in load(survey).retained.values() if r["identifiers"].get("arxiv"))
    run = cli("add", "--root", survey, record["identifiers"]["arxiv"])
    assert run.code == 1
    assert f"'{record['identifiers']['arxiv']}' refused: already retained as corpus/papers/{record['key']}.yaml" in run.err
    assert "cannot reach" not in run.err


def test_perfect_agreement_gives_no_point_interval():
    ratings = [("a", "a")] * 10 + [("b", "b")] * 10
    result = agreement(ratings, ("a", "b", "c"))
    assert result.kappa.value == result.ac1.value == 1.0
    assert (result.kappa.low, result.kappa.high, result.kappa.se) == (None, None, 0.0)
    assert (result.ac1.low, result.ac1.high, result.ac1.se) == (None, None, 0.0)
    assert (round(result.observed.low, 3), result.observed.high) == (0.839, 1.0)  # Wilson: reflects the 20 items
    assert result.pabak.low is not None and result.pabak.low < 1.0
    one_off = agreement([("a", "a")] * 9 + [("a", "b")] + [("b", "b")] * 10, ("a", "b", "c"))
    assert one_off.kappa.low is not None and one_off.kappa.low < one_off.kappa.value < 1.0


def test_the_audit_report_says_not_estimable(published_tree):
    text = (published_tree / "reports/audit.md").read_text(encoding="utf-8")
    agreement = text.split("\n## Second-reader agreement\n", 1)[1].split("\n## ", 1)[0]  # not the suggested-tags table
    rows = [line for line in agreement.splitlines() if line.startswith("| category | ")]
    assert rows and all("[1.000, 1.000]" not in r for r in rows)
    assert "1.000 [not estimable]" in rows[0]


def test_changed_records_and_vocabulary_say_what_changed(survey, set_field):
    from masrl.corpus.population import pending

    base = _built(survey)
    year = load(survey).retained["corpus/papers/c3.yaml"]["year"]
    set_field(survey / "corpus/papers/c3.yaml", "year", str(year - 1))
    result = _built(survey)
    pend = result.pending
    v1 = result.baseline.population
    before = {r["key"]: r for r in v1.retained} | {r["record_id"]: r for r in v1.excluded}
    now = {r["key"]: r for r in result.pool.population.retained} | {r["record_id"]: r for r in result.pool.population.excluded}
    fields = sorted({f for k in pend.changed for f in before[k].keys() | now[k].keys() if before[k].get(f) != now[k].get(f)})
    assert "year" in fields and dict(pend.changed_fields)["c3"] == ("year",)
    text = pend.describe(f"release {v1.name}")
    what = "the field" if len(fields) == 1 else "the fields"
    listed = ", ".join(fields[:-1]) + " and " + fields[-1] if len(fields) > 1 else fields[0]
    since = "" if (pend.count or pend.dropped) else f" since release {v1.name}"  # said once, in the first clause
    assert f"{len(pend.changed)} records changed{since} in {what} {listed}" in text
    if pend.vocabulary:
        assert text.endswith(" in " + " and ".join([", ".join(pend.vocabulary_sections[:-1]), pend.vocabulary_sections[-1]])
                             if len(pend.vocabulary_sections) > 1 else pend.vocabulary_sections[0])
    stats = render_text(result, load(survey).readme)["reports/STATS.md"].decode()
    assert f"The current pool ({text})." in stats
    assert pending(base.pool.population, base.pool.population).describe("x") == "identical to x"


def test_broad_means_one_thing_in_the_strict_vs_broad_table(published_tree):
    text = (published_tree / "reports/gaps.md").read_text(encoding="utf-8")
    header = next(line for line in text.splitlines() if line.startswith("| unit | broad | strict |"))
    assert header == "| unit | broad | strict | strict records | records without an explicit mechanism | unassessed records |"


def test_the_readme_list_of_one_group_speaks_of_it_in_the_singular():
    """'2 retained records in 1 methods': the group noun was always plural."""
    from types import SimpleNamespace

    from masrl.render.readme import papers_markdown

    field = SimpleNamespace(values=("a", "b"), value_label=lambda code: code.upper())
    tax = SimpleNamespace(fields={"method": field}, declared=lambda name: {"group_by": "method",
                                                                           "group_noun": ["method", "methods"]})
    records = [{"key": f"k{i}", "year": 2024, "title": f"T{i}", "authors": ["Doe, Jane"], "url": "https://x.org", "venue": "V", "one_liner": "O",
                "method": "a"} for i in range(2)]
    headline = {"retained": 2, "excluded": 0}
    assert papers_markdown(records, tax, headline).startswith("2 retained records in 1 method (and ")
    records[1]["method"] = "b"
    assert papers_markdown(records, tax, headline).startswith("2 retained records in 2 methods (and ")


def test_one_audited_record_is_spoken_of_in_the_singular():
    """'1 records were audited' in reports/audit.md and on the site's screening page."""
    from masrl.render.markdown import _environment

    line = next(line for line in (_environment(False).loader.get_source(_environment(False), "audit.md.j2")[0]
                                  .splitlines()) if "audited:" in line)
    for audited, said in ((1, "1 record was audited: 1 retained and 0 excluded."),
                          (2, "2 records were audited: 1 retained and 1 excluded.")):
        assert _environment(False).from_string(line).render(flow={"audited": audited, "retained": 1}) == said
