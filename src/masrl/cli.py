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

It is a living review. A release is a named, dated, frozen snapshot of the pool
(corpus/releases.yaml; v1 is the survey as published, 2026-05-04): its reports
under reports/releases/<name>/ never change. Records added since the last
release are pending; reports/ shows the current pool with the latest release
beside it, and `masrl release NAME --date YYYY-MM-DD` freezes the next one.

Commands find the survey root by walking up from the current directory to the
folder that holds corpus/taxonomy.yaml; --root DIR overrides."""

EPILOG = """\
typical session:
  masrl validate            check every record against the controlled vocabulary
  masrl build               regenerate reports/ (and the README paper list)
  masrl build --check       exit 1 if anything committed is stale (CI)
  masrl add --bibtex new.bib
  masrl diff main           what your change does to counts, cells and claims
  masrl resolve             after `git merge` stops on conflicts in reports/
  masrl release v2 --date 2026-12-01   freeze the pool as the next release
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
    parser.add_argument("--arxiv", metavar="ID", help="arXiv id in any form: 2605.02801, 2605.02801v2, arXiv:2605.02801, "
                        "cs/0506042, an arxiv.org abs/pdf/html URL, or 10.48550/arXiv.2605.02801")
    parser.add_argument("--doi", metavar="DOI", help="DOI in any form: 10.1145/3605764.3623985, doi:10..., https://doi.org/10... "
                        "(an arXiv DOI is read as the arXiv id)")
    parser.add_argument("--openreview", metavar="ID", help="OpenReview id or forum/pdf URL, e.g. ur295YVtmt")
    parser.add_argument("--url", metavar="URL", help="landing page URL (an arXiv/OpenReview/DOI/ACL Anthology page becomes that identifier)")


ADD_EPILOG = """\
identifier forms (IDENTIFIER, --arxiv, --doi, --openreview, --url):
  arXiv 2605.08686, 2605.08686v2, arXiv:2605.08686, cs/0506042, https://arxiv.org/abs|pdf|html/...,
        10.48550/arXiv.2605.08686; DOI 10.1145/..., doi:10..., https://doi.org/...;
  OpenReview ur295YVtmt, https://openreview.net/forum?id=...; ACL Anthology 2025.acl-long.476,
        P19-1001, https://aclanthology.org/..., 10.18653/v1/...
metadata sources (without --no-fetch): arXiv API, Crossref (DOIs), OpenReview API, ACL Anthology.

examples:
  masrl add 2605.08686                          look up title, authors, year, venue, abstract
  masrl add --bibtex refs.bib --dry-run         show every problem of every entry, write nothing
  masrl add --bibtex refs.bib --skip-invalid    add the valid new entries, report the rest in refs-skipped.bib
  masrl add --doi 10.1145/3605764.3623985 --no-fetch --title "..." --author "Greshake, Kai" --year 2023"""

EXCLUDE_EPILOG = """\
allowed values (those of the bundled corpus/taxonomy.yaml; a survey's own taxonomy rules,
and a wrong value is refused with its full list):
  --stage         abstract_screen, full_text_screen, artifact_screen, duplicate_screen
  --reason-class  X1, X2, X3, X4, X5
  --source        arXiv, ACL Anthology, OpenReview, GitHub/project page, company docs, company blog
  --query-family  multi-agent LLM, agent swarm, reinforcement learning, post-training, credit assignment,
                  orchestration, tool use, benchmark, safety, prompt injection, classical MARL,
                  industrial agent system

examples:
  masrl exclude --title "AutoGen" --arxiv arXiv:2308.08155 --stage abstract_screen --reason "prompted framework, no RL" \\
      --reason-class X1 --source arXiv --query-family "multi-agent LLM"
  masrl exclude --key halo --stage full_text_screen --reason "no trained orchestration" --reason-class X2 \\
      --source arXiv --query-family orchestration
  masrl exclude --title "..." --doi https://doi.org/10.1145/3605764.3623985 --stage abstract_screen ... --dry-run"""


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


def _cmd_release(args: argparse.Namespace) -> int:
    from .commands import release

    return release.run(args)


