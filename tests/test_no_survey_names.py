"""Nothing in src/ names a field, value or code of this survey: its taxonomy is data.

The names come from ``corpus/taxonomy.yaml`` (fields, free fields, value codes, family ids,
declared tables and figures, named gaps and the claims they cite). A name that cannot be an
English word (it holds ``_``, ``-``, a digit, a space, ``/`` or a capital after its first letter)
is searched as a whole word everywhere in ``src/masrl`` (code, comments, templates, scripts of
the site); a plain word (``category``, ``stage``, ``yes``) only where code names it: a Python
string literal of exactly that word, or a quoted word in a template or script. The allow-list
below says why each remaining hit is there; an entry that no longer matches anything fails too,
so that the list stays short and true.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import yaml
from wordscan import standalone

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "masrl"

#: (path under src/masrl, name, why). A path ending in "/" covers a folder.
ALLOWED = (
    ("trace/", "*", "orchestration traces are a format of their own (reports/schema/trace.schema.json): its event "
                    "kinds and sub-decision codes O1-O5 are the trace schema's, not a taxonomy's; a survey opts in with "
                    "traces: true"),
    ("commands/trace.py", "*", "the help of masrl trace, about the trace format above"),
    ("corpus/format1.yaml", "*", "what a format-1 taxonomy meant: format 1 built this survey's tables and figures for "
                                 "every survey, so the migration of its frozen snapshots adds exactly those declarations"),
    ("render/site/assets/site.js", "*", "the site's script is copied byte for byte into every published site: it shows the "
                                        "code beside the label of two list fields in a record's detail, and its exclusion-log "
                                        "filters are URL parameters named stage and reason_class whatever the fields are called"),
    ("bib/", "*", "identifiers and metadata services (arXiv, OpenReview, ACL Anthology, Crossref's JSON `message`, "
                  "BibTeX `math`) are masrl's own, below the taxonomy in the layers (bib cannot read it)"),
    ("*", "arXiv", "the arXiv service and identifier scheme masrl reads (also a value of this survey's source field)"),
    ("*", "OpenReview", "the OpenReview service and identifier scheme masrl reads (also a value of this survey's source field)"),
    ("*", "ACL Anthology", "the ACL Anthology service masrl reads (also a value of this survey's source field)"),
    ("*", "Semantic Scholar", "the Semantic Scholar service masrl reads (also a value of this survey's source field)"),
    ("*", "citation searching", "PRISMA 2020's name of the method of identification via other methods that masrl's "
                                "citation searcher carries out (also a value of this survey's query_family field)"),
    ("review/update/sources/semanticscholar.py", "token", "the Semantic Scholar API's paging parameter and field `token` "
                                                          "(bulk search), not a credit unit"),
    ("*", "source", "every declaration, table and provenance has a `source` (where it comes from); this survey also has a "
                    "field called source, which masrl reads only through the taxonomy"),
    ("*", "survey", "the taxonomy's `survey` declaration (title, link, licence, papers.bib lines); also a value of this "
                    "survey's category field"),
    ("render/site/data.py", "reason_class", "LOG_FILTERS: the URL parameter of site.js that filters the exclusion log by "
                                           "reason class (a parameter name, not the field)"),
    ("render/site/templates/screening.html.j2", "reason_class", "the same URL parameter of site.js, in the links of the flow table"),
    ("render/site/data.py", "stage", "LOG_FILTERS: the URL parameter of site.js that filters the exclusion log by stage"),
    ("render/site/templates/screening.html.j2", "stage", "reads the flow's `stage` key (below), and the URL parameter of site.js"),
    ("analyses/prisma.py", "stage", "the PRISMA flow's data (audit.json, published) names each screening stage `stage`"),
    ("render/figures/flow.py", "stage", "the flow figure reads the `stage` key of the flow's data (above)"),
    ("corpus/declarations.py", "prisma_flow", "FLOW_TABLE: masrl's own table of the screening flow, which every survey has "
                                          "(this survey's flow figure is named after it)"),
    ("analyses/stats.py", "yes", "the exclusion log's near-miss column says yes or no (masrl's column, not a vocabulary)"),
    ("analyses/stats.py", "no", "the exclusion log's near-miss column says yes or no (masrl's column, not a vocabulary)"),
    ("render/site/templates/screening.html.j2", "yes", "the near-miss attribute and filter of the exclusion log"),
    ("render/site/templates/screening.html.j2", "no", "the near-miss attribute and filter of the exclusion log"),
    ("templates/audit.md.j2", "yes", "whether a claim's check holds, in the near-miss what-if"),
    ("templates/audit.md.j2", "no", "whether a claim's check holds, in the near-miss what-if"),
    ("render/csvout.py", "NA", "the string NA is a trap of CSV readers (pandas reads it as a missing value), whatever "
                               "survey writes it"),
    ("review/newsurvey/", "*", "the commented starting taxonomy that masrl init writes is a survey's data, not code: "
                               "its examples (a not-applicable value, screening stages) are for the new survey to edit"),
    ("corpus/rounds.py", "stage", "STAGE_COLUMN: the screener's column of queue.csv (masrl's round format) that fills "
                                  "the field of the screening.stages role, whatever it is called"),
    ("corpus/rounds.py", "reason_class", "REASON_COLUMN: the column of queue.csv that fills the field of screening.reasons"),
    ("corpus/rounds.py", "query_family", "FAMILY_COLUMN: the column of duplicates.csv naming the query family that found a "
                                         "duplicate (masrl's round format)"),
    ("render/site/feed.py", "category", "Atom's own <category> element (RFC 4287, 4.2.2), which carries the value of the "
                                        "field of screening.included_by"),
    ("build/cache.py", "no", "MASRL_CACHE=no turns the build cache off (a value of an environment variable)"),
    ("corpus/yamlio.py", "NA", "the string NA is one that other YAML readers coerce, which the record writer quotes"),
    ("corpus/taxonomy.py", "abstract", "the role screening.abstract, and DEFAULT_ABSTRACT: the field of a paper's abstract in a "
                                       "taxonomy that names none (masrl's own field before taxonomies declared it)"),
    ("corpus/taxonomy_schema.py", "abstract", "the key of the role screening.abstract in the taxonomy's own schema"),
    ("checks/declarations.py", "abstract", "the role screening.abstract, whose field it checks is a free text field"),
    ("corpus/rounds.py", "abstract", "QUEUE_COLUMNS: a candidate's abstract as its source gives it (masrl's round format), "
                                     "which update apply carries into the field of screening.abstract"),
    ("review/update/model.py", "abstract", "the abstract column of queue.csv (masrl's round format), written from a source's record"),
    ("review/update/apply.py", "abstract", "the abstract column of queue.csv, carried into the paper mapping of a new stub"),
    ("corpus/stubs.py", "abstract", "a paper mapping's abstract (masrl's metadata format, as bib's lookups give it), which "
                                    "the stub keeps in the field of screening.abstract"),
    ("review/adding.py", "abstract", "the abstract of a metadata lookup (bib.lookup's mapping), kept in the paper mapping"),
)


def _taxonomy_names() -> set[str]:
    tax = yaml.safe_load((ROOT / "tests/data/survey/corpus/taxonomy.yaml").read_text(encoding="utf-8"))
    names = set(tax["fields"]) | set(tax.get("free_fields") or {})
    for field in tax["fields"].values():
        names |= {str(v) for v in field["values"]}
    for table in tax.get("tables") or []:
        names.add(table["name"])
        names |= set(table.get("families") or {})
    for section in (tax.get("gap_analysis") or {}).get("sections") or []:
        names.add(section["json"])
    names |= {f["name"] for f in tax.get("figures") or []}
    for gap in (tax.get("gap_analysis") or {}).get("named") or []:
        names.add(gap["id"])
        if gap.get("claim"):
            names.add(gap["claim"])
    return names


def _plain(name: str) -> bool:
    return bool(re.fullmatch(r"[a-z]+|[A-Z][a-z]+", name))


def _string_literals(text: str) -> set[str]:
    """Every plain string literal's value in a Python source (f-strings' constant parts too)."""
    values: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            values.add(node.value)
    return values


@functools.lru_cache(maxsize=1)
def _hits() -> dict[tuple[str, str], int]:
    names = _taxonomy_names()
    distinctive = sorted(n for n in names if not _plain(n))
    plain = {n for n in names if _plain(n)}
    distinctive = sorted(distinctive, key=len, reverse=True)
    found: dict[tuple[str, str], int] = {}
    for path in sorted(SRC.rglob("*")):
        if not path.is_file() or path.suffix not in (".py", ".j2", ".js", ".css", ".yaml", ".json", ".md"):
            continue
        rel = path.relative_to(SRC).as_posix()
        text = path.read_text(encoding="utf-8")
        for word in standalone(distinctive, text):
            found[(rel, word)] = found.get((rel, word), 0) + 1
        if path.suffix == ".py":
            words = _string_literals(text) & plain
        else:
            words = {w for w in plain if re.search(rf"""["']{re.escape(w)}["']|\.{re.escape(w)}\b""", text)}
        for word in words:
            found[(rel, word)] = found.get((rel, word), 0) + 1
    return found


def _covers(path: str, rel: str) -> bool:
    return path == "*" or rel == path or (path.endswith("/") and rel.startswith(path))


def _allowed(rel: str, name: str) -> bool:
    return any(_covers(path, rel) and want in ("*", name) for path, want, _ in ALLOWED)


def test_src_names_no_field_value_or_code_of_this_survey():
    bad = sorted(f"{rel}: {name}" for rel, name in _hits() if not _allowed(rel, name))
    assert not bad, "src/ names this survey's fields, values or codes (make them data of the taxonomy):\n" + "\n".join(bad)


def test_every_allow_list_entry_is_needed_and_says_why():
    hits = _hits()
    for path, name, why in ALLOWED:
        assert len(why) > 30, (path, name)
        assert any(_covers(path, rel) and name in ("*", hit) for rel, hit in hits), \
            f"allow-list entry ({path}, {name}) matches nothing: remove it"


def test_the_names_are_taken_from_the_taxonomy():
    names = _taxonomy_names()
    assert len(names) > 100  # fields, their values, families, tables, figures, gaps, claims
    assert {"reward_type", "credit_granularity", "R1", "O5", "X1", "NA", "category", "reward_families"} <= names
