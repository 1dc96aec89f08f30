"""Adding papers to the pool as retained stubs: the library under ``masrl add`` (and every other
path that creates a retained record from bibliographic metadata).

A *paper* is a mapping of bibliographic fields: ``title``, ``authors`` (``Last, First``),
``year``, ``venue``, ``identifiers`` (scheme -> value), ``bibtex_key``, ``bibtex`` (the entry's
fields), ``source`` (how it came in, for ``provenance``), optionally ``abstract``, and
``origin`` = ``(file, line, entry key or None)`` for messages. :func:`plan_additions` turns
papers into stub files: each paper is refused when it is already retained or excluded (same
canonical identifier, or a near-identical title; :mod:`masrl.bib.matching`), when its text is a
placeholder, or when its stub would not validate; the others get a key
(:func:`masrl.corpus.records.make_key`) and a stub with every controlled field ``untagged``
(:func:`masrl.corpus.stubs.retained_stub`). Nothing here writes.
"""

from __future__ import annotations

import re

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from ..bib import bibimport, bibtex, lookup
from ..bib.entries import bibtex_block
from ..bib.identifiers import SCHEME_ORDER, Identifier
from ..bib.matching import make_known
from ..checks.validate import validate
from ..core.errors import COMMAND_LINE, Problem, UserError
from ..core.placeholders import placeholder_problem
from ..corpus.load import EXCLUSIONS, PAPERS, Corpus
from ..corpus.records import make_key
from ..corpus.keys import key_aliases, taken_keys
from ..corpus.stubs import retained_stub
from ..corpus.taxonomy import Taxonomy
from ..corpus.yamlio import dump_record
from . import intake
from .update.sources.base import one_line


@dataclass
class AddPlan:
    """What adding a batch of papers would do.

    Attributes:
        files: ``{corpus/papers/<key>.yaml: bytes}`` of every stub to create.
        refused: entry name (the BibTeX entry key, ``""`` for a paper from the command line, or
            ``(block at line N)``) -> every problem that keeps it out.
        stubs: the stub mappings of ``files``, by the same paths.
    """

    files: dict[str, bytes] = field(default_factory=dict)
    refused: dict[str, list[Problem]] = field(default_factory=dict)
    stubs: dict[str, dict] = field(default_factory=dict)


def paper_from_metadata(title: str, authors: list[str], year: int, venue: str | None, idents: list[Identifier],
                        fetched: dict, source: str, origin: tuple) -> dict:
    """A paper from metadata given by hand and/or looked up (``fetched``: the mapping of
    :func:`masrl.bib.lookup.lookup`, ``{}`` when nothing was looked up). The venue defaults to
    ``arXiv`` for a paper with an arXiv id, else ``unpublished``; identifiers given win over
    those looked up. The abstract looked up is kept (on one line, without the characters the
    text policy refuses), for the stub's field of the taxonomy's abstract."""
    venue = venue or fetched.get("venue") or ("arXiv" if any(i.scheme == "arxiv" for i in idents) else "unpublished")
    ids = intake.mapping(idents)
    for scheme, value in (fetched.get("identifiers") or {}).items():
        ids.setdefault(scheme, value)
    ids = {k: ids[k] for k in SCHEME_ORDER if k in ids}
    paper = {"title": title, "authors": authors, "year": int(year), "venue": venue, "identifiers": ids,
             "bibtex_key": "", "bibtex": bibtex_block(title, int(year), venue, fetched), "source": source,
             "origin": origin}
    if one_line(fetched.get("abstract")):
        # one line, without the characters the text policy refuses (a source's metadata sometimes
        # carries them from a web page): the abstract is kept in the stub, which must validate
        paper["abstract"] = one_line(fetched["abstract"])
    return paper


