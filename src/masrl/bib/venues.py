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

_SUBMITTED = re.compile(r"\bsubmission\b|\bsubmitted\b", re.IGNORECASE)
_PREPRINT = re.compile(r"^(arxiv|corr|openreview|preprint|arxiv preprint)\b|" + _SUBMITTED.pattern, re.IGNORECASE)
#: Series named by their acronym or name (a strong sign of the kind) ...
_CONFERENCE_SERIES = re.compile(
    r"\b(ICLR|NeurIPS|NIPS|ICML|ACL|EMNLP|NAACL|EACL|AACL|COLING|COLM|AAAI|IJCAI|AAMAS|CVPR|ICCV|ECCV|KDD|WWW|SIGIR|"
    r"CIKM|WSDM|UAI|AISTATS|CoRL|ICRA|IROS|RSS|CoNLL|LREC|SIGDIAL|INTERSPEECH|ICASSP|USENIX|CCS|AISec|S&P|NDSS|"
    r"FSE|ICSE|ASE|ISSTA|MLSys|SOSP|OSDI|CHI|UIST|ICAPS|ECAI|PRICAI|ACML|ALT|COLT|ICDM|SDM|ECML|PKDD|BMVC|WACV|"
    r"ACCV|ICONIP|ICANN|GECCO|PPSN)\b", re.IGNORECASE)
_JOURNAL_SERIES = re.compile(
    r"\b(TMLR|JMLR|TACL|TPAMI|PNAS|JAIR|Mathematics of Operations Research|Advances in Complex Systems)\b"
    r"|^(Nature|Science)\b(?!-)"  # "Nature Machine Intelligence", not "Nature-Inspired Computing" or "... Computer Science"
    # journals whose names hold a conference's words ("Proceedings of the IEEE", "Transactions of the ACL")
    r"|\bProceedings of the (National Academy of Sciences|IEEE|VLDB Endowment|ACM on)\b|\bPACM|\bTransactions (of|on)\b",
    re.IGNORECASE)
#: ... and words many venues hold (a weak one: "Machine Learning and Knowledge Discovery in Databases" is
#: a conference's proceedings, "Artificial Intelligence in Medicine" both a journal and a conference).
_CONFERENCE_WORDS = re.compile(r"\b(conference|proceedings|workshop|symposium|findings of)\b", re.IGNORECASE)
_JOURNAL_WORDS = re.compile(r"\b(Artificial Intelligence|Machine Learning|Transactions|Journal|Letters|Review)\b",
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


#: The venues that say only what kind of work a record is (:data:`TYPE_LABELS`: "PhD thesis", "Book"), not where it
#: appeared, :data:`UNKNOWN` among them.
_KIND_ONLY = frozenset(label.lower() for label in TYPE_LABELS.values())


def stated(venue: str) -> bool:
    """Whether ``venue`` says where the paper appeared: not empty, not :data:`UNKNOWN` and not the label of an entry
    type that named no venue (a ``@phdthesis`` without its school is "PhD thesis": no export writes it as the
    school)."""
    return bool(venue.strip()) and venue.strip().lower() not in _KIND_ONLY


def shown(venue: str) -> str:
    """``venue`` as a reader's page shows it: nothing for an empty one or :data:`UNKNOWN` (the record does not say
    the paper is unpublished)."""
    text = str(venue or "").strip()
    return "" if text.lower() == UNKNOWN else text


def submitted(venue: str) -> bool:
    """Whether ``venue`` says the paper is a submission (``Submitted to NeurIPS 2025``, ``ACL ARR 2026 January
    Submission``): a preprint that names where it is under review, not who published it."""
    return _SUBMITTED.search(venue) is not None


def venue_kind(venue: str) -> str | None:
    """``preprint``, ``conference``, ``journal``, ``other`` or None (unknown) for a display venue.

    Order matters: "arXiv (ICLR 2026 submitted)" is a preprint, "Findings of ACL
    2024" a conference, "ICML 2025 MAS Workshop" a conference (workshops are
    published as ``@inproceedings``), "Transactions of the ACL" a journal.
    """
    return venue_evidence(venue)[0]


def venue_evidence(venue: str) -> tuple[str | None, bool]:
    """``(kind, named)``: :func:`venue_kind`'s kind, and whether a series' own name says it (``ICLR``,
    ``TMLR``, ``Proceedings of the IEEE``) rather than words many venues hold ("Proceedings",
    "Review"), which cannot overrule what an entry's own type says."""
    text = venue.strip()
    if not text:
        return None, False
    for pattern, kind in ((_PREPRINT, PREPRINT), (_OTHER, OTHER), (_JOURNAL_SERIES, JOURNAL),
                          (_CONFERENCE_SERIES, CONFERENCE)):
        if pattern.search(text):
            return kind, True
    for pattern, kind in ((_CONFERENCE_WORDS, CONFERENCE), (_JOURNAL_WORDS, JOURNAL)):
        if pattern.search(text):
            return kind, False
    return None, False


def block_kind(block: dict) -> str | None:
    """The kind a record's ``bibtex`` block says, by its entry type where that names one
    (``@inproceedings`` -> conference; ``@article`` -> journal, or preprint for an arXiv or CoRR
    ``journal`` line or none beside an arXiv ``eprint``; a book, chapter, thesis or report ->
    other), else by its fields: ``booktitle`` -> conference; an arXiv ``journal`` line -> preprint;
    another ``journal`` -> journal; ``howpublished`` naming a venue -> its kind; an arXiv
    ``eprint`` -> preprint; another ``howpublished`` -> other; else None."""
    etype = str(block.get("type", "")).lower()
    journal = str(block.get("journal", ""))
    arxiv_line = re.match(r"^\s*(arxiv|corr)\b", journal, re.IGNORECASE) is not None
    eprint = str(block.get("archiveprefix", "")).lower() == "arxiv" and bool(block.get("eprint"))
    if etype in ("inproceedings", "conference"):  # booktitle = {arXiv}: a preprint in the wrong entry type
        return PREPRINT if venue_kind(str(block.get("booktitle", ""))) == PREPRINT else CONFERENCE
    if etype == "article":  # journal = {OpenReview} or {Submitted to ...}: a preprint in the wrong entry type
        return PREPRINT if arxiv_line or (not journal and eprint) or venue_kind(journal) == PREPRINT else JOURNAL
    if etype in _OTHER_TYPES:  # institution = {arXiv}: a preprint in the wrong entry type
        named = [str(block.get(f, "")) for f in ("institution", "school", "publisher", "organization")]
        return PREPRINT if any(venue_kind(n) == PREPRINT for n in named if n) else OTHER
    if block.get("booktitle"):
        return CONFERENCE
    if journal:
        return PREPRINT if arxiv_line else JOURNAL
    how = str(block.get("howpublished", ""))
    if re.match(r"^\s*(arxiv|corr)\b", how, re.IGNORECASE):
        return PREPRINT
    said = venue_kind(how) if how and "http" not in how and "\\url" not in how else None
    if said:
        return said
    if eprint:
        return PREPRINT
    return OTHER if how else None


#: Entry types of a book, a part of one, a thesis, a report or a manual: a venue of kind other.
_OTHER_TYPES = frozenset({"book", "inbook", "incollection", "proceedings", "phdthesis", "mastersthesis", "thesis",
                          "techreport", "report", "manual", "booklet", "collection", "mvbook", "bookinbook",
                          "suppbook", "suppcollection", "periodical"})
