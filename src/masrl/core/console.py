"""How much masrl prints: ``--quiet``, default, ``--verbose``.

Results that a command exists to print (a diff, metrics, a dry run) and every
error and finding are printed whatever the level. :func:`info` lines (one-line
summaries, "created ...") are left out with ``--quiet``; :func:`detail` lines
(each file written) appear only with ``--verbose``.
"""

from __future__ import annotations

import sys

QUIET, NORMAL, VERBOSE = -1, 0, 1
_level = NORMAL


def set_level(level: int) -> None:
    """Set the level for this run (the CLI does, from ``--quiet`` / ``--verbose``)."""
    global _level
    _level = level


def info(message: str, err: bool = False) -> None:
    """A summary line (stdout, or stderr for notes); not printed with ``--quiet``."""
    if _level >= NORMAL:
        print(message, file=sys.stderr if err else sys.stdout)


def detail(message: str) -> None:
    """A line printed only with ``--verbose`` (stdout)."""
    if _level >= VERBOSE:
        print(message)
