"""Where each update round stands: identified, duplicates, queued, and which candidates are records now.

A queue row is *applied* when a retained or excluded record holds its identifier (the same
canonical id: :func:`masrl.bib.identifiers.keys_of`), whichever way the record came in;
otherwise it is *awaiting*: undecided (no ``decision``) or decided but not applied yet. A release
freezes the rounds it covers (every round no earlier release covered, listed in its snapshot's
``identification``); a round belongs to the update after the latest release when no release
covers it (:class:`Boundary`): so a round searched after a release on the day of its search cutoff
is counted in the next update, never nowhere. A release whose snapshot lists no rounds (one made
when there were none, or by an older masrl) covers the rounds whose window ended on or before its
cutoff and that finished before its date. A record that a round finds
again after an earlier round of the same update found it (its queue or its duplicates hold the
same canonical id) is *found again*: the update's identification counts it once, so searching
again changes no count of the flow. A queue row whose paper an earlier round queued too (two
branches' rounds merged: each searched before the other's queue existed) is *queued again*
(:func:`queued_again`, by the rule ``masrl update search`` removes duplicates with): it is counted
as the duplicate that search would have written, found again when the earlier round is of the same
update, so a paper is queued, applied and awaited once. Pure functions on the loaded
round folders (:class:`masrl.corpus.rounds.RoundFolder`) and record mappings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..bib.identifiers import IdentifierError, as_mapping, keys_of, parse
from ..bib.matching import Pool, make_known
from ..core.text import ascii_digits
from ..corpus.rounds import ROUNDS, split_identifiers, split_list


@dataclass(frozen=True)
class RoundState:
    """One round.

    Attributes:
        round_id, since, until: the round and its window.
        identified: records found per source label (``counts.by_source`` of ``round.yaml``).
        duplicates: records removed as duplicates; queued: candidates in ``queue.csv``.
        applied: queue line -> the record file that holds its paper (:class:`Holders`).
        undecided: ``(line, identifier)`` of the rows without a decision.
        unapplied: ``(line, identifier, decision)`` of the rows decided but not yet records.
        linked: canonical ids of every queued candidate.
        again: source label -> duplicates of this round found by an earlier round of the update
            (see the module docstring); ``found_again`` is their sum.
        other_methods: the source labels identified "via other methods" in PRISMA 2020's sense
            (citation searching: ``method: other`` in ``round.yaml``), not databases.
        requeued: the :class:`Requeued` rows of this round (counted as duplicates, not as queued).
    """

    round_id: str
    since: str
    until: str
    identified: dict
    duplicates: int
    queued: int
    applied: dict = field(default_factory=dict)
    undecided: tuple = ()
    unapplied: tuple = ()
    linked: frozenset = frozenset()
    again: dict = field(default_factory=dict)
    other_methods: frozenset = frozenset()
    requeued: tuple = ()

    @property
    def found_again(self) -> int:
        """Duplicates of this round that an earlier round of the update had found already."""
        return sum(self.again.values())

    @property
    def awaiting(self) -> int:
        """Candidates that are not records yet."""
        return len(self.undecided) + len(self.unapplied)


def row_identifiers(cell: str) -> list:
    """The ids (:class:`~masrl.bib.identifiers.Identifier`) of a queue row's ``identifier`` cell, in order: one
    ``scheme:value``, or several ``; ``-separated (every id the sources gave the candidate, the first the one
    it is named by); an item that is not an id is left out (validate names it)."""
    out = []
    for item in split_identifiers(cell):
        scheme, _, value = item.partition(":")
        try:
            if scheme and value:
                out.append(parse(value, scheme))
        except (IdentifierError, KeyError, ValueError):
            continue
    return out


def row_keys(cell: str) -> list[str]:
    """The canonical ids of :func:`row_identifiers`, each once, in order."""
    return list(dict.fromkeys(ident.key for ident in row_identifiers(cell)))


def row_name(cell: str) -> str:
    """The id a queue row is named by: the first item of its ``identifier`` cell, as written."""
    return next(iter(split_identifiers(cell)), cell)


def row_key(cell: str) -> str | None:
    """The canonical id a queue row is named by (the first of :func:`row_keys`; None when there is none)."""
    keys = row_keys(cell)
    return keys[0] if keys else None


def held_by(cell: str, holders: dict[str, str]) -> str | None:
    """The record file (of :func:`record_files`) that holds one of the ids of a queue row's ``identifier`` cell."""
    return next((holders[key] for key in row_keys(cell) if key in holders), None)


