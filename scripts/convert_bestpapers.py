#!/usr/bin/env python3
"""Convert a public paper list with a structured data file into a masrl survey: the best-paper
awards of AI conferences collected by github.com/clemense/ai-bestpapers (MIT License).

Reads (by hand, never at run time of the package):
  <repo>/_data/papers.yml   venue-years, each with its awards (award, title, author, link, source)
  <repo>/_data/types.yml    the research areas (sub: RO, AI, ML, CV, NLP, CG, with their names)
  <repo>/_data/venues.yml   the conferences (name, long name, link)

Writes a new survey into OUT (refused if OUT holds one), as `masrl init` would, but with a
taxonomy made from the data: the controlled fields `area` (the venue's research area, from
types.yml), `conference` (from venues.yml) and `award` (a list field: every award a paper won,
in eight classes read from the award's name by the rules of AWARD_CLASSES), the free field
`award_names` (the awards as the list words them), a table of the awards per area, four figures
(bars, heatmap, chain, years) and one claim. A paper awarded twice (two awards of one venue-year,
or the same title at two venue-years) is one record with both awards, at its first venue-year.
Identifiers are read from the award's link with masrl.bib.identifiers (arXiv, OpenReview, ACL
Anthology, DOI; any other page is a landing-page URL); a link two papers share, or no link, gives
the record an opaque `label` id instead. Records are built as `masrl add` builds a stub
(masrl.corpus.stubs.retained_stub), then tagged.

Usage:
  python scripts/convert_bestpapers.py REPO OUT --commit HASH [--date YYYY-MM-DD]
  masrl build --root OUT
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
from pathlib import Path

import yaml

from masrl.bib.identifiers import IdentifierError, from_url
from masrl.bib.matching import normalize_title
from masrl.core.text import unsafe_characters
from masrl.corpus.records import make_key
from masrl.corpus.stubs import retained_stub
from masrl.corpus.taxonomy import Taxonomy
from masrl.corpus.yamlio import dump_record
from masrl.review.adding import bibtex_block
from masrl.review.initialize import new_survey

SOURCE = "github.com/clemense/ai-bestpapers"

#: Award classes, in order: the first whose words occur in the award's name (lower case) wins.
AWARD_CLASSES = (
    ("test_of_time", "test of time", ("test of time", "retrospective", "most impactful")),
    ("honorable_mention", "honorable mention or runner-up", ("honorable mention", "runner-up")),
    ("student", "best student paper", ("student",)),
    ("demo", "best demonstration", ("demo",)),
    ("outstanding", "outstanding or distinguished paper", ("outstanding", "distinguished")),
    ("best_paper", "best paper", ("best paper", "best long paper", "best short paper")),
    ("topical", "best paper of a topic or track", ("best ",)),
    ("other", "another award", ("",)),
)



def _visible(text: object) -> str:
    """``text`` on one line with single spaces and without the characters masrl's text policy refuses
    (the list has, e.g., a title that starts with a zero-width space, copied from a web page)."""
    text = " ".join(str(text).split())  # tabs and line breaks are spaces first
    drop = {ch for ch, _ in unsafe_characters(text)}
    return " ".join("".join(ch for ch in text if ch not in drop).split())

def award_class(name: str) -> str:
    """The class (:data:`AWARD_CLASSES`) of an award's name: ``Best Paper`` -> ``best_paper``."""
    text = " ".join(name.lower().split())
    return next(code for code, _, words in AWARD_CLASSES if any(w in text for w in words))


