"""The keys a new record may not take: a record key names a file, a BibTeX entry and, once released, a paper."""

from __future__ import annotations

from pathlib import Path

from .load import Corpus
from .releases import frozen_names


def taken_keys(corpus: Corpus) -> set[str]:
    """Every key a new record may not take: retained keys and file stems, the BibTeX keys records keep
    as aliases, the former keys of records moved to the exclusion log, and every key a release froze (a released key names its
    paper for good, even once its record is gone)."""
    frozen, _ = frozen_names(corpus.snapshots)
    return {r.get("key") for r in corpus.retained.values()} | {Path(f).stem for f in corpus.retained} | {
        str((r.get("former_key") or "")) for r in corpus.excluded.values()} | frozen | set(key_aliases(corpus))


def key_aliases(corpus: Corpus) -> dict[str, str]:
    """The BibTeX keys records keep as aliases (``bibtex_key``: papers.bib names the record by both, in any case), in
    lower case, by the file that keeps each."""
    return {rec["bibtex_key"].lower(): file for file, rec in sorted(corpus.retained.items())
            if isinstance(rec.get("bibtex_key"), str)}
