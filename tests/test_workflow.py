"""Contributor and auditor workflow: add, exclude, diff, BibTeX round trip, README list, audit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from masrl.core import clock
from masrl.bib import bibexport, bibtex
from masrl.build.audit_outputs import audit_data
from masrl.build.outputs import render_text
from masrl.corpus.load import load
from masrl.corpus.records import make_key
from trees import published_only  # noqa: F401 - the published tree only

NEW_PAPER = """@article{zhang2026rl,
  title   = {Reinforcement Learning for {LLM}-based Multi-Agent Systems through Orchestration Traces},
  author  = {Zhang, Chenchen and M{\\"u}ller, J{\\"o}rg and others},
  journal = {arXiv preprint arXiv:2605.02801},
  year    = {2026},
  url     = {https://arxiv.org/abs/2605.02801},
}
"""


def next_id(root: Path) -> str:
    """The record id masrl exclude gives next, computed from the exclusions in front of the test."""
    from masrl.review.excluding import next_record_id

    return next_record_id([p.stem for p in (root / "exclusions").glob("E*.yaml")])


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"})


# ---------------------------------------------------------------------------- add
def new_key(root: Path) -> str:
    """The key masrl add gives NEW_PAPER, computed from the records in front of the test."""
    return make_key("Zhang, Chenchen", 2026, {p.stem for p in (root / "corpus/papers").glob("*.yaml")})


def test_add_from_bibtex_writes_an_untagged_stub(survey, cli):
    key = new_key(survey)
    (survey / "new.bib").write_text(NEW_PAPER)
    run = cli("add", "--root", survey, "--bibtex", survey / "new.bib")
    assert run.code == 0, run.err
    assert run.out == f"created corpus/papers/{key}.yaml — every controlled field is 'untagged': tag it, then run `masrl validate`\n"
    text = (survey / f"corpus/papers/{key}.yaml").read_text()
    assert f"\ndate_added: '{clock.today().isoformat()}'\n" in text
    assert "authors:\n  - Zhang, Chenchen\n  - Müller, Jörg\n  - others\n" in text
    assert "identifiers:\n  arxiv: '2605.02801'\n" in text
    assert "\nreward_type: untagged\n" in text and "\nbibtex_key: zhang2026rl\n" in text
    check = cli("validate", "--root", survey)
    assert check.code == 1
    assert f"corpus/papers/{key}.yaml:14: category: untagged: tag it with one of rl_method, framework, benchmark, industry, classical_marl, survey" in check.err


def test_add_dry_run_writes_nothing(survey, cli):
    key = new_key(survey)
    (survey / "new.bib").write_text(NEW_PAPER)
    run = cli("add", "--root", survey, "--bibtex", survey / "new.bib", "--dry-run")
    assert run.code == 0 and f"# would write corpus/papers/{key}.yaml\nkey: {key}\n" in run.out
    assert not (survey / f"corpus/papers/{key}.yaml").exists()


def test_add_refuses_a_retained_paper_by_arxiv_id_with_another_title(survey, cli):
    run = cli("add", "--root", survey, "--arxiv", "2505.19591v3", "--title", "A Completely Different Title",
              "--author", "Dang, Yufan", "--year", "2025")
    assert run.code == 1
    assert ("command line: 'A Completely Different Title' refused: already retained as corpus/papers/puppeteer.yaml (same arxiv "
            "2505.19591; its title: 'Multi-Agent Collaboration via Evolving Orchestration')") in run.err
    assert not list((survey / "corpus/papers").glob("dang2025*"))


def test_add_refuses_an_excluded_paper(survey, cli):
    run = cli("add", "--root", survey, "--arxiv", "2308.08155", "--title", "AutoGen", "--author", "Wu, Qingyun", "--year", "2023")
    assert run.code == 1
    assert "already excluded as exclusions/E003.yaml (same arxiv 2308.08155" in run.err


def test_add_refuses_a_near_identical_title(survey, cli):
    run = cli("add", "--root", survey, "--url", "https://example.org/paper", "--title",
              "Multi-Agent Collaboration via Evolving Orchestration.", "--author", "Dang, Y.", "--year", "2025")
    assert run.code == 1
    assert run.err.splitlines() == [
        "command line: 'Multi-Agent Collaboration via Evolving Orchestration.' refused: already retained as "
        "corpus/papers/puppeteer.yaml (title 100% similar: 'Multi-Agent Collaboration via Evolving Orchestration')",
        "masrl: error: 1 of 1 paper(s) cannot be added; nothing was added; --force REASON adds a duplicate anyway, "
        "e.g. a distinct journal version"]


def test_add_force_records_the_reason(survey, cli):
    run = cli("add", "--root", survey, "--arxiv", "2505.19591", "--title", "Journal version", "--author", "Dang, Yufan",
              "--year", "2026", "--force", "journal version with new experiments")
    assert run.code == 0, run.err
    assert "forced: journal version with new experiments" in (survey / "corpus/papers/dang2026.yaml").read_text()


def test_add_never_overwrites(survey, cli):
    (survey / "corpus/papers/zhang2026.yaml").write_text("key: zhang2026\n")
    (survey / "new.bib").write_text(NEW_PAPER)
    run = cli("add", "--root", survey, "--bibtex", survey / "new.bib", "--key", "zhang2026")
    assert run.code == 1
    assert "--key zhang2026: the key is taken by corpus/papers/zhang2026.yaml; choose another" in run.err
    assert (survey / "corpus/papers/zhang2026.yaml").read_text() == "key: zhang2026\n"


@pytest.mark.parametrize("text, message", [
    ("@article{a, title={x}, title={y}, author={A, B}, year={2020}}\n", "BibTeX block could not be parsed: duplicate field(s) title in one entry"),
    ("@article{a, title={x}, author={A, B}, year={2020}}\n@article{a, title={z}, author={A, B}, year={2021}}\n",
     "BibTeX block could not be parsed: duplicate entry key 'a' (first defined at line 1)"),
    ("@article{b, title = {broken, author={A, B}, year={2020}\n", "BibTeX block could not be parsed: syntax error"),
])
def test_add_reports_unparsable_bibtex_blocks_by_line(survey, cli, text, message):
    (survey / "bad.bib").write_text(text)
    run = cli("add", "--root", survey, "--bibtex", survey / "bad.bib")
    assert run.code == 1
    assert message in run.err
    assert "bad.bib:" in run.err
    assert "Traceback" not in run.err


def test_an_identifier_given_twice_with_two_values_is_refused_not_the_last_kept():
    from grow import run_captured

    for flag, a, b in (("--arxiv", "2605.00006", "2605.00007"), ("--doi", "10.5555/a", "10.5555/b"),
                       ("--openreview", "OrA0000001", "OrB0000001")):
        run = run_captured("add", "--no-fetch", "--title", "T", "--author", "A, B", "--year", "2026", flag, a, flag, b)
        assert run.code == 2 and run.err.splitlines()[-1] == (
            f"masrl: error: argument {flag}: given twice, {a!r} and {b!r}: a record has one; which paper is it?"), run.err


def test_add_rejects_a_bad_identifier(survey, cli):
    run = cli("add", "--root", survey, "--arxiv", "2605.2801", "--title", "T", "--author", "A, B", "--year", "2026")
    assert run.code == 1
    assert "command line: --arxiv: '2605.2801' is not an arXiv id: ids of 2605 (2026-05) have a 5-digit number" in run.err


def test_a_venue_of_blanks_is_refused_and_one_with_spaces_around_is_kept_as_one_line(survey, cli, set_field):
    base = ("add", "--root", survey, "--no-fetch", "--title", "Orch H", "--author", "Doe, Jane", "--year", "2026", "--arxiv",
            "2605.00005")
    run = cli(*base, "--venue", "   ")
    assert run.code == 1 and "command line: venue: '   ' is not text: it holds only blanks" in run.err
    assert cli(*base, "--venue", " ICLR  2026 ").code == 0
    record = survey / "corpus/papers/doe2026.yaml"
    assert "\nvenue: ICLR 2026\n" in record.read_text()
    set_field(record, "venue", "'   '")  # and by hand: validate says what `venue: ''` gets
    run = cli("validate", "--root", survey)
    assert "corpus/papers/doe2026.yaml:8: venue: '   ' is not text: it holds only blanks" in run.err, run.err


# ---------------------------------------------------------------------------- exclude
def test_exclude_moves_a_retained_record_and_keeps_its_tags(survey, cli):
    rid = next_id(survey)
    run = cli("exclude", "--root", survey, "--key", "collm-maac2026", "--stage", "full_text_screen", "--reason",
              "overlaps magrpo", "--reason-class", "X4", "--source", "arXiv", "--query-family", "multi-agent LLM", "--date", "2026-11-30")
    assert run.code == 0, run.err
    assert f"moved corpus/papers/collm-maac2026.yaml -> exclusions/{rid}.yaml" in run.out
    assert not (survey / "corpus/papers/collm-maac2026.yaml").exists()
    text = (survey / f"exclusions/{rid}.yaml").read_text()
    assert "former_key: collm-maac2026\n" in text and "former_record:\n  key: collm-maac2026\n" in text
    assert "\nyear: 2026\n" in text and "\nauthors:\n  - Liu, Shuo\n  - Chen, Tianle\n" in text  # copied from the record
    assert f"\ndate_added: '{clock.today().isoformat()}'\n" in text
    assert "  reward_type: shared\n" in text and "&" not in text  # tags kept, no YAML anchors
    assert cli("validate", "--root", survey).code == 0


def test_exclude_refuses_a_record_the_taxonomy_names(survey, cli):
    before = sorted(p.stem for p in (survey / "exclusions").glob("*.yaml"))
    run = cli("exclude", "--root", survey, "--key", "puppeteer", "--stage", "full_text_screen", "--reason", "r",
              "--reason-class", "X1", "--source", "arXiv", "--query-family", "orchestration")
    assert run.code == 1
    assert "names record 'puppeteer', which is not a retained record" in run.err
    assert (survey / "corpus/papers/puppeteer.yaml").exists() and not (survey / f"exclusions/{next_id(survey)}.yaml").exists()
    assert sorted(p.stem for p in (survey / "exclusions").glob("*.yaml")) == before


def test_exclude_checks_the_vocabulary(survey, cli):
    run = cli("exclude", "--root", survey, "--title", "T", "--arxiv", "2601.00001", "--stage", "full_text", "--reason", "r",
              "--reason-class", "X9", "--source", "arxiv", "--query-family", "orchestration")
    assert run.code == 1
    assert ("command line: --stage: 'full_text' is not in the vocabulary; allowed: abstract_screen, full_text_screen, "
            "artifact_screen, duplicate_screen (did you mean 'full_text_screen'?)") in run.err.splitlines()
    assert "command line: --reason-class: 'X9' is not in the vocabulary; allowed: X1, X2, X3, X4, X5" in run.err.splitlines()


def test_exclude_a_screened_paper(survey, cli):
    rid = next_id(survey)
    run = cli("exclude", "--root", survey, "--title", "Some Prompted Framework", "--arxiv", "2601.00001", "--stage",
              "abstract_screen", "--reason", "prompted only", "--reason-class", "X1", "--source", "arXiv",
              "--query-family", "multi-agent LLM", "--date", "2026-11-30", "--author", "Doe, Jane", "--author", "others",
              "--year", "2026")
    assert run.code == 0, run.err
    text = (survey / f"exclusions/{rid}.yaml").read_text()
    assert text.startswith(f"record_id: {rid}\nscreening_label: Some Prompted Framework\nauthors:\n  - Doe, Jane\n  - others\n"
                           "year: 2026\nidentifiers:\n  arxiv: '2601.00001'\nurl: https://arxiv.org/abs/2601.00001\n")
    assert f"date_screened: '2026-11-30'\ndate_added: '{clock.today().isoformat()}'\n" in text
    assert cli("validate", "--root", survey).code == 0
    log = (survey / "reports/exclusions.md")
    assert cli("build", "--root", survey).code == 0
    assert f"| {rid} **new** | [Some Prompted Framework](https://arxiv.org/abs/2601.00001) | Doe et al. | 2026 | abstract screen |" in log.read_text()


def test_an_exclusion_id_a_release_froze_is_never_given_again(survey, cli):
    """The last exclusion of the log, overturned by an audit (its file removed), keeps its id in the releases that
    froze it: the next exclusion takes the id after it, never that one again."""
    import yaml

    frozen = {str(k) for p in (survey / "corpus/releases").glob("*.yaml") for k in yaml.safe_load(p.read_text())["excluded"]}
    last = max(frozen, key=lambda rid: int(rid[1:]))
    on_disk = {p.stem for p in (survey / "exclusions").glob("*.yaml")}
    if max(on_disk, key=lambda rid: int(rid[1:])) == last:  # the published tree: the overturned record is the last
        (survey / f"exclusions/{last}.yaml").unlink()
    expected = f"E{max(int(rid[1:]) for rid in frozen | on_disk) + 1:03d}"
    run = cli("exclude", "--root", survey, "--title", "A Paper About Cooking", "--arxiv", "2601.00002", "--stage",
              "abstract_screen", "--reason", "off topic", "--reason-class", "X1", "--source", "arXiv",
              "--query-family", "multi-agent LLM", "--date", "2026-11-30", "--author", "Chef, Carla", "--year", "2026")
    assert run.code == 0 and f"created exclusions/{expected}.yaml" in run.out, (run.out, run.err)


def test_exclude_a_screened_paper_needs_authors_and_year(survey, cli):
    run = cli("exclude", "--root", survey, "--title", "Some Prompted Framework", "--arxiv", "2601.00001", "--stage",
              "abstract_screen", "--reason", "prompted only", "--reason-class", "X1", "--source", "arXiv",
              "--query-family", "multi-agent LLM")
    assert run.code == 1
    need = "a screened paper needs it (as for masrl add: --author \"Last, First\" once per author, 'others' if incomplete; --year YYYY)"
    assert run.err.splitlines() == [f"command line: --author: {need}", f"command line: --year: {need}",
                                    "masrl: error: 2 errors in the command line; nothing was written."]
    run = cli("exclude", "--root", survey, "--title", "Some Prompted Framework", "--arxiv", "2601.00001", "--stage",
              "abstract_screen", "--reason", "prompted only", "--reason-class", "X1", "--source", "arXiv",
              "--query-family", "multi-agent LLM", "--year", "99999")  # named beside the missing author
    assert run.err.splitlines() == [f"command line: --year: 99999 is out of range; allowed: 1950 to {clock.today().year + 1}",
                                    f"command line: --author: {need}",
                                    "masrl: error: 2 errors in the command line; nothing was written."], run.err
    assert not (survey / f"exclusions/{next_id(survey)}.yaml").exists()


# ---------------------------------------------------------------------------- diff
def test_diff_names_the_counts_and_claims_a_new_paper_changes(survey, cli, set_field):
    key = new_key(survey)
    before = load(survey)
    retained = len(before.retained)
    surveys = sum(r["category"] == "survey" for r in before.retained.values())
    git(survey, "init", "-q")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    (survey / "new.bib").write_text(NEW_PAPER)
    assert cli("add", "--root", survey, "--bibtex", survey / "new.bib").code == 0
    path = survey / f"corpus/papers/{key}.yaml"
    for field, value in (("category", "survey"), ("is_rl", "yes"), ("reward_type", "NA"), ("credit_granularity", "NA"),
                         ("credit_mechanism", "NA"), ("orchestration_form", "NA"), ("scenario", "general"),
                         ("is_core", "core"), ("inclusion_criterion", "I5"), ("verified", "'yes'"),
                         ("one_liner", "The survey itself")):
        set_field(path, field, value)
    path.write_text(path.read_text().replace("subdecisions:\n  - untagged\n", "subdecisions: []\n"))
    assert cli("validate", "--root", survey).code == 0
    run = cli("diff", "--root", survey, "HEAD")
    assert run.code == 0, run.err
    assert f"- added `{key}`: Reinforcement Learning for LLM-based Multi-Agent Systems through Orchestration Traces" in run.out
    assert f"| headline | retained | count | {retained} | {retained + 1} |" in run.out
    assert f"| category | survey | count | {surveys} | {surveys + 1} |" in run.out
    assert "No claim was edited and no verdict changed." in run.out and "No check result changed." in run.out
    data = json.loads(cli("diff", "--root", survey, "HEAD", "--json").out)
    assert data["records"]["added"] == [{"key": key, "title": "Reinforcement Learning for LLM-based Multi-Agent Systems through Orchestration Traces"}]


def test_diff_names_an_audit_changed_or_removed(survey, cli):
    """An audit's readings are the survey's published agreement (reports/audit.md): a reviewer sees any change."""
    git(survey, "init", "-q")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    path = survey / "corpus/audits/spotcheck-2026-05-03.yaml"
    assert "No audit was added, removed or changed." in cli("diff", "--root", survey, "HEAD").out
    text = path.read_text()
    old = "    second_reader:\n      category: rl_method\n"
    assert old in text
    path.write_text(text.replace(old, "    second_reader:\n      category: framework\n", 1))
    assert cli("validate", "--root", survey).code == 0
    run = cli("diff", "--root", survey, "HEAD")
    assert run.out.split("### Audits\n", 1)[1].strip() == (
        "- audit changed: `spotcheck-2026-05-03` (its sample, readings or adjudication; `reports/audit.md` shows the agreement)")
    path.unlink()
    data = json.loads(cli("diff", "--root", survey, "HEAD", "--json").out)
    assert data["audits"] == {"added": [], "removed": ["spotcheck-2026-05-03"], "changed": []}


def test_diff_reports_retagging_and_broken_claims(survey, cli, set_field):
    pool = load(survey)
    message = sum(r["credit_granularity"] == "message" for r in pool.retained.values())
    git(survey, "init", "-q")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    set_field(survey / "corpus/papers/debate-as-reward.yaml", "credit_granularity", "turn")
    set_field(survey / "corpus/papers/c3.yaml", "subdecisions", "[O5]")  # c3 is explicit RL: now it trains O5
    run = cli("diff", "--root", survey, "HEAD")
    assert "| `debate-as-reward` | credit_granularity | message | turn |" in run.out
    assert f"| credit_granularity | message | count | {message} | {message - 1} |" in run.out
    assert "| o5-stopping-uncovered | records training O5 with explicit RL | 0 | 1 | holds → fails |" in run.out
    assert "| o5-stopping-uncovered | verdict | holds | fails |" in run.out
    assert "**Current claims that now fail** (masrl build will exit 1): o5-stopping-uncovered." in run.out
    assert "message-credit-v1" not in run.out and "headline-sparsity" not in run.out  # claims about release v1 cannot move


def test_diff_outside_git_is_a_clear_error(survey, cli):
    run = cli("diff", "--root", survey, "HEAD")
    assert run.code == 1 and run.err == (f"masrl: error: {survey} is not inside a git repository; masrl diff compares "
                                         "with a git revision: work in a clone of the survey (or run `git init` and commit once)\n")


# ---------------------------------------------------------------------------- BibTeX
def test_bibtex_export_of_the_84_upstream_entries_keeps_their_facts(repo, published):
    """Every upstream entry's title, authors, year and identifiers survive the export;
    its venue field survives where the entry type follows the venue."""
    from masrl.bib.bibimport import entry_identifiers

    upstream = bibtex.parse((repo / "tests/data/upstream_papers.bib").read_text(), "upstream.bib")
    assert upstream.problems == [] and len(upstream.entries) == 84
    records = list(published.retained_records)  # the records of the survey as published
    exported = bibtex.parse(bibexport.export(records), "papers.bib")
    assert exported.problems == [] and len(exported.entries) == 84
    after = {e.fields.get("ids", e.key): e for e in exported.entries}
    for old in upstream.entries:
        new = after[old.key]
        names = [[bibtex.display_name(bibtex.record_author(a)) for a in e.names["author"]] for e in (new, old)]
        assert names[0] == names[1], old.key
        for field in ("year", "doi", "volume", "number", "pages", "booktitle"):
            assert new.fields.get(field) == old.fields.get(field) or field == "year" and old.key in ("malt2025", "toolbench2023") \
                or field == "booktitle" and old.key == "lamo2026" \
                or field == "doi" and "doi" not in old.fields, (old.key, field)  # a record's DOI is exported where known
        assert bibtex.decode_latex(new.fields["title"]).replace("{", "") == bibtex.decode_latex(old.fields["title"]), old.key
        old_ids = {i.key for i in entry_identifiers(old.fields)[0]}
        assert old_ids <= {i.key for i in entry_identifiers(new.fields)[0]}, old.key


def test_bibtex_export_escapes_new_records():
    record = {"key": "k", "title": "Müller & Co: 50% of $x_1$ #1", "authors": ["Müller, Jörg", "Kimi Team", "others"],
              "year": 2026, "venue": "Blog Post", "url": "https://x.org", "identifiers": {"url": ["https://x.org"]}, "bibtex_key": "k"}
    text = bibexport.export([record])
    assert "title = {M{\\\"u}ller \\& Co: 50\\% of \\$x\\_1\\$ \\#1}," in text
    assert "author = {M{\\\"u}ller, J{\\\"o}rg and {Kimi Team} and others}," in text
    parsed = bibtex.parse(text, "x.bib")
    assert parsed.problems == [] and [bibtex.record_author(a) for a in parsed.entries[0].names["author"]] == ["Müller, Jörg", "Kimi Team", "others"]
    assert bibtex.decode_latex(parsed.entries[0].fields["title"]) == "Müller & Co: 50% of $x_1$ #1"


# ---------------------------------------------------------------------------- README and audit
def test_readme_paper_list_is_generated_and_unicode(survey_tree, built):
    corpus = load(survey_tree)
    readme = render_text(built, corpus.readme)["README.md"].decode()
    assert readme == corpus.readme  # the committed README is current
    section = readme.split("<!-- masrl:papers:start -->")[1].split("<!-- masrl:papers:end -->")[0]
    counts = built.pool.table("category").frame["count"]
    assert f"### RL method ({counts['rl_method']})" in section and f"### Benchmark ({counts['benchmark']})" in section
    assert "Grégoire Mialon et al. (2023)" in section and "\\'" not in section


def test_readme_without_markers_is_a_clear_error(survey, cli):
    (survey / "README.md").write_text("# my survey\n")
    run = cli("build", "--root", survey, "--check")
    assert run.code == 1
    assert run.err == ("masrl: error: README.md must contain the lines <!-- masrl:papers:start --> and "
                       "<!-- masrl:papers:end --> (in that order, each on a line of its own) around the paper list\n")


def test_the_marker_text_outside_its_own_line_is_text_and_a_marker_line_given_twice_is_refused(survey, cli):
    """A title or a sentence quoting the start marker is not where the list goes: the README around the list
    is kept whole. A marker line written twice is one clear error, and nothing is written."""
    readme = survey / "README.md"
    text = readme.read_text(encoding="utf-8")
    quoted = ("# <!-- masrl:papers:start --> a survey\n\nThe list goes after `<!-- masrl:papers:start -->`:\n\n"
              "```markdown\n<!-- masrl:papers:start -->\n<!-- masrl:papers:end -->\n```\n\n")
    readme.write_text(quoted + text, encoding="utf-8")
    assert cli("build", "--root", survey).code == 0
    after = readme.read_text(encoding="utf-8")
    assert after.startswith(quoted) and after.count("<!-- masrl:papers:start -->") == 4
    readme.write_text(after + "\n<!-- masrl:papers:end -->\n", encoding="utf-8")
    run = cli("build", "--root", survey)
    assert run.code == 1 and run.err.startswith("masrl: error: README.md has the line <!-- masrl:papers:end --> 2 times "
                                                "(lines "), run.err


def test_audit_reproduces_the_agreement_figures(built):
    data = audit_data(built)
    spotcheck = data["agreements"][0]
    assert spotcheck["audit_id"] == "spotcheck-2026-05-03" and [r["round"] for r in spotcheck["rounds"]] == [1]
    fields = {f["field"]: f for f in spotcheck["rounds"][0]["fields"]}
    assert {k: (f["agree"], f["items"]) for k, f in fields.items()} == {
        "category": (32, 32), "is_rl": (32, 32), "reward_type": (32, 32), "orchestration_form": (32, 32),
        "credit_granularity": (31, 32)}
    assert fields["credit_granularity"]["disagreements"] == [
        {"item": "halo", "record": "halo", "values": {"original": "role", "second reader": "orchestrator"},
         "resolved": None, "by": None, "status": "not adjudicated"}]
    assert fields["credit_granularity"]["kappa"] == pytest.approx(0.959184, abs=1e-6)
    assert fields["category"]["kappa"] == 1.0


def test_audit_what_if_and_bibtex_mismatches(built):
    data = audit_data(built)
    changed = {(r["claim"], r["check"]): (r["before"], r["after"]) for r in data["what_if"] if r["changed"]}
    sparse_credit = [(r["claim"], r["check"]) for r in data["what_if"]
                     if r["claim"] in ("message-credit-sparse", "orchestrator-credit-sparse", "near-miss-robust",
                                       "message-credit-v1", "orchestrator-credit-v1", "near-miss-robust-v1")
                     and r["holds_before"] != r["holds_after"]]
    assert sparse_credit == []  # as the survey says: the near misses change no sparse-credit claim
    assert ("subdecision-coverage-v1", "records addressing O5 (when to stop)") not in changed
    assert ("o5-stopping-uncovered", "records training O5 with explicit RL") not in changed
    assert changed[("headline-sparsity", "orchestration_form centralized")] == ("18", "22")
    assert data["verdict_changed"] == ["headline-sparsity"]
    mismatches = {(m["key"], m["field"]): (m["record"], m["bibtex"]) for m in data["bibtex_mismatches"]}
    assert mismatches[("malt", "year")] == ("2024", "2025")
    assert mismatches[("toolbench2023", "year")] == ("2023", "2024")
    assert ("kimi-k2-5", "title") in mismatches


def test_templates_are_strict():
    import jinja2

    from masrl.render.markdown import render_template

    with pytest.raises(jinja2.UndefinedError):
        render_template("stats.md.j2", headline={"retained": 1, "excluded": 0, "audited": 1})


def test_exclude_reports_every_problem_of_its_command_line_at_once(survey, cli):
    run = cli("exclude", "--root", survey, "--title", "TODO", "--arxiv", "2609.00001", "--stage", "abstract_screen",
              "--reason", "...", "--reason-class", "X1", "--source", "arXiv", "--query-family", "zzz", "--date", "2026-02-30",
              "--author", ", G", "--year", "2026")
    assert run.code == 1
    lines = run.err.splitlines()
    assert lines[0].startswith("command line: --query-family: 'zzz' is not in the vocabulary; allowed: multi-agent LLM, ")
    assert lines[1:] == [
        "command line: --date: '2026-02-30' names no day of the calendar: February 2026 has 28 days",
        "command line: --title: 'TODO' is a placeholder; give the paper's real title",
        "command line: --author: ', G' has no last name (write \"Last, First\"); give the paper's real author",
        "command line: --reason: '...' is only punctuation, a placeholder; say why the paper is excluded",
        "masrl: error: 5 errors in the command line; nothing was written.",
    ]
    assert not (survey / f"exclusions/{next_id(survey)}.yaml").exists()
