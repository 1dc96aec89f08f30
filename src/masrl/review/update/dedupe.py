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
from ...bib.identifiers import keys_of
from ...bib.matching import Known, Pool, distinct_by_id, known_records, make_known, name_words, normalize_title
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
                             norm=normalize_title(row.get("title")), names=name_words(split_list(row.get("authors")))))
    return out


def _rule(match) -> str:
    if match.key:
        scheme, _, value = match.key.partition(":")
        return f"same {scheme} {value}"
    return f"title {int(match.similarity * 100)}% similar"


def deduplicate(corpus, runs: list[tuple[str, object]], notes: list[str] | None = None
                ) -> tuple[list[Candidate], list[Duplicate], dict, dict]:
    """Split the records of ``runs`` (``[(source label, QueryRun)]``, in the order they ran) into
    candidates and duplicates.

    The round's records are first put together by paper (:func:`_papers`: a shared id or the title
    rule, whatever the order the sources ran in), so that a paper is known by every id any source gave
    it: one that a record of it shares with a retained, excluded or earlier queued record makes every
    record of it a duplicate of that record (an S2 record naming a known preprint's arXiv id and a DOI
    makes a Crossref record of that DOI one too); else its first record is queued, with the ids of all.

    An id a record shares with a known record whose arXiv id is another than the record's own (a DOI that
    Semantic Scholar gives a new preprint and a retained paper alike) names two papers: it is left out of
    that record, and ``notes`` says so (:func:`_without_conflicts`).

    Returns:
        ``(candidates, duplicates, by_source, by_family)``: candidates in the order first found;
        duplicates in the order found; :class:`Tally` per source label and per family name.
    """
    known = Pool([*known_records(corpus), *queued_records(corpus)])
    records = _without_conflicts(known, [(label, run.family, found) for label, run in runs for found in run.found],
                                 notes if notes is not None else [])
    papers, links = _papers(records)
    taken: dict[str, Candidate] = {}
    candidates: list[Candidate] = []
    outcome: dict[int, tuple[str, object, str]] = {}  # record -> (status, matched, rule)
    papers = list(papers)
    for members in papers:  # (grows: the records of a paper that a known record's arXiv id tells apart)
        direct = {i: min(matches, key=lambda m: _PRIORITY.get(m.other.status, 9))
                  for i in members if (matches := known.matches(records[i][2].title, records[i][2].identifiers,
                                                                records[i][2].authors))}
        if direct:
            best = min(direct.values(), key=lambda m: _PRIORITY.get(m.other.status, 9))
            apart = [i for i in members if distinct_by_id(keys_of(records[i][2].identifiers), best.other.keys)]
            if apart and len(apart) < len(members):  # another arXiv id than the known record's: another paper
                papers.append(apart)
                members = [i for i in members if i not in apart]
            for i in members:
                mine = direct.get(i)
                if mine is not None and mine.other.where == best.other.where:
                    rule = _rule(mine)
                else:  # one paper with a record of this round that matched it
                    other, match = _link(links, i)
                    rule = f"{_rule(match)} as {records[other][2].identifier}"
                outcome[i] = (best.other.status, best.other.where, rule)
            continue
        label, family, found = records[members[0]]
        candidate = Candidate(found, [], [])
        candidates.append(candidate)
        for i in members:
            label, family, found = records[i]
            candidate.take_identifiers(found, taken)
            if family not in candidate.families:
                candidate.families.append(family)
            if label not in candidate.sources:
                candidate.sources.append(label)
            if i != members[0]:
                outcome[i] = ("this round", candidate, _rule(_link(links, i)[1]))
    duplicates: list[Duplicate] = []
    by_source: dict[str, Tally] = {label: Tally() for label, _ in runs}
    by_family: dict[str, Tally] = {run.family: Tally() for _, run in runs}
    for i, (label, family, found) in enumerate(records):
        tallies = (by_source[label], by_family[family])
        for tally in tallies:
            tally.identified += 1
        if i in outcome:
            status, matched, rule = outcome[i]
            duplicates.append(Duplicate(found, label, family, status, matched, rule))
        for tally in tallies:
            if i in outcome:
                tally.duplicates += 1
            else:
                tally.queued += 1
    return candidates, duplicates, by_source, by_family


def _without_conflicts(known: Pool, records: list, notes: list[str]) -> list:
    """``records`` with every id left out that a record shares with a known record of another arXiv id; a
    note names each (the record keeps its other ids, and is named by one of them)."""
    import dataclasses

    out = []
    for label, family, found in records:
        mine = keys_of(found.identifiers)
        bad = {m.key: m.other for m in known.matches("", found.identifiers) if m.key and distinct_by_id(mine, m.other.keys)}
        kept = {scheme: value for scheme, value in found.identifiers.items()
                if not (set(keys_of({scheme: value})) & set(bad))}
        if bad and kept:
            first = found.identifier if _key(found.identifier) not in bad else next(
                f"{scheme}:{value}" for scheme, value in sorted(kept.items(), key=lambda kv: kv[0] != "arxiv")
                if not isinstance(value, list))
            for key, other in bad.items():
                theirs = next((k for k in sorted(other.keys) if k.startswith("arxiv:")), "")
                notes.append(f"{label}: {first} is given the {key.replace(':', ' ', 1)} of {other.where} "
                             f"({theirs.replace(':', ' ', 1)}), another paper by its arXiv id; the "
                             f"{key.split(':', 1)[0]} is left out of the round")
            found = dataclasses.replace(found, identifiers=kept, identifier=first)
        out.append((label, family, found))
    return out


def _link(links: list, i: int) -> tuple[int, object]:
    """The record ``i`` was found to be one paper with, and the match: the first earlier one it matched,
    else the first later one that matched it."""
    return next(((j, m) for a, j, m in links if a == i), None) or next((a, m) for a, j, m in links if j == i)


def _papers(records: list) -> tuple[list[list[int]], list[tuple[int, int, object]]]:
    """The round's records (``(label, family, Found)``) put together by paper: records that share a
    canonical id or match by the title rule (:class:`~masrl.bib.matching.Pool`, with their authors),
    also through a third record, unless the two papers so joined would hold two arXiv ids (arXiv gives a
    paper one: a record joining them is held to the first). Returns the papers as lists of record
    indexes, each in the order found, in the order of their first record; and every link made,
    ``(record, earlier record, match)``."""
    pool = Pool()
    parent = list(range(len(records)))
    keys: dict[int, frozenset] = {}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    links: list[tuple[int, int, object]] = []
    for i, (_, _, found) in enumerate(records):
        item = make_known(str(i), "batch", found.title, found.identifiers, authors=found.authors)
        keys[i] = item.keys
        for match in pool.matches(found.title, found.identifiers, found.authors):
            j = int(match.other.where)
            a, b = sorted((root(i), root(j)))
            if a != b and distinct_by_id(keys[a], keys[b]):
                continue
            parent[b], keys[a] = a, keys[a] | keys[b]
            links.append((i, j, match))
        pool.add(item)
    papers: dict[int, list[int]] = {}
    for i in range(len(records)):
        papers.setdefault(root(i), []).append(i)
    return list(papers.values()), links


def list_cell(items: list[str]) -> str:
    """Items as one ``; ``-separated cell."""
    return "; ".join(items)


def cell_items(cell: str) -> list[str]:
    """The items of a ``; ``-separated cell."""
    return split_list(cell)
