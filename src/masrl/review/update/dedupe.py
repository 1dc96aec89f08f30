"""Every record a round found is either a new candidate (queued once) or a duplicate (with the rule).

A record is a duplicate when it is the same paper as a retained record, an excluded record, a
candidate queued by an earlier round, or a record found earlier in this round (by another query
family or source): the same canonical identifier in any form (arXiv id with or without version,
arXiv DOI, DOI case, URL) or a title at least 90% similar (:mod:`masrl.bib.matching`, the rule of
``masrl add``). A duplicate of this round adds its family, source and ids to the candidate it matched,
so a candidate lists every family that found it, and a third record that carries only an id
of the duplicate (a DOI the preprint lacks) is found to be the same paper. Nothing is dropped: found = queued + duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...analyses.rounds import row_identifiers, row_keys
from ...bib.matching import Known, Pool, known_records, make_known, normalize_title
from ...corpus.rounds import split_list
from .sources.base import Found

#: Which match names a duplicate when a record matches several: the review first, then earlier rounds.
_PRIORITY = {"retained": 0, "excluded": 1, "queued": 2, "batch": 3}


@dataclass
class Candidate:
    """A new record of the round: what a source returned, every family and source that found it,
    every id that it and its duplicates of this round carry (``scheme:value``, the one it is named by
    first), and the primary arXiv category of the arXiv record whose id it carries (``cs.CL``), as
    ``masrl add`` records it."""

    found: Found
    families: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)
    arxiv_category: str = ""

    def take_identifiers(self, found: Found, taken: dict) -> None:
        """Add the ids of ``found`` (the candidate's own record, or a duplicate of it) that it lacks, except a second
        id of a scheme (a record holds one DOI, one arXiv id, ...; URLs are a list) and one that another candidate
        of the round carries (``taken``: canonical id -> candidate; then the record matched both, and the
        screener sees the two, each queued once)."""
        for item in [found.identifier, *(f"{scheme}:{value}" for scheme, value in found.identifiers.items())]:
            key, scheme = _key(item), item.partition(":")[0]
            mine = {_key(have): have.partition(":")[0] for have in self.identifiers}
            if key in mine or (scheme != "url" and scheme in mine.values()):
                continue  # its own already, or a second id of a scheme a record holds one of (a journal's DOI)
            if taken.setdefault(key, self) is self:
                self.identifiers.append(item)
        arxiv = found.identifiers.get("arxiv")
        if found.arxiv_category and not self.arxiv_category and arxiv and _key(f"arxiv:{arxiv}") in map(_key, self.identifiers):
            self.arxiv_category = found.arxiv_category


def _key(item: str) -> str:
    """The canonical id of ``scheme:value`` (the text itself if it is not one: every source's reader parsed it)."""
    return next(iter(row_keys(item)), item)


@dataclass
class Duplicate:
    """A record found that is already known.

    Attributes:
        found: the record as the source gave it; source, family: who found it.
        status: ``retained``, ``excluded``, ``queued`` (an earlier round) or ``this round``.
        matched: the record file or ``corpus/rounds/<round>/queue.csv:<line>``; for ``this round``
            the candidate it matched (its queue line is known once the queue is ranked).
        rule: ``same arxiv 2605.08686`` or ``title 96% similar``.
    """

    found: Found
    source: str
    family: str
    status: str
    matched: object
    rule: str


@dataclass
class Tally:
    """Records identified, duplicates and queued, for one source or family."""

    identified: int = 0
    duplicates: int = 0
    queued: int = 0

    def as_dict(self) -> dict:
        """``{"identified", "duplicates", "queued"}``."""
        return {"identified": self.identified, "duplicates": self.duplicates, "queued": self.queued}


def queued_records(corpus, exclude: str | None = None) -> list[Known]:
    """The candidates queued by the rounds of ``corpus`` (except round ``exclude``), as
    :class:`~masrl.bib.matching.Known` with status ``queued``, by round and line."""
    out = []
    for round_id, folder in sorted(corpus.rounds.items()):
        if round_id == exclude:
            continue
        for row in folder.queue:
            keys = frozenset(key for ident in row_identifiers(row.get("identifier")) for key in ident.keys())
            out.append(Known(f"{folder.path('queue.csv')}:{row.line}", "queued", row.get("title"), keys,
                             norm=normalize_title(row.get("title"))))
    return out


def _rule(match) -> str:
    if match.key:
        scheme, _, value = match.key.partition(":")
        return f"same {scheme} {value}"
    return f"title {int(match.similarity * 100)}% similar"


def deduplicate(corpus, runs: list[tuple[str, object]]) -> tuple[list[Candidate], list[Duplicate], dict, dict]:
    """Split the records of ``runs`` (``[(source label, QueryRun)]``, in the order they ran) into
    candidates and duplicates.

    Returns:
        ``(candidates, duplicates, by_source, by_family)``: candidates in the order first found;
        duplicates in the order found; :class:`Tally` per source label and per family name.
    """
    pool = Pool([*known_records(corpus), *queued_records(corpus)])
    by_where: dict[str, Candidate] = {}
    taken: dict[str, Candidate] = {}  # canonical id -> the candidate that carries it
    candidates: list[Candidate] = []
    duplicates: list[Duplicate] = []
    by_source: dict[str, Tally] = {}
    by_family: dict[str, Tally] = {}
    for label, run in runs:
        by_source.setdefault(label, Tally())
        by_family.setdefault(run.family, Tally())
        for found in run.found:
            tallies = (by_source.setdefault(label, Tally()), by_family.setdefault(run.family, Tally()))
            for tally in tallies:
                tally.identified += 1
            matches = pool.matches(found.title, found.identifiers)
            if matches:
                match = min(matches, key=lambda m: _PRIORITY.get(m.other.status, 9))
                if match.other.status == "batch":
                    candidate = by_where[match.other.where]
                    candidate.take_identifiers(found, taken)  # a later record with one of them is this paper too
                    pool.add(make_known(match.other.where, "batch", found.title, found.identifiers))
                    if run.family not in candidate.families:
                        candidate.families.append(run.family)
                    if label not in candidate.sources:
                        candidate.sources.append(label)
                    duplicates.append(Duplicate(found, label, run.family, "this round", candidate, _rule(match)))
                else:
                    duplicates.append(Duplicate(found, label, run.family, match.other.status, match.other.where, _rule(match)))
                for tally in tallies:
                    tally.duplicates += 1
                continue
            candidate = Candidate(found, [run.family], [label])
            candidate.take_identifiers(found, taken)
            where = f"candidate {len(candidates)}"
            by_where[where] = candidate
            candidates.append(candidate)
            pool.add(make_known(where, "batch", found.title, found.identifiers))
            for tally in tallies:
                tally.queued += 1
    return candidates, duplicates, by_source, by_family


def list_cell(items: list[str]) -> str:
    """Items as one ``; ``-separated cell."""
    return "; ".join(items)


def cell_items(cell: str) -> list[str]:
    """The items of a ``; ``-separated cell."""
    return split_list(cell)
