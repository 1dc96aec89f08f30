"""Validation rules about the pool of papers: one paper, one record; a record agrees with its BibTeX.

Used by :func:`masrl.checks.validate.validate` (and so by ``add``, ``exclude`` and
``build``), over retained AND excluded records:

* every canonical id (:mod:`masrl.bib.identifiers`) is used by one record only;
* no two records have near-identical titles (:mod:`masrl.bib.matching`);
* a retained record's ``title``, ``year`` and venue kind agree with its
  ``bibtex`` block, unless ``bibtex_differs`` says why they differ.

A record written with ``forced: REASON`` (``masrl add --force``, ``masrl exclude --force``) is
a deliberate second record (or a distinct paper with a near-identical title) and exempt from
the first two rules. Two records whose arXiv ids differ are distinct papers whatever their
titles (:func:`masrl.bib.matching.distinct_by_id`).
"""

from __future__ import annotations

from ..bib.consistency import bibtex_disagreements
from ..bib.identifiers import record_identifiers
from ..bib.matching import distinct_by_id, known_records, similar_title_pairs
from ..core.errors import Problem
from ..core.memo import MISSING, Memo, content_key
from ..corpus.load import EXCLUSIONS, PAPERS

#: The near-identical pairs among a list of normalised titles, as positions in the list: a process
#: that validates the same pool again (``masrl add`` before and after it writes, the other side of
#: ``masrl diff``, the test suite) compares its titles once.
_TITLE_PAIRS = Memo(256)


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
                both = other.startswith(PAPERS) and file.startswith(EXCLUSIONS)
                if not both and (rec.get("forced") or _record(corpus, other).get("forced")):
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
    for first, second, similarity in _similar_pairs(known_records(corpus)):
        if first.forced or second.forced or distinct_by_id(first.keys, second.keys):
            continue
        field = "title" if second.where.startswith(PAPERS) else "screening_label"
        problems.append(Problem(
            second.where, corpus.line(second.where, (field,)), field,
            f"title {int(similarity * 100)}% similar to that of {first.where} ('{first.title}') — one paper, one record "
            f"(distinct papers: keep both with forced: REASON in either record; `masrl add --force REASON` and "
            f"`masrl exclude --force REASON` write it)"))
    return problems


def _similar_pairs(items: list) -> list[tuple]:
    """:func:`masrl.bib.matching.similar_title_pairs` of ``items``, remembered by their normalised
    titles and their authors' name words in order (all it reads)."""
    key = content_key([[item.norm, sorted(person.order() for person in item.names)] for item in items])
    pairs = _TITLE_PAIRS.get(key)
    if pairs is MISSING:
        position = {id(item): i for i, item in enumerate(items)}
        pairs = [(position[id(a)], position[id(b)], similarity) for a, b, similarity in similar_title_pairs(items)]
        _TITLE_PAIRS.put(key, pairs)
    return [(items[i], items[j], similarity) for i, j, similarity in pairs]


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


def identifiers(c) -> None:
    """Every canonical identifier is used by one record only (:func:`identifier_problems`)."""
    c.extend(identifier_problems(c.corpus))


def titles(c) -> None:
    """No two records have near-identical titles (:func:`title_problems`)."""
    c.extend(title_problems(c.corpus))


def bibtex_agreement(c) -> None:
    """A retained record agrees with its BibTeX block or says why not (:func:`bibtex_problems`)."""
    c.extend(bibtex_problems(c.corpus))


def unique_keys(c) -> None:
    """Keys and BibTeX keys are unique, also against each other and across file-name case
    (``reports/papers.bib`` is keyed by record key with ``bibtex_key`` as an alias: one key space)."""
    bib_owners: dict[str, str] = {}
    key_owners: dict[str, str] = {}
    stems: dict[str, str] = {}
    for file in sorted(c.corpus.retained) + sorted(c.corpus.excluded):
        rec = c.corpus.retained.get(file) or c.corpus.excluded.get(file) or {}
        stem = file.lower()
        if stem in stems:
            c.add(file, (), f"same name as {stems[stem]} except for case; keys must be unique")
        stems[stem] = file
        key = rec.get("key")
        if isinstance(key, str) and file.startswith(PAPERS):
            if key in key_owners:
                c.add(file, ("key",), f"key {key!r} is also the key of {key_owners[key]}; keys must be unique")
            key_owners.setdefault(key, file)
        bkey = rec.get("bibtex_key")
        if isinstance(bkey, str) and file.startswith(PAPERS):
            if bkey in bib_owners:
                c.add(file, ("bibtex_key",), f"{bkey!r} is also the bibtex_key of {bib_owners[bkey]}")
            bib_owners.setdefault(bkey, file)
    # reports/papers.bib is keyed by record key with bibtex_key as an alias: one key space, in which
    # BibTeX matches keys in any case ("case mismatch" between two entries); a record's own alias
    # may be its key in another case (Yao2023 of yao2023)
    owners: dict[str, tuple[str, str]] = {}  # lower-case name -> (name, file), record keys first
    for file, rec in sorted(c.corpus.retained.items()):
        if isinstance(rec.get("key"), str):
            owners.setdefault(rec["key"].lower(), (rec["key"], file))
    for bkey, file in sorted(bib_owners.items()):
        name, other = owners.get(bkey.lower(), (bkey, file))
        if other != file:
            what = "the key" if name == bkey else f"in another case ({name!r}) the key"
            c.add(file, ("bibtex_key",), f"{bkey!r} is {what} of {other}; papers.bib would have one key for two papers "
                                         "(BibTeX matches keys in any case)")
    for file, rec in sorted(c.corpus.excluded.items()):  # a record moved to the exclusion log is retained no more
        former = rec.get("former_key")
        if isinstance(former, str) and former in key_owners:
            c.add(file, ("former_key",), f"{former!r} is the key of a retained record ({key_owners[former]}): a paper is "
                                         "retained or excluded, not both; former_key names the key it had when it was "
                                         "retained")
    aliases: dict[str, tuple[str, str]] = {}
    for bkey, file in sorted(bib_owners.items()):
        name, other = aliases.setdefault(bkey.lower(), (bkey, file))
        if other != file and name != bkey:
            c.add(file, ("bibtex_key",), f"{bkey!r} is {name!r}, the bibtex_key of {other}, in another case; BibTeX "
                                         "matches keys in any case, so papers.bib would have one key for two papers")


def value_anchors(c, by_key: dict[str, dict]) -> None:
    """A record the taxonomy names as an anchor of a value (``anchors`` of the value) carries that value."""
    for field in c.tax.fields.values():
        for code in field.values:
            for key in field.value_spec(code).get("anchors") or []:
                rec = by_key.get(key)
                if rec is None or field.name not in rec:
                    continue
                tags = rec.get(field.name)
                carries = code in tags if isinstance(tags, list) else tags == code
                if not carries:
                    c.add(f"{PAPERS}{key}.yaml", (field.name,), f"the taxonomy names this record as an anchor of {code} but it is not tagged {code}")
