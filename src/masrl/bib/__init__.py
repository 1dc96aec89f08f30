"""Bibliographic identity and formats: identifiers (arXiv, DOI, OpenReview, ACL) and URLs,
venues, BibTeX/BibLaTeX in (:mod:`.bibimport`) and out (:mod:`.bibexport`), CSL-JSON,
duplicate matching, a record's agreement with its BibTeX block, metadata lookup.

Input: BibTeX text, identifier strings, record mappings. Output: entries, identifiers,
matches, BibTeX and CSL-JSON bytes. Only :mod:`.lookup` touches the network.
May import: :mod:`masrl.core`.
"""
