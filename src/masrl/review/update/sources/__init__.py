"""The sources an update round searches, one module each; the only network code of the update rounds.

* :mod:`.arxiv`: the arXiv API through the ``arxiv`` package (Atom with OpenSearch paging);
* :mod:`.crossref`: the Crossref REST API ``/works`` (JSON with cursors), for conference and
  journal papers with a DOI that are not on arXiv. Crossref rather than OpenAlex: Crossref's
  API is public without a key (its "polite pool" only asks for a ``mailto``), pages whole result
  sets with cursors and registers the DOIs of the ACL Anthology, ACM, IEEE and Springer
  proceedings; OpenAlex has required an API key since February 2026 and answers cursor paging
  without one with HTTP 401, so a user without an account could not run a round.

Every source sends its requests through one :class:`.pacing.PacedSession` (one connection,
requests spaced by the source's delay with an injectable clock) and turns each record into a
:class:`Found`. Its endpoint comes from the protocol's searcher, which the environment can
redirect (``MASRL_ARXIV_API``, ``MASRL_CROSSREF_API``).
"""

from __future__ import annotations

from .base import Found, QueryRun, SourceError, one_line

__all__ = ["Found", "QueryRun", "SourceError", "one_line", "source_for"]


def source_for(name: str, searcher, **settings):
    """The source object of ``name`` (``arxiv`` or ``crossref``) for the protocol's ``searcher``;
    ``settings`` are its keyword arguments (delay, page size, clock, sleep, ...)."""
    if name == "arxiv":
        from .arxiv import ArxivSource

        return ArxivSource(searcher, **settings)
    if name == "crossref":
        from .crossref import CrossrefSource

        return CrossrefSource(searcher, **settings)
    raise KeyError(name)
