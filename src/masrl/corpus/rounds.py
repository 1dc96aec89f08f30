"""The files of the search protocol and of update rounds, as the loader reads them (pure functions).

An update round is a folder ``corpus/rounds/<round id>/`` written by ``masrl update search``:

* ``round.yaml``: the window, every query exactly as sent per source, when it ran, and the
  counts per source and query family (read as a YAML mapping like every record);
* ``queue.csv``: one row per new candidate, columns :data:`QUEUE_COLUMNS` (the screener fills
  in :data:`SCREENER_COLUMNS`);
* ``duplicates.csv``: one row per record found that was already retained, excluded, queued in
  an earlier round, or found twice in the round, columns :data:`DUPLICATE_COLUMNS`.

The protocol itself is ``corpus/protocol.yaml``. This module holds the paths, the column names
(shared by the writer in :mod:`masrl.review.update`, the checks and the analyses) and the CSV
reader; :mod:`masrl.corpus.load` reads the bytes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from dataclasses import dataclass, field

from ..bib.identifiers import SCHEME_ORDER
from ..core.cells import read_cell, sheet_cell
from ..core.errors import Problem
from .sheets import SheetRow, read_sheet

#: The search protocol as data.
PROTOCOL = "corpus/protocol.yaml"
#: Folder of the update rounds, one sub-folder per round.
ROUNDS = "corpus/rounds/"
#: The sources ``masrl update search`` can query (the modules of :mod:`masrl.review.update.sources`).
SEARCHERS = ("arxiv", "crossref", "openreview", "semanticscholar", "citations")
#: The files of one round folder, in the order they are read.
ROUND_FILES = ("round.yaml", "queue.csv", "duplicates.csv")

#: Columns of ``queue.csv``, in order: the candidate, where it was found, its rank, then the
#: columns the screener fills in (:data:`SCREENER_COLUMNS`). ``identifier`` is ``scheme:value``
#: (``arxiv:2605.08686``, ``doi:10.18653/v1/...``), or several ``; ``-separated when the sources
#: gave the candidate more than one (its preprint and its DOI; the first names it), ``authors`` ``Last, First; Last, First``,
#: ``published`` ``YYYY-MM-DD``, ``arxiv_category`` the primary arXiv category of a paper found on
#: arXiv (``cs.CL``, kept in its record's BibTeX as ``primaryclass``, as ``masrl add`` keeps it),
#: ``query_families`` and ``sources`` ``; ``-separated, ``rank``
#: 1 = first to screen, ``score`` and ``likely_reason`` (an exclusion-reason class) left empty
#: until a model fills them. A round searched before masrl wrote ``arxiv_category`` has every other
#: column (:data:`QUEUE_COLUMNS_WITHOUT_CATEGORY`) and stays valid.
#: The screener's columns of a decision's screening stage and exclusion-reason class: masrl's
#: columns, whatever the survey calls the fields of those roles (taxonomy ``screening``).
STAGE_COLUMN, REASON_COLUMN = "stage", "reason_class"
QUEUE_COLUMNS = ("identifier", "title", "authors", "year", "venue", "abstract", "published", "arxiv_category",
                 "query_families", "sources", "rank", "score", "likely_reason", "decision", STAGE_COLUMN, REASON_COLUMN,
                 "reason")
QUEUE_COLUMNS_WITHOUT_CATEGORY = tuple(c for c in QUEUE_COLUMNS if c != "arxiv_category")
#: The screener's columns of ``queue.csv``.
SCREENER_COLUMNS = ("decision", STAGE_COLUMN, REASON_COLUMN, "reason")
#: The screening role (taxonomy ``screening``) whose field each column of an exclusion fills.
ROLE_COLUMNS = {"stages": STAGE_COLUMN, "reasons": REASON_COLUMN, "found_in": "sources", "found_by": "query_families"}
#: Allowed values of the ``decision`` column (empty: not decided yet).
DECISIONS = ("include", "exclude")
#: Columns of ``duplicates.csv``: the record found (its identifiers, ``; ``-separated, the one it is named
#: by first, and its title as the source gave them, the source and query family that found it), what it matched (``status``: retained,
#: excluded, queued (an earlier round) or this round; ``matched``: the record file or
#: ``queue.csv`` line) and the rule that matched (``same arxiv 2605.08686``, ``title 96% similar``).
FAMILY_COLUMN = "query_family"
DUPLICATE_COLUMNS = ("identifier", "title", "source", FAMILY_COLUMN, "status", "matched", "rule")
#: Separator of the list cells (``authors``, ``query_families``, ``sources``).
LIST_SEPARATOR = "; "



#: One data row of a round's CSV file (its 1-based line and its cells by column name).
Row = SheetRow


@dataclass
class RoundFolder:
    """The files of one round folder as read.

    Attributes:
        round_id: the folder name.
        meta: the mapping of ``round.yaml`` (None when missing or unreadable).
        queue, duplicates: the data rows of ``queue.csv`` and ``duplicates.csv``.
        headers: file name -> its header row as read.
        missing: the files of :data:`ROUND_FILES` the folder lacks.
        misshapen: file name -> how many of its rows were not taken (their number of cells).
    """

    round_id: str
    meta: dict | None = None
    queue: list[Row] = field(default_factory=list)
    duplicates: list[Row] = field(default_factory=list)
    headers: dict[str, list[str]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    #: file name -> rows not taken (more or fewer cells than the header; each reported by the loader)
    misshapen: dict[str, int] = field(default_factory=dict)

    def path(self, name: str) -> str:
        """``corpus/rounds/<id>/<name>``."""
        return f"{ROUNDS}{self.round_id}/{name}"


def round_file(rel: str) -> tuple[str, str] | None:
    """``(round id, file name)`` when ``rel`` is one of :data:`ROUND_FILES` of a round folder, else None."""
    if not rel.startswith(ROUNDS):
        return None
    parts = rel[len(ROUNDS):].split("/")
    if len(parts) != 2 or parts[1] not in ROUND_FILES or not parts[0] or parts[0].startswith("."):
        return None
    return parts[0], parts[1]


def csv_bytes(columns: tuple[str, ...], rows: list[dict]) -> bytes:
    """UTF-8 CSV (``\\n`` line ends, quoted where needed) with a header row of ``columns`` and one
    line per row mapping (missing cells empty; a cell's text without the blanks around it, which the
    reader takes off, so that the guard of :func:`~masrl.core.cells.sheet_cell` is its first character)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([sheet_cell("" if row.get(c) is None else str(row.get(c)).strip()) for c in columns])
    return out.getvalue().encode("utf-8")


