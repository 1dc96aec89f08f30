"""Suggested values written into a record: ``masrl suggest KEY --apply FIELD=VALUE`` and ``--draft``.

Each value applied sets its field and the field's ``tag_provenance``
(:func:`masrl.corpus.provenance.suggested`): a value among the suggestions shown names the
neighbours that were its evidence and is ``confirmed`` (a person chose it) or, with
``--draft``, ``not confirmed``; a value the suggestions did not show is a hand tag
(:data:`HAND`). A ``required_when`` field that now applies and is missing is added as
``untagged`` (to be suggested next); one that no longer applies and is still untagged is
removed. The new record must pass ``masrl validate`` apart from the fields still untagged,
or nothing is planned: every problem is reported, with the file's line. Nothing here writes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...checks.validate import validate
from ...core.didyoumean import did_you_mean
from ...core.errors import COMMAND_LINE, Problem, UserError, summary
from ...corpus import provenance, yamlio
from ...corpus.records import UNTAGGED, ordered, retained_order
from ...corpus.taxonomy import Taxonomy
from ...corpus.yamlio import dump_record
from . import structure
from .fields import RecordSuggestions, is_untagged

#: The provenance of a value given with --apply that the suggestions did not show.
HAND = "hand-tagged (masrl suggest --apply; not among the values suggested)"


@dataclass
class ApplyPlan:
    """What applying would change in one record file.

    Attributes:
        file: the record's path. old: its bytes as read. new: its bytes after the change.
        changes: one line per field set, added or removed, for the user.
    """

    file: str
    old: bytes
    new: bytes
    changes: list[str]


def parse_assignments(texts: list[str], tax: Taxonomy, record: dict) -> list[tuple[str, object]]:
    """``[(field, value)]`` from ``FIELD=VALUE`` texts; a set field takes ``FIELD=A,B`` (or
    ``FIELD=`` for the empty set), its codes kept in taxonomy order.

    Raises:
        UserError: naming every bad assignment at once: no ``=``, a field that is not a
            controlled field of retained records, a value outside the vocabulary, a field
            given twice, or a field tagged already (a tag is never overwritten; a suggestion
            not yet confirmed may be replaced).
    """
    controlled = {f.name: f for f in structure.fields(tax)}
    draft = set(provenance.unconfirmed_fields(record))
    problems: list[Problem] = []
    out: list[tuple[str, object]] = []
    seen: set[str] = set()
    for item in texts:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep:
            problems.append(Problem(COMMAND_LINE, None, "--apply", f"{item!r} is not FIELD=VALUE (a controlled field, =, one of its values)"))
            continue
        field = controlled.get(name)
        if field is None:
            problems.append(Problem(COMMAND_LINE, None, "--apply", f"{name!r} is not a controlled field of retained records"
                                    f"{did_you_mean(name, controlled)}; controlled fields: {', '.join(controlled)}"))
            continue
        if name in seen:
            problems.append(Problem(COMMAND_LINE, None, "--apply", f"{name} is given twice"))
            continue
        seen.add(name)
        codes = [c.strip() for c in raw.split(",") if c.strip()] if field.multi else [raw.strip()]
        bad = [c for c in codes if c not in field.values or c == UNTAGGED]
        if bad or (not field.multi and not codes[0]):
            shown = bad[0] if bad else raw
            problems.append(Problem(COMMAND_LINE, None, "--apply", f"{shown!r} is not a value of {name}; allowed: "
                                    f"{', '.join(field.values)}{did_you_mean(shown, field.labels)}"
                                    + (" (a set: comma-separated, or empty)" if field.multi else "")))
            continue
        current = record.get(name)
        if name in record and not is_untagged(current) and name not in draft:
            problems.append(Problem(COMMAND_LINE, None, "--apply", f"{name} is tagged already ({current!r}); masrl suggest never "
                                    "overwrites a tag: edit the record by hand"))
            continue
        out.append((name, [v for v in field.values if v in codes] if field.multi else codes[0]))
    if problems:
        raise UserError(summary(problems, "nothing was written."), problems)
    return out


def _provenance(report: RecordSuggestions, name: str, value, confirmed: bool, rec: dict) -> str:
    """The ``tag_provenance`` of ``name`` set to ``value`` in ``rec`` (the record with every
    assignment applied): a suggestion (its neighbours as evidence) when ``value`` was shown and
    what that suggestion assumed of other fields (``with category benchmark``) still holds in
    ``rec`` (or is still untagged there); otherwise a hand tag (:data:`HAND`, or one naming the
    assumption the record now contradicts)."""
    shown = report.find(name, _code(value))
    if shown is None:
        return HAND
    for other, assumed in shown.given.items():
        actual = rec.get(other)
        if actual is not None and not is_untagged(actual) and _code(actual) != _code(assumed):
            return _contradicted(other, _show(assumed), actual)
    return provenance.suggested([n.key for n in shown.evidence], confirmed, shown.given)


def _contradicted(other: str, assumed: str, actual) -> str:
    """The hand tag of a value suggested only with ``other`` ``assumed``, now that ``other`` is ``actual``."""
    return f"hand-tagged (masrl suggest --apply; suggested only with {other} {assumed}, and {other} is {_show(actual)})"


def _code(value):
    """A value as suggestions hold it: a code, or a tuple of codes for a set."""
    return tuple(value) if isinstance(value, list) else value


def plan_apply(corpus, old: bytes, report: RecordSuggestions, assignments: list[tuple[str, object]],
               confirmed: bool = True) -> ApplyPlan:
    """The record ``report.file`` (read as ``old``) with ``assignments`` applied.

    Raises:
        UserError: when the file would not survive a rewrite byte for byte apart from the
            edit (hand formatting or comments), or when the new record has problems that
            ``masrl validate`` reports (other than fields still untagged), each with its line.
    """
    tax = Taxonomy(corpus.taxonomy)
    rel = report.file
    before = corpus.retained[rel]
    if dump_record(before) != old:
        raise UserError(f"{rel}: hand formatting or comments would be lost by rewriting this file; "
                        "apply the values by hand (the suggestions above say which)")
    rec = dict(before)
    how = dict(rec.get("tag_provenance") or {})
    changes = []
    for name, value in assignments:
        rec[name] = value
    for name, value in assignments:  # once every value is in: a suggestion's assumptions are checked against them
        how[name] = _provenance(report, name, value, confirmed, rec)
        changes.append(f"{name}: {_show(before.get(name))} -> {_show(value)} ({how[name]})")
    assigned = {name for name, _ in assignments}
    for name, text in list(how.items()):  # a suggestion confirmed earlier, whose assumption a value applied now contradicts
        if name in assigned or provenance.state(text) != provenance.CONFIRMED:
            continue
        for other, assumed in provenance.assumed(text).items():
            if other in assigned and assumed != _show(rec.get(other)):
                how[name] = _contradicted(other, assumed, rec.get(other))
                changes.append(f"{name}: {_show(rec.get(name))}, now {how[name]}")
                break
    # a draft no person confirmed is no tag: it goes with the condition it was drafted under
    drafts = set(provenance.unconfirmed_fields(before)) - {name for name, _ in assignments}
    for f in structure.fields(tax):
        fits = structure.applies(f, tax, rec)
        if fits is True and f.required_when and f.name not in rec:
            rec[f.name] = [UNTAGGED] if f.multi else UNTAGGED
            changes.append(f"{f.name}: added as {UNTAGGED} (it applies now)")
        elif fits is False and f.name in rec and (is_untagged(rec[f.name]) or f.name in drafts):
            held = "" if is_untagged(rec[f.name]) else f"; it held the unconfirmed draft {_show(rec[f.name])}"
            del rec[f.name]
            how.pop(f.name, None)
            changes.append(f"{f.name}: removed (it no longer applies{held})")
    rec["tag_provenance"] = how
    problems = []
    for name, _ in assignments:
        conditions = [r for r in structure.rules(tax) if r.field == name and r.kind == "required_when"
                      and rec.get(r.other) not in r.values]
        for rule in conditions:
            problems.append(Problem(COMMAND_LINE, None, "--apply", f"{rule.describe()}; {rule.other} is "
                                    f"{_show(rec.get(rule.other))}: give --apply {rule.other}={rule.values[0]} with it"))
    if problems:
        raise UserError(summary(problems, "nothing was written."), problems)
    new = dump_record(ordered(rec, retained_order(tax)))
    problems = _new_problems(corpus, rel, new)
    if problems:
        raise UserError(summary(problems, "nothing was written."), problems)
    return ApplyPlan(rel, old, new, changes)


def plan_draft(corpus, old: bytes, report: RecordSuggestions) -> ApplyPlan:
    """The record with the best suggestion of every suggested field written as a draft
    (``not confirmed``), for fields that are untagged or hold an unconfirmed suggestion.

    Raises:
        UserError: as :func:`plan_apply`, or when no field has a suggestion.
    """
    best = report.best()
    if not best:
        raise UserError(f"{report.file}: no field has a suggestion to write as a draft")
    assignments = [(name, list(s.value) if isinstance(s.value, tuple) else s.value) for name, s in best.items()]
    return plan_apply(corpus, old, report, assignments, confirmed=False)


def _show(value) -> str:
    return "(absent)" if value is None else provenance.shown(value)


def _new_problems(corpus, rel: str, new: bytes) -> list[Problem]:
    """Problems ``masrl validate`` finds in ``rel`` once it holds ``new`` and did not find
    before, apart from fields that are still untagged."""
    doc, parse_problems = yamlio.parse(new, rel)
    if doc is None or parse_problems:  # dump_record writes YAML that reads back; this is a safeguard
        return parse_problems or [Problem(rel, None, None, "the new record could not be read back")]
    old = {(p.field, p.message) for p in validate(corpus) if p.file == rel}
    together = dataclasses.replace(corpus, retained={**corpus.retained, rel: doc.value}, docs={**corpus.docs, rel: doc},
                                   problems=[p for p in corpus.problems if p.file != rel])
    return [p for p in validate(together) if p.file == rel and not p.message.startswith("untagged:")
            and (p.field, p.message) not in old]
