"""Contributor and auditor workflow: add, exclude, diff, BibTeX round trip, README list, audit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from masrl import bibtex
from masrl.analyses.audit import cohen_kappa
from masrl.load import load
from masrl.pipeline import analyse, audit_data, render_text

NEW_PAPER = """@article{zhang2026rl,
  title   = {Reinforcement Learning for {LLM}-based Multi-Agent Systems through Orchestration Traces},
  author  = {Zhang, Chenchen and M{\\"u}ller, J{\\"o}rg and others},
  journal = {arXiv preprint arXiv:2605.02801},
  year    = {2026},
  url     = {https://arxiv.org/abs/2605.02801},
}
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"})


# ---------------------------------------------------------------------------- add
def test_add_from_bibtex_writes_an_untagged_stub(survey, cli):
    (survey / "new.bib").write_text(NEW_PAPER)
    run = cli("add", "--root", survey, "--bibtex", survey / "new.bib")
    assert run.code == 0, run.err
    assert run.out == "created corpus/papers/zhang2026.yaml — every controlled field is 'untagged': tag it, then run `masrl validate`\n"
    text = (survey / "corpus/papers/zhang2026.yaml").read_text()
    assert "authors:\n  - Zhang, Chenchen\n  - Müller, Jörg\n  - others\n" in text
    assert "identifiers:\n  arxiv: '2605.02801'\n" in text
    assert "\nreward_type: untagged\n" in text and "\nbibtex_key: zhang2026rl\n" in text
    check = cli("validate", "--root", survey)
    assert check.code == 1
    assert "corpus/papers/zhang2026.yaml:14: category: untagged: tag it with one of rl_method, framework, benchmark, industry, classical_marl, survey" in check.err


def test_add_dry_run_writes_nothing(survey, cli):
    (survey / "new.bib").write_text(NEW_PAPER)
    run = cli("add", "--root", survey, "--bibtex", survey / "new.bib", "--dry-run")
    assert run.code == 0 and "# would write corpus/papers/zhang2026.yaml\nkey: zhang2026\n" in run.out
    assert not (survey / "corpus/papers/zhang2026.yaml").exists()


def test_add_refuses_a_retained_paper_by_arxiv_id_with_another_title(survey, cli):
    run = cli("add", "--root", survey, "--arxiv", "2505.19591v3", "--title", "A Completely Different Title",
              "--author", "Dang, Yufan", "--year", "2025")
    assert run.code == 1
    assert ("refused: 'A Completely Different Title' — already retained as corpus/papers/puppeteer.yaml (same arxiv "
            "2505.19591; its title: 'Multi-Agent Collaboration via Evolving Orchestration')") in run.err
    assert not list((survey / "corpus/papers").glob("dang2025*"))


def test_add_refuses_an_excluded_paper(survey, cli):
    run = cli("add", "--root", survey, "--arxiv", "2308.08155", "--title", "AutoGen", "--author", "Wu, Qingyun", "--year", "2023")
    assert run.code == 1
    assert "already excluded as exclusions/E003.yaml (same arxiv 2308.08155" in run.err


def test_add_refuses_a_near_identical_title(survey, cli):
    run = cli("add", "--root", survey, "--url", "https://example.org/paper", "--title",
              "Multi-Agent Collaboration via Evolving Orchestration.", "--author", "X, Y", "--year", "2025")
    assert run.code == 1
    assert ("refused: 'Multi-Agent Collaboration via Evolving Orchestration.' — already retained as corpus/papers/puppeteer.yaml "
            "(title 100% similar: 'Multi-Agent Collaboration via Evolving Orchestration')") in run.err.splitlines()


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
    assert "refusing to overwrite existing file(s): corpus/papers/zhang2026.yaml" in run.err
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


def test_add_rejects_a_bad_identifier(survey, cli):
    run = cli("add", "--root", survey, "--arxiv", "2605.2801", "--title", "T", "--author", "A, B", "--year", "2026")
    assert run.code == 1
    assert "identifiers.arxiv: '2605.2801' is not a valid arXiv identifier" in run.err


# ---------------------------------------------------------------------------- exclude
def test_exclude_moves_a_retained_record_and_keeps_its_tags(survey, cli):
    run = cli("exclude", "--root", survey, "--key", "collm-maac2026", "--stage", "full_text_screen", "--reason",
              "overlaps magrpo", "--reason-class", "X4", "--source", "arXiv", "--query-family", "multi-agent LLM", "--date", "2026-11-30")
    assert run.code == 0, run.err
    assert "moved corpus/papers/collm-maac2026.yaml -> exclusions/E033.yaml" in run.out
    assert not (survey / "corpus/papers/collm-maac2026.yaml").exists()
    text = (survey / "exclusions/E033.yaml").read_text()
    assert "former_key: collm-maac2026\n" in text and "former_record:\n  key: collm-maac2026\n" in text
    assert "  reward_type: shared\n" in text and "&" not in text  # tags kept, no YAML anchors
    assert cli("validate", "--root", survey).code == 0


def test_exclude_refuses_a_record_the_taxonomy_names(survey, cli):
    run = cli("exclude", "--root", survey, "--key", "puppeteer", "--stage", "full_text_screen", "--reason", "r",
              "--reason-class", "X1", "--source", "arXiv", "--query-family", "orchestration")
    assert run.code == 1
    assert "names record 'puppeteer', which is not a retained record" in run.err
    assert (survey / "corpus/papers/puppeteer.yaml").exists() and not (survey / "exclusions/E033.yaml").exists()


def test_exclude_checks_the_vocabulary(survey, cli):
    run = cli("exclude", "--root", survey, "--title", "T", "--arxiv", "2601.00001", "--stage", "full_text", "--reason", "r",
              "--reason-class", "X9", "--source", "arxiv", "--query-family", "orchestration")
    assert run.code == 1
    assert ("command line: --stage: 'full_text' is not in the vocabulary; allowed: abstract_screen, full_text_screen, "
            "artifact_screen, duplicate_screen (did you mean 'full_text_screen'?)") in run.err.splitlines()
    assert "command line: --reason-class: 'X9' is not in the vocabulary; allowed: X1, X2, X3, X4, X5" in run.err.splitlines()


def test_exclude_a_screened_paper(survey, cli):
    run = cli("exclude", "--root", survey, "--title", "Some Prompted Framework", "--arxiv", "2601.00001", "--stage",
              "abstract_screen", "--reason", "prompted only", "--reason-class", "X1", "--source", "arXiv",
              "--query-family", "multi-agent LLM", "--date", "2026-11-30")
    assert run.code == 0, run.err
    text = (survey / "exclusions/E033.yaml").read_text()
    assert text.startswith("record_id: E033\nscreening_label: Some Prompted Framework\nidentifiers:\n  arxiv: '2601.00001'\n"
                           "url: https://arxiv.org/abs/2601.00001\n")
    assert cli("validate", "--root", survey).code == 0


# ---------------------------------------------------------------------------- diff
def test_diff_names_the_counts_and_claims_a_new_paper_changes(survey, cli, set_field):
    git(survey, "init", "-q")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    (survey / "new.bib").write_text(NEW_PAPER)
    assert cli("add", "--root", survey, "--bibtex", survey / "new.bib").code == 0
    path = survey / "corpus/papers/zhang2026.yaml"
    for field, value in (("category", "survey"), ("is_rl", "yes"), ("reward_type", "NA"), ("credit_granularity", "NA"),
                         ("credit_mechanism", "NA"), ("orchestration_form", "NA"), ("scenario", "general"),
                         ("is_core", "core"), ("inclusion_criterion", "I5"), ("verified", "'yes'"),
                         ("one_liner", "The survey itself")):
        set_field(path, field, value)
    path.write_text(path.read_text().replace("subdecisions:\n  - untagged\n", "subdecisions: []\n"))
    assert cli("validate", "--root", survey).code == 0
    run = cli("diff", "--root", survey, "HEAD")
    assert run.code == 0, run.err
    assert "- added `zhang2026`: Reinforcement Learning for LLM-based Multi-Agent Systems through Orchestration Traces" in run.out
    assert "| headline | retained | count | 84 | 85 |" in run.out
    assert "| category | survey | count | 5 | 6 |" in run.out
    assert "No claim result changed." in run.out
    data = json.loads(cli("diff", "--root", survey, "HEAD", "--json").out)
    assert data["records"]["added"] == [{"key": "zhang2026", "title": "Reinforcement Learning for LLM-based Multi-Agent Systems through Orchestration Traces"}]


def test_diff_reports_retagging_and_broken_claims(survey, cli, set_field):
    git(survey, "init", "-q")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    set_field(survey / "corpus/papers/debate-as-reward.yaml", "credit_granularity", "turn")
    run = cli("diff", "--root", survey, "HEAD")
    assert "| `debate-as-reward` | credit_granularity | message | turn |" in run.out
    assert "| credit_granularity | message | count | 2 | 1 |" in run.out
    assert "| message-credit-sparse | records with message-level credit (broad tag) | 2 | 1 | holds → fails |" in run.out
    assert "**Current claims that now fail** (masrl build will exit 1): headline-sparsity, message-credit-sparse, near-miss-robust." in run.out


def test_diff_outside_git_is_a_clear_error(survey, cli):
    run = cli("diff", "--root", survey, "HEAD")
    assert run.code == 1 and run.err == (f"masrl: error: {survey} is not inside a git repository; masrl diff compares "
                                         "with a git revision: work in a clone of the survey (or run `git init` and commit once)\n")


# ---------------------------------------------------------------------------- BibTeX
def test_bibtex_round_trip_of_all_84_upstream_entries(repo):
    upstream, problems = bibtex.parse((repo / "tests/data/upstream_papers.bib").read_text(), "upstream.bib")
    assert problems == [] and len(upstream) == 84
    records = [r for r in analyse(load(repo), {"survey_example": True}).retained_records]
    exported, problems = bibtex.parse(bibtex.export(records), "papers.bib")
    assert problems == [] and len(exported) == 84
    before = {e["key"]: e for e in upstream}
    after = {e["key"]: e for e in exported}
    assert set(before) == set(after)
    for key, old in before.items():
        new = after[key]
        assert new["type"] == old["type"], key
        assert new["authors"] == old["authors"], key
        for field in ("title", "year", "journal", "booktitle", "howpublished", "doi", "url", "volume", "number", "pages"):
            assert new["fields"].get(field) == old["fields"].get(field), (key, field)


def test_bibtex_export_escapes_new_records():
    record = {"key": "k", "title": "Müller & Co: 50% of $x_1$ #1", "authors": ["Müller, Jörg", "Kimi Team", "others"],
              "year": 2026, "url": "https://x.org", "identifiers": {"url": ["https://x.org"]}, "bibtex_key": "k"}
    text = bibtex.export([record])
    assert "title = {M\\\"uller \\& Co: 50\\% of \\$x\\_1\\$ \\#1}," in text
    assert "author = {M\\\"uller, J\\\"org and {Kimi Team} and others}," in text
    entries, problems = bibtex.parse(text, "x.bib")
    assert problems == [] and entries[0]["authors"] == ["Müller, Jörg", "Kimi Team", "others"]
    assert bibtex.decode_latex(entries[0]["fields"]["title"]) == "Müller & Co: 50% of $x_1$ #1"


# ---------------------------------------------------------------------------- README and audit
def test_readme_paper_list_is_generated_and_unicode(repo):
    corpus = load(repo)
    readme = render_text(analyse(corpus, {"survey_example": True}), corpus.readme)["README.md"].decode()
    assert readme == corpus.readme  # the committed README is current
    section = readme.split("<!-- masrl:papers:start -->")[1].split("<!-- masrl:papers:end -->")[0]
    assert "### RL method (42)" in section and "### Benchmark (18)" in section
    assert "Grégoire Mialon et al. (2023)" in section and "\\'" not in section


def test_readme_without_markers_is_a_clear_error(survey, cli):
    (survey / "README.md").write_text("# my survey\n")
    run = cli("build", "--root", survey, "--check")
    assert run.code == 1
    assert run.err == ("masrl: error: README.md must contain the lines <!-- masrl:papers:start --> and "
                       "<!-- masrl:papers:end --> (in that order) around the paper list\n")


def test_audit_reproduces_the_agreement_figures(repo):
    data = audit_data(analyse(load(repo), {"survey_example": True}))
    fields = {f["field"]: f for f in data["agreements"][0]["fields"]}
    assert {k: (f["agree"], f["items"]) for k, f in fields.items()} == {
        "category": (32, 32), "is_rl": (32, 32), "reward_type": (32, 32), "orchestration_form": (32, 32),
        "credit_granularity": (31, 32)}
    assert fields["credit_granularity"]["disagreements"] == [["halo", "role", "orchestrator"]]
    assert fields["credit_granularity"]["kappa"] == pytest.approx(0.959184, abs=1e-6)
    assert fields["category"]["kappa"] == 1.0


def test_kappa_matches_scikit_learn(repo):
    from sklearn.metrics import cohen_kappa_score

    audit = next(iter(load(repo).audits.values()))
    for name in audit["fields"]:
        a = [r["original"][name] for r in audit["rows"]]
        b = [r["second_reader"][name] for r in audit["rows"]]
        assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))
    assert cohen_kappa(["x", "y", "x", "y"], ["x", "x", "y", "y"]) == pytest.approx(cohen_kappa_score(["x", "y", "x", "y"], ["x", "x", "y", "y"]))
    assert cohen_kappa(["x", "x"], ["x", "x"]) is None  # chance agreement 1: undefined


