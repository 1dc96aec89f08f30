"""The sources an update round searches, one module each; the only network code of the update rounds.

* :mod:`.arxiv`: the arXiv API (Atom with OpenSearch paging);
* :mod:`.crossref`: the Crossref REST API ``/works`` (JSON with cursors), for conference and
  journal papers with a DOI that are not on arXiv. Crossref rather than OpenAlex: Crossref's
  API is public without a key (its "polite pool" only asks for a ``mailto``), pages whole result
  sets with cursors and registers the DOIs of the ACL Anthology, ACM, IEEE and Springer
  proceedings; OpenAlex has required an API key since February 2026 and answers cursor paging
  without one with HTTP 401, so a user without an account could not run a round;
* :mod:`.openreview`: the OpenReview API v2 ``/notes`` of the protocol's venues (ICLR, NeurIPS, COLM);
* :mod:`.semanticscholar`: the Semantic Scholar Academic Graph API, keyword search by query family;
* :mod:`.citations`: citation searching through the same API: the references of the retained
  records (backward) and the papers citing them (forward).

Every source sends its requests through one :class:`.pacing.PacedSession` (one connection,
requests spaced by the source's delay within and across runs, ``Retry-After`` respected, each
request bounded by :func:`masrl.bib.fetch.fetch`), checks every answer against the source's
documented format (:mod:`masrl.bib.arxiv_feed`, :mod:`masrl.bib.crossref_json`, ...) and turns
each record into a :class:`Found`. Its endpoint comes from the protocol's searcher, which the
environment can redirect (``MASRL_ARXIV_API``, ``MASRL_CROSSREF_API``, ``MASRL_OPENREVIEW_API``,
``MASRL_S2_API``).
"""

from __future__ import annotations

from .base import Found, QueryRun, SourceError, one_line

__all__ = ["Found", "QueryRun", "SourceError", "one_line", "source_for", "SOURCES"]

#: Source name -> (module, class) under this package.
SOURCES = {"arxiv": (".arxiv", "ArxivSource"), "crossref": (".crossref", "CrossrefSource"),
           "openreview": (".openreview", "OpenReviewSource"), "semanticscholar": (".semanticscholar", "SemanticScholarSource"),
           "citations": (".citations", "CitationSource")}


def source_for(name: str, searcher, **settings):
    """The source object of ``name`` (a key of :data:`SOURCES`) for the protocol's ``searcher``;
    ``settings`` are its keyword arguments (delay, page size, clock, sleep, pace, ...)."""
    import importlib

    module, cls = SOURCES[name]
    return getattr(importlib.import_module(module, __name__), cls)(searcher, **settings)
