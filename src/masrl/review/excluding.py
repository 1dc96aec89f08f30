"""Logging screening decisions as exclusion records: the library under ``masrl exclude`` (and every
other path that writes an exclusion, e.g. applying an update round's decisions).

A :class:`Decision` is one screening decision: the exclusion reason, the values of the survey's
fields of excluded records (the screening stage, the reason class, where the paper was found, ...:
whatever its taxonomy declares), and either the paper (title, identifiers, authors, year) or the
key of a retained record to move to the exclusion log.
:func:`decision_problems` checks a decision against the vocabulary; :func:`plan_exclusions` turns
decisions into ``exclusions/<record id>.yaml`` files with consecutive ids, refusing papers already
in the pool and any decision after which the corpus would not validate. Nothing here writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..bib.matching import make_known
from ..checks.validate import validate
from ..core.didyoumean import did_you_mean
from ..core.errors import COMMAND_LINE, Problem, UserError, summary
from ..core.placeholders import author_problem, authors_problem, placeholder_problem
from ..core.text import text_problem
from ..corpus.load import EXCLUSIONS, PAPERS, Corpus, parse_tree
from ..corpus.records import excluded_order, ordered
from ..corpus.releases import frozen_names
from ..corpus.taxonomy import Taxonomy
from ..corpus.yamlio import dump_record
from . import intake
from ..core import clock

def option_fields(tax: Taxonomy) -> list[tuple[str, str]]:
    """``(option, field)`` of every field a decision gives (:meth:`Taxonomy.exclusion_options`)."""
    return tax.exclusion_options()


def next_record_id(existing: list[str]) -> str:
    """``E`` + the next number after the highest existing id, at least three digits (E033)."""
    numbers = [int(m.group(1)) for name in existing if (m := re.fullmatch(r"E([0-9]+)", name))]
    return f"E{(max(numbers) if numbers else 0) + 1:03d}"


def used_record_ids(corpus) -> list[str]:
    """Every exclusion id a new exclusion may not take: the exclusion log's files (readable or not), the ids the
    releases froze (a record an audit later overturned keeps its id there) and the former ids retained records
    keep (``former_record_id``): an id names one paper for good."""
    taken = [f[len(EXCLUSIONS):].rsplit(".", 1)[0] for f in corpus.excluded]
    taken += [f[len(EXCLUSIONS):].rsplit(".", 1)[0] for f in corpus.unreadable if f.startswith(EXCLUSIONS)]
    taken += sorted(frozen_names(corpus.snapshots)[1])
    taken += [str(r["former_record_id"]) for r in corpus.retained.values() if r.get("former_record_id")]
    return taken


@dataclass(frozen=True)
class Decision:
    """One screening decision to log.

    Attributes:
        reason: the exclusion reason, in words.
        values: field -> value of the survey's fields of excluded records (:func:`option_fields`);
            a field left out is not written (refused when the taxonomy requires it).
        date: the screening date (YYYY-MM-DD); None: today.
        key: a retained record to move to the exclusion log (then no paper fields).
        title, identifiers, authors, year: the paper screened out (when ``key`` is None).
        url: its landing page as given; None: the resolver of its first identifier.
        origin: ``(file, line)`` the decision came from, for messages (the command line by default).
        labels: how messages name each field (``{"reason": "--reason"}``); a field not named is
            called by its own name.
        provenance: what made the decision, for the record's ``provenance.source``.
        force: why a paper whose title is near-identical to that of a record of the pool is logged
            anyway (a distinct paper), kept as ``forced``; None: such a paper is refused. A shared
            identifier is refused even so: one paper, one record.
    """

    reason: str
    values: dict = field(default_factory=dict)
    date: str | None = None
    key: str | None = None
    title: str | None = None
    identifiers: dict = field(default_factory=dict)
    authors: tuple[str, ...] = ()
    year: int | None = None
    url: str | None = None
    origin: tuple[str, int | None] = (COMMAND_LINE, None)
    labels: dict = field(default_factory=dict)
    provenance: str = "masrl exclude"
    force: str | None = None

    def label(self, name: str) -> str:
        """How messages name the field ``name``."""
        return self.labels.get(name, name)


def decision_problems(decision: Decision, tax: Taxonomy) -> list[Problem]:
    """Every problem of one decision at once: vocabulary values, the date, what identifies the
    paper, placeholders, missing authors or year, an empty or placeholder reason."""
    problems = []
    file, line = decision.origin

    def bad(name: str, message: str) -> None:
        problems.append(Problem(file, line, decision.label(name), message))

    known = dict((name, option) for option, name in option_fields(tax))
    for name in decision.values:
        if name not in known:
            bad(name, f"{name!r} is no field of excluded records; fields: {', '.join(known) or 'none'}{did_you_mean(name, known)}")
    for field_ in tax.of("excluded"):
        value = decision.values.get(field_.name)
        if value is None:
            if field_.required:
                bad(field_.name, f"required: give one of {', '.join(field_.values)}")
            continue
        allowed = field_.values
        given = value if isinstance(value, list) else [value]
        for v in given:
            if v not in allowed:
                bad(field_.name, f"{v!r} is not in the vocabulary; allowed: {', '.join(allowed)}{did_you_mean(v, field_.labels)}")
        if isinstance(value, list) and not field_.multi:
            bad(field_.name, f"takes one value, not a list ({', '.join(map(str, value))})")
        elif len(set(map(str, given))) < len(given):
            bad(field_.name, f"{', '.join(map(str, given))}: a value is given twice; give each once")
    for field_ in tax.free_of("excluded"):
        value = decision.values.get(field_.name)
        if value is None and field_.required:
            bad(field_.name, "required: give its text")
        elif isinstance(value, str) and (why := placeholder_problem(value)):
            bad(field_.name, f"{why}; give the real text")
    if decision.date:
        if why := clock.date_problem(decision.date):
            bad("date", why)
        elif decision.date > clock.today_iso():
            bad("date", f"{decision.date} is in the future (today is {clock.today_iso()})")
    if bool(decision.key) == bool((decision.title or "").strip()):
        bad("key/title", f"give either {decision.label('key')} KEY (move a retained record) or {decision.label('title')} "
                         "TITLE with an identifier (a screened paper)")
    elif decision.title is not None and (why := placeholder_problem(decision.title)):
        bad("title", f"{why}; give the paper's real title")
    if decision.key and (decision.identifiers or decision.authors or decision.year is not None):
        bad("key", "moves a retained record with its own identifiers, authors and year; "
                   "drop --arxiv/--doi/--openreview/--url/--author/--year")
    latest = clock.today().year + 1
    if decision.year is not None and not tax.year_minimum <= decision.year <= latest:
        bad("year", f"{decision.year} is out of range; allowed: {tax.year_minimum} to {latest}")
    if not decision.key:
        for name, ok in (("author", decision.authors), ("year", decision.year is not None)):
            if not ok:
                bad(name, "a screened paper needs it (as for masrl add: --author \"Last, First\" once per author, "
                          "'others' if incomplete; --year YYYY)")
    for author in decision.authors:
        if author != "others" and (why := author_problem(author)):
            bad("author", f"{why}; give the paper's real author")
    if why := authors_problem(list(decision.authors)):
        bad("author", why)
    texts = [("title", decision.title or "", False), ("reason", decision.reason, True)] + \
        [("author", a, False) for a in decision.authors]
    for name, text, multiline in texts:
        if why := text_problem(text, multiline):
            bad(name, f"{text!r} {why}")
    if decision.force is not None and not decision.force.strip():
        bad("force", "needs a reason, e.g. --force 'a different model report with the same title pattern'")
    elif decision.force is not None and decision.key:
        bad("force", "moves a retained record, which is in the pool already; --force is for a screened paper")
    if not decision.reason.strip():
        bad("reason", "must say why the paper is excluded")
    elif why := placeholder_problem(decision.reason):
        bad("reason", f"{why}; say why the paper is excluded")
    return problems


@dataclass
class ExclusionPlan:
    """What logging a batch of decisions would do.

    Attributes:
        files: ``{exclusions/<record id>.yaml: bytes}`` of every new exclusion record.
        removes: retained record files moved to the exclusion log (remove after writing ``files``).
        moved: new exclusion file -> the retained file it was moved from.
    """

    files: dict[str, bytes] = field(default_factory=dict)
    removes: list[str] = field(default_factory=list)
    moved: dict[str, str] = field(default_factory=dict)


def duplicate_problems(corpus: Corpus, decisions: list[Decision], advice) -> list[Problem]:
    """A problem at the origin of each decision whose paper the pool already holds (a retained or an excluded
    record, or an earlier decision of ``decisions``): the rule of :func:`plan_exclusions`, every one at once;
    ``advice(matches)`` ends each message (what to do where the decisions come from)."""
    pool = intake.pool_of(corpus)
    out = []
    for decision in decisions:
        if decision.key or not decision.identifiers:
            continue
        ids = dict(decision.identifiers)
        matches = [m for m in pool.matches(decision.title, ids, decision.authors) if m.key or not decision.force]
        if matches:
            out.append(Problem(decision.origin[0], decision.origin[1], decision.label("title"),
                               f"{decision.title!r} refused: " + "; ".join(m.message() for m in matches) + f"; {advice(matches)}"))
        pool.add(make_known(f"{decision.origin[0]}" + (f":{decision.origin[1]}" if decision.origin[1] else ""),
                            "batch", decision.title, ids, authors=decision.authors))
    return out


def plan_exclusions(corpus: Corpus, files: dict[str, bytes], decisions: list[Decision]) -> ExclusionPlan:
    """Exclusion records for ``decisions`` (checked with :func:`decision_problems` first), with the
    next free record ids in order. ``files`` are the survey's input files as read
    (:func:`masrl.corpus.load.read_tree`) and ``corpus`` their parse.

    Raises:
        UserError: with every problem of every decision at once; or when a paper is already in the
            pool (also earlier in the batch), a record to move cannot be read or is invalid, or the
            corpus would not validate afterwards. Then nothing is planned.
    """
    tax = Taxonomy(corpus.taxonomy)
    problems = [p for d in decisions for p in decision_problems(d, tax)]
    if problems:
        raise UserError(summary(problems, "nothing was written."), problems)
    taken = used_record_ids(corpus)
    plan = ExclusionPlan()
    pool = intake.pool_of(corpus)
    known = None
    today = clock.today_iso()
    for decision in decisions:
        record_id = next_record_id(taken)
        taken.append(record_id)
        rec: dict = {"record_id": record_id}
        moved_from = None
        if decision.key:
            moved_from = f"{PAPERS}{decision.key}.yaml"
            former = corpus.retained.get(moved_from)
            if former is None:
                if moved_from in files:
                    raise UserError(f"{moved_from} cannot be read as a record; run `masrl validate` and fix it first")
                keys = [f[len(PAPERS):].rsplit(".", 1)[0] for f in corpus.retained]
                raise UserError(f"{decision.label('key')} {decision.key}: no retained record {moved_from}"
                                f"{did_you_mean(decision.key, keys)}")
            known = validate(corpus) if known is None else known
            own = [p for p in known if p.file == moved_from]
            if own:
                raise UserError(summary(own, f"nothing was moved: fix {moved_from} first, so that nothing of it is lost."), own)
            rec.update(screening_label=former["title"], authors=former["authors"], year=former["year"],
                       identifiers=former["identifiers"], url=former["url"].split(" ; ")[0])
        else:
            if not decision.identifiers:
                raise UserError("the paper needs an identifier: --arxiv, --doi, --openreview or --url")
            ids = dict(decision.identifiers)
            matches = [m for m in pool.matches(decision.title, ids, decision.authors) if m.key or not decision.force]
            if matches:  # --force overrides a similar title, never a shared identifier (one paper, one record)
                raise UserError("this paper is already in the corpus: " + "; ".join(m.message() for m in matches)
                                + f"; if it is a distinct paper, {decision.label('force')} REASON logs it anyway")
            links = ids.get("url")  # a URL identifier is itself a landing page (a paper with no other id)
            url = (decision.url or next(iter(tax.identifier_schemes.get(s, {}).get("resolver", "").format(id=v)
                                             for s, v in ids.items() if s != "url"), "")
                   or next(iter([links] if isinstance(links, str) else links or []), ""))
            rec.update(screening_label=decision.title, authors=list(decision.authors), year=decision.year,
                       identifiers=ids, url=url)
            pool.add(make_known(f"{decision.origin[0]}" + (f":{decision.origin[1]}" if decision.origin[1] else ""),
                                "batch", decision.title, ids, authors=decision.authors))
        rec.update({name: [value] if tax.fields.get(name) and tax.fields[name].multi and isinstance(value, str) else value
                    for name, value in decision.values.items() if value is not None})  # a list field holds a list
        rec.update(date_screened=decision.date or today, date_added=today, exclusion_reason=decision.reason)
        if decision.force:
            rec["forced"] = decision.force.strip()
        if moved_from:
            rec["former_key"] = decision.key
            rec["former_record"] = corpus.retained[moved_from]
            rec["former_file"] = files[moved_from].decode("utf-8")  # verbatim, comments included
        reason_field = tax.role("reasons")
        rec["tag_provenance"] = {reason_field: f"{decision.provenance} (screener's choice)"} if reason_field else {}
        rec["provenance"] = {"source": decision.provenance + (f", moved from {moved_from}" if moved_from else "")}
        new_file = f"{EXCLUSIONS}{record_id}.yaml"
        plan.files[new_file] = dump_record(ordered(rec, excluded_order(tax)))
        if moved_from:
            plan.removes.append(moved_from)
            plan.moved[new_file] = moved_from

    after = {**files, **plan.files}
    for rel in plan.removes:
        del after[rel]
    before = {str(p) for p in (validate(corpus) if known is None else known)}
    introduced = [p for p in validate(parse_tree(after)) if str(p) not in before]
    if introduced:
        raise UserError(summary(introduced, "nothing was written (the corpus would not validate after this exclusion)."),
                        introduced)
    return plan
