"""No silent wrong value: colliding derived names, values cut by a YAML comment, placeholder text."""

from __future__ import annotations

import pytest

from masrl.checks.derived_names import collisions
from masrl.core.placeholders import placeholder_problem
from masrl.corpus.taxonomy import Taxonomy
from trees import published_only  # noqa: F401 - the published tree only

OK = ["--stage", "abstract_screen", "--reason", "x", "--reason-class", "X1", "--source", "arXiv", "--query-family", "orchestration"]


def line_of(path, prefix: str) -> int:
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if t.startswith(prefix))


# ---------------------------------------------------------------- derived names
def test_codes_that_share_a_macro_name_are_refused(survey, cli):
    tax = survey / "corpus/taxonomy.yaml"
    text = tax.read_text()
    old = '      tool_use: {label: tool use, definition: API and tool calling, source: "artifact: README \'Taxonomy Fields\'; masrl reading"}\n'
    assert old in text
    tax.write_text(text.replace(old, old + '      tool-use: {label: tool use 2, definition: d, source: s}\n'))
    run = cli("validate", "--root", survey)
    assert run.code == 1
    line = line_of(tax, "      tool-use:")
    assert (f"corpus/taxonomy.yaml:{line}: fields.scenario.values.tool-use: scenario: 'tool-use' becomes the LaTeX macro "
            "\\NumScenarioToolUse, like scenario: 'tool_use'; rename one of them (codes must differ in more than '_', "
            "'-', '.' or case)") in run.err.splitlines()
    assert "corpus/taxonomy.yaml: the records, claims and audits were not checked: fix the taxonomy first" in run.err


def test_collisions_across_fields_case_and_empty_names():
    def field(values):
        return {"applies_to": "retained", "values": {v: {"label": v} for v in values}}

    tax = Taxonomy({"fields": {"reward": field(["type_x", "NA", "na", "é"]), "reward_type": field(["x"]),
                               "Reward": field(["z"]), "num": field(["a"])},
                    "crosstabs": [["reward", "num"], ["Reward", "num"]]})
    assert collisions(tax) == [
        (("fields", "reward", "values", "na"),
         "reward: 'na' and 'NA' differ only in case; CSV readers and spreadsheets that ignore case would mix them up; rename one of them"),
        (("fields", "reward", "values", "é"),
         "value 'é' has no ASCII letter or digit, so it cannot be part of a LaTeX macro name; use a code such as 'other'"),
        (("fields", "reward_type", "values", "x"),
         "reward_type: 'x' becomes the LaTeX macro \\NumRewardTypeX, like reward: 'type_x'; rename one of them "
         "(codes must differ in more than '_', '-', '.' or case)"),
        (("fields", "Reward"),
         "field 'Reward' and field 'reward' differ only in case; their tables would share a file on a case-insensitive file system"),
        (("crosstabs", 1),
         "crosstab [Reward, num] would write the table Reward_x_num, which is also the table of 'reward_x_num' "
         "(file names are compared ignoring case)"),
    ]


def test_the_real_taxonomy_has_no_collision(published_tree):
    from masrl.corpus.load import load

    assert collisions(Taxonomy(load(published_tree).taxonomy)) == []


# ---------------------------------------------------------------- text cut by a comment
#: The tests below change c3's title; its BibTeX entry keeps the real one, which validate accepts
#: only with a reason.
DIFFERS = "bibtex_differs:\n  title: the test changes the record's title only\n"


def test_a_title_cut_by_a_comment_is_warned_about(survey, cli):
    path = survey / "corpus/papers/c3.yaml"
    text = path.read_text()
    start = text.index("title: ")
    end = text.index("\n", start)
    path.write_text(text[:start] + "title: Contextual Counterfactual Credit #1 for agents" + text[end:] + DIFFERS)
    run = cli("validate", "--root", survey)
    assert run.code == 0
    line = line_of(path, "title:")
    warning = (f"corpus/papers/c3.yaml:{line}: title: warning: YAML reads '#1 for agents' as a comment, so the value is "
               "'Contextual Counterfactual Credit'; if the '#' belongs to the text, quote the value: "
               'title: "Contextual Counterfactual Credit #1 for agents"')
    assert run.err.splitlines() == [warning]
    assert run.out.startswith("ok: ")
    build = cli("build", "--root", survey, "--check")
    assert build.err.splitlines()[0] == warning
    moved = cli("exclude", "--root", survey, "--key", "c3", *OK)
    assert moved.code == 1  # the claim ledger names c3; the warning still comes first
    assert moved.err.splitlines()[0] == warning


