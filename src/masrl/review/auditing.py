"""The steps of ``masrl audit``: corpus in, files to write (``{relative path: bytes}``) out (pure).

Every step refuses, with every problem at once (:class:`~masrl.core.errors.UserError`),
input that would leave the corpus invalid; it never writes. The command
(:mod:`masrl.commands.audit`) reads the files, calls a step, shows the
result and hands the files to :mod:`masrl.build.write`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from ..audits import sample as sampling
from ..audits.adjudication import adjudication_document, header_comment
from ..audits.fields import (
    ORIGINAL,
    TABLE_COLUMNS,
    allowed_fields,
    default_tag_fields,
    kind_of,
    screening_fields,
    stratify_choices,
    with_vocabulary,
)
from ..audits.model import (
    AUDIT_FILE,
    SHEET,
    Audit,
    adjudication_file,
    audits_of,
    folder_of,
    reader_slug,
    round_file,
)
from ..audits.sheet import allowed_values_csv, check_sheet, read_sheet, sheet_csv
from ..checks.validate import validate
from ..core.didyoumean import did_you_mean as _suggest
from ..core.text import text_problem
from ..core.errors import COMMAND_LINE, Problem, UserError, summary
from ..core.names import file_name_problem
from ..corpus.load import AUDITS, TAXONOMY, Corpus, parse_tree
from ..corpus.taxonomy import Taxonomy
from ..corpus.yamlio import dump_record
from ..render.markdown import render_template
from ..core import clock
from ..core.names import record_id_order

_ID = re.compile(r"[a-z0-9][a-z0-9._-]*")


@dataclass
class SampleOptions:
    """What ``masrl audit sample`` was asked; ``fields`` None means the population's defaults."""

    population: str
    n: int
    seed: int
    stratify: str | None = None
    fields: list[str] | None = None
    audit_id: str | None = None
    date: str | None = None
    description: str | None = None
    instructions: str | None = None
    command: str = "masrl audit sample"


def _today(date: str | None) -> str:
    """``date`` (checked: a real date written YYYY-MM-DD) or today."""
    if date is None:
        return clock.today_iso()
    if why := clock.date_problem(date):
        raise UserError(f"--date {why}")
    return date


def _require_valid(corpus: Corpus, what: str, only: tuple[str, ...] | None = None) -> list[Problem]:
    """The corpus's problems; raise if any is in the taxonomy or (with ``only``) in a file under those prefixes."""
    problems = validate(corpus)
    blocking = [p for p in problems if p.file == TAXONOMY or only is None or p.file.startswith(only)]
    if blocking:
        raise UserError(summary(blocking, f"{what} (fix these first; `masrl validate` lists them)."), blocking)
    return problems


def _introduced(before: list[Problem], files: dict[str, bytes], tail: str, ignore_untagged: tuple[str, ...] = ()) -> None:
    known = {str(p) for p in before}
    after = [p for p in validate(parse_tree(files)) if str(p) not in known
             and not (p.file in ignore_untagged and "untagged" in p.message)]
    if after:
        raise UserError(summary(after, tail), after)


def _audit(corpus: Corpus, audit_id: str) -> Audit:
    audits = {a.audit_id: a for a in audits_of(corpus)}
    audit = audits.get(audit_id)
    if audit is None:
        ids = sorted(audits)
        raise UserError(f"no audit {audit_id!r} under {AUDITS}{_suggest(audit_id, ids)}"
                        + (f"; audits: {', '.join(ids)}" if ids else "; start one with masrl audit sample"))
    if audit.legacy:
        raise UserError(f"{audit.file} is a single-file audit in the survey's earlier format; its round is published "
                        "and takes no new sheets (start a new audit with masrl audit sample)")
    return audit


