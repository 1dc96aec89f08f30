#!/usr/bin/env python3
"""One-time import of the survey's released data into masrl records.

Reads (never at run time of the package; only when this script is run by hand):
  <upstream>/papers.csv                           84 retained records (18 columns)
  <upstream>/papers.bib                           the manuscript's BibTeX (84 entries)
  <upstream>/excluded.csv                         32 screened-but-excluded records
  <upstream>/independent_spotcheck_2026-05-03.csv second reader's tags for 32 rows
  <facts>                                         survey-facts.yaml (tables, claims, protocol)

Writes, under the survey root:
  corpus/papers/<key>.yaml      one retained record per CSV row (key = CSV `key`)
  exclusions/<record_id>.yaml   one excluded record per CSV row
  corpus/audits/spotcheck-2026-05-03.yaml

The first release (v1, the survey as published) is then frozen from these
records with `masrl release v1 --date 2026-05-04 ...` (see the README).

How records are put together
  * papers.bib is read as `masrl add --bibtex` reads a file (masrl.bib.bibtex.parse,
    then masrl.bib.bibimport.import_entries): an entry that import would refuse, or
    a field it would not keep, stops the script.
  * CSV rows are matched to BibTeX entries by canonical identifier
    (masrl.bib.identifiers: arXiv id, OpenReview id, DOI, ACL id, URL) and, failing
    that, by title (masrl.bib.matching, the rule `masrl add` uses for duplicates) --
    never by key string (the keys differ: `magrpo` vs `magrpo2025`). Every row
    must match exactly one entry and vice versa, or the script stops.
  * Identifiers: the CSV `arxiv_id`/`url`/`identifier` read with
    masrl.bib.identifiers (a resolver URL becomes its id, a DOI in a publisher URL
    is read too), merged with what the BibTeX import read from
    `journal`/`eprint`/`doi`/`url`/`howpublished`; two different ids of one
    scheme stop the script. Only identifiers written in the sources are kept,
    none is guessed.
  * `authors` is the BibTeX author list as the BibTeX import stores it
    (masrl.bib.bibtex.record_author: "Last, First" decoded to Unicode; a trailing
    "others" is kept); `first_author` is the CSV value with LaTeX accents
    decoded. The entry's `bibtex` block is the import's (every field kept,
    LaTeX source with protective braces, whitespace runs collapsed), type first,
    then the fields in the order masrl's BibTeX export writes them
    (masrl.bib.bibexport.FIELD_ORDER); its key is `bibtex_key`.
  * Fields of the survey's other tables come from the facts file: sub-decision
    anchors, strict/broad credit (claim ledger, then the spot-check's
    strict_explicit_credit flag), the benchmark-gap table, industrial
    deployment envelopes. Tags the survey does not give (exclusion-reason
    classes, inclusion criteria of method records, near-miss what-if tags) are
    this project's hand tags, listed in the tables below; `tag_provenance`
    in every record says where each such tag came from.
  * Where a record deliberately differs from its own BibTeX entry in title,
    year or venue kind, `bibtex_differs` (table BIBTEX_DIFFERS) says why; the
    script stops if the table and the differences `masrl validate` finds
    (masrl.bib.consistency.bibtex_disagreements) do not match exactly.

Idempotent: running it again writes nothing when the files are already as it
would write them. A file that differs (it was edited by hand after the
import -- the YAML is the source of truth) is left alone and reported; pass
--overwrite to replace such files. Files are written through masrl.build.write
(new files created, never overwritten; --overwrite replaces a file only if it
still holds the bytes it was compared with).

Usage:
  python scripts/import_upstream.py [--upstream ../shared/upstream] [--facts ../shared/survey-facts.yaml] [--root .] [--overwrite]
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

import yaml

from masrl.bib import bibimport, bibtex, identifiers
from masrl.bib.bibexport import FIELD_ORDER
from masrl.bib.consistency import bibtex_disagreements
from masrl.bib.identifiers import Identifier, IdentifierError
from masrl.bib.matching import Pool, make_known
from masrl.build import write
from masrl.core.errors import UserError
from masrl.corpus.records import excluded_order, ordered, retained_order
from masrl.corpus.taxonomy import Taxonomy
from masrl.corpus.yamlio import dump_record

COMMIT = "a14d8de1d2caeea62db12d56978322cf824850a0"
#: Date of arXiv 2605.02801v1, the survey as published (release v1 of the living review).
RELEASE_DATE = "2026-05-04"
ARTIFACT = "github.com/xxzcc/awesome-llm-mas-rl"
#: The field order of the records written: the bundled taxonomy's declared ``record_order``.
_TAX = Taxonomy(yaml.safe_load((Path(__file__).resolve().parent.parent / "corpus/taxonomy.yaml").read_text(encoding="utf-8")))
RETAINED_ORDER, EXCLUDED_ORDER = retained_order(_TAX), excluded_order(_TAX)

# --- hand tags (masrl's reading where the survey gives no per-record value) ---

#: Inclusion criterion of records whose category does not decide it (rl_method, framework).
INCLUSION_BY_HAND = {
    # single-agent LLM-RL foundations
    "ppo2017": "I4", "deepseekmath2024": "I4", "instructgpt2022": "I4", "deepseek-r12025": "I4",
    "react2023": "I4", "criticlean2025": "I4",
}
#: Records for which no inclusion criterion fits exactly; the nearest one is recorded.
INCLUSION_NEAREST = {
    "latentmas": ("I4", "training-free O3 anchor needed to define a taxonomy cell; no criterion fits exactly"),
    "mas-zero2025": ("I1", "inference-time MAS design, no training; retained as a broad orchestrator signal"),
}

#: Exclusion-reason class (X1-X5) of each exclusion, read from its free-text reason.
REASON_CLASS = {
    "E001": "X1", "E002": "X1", "E003": "X1", "E004": "X3", "E005": "X1", "E006": "X1", "E007": "X1",
    "E008": "X4", "E009": "X2", "E010": "X2", "E011": "X2", "E012": "X2", "E013": "X2", "E014": "X1",
    "E015": "X1", "E016": "X5", "E017": "X5", "E018": "X2", "E019": "X4", "E020": "X5", "E021": "X5",
    "E022": "X4", "E023": "X3", "E024": "X3", "E025": "X3", "E026": "X1", "E027": "X3", "E028": "X4",
    "E029": "X4", "E030": "X5", "E031": "X5", "E032": "X2",
}

_NA = {"reward_type": "NA", "credit_granularity": "NA", "credit_mechanism": "NA"}
#: Tags the near-miss exclusions would carry if retained (the survey lists the
#: near misses; the tags are masrl's reading of each screened paper).
IF_RETAINED = {
    "E003": {"category": "framework", "is_rl": "no", **_NA, "orchestration_form": "centralized", "subdecisions": ["O3"]},
    "E006": {"category": "framework", "is_rl": "no", **_NA, "orchestration_form": "centralized", "subdecisions": ["O2"]},
    "E007": {"category": "framework", "is_rl": "no", **_NA, "orchestration_form": "planner_executor_critic", "subdecisions": []},
    "E013": {"category": "rl_method", "is_rl": "yes", "reward_type": "role", "credit_granularity": "role",
             "credit_mechanism": "unassessed", "orchestration_form": "NA", "subdecisions": []},
    "E020": {"category": "benchmark", "is_rl": "no", **_NA, "orchestration_form": "NA", "subdecisions": [],
             "domain": "tool_use", "mas_native": "no", "eval_measures": ["E1"]},
    "E021": {"category": "benchmark", "is_rl": "no", **_NA, "orchestration_form": "NA", "subdecisions": [],
             "domain": "tool_use", "mas_native": "no", "eval_measures": ["E1"]},
    "E022": {"category": "framework", "is_rl": "no", **_NA, "orchestration_form": "centralized", "subdecisions": ["O1"]},
    "E025": {"category": "industry", "is_rl": "no", **_NA, "orchestration_form": "centralized", "subdecisions": ["O2"]},
    "E030": {"category": "framework", "is_rl": "no", **_NA, "orchestration_form": "planner_executor_critic", "subdecisions": []},
    "E032": {"category": "rl_method", "is_rl": "partial", **_NA, "orchestration_form": "NA", "subdecisions": ["O2"]},
}

#: Why a retained record deliberately differs from its own BibTeX entry (field -> reason);
#: these are the only disagreements `masrl validate` accepts (see the module docstring).
BIBTEX_DIFFERS = {
    "kimi-k2-5": {"title": "the record adds '(Tech Report)' to tell the technical report from the Kimi K2.5 blog post; "
                           "the BibTeX keeps the report's own title"},
    "tau-bench2024": {"title": "the BibTeX writes the Greek letter of the published title (τ-bench); the record spells it tau-bench"},
    "malt": {"year": "the record's year is the arXiv v1 year (2024) of the survey's paper pool; "
                     "the BibTeX gives the year of the COLM 2025 proceedings"},
    "toolbench2023": {"year": "the record's year is the arXiv v1 year (2023) of the survey's paper pool; "
                              "the BibTeX gives the year of ICLR 2024"},
    "lamo2026": {"venue": "the upstream BibTeX entry is the arXiv preprint; its note says Findings of ACL 2026, the record's venue"},
}

#: Benchmark-gap measures text of the survey -> eval_measures (E2-E4 are masrl's reading).
MEASURES = {
    "E1 only": ["E1"],
    "E1; occasional cost": ["E1"],
    "E1 + partial tool/cost signals": ["E1", "E2"],
    "E1 + partial wall-clock": ["E1", "E2"],
}
#: Per-benchmark subsets for the MAS-oriented row ("open entries cover subsets").
MEASURES_MAS = {"multiagentbench2025": ["E1", "E3"], "tamas": ["E1", "E4"]}
DOMAIN = {"coding": "coding", "web / browser": "web", "research / search": "research", "tool use": "tool_use",
          "long-horizon OS": "long_horizon_os", "MAS-oriented": "mas_oriented"}


def read_csv(path: Path) -> list[dict]:
    """Rows of a CSV as dicts of strings ('NA' stays the string 'NA')."""
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def url_identifiers(url: str, where: str) -> list[Identifier]:
    """The identifiers one URL states: the id of a resolver page (arXiv, DOI, OpenReview,
    ACL Anthology) or the URL itself, plus a DOI written in a publisher URL's path."""
    try:
        ident = identifiers.from_url(url)
        doi = identifiers.doi_in_url(url) if ident.scheme == "url" else None
        return [ident] + ([identifiers.parse(doi, "doi")] if doi else [])
    except IdentifierError as err:
        sys.exit(f"import: {where}: url: {err}")