def test_comments_after_codes_numbers_and_quoted_text_are_fine(survey, cli):
    path = survey / "corpus/papers/c3.yaml"
    text = path.read_text()
    text = text.replace("category: rl_method", "category: rl_method  # checked twice")
    text = text.replace("year: 2026", "year: 2026 # arXiv v1")
    start = text.index("title: ")
    end = text.index("\n", start)
    text = text[:start] + 'title: "Contextual Counterfactual Credit #1" # quoted, so nothing is cut' + text[end:]
    path.write_text(text + DIFFERS)
    run = cli("validate", "--root", survey)
    assert run.code == 0 and run.err == ""


def test_cut_author_in_a_list_and_a_claim_statement(survey, cli):
    path = survey / "corpus/papers/c3.yaml"
    text = path.read_text()
    first = text.index("authors:\n  - ") + len("authors:\n  - ")
    path.write_text(text[:first] + "Chen, Yanjun #2 equal\n  - " + text[text.index("\n", first) + 1:].lstrip(" -"))
    run = cli("validate", "--root", survey)
    assert any(line.endswith("authors[0]: warning: YAML reads '#2 equal' as a comment, so the value is 'Chen, Yanjun'; "
                             "if the '#' belongs to the text, quote the value: - \"Chen, Yanjun #2 equal\"")
               for line in run.err.splitlines()), run.err


# ---------------------------------------------------------------- placeholders
@pytest.mark.parametrize("text, problem", [
    ("...", "'...' is only punctuation, a placeholder"),
    ("…", "'…' is only punctuation, a placeholder"),
    ("TODO", "'TODO' is a placeholder"),
    ("todo:", "'todo:' is a placeholder"),
    ("[TBD]", "'[TBD]' is a placeholder"),
    ("Last, First", "'Last, First' is a placeholder"),
    ("  ", "is empty"),
    ("Todo lists for agents", None),
    ("Anonymous", None),
    ("X", None),
])
def test_placeholder_problem(text, problem):
    assert placeholder_problem(text) == problem


@pytest.mark.parametrize("args, message", [
    (["--title", "...", "--author", "Zhang, Chenchen"],
     "command line: --title: '...' is only punctuation, a placeholder; give the paper's real title"),
    (["--title", "A Real Title", "--author", "TODO"], "command line: --author: 'TODO' is a placeholder; give the paper's real author"),
    (["--title", "TBD", "--author", "..."], "command line: --author: '...' is only punctuation, a placeholder; give the paper's real author"),
])
def test_add_refuses_placeholders(survey, cli, args, message):
    run = cli("add", "--root", survey, "--arxiv", "2609.00001", "--year", "2026", *args)
    assert run.code == 1
    assert message in run.err.splitlines()
    assert run.err.splitlines()[-1].startswith("masrl: error: ") and run.err.endswith("nothing was added.\n")
    assert not list((survey / "corpus/papers").glob("zhang2026*"))


def test_add_refuses_placeholder_bibtex_entries(survey, cli):
    (survey / "x.bib").write_text("@article{x, title={TODO}, author={Doe, Jane}, year={2026}, journal={arXiv preprint arXiv:2609.00001}}\n")
    run = cli("add", "--root", survey, "--bibtex", survey / "x.bib")
    assert run.code == 1
    assert "x.bib:1: title: entry 'x': title 'TODO' is a placeholder" in run.err.splitlines()


@pytest.mark.parametrize("title, message", [
    ("...", "command line: --title: '...' is only punctuation, a placeholder; give the paper's real title"),
    ("TODO", "command line: --title: 'TODO' is a placeholder; give the paper's real title"),
])
def test_exclude_refuses_placeholder_titles(survey, cli, title, message):
    before = sorted(p.name for p in (survey / "exclusions").iterdir())
    run = cli("exclude", "--root", survey, "--title", title, "--arxiv", "2609.00001", "--author", "Doe, Jane", "--year", "2026", *OK)
    assert run.code == 1 and run.err.splitlines() == [message, "masrl: error: 1 error in the command line; nothing was written."]
    assert sorted(p.name for p in (survey / "exclusions").iterdir()) == before


def test_validate_refuses_placeholder_text_in_records(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "title", "TODO")
    set_field(survey / "exclusions/E001.yaml", "exclusion_reason", "'...'")
    run = cli("validate", "--root", survey)
    assert run.code == 1
    lines = [line.split(": ", 1)[1] for line in run.err.splitlines()[:-1]]
    assert "title: 'TODO' is a placeholder; write the real text" in lines, lines
    assert "exclusion_reason: '...' is only punctuation, a placeholder; write the real text" in lines, lines
