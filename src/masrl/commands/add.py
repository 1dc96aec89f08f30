"""``masrl add``: create record stubs for new papers, refusing duplicates.

Papers come from a BibTeX/BibLaTeX file (:mod:`masrl.bib.bibimport`), or from one
identifier (any form) whose metadata is looked up (:mod:`masrl.bib.lookup`) and/or
given with flags. Stubs carry the bibliographic fields and ``untagged`` in
every controlled field, so ``masrl validate`` rejects them until someone tags
them. Keys follow :func:`masrl.corpus.records.make_key`. Every problem of every entry
is reported at once with the entry key and line; ``--skip-invalid`` adds the
rest and writes a report of what was not added.
"""

from __future__ import annotations

import sys
from argparse import Namespace
from pathlib import Path

from ..build import write
from ..checks.validate import validate_taxonomy
from ..core import clock, console
from ..core.errors import (
    COMMAND_LINE,
    Problem,
    UsageError,
    UserError,
    sort_key,
    summary,
)
from ..core.placeholders import placeholder_problem
from ..corpus.load import TAXONOMY, find_root, parse_tree, read_tree, read_user_file
from ..review import adding, intake


def _given_problems(corpus, args: Namespace) -> list[Problem]:
    """The problems of the options given (a year out of the survey's range, text a record refuses), for a
    command line that also misses a required one: every problem of the call is named in one run."""
    from ..core.text import text_problem
    from ..corpus.taxonomy import Taxonomy

    out = []
    tax = Taxonomy(corpus.taxonomy)
    latest = clock.today().year + 1
    if args.year is not None and not tax.year_minimum <= args.year <= latest:
        out.append(Problem(COMMAND_LINE, None, "--year", f"{args.year} is out of range; allowed: {tax.year_minimum} to {latest}"))
    for flag, value in (("--title", args.title), ("--venue", args.venue), *(("--author", a) for a in args.author or [])):
        if value is not None and (why := text_problem(value)):
            out.append(Problem(COMMAND_LINE, None, flag, f"{value!r} {why}"))
    return out


def _paper_from_args(args: Namespace, corpus) -> dict:
    idents = intake.identifiers_from_flags({"--arxiv": args.arxiv, "--openreview": args.openreview, "--doi": args.doi,
                                            "--url": args.url}, args.identifier)
    if not idents:
        raise UsageError("the paper needs an identifier: IDENTIFIER (any form), --arxiv, --doi, --openreview or --url")
    if args.title:
        args.title, warning = intake.title_from_flag(args.title)
        if warning:
            print(f"warning: {warning}", file=sys.stderr)
    known = [] if args.force else adding.known_by_identifier(corpus, idents, args.title or "")
    if known:  # before any lookup: a paper in the pool is refused the same, online or not
        raise UserError(summary(known, "nothing was added (--force REASON adds a duplicate anyway, e.g. a distinct "
                                       "journal version)."), known)
    authors = []
    for text in args.author or []:
        if text.strip():
            stored, warning = intake.author_from_flag(text)
            authors.append(stored)
            if warning:
                print(f"warning: {warning}", file=sys.stderr)
    fetched: dict = {}
    wanted = not ((args.title or "").strip() and authors and args.year is not None)
    if wanted and not args.no_fetch:
        fetched = adding.fetch_metadata(idents)
    title = (args.title or "").strip() or fetched.get("title", "")
    authors = authors or fetched.get("authors", [])
    year = args.year if args.year is not None else fetched.get("year")
    looked_up = next((f"{i.scheme} {i.value}" for i in idents if i.scheme in adding.lookup.SOURCES), "")
    missing = [flag for flag, ok in (("--title", title), ("--author", authors), ("--year", year is not None)) if not ok]
    if missing and fetched:  # the source answered, without them: not a mistake of the command line
        lacks = " and no ".join({"--title": "title", "--author": "author", "--year": "year or date"}[f] for f in missing)
        raise UserError(f"the metadata looked up for {looked_up} has no {lacks}; give "
                        + " ".join({"--title": "--title T", "--author": '--author "Last, First" (repeat)',
                                    "--year": "--year Y"}[f] for f in missing) + " by hand")
    if missing:
        why = " (--no-fetch: nothing was looked up)" if args.no_fetch else ""
        also = _given_problems(corpus, args)  # named in the same run as what is missing
        raise UsageError("masrl add needs " + ", ".join(missing) + why
                         + "".join(f"; and {p.field}: {p.message}" for p in also))
    given = {"--title": bool((args.title or "").strip()), "--author": bool(args.author)}
    placeholders = [Problem(COMMAND_LINE, None, flag if given[flag] else f"{what} looked up for {looked_up}",
                            f"{why}; give the paper's real {what}" + ("" if given[flag] else f" with {flag}"))
                    for flag, what, value in [("--title", "title", title)] + [("--author", "author", a) for a in authors]
                    if (why := placeholder_problem(value))]
    if placeholders:
        raise UserError(summary(placeholders, "nothing was added."), placeholders)
    source = "masrl add (command-line arguments" + (", metadata looked up)" if fetched else ")")
    origin = f"{COMMAND_LINE} and the metadata looked up for {looked_up}" if fetched else COMMAND_LINE
    venue = " ".join(args.venue.split()) if args.venue is not None else None  # one line, as the title (blank: refused)
    return adding.paper_from_metadata(title, authors, year, venue if venue != "" else args.venue, idents, fetched, source,
                                      (origin, None, None))


