"""``masrl audit sample|import|show|adjudicate|apply``: second-reader audits as a workflow.

Argument parsing, reading, printing and writing only; every step is a
function of :mod:`masrl.review.auditing`. Writes go through :mod:`masrl.build.write`
(new files are created, never overwritten; record edits are atomic and only
with ``--yes``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..build import write
from ..core.errors import UserError

_FORMATTER = argparse.RawDescriptionHelpFormatter

FIELDS_HELP = """\
allowed --fields (comma-separated):
  --population retained   any single-valued controlled field of retained records in corpus/taxonomy.yaml
                          (default: audit.default_fields of the taxonomy, else all of them)
  --population excluded   decision and the screening stage and reason-class fields (screening.stages and
                          screening.reasons of the taxonomy; default: all three)
  --population all        the same as excluded
allowed --stratify:
  retained: a single-valued field of retained records
  excluded: a single-valued field of excluded records
  all:      decision (retained vs excluded)"""

SAMPLE_EPILOG = FIELDS_HELP + """

examples:
  masrl audit sample --population retained --n 20 --seed 7 --stratify FIELD
  masrl audit sample --population excluded --n 12 --seed 3 --id exclusions-2026-06
  masrl audit sample --population retained --n 10 --seed 1 --fields FIELD,OTHER_FIELD --dry-run"""

IMPORT_EPILOG = """\
The sheet may be saved as CSV in UTF-8 (with or without a byte-order mark) or UTF-16 ("Unicode text"),
separated by commas, semicolons or tabs. Cells must be allowed values (sheet/allowed-values.csv of the
audit); the stage and reason class are empty unless the decision is exclude.

examples:
  masrl audit import filled.csv --audit tags-2026-06-01 --reader "Jane Doe"
  masrl audit import second.csv --audit tags-2026-06-01 --reader "Li Wei"             (a second reader, same round)
  masrl audit import recheck.csv --audit tags-2026-06-01 --reader "Jane Doe" --round 2"""

SHOW_EPILOG = """\
examples:
  masrl audit show
  masrl audit show tags-2026-06-01
  masrl audit show tags-2026-06-01 --json"""

ADJUDICATE_EPILOG = """\
The file lists every disagreement with each reader's value and open fields resolved (an allowed value),
by (who resolved it), date and note; for an exclusion resolved as include also authors, year, venue.