def id_mapping(idents: list[Identifier], where: str) -> dict:
    """A record's ``identifiers`` mapping (masrl.bib.identifiers.as_mapping); two different ids
    of one scheme stop the import."""
    for scheme, first, other in identifiers.conflicts(idents):
        sys.exit(f"import: {where}: two {scheme} identifiers {first!r} and {other!r}")
    return identifiers.as_mapping(idents)


def csv_identifiers(row: dict) -> list[Identifier]:
    """Identifiers of a papers.csv row: ``arxiv_id``, then each URL of ``url`` (``;``-separated)."""
    ids: list[Identifier] = []
    try:
        if row["arxiv_id"].strip():
            ids.append(identifiers.parse(row["arxiv_id"], "arxiv"))
    except IdentifierError as err:
        sys.exit(f"import: papers.csv row {row['key']!r}: arxiv_id: {err}")
    for url in row["url"].split(";"):
        if url.strip():
            ids += url_identifiers(url, f"papers.csv row {row['key']!r}")
    return ids


def bibtex_papers(text: str) -> list[dict]:
    """The papers of papers.bib as ``masrl add --bibtex`` would import them (masrl.bib.bibimport),
    in file order; a block that cannot be parsed, a refused entry or a note about an entry
    (a field not kept, a crossref) stops the import. Text between entries (the file's
    section banners) is ignored, as BibTeX ignores it."""
    parsed = bibtex.parse(text, "papers.bib")
    result = bibimport.import_entries(parsed, "papers.bib")
    lines = {e.line for e in parsed.entries}
    stop = [str(p) for p in result.problems]
    stop += [str(p) for _, _, problems in result.refused for p in problems]
    stop += [str(n) for n in result.notes if n.line in lines]
    if stop:
        sys.exit("import: papers.bib:\n" + "\n".join(stop))
    return result.papers