def authors_of(text: str) -> list[str]:
    """``First Last, First Last`` -> ``["Last, First", ...]`` (a single word is kept whole)."""
    out = []
    if re.match(r"\s*https?://", text or ""):  # a link where the list has the authors
        return ["others"]
    for name in [n.strip() for n in re.split(r",| and ", text or "") if n.strip()]:
        first, _, last = name.rpartition(" ")
        out.append(f"{last}, {first}" if first else name)
    return out or ["others"]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def taxonomy(types: list[dict], venues: list[dict], best: int) -> dict:
    """The taxonomy of the converted survey (format 2)."""
    value = lambda label, definition: {"label": label, "definition": definition, "source": SOURCE}  # noqa: E731
    areas = {t["sub"]: value(t["name"], f"a venue of the list's area {t['name']}") for t in types}
    conferences = {slug(v["name"]): value(v["name"], str(v.get("long") or v["name"])) for v in venues}
    awards = {code: value(label, f"awards whose name holds {' or '.join(repr(w) for w in words if w) or 'anything else'}")
              for code, label, words in AWARD_CLASSES}
    return {
        "format_version": 2,
        "survey": {"title": "Best papers of AI conferences", "link": f"https://{SOURCE}", "data_licence": "MIT",
                   "bib_header": f"Survey: the best-paper awards of AI conferences, converted from {SOURCE}."},
        "sparse_threshold": 2,
        "identifier_schemes": {
            "arxiv": {"label": "arXiv identifier", "definition": "arXiv id", "resolver": "https://arxiv.org/abs/{id}"},
            "openreview": {"label": "OpenReview forum id", "definition": "the id of an OpenReview forum",
                           "resolver": "https://openreview.net/forum?id={id}"},
            "doi": {"label": "DOI", "definition": "a Digital Object Identifier", "resolver": "https://doi.org/{id}"},
            "acl": {"label": "ACL Anthology id", "definition": "an ACL Anthology paper id", "resolver": "https://aclanthology.org/{id}/"},
            "label": {"label": "list label", "definition": "an opaque label for a paper the list links to no page of its own"},
            "url": {"label": "landing-page URLs", "definition": "the page the list links to", "list": True},
        },
        "fields": {
            "area": {"applies_to": "retained", "label": "Research area", "definition": "the research area of the venue",
                     "source": f"{SOURCE} _data/types.yml", "values": areas},
            "conference": {"applies_to": "retained", "label": "Conference", "definition": "the venue of the award",
                           "source": f"{SOURCE} _data/venues.yml", "values": conferences},
            "award": {"applies_to": "retained", "multi": True, "label": "Award",
                      "definition": "every award the paper won at its venue, by class",
                      "source": "masrl reading of the award names", "values": awards},
        },
        "free_fields": {"award_names": {"applies_to": "retained", "type": "list", "label": "Award names",
                                        "definition": "the awards as the list words them"}},
        "crosstabs": [["area", "award"]],
        "gap_analysis": {
            "combine": {"area": "every area has conferences that award papers",
                        "award": "every class of award is given somewhere",
                        "area_x_award": "every area can give every class of award"},
            "left_out": {"conference": "the list covers the conferences its author chose"},
        },
        "tables": [
            {"name": "awards_by_area", "kind": "values", "field": "award", "title": "Awards per class and area", "index": "award",
             "columns": [{"name": "label", "attr": "label"}, {"name": "papers", "count": {}},
                         {"split": "area", "name": "label"}],
             "source": f"{SOURCE} _data/papers.yml",
             "note": "A paper counts under each class of award it won."},
            {"name": "year_x_area", "kind": "years", "by": "area", "title": "Awarded papers per year and area",
             "source": f"{SOURCE} _data/papers.yml"},
        ],
        "figures": [
            {"name": "area_counts", "kind": "bars", "table": "area", "caption": "Awarded papers per research area.",
             "title": "Awarded papers by research area", "labels": "label", "values": "count",
             "notes": ["n = {retained}, one area each; none left out."]},
            {"name": "area_award_heatmap", "kind": "heatmap", "table": "area_x_award", "caption": "Research area × class of award.",
             "notes": ["{gap} = no paper in the cell."]},
            {"name": "award_chain", "kind": "chain", "table": "awards_by_area", "caption": "The classes of award, by area.",
             "title": "Awards {first} to {last} by area", "empty_title": "Awards by area", "item": "class of award",
             "name_column": "label", "count_column": "papers", "split": "area"},
            {"name": "papers_per_year", "kind": "years", "table": "year_x_area", "caption": "Awarded papers per year, by area."},
        ],
        "screening": {"included_by": "area"},
        "readme": {"group_by": "area", "group_noun": ["area", "areas"],
                   "tags": [{"field": "conference"}, {"field": "award"}]},
        "site": {"columns": ["conference", "area", "award"]},
        "traces": False,
    }


