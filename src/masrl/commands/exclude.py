"""``masrl exclude``: log a screening decision as ``exclusions/<next id>.yaml``.

With ``--key`` a retained record is moved: the exclusion record keeps its
former key and every field of the former record (``former_record``), it is
written first, and only then is ``corpus/papers/<key>.yaml`` removed; the
move is refused when the corpus would not validate afterwards (the record is
named by the taxonomy, the claim ledger or an audit).
"""

from __future__ import annotations

import datetime
import re
import sys
from argparse import Namespace

from ..build import write
from ..checks.textwarn import cut_text_warnings
from ..checks.validate import _suggest, validate
from ..core import console
from ..core.errors import COMMAND_LINE, Problem, UserError, summary
from ..core.placeholders import author_problem, placeholder_problem
from ..corpus.load import (
    EXCLUSIONS,
    PAPERS,
    find_root,
    parse_tree,
    read_taxonomy,
    read_tree,
)
from ..corpus.records import EXCLUDED_ORDER, ordered
from ..corpus.taxonomy import Taxonomy
from ..corpus.yamlio import dump_record
from ..review import intake


def next_record_id(existing: list[str]) -> str:
    """``E`` + the next number after the highest existing id, at least three digits (E033)."""
    numbers = [int(m.group(1)) for name in existing if (m := re.fullmatch(r"E([0-9]+)", name))]
    return f"E{(max(numbers) if numbers else 0) + 1:03d}"


#: The options of ``masrl exclude`` that take a vocabulary value, and their taxonomy fields.
OPTION_FIELDS = (("--stage", "stage"), ("--reason-class", "reason_class"), ("--source", "source"),
                 ("--query-family", "query_family"))


def vocabulary(root_arg) -> dict[str, tuple[str, ...]] | None:
    """``{field: allowed values}`` of :data:`OPTION_FIELDS` from the survey's taxonomy,
    or None when there is no survey root or its taxonomy cannot be read."""
    try:
        tax = Taxonomy(read_taxonomy(find_root(root_arg)))
    except UserError:
        return None
    return {name: tax.values(name) for _, name in OPTION_FIELDS}