# ---------------------------------------------------------------------------- sample
def sample(files: dict[str, bytes], options: SampleOptions, version: str) -> tuple[str, dict[str, bytes], list[str]]:
    """Draw a sample and render its audit folder.

    Returns ``(audit id, files to create, sheet order as record names)``.

    Raises:
        UserError: invalid corpus, bad options (all at once), n larger than the population, audit id taken.
    """
    corpus = parse_tree(files)
    problems = _require_valid(corpus, "nothing was sampled")
    tax = Taxonomy(corpus.taxonomy)
    allowed = allowed_fields(tax, options.population)
    fields = options.fields or list(default_tag_fields(tax) if options.population == "retained" else screening_fields(tax))
    bad: list[Problem] = []
    for name in fields:
        if name not in allowed:
            field = tax.fields.get(name)
            why = (" (it applies only to the records its required_when names: a reader of the others would have no value "
                   "to give)" if field is not None and field.required_when is not None else "")
            bad.append(Problem(COMMAND_LINE, None, "--fields", f"{name!r} cannot be audited for the {options.population} "
                                                               f"population{why}; allowed: {', '.join(allowed)}"
                                                               f"{_suggest(name, allowed)}"))
    if len(set(fields)) != len(fields):
        bad.append(Problem(COMMAND_LINE, None, "--fields", "a field is listed twice"))
    if kind_of(options.population) == "screening" and "decision" not in fields:
        bad.append(Problem(COMMAND_LINE, None, "--fields", "a screening audit asks for the decision: include 'decision'"))
    choices = stratify_choices(tax, options.population)
    if options.stratify is not None and options.stratify not in choices:
        field = tax.fields.get(options.stratify)
        what = ("is a field only the records its required_when names carry: the others would be in no stratum"
                if field is not None and field.required_when is not None and not field.multi
                else f"is not a field of the {options.population} records")
        bad.append(Problem(COMMAND_LINE, None, "--stratify", f"{options.stratify!r} {what}; allowed: {', '.join(choices)}"
                                                             f"{_suggest(options.stratify, choices)}"))
    if options.n < 1:
        bad.append(Problem(COMMAND_LINE, None, "--n", f"{options.n} items: the sample needs at least one"))
    if options.description and (why := text_problem(options.description)):
        bad.append(Problem(COMMAND_LINE, None, "--description", why))
    date = _today(options.date)
    audit_id = options.audit_id or f"{kind_of(options.population)}-{date}"
    if not _ID.fullmatch(audit_id):
        bad.append(Problem(COMMAND_LINE, None, "--id", f"{audit_id!r} is not a valid audit id: use lower-case letters, digits, '.', '_' and '-'"))
    elif why := file_name_problem(audit_id):
        bad.append(Problem(COMMAND_LINE, None, "--id", f"{audit_id[:80]!r}: {why}" if why.startswith("is ") else why))
    if bad:
        raise UserError(summary(bad, "nothing was sampled."), bad)
    fields = [name for name in allowed if name in fields]  # sheet order: the vocabulary's
    taken = {a.audit_id for a in audits_of(corpus)} | {rel.split("/")[2] for rel in files if rel.startswith(AUDITS) and rel.count("/") >= 3}
    if audit_id in taken:
        raise UserError(f"audit {audit_id!r} exists already; choose another id with --id (e.g. --id {audit_id}-b)")
    pool = sampling.candidates(sorted(corpus.retained.values(), key=lambda r: r["key"]),
                               sorted(corpus.excluded.values(), key=lambda r: record_id_order(r["record_id"])),
                               options.population, fields, options.stratify)
    if options.n > len(pool):
        raise UserError(f"--n {options.n} but the {options.population} population has {len(pool)} records")
    drawn, strata = sampling.draw(pool, options.n, options.seed, sampling.strata_order(tax, options.stratify))
    spec = [allowed[name] for name in fields]
    instructions = options.instructions or sampling.default_instructions(options.population, {f.name: f for f in spec})
    doc = sampling.audit_document(
        audit_id=audit_id, date=date, population=options.population, fields=fields, n=options.n, seed=options.seed,
        stratify=options.stratify, strata=strata, instructions=instructions, description=options.description,
        drawn=drawn, command=options.command, version=version,
        vocabulary={name: tax.values(name) for name in (*fields, options.stratify)
                    if name and name in tax.fields and tax.values(name)})
    folder = folder_of(audit_id)
    labels = sampling.item_labels(len(drawn))
    criteria = []
    if kind_of(options.population) == "screening" and tax.role("inclusion"):
        ic = tax.fields[tax.role("inclusion")]
        criteria = [(v, ic.value_label(v), str(ic.value_spec(v).get("definition", ""))) for v in ic.values]
    out = {
        f"{folder}{AUDIT_FILE}": dump_record(doc),
        f"{folder}{SHEET}/sheet.csv": sheet_csv([(label, c.identifier, c.title, c.link) for label, c in zip(labels, drawn)], fields),
        f"{folder}{SHEET}/allowed-values.csv": allowed_values_csv(spec),
        f"{folder}{SHEET}/instructions.md": render_template("audit_instructions.md.j2", audit_id=audit_id, instructions=instructions,
                                                           fields=spec, criteria=criteria).encode("utf-8"),
    }
    _introduced(problems, {**files, **out}, "nothing was sampled (the audit file would not validate).")
    return audit_id, out, [c.record for c in drawn]


