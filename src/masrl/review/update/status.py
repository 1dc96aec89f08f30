"""What is left to do in the update rounds: the ranked queue of one round (``masrl update show``)
and the candidates still undecided since the last release (``masrl release``)."""

from __future__ import annotations

from ...analyses.rounds import RoundState, boundary, round_states
from ...core.didyoumean import hint_or_list
from ...core.errors import UserError
from ...core.text import printable
from ...corpus.population import releases


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _cell(row, column: str) -> str:
    """A cell as the terminal prints it (:func:`masrl.core.text.printable`: nothing a cell holds can
    clear the screen or reorder the line, also in a sheet that does not validate)."""
    return printable(row.get(column))


def round_table(corpus, round_id: str) -> str:
    """The queue of round ``round_id`` as plain text: one line per candidate in rank order (rank,
    identifier, date, decision or its record, title), then one line of counts.

    Raises:
        UserError: when there is no such round.
    """
    folder = corpus.rounds.get(round_id)
    if folder is None:
        raise UserError(f"no round {round_id!r} under corpus/rounds/"
                        f"{hint_or_list(round_id, sorted(corpus.rounds), 'rounds', '; start one with masrl update search')}")
    state = round_states({round_id: folder}, corpus.retained, corpus.excluded)[0]
    rows = sorted(folder.queue, key=lambda r: (int(r.get("rank")) if r.get("rank").isdigit() else 10**9, r.line))
    width = max([len(_cell(r, "identifier")) for r in rows] + [10])
    lines = [f"{'rank':>4}  {'identifier':<{width}}  {'published':<10}  {'decision':<20}  title"]
    for row in rows:
        status = state.applied.get(row.line)
        decision = f"{_cell(row, 'decision')} (applied)" if status else (_cell(row, "decision") or "-")
        lines.append(f"{_cell(row, 'rank'):>4}  {_cell(row, 'identifier'):<{width}}  {_cell(row, 'published'):<10}  "
                     f"{decision:<20}  {_cut(_cell(row, 'title'), 80)}")
    lines.append(f"round {round_id} ({state.since} .. {state.until}): {state.queued} candidates; {len(state.undecided)} "
                 f"still to decide, {len(state.unapplied)} decided but not applied (`masrl update apply {round_id}`), "
                 f"{len(state.applied)} applied; {state.duplicates} duplicates in duplicates.csv")
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
