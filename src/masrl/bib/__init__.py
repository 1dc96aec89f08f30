"""Bibliographic identity and formats: identifiers (arXiv, DOI, OpenReview, ACL) and URLs,
venues, BibTeX/BibLaTeX in (:mod:`.bibimport`) and out (:mod:`.bibexport`), CSL-JSON,
duplicate matching, a record's agreement with its BibTeX block, metadata lookup.

Input: BibTeX text, identifier strings, record mappings. Output: entries, identifiers,
matches, BibTeX and CSL-JSON bytes. Only :mod:`.fetch` touches the network (for :mod:`.lookup`
and the sources of update rounds); :mod:`.arxiv_feed`, :mod:`.crossref_json`,
:mod:`.openreview_json` and :mod:`.s2_json` read the sources' answers strictly (:mod:`.answers`).
May import: :mod:`masrl.core`.
"""
