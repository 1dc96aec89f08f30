"""Where a retained record and its own ``bibtex`` block disagree (pure).

Used by the pool checks (:mod:`masrl.checks.pool`, which refuse an unexplained
disagreement) and by the audit report (:mod:`masrl.analyses.audit`, which lists them).
"""

from __future__ import annotations

from . import venues
from .bibtex import decode_latex
from .latex import latex_safe
from .matching import normalize_title, with_subtitle


def bibtex_disagreements(record: dict) -> list[tuple[str, str, str]]:
    """``(field, record value, bibtex value)`` for each of title, year and venue kind on which
    a retained record and its own ``bibtex`` block disagree.

    Titles are compared normalized (LaTeX decoded, a bare ``%`` read as a percent sign as
    :func:`masrl.bib.bibexport.export` writes it; case, braces, punctuation and spaces
    ignored); the venue by kind (:mod:`masrl.bib.venues`: preprint, conference, journal,
    other), only when both kinds are known and one is a preprint: a venue edited when the paper
    was published, its block left the preprint's (or back). Whether a venue is a conference or a
    journal is read from its words, which cannot judge the block's own entry type
    ("Proceedings of the AAAI Conference ..." as an ``@article``).
    """
    bib = record.get("bibtex") if isinstance(record.get("bibtex"), dict) else {}
    found = []
    year = bib.get("year")
    if year is not None and str(year).strip() != str(record.get("year")):
        found.append(("year", str(record.get("year")), str(year)))
    if isinstance(bib.get("title"), str) and isinstance(record.get("title"), str):
        theirs = decode_latex(latex_safe(bib["title"]))  # a bare % is a percent sign (and # & _ ^ the characters), as papers.bib writes them
        if isinstance(bib.get("subtitle"), str):  # biblatex's subtitle is the title's, as the import joined them
            theirs = with_subtitle(theirs, decode_latex(latex_safe(bib["subtitle"])))
        if normalize_title(theirs).replace(" ", "") != normalize_title(record["title"]).replace(" ", ""):
            found.append(("title", record["title"], theirs))
    mine = venues.venue_kind(str(record.get("venue", "")))
    theirs_kind = venues.block_kind(bib)
    if mine and theirs_kind and mine != theirs_kind and venues.PREPRINT in (mine, theirs_kind):
        said = next((bib[f] for f in ("booktitle", "journal", "howpublished", "institution", "school", "publisher", "eprint")
                     if bib.get(f)), f"@{bib.get('type', 'misc')}")
        found.append(("venue", f"{record.get('venue')} ({mine})", f"{said} ({theirs_kind})"))
    return found