#: The sheets whose records ``round.yaml``'s ``found_sha256`` guards (:func:`found_digest`).
FOUND_SHEETS = ("queue.csv", "duplicates.csv")


#: The cells of a row that say which record it is, as the source gave it: a record's file is made of them.
FOUND_CELLS = ("identifier", "title", "authors", "year")


def found_digest(rows: list) -> str:
    """SHA-256 (hex) of the records a round's sheet holds: the :data:`FOUND_CELLS` of every row, rows sorted (so
    that neither their order nor a spreadsheet's rewrite of the other cells counts, and a record lost, swapped
    for another, invented or given another title, authors or year does)."""
    cells = sorted("\t".join(row.get(c) for c in FOUND_CELLS) for row in rows)
    return hashlib.sha256("\n".join(cells).encode("utf-8")).hexdigest()


def read_csv(data: bytes, rel: str) -> tuple[list[str], list[Row], list[Problem]]:
    """``(header, rows, problems)`` of a round's CSV file as a spreadsheet may save it
    (:func:`masrl.corpus.sheets.read_sheet`); the ``'`` that :func:`csv_bytes` writes before a formula
    character or a ``'`` is taken off every cell (:func:`masrl.core.cells.read_cell`)."""
    return read_sheet(data, rel, cell=read_cell)


def split_list(cell: str) -> list[str]:
    """The items of a ``; ``-separated cell, stripped, empty items left out."""
    return [part.strip() for part in cell.split(";") if part.strip()]


def split_identifiers(cell: str) -> list[str]:
    """The ids of a queue row's ``identifier`` cell: separated by ``;`` and a space (a ``;`` that ends the cell
    separates nothing). An id holds no space, but it may hold a ``;`` (the DOI
    ``10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O``); :func:`joined_ids` finds two ids
    written without the space."""
    return [part.strip() for part in re.split(r";(?:\s+|$)", cell.strip()) if part.strip()]


#: Two ids written as one (``doi:10.5555/x;arxiv:2606.04321``, or with a fullwidth semicolon): a ``;`` followed
#: by a scheme masrl reads and its colon.
_JOINED = re.compile(rf"[;\uff1b]\s*(?:{'|'.join(SCHEME_ORDER)}):", re.IGNORECASE)


def joined_ids(item: str) -> bool:
    """Whether one item of an ``identifier`` cell is two ids written without ``; `` between them."""
    return _JOINED.search(item) is not None