def test_audit_what_if_and_bibtex_mismatches(repo):
    data = audit_data(analyse(load(repo), {"survey_example": True}))
    changed = {(r["claim"], r["check"]): (r["before"], r["after"]) for r in data["what_if"] if r["changed"]}
    sparse_credit = [k for k in changed if k[0] in ("message-credit-sparse", "orchestrator-credit-sparse", "near-miss-robust")]
    assert sparse_credit == []  # as the survey says: the near misses change no sparse-credit claim
    assert ("o5-stopping-uncovered", "records addressing O5 (when to stop)") not in changed
    assert changed[("headline-sparsity", "orchestration_form centralized")] == ("18", "22")
    assert data["verdict_changed"] == ["headline-sparsity"]
    mismatches = {(m["key"], m["field"]): (m["record"], m["bibtex"]) for m in data["bibtex_mismatches"]}
    assert mismatches[("malt", "year")] == ("2024", "2025")
    assert mismatches[("toolbench2023", "year")] == ("2023", "2024")
    assert ("kimi-k2-5", "title") in mismatches


def test_html_autoescapes_and_templates_are_strict():
    import jinja2

    from masrl.render.markdown import render_template
    from masrl.render.readme import papers_html

    record = {"key": "k", "title": "<script>alert('x')</script> & co", "authors": ["Müller, Jörg"], "year": 2026,
              "url": "https://x.org/?a=1&b=2", "category": "survey", "reward_type": "NA", "credit_granularity": "NA",
              "orchestration_form": "NA", "is_rl": "no", "subdecisions": []}
    html = papers_html([record], {"retained": 1, "excluded": 0, "audited": 1}, "T <b>")
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co" in html and "<script>" not in html
    assert "<title>T &lt;b&gt;</title>" in html and "Jörg Müller" in html
    with pytest.raises(jinja2.UndefinedError):
        render_template("stats.md.j2", headline={"retained": 1, "excluded": 0, "audited": 1})
