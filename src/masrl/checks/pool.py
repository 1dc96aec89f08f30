"""Validation rules about the pool of papers: one paper, one record; a record agrees with its BibTeX.

Used by :func:`masrl.checks.validate.validate` (and so by ``add``, ``exclude`` and
``build``), over retained AND excluded records:

* every canonical id (:mod:`masrl.bib.identifiers`) is used by one record only;
* no two records have near-identical titles (:mod:`masrl.bib.matching`);
* a retained record's ``title``, ``year`` and venue kind agree with its
  ``bibtex`` block, unless ``bibtex_differs`` says why they differ.

A record added with ``forced: REASON`` (``masrl add --force``) is a
deliberate second record of a paper and exempt from the first two rules.
"""

from __future__ import annotations

from ..bib.consistency import bibtex_disagreements
from ..bib.identifiers import record_identifiers
from ..bib.matching import known_records, similar_title_pairs
from ..core.errors import Problem
from ..corpus.load import EXCLUSIONS, PAPERS


def _record(corpus, file: str) -> dict:
    return corpus.retained.get(file) or corpus.excluded.get(file) or {}


def identifier_problems(corpus) -> list[Problem]:
    """A canonical id used by two records (the later file, in sorted order, is named)."""
    problems = []
    owners: dict[str, str] = {}
    for file in sorted(corpus.retained) + sorted(corpus.excluded):
        rec = _record(corpus, file)
        ids = rec.get("identifiers")
        reported: set[str] = set()
        for ident in record_identifiers(ids if isinstance(ids, dict) else {}):
            for key in ident.keys():
                other = owners.get(key)
                if other is None:
                    owners[key] = file
                    continue
                if other == file or other in reported:
                    continue
                if rec.get("forced") or _record(corpus, other).get("forced"):
                    continue  # added with --force and a reason: a deliberate second record of one paper
                reported.add(other)
                if other.startswith(PAPERS) and file.startswith(EXCLUSIONS):
                    msg = f"identifier {key} is also retained as {other} — a paper cannot be both"
                else:
                    msg = f"identifier {key} is also used by {other} — one paper, one record"
                problems.append(Problem(file, corpus.line(file, ("identifiers", ident.scheme)), f"identifiers.{ident.scheme}", msg))
    return problems


def title_problems(corpus) -> list[Problem]:
    """Two records whose titles are near-identical (the later file is named)."""
    problems = []
    for first, second, similarity in similar_title_pairs(known_records(corpus)):
        if first.forced or second.forced:
            continue
        field = "title" if second.where.startswith(PAPERS) else "screening_label"
        problems.append(Problem(
            second.where, corpus.line(second.where, (field,)), field,
            f"title {int(similarity * 100)}% similar to that of {first.where} ('{first.title}') — one paper, one record "
            f"(distinct papers: keep both with forced: REASON in the retained record)"))
    return problems


def bibtex_problems(corpus) -> list[Problem]:
    """Retained records whose title, year or venue disagrees with their ``bibtex`` block and
    whose ``bibtex_differs`` does not explain it; and explanations of agreements."""
    problems = []
    for file, rec in sorted(corpus.retained.items()):
        differs = rec.get("bibtex_differs") if isinstance(rec.get("bibtex_differs"), dict) else {}
        found = {f: (mine, theirs) for f, mine, theirs in bibtex_disagreements(rec)}
        for name, (mine, theirs) in found.items():
            if name in differs:
                continue
            where = "bibtex.booktitle/journal" if name == "venue" else f"bibtex.{name}"
            problems.append(Problem(
                file, corpus.line(file, (name,)), name,
                f"{mine!r} disagrees with {where} {theirs!r}: update one of them, or say why they differ in bibtex_differs.{name}"))
        for name in differs:
            if name not in found:
                problems.append(Problem(file, corpus.line(file, ("bibtex_differs", name)), f"bibtex_differs.{name}",
                                        f"the record and its bibtex block agree on {name}; remove this explanation"))
    return problems