def known_by_identifier(corpus: Corpus, idents: list[Identifier], title: str = "") -> list[Problem]:
    """One problem (the command line) for each record of the pool that shares a canonical id with
    ``idents``: what :func:`plan_additions` would refuse the paper for, found before any metadata
    is looked up (so that an offline ``masrl add ID`` of a known paper says so, not that the
    network is down). The paper is named by ``title`` when one is given, else by its first id."""
    matches = intake.pool_of(corpus).matches("", intake.mapping(idents))
    name = title.strip() or (idents[0].value if idents else "")
    return [Problem(COMMAND_LINE, None, None, f"'{name}' refused: {m.message()}") for m in matches]


def fetch_metadata(idents: list[Identifier]) -> dict:
    """Metadata of the first identifier that has a public source (:data:`masrl.bib.lookup.SOURCES`),
    ``{}`` when none has.

    Raises:
        UserError: one line naming the unreachable host, or the id the source does not know.
    """
    for ident in idents:
        if ident.scheme not in lookup.SOURCES:
            continue
        source = lookup.SOURCES[ident.scheme][0]
        try:
            return lookup.lookup(ident)
        except lookup.Unreachable as err:
            raise UserError(f"cannot reach {err} to look up {ident.scheme} {ident.value} (no network?); give the metadata "
                            "by hand: --title T --author \"Last, First\" (repeat) --year Y [--venue V], or add --no-fetch") from None
        except lookup.BadAnswer as err:
            raise UserError(f"cannot look up {ident.scheme} {ident.value}: {err}; nothing was added (give the metadata "
                            "by hand with --no-fetch)") from None
        except lookup.BadEndpoint as err:
            raise UserError(f"cannot look up {ident.scheme} {ident.value}: {err}; nothing was looked up") from None
        except lookup.NotFound:
            raise UserError(f"{source} has no paper {ident.scheme} {ident.value}; check the id, or give --title, --author "
                            "and --year with --no-fetch") from None
    return {}


@dataclass
class BibtexPapers:
    """The papers of one BibTeX file and what kept the others out.

    Attributes:
        papers: one paper per entry that imported.
        refused: entry key (or ``(block at line N)``) -> problems.
        notes: fields not kept and blocks not imported (information, not errors).
        origins: entry key -> ``(file name, line, entry key, raw entry text)``.
        partial: the papers of refused entries, what they lack given a stand-in: checked as records
            too, so that every problem of an entry is named in one run; never added.
        strings: the file's ``@string`` blocks as written; containers: entry key -> the text of the
            entry it crossrefs (for the report of what was not added, which must read as the file did).
    """

    papers: list[dict]
    refused: dict[str, list[Problem]]
    notes: list[Problem]
    origins: dict[str, tuple]
    partial: list[dict] = dataclasses.field(default_factory=list)
    strings: list[str] = dataclasses.field(default_factory=list)
    containers: dict[str, str] = dataclasses.field(default_factory=dict)


def papers_from_bibtex(text: str, name: str) -> BibtexPapers:
    """Every entry of a BibTeX/BibLaTeX text (named ``name`` in messages) as a paper.

    Raises:
        UserError: if the text holds no entry at all.
    """
    parsed = bibtex.parse(text, name)
    result = bibimport.import_entries(parsed, name)
    if not parsed.entries and not parsed.problems:
        raise UserError(f"--bibtex {name}: no BibTeX entry found")
    refused: dict[str, list[Problem]] = {}
    origins: dict[str, tuple] = {}
    for problem in result.problems:
        refused.setdefault(f"(block at line {problem.line})", []).append(problem)
        origins[f"(block at line {problem.line})"] = (name, problem.line, None, parsed.unread.get(problem.line, ""))
    for key, line, problems in result.refused:
        refused[key] = problems
        origins[key] = (name, line, key, result.raw.get(key, ""))
    papers = []
    for paper in result.papers + list(result.partial.values()):
        key = paper["entry_key"]
        paper["source"] = f"masrl add --bibtex {name} (entry {key}, {name}:{paper['line']})"
        paper["origin"] = (name, paper["line"], key)
        origins[key] = (name, paper["line"], key, result.raw.get(key, ""))
        papers.append(paper)
    by_key = {entry.key.lower(): entry.raw for entry in parsed.entries}
    containers = {entry.key: by_key[target] for entry in parsed.entries
                  if (target := entry.fields.get("crossref", "").strip().lower()) in by_key}
    return BibtexPapers(papers[:len(result.papers)], refused, result.notes, origins, papers[len(result.papers):],
                        parsed.strings, containers)


