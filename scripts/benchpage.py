"""The benchmarks page of the manual (docs/benchmarks.md), written by the benchmark scripts.

Each script that measures something gives itself ``--markdown [FILE]`` (:func:`add_option`) and,
after a run, hands its figures to :func:`write` as a :class:`Section`. The page holds one block
per script, between the markers ``<!-- bench:SCRIPT:start -->`` and ``<!-- bench:SCRIPT:end -->``,
grouped under a heading per area (:data:`AREAS`, in that order; an area not listed there comes
after them). Writing a script's block replaces its previous block and leaves every other script's
block as it was, so the page always holds the last run of each script. Every block says what was
measured (a table), the command that measured it (``python scripts/NAME.py ARGS``, as it was
run), the machine (CPU model, cores, Python, operating system, load average before and after)
and the date (``masrl.core.clock``: ``MASRL_TODAY`` sets it).

Usage in a script::

    import benchpage                      # scripts/ is on sys.path when a script runs

    parser = argparse.ArgumentParser(...)
    benchpage.add_option(parser)          # --markdown [FILE], default docs/benchmarks.md
    args = parser.parse_args()
    load = benchpage.load_average()       # before measuring
    ...
    if args.markdown:
        benchpage.write(args.markdown, benchpage.Section(
            area="intake", script="bench_add", title="Adding papers from BibTeX",
            summary="`masrl add --bibtex` of 2,000 new entries, dry run, against ...",
            columns=["what", "time", "ratio to the floor", "bound", "verdict"],
            rows=[["masrl add --bibtex", "7.36 s", "47x", "10 s", "met"]],
            notes=["The floor is ..."], load_before=load))
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The page, unless ``--markdown`` names another file.
PAGE = ROOT / "docs" / "benchmarks.md"

#: The areas of the page, in order, with their headings.
AREAS = {
    "tests": "The test suite",
    "build": "Building, checking and comparing",
    "intake": "Adding papers",
    "screening": "Suggestions and the screening rank",
    "audits": "Audits",
    "traces": "Orchestration traces",
}

HEADER = """\
# Benchmarks

The speed and accuracy of masrl, as the benchmark scripts in `scripts/` measured them on their
last run. Each section is written by the script named in it (`--markdown`), with the command that
ran, the machine and the date; running a script again replaces its section. The budgets each
figure is held to, and how to measure without noise on a shared machine, are in
[Contributing](contributing.md).
"""

_BLOCK = re.compile(r"<!-- bench:(?P<script>[A-Za-z0-9_.-]+):start -->\n(?P<body>.*?)<!-- bench:(?P=script):end -->\n",
                    re.S)
_AREA = re.compile(r"<!-- bench-area:(?P<area>[A-Za-z0-9_.-]+) -->")


@dataclass
class Section:
    """What one script measured.

    Attributes:
        area: the page's area (a key of :data:`AREAS`, or a new one).
        script: the script's name without ``.py`` (its block's marker).
        title: the block's heading.
        summary: what was measured, and against what (Markdown).
        columns, rows: the figures, as a table (cells are Markdown text).
        notes: more lines after the table (Markdown), each a paragraph.
        command: the command as run; default ``python scripts/<script>.py`` and this run's arguments.
        load_before: the load average before the run (:func:`load_average`), if taken.
    """

    area: str
    script: str
    title: str
    summary: str
    columns: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    command: str = ""
    load_before: tuple[float, float, float] | None = None


def add_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--markdown [FILE]`` to a script's parser (FILE defaults to the manual's page)."""
    parser.add_argument("--markdown", nargs="?", const=str(PAGE), default=None, metavar="FILE",
                        help=f"write this run's figures into the benchmarks page (default {PAGE.relative_to(ROOT)}), "
                             "replacing this script's previous section")


def load_average() -> tuple[float, float, float]:
    """The 1-, 5- and 15-minute load average now."""
    return os.getloadavg()


def command_line(script: str, argv: list[str] | None = None) -> str:
    """``python scripts/<script>.py ARGS`` of this run, ``--markdown`` and its file left out."""
    args = list(sys.argv[1:] if argv is None else argv)
    kept, skip = [], False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--markdown":
            skip = i + 1 < len(args) and not args[i + 1].startswith("-")
            continue
        if arg.startswith("--markdown="):
            continue
        kept.append(arg)
    return " ".join(["python", f"scripts/{script}.py", *map(shlex.quote, kept)])


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(load_before: tuple[float, float, float] | None = None) -> str:
    """One line on the machine of this run."""
    load = os.getloadavg()
    text = (f"{_cpu()}, {os.cpu_count()} cores; Python {platform.python_version()} "
            f"({platform.python_implementation()}); {platform.system()} {platform.release()}")
    before = f"{load_before[0]:.2f} before, " if load_before else ""
    return f"{text}; load average {before}{load[0]:.2f} after"


def _today() -> str:
    try:
        from masrl.core.clock import today_iso
    except ImportError:  # a Python without masrl installed: the clone's own code
        sys.path.insert(0, str(ROOT / "src"))
        from masrl.core.clock import today_iso

    return today_iso()


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def block(section: Section) -> str:
    """The Markdown of one script's block (without its markers)."""
    lines = [f"### {section.title}", "", section.summary.strip(), ""]
    if section.columns:
        lines.append("| " + " | ".join(_cell(c) for c in section.columns) + " |")
        lines.append("| " + " | ".join("---" for _ in section.columns) + " |")
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in section.rows]
        lines.append("")
    for note in section.notes:
        lines += [note.strip(), ""]
    lines += [f"- Command: `{section.command or command_line(section.script)}`",
              f"- Machine: {machine(section.load_before)}",
              f"- Run on: {_today()}", ""]
    return "\n".join(lines)


def _parse(text: str) -> dict[str, tuple[str, str]]:
    """``{script: (area, body)}`` of the blocks on a page."""
    out: dict[str, tuple[str, str]] = {}
    area = ""
    position = 0
    for match in _BLOCK.finditer(text):
        areas = list(_AREA.finditer(text, position, match.start()))
        if areas:
            area = areas[-1]["area"]
        out[match["script"]] = (area, match["body"])
        position = match.end()
    return out


def render(blocks: dict[str, tuple[str, str]]) -> str:
    """The whole page from its blocks ``{script: (area, body)}``."""
    areas = list(AREAS) + sorted({a for a, _ in blocks.values()} - set(AREAS))
    out = [HEADER]
    for area in areas:
        scripts = sorted(s for s, (a, _) in blocks.items() if a == area)
        if not scripts:
            continue
        out += [f"<!-- bench-area:{area} -->", f"## {AREAS.get(area, area.capitalize())}", ""]
        for script in scripts:
            out += [f"<!-- bench:{script}:start -->", blocks[script][1].rstrip("\n"), f"<!-- bench:{script}:end -->", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def write(path: str | Path, section: Section) -> Path:
    """Put ``section`` on the page at ``path`` in place of the script's previous block."""
    path = Path(path)
    blocks = _parse(path.read_text(encoding="utf-8")) if path.exists() else {}
    blocks[section.script] = (section.area, block(section))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(render(blocks), encoding="utf-8")
    os.replace(temporary, path)
    print(f"wrote the section of {section.script} into {path}", file=sys.stderr)
    return path
