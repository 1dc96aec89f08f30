"""The manual's reference pages are generated from masrl's code (docs/_ext/masrl_docs): a help text,
a key of a format, a kind or a variable changed in the code changes the page, and one the
descriptions lack fails the build. Also: the README's shape, and the benchmarks page's writer."""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "docs" / "_ext"))
sys.path.insert(0, str(REPO / "scripts"))

from masrl_docs import pages, schemas  # noqa: E402


# ---------------------------------------------------------------- the CLI page (sphinx-argparse)
def _cli_page(tmp_path: Path, survey: Path, name: str) -> str:
    """The CLI reference page built by Sphinx (text builder) from docs/reference/cli.md, with
    ``masrl exclude``'s options from the survey at ``survey``."""
    from sphinx.application import Sphinx

    src = tmp_path / f"{name}-src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(REPO / 'docs' / '_ext')!r})\n"
        "extensions = ['myst_parser', 'sphinxarg.ext', 'masrl_docs']\n"
        f"masrl_survey = {str(survey)!r}\nsmartquotes = False\n", encoding="utf-8")
    (src / "index.md").write_text((REPO / "docs" / "reference" / "cli.md").read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / f"{name}-out"
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / f"{name}-doctrees"), "text", status=None,
                 warning=None, freshenv=True, warningiserror=False)
    app.build()
    return (out / "index.txt").read_text(encoding="utf-8")


@pytest.fixture
def small_survey(tmp_path, cli):
    """A new survey (masrl init): its taxonomy gives masrl exclude its options."""
    assert cli("init", str(tmp_path / "small")).code == 0
    return tmp_path / "small"


def test_changing_an_options_help_text_changes_the_cli_page(tmp_path, small_survey, monkeypatch):
    import masrl.cli.parser as parser_module

    before = _cli_page(tmp_path, small_survey, "before")
    check = "write nothing; exit 1 listing every generated file that is stale, missing or orphaned"
    assert check in " ".join(before.split())
    for command in ("init", "validate", "build", "add", "exclude", "release", "resolve", "diff", "trace", "audit",
                    "suggest", "update"):
        assert re.search(rf"^{command}\n-+$", before, flags=re.M), f"no section for masrl {command}"
    assert "--root" in before and before.count("survey root (the folder holding corpus/taxonomy.yaml)") == 1
    real = parser_module.build_parser

    def changed(argv=None):
        parser = real(argv)
        build = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)).choices["build"]
        next(a for a in build._actions if "--check" in a.option_strings).help = "a help text changed in the code"
        return parser

    monkeypatch.setattr(parser_module, "build_parser", changed)
    after = _cli_page(tmp_path, small_survey, "after")
    assert "a help text changed in the code" in after and check not in " ".join(after.split())


def test_the_cli_page_shows_help_texts_as_written(small_survey, monkeypatch):
    from masrl_docs import cli

    monkeypatch.setattr(cli, "SURVEY", small_survey)
    parser = cli.parser()
    build = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)).choices["build"]
    assert build.epilog.startswith("::\n\n    examples:")  # a literal block: shown as written
    assert not [g for g in build._action_groups if g.title.startswith("global options")]  # once, under masrl
    assert cli.escape("reports/releases/<name>/ *.json `x` a_b|c") == r"reports/releases/\<name\>/ \*.json \`x\` a\_b\|c"


# ---------------------------------------------------------------- formats, kinds, variables
def test_every_generated_page_has_a_description_for_everything_the_code_has():
    assert pages.problems() == []


def test_every_key_of_the_taxonomy_schema_is_on_its_page_and_a_new_key_appears(monkeypatch):
    from masrl.corpus import taxonomy_schema

    page = pages.format_markdown("taxonomy")
    for row in schemas.rows(taxonomy_schema.TAXONOMY_SCHEMA):
        assert f"`{row.name}`" in page or row.name == "*", row.path
    for name in ("figures", "tables", "fields", "gap_analysis", "screening", "readme", "site", "audit", "sentences"):
        assert f"| `{name}` |" in page
    schema = copy.deepcopy(taxonomy_schema.TAXONOMY_SCHEMA)
    schema["properties"]["figures"]["items"]["properties"]["dpi"] = {"type": "integer", "minimum": 72}
    monkeypatch.setattr(taxonomy_schema, "TAXONOMY_SCHEMA", schema)
    assert "| `dpi` | an integer ≥ 72 |  |  |" in pages.format_markdown("taxonomy")
    assert pages.problems_format("taxonomy") == [
        "taxonomy: the key figures[].dpi has no description (docs/_ext/masrl_docs/descriptions/taxonomy.txt)"]


