"""The runner of the guides' blocks (docs/_ext/guide_runner.py): parsing, matching, edits, updates."""

from __future__ import annotations

import pytest

import guide_runner
from guide_runner import Shell, apply_diff, blocks, matches, run_guide, update_guide

PAGE = """# A guide

Shown only:

```bash
masrl build
```

```console
$ echo one
one
$ echo two; \\
  echo three
two
three
$ false
[exit 1]
```

```diff
--- notes.txt
-old line
+new line
```
"""


def test_only_console_and_diff_blocks_run():
    found = blocks(PAGE)
    assert [(b.kind, b.line) for b in found] == [("console", 9), ("diff", 20)]
    commands = found[0].commands
    assert [(c.text, c.expected, c.code, c.line) for c in commands] == [
        ("echo one", ["one"], 0, 10), ("echo two; \n  echo three", ["two", "three"], 0, 12), ("false", [], 1, 16)]


def test_a_console_block_starts_with_a_command():
    with pytest.raises(ValueError, match="line 2: a console block starts with a command"):
        blocks("```console\noutput\n```\n")


@pytest.mark.parametrize(("expected", "actual", "ok"), [
    (["a", "b"], ["a", "b"], True),
    (["a", "b"], ["a", "b", "c"], False),
    (["a", "..."], ["a", "b", "c"], True),
    (["a", "...", "c"], ["a", "c"], True),
    (["a", "...", "c"], ["a", "b"], False),
    (["x ... z"], ["x yy z"], True),
    (["x ... z"], ["x yy"], False),
    (["a.b"], ["axb"], False),  # no regular expression: a dot is a dot
    (["a  "], ["a"], True),
])
def test_wildcards_match_lines_and_text(expected, actual, ok):
    assert matches(expected, actual) is ok


def test_a_diff_replaces_its_lines_once_and_creates_files(tmp_path):
    (tmp_path / "f.txt").write_text("a\nold\nb\nold\n")
    apply_diff(tmp_path, tmp_path, "--- f.txt\n a\n-old\n+new\n+newer\n")
    assert (tmp_path / "f.txt").read_text() == "a\nnew\nnewer\nb\nold\n"
    with pytest.raises(ValueError, match="occur 0 times"):
        apply_diff(tmp_path, tmp_path, "--- f.txt\n-missing\n+x\n")
    (tmp_path / "twice.txt").write_text("x\nx\n")
    with pytest.raises(ValueError, match="occur 2 times"):
        apply_diff(tmp_path, tmp_path, "--- twice.txt\n-x\n+y\n")
    apply_diff(tmp_path, tmp_path, "--- /dev/null\n+++ sub/new.csv\n+h1,h2\n+1,2\n")
    assert (tmp_path / "sub/new.csv").read_text() == "h1,h2\n1,2\n"
    with pytest.raises(ValueError, match="exists"):
        apply_diff(tmp_path, tmp_path, "--- /dev/null\n+++ sub/new.csv\n+x\n")


def test_a_guide_run_reports_each_mismatch_and_the_page_can_be_updated(tmp_path):
    (tmp_path / "notes.txt").write_text("old line\n")
    page = PAGE.replace("two\nthree\n$ false", "two\nTHREE\n$ false")
    mismatches, outputs = run_guide(page, Shell(tmp_path, {}))
    assert [(m.line, m.actual) for m in mismatches] == [(12, ["two", "three"])]
    assert (tmp_path / "notes.txt").read_text() == "new line\n"
    assert update_guide(page, mismatches, outputs) == PAGE


def test_masrl_runs_in_process_with_stdout_and_stderr_together(tmp_path):
    shell = Shell(tmp_path, {})
    code, out = shell.run("masrl validate")
    assert code == 1 and "masrl: error:" in out
    code, out = shell.run("masrl --version")
    assert (code, out.split()[0]) == (0, "masrl")
    assert shell.run("cd nowhere")[0] == 1
    (tmp_path / "sub").mkdir()
    assert shell.run("cd sub") == (0, "") and shell.cwd == tmp_path / "sub"
    assert shell.run("pwd") == (0, f"{tmp_path / 'sub'}\n")


def test_globs_expand_in_the_shell(tmp_path):
    for name in ("b.json", "a.json", "c.txt"):
        (tmp_path / name).write_text("{}")
    assert Shell(tmp_path, {})._glob("*.json") == ["a.json", "b.json"]
    assert guide_runner.GLOB & set("x*")
