"""A second survey, made for the tests, that shares no field with the bundled one.

"Measuring soil organic carbon": retained records tagged by technique (one value, with a
not-applicable value NR), region (a list field) and scale, with a free-text sampling note;
excluded records by screening phase and reason (W1, W2) with a free-text database. Its
taxonomy declares a families table, a values table with a split, keys and a flag, a records
table, a years table, a named gap, a coverage section, five figures (bars, heatmap, chain,
years, flow), the README list, the site's columns, the screening roles and audit defaults.
Every expected value of the tests that use it is worked out by hand from the records below.
"""

from __future__ import annotations

from pathlib import Path

import yaml

TAXONOMY = r'''# A test survey of masrl: nothing here is a field of the bundled survey.
format_version: 2
survey:
  title: "Measuring soil organic carbon: a survey of field and laboratory methods"
  authors: ["Okafor, Ada", "Lindqvist, Per"]
  link: https://example.org/soil-carbon-survey
  data_licence: CC-BY-4.0
  bib_header: "Survey: Measuring soil organic carbon (a test survey of masrl)."
sparse_threshold: 1
not_applicable: NR
year_minimum: 1990
identifier_schemes:
  arxiv: {label: arXiv identifier, definition: arXiv id YYMM.NNNNN, resolver: "https://arxiv.org/abs/{id}"}
  doi: {label: DOI, definition: a DOI, resolver: "https://doi.org/{id}"}
  url: {label: landing-page URLs, definition: landing pages, list: true}
fields:
  technique:
    applies_to: retained
    label: Measurement technique
    definition: how the study measures soil organic carbon
    source: "test survey"
    values:
      spectroscopy: {label: spectroscopy, definition: near- or mid-infrared spectra, source: "test survey"}
      combustion: {label: dry combustion, definition: elemental analysis after combustion, source: "test survey"}
      remote_sensing: {label: remote sensing, definition: satellite or airborne imagery, source: "test survey"}
      NR: {label: not reported, definition: the study measures nothing itself, source: "test survey"}
  region:
    applies_to: retained
    multi: true
    label: Climate region
    definition: the climate regions of the study's sites
    source: "test survey"
    values:
      tropics: {label: tropical, definition: tropical sites, source: "test survey"}
      temperate: {label: temperate, definition: temperate sites, source: "test survey"}
      boreal: {label: boreal, definition: boreal sites, source: "test survey"}
      arid: {label: arid or semi-arid, definition: dry sites, source: "test survey", anchors: [garcia2021]}
  scale:
    applies_to: retained
    label: Spatial scale
    definition: the extent the study measures
    source: "test survey"
    values:
      plot: {label: plot, definition: single plots, source: "test survey"}
      field: {label: field, definition: whole fields, source: "test survey"}
      landscape: {label: landscape, definition: many fields, source: "test survey"}
  phase:
    applies_to: excluded
    label: Screening phase
    definition: when the study was screened out
    source: "test protocol"
    values:
      title_screen: {label: title screen, definition: on title and abstract, source: "test protocol"}
      full_read: {label: full reading, definition: after reading it, source: "test protocol"}
  why:
    applies_to: excluded
    label: Exclusion reason
    definition: why the study was screened out
    source: "test protocol"
    values:
      W1: {label: off topic, definition: not about soil carbon, source: "test protocol"}
      W2: {label: no measurements, definition: reports no measured values, source: "test protocol"}
free_fields:
  sampling_note: {applies_to: retained, type: text, label: Sampling note, definition: how the samples were taken}
  searched_in: {applies_to: excluded, type: text, required: true, label: Database, definition: where the screened study was found}
crosstabs:
  - [technique, region]
  - [phase, why]
gap_analysis:
  skip_values: [NR]
  combine:
    technique: every technique can measure carbon
    region: every region holds soil carbon
    technique_x_region: every technique can be used in every region
  left_out:
    scale: the scale describes the studies, not a question
  named:
    - id: arid-remote
      title: Remote sensing of arid soils
      claim: arid-remote-rare
      source: "test survey"
      selections:
        - {label: remote-sensing studies of arid sites, where: {technique: remote_sensing, region: arid}}
  sections:
    - kind: coverage
      json: region_coverage
      title: Regions each field study covers
      where: {scale: field}
      field: region
      lead: Field studies covering all of {values}
      columns: [study, regions]
      empty: none reported
tables:
  - name: technique_groups
    kind: families
    field: technique
    title: Technique groups
    index: group
    skip: [NR]
    families:
      LAB: {name: Laboratory, codes: [spectroscopy, combustion], representatives: [smith2019]}
      SAT: {name: Remote, codes: [remote_sensing], representatives: []}
    columns:
      - {name: name, attr: name}
      - {name: techniques, attr: codes}
      - {name: records, count: {}}
      - {name: at plot scale, count: {scale: plot}}
      - {name: representatives, attr: representatives, records: true}
    source: "test survey"
    note: A record counts under the group of its technique.
    site:
      id: technique-groups
      toc: Technique groups
      heading: Technique groups
      caption: Records per group of techniques
      row_header: {header: Group}
      columns:
        - {column: name, header: Name}
        - {column: techniques, header: Techniques, show: labels}
        - {column: records, header: Records}
        - {column: at plot scale, header: At plot scale}
        - {column: representatives, header: Representatives}
  - name: regions
    kind: values
    field: region
    title: Climate regions by scale
    index: region
    columns:
      - {name: label, attr: label}
      - {name: records, count: {}}
      - {split: scale, name: label}
      - {name: studies, keys: {}}
      - name: coverage
        flag:
          - {zero: {}, text: "gap: no study"}
          - {zero: {scale: plot}, text: "gap: no plot study"}
    source: "test survey"
    site:
      id: regions
      toc: Regions
      heading: Climate regions
      caption: Records per region, by scale
      row_header: {header: Region, link: true}
      columns:
        - {column: label, header: Name}
        - {column: records, header: Records}
        - {split: scale, header: label, zero: structural, newline: true}
        - {column: studies, header: Studies}
        - {column: coverage, header: Coverage}
  - name: combustion_notes
    kind: records
    title: How combustion studies sample
    where: {technique: combustion}
    require: sampling_note
    columns:
      - {name: title, field: title}
      - {name: note, field: sampling_note}
  - name: year_x_technique
    kind: years
    by: technique
    title: Records per year and technique
    source: records' year and technique
figures:
  - name: technique_counts
    kind: bars
    table: technique
    caption: Records per technique.
    title: Records by measurement technique
    labels: label
    values: count
    notes: ["n = {retained}; {count:technique:NR} with technique '{label:technique:NR}'."]
  - name: technique_region_heatmap
    kind: heatmap
    table: technique_x_region
    caption: Technique × region.
    notes: ["{gap} = no study in the cell."]
  - name: region_chain
    kind: chain
    table: regions
    caption: The regions with their studies by scale.
    title: "Regions {first} to {last} by scale"
    empty_title: Regions by scale
    item: region
    name_column: label
    count_column: records
    split: scale
    flag_column: coverage
    anchors_column: studies
    gap_legend: region without a plot study
  - name: studies_per_year
    kind: years
    table: year_x_technique
    caption: Records per year, stacked by technique.
  - name: screening_flow
    kind: flow
    table: prisma_flow
    caption: The screening flow.
screening: {stages: phase, reasons: why, included_by: technique}
readme:
  group_by: technique
  group_noun: [technique, techniques]
  tags:
    - {field: scale, prefix: scale}
    - {field: region}
site:
  columns: [technique, region, scale]
  exclusion_columns:
    - {field: searched_in, header: Database}
audit:
  default_fields: [technique, scale]
traces: false
'''

