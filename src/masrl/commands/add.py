"""``masrl add``: create record stubs for new papers, refusing duplicates.

Papers come from a BibTeX/BibLaTeX file (:mod:`masrl.bib.bibimport`), or from one
identifier (any form) whose metadata is looked up (:mod:`masrl.bib.lookup`) and/or
given with flags. Stubs carry the bibliographic fields and ``untagged`` in
every controlled field, so ``masrl validate`` rejects them until someone tags
them. Keys follow :func:`masrl.corpus.records.make_key`. Every problem of every entry
is reported at once with the entry key and line; ``--skip-invalid`` adds the
rest and writes a report of what was not added.
"""

from __future__ import annotations

import dataclasses
import sys
from argparse import Namespace
from pathlib import Path

from ..bib import bibimport, bibtex, lookup, venues
from ..bib.identifiers import SCHEME_ORDER
from ..build import write
from ..checks.validate import validate
from ..core import console
from ..core.errors import (
    COMMAND_LINE,
    Problem,
    UsageError,
    UserError,
    sort_key,
    summary,
)
from ..core.placeholders import placeholder_problem
from ..corpus.load import (
    PAPERS,
    TAXONOMY,
    find_root,
    parse_tree,
    read_tree,
    read_user_file,
)
from ..corpus.records import make_key
from ..corpus.stubs import retained_stub
from ..corpus.taxonomy import Taxonomy
from ..corpus.yamlio import dump_record
from ..review import intake


# ---------------------------------------------------------------------------- papers from arguments
def _block(title: str, year: int, venue: str, extra: dict) -> dict:
    kind = venues.venue_kind(venue)
    etype = {venues.CONFERENCE: "inproceedings", venues.JOURNAL: "article"}.get(kind, "misc")
    block = {"type": etype, "title": bibtex.encode_latex(title), "year": str(year)}
    if extra.get("primaryclass"):
        block["primaryclass"] = extra["primaryclass"]
    return block


def _paper_from_args(args: Namespace) -> dict:
    idents = intake.identifiers_from_flags({"--arxiv": args.arxiv, "--openreview": args.openreview, "--doi": args.doi,
                                            "--url": args.url}, args.identifier)
    if not idents:
        raise UsageError("the paper needs an identifier: IDENTIFIER (any form), --arxiv, --doi, --openreview or --url")
    authors = []
    for text in args.author or []:
        if text.strip():
            stored, warning = intake.author_from_flag(text)
            authors.append(stored)
            if warning:
                print(f"warning: {warning}", file=sys.stderr)
    fetched: dict = {}
    wanted = not ((args.title or "").strip() and authors and args.year is not None)
    if wanted and not args.no_fetch:
        fetched = _fetch(idents)
    title = (args.title or "").strip() or fetched.get("title", "")
    authors = authors or fetched.get("authors", [])
    year = args.year if args.year is not None else fetched.get("year")
    missing = [flag for flag, ok in (("--title", title), ("--author", authors), ("--year", year is not None)) if not ok]
    if missing:
        why = " (--no-fetch: nothing was looked up)" if args.no_fetch else ""
        raise UsageError("masrl add needs " + ", ".join(missing) + why)
    placeholders = [Problem(COMMAND_LINE, None, flag, f"{why}; give the paper's real {what}")
                    for flag, what, value in [("--title", "title", title)] + [("--author", "author", a) for a in authors]
                    if (why := placeholder_problem(value))]
    if placeholders:
        raise UserError(summary(placeholders, "nothing was added."), placeholders)
    venue = args.venue or fetched.get("venue") or ("arXiv" if any(i.scheme == "arxiv" for i in idents) else "unpublished")
    ids = intake.mapping(idents)
    for scheme, value in (fetched.get("identifiers") or {}).items():
        ids.setdefault(scheme, value)
    ids = {k: ids[k] for k in SCHEME_ORDER if k in ids}
    paper = {"title": title, "authors": authors, "year": int(year), "venue": venue, "identifiers": ids,
             "bibtex_key": "", "bibtex": _block(title, int(year), venue, fetched),
             "source": "masrl add (command-line arguments" + (", metadata looked up)" if fetched else ")"),
             "origin": (COMMAND_LINE, None, None)}
    if fetched.get("abstract"):
        paper["abstract"] = fetched["abstract"]
    return paper