examples:
  masrl audit adjudicate tags-2026-06-01
  masrl audit adjudicate tags-2026-06-01 --round 2"""

APPLY_EPILOG = """\
A tag (or an exclusion's stage / reason class) becomes the resolved value and its tag_provenance names
the audit; an exclusion resolved as include becomes a retained stub (as masrl add writes it, with
former_record_id and the exclusion record kept) and its exclusion file is removed.

examples:
  masrl audit apply tags-2026-06-01               (show the diff, write nothing)
  masrl audit apply tags-2026-06-01 --yes         (write the edits)
  masrl audit apply screening-2026-06-01 --round 2 --yes"""


#: The largest seed: every JSON reader (the site's JavaScript too) reads audit.yaml's seed exactly.
SEED_MAX = 2**53 - 1


def _seed(text: str) -> int:
    """``--seed``: a whole number from 0 to :data:`SEED_MAX`."""
    value = text.strip()
    if not (value.isascii() and value.isdigit() and int(value) <= SEED_MAX):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number from 0 to {SEED_MAX}")
    return int(value)


def _fields(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [f.strip() for f in text.split(",") if f.strip()]


def register(sub) -> None:
    """Add ``masrl audit`` and its subcommands to the ``masrl`` subparsers ``sub``."""
    audit = sub.add_parser(
        "audit", help="second-reader audits: sample, import sheets, agreement, adjudicate, apply",
        description="Audit tags or screening decisions with a second reader: draw a reproducible sample "
        "and a blind sheet (sample), import the filled sheet (import), see agreement with 95% intervals "
        "(show; also reports/audit.md), list the disagreements for adjudication (adjudicate), and turn "
        "resolved values into record edits (apply). Audits live in corpus/audits/<audit_id>/.",
        epilog="examples:\n  masrl audit sample --population retained --n 20 --seed 7 --stratify FIELD\n"
               "  masrl audit import filled.csv --audit tags-2026-06-01 --reader \"Jane Doe\"\n"
               "  masrl audit apply tags-2026-06-01 --yes",
        formatter_class=_FORMATTER)
    steps = audit.add_subparsers(dest="step", metavar="STEP", parser_class=type(audit))
    steps.required = True

    p = steps.add_parser(
        "sample", help="draw a reproducible sample and write its blind sheet",
        description="Draw --n records of the population (stratified by --stratify, proportional allocation) "
        "with --seed, and create corpus/audits/<id>/: audit.yaml (sample, seed, instructions, the original "
        "values) and sheet/ (sheet.csv, allowed-values.csv, instructions.md) to send to the second reader. "
        "Same corpus, seed and options: same sample. Never overwrites an audit.",
        epilog=SAMPLE_EPILOG, formatter_class=_FORMATTER)
    p.add_argument("--population", required=True, choices=("retained", "excluded", "all"),
                   help="retained: audit tags; excluded or all: audit screening decisions")
    p.add_argument("--n", required=True, type=int, metavar="N", help="number of records to draw")
    p.add_argument("--seed", required=True, type=_seed, metavar="SEED",
                   help=f"a whole number from 0 to {SEED_MAX} (recorded in audit.yaml)")
    p.add_argument("--stratify", metavar="FIELD", help="draw proportionally from each value of FIELD (see below)")
    p.add_argument("--fields", metavar="F,F,...", help="fields the reader fills in (see below)")
    p.add_argument("--id", "--audit", dest="audit_id", metavar="ID",
                   help="audit id (default: tags-<date> or screening-<date>; also --audit, as audit import names it)")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="date of the audit (default: today)")
    p.add_argument("--description", metavar="TEXT", help="one sentence on the audit's purpose")
    p.add_argument("--instructions", metavar="TEXT", help="instructions for the reader (default: masrl's standard text)")
    p.add_argument("--dry-run", action="store_true", help="print the sample and write nothing")
    p.set_defaults(run=_sample)

    p = steps.add_parser(
        "import", help="check a filled sheet and store it as a new round",
        description="Check a filled sheet against the audit's sample (every item once, identifiers as "
        "sampled) and the vocabulary (every cell, with 'did you mean'), then store it as "
        "corpus/audits/<id>/rounds/round-<n>-<reader>.yaml. Several readers per round and several rounds "
        "are allowed; an earlier reading is never overwritten. Prints the round's agreement.",
        epilog=IMPORT_EPILOG, formatter_class=_FORMATTER)
    p.add_argument("sheet", type=Path, metavar="SHEET", help="the filled sheet (CSV)")
    p.add_argument("--audit", required=True, metavar="ID", help="audit id (the folder under corpus/audits/)")
    p.add_argument("--reader", required=True, metavar="NAME", help="who filled in the sheet")
    p.add_argument("--round", type=int, metavar="N", help="round number (default: the latest round, or 1)")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="date of the reading (default: today)")
    p.add_argument("--dry-run", action="store_true", help="check and show the agreement; write nothing")
    p.set_defaults(run=_import)

    p = steps.add_parser(
        "show", help="agreement, intervals and disagreements of audits (Markdown or JSON)",
        description="Print the agreement of every round of one audit (or of every audit): items, observed "
        "agreement, Cohen's κ (Fleiss' κ for more than two readers), Gwet's AC1 and PABAK, each with a 95% "
        "interval, and every disagreement with its resolution. The same section is in reports/audit.md.",
        epilog=SHOW_EPILOG, formatter_class=_FORMATTER)
    p.add_argument("audit_id", nargs="?", metavar="ID", help="audit id (default: every audit)")
    p.add_argument("--json", action="store_true", help="print JSON (the shape of reports/audit.json's agreements)")
    p.set_defaults(run=_show)

    p = steps.add_parser(
        "adjudicate", help="write the adjudication file of a round (every disagreement)",
        description="Create corpus/audits/<id>/adjudication-round-<n>.yaml with one open entry per "
        "disagreement of the round (default: the latest). Edit it, then run masrl audit apply.",
        epilog=ADJUDICATE_EPILOG, formatter_class=_FORMATTER)
    p.add_argument("audit_id", metavar="ID", help="audit id")
    p.add_argument("--round", type=int, metavar="N", help="round (default: the latest)")
    p.set_defaults(run=_adjudicate)

    p = steps.add_parser(
        "apply", help="turn resolved values into record edits (diff first; writes only with --yes)",
        description="Show, as a unified diff, the record edits the resolved values of a round's "
        "adjudication make (default: the latest adjudicated round), and write them with --yes. Refuses "
        "conflicts (a record changed since the sample) and anything that would leave the corpus invalid.",
        epilog=APPLY_EPILOG, formatter_class=_FORMATTER)
    p.add_argument("audit_id", metavar="ID", help="audit id")
    p.add_argument("--round", type=int, metavar="N", help="adjudicated round (default: the latest)")
    p.add_argument("--yes", action="store_true", help="write the edits (without it nothing is written)")
    p.set_defaults(run=_apply)


def _read(root_arg):
    from ..corpus.load import find_root, read_tree

    root = find_root(root_arg)
    return root, read_tree(root)


def _round_summary(files: dict[str, bytes], audit_id: str, round_no: int) -> str:
    from ..audits.model import audits_of
    from ..audits.report import audit_entry, audit_markdown
    from ..corpus.load import parse_tree
    from ..corpus.taxonomy import Taxonomy

    corpus = parse_tree(files)
    audit = next(a for a in audits_of(corpus) if a.audit_id == audit_id)
    retained = {r.get("key"): r for r in corpus.retained.values()}
    excluded = {r.get("record_id"): r for r in corpus.excluded.values()}
    entry = audit_entry(audit, Taxonomy(corpus.taxonomy), retained, excluded)
    entry["rounds"] = [r for r in entry["rounds"] if r["round"] == round_no]
    return audit_markdown([entry], "#")


def _sample(args: argparse.Namespace) -> int:
    from .. import __version__
    from ..review.auditing import SampleOptions, sample

    root, files = _read(args.root)
    command = ["masrl", "audit", "sample", "--population", args.population, "--n", str(args.n), "--seed", str(args.seed)]
    for flag, value in (("--stratify", args.stratify), ("--fields", args.fields), ("--id", args.audit_id)):
        if value is not None:
            command += [flag, value]
    options = SampleOptions(args.population, args.n, args.seed, args.stratify, _fields(args.fields), args.audit_id,
                            args.date, args.description, args.instructions, shlex.join(command))
    audit_id, out, order = sample(files, options, __version__)
    folder = f"corpus/audits/{audit_id}/"
    if args.dry_run:
        print(f"dry run: audit {audit_id} would sample {len(order)} record(s): {', '.join(order)}")
        for rel in sorted(out):
            print(f"  would write {rel}")
        return 0
    write.create_new(root, out)
    for rel in sorted(out):
        print(f"created {rel}")
    print(f"sampled {len(order)} record(s) for audit {audit_id}.\n"
          f"next: send the files in {folder}sheet/ to the second reader (not audit.yaml: it holds the original values),\n"
          f"then: masrl audit import FILLED.csv --audit {audit_id} --reader NAME")
    return 0


def _import(args: argparse.Namespace) -> int:
    from ..corpus.load import read_user_bytes
    from ..review.auditing import import_sheet

    root, files = _read(args.root)
    data = read_user_bytes(args.sheet, "SHEET")
    target, out, number = import_sheet(files, args.audit, data, str(args.sheet), args.reader, args.round, args.date)
    print(_round_summary({**files, **out}, args.audit, number), end="")
    if args.dry_run:
        print(f"dry run: the sheet is valid; {target} was not written")
        return 0
    write.create_new(root, out)
    print(f"imported {args.sheet} as {target} (round {number}).\n"
          f"next: masrl audit adjudicate {args.audit} --round {number} (if there are disagreements), masrl build")
    return 0


def _show(args: argparse.Namespace) -> int:
    from ..audits.model import audits_of
    from ..audits.report import audit_entries, audit_markdown
    from ..checks.validate import validate
    from ..core.didyoumean import did_you_mean as _suggest
    from ..core.errors import summary
    from ..corpus.load import AUDITS, parse_tree
    from ..corpus.taxonomy import Taxonomy
    from ..render.jsonout import json_bytes

    _, files = _read(args.root)
    corpus = parse_tree(files)
    problems = [p for p in validate(corpus) if p.file.startswith(AUDITS) or p.file == "corpus/taxonomy.yaml"]
    if problems:
        raise UserError(summary(problems, "fix the audits first."), problems)
    audits = audits_of(corpus)
    if args.audit_id:
        chosen = [a for a in audits if a.audit_id == args.audit_id]
        if not chosen:
            ids = sorted(a.audit_id for a in audits)
            raise UserError(f"no audit {args.audit_id!r} under {AUDITS}{_suggest(args.audit_id, ids)}"
                            + (f"; audits: {', '.join(ids)}" if ids else "; start one with masrl audit sample"))
        audits = chosen
    retained = {r.get("key"): r for r in corpus.retained.values()}
    excluded = {r.get("record_id"): r for r in corpus.excluded.values()}
    entries = audit_entries(audits, Taxonomy(corpus.taxonomy), retained, excluded)
    if args.json:
        sys.stdout.write(json_bytes(entries).decode("utf-8"))
    else:
        print(audit_markdown(entries, "#"), end="")
    return 0


def _adjudicate(args: argparse.Namespace) -> int:
    from ..review.auditing import adjudication

    root, files = _read(args.root)
    target, out, count = adjudication(files, args.audit_id, args.round)
    if not out:
        print(f"no disagreements in this round of {args.audit_id}: nothing to adjudicate")
        return 0
    write.create_new(root, out)
    print(f"created {target} with {count} disagreement(s): fill in resolved, by and date,\n"
          f"then: masrl audit apply {args.audit_id} (shows the edits; --yes writes them)")
    return 0


def _apply(args: argparse.Namespace) -> int:
    from ..review.auditing import apply_round

    root, files = _read(args.root)
    plan, number = apply_round(files, args.audit_id, args.round)
    diff = plan.diff(files)
    if diff:
        print(diff, end="")
    for line in plan.changes:
        print(f"change: {line}")
    for step in plan.manual:
        print(f"by hand: {step}")
    if plan.pending:
        print(f"open: {len(plan.pending)} disagreement(s) of round {number} have no resolved value yet")
    if plan.empty:
        print(f"nothing to apply: the records already hold every resolved value of round {number}" if not plan.pending
              else f"nothing to apply yet: resolve the open disagreements in the adjudication file of round {number}")
        return 0
    if not args.yes:
        n = len(plan.edits) + len(plan.creates) + len(plan.removes)
        print(f"dry run: {n} file(s) would change; nothing was written (run again with --yes to write them)")
        return 0
    write.create_new(root, plan.creates)
    try:
        write.update(root, plan.edits)
    except UserError:
        for rel in plan.creates:
            write.remove(root, rel)
        raise
    for rel in plan.removes:
        write.remove(root, rel)
    stubs = len(plan.creates) - len(plan.restored)
    print(f"applied round {number} of {args.audit_id}: {len(plan.edits)} record(s) edited, {stubs} stub(s) created, "
          + (f"{len(plan.restored)} record(s) restored, " if plan.restored else "")
          + f"{len(plan.removes)} exclusion(s) overturned.\n"
          "next: tag any new stub, masrl validate, masrl build, masrl diff HEAD")
    return 0