@dataclass(frozen=True)
class Requeued:
    """A queue row whose paper an earlier round queued too (see the module docstring).

    Attributes:
        round_id, line, name: the row (its round, its line in ``queue.csv``, the id it is named by).
        source: the source label that found it first (the first of its ``sources``).
        earlier_round, earlier_line: the row of the earlier round that queued the paper.
        rule: why they are one paper (``same arxiv 2605.08686``, ``title 96% similar``).
    """

    round_id: str
    line: int
    name: str
    source: str
    earlier_round: str
    earlier_line: int
    rule: str

    @property
    def earlier(self) -> str:
        """``corpus/rounds/<round>/queue.csv:<line>`` of the earlier row."""
        return f"{ROUNDS}{self.earlier_round}/queue.csv:{self.earlier_line}"


def in_run_order(rounds: dict) -> list:
    """The round folders in the order they ran (``started``, then id, its numbers by value: ``-2`` before ``-10``)."""
    def key(folder):
        numbered = [int(p) if ascii_digits(p) else p for p in re.split(r"([0-9]+)", folder.round_id)]
        return str((folder.meta or {}).get("started", "")), numbered
    return sorted(rounds.values(), key=key)


def queued_again(rounds: dict) -> dict[tuple[str, int], Requeued]:
    """``(round id, line) -> Requeued`` of every queue row whose paper an earlier round (in run order)
    queued: the same canonical id, or a title at least 90% similar that no id proves distinct
    (:class:`masrl.bib.matching.Pool`, the rule of ``masrl update search``)."""
    pool = Pool()
    out: dict[tuple[str, int], Requeued] = {}
    for folder in in_run_order(rounds):
        mine = []
        for row in folder.queue:
            cell, title = row.get("identifier"), row.get("title")
            ids = as_mapping(row_identifiers(cell))
            authors = split_list(row.get("authors"))
            match = next(iter(pool.matches(title, ids, authors)), None)
            if match is not None:
                earlier_round, _, line = match.other.where.partition(":")
                rule = f"same {match.key.replace(':', ' ', 1)}" if match.key else f"title {int(match.similarity * 100)}% similar"
                out[folder.round_id, row.line] = Requeued(folder.round_id, row.line, row_name(cell),
                                                          next(iter(split_list(row.get("sources"))), ""),
                                                          earlier_round, int(line), rule)
            mine.append(make_known(f"{folder.round_id}:{row.line}", "queued", title, ids, authors=authors))
        for known in mine:  # a round's own rows are told apart by its search (validate names a row copied)
            pool.add(known)
    return out


class Holders:
    """The records a queue row's paper can be: by a shared canonical id (:func:`record_files`), else by the
    duplicate rule of ``masrl add`` and ``masrl update search`` (a title at least 90% similar that no id
    proves distinct, :class:`masrl.bib.matching.Pool`): a paper added by hand under another id (its DOI,
    where the row has its preprint) is that record's, so the row is applied, not a second record to make."""

    def __init__(self, retained: dict[str, dict], excluded: dict[str, dict]):
        self.by_id = record_files(retained, excluded)
        self._retained, self._excluded = retained, excluded
        self._pool: Pool | None = None

    def of(self, row) -> str | None:
        """The record file that holds the paper of ``row`` (a queue row), or None."""
        cell = row.get("identifier")
        if held := held_by(cell, self.by_id):
            return held
        if self._pool is None:  # built once, when a row is not held by an id
            self._pool = Pool([make_known(file, "record", title if isinstance(title := rec.get(field), str) else "",
                                          rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {},
                                          authors=rec.get("authors"))
                               for records, field in ((self._retained, "title"), (self._excluded, "screening_label"))
                               for file, rec in sorted(records.items())])
        match = next(iter(self._pool.matches(row.get("title"), as_mapping(row_identifiers(cell)),
                                             split_list(row.get("authors")))), None)
        return match.other.where if match is not None else None


def record_files(retained: dict[str, dict], excluded: dict[str, dict]) -> dict[str, str]:
    """canonical id -> record file, over the retained and the excluded records (``{file: record}``)."""
    out: dict[str, str] = {}
    for records in (retained, excluded):
        for file, rec in sorted(records.items()):
            ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
            for key in keys_of(ids):
                out.setdefault(key, file)
    return out


