"""Words that name an organisation's kind (``Kimi Team``, ``Google Research``, ``Acme Labs, Inc.``).

Many organisations share them, and no person's family name is one: two organisations are not one
author by them (:mod:`masrl.bib.matching`), and a name a source writes ``First Last`` that ends in
one is an organisation's, not a person named ``Team`` (:func:`masrl.bib.bibtex.record_author`).
"""

from __future__ import annotations

#: The words, in lower case. ``AI`` counts only in capitals (:func:`generic_word`): Ai is a family name.
GENERIC_WORDS = frozenset({"team", "lab", "labs", "laboratory", "laboratories", "inc", "ltd", "llc", "corp", "corporation",
                           "company", "consortium", "collaboration", "contributors", "developers", "institute",
                           "university", "foundation", "research", "group", "project", "initiative", "committee",
                           "organisation", "organization", "centre", "center", "academy"})


def generic_word(word: str) -> bool:
    """Whether ``word`` (a final full stop ignored: ``Inc.``) names an organisation's kind."""
    word = word.removesuffix(".")
    return word.lower() in GENERIC_WORDS or word == "AI"
