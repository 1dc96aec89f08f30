"""The retained stub a new paper starts as: bibliographic fields filled, every controlled field ``untagged``.

Written by ``masrl add`` and by ``masrl audit apply`` (an exclusion overturned
by adjudication), so both paths write the same fields. ``masrl validate``
rejects a stub until someone tags it.
"""

from __future__ import annotations

from urllib.parse import quote

from ..bib.identifiers import SCHEME_ORDER
from .records import UNTAGGED, ordered, retained_order
from .taxonomy import Taxonomy
from ..core import clock


def landing(ids: dict, tax: Taxonomy) -> str:
    """The landing page of a paper: its first URL, or the resolver page of its first identifier (the schemes masrl
    knows first, then those the survey declares, in the order it declares them)."""
    for scheme in [*SCHEME_ORDER, *(s for s in tax.identifier_schemes if s not in SCHEME_ORDER)]:
        if scheme in ids:
            value = ids[scheme]
            if isinstance(value, list):
                return value[0]
            resolver = tax.identifier_schemes.get(scheme, {}).get("resolver")
            if resolver:  # the id percent-encoded where a URL's path cannot hold it (a DOI may hold < > " or %)
                return resolver.format(id=quote(str(value), safe="/:@!$&'()*+,;=-._~"))
    return ""


def retained_stub(paper: dict, tax: Taxonomy, key: str, forced: str | None = None) -> dict:
    """One retained record, fields in file order, from ``paper`` (title, authors in "Last, First"
    form, year, venue, identifiers, bibtex_key, bibtex, source, optional abstract, which goes into
    the taxonomy's abstract field, :attr:`~masrl.corpus.taxonomy.Taxonomy.abstract_field`): every
    controlled field of ``tax`` that applies to all records is ``untagged``, ``date_added`` is
    today, and ``forced`` (the reason a duplicate was added anyway) is kept when given."""
    rec: dict = {
        "key": key, "title": paper["title"], "authors": paper["authors"],
        "first_author": paper["authors"][0] if paper["authors"] else UNTAGGED, "affiliation": "unknown",
        "year": paper["year"], "venue": paper["venue"], "url": landing(paper["identifiers"], tax),
        "identifiers": paper["identifiers"],
    }
    if paper.get("abstract"):
        rec[tax.abstract_field] = paper["abstract"]
    for field in tax.of("retained"):
        if field.always:
            rec[field.name] = [UNTAGGED] if field.multi else UNTAGGED
    rec.update(one_liner=UNTAGGED, notes="", date_added=clock.today_iso(), tag_provenance={})
    if forced:
        rec["forced"] = forced
    rec["bibtex_key"] = paper["bibtex_key"] or key
    rec["bibtex"] = paper["bibtex"]
    rec["provenance"] = {"source": paper["source"], "added": clock.today_iso()}
    return ordered(rec, retained_order(tax))
