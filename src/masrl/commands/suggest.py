"""``masrl suggest KEY [--json] [--apply FIELD=VALUE ...] [--draft]``: values for a record's
untagged controlled fields, with their evidence (:mod:`masrl.review.suggest`).

Prints the suggestions and writes nothing, unless ``--apply`` (values a person chose:
``confirmed``) or ``--draft`` (the best value of every field: ``not confirmed``) is given;
then the record is rewritten atomically through :mod:`masrl.build.write`, only if it still
holds the bytes it was read with.
"""

from __future__ import annotations

import argparse
from argparse import Namespace

from ..build import write
from ..core import console
from ..core.errors import UsageError, UserError, summary
from ..core.text import json_printable
from ..corpus.load import TAXONOMY, find_root, parse_tree, read_tree
from ..corpus.taxonomy import Taxonomy

EPILOG = """\
A value's score is its share of the vote of the 10 nearest tagged records (TF-IDF similarity of
title, abstract, one-liner, notes and venue) and of the taxonomy's label and definition of each
value; its evidence lists the nearest records and the definition with the words they share. How
much a field's definitions weigh, and whether its neighbours count less the further apart their
publication years are, is chosen per field by leave-one-out over the tagged records (shown under
each field). A field whose leave-one-out accuracy does not beat always guessing the most common
value of the other records is marked low confidence (scripts/bench_suggest.py prints the figures).
A set field takes FIELD=A,B (FIELD= for the empty set). A value applied from the suggestions gets
tag_provenance "suggested (masrl suggest, neighbours ...), confirmed"; --draft writes the best value
of every field as "..., not confirmed", which the catalogue site shows as a suggestion until a
person confirms it with --apply.

examples:
  masrl suggest liu2026                       show suggestions and their evidence (--json: as JSON)
  masrl suggest liu2026 --apply FIELD=VALUE --apply LIST_FIELD=A,B
  masrl suggest liu2026 --draft               write every best value, marked not confirmed"""


def register(sub) -> None:
    """Add ``masrl suggest`` to the ``masrl`` subparsers ``sub``."""
    p = sub.add_parser(
        "suggest", help="suggest values for a record's untagged fields from the records already tagged",
        description="For each untagged controlled field of the retained record KEY (and each field it "
        "holds as a suggestion not yet confirmed), show the most likely values with a score and their "
        "evidence: the nearest tagged records, with keys, titles and the words they share. Values follow "
        "the vocabulary's rules (set fields, required_when, na_iff, implied values) as masrl validate "
        "does. Nothing is written unless --apply or --draft is given.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("key", metavar="KEY", help="key of a retained record (its file name under corpus/papers/)")
    p.add_argument("--json", action="store_true", help="print JSON: {field: [{value, score, evidence}, ...]}, best first")
    p.add_argument("--apply", action="append", metavar="FIELD=VALUE", default=[],
                   help="write VALUE into FIELD (repeat for several fields); the record must then validate")
    p.add_argument("--draft", action="store_true",
                   help="write the best value of every suggested field, marked not confirmed")
    p.set_defaults(run=run)


def run(args: Namespace) -> int:
    """Show, apply or draft suggestions for one record; return the exit code."""
    from ..checks.validate import validate
    from ..review.suggest import apply, fields, show

    if args.apply and args.draft:
        raise UsageError("--apply and --draft contradict each other: --apply writes values a person chose, "
                         "--draft the best values unconfirmed")
    root = find_root(args.root)
    files = read_tree(root)
    corpus = parse_tree(files)
    broken = [p for p in corpus.problems if p.file == TAXONOMY]
    if broken or TAXONOMY not in files:
        problems = broken or [p for p in validate(corpus) if p.file == TAXONOMY]
        raise UserError(summary(problems, "nothing was suggested (fix corpus/taxonomy.yaml first)."), problems)
    rel, record = fields.find_record(corpus, args.key)
    tax = Taxonomy(corpus.taxonomy)
    assignments = apply.parse_assignments(args.apply, tax, record) if args.apply else []  # a mistyped field named first
    if not fields.wanted_fields(record, tax):
        raise UserError(fields.nothing_to_suggest(rel, args.key, record, tax))
    report = fields.suggest_record(corpus, args.key)
    if not (args.apply or args.draft):
        print(json_printable(show.as_json(report)) if args.json else show.as_text(report), end="")
        return 0
    plan = apply.plan_draft(corpus, files[rel], report) if args.draft else apply.plan_apply(corpus, files[rel], report, assignments)
    write.update(root, {plan.file: (plan.old, plan.new)})
    for line in plan.changes:
        console.info(f"{plan.file}: {line}")
    console.info(f"wrote {plan.file}; run `masrl validate` (every field still untagged is listed there)")
    return 0