def _argument_problems(args: Namespace, tax: Taxonomy) -> list[Problem]:
    """Every problem of the command line at once: vocabulary values, the date, what identifies the
    paper, placeholders, missing authors or year, an empty or placeholder reason."""
    problems = []

    def bad(flag: str, message: str) -> None:
        problems.append(Problem(COMMAND_LINE, None, flag, message))

    for flag, field in OPTION_FIELDS:
        value = getattr(args, field)
        allowed = tax.values(field)
        if value not in allowed:
            bad(flag, f"{value!r} is not in the vocabulary; allowed: {', '.join(allowed)}{_suggest(value, allowed)}")
    if args.date:
        try:
            ok = bool(re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", args.date)) and bool(datetime.date.fromisoformat(args.date))
        except ValueError:
            ok = False
        if not ok:
            bad("--date", f"{args.date!r} is not a date written YYYY-MM-DD")
        elif args.date > datetime.date.today().isoformat():
            bad("--date", f"{args.date} is in the future (today is {datetime.date.today().isoformat()})")
    if bool(args.key) == bool((args.title or "").strip()):
        bad("--key/--title", "give either --key KEY (move a retained record) or --title TITLE with an identifier "
                             "(a screened paper)")
    elif args.title is not None and (why := placeholder_problem(args.title)):
        bad("--title", f"{why}; give the paper's real title")
    if args.key and any(v is not None for v in (args.arxiv, args.doi, args.openreview, args.url, args.author, args.year)):
        bad("--key", "moves a retained record with its own identifiers, authors and year; "
                     "drop --arxiv/--doi/--openreview/--url/--author/--year")
    authors = [a.strip() for a in args.author or [] if a.strip()]
    if not args.key:
        for flag, ok in (("--author", authors), ("--year", args.year is not None)):
            if not ok:
                bad(flag, "a screened paper needs it (as for masrl add: --author \"Last, First\" once per author, "
                          "'others' if incomplete; --year YYYY)")
    for author in authors:
        if why := author_problem(author):
            bad("--author", f"{why}; give the paper's real author")
    if not args.reason.strip():
        bad("--reason", "must say why the paper is excluded")
    elif why := placeholder_problem(args.reason):
        bad("--reason", f"{why}; say why the paper is excluded")
    return problems


def run(args: Namespace) -> int:
    """Write the exclusion record (and move a retained one); return the exit code."""
    root = find_root(args.root)
    files = read_tree(root)
    corpus = parse_tree(files)
    tax = Taxonomy(corpus.taxonomy)
    problems = _argument_problems(args, tax)
    if problems:
        raise UserError(summary(problems, "nothing was written."), problems)
    authors = [a.strip() for a in args.author or [] if a.strip()]

    record_id = next_record_id([f[len(EXCLUSIONS):].rsplit(".", 1)[0] for f in corpus.excluded] +
                               [f[len(EXCLUSIONS):].rsplit(".", 1)[0] for f in corpus.unreadable if f.startswith(EXCLUSIONS)])
    rec: dict = {"record_id": record_id}
    moved_from = None
    if args.key:
        moved_from = f"{PAPERS}{args.key}.yaml"
        former = corpus.retained.get(moved_from)
        if former is None:
            if moved_from in files:
                raise UserError(f"{moved_from} cannot be read as a record; run `masrl validate` and fix it first")
            keys = [f[len(PAPERS):].rsplit(".", 1)[0] for f in corpus.retained]
            raise UserError(f"--key {args.key}: no retained record {moved_from}{_suggest(args.key, keys)}")
        own = [p for p in validate(corpus) if p.file == moved_from]
        if own:
            raise UserError(summary(own, f"nothing was moved: fix {moved_from} first, so that nothing of it is lost."), own)
        for warning in cut_text_warnings(corpus):
            if warning.file == moved_from:
                print(warning, file=sys.stderr)
        rec.update(screening_label=former["title"], authors=former["authors"], year=former["year"],
                   identifiers=former["identifiers"], url=former["url"].split(" ; ")[0])
    else:
        idents = intake.identifiers_from_flags({"--arxiv": args.arxiv, "--openreview": args.openreview, "--doi": args.doi,
                                                "--url": args.url})
        if not idents:
            raise UserError("the paper needs an identifier: --arxiv, --doi, --openreview or --url")
        ids = intake.mapping(idents)
        matches = intake.pool_of(corpus).matches(args.title, ids)
        if matches:
            raise UserError("this paper is already in the corpus: " + "; ".join(m.message() for m in matches))
        url = args.url or next(iter(tax.identifier_schemes.get(s, {}).get("resolver", "").format(id=v)
                                    for s, v in ids.items() if s != "url"), "")
        rec.update(screening_label=args.title, authors=authors, year=args.year, identifiers=ids, url=url)
    today = datetime.date.today().isoformat()
    rec.update(source=args.source, query_family=args.query_family,
               date_screened=args.date or today, date_added=today, stage=args.stage,
               exclusion_reason=args.reason, reason_class=args.reason_class)
    if moved_from:
        rec["former_key"] = args.key
        rec["former_record"] = corpus.retained[moved_from]
        rec["former_file"] = files[moved_from].decode("utf-8")  # verbatim, comments included
    rec["tag_provenance"] = {"reason_class": "masrl exclude (screener's choice)"}
    rec["provenance"] = {"source": "masrl exclude" + (f", moved from {moved_from}" if moved_from else "")}
    new_file = f"{EXCLUSIONS}{record_id}.yaml"
    data = dump_record(ordered(rec, EXCLUDED_ORDER))

    after = dict(files)
    after[new_file] = data
    if moved_from:
        del after[moved_from]
    before = {str(p) for p in validate(corpus)}
    introduced = [p for p in validate(parse_tree(after)) if str(p) not in before]
    if introduced:
        raise UserError(summary(introduced, "nothing was written (the corpus would not validate after this exclusion)."), introduced)

    if args.dry_run:
        print(f"# would write {new_file}\n{data.decode()}")
        if moved_from:
            print(f"# would then remove {moved_from}")
        print("dry run: nothing was written")
        return 0
    write.create_new(root, {new_file: data})
    if moved_from:
        try:
            write.remove(root, moved_from)
        except UserError:
            write.remove(root, new_file)  # roll back: the record stays retained, nothing is half-moved
            raise
        console.info(f"moved {moved_from} -> {new_file} (former key and tags kept under former_key / former_record)")
    else:
        console.info(f"created {new_file}")
    console.info("next: `masrl build` and `masrl diff HEAD` to see what the decision changes")
    return 0