#: key -> (title, first author, year, technique, regions, scale, sampling note or None, date added)
RECORDS = {
    "smith2019": ("Infrared spectra predict topsoil carbon in temperate croplands", "Smith, Jane", 2019,
                  "spectroscopy", ["temperate"], "plot", None, "2026-01-10"),
    "jones2020": ("Dry combustion benchmarks for boreal and temperate forest soils", "Jones, Rhys", 2020,
                  "combustion", ["temperate", "boreal"], "field", "cores every 10 m to 30 cm depth", "2026-01-10"),
    "garcia2021": ("Satellite mapping of carbon in arid and tropical rangelands", "Garcia, Lucia", 2021,
                   "remote_sensing", ["arid", "tropics"], "landscape", None, "2026-01-10"),
    "chen2021": ("Portable spectrometers for tropical smallholder fields", "Chen, Wei", 2021,
                 "spectroscopy", ["tropics"], "field", None, "2026-01-10"),
    "okafor2022": ("Combustion analysis of carbon in tropical plot trials", "Okafor, Ada", 2022,
                   "combustion", ["tropics"], "plot", "composite samples of five cores", "2026-01-10"),
    "muller2023": ("A review of soil carbon accounting protocols", "Muller, Hans", 2023,
                   "NR", [], "plot", None, "2026-01-10"),
    "tanaka2024": ("Airborne imaging of boreal peatland carbon", "Tanaka, Yui", 2024,
                   "remote_sensing", ["boreal"], "field", None, "2026-01-10"),
}
#: The record added after release r1.
LATE = {"silva2025": ("Mid-infrared spectroscopy across arid and temperate farms", "Silva, Ana", 2025,
                      "spectroscopy", ["arid", "temperate"], "field", None, "2026-03-01")}

