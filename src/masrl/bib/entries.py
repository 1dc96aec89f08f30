"""The ``bibtex`` block of a record known only by its metadata (``masrl add`` without a BibTeX
entry, an update round's included candidate, an exclusion overturned by an audit)."""

from __future__ import annotations

from . import bibtex, venues


def bibtex_block(title: str, year: int, venue: str, extra: dict) -> dict:
    """The ``bibtex`` block of a paper known only by its metadata: the entry type from the
    venue's kind (``inproceedings``, ``article``, else ``misc``), the title LaTeX-encoded, the
    venue where that type keeps it (``booktitle``, ``journal``, else ``howpublished`` for a venue
    that is neither arXiv nor ``unpublished``), the year, and ``primaryclass`` when the metadata
    has one."""
    kind = venues.venue_kind(venue)
    etype = {venues.CONFERENCE: "inproceedings", venues.JOURNAL: "article"}.get(kind, "misc")
    block = {"type": etype, "title": bibtex.encode_latex(title)}
    where = {"inproceedings": "booktitle", "article": "journal"}.get(etype)
    if where:
        block[where] = bibtex.encode_latex(venue)
    elif venue and kind is None and venue.lower() != "unpublished":
        block["howpublished"] = bibtex.encode_latex(venue)
    block["year"] = str(year)
    if extra.get("primaryclass"):
        block["primaryclass"] = extra["primaryclass"]
    return block
