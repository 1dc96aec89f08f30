"""Command-line interface: argument parsing only.

Each subcommand parses its arguments and calls one function of the pipeline
(imported lazily, so that ``masrl validate`` and ``masrl build --check`` never
import matplotlib). User mistakes end as ``masrl: error: ...`` lines and exit
code 1, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import UserError

DESCRIPTION = """\
masrl keeps the survey "Reinforcement Learning for LLM-based Multi-Agent
Systems through Orchestration Traces" (arXiv 2605.02801) reproducible: the
records under corpus/ and exclusions/ are the source of truth, and every
statistic, table, gap analysis, claim check, figure, BibTeX file and audit under
reports/ is regenerated from them.

Commands find the survey root by walking up from the current directory to the
folder that holds corpus/taxonomy.yaml; --root DIR overrides."""

EPILOG = """\
typical session:
  masrl validate            check every record against the controlled vocabulary
  masrl build               regenerate reports/ (and the README paper list)
  masrl build --check       exit 1 if anything committed is stale (CI)
  masrl add --bibtex new.bib
  masrl diff HEAD           what your change does to counts, cells and claims
  masrl audit sample --population retained --n 20 --seed 7   a second-reader audit"""


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors exit with code 1 like every other user mistake."""

    def error(self, message: str):  # noqa: D401
        self.print_usage(sys.stderr)
        self.exit(1, f"masrl: error: {message}\n")


def _root_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        type=Path,
        metavar="DIR",
        help="survey root (the folder holding corpus/taxonomy.yaml); default: found by walking up from the current directory",
    )


def _identifier_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--arxiv", metavar="ID", help="arXiv identifier, e.g. 2605.02801 or 2605.02801v2")
    parser.add_argument("--doi", metavar="DOI", help="DOI, e.g. 10.1145/3605764.3623985")
    parser.add_argument("--openreview", metavar="ID", help="OpenReview forum id, e.g. ur295YVtmt")
    parser.add_argument("--url", metavar="URL", help="landing page URL (an arXiv/OpenReview/DOI page becomes that identifier)")


def _cmd_validate(args: argparse.Namespace) -> int:
    from .commands import validate

    return validate.run(args.root)


def _cmd_build(args: argparse.Namespace) -> int:
    from .commands import build

    return build.run(args.root, check=args.check, rerender=args.rerender)


def _cmd_add(args: argparse.Namespace) -> int:
    from .commands import add

    return add.run(args)


def _cmd_exclude(args: argparse.Namespace) -> int:
    from .commands import exclude

    return exclude.run(args)


def _cmd_diff(args: argparse.Namespace) -> int:
    from .commands import diff

    return diff.run(args.root, args.rev, as_json=args.json)


