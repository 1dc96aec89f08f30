"""The CLI behaves like the tools people know: global options anywhere, help with
examples and allowed values, quiet/verbose output, errors last, documented exit codes."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from masrl import __version__
from masrl.cli import build_parser
from trees import published_only  # noqa: F401 - the published tree only

COMMANDS = [["validate"], ["build"], ["add"], ["exclude"], ["diff"], ["suggest"], ["trace"]]


def help_of(cli, capsys, *args):
    with pytest.raises(SystemExit) as info:
        cli(*args, "--help")
    assert info.value.code == 0
    return capsys.readouterr().out


# ---------------------------------------------------------------- global options
@pytest.mark.parametrize("order", ["before", "after"])
def test_root_before_or_after_the_command(published_tree, cli, order):
    args = ["--root", published_tree, "build", "--check"] if order == "before" else ["build", "--check", "--root", published_tree]
    run = cli(*args)
    assert run.code == 0, run.err
    assert run.out.startswith("ok: all ")


@pytest.mark.parametrize("args", [["--quiet", "validate"], ["validate", "-q"], ["-q", "build", "--check"]])
def test_quiet_prints_nothing_on_success(published_tree, cli, args):
    run = cli(*args, "--root", published_tree)
    assert (run.code, run.out, run.err) == (0, "", "")


@pytest.mark.parametrize("args", [["--version"], ["build", "--version"], ["trace", "validate", "--version"]])
def test_version_anywhere(cli, capsys, args):
    with pytest.raises(SystemExit) as info:
        cli(*args)
    assert info.value.code == 0
    assert capsys.readouterr().out == f"masrl {__version__}\n"


def test_quiet_and_verbose_together_is_a_usage_error(published_tree, cli, capsys):
    with pytest.raises(SystemExit) as info:
        cli("-q", "build", "-v", "--root", published_tree)
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == "masrl: error: --quiet and --verbose contradict each other; give one of them"


def test_trace_commands_accept_the_global_options(cli, repo, published_tree):
    run = cli("--root", published_tree, "trace", "validate", repo / "src/masrl/trace/examples/debate.json", "--verbose")
    assert run.code == 0 and run.out == "1 trace file valid\n"


# ---------------------------------------------------------------- help
@pytest.mark.parametrize("command", [c for c in COMMANDS if c != ["trace"]])
def test_help_ends_with_two_or_three_examples(cli, capsys, published_tree, command):
    out = help_of(cli, capsys, *command, "--root", published_tree)
    tail = out.rstrip("\n").split("\n\n")[-1].splitlines()
    assert tail[0] == "examples:"
    examples = tail[1:]
    assert 2 <= len(examples) <= 3 and all(line.startswith(f"  masrl ") for line in examples), tail
    assert "global options (before or after the command):" in out


def test_every_example_in_help_parses(cli, capsys, published_tree):
    parser = build_parser(["exclude", "--root", str(published_tree)])  # exclude's field options come from the taxonomy
    for command in COMMANDS:
        out = help_of(cli, capsys, *command, "--root", published_tree)
        for line in re.findall(r"^  (masrl .+)$", out, flags=re.M):
            import shlex

            words = shlex.split(line.split("  ")[0].split(" > ")[0].split(" && ")[0])[1:]
            if "~/survey" in line:
                continue
            if "FIELDS" in words:  # what the help says FIELDS stands for, from the survey's taxonomy
                (fields,) = re.findall(r"^FIELDS below stands for: (.+)$", out, flags=re.M)
                at = words.index("FIELDS")
                words[at:at + 1] = shlex.split(fields)
            parser.parse_args(words)  # a usage error would raise SystemExit


def test_exclude_help_lists_the_allowed_values_from_the_taxonomy(cli, capsys, published_tree):
    out = help_of(cli, capsys, "--root", published_tree, "exclude")
    assert ("the survey's fields (corpus/taxonomy.yaml) and their allowed values:\n"
            "  --stage: abstract_screen, full_text_screen, artifact_screen, duplicate_screen\n"
            "  --reason-class: X1, X2, X3, X4, X5\n") in out
    assert ("  --source: arXiv, ACL Anthology, OpenReview, GitHub/project page, company docs, company blog, Crossref, "
            "Semantic Scholar\n") in out


def test_exclude_help_outside_a_survey(cli, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = help_of(cli, capsys, "exclude")
    assert "allowed values: see corpus/taxonomy.yaml (no survey root found here; use --root DIR)" in out


# ---------------------------------------------------------------- build output
#: What moving c3 to another scenario rewrites (the site embeds the records, so its page changes too).
# the scenario table and its copies, and the reports whose first line counts the records changed since release v1
RETAG_WRITES = ["reports/RELEASES.md", "reports/STATS.md", "reports/TABLES.md", "reports/claims.md", "reports/exclusions.md",
                "reports/gaps.md", "reports/site/index.html", "reports/tables/scenario.csv", "reports/tables/scenario.md",
                "reports/tex/numbers.tex", "reports/tex/scenario.tex"]


def generated(root) -> int:
    return len((root / "reports/.generated").read_text().split())


def test_build_prints_one_summary_line(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "scenario", "math")
    run = cli("build", "--root", survey)
    assert run.code == 0 and run.err == ""
    assert run.out == f"build: {len(RETAG_WRITES)} written, {generated(survey) - len(RETAG_WRITES)} unchanged, 0 removed\n"


def test_build_verbose_prints_each_file(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "scenario", "math")
    run = cli("build", "--root", survey, "--verbose")
    assert run.out.splitlines() == [f"wrote {rel}" for rel in RETAG_WRITES] + [
        f"build: {len(RETAG_WRITES)} written, {generated(survey) - len(RETAG_WRITES)} unchanged, 0 removed"]


def combined(*args) -> tuple[int, list[str]]:
    """Run masrl in a subprocess with stdout and stderr in one stream, as a terminal or CI log shows them."""
    done = subprocess.run([sys.executable, "-m", "masrl", *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return done.returncode, done.stdout.decode().splitlines()


def test_a_failing_claim_is_the_last_thing_printed(survey, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "subdecisions", "[O5]")  # c3 is explicit RL: now it trains O5
    (survey / "reports/my-notes.md").write_text("mine\n")
    code, lines = combined("build", "--root", survey, "--verbose")
    assert code == 1
    first = next(i for i, line in enumerate(lines) if line.startswith("masrl: error: claim"))
    assert [line.split("'")[1] for line in lines[first:]] == ["o5-stopping-uncovered"]
    assert all(line.startswith("masrl: error: claim '") for line in lines[first:])
    assert lines[first - 1].startswith("build: ")
    assert "note: reports/my-notes.md was not generated by masrl; it is left in place" in lines[:first]
    code, lines = combined("build", "--root", survey, "--check")  # the reports are current; the claim still fails
    assert code == 1 and not any(line.startswith("ok") for line in lines), lines
    assert lines[-2:] == [f"all {lines[-2].split()[1]} generated files are current, but a current claim no longer holds",
                          lines[-1]] and lines[-1].startswith("masrl: error: claim 'o5-stopping-uncovered'")


def test_an_invalid_record_is_the_last_thing_printed(survey, set_field):
    set_field(survey / "corpus/papers/marft.yaml", "reward_type", "hybird")
    path = survey / "corpus/papers/c3.yaml"
    text = path.read_text()
    start = text.index("title: ")
    path.write_text(text[:start] + "title: Cut #here" + text[text.index("\n", start):]
                    + "bibtex_differs:\n  title: the test cuts the record's title only\n")
    code, lines = combined("build", "--root", survey)
    assert code == 1
    assert lines[0].startswith("corpus/papers/c3.yaml:") and "warning: YAML reads '#here' as a comment" in lines[0]
    assert re.fullmatch(r"corpus/papers/marft\.yaml:\d+: reward_type: 'hybird' is not in the vocabulary; .*", lines[1])
    assert lines[2:] == ["masrl: error: 1 error in 1 file; nothing was written (fix the records, then build again)."]


# ---------------------------------------------------------------- git errors
def test_diff_outside_a_git_repository_is_one_line(survey, cli):
    run = cli("diff", "--root", survey, "HEAD")
    assert run.code == 1
    assert run.err == (f"masrl: error: {survey} is not inside a git repository; masrl diff compares with a git revision: "
                       "work in a clone of the survey (or run `git init` and commit once)\n")


def test_other_git_failures_are_one_line_naming_what_to_do(tmp_path):
    from masrl.corpus.gitread import git_error

    assert git_error(tmp_path, "error: object file .git/objects/ab/cd is empty\nfatal: bad object HEAD\n") == (
        f"git failed: object file .git/objects/ab/cd is empty; run `git status` in {tmp_path} to see what git needs")
    assert git_error(tmp_path, "fatal: detected dubious ownership in repository at '/x'\nTo add an exception ...\n") == (
        f"git refuses to read {tmp_path} (it belongs to another user); run `git config --global --add safe.directory "
        f"{tmp_path}` if you trust it")


def test_blobs_come_from_one_git_process_in_order_and_a_missing_one_is_named():
    from masrl.core.errors import UserError
    from masrl.corpus.gitread import _blobs

    calls = []

    def git(*args, data):
        calls.append((args, data))
        return b"a1 blob 3\nabc\nb2 blob 0\n\nc3 blob 4\nx\ny\n\n"

    assert _blobs(git, ["a1", "b2", "c3"]) == [b"abc", b"", b"x\ny\n"]
    assert calls == [(("cat-file", "--batch"), b"a1\nb2\nc3\n")]
    with pytest.raises(UserError) as err:
        _blobs(lambda *args, data: b"a1 blob 1\nz\nb2 missing\n", ["a1", "b2"])
    assert str(err.value) == "git has no object b2 (run `git fsck` in the repository)"
    with pytest.raises(UserError) as err:  # a submodule in conflict: its stages are commits
        _blobs(lambda *args, data: b"d4 commit 2\nzz\n", ["d4"])
    assert str(err.value) == "git object d4 is a commit, not a file's content"
    assert _blobs(git, []) == [] and len(calls) == 1  # no blob, no process


# ---------------------------------------------------------------- exit codes
def test_exit_codes_are_documented(repo):
    """The manual's exit-code page is generated from EXIT_CODES (tests/docs), which names every code main returns."""
    from masrl.cli import EXIT_CODES

    assert "```{masrl-exit-codes}" in (repo / "docs" / "reference" / "exit-codes.md").read_text()
    for code, meaning in ((0, "success"), (1, "findings"), (2, "usage error"), (130, "interrupted"), (141, "the output pipe")):
        assert EXIT_CODES[code].startswith(meaning), code


def test_usage_error_exit_code_from_the_shell(repo):
    done = subprocess.run([sys.executable, "-m", "masrl", "build", "--no-such-option"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == "masrl: error: unrecognized arguments: --no-such-option"


def test_every_option_of_masrl_exclude_is_one_no_field_may_take():
    """A field of excluded records becomes an option of `masrl exclude` (--<name>); validate refuses a name that would
    clash with one of its own (argparse would stop every run of the command with a traceback). The list validate
    checks is the parser's own options."""
    import argparse

    from masrl.corpus.taxonomy import EXCLUDE_OPTIONS
    from masrl.cli.parser import build_parser

    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    own = {s for action in subparsers.choices["exclude"]._actions for s in action.option_strings if s.startswith("--")}
    assert "--force" in own and own <= set(EXCLUDE_OPTIONS), sorted(own - set(EXCLUDE_OPTIONS))
