"""What is left to do in the update rounds: the ranked queue of one round with when to stop
screening it (``masrl update show``), and the candidates still undecided since the last release
(``masrl release``)."""

from __future__ import annotations

from ...analyses.rounds import Holders, RoundState, boundary, round_states, row_name
from ...core.didyoumean import hint_or_list
from ...core.errors import UserError
from ...core.text import ascii_digits, printable
from ...corpus.population import releases
from ...corpus.rounds import DECISIONS, STAGE_COLUMN
from ...corpus.taxonomy import Taxonomy
from . import stopping


def _cell(row, column: str) -> str:
    """A cell as the terminal prints it (:func:`masrl.core.text.printable`: nothing a cell holds can
    clear the screen or reorder the line, also in a sheet that does not validate)."""
    return printable(row.get(column))


def _name(row) -> str:
    """The id a candidate is named by (the first of its ``identifier`` cell), as the terminal prints it."""
    return printable(row_name(row.get("identifier")))


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _rank(row) -> tuple:
    return (int(row.get("rank")) if ascii_digits(row.get("rank")) else 10**9, row.line)


def screened(corpus, folder, leave=frozenset()) -> list[tuple[int, bool | None]]:
    """``(queue line, relevant)`` of every candidate of ``folder``'s queue in rank order but the rows on the
    lines of ``leave`` (those queued by an earlier round: that round's test counts them); relevant is
    None for a candidate not screened yet, True for one that passed the first screening stage
    (decided ``include``, a retained record, or excluded at a later stage than the first of the
    field of the taxonomy's ``screening.stages``), False for one excluded at the first stage (any
    exclusion, for a survey without stages)."""
    tax = Taxonomy(corpus.taxonomy)
    stages = tax.role("stages")
    first = tax.values(stages)[0] if stages and tax.values(stages) else None
    holders = Holders(corpus.retained, corpus.excluded)
    out = []
    for row in sorted(folder.queue, key=_rank):
        if row.line in leave:
            continue
        held = holders.of(row)
        if held in corpus.retained:
            relevant: bool | None = True
        elif held in corpus.excluded:
            stage = corpus.excluded[held].get(stages) if stages else None
            relevant = first is not None and stage not in (None, first)
        elif row.get("decision") == "include":
            relevant = True
        elif row.get("decision") == "exclude":
            relevant = first is not None and row.get(STAGE_COLUMN) not in ("", first)
        else:
            relevant = None
        out.append((row.line, relevant))
    return out


def stopping_lines(corpus, folder, recall: float = stopping.RECALL, confidence: float = stopping.CONFIDENCE,
                   leave=frozenset()) -> list[str]:
    """When to stop screening the queue of ``folder`` (but its rows on the lines of ``leave``, queued by an
    earlier round): the candidates screened and relevant so far, the estimate of the relevant ones
    unscreened, and the test's statement (:mod:`.stopping`), with the method and its assumptions."""
    tax = Taxonomy(corpus.taxonomy)
    stages = tax.role("stages")
    first = tax.label(stages, tax.values(stages)[0]) if stages and tax.values(stages) else None
    states = screened(corpus, folder, leave)
    labels = [relevant for _, relevant in states if relevant is not None]
    last = max((k for k, (_, relevant) in enumerate(states) if relevant is not None), default=-1)
    skipped = sum(1 for _, relevant in states[: last + 1] if relevant is None)
    a = stopping.assess(labels, len(states), recall, confidence)
    passed = f"passed the {first}: included, or excluded at a later stage" if first else "included"
    lines = ["", f"when to stop screening ({stopping.METHOD}):",
             f"  screened {a.read} of {a.total} candidates, {a.relevant} relevant ({passed})"
             + (f"; {len(leave)} row(s) queued by an earlier round are left to that round's test" if leave else "")]
    if skipped:
        lines.append(f"  {skipped} candidate(s) ranked above the last one screened are not screened yet: the test counts the "
                     "screened ones as read in rank order; screen in rank order")
    unread = a.total - a.read
    if not a.total:
        lines.append("  no candidate of its own: nothing to screen")
    elif not a.read:
        lines.append("  nothing screened yet: screen in rank order (rank 1 first); the test needs decisions")
    elif not unread:
        lines.append("  every candidate is screened: recall of this queue is 100%")
    else:
        guaranteed = f" (recall at least {a.recall_at_least:.0%})" if a.recall_at_least is not None else ""
        lines.append(f"  relevant candidates still unscreened: about {a.estimate:.1f} at the rate of the last {a.window} screened "
                     f"({a.window_relevant} relevant); at most {a.bound} with {confidence:.0%} confidence{guaranteed}")
        verdict = "you may stop screening" if a.stop else "keep screening"
        lines.append(f"  recall target {recall:.0%} at {confidence:.0%} confidence: p = {a.p:.3f} for \"recall is still below "
                     f"{recall:.0%}\"; {verdict} (stopping needs p < {1 - confidence:.2f})")
    lines.append("  assumes: candidates screened in rank order and judged right; the last ones screened no likelier to be "
                 "relevant than a random draw from them and the unscreened (a ranking that works makes the test "
                 "conservative); recall is of this queue, not of what the searches missed")
    return lines


