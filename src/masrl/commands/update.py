"""``masrl update search|show|apply``: update rounds of the living review.

Argument handling, printing and writing only; every step is a function of
:mod:`masrl.review.update` (imported when a step runs, so that ``masrl --help`` stays light). A round's files are created together through
:func:`masrl.build.write.create_new` (never overwritten; an interrupt or a failing source
leaves nothing), and so are the records ``apply`` creates.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from ..core import console
from ..core.errors import UserError, sort_key, summary
from ..core.text import printable
from ..corpus.load import TAXONOMY, find_root, parse_tree, read_tree
from ..corpus.rounds import PROTOCOL, REASON_COLUMN, ROUNDS, STAGE_COLUMN
from ..core import clock

_FORMATTER = argparse.RawDescriptionHelpFormatter

SEARCH_EPILOG = """\
The window runs from the last release's search cutoff to today unless --since / --until say
otherwise (both days included). Sources (the protocol's searchers): arxiv, crossref, openreview,
semanticscholar (keyword search) and citations (the references of the retained records and the
papers citing them, through Semantic Scholar). Endpoints: MASRL_ARXIV_API, MASRL_CROSSREF_API,
MASRL_OPENREVIEW_API, MASRL_S2_API (defaults: corpus/protocol.yaml); MASRL_MAILTO (or --mailto)
puts the Crossref requests in its polite pool; MASRL_S2_API_KEY is sent to Semantic Scholar.
arXiv is asked at most once every 3 seconds, the others once a second, across runs too (the pace
is kept in .masrl-cache/pace.json); a rate limit's Retry-After is waited on. Every answer must be
its source's documented format, within 60 s and 32 MB, from the endpoint's own host; anything else
ends the run naming the source, and nothing is written. A query with more records than the paging
bound (--max-records) ends the run too, unless --allow-incomplete.

examples:
  masrl update search
  masrl update search --since 2026-05-04 --until 2026-11-30 --source arxiv
  masrl update search --source citations      (citation searching from the retained records)
  masrl update search --family NAME --family NAME   (names of corpus/protocol.yaml's query families)"""

SHOW_EPILOG = """\
When to stop: after the queue, the hypergeometric stopping test of Callaghan & Müller-Hansen
(2020, Systematic Reviews 9:273) says how many candidates are screened and relevant (included,
or excluded after the first screening stage), how many relevant ones are likely still unscreened
(about N at the rate of the last ones screened; at most N at the confidence), and whether
screening may stop: when p < 1 - confidence for "recall is still below the target". It assumes
the candidates are screened in rank order and judged right, and that the last ones screened are
no likelier to be relevant than a random draw from them and the unscreened (a ranking that works
makes it conservative); the recall is that of the queue, not of what the searches missed.

examples:
  masrl update show 2026-12-01
  masrl update show 2026-12-01 --recall 0.99 --confidence 0.9"""

APPLY_EPILOG = """\
In queue.csv write decision = include, or decision = exclude with {stage}, {reason} (values of the
fields of the taxonomy's screening stages and reasons) and reason; leave decision empty for a candidate not screened yet. Rows already applied are
skipped, so the command can be run again after more rows are decided.

examples:
  masrl update apply 2026-12-01 --dry-run
  masrl update apply 2026-12-01""".format(stage=STAGE_COLUMN, reason=REASON_COLUMN)


def _utc_now() -> str:
    from ..review.update.model import utc_stamp

    return utc_stamp(clock.now())


def _round_problems(corpus) -> list:
    """Problems of the taxonomy, the protocol and the rounds (records being tagged do not stop a search)."""
    from ..checks.validate import validate

    return [p for p in validate(corpus) if p.file in (TAXONOMY, PROTOCOL) or p.file.startswith(ROUNDS)]


def _search(args: argparse.Namespace) -> int:
    from ..build import write
    from ..review.update.progress import Progress
    from ..review.update.protocol import protocol_of
    from ..review.update.search import plan_search, run_search
    from ..review.update.sources import source_for

    from ..review.update.sources.pacing import PaceFile

    root = find_root(args.root)
    files = read_tree(root)
    corpus = parse_tree(files)
    problems = _round_problems(corpus)
    if problems:
        raise UserError(summary(problems, "nothing was searched."), problems)
    if args.max_records is not None and args.max_records < 1:
        raise UserError(f"--max-records: {args.max_records} is not a positive number of records; nothing was searched")
    protocol = protocol_of(corpus)
    plan = plan_search(corpus, protocol, clock.today_iso(), args.since, args.until, args.source, args.family)
    progress = Progress(len(plan.sources) * len(plan.families), enabled=sys.stderr.isatty() and not args.quiet)
    mailto = args.mailto or os.environ.get("MASRL_MAILTO") or None
    if mailto is not None and not _EMAIL.fullmatch(mailto):
        given = "--mailto" if args.mailto else "MASRL_MAILTO"
        raise UserError(f"{given}: {mailto!r} is not an e-mail address (name@host.domain, no blank or control "
                        "character): Crossref's polite pool asks for one; nothing was searched")
    pace = PaceFile(root)

    def make_source(name, searcher):
        extra = {"mailto": mailto} if name == "crossref" else {}
        if name == "citations":
            extra["corpus"] = corpus
        return source_for(name, searcher, on_request=progress.request, on_page=progress.page, pace=pace,
                          allow_incomplete=args.allow_incomplete, max_records=args.max_records, **extra)

    try:
        result = run_search(corpus, protocol, plan, make_source, _utc_now, progress.query, args.allow_incomplete, files)
    finally:
        progress.close()
    write.create_new(root, result.files)
    for note in result.notes:
        print(f"warning: {note}", file=sys.stderr)
    found = ", ".join(f"{label} {n}" for label, n in result.identified.items())
    console.info(f"round {result.round_id} ({plan.since} .. {plan.until}): {result.queries} queries, {result.requests} "
                 f"requests; {sum(result.identified.values())} records found ({found}), {result.duplicates} duplicates, "
                 f"{result.queued} queued -> {ROUNDS}{result.round_id}/queue.csv")
    return 0


#: An e-mail address as Crossref's polite pool takes it: one ``@``, a dotted domain, no blank, control or quote.
_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z0-9-]*[A-Za-z]")


#: The proportions ``--recall`` and ``--confidence`` take: six decimal places, as a float holds them exactly enough.
PROPORTION = (0.000001, 0.999999)


def _proportion(text: str) -> float:
    """A proportion from 0.000001 to 0.999999 (argparse type): beyond them the stopping estimate's
    counts overflow, and a float cannot tell a value from 0 or 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not PROPORTION[0] <= value <= PROPORTION[1]:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a proportion from {PROPORTION[0]:.6f} to {PROPORTION[1]} "
                                         "(e.g. 0.95)")
    return value


def _show(args: argparse.Namespace) -> int:
    from ..checks.protocol import round_form_problems
    from ..review.update.status import round_table

    root = find_root(args.root)
    corpus = parse_tree(read_tree(root))
    # the table is drawn from every round's round.yaml: a damaged sheet is shown as it is, a round.yaml out of form is not
    if broken := round_form_problems(corpus):
        raise UserError(summary(broken, f"round {args.round}'s queue is not shown until they are fixed."), broken)
    print(round_table(corpus, args.round, args.recall, args.confidence))  # every cell escaped, even of a damaged sheet
    problems = [p for p in _round_problems(corpus) if not p.file.startswith(ROUNDS) or p.file.startswith(f"{ROUNDS}{args.round}/")]
    if problems:  # what a damaged sheet or round.yaml makes the table above leave out or show as it is not
        sys.stdout.flush()
        for problem in sorted(problems, key=sort_key):
            print(problem, file=sys.stderr)
        print(summary(problems, "the table above shows the files as they are; fix them before `masrl update apply`."),
              file=sys.stderr)
    return 0


def _apply(args: argparse.Namespace) -> int:
    from ..build import write
    from ..checks.validate import validate
    from ..review.update.apply import plan_apply

    root = find_root(args.root)
    files = read_tree(root)
    corpus = parse_tree(files)
    plan = plan_apply(corpus, files, args.round, validate(corpus))
    for warning in plan.warnings:
        print(f"warning: {printable(warning)}", file=sys.stderr)
    if args.dry_run:
        for rel, data in sorted(plan.files.items()):
            print(f"# would write {rel}\n{data.decode()}")
        print(f"dry run: {len(plan.files)} record(s) would be written; nothing was written")
        return 0
    write.create_new(root, plan.files)
    queue = f"{ROUNDS}{args.round}/queue.csv"
    for line, rel, decision in plan.created:
        console.info(f"{queue}:{line}: {decision} -> created {rel}")
    console.info(f"round {args.round}: {len(plan.created)} record(s) created, {len(plan.skipped)} row(s) applied before, "
                 f"{len(plan.undecided)} still to decide")
    if any(d == "include" for _, _, d in plan.created):
        console.info("next: tag the new corpus/papers/*.yaml (every controlled field is 'untagged'), then "
                     "`masrl validate` and `masrl build`")
    return 0


def register(sub) -> None:
    """Add ``masrl update`` and its subcommands to the ``masrl`` subparsers ``sub``."""
    update = sub.add_parser(
        "update", help="update rounds: search the protocol's query families, screen, apply",
        description="Run an update round of the living review: search the protocol's query families "
        "(corpus/protocol.yaml) on arXiv, Crossref, OpenReview and Semantic Scholar, and chase the citations "
        "of the retained records, since the last release (search), see the ranked "
        "queue (show), screen it in corpus/rounds/<round>/queue.csv, and turn the decisions into retained "
        "stubs and exclusion records (apply). The PRISMA flow for updated reviews counts the rounds.",
        epilog="examples:\n  masrl update search\n  masrl update show 2026-12-01\n  masrl update apply 2026-12-01",
        formatter_class=_FORMATTER)
    steps = update.add_subparsers(dest="step", metavar="STEP", parser_class=type(update))
    steps.required = True

    p = steps.add_parser(
        "search", help="search every query family and write a new round folder",
        description="Send every query family of the protocol to every source (or those named), page to the "
        "end of every result set, remove the records already retained, excluded or queued (same "
        "identifier in any form, or a near-identical title), rank the rest and write "
        "corpus/rounds/<round>/: round.yaml (window, queries as sent, counts), queue.csv and duplicates.csv. "
        "A source that cannot be reached, or answers something other than its documented format, ends the run, "
        "naming its host, and nothing is written.",
        epilog=SEARCH_EPILOG, formatter_class=_FORMATTER)
    p.add_argument("--since", metavar="YYYY-MM-DD", help="first day of the window (default: the last release's search cutoff)")
    p.add_argument("--until", metavar="YYYY-MM-DD", help="last day of the window (default: today)")
    p.add_argument("--source", action="append", metavar="NAME",
                   help="search only this source (arxiv, crossref, openreview, semanticscholar, citations); repeat")
    p.add_argument("--family", action="append", metavar="NAME", help="search only this query family; repeat")
    p.add_argument("--mailto", metavar="EMAIL", help="e-mail for Crossref's polite pool (default: $MASRL_MAILTO)")
    p.add_argument("--max-records", type=int, metavar="N",
                   help="the paging bound: most records fetched per query (default: arXiv, Semantic Scholar and "
                   "citations 10000, OpenReview 20000 per venue, Crossref 20 pages of 100)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="write the round even if a query has more records than the bound (they are counted as not fetched)")
    p.set_defaults(run=_search)

    p = steps.add_parser("show", help="print a round's queue, ranked, with what is left to decide",
                         description="Print the candidates of ROUND in rank order with their decisions, when to stop "
                         "screening them (a stopping test with its recall target and confidence), and the counts still to "
                         "decide and to apply.", epilog=SHOW_EPILOG, formatter_class=_FORMATTER)
    p.add_argument("round", metavar="ROUND", help="the round id (a folder of corpus/rounds/)")
    p.add_argument("--recall", type=_proportion, default=0.95, metavar="R",
                   help="the recall target of the stopping test, between 0 and 1 (default 0.95)")
    p.add_argument("--confidence", type=_proportion, default=0.95, metavar="C",
                   help="its confidence, between 0 and 1 (default 0.95)")
    p.set_defaults(run=_show)

    p = steps.add_parser("apply", help="turn a round's decisions into retained stubs and exclusion records",
                         description="Turn every decided row of ROUND's queue.csv into a record: include -> a retained "
                         "stub as `masrl add` writes it (with the round's metadata), exclude -> an exclusion record as "
                         "`masrl exclude` writes it (stage, reason class, reason, source and query family). Every "
                         "problem of the sheet is reported at once and nothing is written then; rows applied before "
                         "are skipped.", epilog=APPLY_EPILOG, formatter_class=_FORMATTER)
    p.add_argument("round", metavar="ROUND", help="the round id (a folder of corpus/rounds/)")
    p.add_argument("--dry-run", action="store_true", help="print the records that would be written and write nothing")
    p.set_defaults(run=_apply)