def _cmd_resolve(args: argparse.Namespace) -> int:
    from .commands import resolve

    return resolve.run(args)


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
        "retained or excluded (the same canonical identifier in any of its forms, or a "
        "title at least 90% similar after normalisation) unless --force is given with a "
        "reason. Given an IDENTIFIER (or --arxiv/--doi/--openreview/--url) without "
        "--title/--author/--year, the metadata is looked up.",
        epilog=ADD_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _root_arg(p)
    p.add_argument("identifier", nargs="?", metavar="IDENTIFIER",
                   help="the paper's id in any form (arXiv, DOI, OpenReview, ACL Anthology, or a URL of one)")
    p.add_argument("--bibtex", type=Path, metavar="FILE", help="BibTeX/BibLaTeX file with one or many entries")
    p.add_argument("--skip-invalid", action="store_true",
                   help="with --bibtex: add the valid, new entries and write the others, with every reason, to a report")
    p.add_argument("--report", metavar="FILE", help="with --skip-invalid: where the report goes (default: ./<FILE stem>-skipped.bib)")
    p.add_argument("--no-fetch", action="store_true", help="never touch the network: no metadata lookup")
    _identifier_args(p)
    p.add_argument("--title", metavar="T", help="title (plain text, Unicode)")
    p.add_argument(
        "--author",
        action="append",
        metavar='"Last, First"',
        help="an author, repeat for each, in BibTeX 'Last, First' form ('First Last' is stored as 'Last, First' "
        "with a warning); an organisation in braces, '{Kimi Team}'; end with 'others' if the list is incomplete",
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
        "file is removed only after the exclusion record is written. Refuses a paper that is "
        "already retained or excluded (same canonical identifier or a near-identical title).",
        epilog=EXCLUDE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _root_arg(p)
    p.add_argument("--key", metavar="KEY", help="retained record to move to the exclusion log")
    p.add_argument("--title", metavar="T", help="screening label (title) of a paper that is not retained")
    p.add_argument("--author", action="append", metavar='"Last, First"',
                   help="an author of the screened paper, repeat for each ('others' if the list is incomplete)")
    p.add_argument("--year", type=int, metavar="Y", help="publication year of the screened paper")
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
        "release",
        help="freeze the pool as the next release (a named, dated snapshot)",
        description="Freeze every record of the pool, with the controlled vocabulary, as release NAME: "
        "writes corpus/releases/NAME.yaml (never edited afterwards) and lists it in "
        "corpus/releases.yaml. `masrl build` then writes the release's reports to "
        "reports/releases/NAME/ (they never change) and compares the pool with it. Records "
        "added after the last release are 'pending' until the next release. Refused when a "
        "record does not validate, a current claim fails, nothing is pending, a record was "
        "added after --date, or the date is before the last release.",
        epilog="examples:\n"
        "  masrl release v2 --date 2026-12-01 --title 'Update of December 2026'\n"
        "  masrl release v2 --date 2026-12-01 --cutoff 2026-11-30 --dry-run",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _root_arg(p)
    p.add_argument("name", metavar="NAME", help="release name: lower-case letters, digits, '.', '_', '-' (e.g. v2)")
    p.add_argument("--date", required=True, metavar="YYYY-MM-DD", help="release date")
    p.add_argument("--cutoff", metavar="YYYY-MM-DD", help="search cutoff of the release (default: the release date)")
    p.add_argument("--title", metavar="TEXT", help="one line saying what the release is (default: 'Release NAME of the living review')")
    p.add_argument("--source", metavar="TEXT", help="where its records come from, e.g. a DOI or commit (optional)")
    p.add_argument("--dry-run", action="store_true", help="say what would be frozen and write nothing")
    p.set_defaults(run=_cmd_release)

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

    p = sub.add_parser(
        "resolve",
        help="finish a git merge of two contributions: regenerate reports/, keep both new records",
        description="After `git merge` stops on conflicts: regenerate everything under reports/ and "
        "the README paper list from the merged records; when both branches created the same "
        "record file (two new exclusions both E033, two papers both liu2026), keep ours and "
        "rename theirs to the next free id or key; then validate, build and `git add` what it "
        "resolved. Conflicts that need a person (one record edited on both sides, the claim "
        "ledger, the taxonomy, the releases) are listed and nothing is written.",
        epilog="examples:\n"
        "  git merge other-branch     # stops: conflicts in reports/ and exclusions/E033.yaml\n"
        "  masrl resolve              # regenerates, renames theirs to E034, git-adds\n"
        "  git commit --no-edit",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _root_arg(p)
    p.set_defaults(run=_cmd_resolve)

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
