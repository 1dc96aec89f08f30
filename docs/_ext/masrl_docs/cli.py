"""masrl's argument parser as the CLI reference shows it (sphinx-argparse renders it:
``:module: masrl_docs.cli`` ``:func: parser``).

The parser is masrl's own (:func:`masrl.cli.parser.build_parser`), so every command, option and
help text on the page is the code's. Two things change for the page: help texts are plain text,
not reStructuredText, so the characters reStructuredText would read as markup are escaped and
each epilog (the examples) is shown as written, in a literal block; and the global options are
listed once, under ``masrl``, not again under every command. ``masrl exclude`` takes one option
per field of excluded records from the survey's taxonomy: the page shows those of the survey at
:data:`SURVEY` (the bundled survey, unless a build sets it).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

#: The survey whose taxonomy gives ``masrl exclude`` its field options on the page.
SURVEY = Path(__file__).resolve().parents[3]

_MARKUP = re.compile(r"([\\`*_|<>])")
_GLOBAL = "global options"


def escape(text: str) -> str:
    """``text`` with every character reStructuredText (and Markdown) would read as markup escaped."""
    return _MARKUP.sub(r"\\\1", text)


def _literal(text: str) -> str:
    """A literal block of reStructuredText holding ``text`` as written."""
    return "::\n\n" + "\n".join(f"    {line}" if line.strip() else "" for line in text.splitlines()) + "\n"


def _parsers(parser: argparse.ArgumentParser):
    """``parser`` and every parser of its commands, each once."""
    yield parser
    for action in parser._actions:  # argparse has no public accessor for its subcommands
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _parsers(sub)


def prepare(top: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``top`` and its commands' parsers made ready for the page (see the module docstring),
    changed in place."""
    for parser in dict.fromkeys(_parsers(top)):
        if parser.description:
            parser.description = escape(parser.description)
        if parser.epilog:
            parser.epilog = _literal(parser.epilog)
        for action in parser._actions:
            if action.help and action.help is not argparse.SUPPRESS:
                action.help = escape(action.help)
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    if choice.help:
                        choice.help = escape(choice.help)
        if parser is not top:
            parser._action_groups = [g for g in parser._action_groups if not (g.title or "").startswith(_GLOBAL)]
    return top


def parser() -> argparse.ArgumentParser:
    """masrl's parser, its ``exclude`` options from the survey at :data:`SURVEY`, ready for the page."""
    from masrl.cli.parser import build_parser

    return prepare(build_parser(["exclude", "--help", "--root", str(SURVEY)]))
