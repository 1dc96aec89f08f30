"""Markdown templates: every ``{{ value }}`` is escaped as text, and escaping collapses whitespace at its ends
(a value never starts a block), so punctuation written as a string expression (``{{ ", " if ... }}``) loses its
space. Such text belongs to the template itself: ``{% if not loop.last %}, {% endif %}``."""

from __future__ import annotations

import re
from pathlib import Path

import masrl

TEMPLATES = Path(masrl.__file__).parent / "templates"
EXPRESSION = re.compile(r"\{\{(.*?)\}\}")
LITERAL = re.compile(r""""[^"]*"|'[^']*'""")  # the string literals of an expression, left to right


def spaced_literals(line: str) -> list[str]:
    """The string literals with a space at either end in the ``{{ ... }}`` expressions of ``line`` (a
    ``join`` argument is fine: joining happens before escaping)."""
    return [lit for expr in EXPRESSION.findall(line) for lit in LITERAL.findall(expr)
            if lit[1:-1] != lit[1:-1].strip() and f"join({lit})" not in expr]


def test_no_markdown_template_writes_punctuation_with_spaces_as_an_escaped_value():
    found = [f"{path.name}:{n}: {lit}" for path in sorted(TEMPLATES.glob("*.md.j2"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) for lit in spaced_literals(line)]
    assert found == []


def test_the_check_finds_what_it_is_for():
    assert spaced_literals('x {{ ", " if not loop.last else "" }}') == ['", "']
    assert spaced_literals("{{ ' and ' }}") == ["' and '"]
    assert spaced_literals('{{ "holds" if k.holds else "fails" }} {{ a | join(", ") }}') == []
