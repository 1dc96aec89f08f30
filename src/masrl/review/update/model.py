"""A round's files: what ``masrl update search`` writes, and the queue as ``show`` and ``apply`` read it.

``round.yaml`` (see :data:`masrl.checks.protocol.ROUND_SCHEMA`): the round id, the window, when
it started and finished, the digest of the protocol it ran, per source its endpoint, settings
and every query exactly as sent (family, query, time, requests, pages, the source's total,
records returned and kept), and the counts (identified = duplicates + queued, in all, per
source label and per family). ``queue.csv`` and ``duplicates.csv``: the columns of
:mod:`masrl.corpus.rounds`, written with :func:`masrl.corpus.rounds.csv_bytes`.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from ...corpus.rounds import (
    DUPLICATE_COLUMNS,
    FAMILY_COLUMN,
    QUEUE_COLUMNS,
    ROUNDS,
    SCREENER_COLUMNS,
    csv_bytes,
    found_digest,
    read_csv,
)
from ...bib.bibtex import is_corporate, wrapped
from ...corpus.yamlio import dump_record
from .dedupe import Candidate, Duplicate, list_cell

HEADER = """\
# Update round {round}: the search of the protocol's query families (corpus/protocol.yaml)
# over {since} .. {until}, as `masrl update search` ran it. Review it like any record; do not
# edit the counts. Screen the candidates in queue.csv ({screener}),
# then `masrl update apply {round}`.
"""


def next_round_id(corpus, today: str) -> str:
    """``today`` (``YYYY-MM-DD``), or ``today-2``, ``-3``, ... when a round of that id exists."""
    taken = set(corpus.rounds)
    if today not in taken:
        return today
    n = 2
    while f"{today}-{n}" in taken:
        n += 1
    return f"{today}-{n}"


def queued_author(name: str) -> str:
    """A record author as ``queue.csv`` shows it: a name of several words without a comma (an organisation a
    source named, ``Google DeepMind``: one name, never split) in braces, ``{Google DeepMind}``, so that
    ``update apply`` keeps it whole, as it keeps ``{Kimi Team}`` written in a sheet; any other name as it is."""
    return f"{{{name}}}" if is_corporate(name) and " " in name and not wrapped(name) else name


def queue_rows(candidates: list[Candidate], ranks: list[tuple[int, str, str]]) -> list[dict]:
    """The rows of ``queue.csv``, one per candidate, in rank order (the screener's cells empty)."""
    rows = []
    for candidate, (rank, score, likely) in zip(candidates, ranks):
        f = candidate.found
        rows.append({"identifier": list_cell(candidate.identifiers), "title": f.title,
                     "authors": list_cell([queued_author(a) for a in f.authors]), "year": f.year,
                     "venue": f.venue, "abstract": f.abstract, "published": f.published,
                     "arxiv_category": candidate.arxiv_category,
                     "query_families": list_cell(candidate.families), "sources": list_cell(candidate.sources),
                     "rank": rank, "score": score, "likely_reason": likely})
    return sorted(rows, key=lambda r: r["rank"])


def duplicate_rows(duplicates: list[Duplicate], lines: dict[int, int]) -> list[dict]:
    """The rows of ``duplicates.csv``; ``lines`` maps ``id(candidate)`` to its line in ``queue.csv``."""
    rows = []
    for d in duplicates:
        matched = f"queue.csv:{lines[id(d.matched)]}" if isinstance(d.matched, Candidate) else d.matched
        ids = Candidate(d.found)
        ids.take_identifiers(d.found, {})  # every id the source gave it (one paper with another through any of them)
        rows.append({"identifier": list_cell(ids.identifiers), "title": d.found.title, "source": d.source, FAMILY_COLUMN: d.family,
                     "status": d.status, "matched": matched, "rule": d.rule})
    return rows


@dataclass(frozen=True)
class SourceRuns:
    """One searched source and its query runs, for ``round.yaml``."""

    name: str
    label: str
    endpoint: str
    settings: dict
    runs: tuple
    method: str = "database"


def round_files(round_id: str, window: tuple[str, str], started: str, finished: str, protocol_sha256: str,
                sources: list[SourceRuns], candidates: list[Candidate], duplicates: list[Duplicate],
                ranks: list[tuple[int, str, str]], by_source: dict, by_family: dict) -> dict[str, bytes]:
    """``{corpus/rounds/<id>/round.yaml|queue.csv|duplicates.csv: bytes}`` of one round."""
    queue = queue_rows(candidates, ranks)
    order = sorted(range(len(candidates)), key=lambda i: ranks[i][0])
    lines = {id(candidates[i]): position + 2 for position, i in enumerate(order)}  # line 1 is the header
    meta = {
        "format_version": 1, "round": round_id, "window": {"since": window[0], "until": window[1]},
        "started": started, "finished": finished, "protocol_sha256": protocol_sha256,
        "sources": [{"name": s.name, "label": s.label, "endpoint": s.endpoint, **({"method": s.method} if s.method != "database" else {}),
                     "settings": dict(s.settings),
                     "queries": [r.as_dict() for r in s.runs]} for s in sources],
        "counts": {"identified": len(candidates) + len(duplicates), "duplicates": len(duplicates), "queued": len(candidates),
                   "by_source": {k: v.as_dict() for k, v in by_source.items()},
                   "by_family": {k: v.as_dict() for k, v in by_family.items()}},
    }
    base = f"{ROUNDS}{round_id}/"
    header = HEADER.format(round=round_id, since=window[0], until=window[1], screener=", ".join(SCREENER_COLUMNS))
    sheets = {"queue.csv": csv_bytes(QUEUE_COLUMNS, queue),
              "duplicates.csv": csv_bytes(DUPLICATE_COLUMNS, duplicate_rows(duplicates, lines))}
    # the records found, as the checks will read them back: a row lost, swapped or invented later is named
    meta["found_sha256"] = {name: found_digest(read_csv(data, base + name)[1]) for name, data in sheets.items()}
    return {f"{base}round.yaml": header.encode() + b"\n" + dump_record(meta), **{base + n: d for n, d in sheets.items()}}


def utc_stamp(moment: datetime.datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` of an aware datetime."""
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
