"""``masrl add``: create record stubs for new papers, refusing duplicates.

Stubs carry the bibliographic fields and ``untagged`` in every controlled
field, so ``masrl validate`` rejects them until someone tags them. Keys follow
:func:`masrl.records.make_key` (``<surname><year>``, then ``b``, ``c``, ...).
"""

from __future__ import annotations

import datetime
import sys
from argparse import Namespace
from pathlib import Path

from .. import bibtex, write
from ..errors import Problem, UserError, summary
from ..load import PAPERS, find_root, load, read_user_file
from ..records import RETAINED_ORDER, SCHEME_ORDER, UNTAGGED, make_key, ordered
from ..taxonomy import Taxonomy
from ..yamlio import dump_record
from . import dedupe



def _identifiers_from_bib(entry: dict) -> dict:
    """Identifiers written in one parsed BibTeX entry (journal arXiv id, eprint, doi, url)."""
    import re

    from ..records import classify_url, doi_in_url

    f = entry["fields"]
    ids: dict = {}
    match = re.search(r"arXiv:\s*([0-9]{4}\.[0-9]{4,5}(?:v[0-9]+)?)", f.get("journal", ""))
    if match:
        ids["arxiv"] = match.group(1)
    if f.get("eprint") and f.get("archiveprefix", "").lower() == "arxiv":
        ids.setdefault("arxiv", f["eprint"])
    if f.get("doi"):
        ids["doi"] = f["doi"]
    for text in (f.get("url", ""), f.get("howpublished", "")):
        for url in re.findall(r"\\url\{([^}]*)\}", text) or ([text] if text.startswith("http") else []):
            scheme, value = classify_url(url)
            if scheme == "url":
                ids.setdefault("url", []).append(url)
                if doi_in_url(url):
                    ids.setdefault("doi", doi_in_url(url))
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
    entries, problems = bibtex.parse(text, str(path))
    if problems:
        raise UserError(summary(problems, "nothing was added (fix the BibTeX, then add again)."), problems)
    if not entries:
        raise UserError(f"--bibtex {path}: no BibTeX entry found")
    papers = []
    bad: list[Problem] = []
    for entry in entries:
        f = entry["fields"]
        where = f"{path}:{entry['line']}"
        year = f.get("year", "")
        if not year.strip().isdigit():
            bad.append(Problem(str(path), entry["line"], "year", f"entry '{entry['key']}' needs a numeric year, got {year!r}"))
            continue
        if not f.get("title"):
            bad.append(Problem(str(path), entry["line"], "title", f"entry '{entry['key']}' has no title"))
            continue
        if not entry["authors"]:
            bad.append(Problem(str(path), entry["line"], "author", f"entry '{entry['key']}' has no author"))
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
        })
    if bad:
        raise UserError(summary(bad, "nothing was added."), bad)
    return papers


def _paper_from_args(args: Namespace, tax: Taxonomy) -> dict:
    missing = [flag for flag, value in (("--title", args.title), ("--author", args.author), ("--year", args.year)) if not value]
    if missing:
        raise UserError("masrl add without --bibtex needs " + ", ".join(missing))
    ids = dedupe.identifiers_from_args(args.arxiv, args.openreview, args.doi, args.url)
    venue = args.venue or "arXiv"
    bib = {"type": "article" if "arxiv" in ids and not args.venue else "misc", "title": bibtex.encode_latex(args.title)}
    if "arxiv" in ids and not args.venue:
        bib["journal"] = f"arXiv preprint arXiv:{ids['arxiv']}"
    bib["year"] = str(args.year)
    return {"title": args.title, "authors": list(args.author), "year": args.year, "venue": venue,
            "identifiers": ids, "url": _landing(ids, tax), "bibtex_key": "", "bibtex": bib,
            "source": "masrl add (command-line arguments)"}


def run(args: Namespace) -> int:
    """Create stubs (or print them with ``--dry-run``); return the exit code."""
    root = find_root(args.root)
    corpus = load(root)
    tax = Taxonomy(corpus.taxonomy)
    if args.bibtex and (args.title or args.author or args.arxiv or args.doi or args.openreview):
        raise UserError("give either --bibtex FILE or the paper's fields (--title, --author, --year, an identifier), not both")
    papers = _papers_from_bibtex(args.bibtex, tax) if args.bibtex else [_paper_from_args(args, tax)]
    if args.key and len(papers) != 1:
        raise UserError("--key works with a single paper only")

    refusals = []
    batch: list[dict] = []
    for paper in papers:
        matches = dedupe.find_matches(paper["identifiers"], paper["title"], corpus, batch)
        if matches and not args.force:
            refusals.extend(f"refused: '{paper['title']}' — {m}" for m in matches)
            continue
        batch.append(paper)
    if refusals:
        for line in refusals:
            print(line, file=sys.stderr)
        raise UserError(f"{len(refusals)} paper(s) match existing records; nothing was added "
                        "(use --force REASON to add anyway, e.g. for a distinct journal version)")

    taken = {r.get("key") for r in corpus.retained.values()} | {Path(f).stem for f in corpus.retained} | {
        str((r.get("former_key") or "")) for r in corpus.excluded.values()}
    files: dict[str, bytes] = {}
    for paper in batch:
        key = args.key or make_key(paper["authors"][0], paper["year"], taken)
        taken.add(key)
        paper["bibtex_key"] = paper["bibtex_key"] or key
        record = _stub(paper, tax, key, paper["source"], args.force)
        files[f"{PAPERS}{key}.yaml"] = dump_record(record)

    _check_stubs(files, corpus, tax)
    if args.dry_run:
        for rel, data in files.items():
            print(f"# would write {rel}\n{data.decode()}")
        print(f"dry run: {len(files)} record(s) would be written; nothing was written")
        return 0
    write.create_new(root, files)
    for rel in files:
        print(f"created {rel} — every controlled field is 'untagged': tag it, then run `masrl validate`")
    return 0


def _check_stubs(files: dict[str, bytes], corpus, tax: Taxonomy) -> None:
    """Refuse stubs whose bibliographic fields are invalid (bad identifier, year), apart from 'untagged'."""
    from ..load import parse_tree
    from ..validate import validate

    probe = parse_tree({"corpus/taxonomy.yaml": dump_record(corpus.taxonomy), **files})
    problems = [p for p in validate(probe) if p.file in files and "untagged" not in p.message
                and "names record" not in p.message and "anchor" not in p.message]
    if problems:
        raise UserError(summary(problems, "nothing was added."), problems)
