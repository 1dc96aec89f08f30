"""The ``masrl`` argument parser: the global options, every command's arguments, and the
handler each command runs (which imports its module of :mod:`masrl.commands` lazily, so that
``masrl validate`` and ``masrl build --check`` never import matplotlib)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..corpus.taxonomy import EXCLUDE_OPTIONS
from ..core.didyoumean import did_you_mean
from .help import DESCRIPTION, EPILOG, EXAMPLES, _vocabulary_epilog

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors exit with code 2 (the convention of git, grep, argparse) and
    name the closest command, subcommand, option or choice of a mistyped one ("did you mean"). An option is
    written whole: a prefix is no option (``trace convert --format`` was read as ``--formats`` and its file
    ignored), but gets its "did you mean"."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D401
        # an option mistyped is what to fix first: argparse would name only what it left missing ("required: --x")
        # or the word after it ("invalid choice: '.'" for `masrl --roott . validate`)
        known = set(_all_options(self))
        own = [option for action in self._actions for option in action.option_strings] or sorted(known)
        unknown = [w for w in getattr(self, "_words", []) if w.startswith("--") and w.split("=", 1)[0] not in known]
        if unknown and not message.startswith("unrecognized arguments"):
            named = ", ".join(f"{w}{_closest(w.split('=', 1)[0], own)}" for w in unknown)
            message = f"unrecognized option {named}; {message}"
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"masrl: error: {message}\n")

    def parse_known_args(self, args=None, namespace=None):
        self._words = list(sys.argv[1:] if args is None else args)  # for error(): the words this parser reads
        return super().parse_known_args(args, namespace)

    def _check_value(self, action, value):  # argparse's one check of a choice (a command, --from FORMAT)
        if action.choices is not None and value not in action.choices:
            choices = [str(c) for c in action.choices]
            raise argparse.ArgumentError(action, f"invalid choice: {value!r}{did_you_mean(value, choices)} "
                                                 f"(choose from {', '.join(choices)})")
        return super()._check_value(action, value)

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            options = _options_of(self, parsed)
            named = [f"{e}{_hint(e, options)}" for e in extras]
            self.error(f"unrecognized arguments: {' '.join(named)}")
        return parsed



def _hint(word: str, options: list[str]) -> str:
    """What an unrecognized word of the command line may have meant: the closest option, or, for an option
    of the command given after ``--`` (which ends the options), that it was read as an argument."""
    if not word.startswith("-"):
        return ""
    name = word.split("=", 1)[0]
    if name in options:
        return " (an option, but after '--' every word is an argument: put it before '--')"
    return _closest(name, options)


def _closest(name: str, options) -> str:
    """The "did you mean" of an option: the one option ``name`` begins (``--max`` for ``--max-records``; options are
    written whole), else the closest by spelling."""
    starting = sorted({o for o in options if o.startswith(name) and o != name})
    return f" (did you mean '{starting[0]}'?)" if len(starting) == 1 else did_you_mean(name, sorted(set(options)))


def _path(text: str) -> Path:
    """A path given on the command line; an empty one (``"$DIR"`` with DIR unset) names no folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: name a folder or a file (an unset shell variable gives an empty one)")
    return Path(text)