def match_entries(rows: list[dict], papers: list[dict]) -> dict[str, dict]:
    """CSV key -> imported BibTeX paper: the one entry sharing a canonical identifier
    with the row, else the one entry whose title is the same by masrl.bib.matching's rule."""
    where = [f"papers.bib entry {p['entry_key']!r} (line {p['line']})" for p in papers]
    pool = Pool([make_known(w, "batch", p["title"], p["identifiers"]) for w, p in zip(where, papers)])
    index = {w: i for i, w in enumerate(where)}
    matched: dict[str, dict] = {}
    used: dict[int, str] = {}
    for row in rows:
        found = pool.matches(row["title"], identifiers.as_mapping(csv_identifiers(row)))
        by_id = [m for m in found if m.key]
        hits = by_id or found
        if len(hits) != 1:
            named = "; ".join(m.message() for m in hits) or "none by identifier or title"
            sys.exit(f"import: CSV row {row['key']!r} must match exactly one BibTeX entry: {named}")
        i = index[hits[0].other.where]
        if i in used:
            sys.exit(f"import: {where[i]} matches two CSV rows, {used[i]!r} and {row['key']!r}")
        used[i] = row["key"]
        matched[row["key"]] = papers[i]
    if len(used) != len(papers):
        sys.exit(f"import: BibTeX entries without a CSV row: {[papers[i]['entry_key'] for i in range(len(papers)) if i not in used]}")
    return matched