def round_table(corpus, round_id: str, recall: float = stopping.RECALL, confidence: float = stopping.CONFIDENCE) -> str:
    """The queue of round ``round_id`` as plain text: one line per candidate in rank order (rank,
    identifier, date, decision or its record, title), when to stop screening it
    (:func:`stopping_lines`), then one line of counts.

    Raises:
        UserError: when there is no such round.
    """
    folder = corpus.rounds.get(round_id)
    if folder is None:
        raise UserError(f"no round {round_id!r} under corpus/rounds/"
                        f"{hint_or_list(round_id, sorted(corpus.rounds), 'rounds', '; start one with masrl update search')}")
    state = next(s for s in round_states(corpus.rounds, corpus.retained, corpus.excluded) if s.round_id == round_id)
    requeued = {hit.line: hit for hit in state.requeued}
    rows = sorted(folder.queue, key=_rank)
    width = max([len(_name(r)) for r in rows] + [10])
    decisions = []
    for row in rows:
        held = state.applied.get(row.line)  # the record file the row's paper is now
        kind = "include" if held in corpus.retained else "exclude"
        decision = (_cell(row, "decision") or "-") if not held else f"{_cell(row, 'decision')} (applied)" \
            if row.get("decision") == kind else f"{_cell(row, 'decision') or '-'} (now {'retained' if kind == 'include' else 'excluded'})"
        if hit := requeued.get(row.line):
            decision = f"queued by {hit.earlier_round}"
        decisions.append(decision)
    wide = max([len(d) for d in decisions] + [20])  # the column as wide as its longest decision
    lines = [f"{'rank':>4}  {'identifier':<{width}}  {'published':<10}  {'decision':<{wide}}  title"]
    for row, decision in zip(rows, decisions):
        lines.append(f"{_cell(row, 'rank'):>4}  {_name(row):<{width}}  {_cell(row, 'published'):<10}  "
                     f"{decision:<{wide}}  {_cut(_cell(row, 'title'), 80)}")
    lines += stopping_lines(corpus, folder, recall, confidence, frozenset(requeued))
    decided = [row for row in state.unapplied if row[2] in DECISIONS]
    unknown = len(state.unapplied) - len(decided)
    other = (f", {unknown} with a decision that is neither {' nor '.join(DECISIONS)} (`masrl validate` names them)"
             if unknown else "")
    again = len(state.requeued)
    queued = (f"{len(rows)} row{'' if len(rows) == 1 else 's'} in queue.csv: {state.queued} of its own, {again} queued by an earlier round "
              "too (counted once, as duplicates: the earlier round's row decides)" if again else f"{state.queued} candidates")
    lines.append(f"round {round_id} ({state.since} .. {state.until}): {queued}; {len(state.undecided)} "
                 f"still to decide, {len(decided)} decided but not applied (`masrl update apply {round_id}`){other}, "
                 f"{len(state.applied)} applied; {len(folder.duplicates)} duplicates in duplicates.csv")
    return "\n".join(lines)


def since_last_release(corpus) -> list[RoundState]:
    """The rounds of the update after the last release: those no release covers
    (:class:`masrl.analyses.rounds.Boundary`; every round without a release)."""
    return round_states(corpus.rounds, corpus.retained, corpus.excluded, boundary(releases(corpus)))


def undecided_candidates(corpus) -> list[str]:
    """``<round> <identifier> (queue.csv:<line>)`` of every candidate of the rounds since the last
    release that is not a record yet (undecided, or decided but not applied)."""
    out = []
    for state in since_last_release(corpus):
        for line, ident, *_ in sorted([*state.undecided, *state.unapplied]):
            out.append(f"{state.round_id} {ident} (queue.csv:{line})")
    return out
