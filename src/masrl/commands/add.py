"""``masrl add``: create record stubs for new papers, refusing duplicates.

Stubs carry the bibliographic fields and ``untagged`` in every controlled
field, so ``masrl validate`` rejects them until someone tags them. Keys follow
:func:`masrl.records.make_key` (``<surname><year>``, then ``b``, ``c``, ...).
"""

from __future__ import annotations

import datetime
import re
import sys
from argparse import Namespace
from pathlib import Path

from .. import bibtex, console, write
from ..errors import COMMAND_LINE, Problem, UserError, summary
from ..placeholders import placeholder_problem
from ..load import PAPERS, TAXONOMY, find_root, parse_tree, read_tree, read_user_file
from ..records import RETAINED_ORDER, SCHEME_ORDER, UNTAGGED, make_key, ordered
from ..taxonomy import Taxonomy
from ..validate import validate
from ..yamlio import dump_record
from . import dedupe



def _identifiers_from_bib(entry: dict) -> dict:
    """The ``identifiers`` mapping of one parsed BibTeX entry (first value of each scheme; every URL)."""
    ids: dict = {}
    for scheme, value in bibtex.identifiers_in(entry["fields"]):
        if scheme == "url":
            ids.setdefault("url", []).append(value)
        else:
            ids.setdefault(scheme, value)
    return {k: ids[k] for k in SCHEME_ORDER if k in ids}


def _landing(ids: dict, tax: Taxonomy) -> str:
    for scheme in SCHEME_ORDER:
        if scheme in ids:
            value = ids[scheme]
            if isinstance(value, list):
                return value[0]
            resolver = tax.identifier_schemes.get(scheme, {}).get("resolver")
            if resolver:
                return resolver.format(id=value)
    return ""


def _stub(paper: dict, tax: Taxonomy, key: str, source: str, forced: str | None) -> dict:
    rec: dict = {
        "key": key,
        "title": paper["title"],
        "authors": paper["authors"],
        "first_author": paper["authors"][0] if paper["authors"] else UNTAGGED,
        "affiliation": "unknown",
        "year": paper["year"],
        "venue": paper["venue"],
        "url": paper["url"],
        "identifiers": paper["identifiers"],
    }
    for field in tax.of("retained"):
        if not field.required_when:
            rec[field.name] = [UNTAGGED] if field.multi else UNTAGGED
    rec.update(one_liner=UNTAGGED, notes="", tag_provenance={})
    if forced:
        rec["forced"] = forced
    rec["bibtex_key"] = paper["bibtex_key"]
    rec["bibtex"] = paper["bibtex"]
    rec["provenance"] = {"source": source, "added": datetime.date.today().isoformat()}
    return ordered(rec, RETAINED_ORDER)


def _papers_from_bibtex(path: Path, tax: Taxonomy) -> list[dict]:
    text = read_user_file(path, "--bibtex")
    entries, problems = bibtex.parse(text, path.name)
    if problems:
        raise UserError(summary(problems, "nothing was added (fix the BibTeX, then add again)."), problems)
    if not entries:
        raise UserError(f"--bibtex {path}: no BibTeX entry found")
    papers = []
    bad: list[Problem] = []
    for entry in entries:
        f = entry["fields"]
        where = f"{path.name}:{entry['line']}"
        year = f.get("year", "").strip()
        missing = [Problem(path.name, entry["line"], name, f"entry '{entry['key']}' {why}") for name, why, ok in (
            ("year", f"needs a four-digit year, got {year!r}", re.fullmatch(r"[0-9]{4}", year)),
            ("title", "has no title", f.get("title", "").strip()),
            ("author", "has no author", entry["authors"]))
            if not ok]
        if not missing:
            missing = [Problem(path.name, entry["line"], name, f"entry '{entry['key']}': {name} {why}")
                       for name, value in [("title", bibtex.decode_latex(f["title"]))] + [("author", a) for a in entry["authors"]]
                       if (why := placeholder_problem(value))]
        if missing:
            bad.extend(missing)
            continue
        ids = _identifiers_from_bib(entry)
        venue = f.get("booktitle") or f.get("journal") or "arXiv"
        if venue.startswith("arXiv preprint"):
            venue = "arXiv"
        papers.append({
            "title": bibtex.decode_latex(f["title"]), "authors": entry["authors"], "year": int(year),
            "venue": bibtex.decode_latex(venue), "identifiers": ids, "url": _landing(ids, tax),
            "bibtex_key": entry["key"],
            "bibtex": {"type": entry["type"], **{k: f[k] for k in bibtex.KEPT_FIELDS if k in f}},
            "source": f"masrl add --bibtex {path.name} (entry {entry['key']}, {where})",
            "origin": (path.name, entry["line"], entry["key"]),
        })
    if bad:
        raise UserError(summary(bad, "nothing was added."), bad)
    return papers