def retained_record(row: dict, paper: dict, facts: dict, spot: dict, line: int) -> dict:
    """One retained record from a papers.csv row and its imported BibTeX paper."""
    key = row["key"]
    ids = id_mapping(csv_identifiers(row) + identifiers.record_identifiers(paper["identifiers"]), key)
    prov: dict[str, str] = {}
    rec: dict = {
        "key": key,
        "title": row["title"],
        "authors": paper["authors"],
        "first_author": bibtex.decode_latex(row["first_author"]),
        "affiliation": row["affiliation"],
        "year": int(row["year"]),
        "venue": row["venue"],
        "url": row["url"],
        "identifiers": ids,
    }
    for name in ("category", "is_rl", "reward_type", "credit_granularity"):
        rec[name] = row[name]
    # strict vs broad credit: the survey's claim ledger first, then the spot-check flag
    strict = facts["strict_credit"]
    ledger_strict = {k for cell in ("message", "orchestrator") for k in strict[cell]["strict"]}
    ledger_broad = {k for cell in ("message", "orchestrator") for k in strict[cell]["broad_only"]}
    if row["credit_granularity"] == "NA":
        rec["credit_mechanism"] = "NA"
    elif key in ledger_strict or key in ledger_broad:
        rec["credit_mechanism"] = "strict" if key in ledger_strict else "broad"
        prov["credit_mechanism"] = "survey: claim ledger (strict reading of the sparse cells)"
    elif key in spot:
        rec["credit_mechanism"] = "strict" if spot[key]["strict_explicit_credit"] == "yes" else "broad"
        prov["credit_mechanism"] = "independent spot-check 2026-05-03 (strict_explicit_credit)"
    else:
        rec["credit_mechanism"] = "unassessed"
        prov["credit_mechanism"] = "neither the survey nor its spot-check decides it"
    rec["orchestration_form"] = row["orchestration_form"]
    rec["scenario"] = row["scenario"]
    anchors = [s["id"] for s in facts["subdecisions"] if key in s["anchors"]]
    rec["subdecisions"] = anchors
    if anchors:
        prov["subdecisions"] = "survey: orchestration sub-decisions figure (anchor)"
    rec["is_core"] = row["is_core"]
    by_category = {"benchmark": "I2", "industry": "I3", "classical_marl": "I4", "survey": "I5"}
    if row["category"] in by_category:
        rec["inclusion_criterion"] = by_category[row["category"]]
        prov["inclusion_criterion"] = "derived from category"
    elif key in INCLUSION_NEAREST:
        rec["inclusion_criterion"], why = INCLUSION_NEAREST[key]
        prov["inclusion_criterion"] = f"hand-tagged (masrl), nearest criterion: {why}"
    else:
        rec["inclusion_criterion"] = INCLUSION_BY_HAND.get(key, "I1")
        prov["inclusion_criterion"] = "hand-tagged (masrl)"
    rec["verified"] = row["verified"]
    if row["category"] == "benchmark":
        gap = next((g for g in facts["benchmark_gap"] if key in g["entries"]), None)
        if gap is None:
            rec.update(domain="unassessed", mas_native="unassessed", eval_measures=[])
            prov["benchmark"] = "masrl reading: not a row of the survey's benchmark-gap table"
        else:
            rec["domain"] = DOMAIN[gap["domain"]]
            rec["mas_native"] = gap["mas_native"]
            rec["eval_measures"] = MEASURES_MAS.get(key) or MEASURES[gap["measures"]]
            rec["eval_note"] = gap["measures"]
            prov["benchmark"] = ("survey: Benchmark Gap table (domain, MAS-native, E1); "
                                 "E2-E4 membership is masrl's reading of the table's measures text")
    envelope = next((e for e in facts["industrial_envelopes"] if e["key"] == key), None)
    if envelope:
        rec["deployment_envelope"] = {
            "max_subagents": envelope["max_subagents"],
            "max_steps": envelope["max_steps"],
            **({"speedup": envelope["speedup"]} if "speedup" in envelope else {}),
            "source": "vendor announcement as reported in public coverage (not the survey's text)",
            "confidence": envelope["confidence"],
        }
    rec["one_liner"] = row["one_liner"]
    rec["notes"] = row["notes"]
    # the upstream pool was recorded through the survey's v1 date; the CSV has no per-row date
    rec["date_added"] = RELEASE_DATE
    rec["tag_provenance"] = prov
    rec["bibtex_key"] = paper["bibtex_key"]
    rec["bibtex"] = ordered(paper["bibtex"], ("type",) + FIELD_ORDER)
    if key in BIBTEX_DIFFERS:
        rec["bibtex_differs"] = BIBTEX_DIFFERS[key]
    found = {name for name, _, _ in bibtex_disagreements(rec)}
    if found != set(BIBTEX_DIFFERS.get(key, {})):
        sys.exit(f"import: {key}: the record differs from its BibTeX entry in {sorted(found) or 'nothing'}, "
                 f"BIBTEX_DIFFERS explains {sorted(BIBTEX_DIFFERS.get(key, {})) or 'nothing'}")
    rec["provenance"] = {
        "source": f"upstream papers.csv line {line} + papers.bib entry {paper['entry_key']} (line {paper['line']})",
        "artifact": ARTIFACT,
        "commit": COMMIT,
    }
    return ordered(rec, RETAINED_ORDER)