def convert(papers: list[dict], types: list[dict], venues: list[dict], commit: str, date: str) -> dict[str, bytes]:
    """``{path: bytes}`` of the converted survey (a venue of papers.yml that venues.yml lacks is added
    to the conferences under its own name)."""
    listed = {v["name"] for v in venues}
    venues = [*venues, *({"name": n} for n in sorted({vy["venue"] for vy in papers} - listed))]
    names = {v["name"]: slug(v["name"]) for v in venues}
    by_title: dict[str, dict] = {}
    order: list[str] = []
    for vy in papers:
        for i, award in enumerate(vy.get("awards") or []):
            title = _visible(award["title"])
            norm = normalize_title(title)
            rec = by_title.get(norm)
            if rec is None:
                rec = by_title[norm] = {"title": title, "author": _visible(award.get("author") or award.get("authors") or ""),
                                        "link": award.get("link") or "", "venue": vy["venue"], "year": int(vy["year"]),
                                        "area": vy["sub"], "awards": [], "where": f"{vy['venue']} {vy['year']} award {i + 1}"}
                order.append(norm)
            rec["awards"].append(" ".join(str(award["award"]).split()))
    best = sum(1 for r in by_title.values() if "best_paper" in {award_class(a) for a in r["awards"]})
    tax_data = taxonomy(types, venues, best)
    tax = Taxonomy(tax_data)
    files = {path: data for path, data in new_survey(tax_data["survey"]["title"]).items() if path != "corpus/taxonomy.yaml"}
    header = (f"# Converted by scripts/convert_bestpapers.py from {SOURCE} at commit {commit} (MIT License):\n"
              "# the fields, their values and every declaration are generated from _data/types.yml, _data/venues.yml\n"
              "# and the award names of _data/papers.yml. Edit it like any taxonomy.\n")
    files["corpus/taxonomy.yaml"] = (header + yaml.safe_dump(tax_data, sort_keys=False, allow_unicode=True, width=110)).encode()
    files["corpus/claims.yaml"] = yaml.safe_dump({"claims": [{
        "id": "best-papers", "statement": "The list holds {best} papers that won a best-paper award.",
        "evidence_boundary": f"{SOURCE} at commit {commit[:7]}", "source": f"{SOURCE} _data/papers.yml", "status": "current",
        "scope": "pool", "checks": [{"id": "best", "label": "papers with a best-paper award", "where": {"award": "best_paper"},
                                     "count": best}]}]}, sort_keys=False).encode()
    taken_keys: set[str] = set()
    taken_ids: set[str] = set()
    for n, norm in enumerate(order, start=1):
        rec = by_title[norm]
        ids: dict = {}
        try:
            ident = from_url(rec["link"]) if rec["link"] else None
        except IdentifierError:
            ident = None
        key_of_id = f"{ident.scheme}:{ident.value}" if ident else None
        if ident is not None and key_of_id not in taken_ids:
            ids = {ident.scheme: [ident.value] if ident.scheme == "url" else ident.value}
            taken_ids.add(key_of_id)
        else:
            ids = {"label": f"BESTPAPERS-{n:04d}"}
        authors = authors_of(rec["author"])
        key = make_key(authors[0] if authors[0] != "others" else "anon", rec["year"], taken_keys)
        taken_keys.add(key)
        venue = f"{rec['venue']} {rec['year']}"
        paper = {"title": rec["title"], "authors": authors, "year": rec["year"], "venue": venue, "identifiers": ids,
                 "bibtex_key": key, "bibtex": bibtex_block(rec["title"], rec["year"], venue, {}),
                 "source": f"{SOURCE} _data/papers.yml at commit {commit} ({rec['where']})"}
        stub = retained_stub(paper, tax, key)
        stub.update(area=rec["area"], conference=names[rec["venue"]],
                    award=[c for c, _, _ in AWARD_CLASSES if c in {award_class(a) for a in rec["awards"]}],
                    award_names=rec["awards"], one_liner=f"{'; '.join(rec['awards'])} at {venue}", date_added=date,
                    tag_provenance={"award": "scripts/convert_bestpapers.py: classes of the award names (AWARD_CLASSES)"})
        stub["provenance"] = {**stub["provenance"], "added": date, "licence": "MIT", "commit": commit}
        if not stub["url"] and rec["link"].startswith(("http://", "https://")):
            stub["url"] = rec["link"]
        if not stub["url"]:
            stub["url"] = f"https://{SOURCE}"
        files[f"corpus/papers/{key}.yaml"] = dump_record(stub)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", type=Path, help="a checkout of github.com/clemense/ai-bestpapers")
    parser.add_argument("out", type=Path, help="folder of the new survey")
    parser.add_argument("--commit", required=True, help="the commit of the checkout (recorded in every record)")
    parser.add_argument("--date", default=datetime.date.today().isoformat(), help="date_added of the records")
    args = parser.parse_args(argv)
    if (args.out / "corpus/taxonomy.yaml").exists():
        print(f"{args.out} already holds a survey", file=sys.stderr)
        return 1
    read = lambda name: yaml.safe_load((args.repo / "_data" / name).read_text(encoding="utf-8"))  # noqa: E731
    files = convert(read("papers.yml"), read("types.yml"), read("venues.yml"), args.commit, args.date)
    for rel, data in sorted(files.items()):
        path = args.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"wrote {sum(rel.startswith('corpus/papers/') and rel.endswith('.yaml') for rel in files)} records to {args.out}; next: masrl build --root {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