#: record id -> (title, phase, reason class, reason, database)
EXCLUDED = {
    "E001": ("Carbon markets and farmer incentives", "title_screen", "W1", "about carbon markets, not measurement", "Scopus"),
    "E002": ("A model of soil carbon turnover", "full_read", "W2", "simulates carbon, measures nothing", "Web of Science"),
    "E003": ("Ocean carbon uptake from floats", "full_read", "W1", "ocean, not soil", "Scopus"),
}

CLAIMS = {"claims": [
    {"id": "arid-remote-rare", "statement": "At most {arid_remote} retained record measures arid soils by remote sensing.",
     "evidence_boundary": "the retained records", "source": "test survey", "status": "current", "scope": "pool",
     "checks": [{"id": "arid_remote", "label": "remote-sensing records of arid sites",
                 "where": {"technique": "remote_sensing", "region": "arid"}, "max_count": 1}]},
]}
#: The claim about release r1, added once the release exists.
RELEASE_CLAIM = {"id": "lab-majority", "statement": "{lab} records of release r1 measure carbon in the laboratory.",
                 "evidence_boundary": "release r1", "source": "test survey", "status": "current", "scope": "r1",
                 "checks": [{"id": "lab", "label": "laboratory records", "where": {"technique": ["spectroscopy", "combustion"]},
                             "count": 4, "keys": ["chen2021", "jones2020", "okafor2022", "smith2019"]}]}

README = """# Soil organic carbon methods

A test survey.

<!-- masrl:papers:start -->
<!-- masrl:papers:end -->
"""


def _arxiv(i: int) -> str:
    return f"2101.{i:05d}"


def record(key: str, spec: tuple, i: int) -> dict:
    """One retained record of the second survey (its arXiv id is made up)."""
    title, author, year, technique, regions, scale, note, added = spec
    rec = {
        "key": key, "title": title, "authors": [author, "others"], "first_author": author, "affiliation": "Test University",
        "year": year, "venue": "arXiv", "url": f"https://arxiv.org/abs/{_arxiv(i)}", "identifiers": {"arxiv": _arxiv(i)},
        "technique": technique, "region": regions, "scale": scale,
    }
    if note:
        rec["sampling_note"] = note
    rec.update({
        "one_liner": f"{title.split()[0]} study of soil carbon", "notes": "", "date_added": added, "tag_provenance": {},
        "bibtex_key": key, "bibtex": {"type": "article", "title": title, "journal": f"arXiv preprint arXiv:{_arxiv(i)}",
                                       "year": str(year), "url": f"https://arxiv.org/abs/{_arxiv(i)}"},
        "provenance": {"source": "test survey"},
    })
    return rec


def exclusion(rid: str, spec: tuple, i: int) -> dict:
    title, phase, why, reason, database = spec
    return {"record_id": rid, "screening_label": title, "authors": ["Doe, Alex"], "year": 2022,
            "identifiers": {"arxiv": f"2201.{i:05d}"}, "url": f"https://arxiv.org/abs/2201.{i:05d}",
            "searched_in": database, "date_screened": "2026-01-05", "date_added": "2026-01-05",
            "phase": phase, "exclusion_reason": reason, "why": why, "provenance": {"source": "test survey"}}


def _dump(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def write_survey(root: Path, late: bool = False) -> Path:
    """The second survey at ``root`` before its release: taxonomy, seven retained and three
    excluded records, the claim ledger and a README (``late``: with the record added after r1)."""
    (root / "corpus").mkdir(parents=True, exist_ok=True)
    (root / "corpus/taxonomy.yaml").write_text(TAXONOMY, encoding="utf-8")
    for i, (key, spec) in enumerate({**RECORDS, **(LATE if late else {})}.items(), start=1):
        _dump(root / f"corpus/papers/{key}.yaml", record(key, spec, i))
    for i, (rid, spec) in enumerate(EXCLUDED.items(), start=1):
        _dump(root / f"exclusions/{rid}.yaml", exclusion(rid, spec, i))
    _dump(root / "corpus/claims.yaml", CLAIMS)
    (root / "README.md").write_text(README, encoding="utf-8")
    return root


def add_late_record(root: Path) -> None:
    """The record added after release r1, and the claim about r1."""
    (key, spec), = LATE.items()
    _dump(root / f"corpus/papers/{key}.yaml", record(key, spec, len(RECORDS) + 1))
    _dump(root / "corpus/claims.yaml", {"claims": [*CLAIMS["claims"], RELEASE_CLAIM]})