# ---------------------------------------------------------------------------- import
def _initialled(name: str) -> str:
    """``name`` with an initial before its last word (``Jane Doé`` -> ``Jane X. Doé``): a hint, no more."""
    first, _, last = name.rpartition(" ")
    return f"{first} X. {last}" if first else f"{name} X."


def import_sheet(files: dict[str, bytes], audit_id: str, sheet: bytes, sheet_name: str, reader: str,
                 round_no: int | None, date: str | None) -> tuple[str, dict[str, bytes], int]:
    """Check a filled sheet and render it as a round file.

    Returns ``(round file, {round file: bytes}, round)``.

    Raises:
        UserError: the audit is unknown or invalid, the sheet does not match the
            sample or the vocabulary (every problem, with line and column), the
            reader already read this round, or the round would skip one.
    """
    corpus = parse_tree(files)
    problems = _require_valid(corpus, "nothing was imported", (folder_of(audit_id),))
    tax = Taxonomy(corpus.taxonomy)
    audit = _audit(corpus, audit_id)
    reader = " ".join(reader.split())
    if not reader or reader_slug(reader) == ORIGINAL:
        raise UserError(f"--reader {reader!r}: name the person who filled in the sheet ('{ORIGINAL}' is the corpus itself)")
    if reader_slug(reader) in TABLE_COLUMNS:
        raise UserError(f"--reader {reader!r}: names a column of the table of disagreements ({', '.join(TABLE_COLUMNS)}); "
                        "name the person who filled in the sheet")
    if why := text_problem(reader):
        raise UserError(f"--reader {reader!r} {why}")
    rounds = audit.rounds()
    number = round_no if round_no is not None else (rounds[-1] if rounds else 1)
    if number < 1 or number > (rounds[-1] if rounds else 0) + 1:
        raise UserError(f"--round {number}: the next round is {(rounds[-1] if rounds else 0) + 1}")
    target = round_file(audit_id, number, reader)
    clash = [r for r in audit.readings_of(number) if reader_slug(r.reader) == reader_slug(reader)]
    if clash and clash[0].reader != reader:
        raise UserError(f"--reader {reader!r}: its reading would be {target}, which holds the reading of "
                        f"{clash[0].reader!r}: a reading's file is named by the letters and digits of its reader's name, so "
                        f"two readers of a round need names that differ in them (add an initial, e.g. "
                        f"{_initialled(reader)!r}); nothing was imported")
    if clash or target in files:
        raise UserError(f"{reader} already read round {number} ({target}); earlier rounds are never overwritten: "
                        f"import this sheet as a new round with --round {(rounds[-1] if rounds else 0) + 1}")
    header, rows, sheet_problems = read_sheet(sheet, sheet_name)
    values, notes = {}, {}
    if not sheet_problems:
        fields = {name: spec for name, spec in with_vocabulary(allowed_fields(tax, audit.population), audit.vocabulary).items()
                  if name in audit.fields}
        values, notes, sheet_problems = check_sheet(audit, fields, header, rows, sheet_name)
    if sheet_problems:
        raise UserError(summary(sheet_problems, "nothing was imported (fix the sheet, then import it again)."), sheet_problems)
    doc = {
        "audit_id": audit_id, "round": number, "reader": reader, "date": _today(date),
        "source": {"file": sheet_name.replace("\\", "/").rsplit("/", 1)[-1], "sha256": hashlib.sha256(sheet).hexdigest()},
        "rows": [{"item": i.item, "record": i.record, "values": {f: values[i.item][f] for f in audit.fields},
                  **({"note": notes[i.item]} if i.item in notes else {})} for i in audit.items],
    }
    out = {target: dump_record(doc)}
    _introduced(problems, {**files, **out}, "nothing was imported (the round file would not validate).")
    return target, out, number