def test_a_removed_key_leaves_its_description_stale(monkeypatch):
    from masrl.checks import protocol

    schema = copy.deepcopy(protocol.PROTOCOL_SCHEMA)
    del schema["properties"]["stages"]
    monkeypatch.setattr(protocol, "PROTOCOL_SCHEMA", schema)
    assert pages.problems_format("protocol") == [
        "protocol: descriptions/protocol.txt describes stages, which is no key of the format"]


def test_the_kinds_pages_list_every_registered_kind(monkeypatch):
    from masrl.corpus.declarations import COLUMN_KINDS, TABLE_KINDS
    from masrl.render import figures

    for group, kinds in (("table", TABLE_KINDS), ("column", COLUMN_KINDS), ("figure", tuple(figures.KINDS))):
        page = pages.kinds_markdown(group)
        assert [line.split("`")[1] for line in page.splitlines()[2:]] == list(kinds)
    assert "| `chain` | a chain of boxes, one per value of a list field" in pages.kinds_markdown("figure")
    monkeypatch.setitem(figures.KINDS, "radar", figures.KINDS["bars"])
    assert "kinds: figure.radar has no description (descriptions/kinds.txt)" in pages.problems_kinds()


def test_the_columns_of_the_round_sheets_are_those_of_the_code(monkeypatch):
    from masrl.corpus import rounds

    page = pages.columns_markdown("queue")
    assert [line.split("`")[1] for line in page.splitlines()[2:]] == list(rounds.QUEUE_COLUMNS)
    assert "| `decision` | the screener |" in page and "| `rank` | masrl |" in page
    monkeypatch.setattr(rounds, "QUEUE_COLUMNS", (*rounds.QUEUE_COLUMNS, "priority"))
    assert pages.problems_columns("queue") == ["queue.csv: the column priority has no description"]


def test_exit_codes_come_from_the_cli():
    from masrl.cli import EXIT_CODES, USAGE_ERROR
    from masrl.core.errors import UsageError, UserError

    assert sorted(EXIT_CODES) == [0, 1, 2, 130, 141]
    assert (UserError.exit_code, UsageError.exit_code, USAGE_ERROR) == (1, 2, 2)
    page = pages.exit_codes_markdown()
    for code, meaning in (("0", "success"), ("1", "findings"), ("2", "usage error"), ("130", "interrupted"), ("141", "the output pipe")):
        assert re.search(rf"^\| `{code}` \| {meaning}", page, flags=re.M), code


def test_the_environment_page_lists_the_variables_masrl_reads(tmp_path, monkeypatch):
    found = pages.variables()
    assert {"MASRL_TODAY", "MASRL_CACHE", "MASRL_MAILTO", "MASRL_ARXIV_API", "MASRL_CROSSREF_API"} <= set(found)
    assert "| `MASRL_TODAY` | Sets \"today\" for a run" in pages.environment_markdown()
    package = tmp_path / "masrl"
    package.mkdir()
    (package / "mod.py").write_text('import os\nos.environ.get("MASRL_TODAY")\nos.environ.get("MASRL_NEW_KNOB")\n')
    monkeypatch.setattr(pages, "PACKAGE", package)
    assert pages.variables() == ["MASRL_NEW_KNOB", "MASRL_TODAY"]
    problems = pages.problems_environment()
    assert "environment: masrl reads MASRL_NEW_KNOB, which descriptions/environment.txt does not describe" in problems
    assert "environment: descriptions/environment.txt describes MASRL_CACHE, which masrl's code never names" in problems


def test_descriptions_files_are_read_strictly():
    assert schemas.parse_descriptions("# c\na.b\n    one\n    two\n\nc\n    x\n") == {"a.b": "one two", "c": "x"}
    with pytest.raises(ValueError, match="line 1: text before any key"):
        schemas.parse_descriptions("    orphan\n")
    with pytest.raises(ValueError, match="line 3: a described twice"):
        schemas.parse_descriptions("a\n    x\na\n    y\n")