def _paper_from_args(args: Namespace, tax: Taxonomy) -> dict:
    authors = [a.strip() for a in args.author or [] if a.strip()]
    missing = [flag for flag, ok in (("--title", (args.title or "").strip()), ("--author", authors), ("--year", args.year is not None)) if not ok]
    if missing:
        raise UserError("masrl add without --bibtex needs " + ", ".join(missing))
    placeholders = [Problem(COMMAND_LINE, None, flag, f"{why}; give the paper's real {what}")
                    for flag, what, value in [("--title", "title", args.title)] + [("--author", "author", a) for a in authors]
                    if (why := placeholder_problem(value))]
    if placeholders:
        raise UserError(summary(placeholders, "nothing was added."), placeholders)
    ids = dedupe.identifiers_from_args(args.arxiv, args.openreview, args.doi, args.url)
    venue = args.venue or "arXiv"
    bib = {"type": "article" if "arxiv" in ids and not args.venue else "misc", "title": bibtex.encode_latex(args.title)}
    if "arxiv" in ids and not args.venue:
        bib["journal"] = f"arXiv preprint arXiv:{ids['arxiv']}"
    bib["year"] = str(args.year)
    return {"title": args.title.strip(), "authors": authors, "year": args.year, "venue": venue,
            "identifiers": ids, "url": _landing(ids, tax), "bibtex_key": "", "bibtex": bib,
            "source": "masrl add (command-line arguments)", "origin": (COMMAND_LINE, None, None)}


def run(args: Namespace) -> int:
    """Create stubs (or print them with ``--dry-run``); return the exit code."""
    root = find_root(args.root)
    existing = read_tree(root)
    corpus = parse_tree(existing)
    tax = Taxonomy(corpus.taxonomy)
    if args.bibtex:
        extra = [flag for flag, value in (("--title", args.title), ("--author", args.author), ("--year", args.year),
                                          ("--venue", args.venue), ("--arxiv", args.arxiv), ("--doi", args.doi),
                                          ("--openreview", args.openreview), ("--url", args.url)) if value is not None]
        if extra:
            raise UserError(f"--bibtex takes every field from the BibTeX entries; drop {', '.join(extra)}")
    if args.force is not None and not args.force.strip():
        raise UserError("--force needs a reason, e.g. --force 'journal version with new experiments'")
    problems = validate(corpus)
    if any(p.file == TAXONOMY for p in problems):
        raise UserError(summary(problems, "nothing was added (fix corpus/taxonomy.yaml first)."), problems)
    papers = _papers_from_bibtex(args.bibtex, tax) if args.bibtex else [_paper_from_args(args, tax)]
    if args.key and len(papers) != 1:
        raise UserError("--key works with a single paper only")

    refusals = []
    batch: list[dict] = []
    for paper in papers:
        matches = dedupe.find_matches(paper["identifiers"], paper["title"], corpus, batch)
        if matches and not args.force:
            refusals.append(paper)
            for m in matches:
                print(f"refused: '{paper['title']}' — {m}", file=sys.stderr)
            continue
        batch.append(paper)
    if refusals:
        raise UserError(f"{len(refusals)} of {len(papers)} paper(s) are already in the corpus or twice in the input; "
                        "nothing was added (use --force REASON to add anyway, e.g. for a distinct journal version)")

    taken = {r.get("key") for r in corpus.retained.values()} | {Path(f).stem for f in corpus.retained} | {
        str((r.get("former_key") or "")) for r in corpus.excluded.values()}
    files: dict[str, bytes] = {}
    origins: dict[str, tuple] = {}
    for paper in batch:
        key = args.key or make_key(paper["authors"][0], paper["year"], taken)
        taken.add(key)
        paper["bibtex_key"] = paper["bibtex_key"] or key
        record = _stub(paper, tax, key, paper["source"], args.force)
        files[f"{PAPERS}{key}.yaml"] = dump_record(record)
        origins[f"{PAPERS}{key}.yaml"] = paper["origin"]

    _check_stubs(existing, problems, files, origins)
    if args.dry_run:
        for rel, data in files.items():
            print(f"# would write {rel}\n{data.decode()}")
        print(f"dry run: {len(files)} record(s) would be written; nothing was written")
        return 0
    write.create_new(root, files)
    for rel in files:
        console.info(f"created {rel} — every controlled field is 'untagged': tag it, then run `masrl validate`")
    return 0


def _check_stubs(existing: dict[str, bytes], known: list[Problem], files: dict[str, bytes], origins: dict[str, tuple]) -> None:
    """Refuse stubs whose bibliographic fields are invalid (bad identifier or key, a BibTeX key
    already used), apart from 'untagged'. ``known`` are the corpus's problems before the
    stubs. Problems name the BibTeX entry or the command line."""
    before = {str(p) for p in known}
    problems = []
    for p in validate(parse_tree({**existing, **files})):
        if p.file in files and "untagged" not in p.message and str(p) not in before:
            source, line, entry = origins[p.file]
            where = f"entry '{entry}': " if entry else ""
            problems.append(Problem(source, line, p.field, where + p.message))
    if problems:
        raise UserError(summary(problems, "nothing was added."), problems)