def skip_report(source: Path, refused: dict[str, list[Problem]], origins: dict[str, tuple], strings: list[str] = (),
                containers: dict[str, str] | None = None) -> bytes:
    """A BibTeX file of the entries not added, each after comment lines giving every reason; before them the
    source's ``@string`` macros, after them the entries they crossref, so that it reads as the source did."""
    def comment(text: str) -> str:  # BibTeX has no comments: an @ anywhere starts an entry
        return f"% {text.replace('@', '(at)')}"

    lines = [comment(f"masrl add --bibtex {source.name} --skip-invalid: {len(refused)} entr"
                     f"{'y' if len(refused) == 1 else 'ies'} not added. Fix them here, then add this file."), ""]
    if strings:
        lines += [comment(f"the @string macros of {source.name}, which the entries below may use:"), *strings, ""]
    for key, problems in sorted(refused.items(), key=lambda kv: (origins[kv[0]][1] or 0, kv[0])):
        file, line, _, raw = origins[key]
        lines.append(comment(f"{file}:{line}: entry {key} was not added:"))
        lines += [comment(f"  {p.field + ': ' if p.field else ''}{p.message}") for p in problems]
        lines += [raw.strip() if raw else comment("(no entry text: the block could not be parsed)"), ""]
    used = dict.fromkeys(containers[key] for key in refused if key in (containers or {}))
    if used:
        lines += [comment(f"the entries of {source.name} that the entries above crossref (not papers; their fields "
                          "are inherited):"), *(raw.strip() for raw in used), ""]
    return "\n".join(lines).encode("utf-8")