def exclusion_identifiers(row: dict) -> dict:
    """Identifiers of an excluded.csv row: ``identifier`` (``arXiv:``, ``OpenReview:``, ``ACL:``,
    ``github:`` or ``doi:`` prefixed, else a screening label), then the ``url``."""
    raw = row["identifier"].strip()
    prefix, sep, rest = raw.partition(":")
    scheme = prefix.lower() if sep and prefix.lower() in ("arxiv", "openreview", "acl", "github", "doi") else "label"
    try:
        ids = [identifiers.parse(rest if scheme != "label" else raw, scheme)]
    except IdentifierError as err:
        sys.exit(f"import: excluded.csv row {row['record_id']}: identifier: {err}")
    return id_mapping(ids + url_identifiers(row["url"], f"excluded.csv row {row['record_id']}"), row["record_id"])


def identifier_year(ids: dict) -> int | None:
    """The year an identifier itself states: arXiv YYMM.NNNNN (year of the first version),
    ACL Anthology YYYY.venue.N or X99-NNNN; None for other schemes."""
    if "arxiv" in ids:
        return 2000 + int(ids["arxiv"][:2])
    acl = ids.get("acl", "")
    if re.fullmatch(r"[0-9]{4}\..+", acl):
        return int(acl[:4])
    if re.fullmatch(r"[A-Z][0-9]{2}-[0-9]{4}", acl):
        return 1900 + int(acl[1:3]) if int(acl[1:3]) > 50 else 2000 + int(acl[1:3])
    return None


