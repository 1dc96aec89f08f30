"""The runnable blocks of the manual's guides (docs/guides/*.md), run as a doctest would: the
manual's own tool (as Sphinx's doctest builder is), which keeps each guide's outputs what the
commands print. tests/docs/test_guides.py runs every guide with it on a copy of the test survey.

Two kinds of fenced block are runnable; every other block is shown only:

- ```` ```console ````: a terminal transcript. Each line that starts with ``$ `` is a command (a line
  ending in ``\\`` goes on on the next); the lines up to the next command are what it prints,
  stdout and stderr together as a terminal shows them. A line ``...`` stands for any number of
  lines, and ``...`` inside a line for any text. A command that must fail ends its output with a
  line ``[exit N]``. ``masrl ...`` runs in-process (masrl.cli.main), ``cd DIR`` changes the
  working folder, anything else (``git``, ``ls``, a pipe) runs in ``bash`` with the venv's ``masrl``
  first on ``PATH``.
- ```` ```diff ````: an edit, as a reader makes it in an editor. Its first line is ``--- FILE``
  (``--- /dev/null`` and then ``+++ FILE`` to create FILE); each hunk (``@@`` between hunks)
  replaces its context (`` `` lines) and removed (``-``) lines, which must occur in the file
  exactly once and in that order, with its context and added (``+``) lines.

:func:`run_guide` runs a guide's blocks in order in one working folder and returns every mismatch;
:func:`update_guide` writes each command's actual output into the page where it does not match
(to write a new guide: run tests/docs/test_guides.py with ``MASRL_DOCS_WRITE=1``, then read the
page and abridge long outputs with ``...``).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt

WILDCARD = "..."
EXIT = re.compile(r"^\[exit (\d+)\]$")
#: Characters that make a command a shell command rather than a plain call of masrl.
SHELL = set("|&;<>()$`{}~\\")
#: Characters of a file name pattern, expanded as bash would (sorted).
GLOB = set("*?[")


@dataclass
class Command:
    text: str
    expected: list[str]
    line: int
    code: int = 0


@dataclass
class Block:
    kind: str          # "console" or "diff"
    line: int          # the fence's line in the page, from 1
    body: str
    commands: list[Command] = field(default_factory=list)


def blocks(text: str) -> list[Block]:
    """The runnable blocks of a page, in order."""
    out = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type != "fence" or token.info.strip() not in ("console", "diff"):
            continue
        block = Block(token.info.strip(), token.map[0] + 1, token.content)
        if block.kind == "console":
            block.commands = _commands(token.content, block.line + 1)
        out.append(block)
    return out


def _commands(body: str, first_line: int) -> list[Command]:
    commands: list[Command] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if not commands:
                raise ValueError(f"line {first_line + i}: a console block starts with a command ('$ ...')")
            commands[-1].expected.append(line)
            i += 1
            continue
        start = i
        text = line[2:]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + "\n" + lines[i]
        commands.append(Command(text, [], first_line + start))
        i += 1
    for command in commands:
        if command.expected and EXIT.match(command.expected[-1]):
            command.code = int(EXIT.match(command.expected.pop())[1])
    return commands


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` lines are ``expected`` with its wildcards (a line ``...``: any lines;
    ``...`` in a line: any text), trailing spaces ignored."""
    expected = [e.rstrip() for e in expected]
    actual = [a.rstrip() for a in actual]

    def line_ok(e: str, a: str) -> bool:
        if WILDCARD not in e:
            return e == a
        pattern = ".*".join(re.escape(part) for part in e.split(WILDCARD))
        return re.fullmatch(pattern, a) is not None

    memo: dict[tuple[int, int], bool] = {}

    def go(i: int, j: int) -> bool:
        if (i, j) in memo:
            return memo[i, j]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i] == WILDCARD:
            result = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and line_ok(expected[i], actual[j]) and go(i + 1, j + 1)
        memo[i, j] = result
        return result

    return go(0, 0)


