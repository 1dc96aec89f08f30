"""What kind of venue a record's ``venue`` names: preprint, conference, journal or other.

The kind decides the exported BibTeX entry type (conference -> ``@inproceedings``
with ``booktitle``; journal -> ``@article`` with ``journal``; preprint ->
``@misc`` with ``eprint``/``archivePrefix``/``primaryClass``; other -> ``@misc``
with ``howpublished``) and lets ``masrl validate`` see a ``bibtex`` block that
says another kind than the record (a venue edited, the block left stale).

Source of the series lists: the venues of the survey's records and of the
machine-learning/NLP venues their BibTeX names (conference and workshop series
by acronym; journals by name). A venue the lists do not know is ``None``
(unknown): it is exported by its block's own fields and never flagged.
"""

from __future__ import annotations

import re

PREPRINT, CONFERENCE, JOURNAL, OTHER = "preprint", "conference", "journal", "other"

_PREPRINT = re.compile(r"^(arxiv|corr|openreview|preprint|arxiv preprint)\b|\bsubmission\b|\bsubmitted\b", re.IGNORECASE)
_CONFERENCE = re.compile(
    r"\b(ICLR|NeurIPS|NIPS|ICML|ACL|EMNLP|NAACL|EACL|AACL|COLING|COLM|AAAI|IJCAI|AAMAS|CVPR|ICCV|ECCV|KDD|WWW|SIGIR|"
    r"CIKM|WSDM|UAI|AISTATS|CoRL|ICRA|IROS|RSS|CoNLL|LREC|SIGDIAL|INTERSPEECH|ICASSP|USENIX|CCS|AISec|S&P|NDSS|"
    r"FSE|ICSE|ASE|ISSTA|MLSys|SOSP|OSDI|CHI|UIST|ICAPS|ECAI|PRICAI|ACML|ALT|COLT|ICDM|SDM)\b"
    r"|\b(conference|proceedings|workshop|symposium|findings of)\b", re.IGNORECASE)
_JOURNAL = re.compile(
    r"\b(TMLR|JMLR|TACL|TPAMI|Nature|Science|PNAS|JAIR|Artificial Intelligence|Machine Learning|"
    r"Transactions|Journal|Letters|Review|Mathematics of Operations Research|Advances in Complex Systems)\b",
    re.IGNORECASE)
_OTHER = re.compile(r"\b(blog|documentation|docs|tech(nical)? report|report|web ?page|website|thesis|book)\b", re.IGNORECASE)

#: Display venue of an entry type that names no venue (``masrl add`` of a bare ``@misc``).
TYPE_LABELS = {"techreport": "Tech Report", "report": "Tech Report", "phdthesis": "PhD thesis",
               "mastersthesis": "Master's thesis", "thesis": "Thesis", "book": "Book", "online": "Web page",
               "manual": "Documentation", "software": "Software", "dataset": "Dataset", "unpublished": "unpublished",
               "misc": "unpublished"}


#: What a stub's venue says when nothing was known (``masrl add`` of a paper without one, a bare
#: ``@misc``): the record does not say the paper is unpublished, so no export says it either.
UNKNOWN = "unpublished"


def stated(venue: str) -> bool:
    """Whether ``venue`` says where the paper appeared: not empty and not :data:`UNKNOWN`."""
    return bool(venue.strip()) and venue.strip().lower() != UNKNOWN


def venue_kind(venue: str) -> str | None:
    """``preprint``, ``conference``, ``journal``, ``other`` or None (unknown) for a display venue.

    Order matters: "arXiv (ICLR 2026 submitted)" is a preprint, "Findings of ACL
    2024" a conference, "ICML 2025 MAS Workshop" a conference (workshops are
    published as ``@inproceedings``).
    """
    text = venue.strip()
    if not text:
        return None
    if _PREPRINT.search(text):
        return PREPRINT
    if _OTHER.search(text):
        return OTHER
    if _CONFERENCE.search(text):
        return CONFERENCE
    if _JOURNAL.search(text):
        return JOURNAL
    return None


def block_kind(block: dict) -> str | None:
    """The kind a record's ``bibtex`` block says: ``booktitle`` -> conference; an arXiv
    ``journal`` line or an arXiv ``eprint`` without journal -> preprint; another ``journal``
    -> journal; ``howpublished`` only -> other; else None."""
    journal = str(block.get("journal", ""))
    if block.get("booktitle"):
        return CONFERENCE
    if journal:
        return PREPRINT if re.match(r"^\s*(arxiv|corr)\b", journal, re.IGNORECASE) else JOURNAL
    if str(block.get("archiveprefix", "")).lower() == "arxiv" and block.get("eprint"):
        return PREPRINT
    how = str(block.get("howpublished", ""))
    if re.match(r"^\s*(arxiv|corr)\b", how, re.IGNORECASE):
        return PREPRINT
    if how:
        return venue_kind(how) if "http" not in how and "\\url" not in how and venue_kind(how) else OTHER
    return None