# ---------------------------------------------------------------------------- adjudicate
def adjudication(files: dict[str, bytes], audit_id: str, round_no: int | None) -> tuple[str, dict[str, bytes], int]:
    """Render the adjudication file of a round (one open entry per disagreement).

    Returns ``(file, {file: bytes}, number of disagreements)``; no file when there is none.

    Raises:
        UserError: unknown audit, a round without sheets, or the file exists already.
    """
    corpus = parse_tree(files)
    _require_valid(corpus, "nothing was written", (folder_of(audit_id),))
    audit = _audit(corpus, audit_id)
    rounds = audit.rounds()
    if not rounds:
        raise UserError(f"audit {audit_id} has no imported sheet yet (masrl audit import SHEET --audit {audit_id} --reader NAME)")
    number = round_no if round_no is not None else rounds[-1]
    if number not in rounds:
        raise UserError(f"--round {number}: audit {audit_id} has rounds {', '.join(map(str, rounds))}")
    target = adjudication_file(audit_id, number)
    if target in files:
        raise UserError(f"{target} exists already: edit it (resolved, by, date), then run masrl audit apply {audit_id}")
    doc = adjudication_document(audit, number, Taxonomy(corpus.taxonomy))
    if not doc["resolutions"]:
        return target, {}, 0
    return target, {target: header_comment() + dump_record(doc)}, len(doc["resolutions"])


def apply_round(files: dict[str, bytes], audit_id: str, round_no: int | None):
    """The :class:`~masrl.audits.apply.Plan` of applying a round's adjudication (default: the
    latest adjudicated round), checked: its conflicts and any problem it would add refuse it.

    Raises:
        UserError: unknown audit, no adjudication, conflicts, or an invalid result.
    """
    from ..audits.apply import plan_round

    corpus = parse_tree(files)
    audit = _audit(corpus, audit_id)
    problems = _require_valid(corpus, "nothing was applied", (folder_of(audit_id),))
    adjudicated = sorted({r.round for r in audit.resolutions})
    if not adjudicated:
        raise UserError(f"audit {audit_id} has no adjudication yet (masrl audit adjudicate {audit_id})")
    number = round_no if round_no is not None else adjudicated[-1]
    if number not in adjudicated:
        raise UserError(f"--round {number}: audit {audit_id} has adjudications of rounds {', '.join(map(str, adjudicated))}")
    plan = plan_round(audit, number, corpus, files, Taxonomy(corpus.taxonomy))
    touched = set(plan.edits) | set(plan.removes)
    own = [p for p in problems if p.file in touched]
    if own:
        raise UserError(summary(own, "nothing was applied: fix these records first, so that nothing of them is lost."), own)
    if plan.problems:
        raise UserError(summary(plan.problems, "nothing was applied."), plan.problems)
    after = {**files, **{rel: new for rel, (_, new) in plan.edits.items()}, **plan.creates}
    for rel in plan.removes:
        del after[rel]
    _introduced(problems, after, "nothing was applied (the corpus would not validate afterwards)." + (
        " Where a resolved value needs another field of its record changed too (a field that does not apply exactly when "
        "another is), edit that record by hand (named above), both fields at once, with a tag_provenance line for the "
        f"field ('audit {audit_id} round {number}: adjudicated by ...'), then run `masrl audit apply` again: "
        "a value the record already holds counts as applied." if plan.edits else ""), tuple(plan.creates))
    return plan, number