def test_value_texts_say_what_a_value_may_be():
    assert schemas.value_text({"type": "string", "minLength": 1}) == "non-empty text"
    assert schemas.value_text({"enum": ["a", "b"]}) == "one of `a`, `b`"
    assert schemas.value_text({"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1}) == \
        "list of an integer ≥ 0 (at least 1)"
    assert schemas.value_text({"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}) == "a date, YYYY-MM-DD"
    assert schemas.value_text({"type": ["string", "null"]}) == "text or `null`"


# ---------------------------------------------------------------- README and CONTRIBUTING
def _readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short_above_the_paper_list():
    readme = _readme()
    assert readme.index("<!-- masrl:papers:start -->") > 0
    assert readme[:readme.index("## Papers")].count("\n") <= 250


def test_ci_runs_exactly_the_readmes_test_command():
    blocks = re.findall(r"```bash\n(.*?)```", _readme(), flags=re.S)
    test_setup = next(b for b in blocks if "pytest" in b)
    command = test_setup.strip().split(" && ")[-1]
    assert command == ".venv/bin/python -m pytest -q -n auto --dist worksteal"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert [line for line in ci.splitlines() if "pytest" in line and not line.startswith("#")] == [f"time {command}"]


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("document", ["README.md", "CONTRIBUTING.md"])
def test_every_relative_link_of_the_front_pages_resolves(document):
    text = (REPO / document).read_text(encoding="utf-8")
    text = text[:text.index("<!-- masrl:papers:start -->")] if "<!-- masrl:papers:start -->" in text else text
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    for link in links:
        if re.match(r"[a-z]+://", link):
            continue
        path, _, anchor = link.partition("#")
        target = (REPO / path) if path else REPO / document
        assert target.exists(), f"{document}: {link} names no file"
        if anchor and target.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", target.read_text(encoding="utf-8"), flags=re.M)
            assert anchor in {_slug(h) for h in headings}, f"{document}: {link}: no such heading"


#: Words of a text that narrates how it was made rather than what the software does.
NARRATION = re.compile(r"\b(session|work period|sprint|development notes|issue \d+|measured on \d{4}-\d{2}-\d{2}"
                       r"|first measured|before (this|that) (change|session|round)|eighth|seventh)\b", re.I)

CODE_SPAN = re.compile(r"`[^`\n]+`")


def test_no_page_narrates_how_it_was_made():
    pages_ = [REPO / "README.md", REPO / "CONTRIBUTING.md",
              *[p for p in (REPO / "docs").rglob("*.md") if "_build" not in p.parts]]
    for page in pages_:
        text = page.read_text(encoding="utf-8")
        text = text[:text.index("<!-- masrl:papers:start -->")] if "<!-- masrl:papers:start -->" in text else text
        text = CODE_SPAN.sub("``", text)  # names of other tools' fields (`session.id`) are not narration
        found = NARRATION.search(text)
        assert found is None, f"{page.relative_to(REPO)}: {found.group(0)!r}"


def test_narration_outside_code_spans_is_still_found():
    text = CODE_SPAN.sub("``", "the attribute `session.id` names it; measured this session")
    assert NARRATION.search(text).group(0) == "session"
    assert NARRATION.search(CODE_SPAN.sub("``", "the attribute `session.id` names it")) is None


# ---------------------------------------------------------------- the benchmarks page
def test_a_script_replaces_its_own_section_and_keeps_the_others(tmp_path, monkeypatch):
    import benchpage

    monkeypatch.setenv("MASRL_TODAY", "2026-12-15")
    page = tmp_path / "benchmarks.md"

    def section(script, area, value):
        return benchpage.Section(area=area, script=script, title=f"{script} title", summary="what was measured",
                                 columns=["what", "time"], rows=[["a | b", value]], command=f"python scripts/{script}.py",
                                 load_before=(0.5, 0.5, 0.5))

    benchpage.write(page, section("bench_trace", "traces", "1 s"))
    benchpage.write(page, section("bench_add", "intake", "2 s"))
    benchpage.write(page, section("bench_zeta", "newarea", "9 s"))
    benchpage.write(page, section("bench_add", "intake", "3 s"))
    text = page.read_text(encoding="utf-8")
    assert text.startswith(benchpage.HEADER)
    headings = re.findall(r"^## (.*)$", text, flags=re.M)
    assert headings == ["Adding papers", "Orchestration traces", "Newarea"]
    assert "| a \\| b | 3 s |" in text and "2 s" not in text and "| a \\| b | 1 s |" in text
    assert text.count("<!-- bench:bench_add:start -->") == 1
    assert "- Command: `python scripts/bench_add.py`" in text and "- Run on: 2026-12-15" in text
    assert re.search(r"- Machine: .+, \d+ cores; Python \d+\.\d+\.\d+ \(\w+\); .+; load average 0\.50 before, [0-9.]+ after", text)


def test_the_command_line_of_a_run_leaves_out_markdown():
    import benchpage

    assert benchpage.command_line("bench_add", ["--repeat", "1", "--markdown", "--entries", "5"]) == \
        "python scripts/bench_add.py --repeat 1 --entries 5"
    assert benchpage.command_line("bench_add", ["--markdown", "out.md", "--x"]) == "python scripts/bench_add.py --x"
    assert benchpage.command_line("bench_add", ["--markdown=out.md"]) == "python scripts/bench_add.py"
