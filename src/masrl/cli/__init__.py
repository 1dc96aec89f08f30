"""Command-line interface: argument parsing only.

Each subcommand parses its arguments and calls one function of the pipeline
(imported lazily, so that ``masrl validate`` and ``masrl build --check`` never
import matplotlib). The global options ``--root``, ``--quiet``, ``--verbose``
and ``--version`` work before or after the subcommand. Exit codes: 0 ok, 1
findings (invalid records, a stale report, a failing claim, a refused write),
2 usage errors, 130 interrupted, 141 output pipe closed; never a traceback for
a user's mistake.
"""

from __future__ import annotations

import sys
from functools import lru_cache

from ..core.errors import UserError
from ..core.text import printable, without_secrets
from .help import EXAMPLES, exclusion_example
from .parser import USAGE_ERROR, build_parser

__all__ = ["EXAMPLES", "EXIT_CODES", "USAGE_ERROR", "build_parser", "exclusion_example", "main"]

#: The exit code of a run interrupted by Ctrl-C, and of one whose output pipe was closed.
INTERRUPTED, PIPE_CLOSED = 130, 141

#: Every exit code of ``masrl`` and what it means (the manual's reference lists them from here).
EXIT_CODES = {
    0: "success: records valid, reports written or current, claims hold",
    UserError.exit_code: "findings: invalid records or traces, stale reports (`--check`), a failing claim, a refused "
                         "write, any other error of the input (git, files)",
    USAGE_ERROR: "usage error: unknown command or option, missing or contradicting arguments",
    INTERRUPTED: "interrupted (Ctrl-C)",
    PIPE_CLOSED: "the output pipe was closed (`masrl ... | head`)",
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``masrl`` console script; returns the exit code.

    Output that the terminal's encoding cannot show is escaped, not a crash;
    a closed output pipe (``masrl ... | head``) ends the run with code 141.
    """
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    try:
        try:
            code = _run(argv)
        except SystemExit as done:  # --help, --version and usage errors
            code = done.code if isinstance(done.code, int) else USAGE_ERROR
            sys.stdout.flush()
            raise SystemExit(code) from None
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except KeyboardInterrupt:
        print("masrl: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return PIPE_CLOSED


def _parser(argv: list[str]):
    """The parser for ``argv``: made once per process, except for ``exclude``, whose options come
    from the survey's taxonomy on disk (:func:`build_parser`)."""
    return build_parser(argv) if "exclude" in argv else _common_parser()


@lru_cache(maxsize=1)
def _common_parser():
    return build_parser([])


def _run(argv: list[str]) -> int:
    from ..core import console

    parser = _parser(argv)
    args = parser.parse_args(argv)
    if args.quiet and args.verbose:
        parser.error("--quiet and --verbose contradict each other; give one of them")
    console.set_level(console.QUIET if args.quiet else console.VERBOSE if args.verbose else console.NORMAL)
    try:
        return int(args.run(args) or 0)
    except UserError as err:
        sys.stdout.flush()  # what was printed before the error stays before it, also in a combined log
        for problem in err.problems:
            print(without_secrets(str(problem)), file=sys.stderr)
        print(f"masrl: error: {without_secrets(printable(str(err), multiline=True))}", file=sys.stderr)
        return err.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