def build_parser() -> argparse.ArgumentParser:
    """The ``masrl`` argument parser with all subcommands."""
    parser = _Parser(
        prog="masrl",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"masrl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser(
        "validate",
        help="check every record against the controlled vocabulary (writes nothing)",
        description="Check every retained record (corpus/papers/*.yaml), every excluded record "
        "(exclusions/*.yaml), the taxonomy, the claim ledger and the audits. Prints every error "
        "of the run at once as FILE:LINE: FIELD: MESSAGE and exits 1 if there is any. Never "
        "rewrites a file.",
    )
    _root_arg(p)
    p.set_defaults(run=_cmd_validate)

    p = sub.add_parser(
        "build",
        help="regenerate reports/ and the README paper list from the records",
        description="Load and validate the records (stop with the errors if invalid), then "
        "regenerate everything under reports/ (statistics, tables, gaps, claims, LaTeX, "
        "BibTeX, figures, audit, traces) and the paper list in README.md. Output is "
        "byte-identical for the same records. Fails (exit 1) if a current claim of "
        "corpus/claims.yaml no longer holds.",
    )
    _root_arg(p)
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 listing every generated file that is stale, missing or orphaned",
    )
    p.add_argument(
        "--rerender-figures",
        dest="rerender",
        action="store_true",
        help="redraw every figure even if its plotted data and drawing code are unchanged",
    )
    p.set_defaults(run=_cmd_build)

    p = sub.add_parser(
        "add",
        help="create record stubs for new papers (from BibTeX or arguments)",
        description="Create corpus/papers/<key>.yaml stubs with the bibliographic fields filled "
        "and every controlled field set to 'untagged' (masrl validate rejects them until "
        "tagged). Keys are <first-author-surname><year>[a-z] in lower case ASCII "
        "(e.g. liu2025, liu2025b). Never overwrites a file. Refuses a paper that is already "
        "retained or excluded (same arXiv id with or without version, DOI, OpenReview id, ACL "
        "id or URL, or a title at least 90% similar after normalisation) unless --force "
        "is given with a reason.",
    )
    _root_arg(p)
    p.add_argument("--bibtex", type=Path, metavar="FILE", help="BibTeX file with one or many entries")
    _identifier_args(p)
    p.add_argument("--title", metavar="T", help="title (plain text, Unicode)")
    p.add_argument(
        "--author",
        action="append",
        metavar='"Last, First"',
        help="an author, repeat for each, in BibTeX 'Last, First' form; end with 'others' if the list is incomplete",
    )
    p.add_argument("--year", type=int, metavar="Y", help="publication year")
    p.add_argument("--venue", metavar="V", help="venue as it should be displayed, e.g. 'ICLR 2026' (default: arXiv)")
    p.add_argument("--key", metavar="KEY", help="record key to use instead of the generated one (only with a single paper)")
    p.add_argument("--force", metavar="REASON", help="add even if it matches an existing record; the reason is stored in the record")
    p.add_argument("--dry-run", action="store_true", help="print what would be written and write nothing")
    p.set_defaults(run=_cmd_add)

    p = sub.add_parser(
        "exclude",
        help="log a screening decision (a new exclusions/<id>.yaml)",
        description="Record a screening decision as exclusions/<next id>.yaml. Either describe a "
        "screened paper (--title plus an identifier) or name a retained record with --key to "
        "move it: its former key and tags are kept in the exclusion record and the retained "
        "file is removed only after the exclusion record is written.",
    )
    _root_arg(p)
    p.add_argument("--key", metavar="KEY", help="retained record to move to the exclusion log")
    p.add_argument("--title", metavar="T", help="screening label (title) of a paper that is not retained")
    _identifier_args(p)
    p.add_argument("--stage", required=True, metavar="STAGE", help="screening stage (see corpus/taxonomy.yaml: stage)")
    p.add_argument("--reason", required=True, metavar="TEXT", help="exclusion reason, one sentence")
    p.add_argument("--reason-class", required=True, metavar="X", help="exclusion-reason class X1-X5 (corpus/taxonomy.yaml: reason_class)")
    p.add_argument("--source", required=True, metavar="SOURCE", help="where the record was found (taxonomy: source)")
    p.add_argument("--query-family", required=True, metavar="FAMILY", help="query family that found it (taxonomy: query_family)")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="date screened (default: today)")
    p.add_argument("--dry-run", action="store_true", help="print what would be written and write nothing")
    p.set_defaults(run=_cmd_exclude)

    p = sub.add_parser(
        "diff",
        help="what the working tree changes against a git revision: records, cells, claims",
        description="Compare the corpus at git revision REV (read with git, the working tree is "
        "not touched) with the working tree: records added, removed, moved to the exclusion "
        "log or retagged (field by field); every table cell and count that changed; every "
        "claim whose result changed. Markdown on stdout, for a pull request.",
    )
    _root_arg(p)
    p.add_argument("rev", metavar="REV", help="git revision, e.g. HEAD, main, a1b2c3d")
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.set_defaults(run=_cmd_diff)

    from .trace.cli import register as register_trace

    register_trace(sub)
    from .commands.audit import register as register_audit

    register_audit(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``masrl`` console script; returns the exit code.

    Output that the terminal's encoding cannot show is escaped, not a crash;
    a closed output pipe (``masrl ... | head``) ends the run with code 141.
    """
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except UserError as err:
        for problem in err.problems:
            print(problem, file=sys.stderr)
        print(f"masrl: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("masrl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
