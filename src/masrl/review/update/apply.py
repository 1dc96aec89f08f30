"""The screener's decisions of a round as records: an include becomes a retained stub, an exclude
an exclusion record, through the same library paths as ``masrl add`` and ``masrl exclude``.

Each decided row of ``queue.csv`` is one paper: includes go through
:func:`masrl.review.adding.plan_additions` (duplicates refused, the stub validated) with the
round's metadata (title, authors, year, venue, abstract, identifier); excludes through
:func:`masrl.review.excluding.plan_exclusions` with a
:class:`~masrl.review.excluding.Decision` (stage, reason class, reason; the exclusion log's
source and query family of the first source and family that found it, as the protocol maps
them). A row whose paper is a record already (a retained or excluded record holds its
identifier) is skipped, so applying a round again adds nothing twice and overwrites nothing.
Every problem of the sheet is reported at once, named by its cell (``queue.csv:LINE: column``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...analyses.rounds import Holders, held_by
from ...bib.identifiers import IdentifierError, keys_of, parse, scheme_and_value
from ...core.didyoumean import hint_or_list
from ...core.errors import Problem, UserError, summary
from ...corpus.load import Corpus
from ...corpus.rounds import PROTOCOL, REASON_COLUMN, ROLE_COLUMNS, STAGE_COLUMN, split_identifiers, split_list
from ...corpus.taxonomy import Taxonomy
from .. import adding, intake
from ..excluding import Decision, decision_problems, duplicate_problems, plan_exclusions
from .protocol import protocol_of
from ...core.names import record_id_order

#: How messages name masrl's own fields of a decision: the columns of queue.csv.
LABELS = {"reason": "reason", "title": "title", "key/title": "title", "key": "identifier",
          "author": "authors", "year": "year", "date": "decision"}

def same_paper(matches: list) -> str:
    """What a screener does with a decided row whose paper a record holds by a similar title (``matches``)."""
    if all(m.other.status == "batch" for m in matches):
        return "if it is that paper, decide one of the two rows only"
    return ("if it is that paper, empty this row's decision (the record decides it; the row counts as applied); if it is "
            "a distinct paper, log it with `masrl add --force REASON` or `masrl exclude --force REASON`")


def _labels(tax: Taxonomy) -> dict[str, str]:
    """How messages name each field of a decision: masrl's own and the role fields, by their column."""
    return {**LABELS, **{tax.role(role): column for role, column in ROLE_COLUMNS.items() if tax.role(role)}}


@dataclass
class ApplyPlan:
    """What applying a round would do.

    Attributes:
        files: new record files (``corpus/papers/<key>.yaml`` and ``exclusions/<id>.yaml``) -> bytes.
        created: ``(queue line, record file, decision)`` of each new record, by line.
        skipped: ``(queue line, record file)`` of the rows whose paper is a record already.
        undecided: queue lines without a decision.
        warnings: the authors written "First Last" and stored "Last, First", named by line.
    """

    files: dict[str, bytes] = field(default_factory=dict)
    created: list[tuple[int, str, str]] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)
    undecided: list[int] = field(default_factory=list)
    #: an author written "First Last", stored "Last, First" (as masrl add stores one)
    warnings: list[str] = field(default_factory=list)


def _identifiers(row) -> list:
    """Every id of the row's ``identifier`` cell (:class:`~masrl.bib.identifiers.Identifier`), the one it is
    named by first; raises IdentifierError."""
    out = []
    for item in split_identifiers(row.get("identifier")):
        scheme, value = scheme_and_value(item)
        out.append(parse(value, scheme))
    if not out:
        raise IdentifierError("the row has no identifier")
    return out


def _paper(row, queue: str, round_id: str, authors: list[str]) -> dict:
    idents = _identifiers(row)
    # what the source gave beyond the record's own fields, as `masrl add` keeps it (masrl.bib.lookup)
    fetched = {name: row.get(column) for name, column in (("abstract", "abstract"), ("primaryclass", "arxiv_category"))
               if row.get(column)}
    source = f"masrl update apply {round_id} ({queue}:{row.line})"
    return adding.paper_from_metadata(row.get("title"), authors, int(row.get("year")),
                                      row.get("venue") or None, idents, fetched, source, (queue, row.line, None))


