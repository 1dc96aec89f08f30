"""Problems found in user input, and the one exception for fatal user mistakes.

A :class:`Problem` is one finding about one file (a record, the taxonomy, a
trace, a BibTeX file). Commands collect every problem of a run, print them all
at once (sorted, one per line) and exit 1; nothing in masrl raises a traceback
for a user's mistake.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One error in one input file.

    Attributes:
        file: path of the file as the user would type it, relative to the
            survey root where possible (``corpus/papers/c3.yaml``).
        line: 1-based line number, or ``None`` where it is not known.
        field: the field or JSON path concerned (``title``,
            ``identifiers.arxiv``, ``$.events[3].t``), or ``None``.
        message: what is wrong, with the bad value and what is allowed.
        code: the stable code of the rule that found it (``D007``: an untagged field; see
            :data:`masrl.checks.validate.RULES`), for tests and waivers; None outside the checks.
            Not part of the printed line.
    """

    file: str
    line: int | None
    field: str | None
    message: str
    code: str | None = None

    def __str__(self) -> str:
        """One line: ``FILE:LINE: FIELD: MESSAGE``; line breaks and other unprintable
        characters in any part are written as escapes (``\\n``, ``\\u2028``)."""
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        text = f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        if text.isprintable():  # nearly every problem: no character to escape (one C-level pass)
            return text
        return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def sort_key(problem: Problem) -> tuple:
    """Sort key that orders problems by file, then line (unknown lines first)."""
    return (problem.file, problem.line or 0, problem.field or "", problem.message)


#: The pseudo file name of problems with command-line arguments.
COMMAND_LINE = "command line"


#: The code of the notice that the records were not checked because the taxonomy has errors
#: (:func:`masrl.checks.validate.validate`): listed with the problems, never counted as one.
NOT_CHECKED = "T000"


def summary(problems: list[Problem], tail: str = "nothing was written.") -> str:
    """One closing line: ``3 errors in 2 files; nothing was written.`` (problems
    of the command line are counted as such, not as a file; the :data:`NOT_CHECKED` notice is
    not an error)."""
    problems = [p for p in problems if p.code != NOT_CHECKED]
    n = len(problems)
    files = len({p.file for p in problems if p.file != COMMAND_LINE})
    where = []
    if files:
        where.append(f"{files} file{'s' if files != 1 else ''}")
    if any(p.file == COMMAND_LINE for p in problems):
        where.append("the command line")
    return f"{n} error{'s' if n != 1 else ''} in {' and '.join(where)}; {tail}"


class UserError(Exception):
    """A fatal mistake of the user (bad argument, no survey root, ...).

    The CLI prints ``masrl: error: <message>`` and exits 1, without a traceback.
    ``problems`` may carry a list of :class:`Problem` to print first.
    """

    #: the exit code of the command that raised it
    exit_code = 1

    def __init__(self, message: str, problems: list[Problem] | None = None):
        super().__init__(message)
        self.problems = problems or []


class UsageError(UserError):
    """A command called without what it needs (a required option or argument that argparse cannot
    require on its own): printed like a :class:`UserError`, exit code 2 as for argparse's usage errors."""

    exit_code = 2