def _fetch(idents: list) -> dict:
    """Metadata from the first identifier that has a public source; one-line errors."""
    for ident in idents:
        if ident.scheme not in lookup.SOURCES:
            continue
        source = lookup.SOURCES[ident.scheme][0]
        try:
            return lookup.lookup(ident)
        except lookup.Unreachable as err:
            raise UserError(f"cannot reach {err} to look up {ident.scheme} {ident.value} (no network?); give the metadata "
                            "by hand: --title T --author \"Last, First\" (repeat) --year Y [--venue V], or add --no-fetch") from None
        except lookup.NotFound:
            raise UserError(f"{source} has no paper {ident.scheme} {ident.value}; check the id, or give --title, --author "
                            "and --year with --no-fetch") from None
    return {}


# ---------------------------------------------------------------------------- papers from BibTeX
def _papers_from_bibtex(path: Path) -> tuple[list[dict], dict[str, list[Problem]], list[Problem], dict[str, tuple]]:
    """``(papers, problems by entry key, notes, entry origins)`` of one BibTeX file."""
    text = read_user_file(path, "--bibtex")
    parsed = bibtex.parse(text, path.name)
    result = bibimport.import_entries(parsed, path.name)
    if not parsed.entries and not parsed.problems:
        raise UserError(f"--bibtex {path}: no BibTeX entry found")
    refused: dict[str, list[Problem]] = {}
    origins: dict[str, tuple] = {}
    for problem in result.problems:
        refused.setdefault(f"(block at line {problem.line})", []).append(problem)
        origins[f"(block at line {problem.line})"] = (path.name, problem.line, None, "")
    for key, line, problems in result.refused:
        refused[key] = problems
        origins[key] = (path.name, line, key, result.raw.get(key, ""))
    papers = []
    for paper in result.papers:
        key = paper["entry_key"]
        paper["source"] = f"masrl add --bibtex {path.name} (entry {key}, {path.name}:{paper['line']})"
        paper["origin"] = (path.name, paper["line"], key)
        origins[key] = (path.name, paper["line"], key, result.raw.get(key, ""))
        papers.append(paper)
    return papers, refused, result.notes, origins


def _skip_report(source: Path, refused: dict[str, list[Problem]], origins: dict[str, tuple]) -> bytes:
    """A BibTeX file of the entries not added, each after comment lines giving every reason."""
    lines = [f"% masrl add --bibtex {source.name} --skip-invalid: {len(refused)} entr{'y' if len(refused) == 1 else 'ies'} "
             "not added. Fix them here, then add this file.", ""]
    for key, problems in sorted(refused.items(), key=lambda kv: (origins[kv[0]][1] or 0, kv[0])):
        file, line, _, raw = origins[key]
        lines.append(f"% {file}:{line}: entry {key} was not added:")
        lines += [f"%   {p.field + ': ' if p.field else ''}{p.message}" for p in problems]
        lines += [raw.strip() if raw else "% (no entry text: the block could not be parsed)", ""]
    return "\n".join(lines).encode("utf-8")