def plan_apply(corpus: Corpus, files: dict[str, bytes], round_id: str, known: list[Problem]) -> ApplyPlan:
    """The records the decisions of round ``round_id`` become (see the module docstring).

    ``files`` are the survey's input files as read and ``corpus`` their parse; ``known`` its
    problems (:func:`masrl.checks.validate.validate`).

    Raises:
        UserError: for an unknown round; with every problem of the round's files or of the
            protocol; with every problem of every decided row at once (a duplicate, a bad cell,
            a record that would not validate). Then nothing is planned.
    """
    folder = corpus.rounds.get(round_id)
    if folder is None:
        raise UserError(f"no round {round_id!r} under corpus/rounds/"
                        f"{hint_or_list(round_id, sorted(corpus.rounds), 'rounds', '; start one with masrl update search')}")
    queue = folder.path("queue.csv")
    own = [p for p in known if p.file.startswith(folder.path("")) or p.file == PROTOCOL]
    # a problem of a queue row is reported with those apply finds in the other rows (every problem in
    # one run); one of the protocol, round.yaml, duplicates.csv or the sheet's columns stops here
    if any(p.file != queue or p.line is None or p.line == 1 for p in own):  # line 1: the sheet's columns
        raise UserError(summary(own, "nothing was applied (fix the round's sheets first)."), own)
    bad_rows = {p.line for p in own}
    protocol = protocol_of(corpus)
    tax = Taxonomy(corpus.taxonomy)
    holders = Holders(corpus.retained, corpus.excluded)
    plan = ApplyPlan()
    papers, decisions, problems = [], [], list(own)
    for row in folder.queue:
        if row.line in bad_rows:
            continue
        decision = row.get("decision")
        held = holders.of(row)
        if held and (not decision or held_by(row.get("identifier"), holders.by_id)
                     or decision == ("include" if held in corpus.retained else "exclude")):
            plan.skipped.append((row.line, held))  # its paper is that record already
            kind = "include" if held in corpus.retained else "exclude"
            if decision and decision != kind:  # decided again after it was applied, or the paper logged by hand since
                plan.warnings.append(f"{queue}:{row.line}: the row says {decision}, but its paper is "
                                     f"{'retained' if kind == 'include' else 'excluded'} as {held}: the record decides; "
                                     f"write {kind} in the row, or change the record")
            continue  # (one held by a similar title, decided otherwise, is refused below, naming the record)
        if not decision:
            plan.undecided.append(row.line)
            continue
        authors, warnings = intake.stored_authors(split_list(row.get("authors")), f"{queue}:{row.line}")
        plan.warnings += warnings
        if decision == "include":
            if not authors:
                problems.append(Problem(queue, row.line, "authors", "an included paper needs its authors (Last, First; ...)"))
                continue
            try:
                papers.append(_paper(row, queue, round_id, authors))
            except IdentifierError as err:
                problems.append(Problem(queue, row.line, "identifier", str(err)))
            continue
        found_by = protocol.exclusion_family_of(split_list(row.get("query_families"))[0])
        searcher = protocol.searcher_by_label(split_list(row.get("sources"))[0])
        try:
            idents = _identifiers(row)
        except IdentifierError as err:
            problems.append(Problem(queue, row.line, "identifier", str(err)))
            continue
        given = {"stages": row.get(STAGE_COLUMN), "reasons": row.get(REASON_COLUMN),
                 "found_in": searcher.exclusion_source, "found_by": found_by}
        values = {tax.role(role): value for role, value in given.items() if tax.role(role)}
        item = Decision(reason=row.get("reason"), values=values, title=row.get("title"),
                        identifiers=intake.mapping(idents), authors=tuple(authors),
                        year=int(row.get("year")), origin=(queue, row.line), labels=_labels(tax),
                        provenance=f"masrl update apply {round_id} ({queue}:{row.line})")
        problems += decision_problems(item, tax)
        decisions.append(item)
    problems += duplicate_problems(corpus, decisions, same_paper)
    added = adding.plan_additions(corpus, papers, known=known, advice=same_paper)
    problems += [p for found in added.refused.values() for p in found]
    if problems:
        raise UserError(summary(problems, "nothing was applied."), sorted(set(problems), key=lambda p: (p.line or 0, p.field or "")))
    excluded = plan_exclusions(corpus, files, decisions)
    plan.files = {**added.files, **excluded.files}
    lines = {key: paper["origin"][1] for paper in papers for key in keys_of(paper["identifiers"])}
    for rel, stub in added.stubs.items():
        line = next(lines[k] for k in sorted(keys_of(stub["identifiers"])) if k in lines)
        plan.created.append((line, rel, "include"))
    for item, rel in zip(decisions, sorted(excluded.files, key=lambda rel: record_id_order(rel.rsplit('/', 1)[-1].removesuffix('.yaml')))):
        plan.created.append((item.origin[1], rel, "exclude"))
    plan.created.sort()
    return plan