def apply_diff(root: Path, cwd: Path, body: str) -> None:
    """Make the edit of a ``diff`` block (see the module docstring) in the folder ``cwd``."""
    lines = body.splitlines()
    if not lines or not lines[0].startswith("--- "):
        raise ValueError("a diff block starts with '--- FILE'")
    name = lines[0][4:].strip()
    hunks_from = 1
    if name == "/dev/null":
        if len(lines) < 2 or not lines[1].startswith("+++ "):
            raise ValueError("'--- /dev/null' is followed by '+++ FILE'")
        path = cwd / lines[1][4:].strip()
        if path.exists():
            raise ValueError(f"{path.relative_to(root)} exists; a new file's diff starts with '--- /dev/null'")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(line[1:] + "\n" for line in lines[2:]), encoding="utf-8")
        return
    if len(lines) > 1 and lines[1].startswith("+++ "):
        hunks_from = 2
    path = cwd / name
    text = path.read_text(encoding="utf-8").splitlines()
    hunks: list[list[str]] = [[]]
    for line in lines[hunks_from:]:
        if line.startswith("@@"):
            hunks.append([])
        elif line[:1] in (" ", "-", "+"):
            hunks[-1].append(line)
        elif line == "":
            hunks[-1].append(" ")
        else:
            raise ValueError(f"a diff line starts with ' ', '-' or '+': {line!r}")
    for hunk in hunks:
        if not hunk:
            continue
        old = [line[1:] for line in hunk if line[0] in " -"]
        new = [line[1:] for line in hunk if line[0] in " +"]
        found = [i for i in range(len(text) - len(old) + 1) if text[i:i + len(old)] == old]
        if len(found) != 1:
            raise ValueError(f"{name}: the lines {old!r} occur {len(found)} times (once expected)")
        text[found[0]:found[0] + len(old)] = new
    path.unlink()  # a new file, as an editor that saves by renaming makes it
    path.write_text("\n".join(text) + "\n", encoding="utf-8")


class Shell:
    """One reader's shell: a current directory and an environment; masrl runs in-process."""

    def __init__(self, root: Path, env: dict[str, str]):
        self.root = root
        self.cwd = root
        self.env = env

    def run(self, command: str) -> tuple[int, str]:
        flat = command.replace("\n", " ")  # a command continued on the next line (`\` at the end)
        words = shlex.split(flat) if not SHELL & set(flat) else None
        if words:
            words = [w for word in words for w in (self._glob(word) if GLOB & set(word) else [word])]
        if words and words[0] == "cd" and len(words) == 2:
            target = (self.cwd / words[1]).resolve()
            if not target.is_dir():
                return 1, f"bash: cd: {words[1]}: No such file or directory\n"
            self.cwd = target
            return 0, ""
        if words and words[0] == "masrl":
            return self._masrl(words[1:])
        bin_dir = str(Path(sys.executable).parent)
        env = {**os.environ, **self.env, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
        done = subprocess.run(["bash", "-c", flat], cwd=self.cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=120)
        return done.returncode, done.stdout

    def _glob(self, word: str) -> list[str]:
        found = sorted(str(p.relative_to(self.cwd)) for p in self.cwd.glob(word))
        return found or [word]

    def _masrl(self, argv: list[str]) -> tuple[int, str]:
        from masrl.cli import main

        raw = io.BytesIO()  # a terminal's one stream: text and bytes (sys.stdout.buffer) in the order written
        buffer = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
        before = os.getcwd()
        os.chdir(self.cwd)
        try:
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                try:
                    code = main(argv)
                except SystemExit as done:  # --help, --version and usage errors end the run
                    code = done.code if isinstance(done.code, int) else 1
        finally:
            os.chdir(before)
        buffer.flush()
        return code, raw.getvalue().decode("utf-8", errors="replace")


@dataclass
class Mismatch:
    line: int
    command: str
    expected: list[str]
    actual: list[str]
    expected_code: int
    actual_code: int

    def __str__(self) -> str:
        return (f"line {self.line}: $ {self.command}\n  exit {self.actual_code} (expected {self.expected_code})\n"
                "  expected:\n" + "".join(f"    {e}\n" for e in self.expected)
                + "  actual:\n" + "".join(f"    {a}\n" for a in self.actual))


def run_guide(text: str, shell: Shell) -> tuple[list[Mismatch], dict[int, list[str]]]:
    """Run every runnable block of a page in ``shell``: the mismatches, and every command's
    actual output by its line in the page."""
    mismatches: list[Mismatch] = []
    outputs: dict[int, list[str]] = {}
    for block in blocks(text):
        if block.kind == "diff":
            try:
                apply_diff(shell.root, shell.cwd, block.body)
            except (ValueError, OSError) as err:
                mismatches.append(Mismatch(block.line, "(the edit of the diff block)", [], [str(err)], 0, 1))
            continue
        for command in block.commands:
            code, out = shell.run(command.text)
            actual = out.splitlines()
            outputs[command.line] = actual + ([f"[exit {code}]"] if code else [])
            if code != command.code or not matches(command.expected, actual):
                mismatches.append(Mismatch(command.line, command.text, command.expected, actual, command.code, code))
    return mismatches, outputs


def update_guide(text: str, mismatches: list[Mismatch], outputs: dict[int, list[str]]) -> str:
    """``text`` with the output of each mismatched command replaced by its actual output."""
    lines = text.splitlines()
    wrong = {m.line for m in mismatches}
    for block in reversed(blocks(text)):
        for i, command in reversed(list(enumerate(block.commands))):
            if command.line not in wrong:
                continue
            start = command.line + command.text.count("\n")  # the first output line, 1-based index of the next
            end = block.commands[i + 1].line - 1 if i + 1 < len(block.commands) else block.line + len(block.body.splitlines())
            lines[start:end] = outputs[command.line]
    return "\n".join(lines) + "\n"