def plan_additions(corpus: Corpus, papers: list[dict], *, known: list[Problem], key: str | None = None,
                   force: str | None = None, refused: dict[str, list[Problem]] | None = None,
                   advice=None, partial: list[dict] | None = None) -> AddPlan:
    """Stubs for ``papers`` that are new to the pool and valid, and every reason for the others.

    ``known`` are the problems the corpus has already (:func:`masrl.checks.validate.validate`,
    or :func:`~masrl.checks.validate.validate_taxonomy`: a stub's file is new, so a problem found
    there is one the stub brings), so that only problems a stub brings count against it. ``key`` names the single paper's
    key; ``force`` (a reason) adds papers that match a record anyway, as a deliberate second
    record. ``refused`` carries problems found earlier (entries that did not import); ``partial``, the
    papers of such entries that a stub can be made of (:class:`BibtexPapers`): their other problems
    are added to ``refused`` (on the fields not named there yet), and they are never added. ``advice(matches)``
    ends the message of a paper refused as a duplicate (what to do where the papers come from).

    Raises:
        UserError: if ``key`` is taken.
    """
    plan = AddPlan(refused=dict(refused or {}))
    tax = Taxonomy(corpus.taxonomy)
    pool = intake.pool_of(corpus)
    batch: list[dict] = []
    checked_only = {id(paper) for paper in partial or []}
    duplicated: set[int] = set()
    for paper in [*papers, *(partial or [])]:
        paper["identifiers"] = _own_schemes(paper.get("identifiers"), tax)
        name = paper.get("entry_key")
        if name is not None:  # a BibTeX entry (arguments were checked when they were read)
            file, line, _ = paper["origin"]
            placeholders = [Problem(file, line, fname, f"entry '{name}': {fname} {why}")
                            for fname, value in [("title", paper["title"])] + [("author", a) for a in paper["authors"]]
                            if (why := placeholder_problem(value))]
            if placeholders:  # named; the paper is still checked as a record, for its other problems
                plan.refused.setdefault(name, []).extend(placeholders)
                checked_only.add(id(paper))
        matches = [] if force else pool.matches(paper["title"], paper["identifiers"], paper.get("authors"))
        if matches:
            file, line, _ = paper["origin"]
            who = f"entry '{name}'" if name else f"'{paper['title']}'"
            plan.refused.setdefault(name or "", []).extend(
                Problem(file, line, None, f"{who} refused: {m.message()}" + (f"; {advice([m])}" if advice else ""))
                for m in matches)
            if name is None:
                continue
            checked_only.add(id(paper))  # an entry: its other problems are named too (its year, its ids ...)
            duplicated.add(id(paper))
        batch.append(paper)
        if id(paper) not in checked_only:  # a refused entry is no earlier copy of a later entry's paper
            pool.add(_batch_known(paper))

    taken = taken_keys(corpus)
    if key and (key in taken or key.lower() in key_aliases(corpus)):
        holder = (f"{PAPERS}{key}.yaml" if any(Path(f).stem == key for f in corpus.retained) else
                  f"{key_aliases(corpus)[key.lower()]} (its BibTeX key)" if key.lower() in key_aliases(corpus) else "a moved record")
        raise UserError(f"--key {key}: the key is taken by {holder}; choose another (or leave --key out: "
                        f"{make_key(batch[0]['authors'][0], batch[0]['year'], taken) if batch else 'a key is generated'})")
    origins: dict[str, tuple] = {}
    for paper in batch:
        new_key = key or make_key(paper["authors"][0], paper["year"], taken)
        taken.add(new_key)
        rel = f"{PAPERS}{new_key}.yaml"
        plan.stubs[rel] = retained_stub(paper, tax, new_key, force)
        origins[rel] = paper["origin"]
    checked = {rel for rel, paper in zip(plan.stubs, batch) if id(paper) in checked_only}
    copies = {rel for rel, paper in zip(plan.stubs, batch) if id(paper) in duplicated}
    named = {key: list(problems) for key, problems in plan.refused.items()}  # before the stubs were checked
    for rel, problem in _stub_problems(corpus, known, plan.stubs, origins):
        key = origins[rel][2] or ""
        if rel in copies and (PAPERS in problem.message or EXCLUSIONS in problem.message):
            continue  # the record it copies, named already by its refusal
        if any(other in problem.message for other in checked if other != rel):
            continue  # a stub only checked, never written, is no record another could clash with
        same = [p for p in plan.refused.get(key, []) if _gist(p.message) == _gist(problem.message)]  # title, bibtex.title
        block = [p for p in same if (p.field or "").startswith("bibtex.")]
        if block and not (problem.field or "").startswith("bibtex."):  # named once, by the record's own field
            plan.refused[key] = [problem if p is block[0] else p for p in plan.refused[key]]
        elif same:
            pass
        elif not any(_same_field(problem.field, p.field) for p in named.get(key, [])):  # a field named once
            plan.refused.setdefault(key, []).append(problem)
        plan.stubs.pop(rel, None)
    for rel in checked:
        plan.stubs.pop(rel, None)
    plan.files = {rel: dump_record(rec) for rel, rec in plan.stubs.items()}
    return plan


def _own_schemes(identifiers, tax: Taxonomy):
    """A paper's ``identifiers`` with each URL that is the resolver page of an id of a scheme the survey declares
    written as that id (``https://pubmed.ncbi.nlm.nih.gov/12345678/`` as ``pmid: '12345678'``), unless the paper
    has an id of that scheme already: the paper is then found by it."""
    if not isinstance(identifiers, dict) or not isinstance(identifiers.get("url"), list):
        return identifiers
    out, urls = dict(identifiers), []
    for url in identifiers["url"]:
        own = tax.landing_id(url) if isinstance(url, str) else None
        if own and own[0] not in out:
            out[own[0]] = own[1]
        else:
            urls.append(url)
    if urls:
        out["url"] = urls
    else:
        out.pop("url")
    return out