# ---------------------------------------------------------------------------- run
def run(args: Namespace) -> int:
    """Create stubs (or print them with ``--dry-run``); return the exit code."""
    root = find_root(args.root)
    existing = read_tree(root)
    corpus = parse_tree(existing)
    if args.bibtex:
        extra = [flag for flag, value in (("IDENTIFIER", args.identifier), ("--title", args.title), ("--author", args.author),
                                          ("--year", args.year), ("--venue", args.venue), ("--arxiv", args.arxiv),
                                          ("--doi", args.doi), ("--openreview", args.openreview), ("--url", args.url)) if value is not None]
        if extra:
            raise UsageError(f"--bibtex takes every field from the BibTeX entries; drop {', '.join(extra)}")
    elif args.skip_invalid or args.report:
        raise UserError("--skip-invalid and --report work with --bibtex only")
    if args.force is not None and not args.force.strip():
        raise UsageError("--force needs a reason, e.g. --force 'journal version with new experiments'")
    problems = validate_taxonomy(corpus)  # the records are validated once, together with the stubs
    if any(p.file == TAXONOMY for p in problems):
        raise UserError(summary(problems, "nothing was added (fix corpus/taxonomy.yaml first)."), problems)

    notes: list[Problem] = []
    refused: dict[str, list[Problem]] = {}
    origins: dict[str, tuple] = {}
    partial: list[dict] = []
    found = None
    if args.bibtex:
        found = adding.papers_from_bibtex(read_user_file(args.bibtex, "--bibtex"), args.bibtex.name)
        papers, refused, notes, origins, partial = found.papers, found.refused, found.notes, found.origins, found.partial
    else:
        papers = [_paper_from_args(args, corpus)]
    if args.key and len(papers) + len(refused) != 1:
        raise UsageError("--key works with a single paper only")
    plan = adding.plan_additions(corpus, papers, known=problems, key=args.key, force=args.force, refused=refused,
                                 partial=partial)
    files, refused = plan.files, plan.refused

    for note in sorted(notes, key=sort_key):
        print(f"note: {note}", file=sys.stderr)
    all_problems = sorted((p for ps in refused.values() for p in ps), key=sort_key)
    if refused and not args.skip_invalid:
        for problem in all_problems:
            print(problem, file=sys.stderr)
        total = len(papers) + len([k for k in refused if k not in {p.get("entry_key") or "" for p in papers}])
        hint = " (use --skip-invalid to add the others and write a report of these)" if args.bibtex and files else ""
        duplicates = any("refused:" in p.message for p in all_problems)
        force = "; --force REASON adds a duplicate anyway, e.g. a distinct journal version" if duplicates else ""
        raise UserError(f"{len(refused)} of {max(total, len(refused))} paper(s) cannot be added; nothing was added{hint}{force}")
    report = None
    if refused:
        report = Path(args.report) if args.report else Path.cwd() / f"{args.bibtex.stem}-skipped.bib"
        for problem in all_problems:
            print(problem, file=sys.stderr)
        if report.exists() or report.is_symlink() or not report.parent.is_dir():
            why = "exists already" if report.exists() or report.is_symlink() else "is in a folder that does not exist"
            raise UserError(f"--report: {report} {why}; nothing was added. Name a new file with --report PATH")

    if args.dry_run:
        ranks = adding.screening_lines(corpus, plan)
        for rel in ranks:  # best screening rank first
            print(f"{ranks[rel]}\n# would write {rel}\n{files[rel].decode()}")
        if report:
            print(f"# would write {report} ({len(refused)} entries not added, with their reasons)")
        print(f"dry run: {len(files)} record(s) would be written; nothing was written")
        return 0
    write.create_new(root, files)
    for rel in files:
        console.info(f"created {rel} — every controlled field is 'untagged': tag it, then run `masrl validate`")
    if report:
        write.create_new(report.parent.resolve(), {report.name: adding.skip_report(args.bibtex, refused, origins, found.strings,
                                                                                        found.containers)})
        print(f"skipped {len(refused)} entr{'y' if len(refused) == 1 else 'ies'}: see {report}")
    return 0