def _all_options(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string of ``parser`` and of its subcommands, at any depth."""
    out = []
    for action in parser._actions:  # argparse has no public accessor for its subcommands
        out += action.option_strings
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                out += _all_options(sub)
    return out


def _options_of(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> list[str]:
    """Every option string of the (sub)command ``parsed`` chose, global options included."""
    while True:
        chosen = None
        for action in parser._actions:  # argparse has no public accessor for its subcommands
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
        if chosen is None:
            return [option for action in parser._actions for option in action.option_strings]
        parser = chosen


def _global_options(parser: argparse.ArgumentParser, top: bool) -> None:
    """``--root``, ``--quiet``, ``--verbose``, ``--version``. Subcommands get them too,
    with suppressed defaults, so that a value given before the subcommand survives."""
    from .. import __version__

    unset = {} if top else {"default": argparse.SUPPRESS}
    group = parser.add_argument_group("global options (before or after the command)")
    group.add_argument("--root", type=_path, metavar="DIR", **({"default": None} if top else unset),
                       help="survey root (the folder holding corpus/taxonomy.yaml); default: found by walking up "
                            "from the current directory")
    group.add_argument("-q", "--quiet", action="store_true", **({"default": False} if top else unset),
                       help="print only results, findings and errors")
    group.add_argument("-v", "--verbose", action="store_true", **({"default": False} if top else unset),
                       help="also print each file written or removed")
    group.add_argument("--version", action="version", version=f"masrl {__version__}")


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:  # argparse has no public accessor for its subcommands
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield sub
                yield from _subparsers(sub)


def _root_of(argv: list[str]) -> Path | None:
    """The ``--root`` given on the command line, if any."""
    root = None
    for i, arg in enumerate(argv):
        if arg == "--root" and i + 1 < len(argv):
            root = Path(argv[i + 1])
        elif arg.startswith("--root="):
            root = Path(arg.split("=", 1)[1])
    return root


def _field_options(parser: argparse.ArgumentParser, fields, tax) -> None:
    """One option per field of excluded records (``--stage`` for a field ``stage``), into
    ``args.field_values``; required when the taxonomy requires the field."""
    required = {f.name for f in (tax.of("excluded") if tax else []) if f.required}
    required |= {f.name for f in (tax.free_of("excluded") if tax else []) if f.required}
    for option, name, values in fields or []:
        if option in parser._option_string_actions or option in EXCLUDE_OPTIONS:
            continue  # a field whose option is one of the command's own: validate names it (nothing crashes here)
        multi = name in tax.fields and tax.fields[name].multi
        kind = "values of" if multi else "a value of" if values else "free text of"
        again = "; repeat the option for each value" if multi else ""
        parser.add_argument(option, metavar=name.upper(), required=name in required, action=_FieldValues if multi else _FieldValue,
                            dest=f"field:{name}", default=argparse.SUPPRESS,
                            help=f"{tax.fields[name].label if name in tax.fields else name} ({kind} {name}{again}; listed below)")


class _FieldValue(argparse.Action):
    """Stores a field option's value under ``args.field_values[field]``."""

    def __call__(self, parser, namespace, values, option_string=None):
        found = dict(getattr(namespace, "field_values", None) or {})
        found[self.dest.split(":", 1)[1]] = values
        namespace.field_values = found


class _FieldValues(argparse.Action):
    """Adds a list field's option's value to the list ``args.field_values[field]`` (the option is repeated)."""

    def __call__(self, parser, namespace, values, option_string=None):
        found = dict(getattr(namespace, "field_values", None) or {})
        name = self.dest.split(":", 1)[1]
        found[name] = [*found.get(name, []), values]
        namespace.field_values = found


class _Once(argparse.Action):
    """An option a paper has one value of (an identifier): given twice with two values, a usage error
    naming both, not the last one kept without a word."""

    def __call__(self, parser, namespace, values, option_string=None):
        before = getattr(namespace, self.dest, None)
        if before is not None and before != values:
            parser.error(f"argument {option_string}: given twice, {before!r} and {values!r}: a record has one; "
                         "which paper is it?")
        setattr(namespace, self.dest, values)


def _identifier_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--arxiv", metavar="ID", action=_Once, help="arXiv identifier, e.g. 2605.02801 or 2605.02801v2")
    parser.add_argument("--doi", metavar="DOI", action=_Once, help="DOI, e.g. 10.1145/3605764.3623985")
    parser.add_argument("--openreview", metavar="ID", action=_Once, help="OpenReview forum id, e.g. ur295YVtmt")
    parser.add_argument("--url", metavar="URL", action=_Once,
                        help="landing page URL (an arXiv/OpenReview/DOI page becomes that identifier)")


def _cmd_init(args: argparse.Namespace) -> int:
    from ..commands import init

    return init.run(args)


def _cmd_validate(args: argparse.Namespace) -> int:
    from ..commands import validate

    return validate.run(args.root)


def _cmd_build(args: argparse.Namespace) -> int:
    from ..commands import build

    return build.run(args.root, check=args.check, rerender=args.rerender, figures=args.figures)


def _cmd_add(args: argparse.Namespace) -> int:
    from ..commands import add

    return add.run(args)


def _cmd_exclude(args: argparse.Namespace) -> int:
    from ..commands import exclude

    return exclude.run(args)


def _cmd_release(args: argparse.Namespace) -> int:
    from ..commands import release

    return release.run(args)


def _cmd_resolve(args: argparse.Namespace) -> int:
    from ..commands import resolve

    return resolve.run(args)


def _cmd_diff(args: argparse.Namespace) -> int:
    from ..commands import diff

    return diff.run(args.root, args.rev, as_json=args.json)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``masrl`` argument parser with all subcommands.

    ``argv`` is only looked at for ``exclude``, whose options (and, with ``--help``, their
    allowed values) come from the survey's taxonomy.
    """
    argv = list(argv or [])
    parser = _Parser(
        prog="masrl",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _global_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    raw = {"formatter_class": argparse.RawDescriptionHelpFormatter}

    p = sub.add_parser(
        "init",
        help="start a new survey in DIR: a commented taxonomy, an empty corpus, a README",
        description="Create a new survey in DIR (made if missing): corpus/taxonomy.yaml with two example fields, "
        "one table and one figure, each declaration commented; corpus/claims.yaml with one claim; empty "
        "corpus/papers/ and exclusions/; a placeholder corpus/protocol.yaml; and a README.md with the paper-list "
        "markers. `masrl build` works on it at once. Refused where a survey already is; never overwrites a file.",
        epilog=EXAMPLES["init"], **raw,
    )
    p.add_argument("directory", type=_path, metavar="DIR", help="folder of the new survey")
    p.add_argument("--title", metavar="TEXT", help="the survey's title (default: 'A new survey')")
    p.set_defaults(run=_cmd_init)

    p = sub.add_parser(
        "validate",
        help="check every record against the controlled vocabulary (writes nothing)",
        description="Check every retained record (corpus/papers/*.yaml), every excluded record "
        "(exclusions/*.yaml), the taxonomy, the claim ledger and the audits. Prints every error "
        "of the run at once as FILE:LINE: FIELD: MESSAGE and exits 1 if there is any. Never "
        "rewrites a file. Warnings (a value cut by a YAML comment) are printed but do not fail.",
        epilog=EXAMPLES["validate"], **raw,
    )
    p.set_defaults(run=_cmd_validate)

    p = sub.add_parser(
        "build",
        help="regenerate reports/ and the README paper list from the records",
        description="Load and validate the records (stop with the errors if invalid), then "
        "regenerate everything under reports/ (statistics, tables, gaps, claims, LaTeX, "
        "BibTeX, figures, audit, traces) and the paper list in README.md. Output is "
        "byte-identical for the same records. Fails (exit 1) if a current claim of "
        "corpus/claims.yaml no longer holds. Prints one summary line (--verbose: every file "
        "written or removed). Writes only regular files inside the survey root, all or nothing.",
        epilog=EXAMPLES["build"], **raw,
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 listing every generated file that is stale, missing or orphaned",
    )
    drawing = p.add_mutually_exclusive_group()
    drawing.add_argument(
        "--rerender-figures",
        dest="rerender",
        action="store_true",
        help="redraw every figure even if its plotted data and drawing code are unchanged, and render every "
             "release's reports instead of taking them as their manifest confirms them; with --check, compare "
             "every committed figure and release report with what this code and toolchain make",
    )
    drawing.add_argument(
        "--no-figures",
        dest="figures",
        action="store_false",
        help="draw no figure: every figure folder (files, captions README and manifest) and the manifest of a release whose "
             "reports changed are left as they are on disk (a later `masrl build` brings them up to date); "
             "with --check, the figures are not compared. For fast builds while editing records",
    )
    p.set_defaults(run=_cmd_build)

    p = sub.add_parser(
        "add",
        help="create record stubs for new papers (from BibTeX, an identifier, or arguments)",
        description="Create corpus/papers/<key>.yaml stubs with the bibliographic fields filled "
        "and every controlled field set to 'untagged' (masrl validate rejects them until "
        "tagged) and date_added set to today. Keys are <first-author-surname><year>[a-z] in "
        "lower case ASCII (e.g. liu2025, liu2025b). Never overwrites a file. Refuses a paper that is already "
        "retained or excluded (the same canonical identifier in any of its forms, or a "
        "title at least 90% similar after normalisation) unless --force is given with a "
        "reason. Given an IDENTIFIER (or --arxiv/--doi/--openreview/--url) without "
        "--title/--author/--year, the metadata is looked up. Placeholder text ('...', 'TODO', "
        "empty) is refused as a title or author.",
        epilog=EXAMPLES["add"], **raw,
    )
    p.add_argument("identifier", nargs="?", metavar="IDENTIFIER",
                   help="the paper's id in any form (arXiv, DOI, OpenReview, ACL Anthology, or a URL of one)")
    p.add_argument("--bibtex", type=_path, metavar="FILE", help="BibTeX/BibLaTeX file with one or many entries")
    p.add_argument("--skip-invalid", action="store_true",
                   help="with --bibtex: add the valid, new entries and write the others, with every reason, to a report")
    p.add_argument("--report", metavar="FILE", help="with --skip-invalid: where the report goes (default: ./<FILE stem>-skipped.bib)")
    p.add_argument("--no-fetch", action="store_true", help="never touch the network: no metadata lookup")
    _identifier_args(p)
    p.add_argument("--title", metavar="T", help="title (plain text, Unicode; TeX such as $\\alpha$ or \\textbf{x} is read as the text it stands for, with a warning)")
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

    tax = fields = None
    if "exclude" in argv:  # the options of exclude are the survey's fields of excluded records
        from ..commands.exclude import survey_taxonomy, vocabulary

        tax = survey_taxonomy(_root_of(argv))
        fields = vocabulary(tax)
    p = sub.add_parser(
        "exclude",
        help="log a screening decision (a new exclusions/<id>.yaml)",
        description="Record a screening decision as exclusions/<next id>.yaml. Either describe a "
        "screened paper (--title plus an identifier) or name a retained record with --key to "
        "move it: its former key and tags are kept in the exclusion record and the retained "
        "file is removed only after the exclusion record is written. Refuses a paper that is "
        "already retained or excluded (same canonical identifier or a near-identical title).",
        epilog=(_vocabulary_epilog(fields) if "exclude" in argv and {"-h", "--help"} & set(argv) else "")
        + EXAMPLES["exclude"], **raw,
    )
    p.add_argument("--key", metavar="KEY", help="retained record to move to the exclusion log")
    p.add_argument("--title", metavar="T", help="screening label (title) of a paper that is not retained")
    p.add_argument("--author", action="append", metavar='"Last, First"',
                   help="an author of the screened paper, repeat for each ('others' if the list is incomplete)")
    p.add_argument("--year", type=int, metavar="Y", help="publication year of the screened paper")
    _identifier_args(p)
    p.add_argument("--reason", required=True, metavar="TEXT", help="exclusion reason, one sentence")
    _field_options(p, fields, tax)
    p.add_argument("--date", metavar="YYYY-MM-DD", help="date screened (default: today)")
    p.add_argument("--force", metavar="REASON", help="log a paper whose title is near-identical to that of a record of the "
                   "pool anyway (a distinct paper), saying why; kept as forced: REASON (a shared identifier is still refused)")
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
        "added after --date, or the date is before the last release. With --freeze-claims, "
        "freeze instead the checks of the claims written since about the existing release NAME: "
        "what they count then never changes, like the release's other numbers.",
        epilog=EXAMPLES["release"], **raw,
    )
    p.add_argument("name", metavar="NAME", help="release name: lower-case letters, digits, '.', '_', '-' (e.g. v2)")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="release date (required unless --freeze-claims)")
    p.add_argument("--cutoff", metavar="YYYY-MM-DD", help="search cutoff of the release (default: the end of the latest window of the update rounds since the last release, else the release date)")
    p.add_argument("--title", metavar="TEXT", help="one line saying what the release is (default: 'Release NAME of the living review')")
    p.add_argument("--source", metavar="TEXT", help="where its records come from, e.g. a DOI or commit (optional)")
    p.add_argument("--allow-undecided", action="store_true",
                   help="release although candidates of an update round since the last release are undecided "
                        "(the release notes name them)")
    p.add_argument("--freeze-claims", action="store_true",
                   help="freeze the checks of every claim about the existing release NAME that it has not frozen "
                        "(its claims: in corpus/releases.yaml), so that an edit of what they count is refused "
                        "like an edit of its snapshot")
    p.add_argument("--dry-run", action="store_true", help="say what would be frozen and write nothing")
    p.set_defaults(run=_cmd_release)

    p = sub.add_parser(
        "resolve",
        help="finish a git merge of two contributions: regenerate reports/, keep both new records",
        description="After `git merge` stops on conflicts: regenerate everything under reports/ and "
        "the README paper list from the merged records; when both branches created the same "
        "record file (two new exclusions both E033, two papers both liu2026), keep ours and "
        "rename theirs to the next free id or key; when both searched on the same day (two rounds "
        "corpus/rounds/<day>/), keep ours and make theirs <day>-2, in its files and records; then "
        "validate, build and `git add` what it "
        "resolved. Conflicts that need a person (one record edited on both sides, the claim "
        "ledger, the taxonomy, the releases) are listed and nothing is written.",
        epilog=EXAMPLES["resolve"], **raw,
    )
    p.add_argument("--no-figures", dest="figures", action="store_false",
                   help="draw no figure: the figure folders are left as the merge left them (a later `masrl build` "
                        "brings them up to date); for a merge you go on editing before you commit")
    p.set_defaults(run=_cmd_resolve)

    p = sub.add_parser(
        "diff",
        help="what the working tree changes against a git revision: records, cells, claims",
        description="Compare the corpus at git revision REV (read with git, the working tree is "
        "not touched) with the working tree: records added, removed, moved to the exclusion "
        "log or retagged (field by field); every table cell and count that changed; every "
        "claim whose result or text changed (each read with its status on each side), every "
        "release frozen. Markdown on stdout, for a pull request. Needs git.",
        epilog=EXAMPLES["diff"], **raw,
    )
    p.add_argument("rev", metavar="REV", help="git revision, e.g. HEAD, main, a1b2c3d")
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.set_defaults(run=_cmd_diff)

    from ..commands.trace import register as register_trace

    register_trace(sub)
    from ..commands.audit import register as register_audit

    register_audit(sub)
    from ..commands.suggest import register as register_suggest

    register_suggest(sub)
    from ..commands.update import register as register_update

    register_update(sub)
    for subparser in _subparsers(parser):
        _global_options(subparser, top=False)
    return parser