def _gist(message: str) -> str:
    """A problem's message without the values it quotes: a title and its ``bibtex.title`` (its LaTeX source)
    quote the same text written two ways, and say the same of it."""
    return re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "'…'", message)


#: The record's field of each BibTeX field an import problem may name.
_RECORD_FIELD = {"eprint": "identifiers", "doi": "identifiers", "url": "identifiers", "journal/volume": "identifiers",
                 "date": "year", "author": "authors"}


def _same_field(record_field: str | None, import_field: str | None) -> bool:
    """Whether a stub's problem on ``record_field`` is one the import already named on ``import_field``."""
    if record_field is None or import_field is None:
        return False
    top = record_field.split(".")[0].split("[")[0]
    named = _RECORD_FIELD.get(import_field, import_field)
    return top == named or (top in ("identifiers", "url") and named == "identifiers")


def _batch_known(paper: dict):
    file, line, key = paper["origin"]
    where = f"entry '{key}' ({file}:{line})" if key else "the command line"
    return make_known(where, "batch", paper["title"], paper["identifiers"], authors=paper.get("authors"))


def _stub_problems(corpus, known: list[Problem], stubs: dict[str, dict],
                   origins: dict[str, tuple]) -> list[tuple[str, Problem]]:
    """Problems of the stubs' bibliographic fields (a bad identifier, a BibTeX key already
    used, ...), apart from 'untagged', as ``(stub file, problem naming the entry or the command line)``.
    The stubs are validated as mappings together with the corpus (the YAML they are written
    as reads back to the same mappings; ``tests/test_yaml_traps.py`` checks the writer)."""
    if not stubs:
        return []
    before = {str(p) for p in known}
    out = []
    together = dataclasses.replace(corpus, retained={**corpus.retained, **stubs}, problems=list(corpus.problems))
    for p in validate(together):
        if "untagged" in p.message or str(p) in before:
            continue
        # a problem of the stub, or one a record of the corpus has only beside it (a BibTeX key the stub's takes in
        # another case): the stub brings it
        stub = p.file if p.file in stubs else next((rel for rel in stubs if rel in p.message), None)
        if stub is not None:
            source, line, entry = origins[stub]
            where = f"entry '{entry}': " if entry else ""
            said = p.message if stub == p.file else f"{p.file}: {p.message}"  # the record that has it beside the stub
            out.append((stub, Problem(source, line, p.field, where + said)))
    return out


def screening_lines(corpus: Corpus, plan: AddPlan) -> dict[str, str]:
    """For a dry run: one comment line per stub of ``plan`` giving its screening rank in the
    batch, its score (resemblance to the retained records against the excluded ones, in [0, 1])
    and, where exclusion is the better guess, the likely exclusion-reason class with its label
    (:func:`masrl.review.suggest.screening.rank_candidates`). ``{stub file: line}`` in rank
    order, best first; ``{}`` for no stub. Builds the text model (imports scikit-learn)."""
    from .suggest.screening import rank_candidates

    files = list(plan.stubs)
    if not files:
        return {}
    ranked = rank_candidates(corpus, [plan.stubs[rel] for rel in files])
    tax = Taxonomy(corpus.taxonomy)
    reasons = tax.fields.get(tax.role("reasons") or "")
    out = {}
    for r in ranked:
        guess = "resembles the retained records" if r.likely_reason is None else \
            f"likely exclusion reason {r.likely_reason}" + (f" ({reasons.value_label(r.likely_reason)})" if reasons else "")
        near = ", ".join(e.ident for e in r.evidence)
        out[files[r.index]] = (f"# screening rank {r.rank} of {len(ranked)}: score {r.score:.3f}, {guess}; "
                               f"nearest judged records: {near or 'none'}")
    return out