@dataclass(frozen=True)
class Boundary:
    """The latest release, as the rounds after it are told apart (see the module docstring).

    Attributes:
        cutoff, date: its search cutoff and its date (``YYYY-MM-DD``).
        covered: the ids of every round some release froze (``identification.rounds`` of each snapshot).
        listed: whether the latest release's snapshot lists the rounds it covers.
    """

    cutoff: str
    date: str
    covered: frozenset = frozenset()
    listed: bool = False

    def counts(self, folder) -> bool:
        """Whether the round ``folder`` belongs to the update after this release."""
        if folder.round_id in self.covered:
            return False
        if self.listed:
            return True
        meta = folder.meta or {}
        until = str((meta.get("window") or {}).get("until", ""))
        finished = str(meta.get("finished", ""))[:10]
        return until > self.cutoff or finished >= self.date


def boundary(releases: list) -> Boundary | None:
    """The :class:`Boundary` of the latest of ``releases`` (populations in release order, each with
    ``release`` and ``identification``), or None without one."""
    if not releases or releases[-1].release is None:
        return None
    latest = releases[-1]
    covered = frozenset(r for p in releases for r in ((p.identification or {}).get("rounds") or []))
    return Boundary(latest.release.search_cutoff, latest.release.date, covered, latest.identification is not None)


def round_states(rounds: dict, retained: dict[str, dict], excluded: dict[str, dict],
                 after: Boundary | None = None) -> list[RoundState]:
    """The state of every round that belongs to the update after the release ``after`` (None: every
    round), in the order the rounds ran."""
    holders = Holders(retained, excluded)
    again_rows = queued_again(rounds)
    out = []
    seen: set[str] = set()  # canonical ids found by the rounds so far
    counted: set[str] = set()  # the rounds of the update so far
    for folder in in_run_order(rounds):
        meta = folder.meta or {}
        window = meta.get("window") or {}
        until = str(window.get("until", ""))
        if after is not None and not after.counts(folder):
            continue
        applied, undecided, unapplied, linked, requeued = {}, [], [], set(), []
        again: dict[str, int] = {}
        for row in folder.queue:
            linked.update(row_keys(row.get("identifier")))
            if hit := again_rows.get((folder.round_id, row.line)):
                requeued.append(hit)
                if hit.earlier_round in counted:
                    again[hit.source] = again.get(hit.source, 0) + 1
            elif held := holders.of(row):
                applied[row.line] = held
            elif row.get("decision"):
                unapplied.append((row.line, row_name(row.get("identifier")), row.get("decision")))
            else:
                undecided.append((row.line, row_name(row.get("identifier"))))
        found_here = set(linked)
        for row in folder.duplicates:
            key = row_key(row.get("identifier"))
            if key and key in seen:
                again[row.get("source")] = again.get(row.get("source"), 0) + 1
            if key:
                found_here.add(key)
        seen |= found_here
        counted.add(folder.round_id)
        counts = meta.get("counts") or {}
        identified = {label: int((tally or {}).get("identified", 0)) for label, tally in (counts.get("by_source") or {}).items()}
        other = frozenset(str(s.get("label")) for s in (meta.get("sources") or [])
                          if isinstance(s, dict) and s.get("method") == "other")
        out.append(RoundState(folder.round_id, str(window.get("since", "")), until, identified,
                              int(counts.get("duplicates", 0)) + len(requeued), len(folder.queue) - len(requeued),
                              applied, tuple(undecided), tuple(unapplied), frozenset(linked), again, other,
                              tuple(requeued)))
    return out


def identification(states: list[RoundState], empty: bool = False) -> dict | None:
    """The identification counts of the PRISMA flow for updated reviews, summed over ``states``:
    ``{"rounds": [ids], "identified_by_source": {label: n}, "duplicates_removed": n,
    "found_again": n, "queued": n, "applied": n, "awaiting": n}`` and, when a round searched by
    other methods (citation searching), ``"identified_by_other_method": {label: n}`` (those labels
    are then not in ``identified_by_source``, the databases); None without rounds (every count 0
    with ``empty``). A record found again by a later round (:attr:`RoundState.again`) is neither
    identified nor removed again."""
    if not states and not empty:
        return None
    by_source: dict[str, int] = {}
    by_other: dict[str, int] = {}
    for state in states:
        for label, n in state.identified.items():
            into = by_other if label in state.other_methods else by_source
            into[label] = into.get(label, 0) + n - state.again.get(label, 0)
    out = {"rounds": [s.round_id for s in states], "identified_by_source": by_source,
            "duplicates_removed": sum(s.duplicates - s.found_again for s in states),
            "found_again": sum(s.found_again for s in states), "queued": sum(s.queued for s in states),
            "applied": sum(len(s.applied) for s in states), "awaiting": sum(s.awaiting for s in states)}
    if by_other:
        out["identified_by_other_method"] = by_other
    return out