# ---------------------------------------------------------------------------- run
def run(args: Namespace) -> int:
    """Create stubs (or print them with ``--dry-run``); return the exit code."""
    root = find_root(args.root)
    existing = read_tree(root)
    corpus = parse_tree(existing)
    tax = Taxonomy(corpus.taxonomy)
    if args.bibtex:
        extra = [flag for flag, value in (("IDENTIFIER", args.identifier), ("--title", args.title), ("--author", args.author),
                                          ("--year", args.year), ("--venue", args.venue), ("--arxiv", args.arxiv),
                                          ("--doi", args.doi), ("--openreview", args.openreview), ("--url", args.url)) if value is not None]
        if extra:
            raise UsageError(f"--bibtex takes every field from the BibTeX entries; drop {', '.join(extra)}")
    elif args.skip_invalid or args.report:
        raise UserError("--skip-invalid and --report work with --bibtex only")
    if args.force is not None and not args.force.strip():
        raise UsageError("--force needs a reason, e.g. --force 'journal version with new experiments'")
    problems = validate(corpus)
    if any(p.file == TAXONOMY for p in problems):
        raise UserError(summary(problems, "nothing was added (fix corpus/taxonomy.yaml first)."), problems)

    notes: list[Problem] = []
    refused: dict[str, list[Problem]] = {}
    origins: dict[str, tuple] = {}
    if args.bibtex:
        papers, refused, notes, origins = _papers_from_bibtex(args.bibtex)
    else:
        papers = [_paper_from_args(args)]
    if args.key and len(papers) + len(refused) != 1:
        raise UsageError("--key works with a single paper only")

    pool = intake.pool_of(corpus)
    batch: list[dict] = []
    for paper in papers:
        name = paper.get("entry_key")
        if name is not None:  # a BibTeX entry (arguments were checked when they were read)
            file, line, _ = paper["origin"]
            placeholders = [Problem(file, line, field, f"entry '{name}': {field} {why}")
                            for field, value in [("title", paper["title"])] + [("author", a) for a in paper["authors"]]
                            if (why := placeholder_problem(value))]
            if placeholders:
                refused.setdefault(name, []).extend(placeholders)
                continue
        matches = [] if args.force else pool.matches(paper["title"], paper["identifiers"])
        if matches:
            file, line, _ = paper["origin"]
            who = f"entry '{name}'" if name else f"'{paper['title']}'"
            refused.setdefault(name or "", []).extend(
                Problem(file, line, None, f"{who} refused: {m.message()}") for m in matches)
            continue
        batch.append(paper)
        pool.add(_batch_known(paper))

    taken = {r.get("key") for r in corpus.retained.values()} | {Path(f).stem for f in corpus.retained} | {
        str((r.get("former_key") or "")) for r in corpus.excluded.values()}
    if args.key and args.key in taken:
        holder = f"{PAPERS}{args.key}.yaml" if any(Path(f).stem == args.key for f in corpus.retained) else "a moved record"
        raise UserError(f"--key {args.key}: the key is taken by {holder}; choose another (or leave --key out: "
                        f"{make_key(batch[0]['authors'][0], batch[0]['year'], taken) if batch else 'a key is generated'})")
    stubs: dict[str, dict] = {}
    stub_origin: dict[str, tuple] = {}
    for paper in batch:
        key = args.key or make_key(paper["authors"][0], paper["year"], taken)
        taken.add(key)
        rel = f"{PAPERS}{key}.yaml"
        stubs[rel] = retained_stub(paper, tax, key, args.force)
        stub_origin[rel] = paper["origin"]
    for rel, problem in _stub_problems(corpus, problems, stubs, stub_origin):
        key = stub_origin[rel][2] or ""
        refused.setdefault(key, []).append(problem)
        stubs.pop(rel, None)
    files = {rel: dump_record(rec) for rel, rec in stubs.items()}

    for note in sorted(notes, key=sort_key):
        print(f"note: {note}", file=sys.stderr)
    all_problems = sorted((p for ps in refused.values() for p in ps), key=sort_key)
    if refused and not args.skip_invalid:
        for problem in all_problems:
            print(problem, file=sys.stderr)
        total = len(papers) + len([k for k in refused if k not in {p.get("entry_key") or "" for p in papers}])
        hint = " (use --skip-invalid to add the others and write a report of these)" if args.bibtex and files else ""
        duplicates = any("refused:" in p.message for p in all_problems)
        force = "; --force REASON adds a duplicate anyway, e.g. a distinct journal version" if duplicates else ""
        raise UserError(f"{len(refused)} of {max(total, len(refused))} paper(s) cannot be added; nothing was added{hint}{force}")
    report = None
    if refused:
        report = Path(args.report) if args.report else Path.cwd() / f"{args.bibtex.stem}-skipped.bib"
        for problem in all_problems:
            print(problem, file=sys.stderr)
        if report.exists() or report.is_symlink() or not report.parent.is_dir():
            why = "exists already" if report.exists() or report.is_symlink() else "is in a folder that does not exist"
            raise UserError(f"--report: {report} {why}; nothing was added. Name a new file with --report PATH")

    if args.dry_run:
        for rel, data in files.items():
            print(f"# would write {rel}\n{data.decode()}")
        if report:
            print(f"# would write {report} ({len(refused)} entries not added, with their reasons)")
        print(f"dry run: {len(files)} record(s) would be written; nothing was written")
        return 0
    write.create_new(root, files)
    for rel in files:
        console.info(f"created {rel} — every controlled field is 'untagged': tag it, then run `masrl validate`")
    if report:
        write.create_new(report.parent.resolve(), {report.name: _skip_report(args.bibtex, refused, origins)})
        print(f"skipped {len(refused)} entr{'y' if len(refused) == 1 else 'ies'}: see {report}")
    return 0


def _batch_known(paper: dict):
    from ..bib.matching import make_known

    file, line, key = paper["origin"]
    where = f"entry '{key}' ({file}:{line})" if key else "the command line"
    return make_known(where, "batch", paper["title"], paper["identifiers"])


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
        if p.file in stubs and "untagged" not in p.message and str(p) not in before:
            source, line, entry = origins[p.file]
            where = f"entry '{entry}': " if entry else ""
            out.append((p.file, Problem(source, line, p.field, where + p.message)))
    return out