def excluded_record(row: dict, near_miss: set[str], line: int) -> dict:
    rid = row["record_id"]
    rec: dict = {
        "record_id": rid,
        "screening_label": row["screening_label"],
        "identifiers": exclusion_identifiers(row),
        "url": row["url"],
        "source": row["source"],
        "query_family": row["query_family"],
        "date_screened": row["date_screened"],
        "date_added": row["date_screened"],
        "stage": row["stage"],
        "exclusion_reason": row["exclusion_reason"],
        "reason_class": REASON_CLASS[rid],
    }
    year = identifier_year(rec["identifiers"])
    if year is not None:
        rec["year"] = year
    prov = {"reason_class": "hand-tagged (masrl reading of exclusion_reason)"}
    if year is not None:
        prov["year"] = "from the identifier (arXiv: year of the first version; ACL Anthology: volume year); the log records none"
    if rid in near_miss:
        rec["if_retained"] = IF_RETAINED[rid]
        prov["if_retained"] = "near miss per the survey's coverage stress test; tags are masrl's reading"
    rec["tag_provenance"] = prov
    rec["provenance"] = {"source": f"upstream excluded.csv line {line}", "artifact": ARTIFACT, "commit": COMMIT}
    return ordered(rec, EXCLUDED_ORDER)


def spotcheck_audit(rows: list[dict]) -> dict:
    fields = ["category", "is_rl", "reward_type", "credit_granularity", "orchestration_form"]
    return {
        "audit_id": "spotcheck-2026-05-03",
        "kind": "second_reader",
        "date": "2026-05-03",
        "description": "An independent second reader re-tagged 32 retained records from their public abstracts and pages; "
                       "strict_explicit_credit says whether the credit tag reflects an explicit credit-assignment mechanism.",
        "fields": fields,
        "rows": [
            {
                "key": r["key"],
                "original": {f: r[f"orig_{f}"] for f in fields},
                "second_reader": {f: r[f"ann_{f}"] for f in fields},
                "strict_explicit_credit": r["strict_explicit_credit"],
                "agreement_note": r["agreement_note"],
                "annotator_note": r["annotator_note"],
            }
            for r in rows
        ],
        "provenance": {"source": "upstream independent_spotcheck_2026-05-03.csv", "artifact": ARTIFACT, "commit": COMMIT},
    }


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", type=Path, default=here.parent / "shared" / "upstream")
    parser.add_argument("--facts", type=Path, default=here.parent / "shared" / "survey-facts.yaml")
    parser.add_argument("--root", type=Path, default=here)
    parser.add_argument("--overwrite", action="store_true", help="replace files that were edited after the import")
    args = parser.parse_args(argv)

    facts = yaml.safe_load(args.facts.read_text(encoding="utf-8"))
    rows = read_csv(args.upstream / "papers.csv")
    excluded = read_csv(args.upstream / "excluded.csv")
    spot_rows = read_csv(args.upstream / "independent_spotcheck_2026-05-03.csv")
    matched = match_entries(rows, bibtex_papers((args.upstream / "papers.bib").read_text(encoding="utf-8")))
    spot = {r["key"]: r for r in spot_rows}

    outputs: dict[str, bytes] = {}
    for line, row in enumerate(rows, start=2):
        outputs[f"corpus/papers/{row['key']}.yaml"] = dump_record(retained_record(row, matched[row["key"]], facts, spot, line))
    near = set(facts["near_miss_exclusions"])
    for line, row in enumerate(excluded, start=2):
        outputs[f"exclusions/{row['record_id']}.yaml"] = dump_record(excluded_record(row, near, line))
    outputs["corpus/audits/spotcheck-2026-05-03.yaml"] = dump_record(spotcheck_audit(spot_rows))

    new: dict[str, bytes] = {}
    edits: dict[str, tuple[bytes, bytes]] = {}
    unchanged = kept = 0
    for rel, data in sorted(outputs.items()):
        current = write.read_existing(args.root, rel)
        if current == data:
            unchanged += 1
        elif current is None:
            new[rel] = data
        elif args.overwrite:
            edits[rel] = (current, data)
        else:
            print(f"kept (edited after import; --overwrite replaces it): {rel}")
            kept += 1
    try:
        write.create_new(args.root, new)
        write.update(args.root, edits)
    except UserError as err:
        sys.exit(f"import: {err}")
    written = len(new) + len(edits)
    print(f"import: {len(rows)} retained, {len(excluded)} excluded, 1 audit; "
          f"{written} written, {unchanged} unchanged, {kept} kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
