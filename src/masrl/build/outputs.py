"""Every generated text file, declared as a registry of outputs (pure; no file access).

A build writes one *report tree* per population: the current pool under
``reports/`` and each frozen release under ``reports/releases/<name>/``.
Each :class:`Output` renders the files of one report kind for one tree; the
pool tree also shows the latest release beside the pool wherever the two
differ (a column in count tables, the changed cells under other tables, the
published headline beside the current one). Adding a report is one entry in
:data:`OUTPUTS`.

Figures are drawn by :mod:`masrl.build.figures` into the same trees.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable

from ..bib import bibexport, csljson
from ..corpus import schema as schemas
from ..analyses import compare
from . import keys
from ..analyses.claims import ClaimResult
from ..analyses.stats import log_column
from ..analyses.table import Table
from ..audits import report as audit_report
from .audit_outputs import audit_files
from ..core.memo import MISSING, Memo
from .pipeline import Build, Results
from ..corpus.errata import errata_items
from ..corpus.population import POOL
from ..render import readme as readme_render
from ..render.csvout import table_csv
from ..render.escape import MdSafe, md_code, md_text
from ..render.gapsout import gaps_files
from ..render.site import site_files
from ..render.jsonout import json_bytes
from ..render.markdown import render_template, table_md
from ..render.numbers import camel, numbers_tex
from ..render.tex import table_tex

REPORTS = "reports/"
#: The paragraph under the heading of TABLES.md, unless the taxonomy gives its own (``sentences.tables_intro``).
TABLES_INTRO = ("Counts come from the records; the other columns are the survey's editorial text, kept beside the\n"
                "vocabulary in `corpus/taxonomy.yaml`. Each table is also in `tables/<name>.csv` and `.md`, and as a\n"
                "booktabs tabular in `tex/<name>.tex`.")
#: Prefix of the macros of the current pool when a release exists (``\\CurrentNumRetained``).
CURRENT_PREFIX = "Current"


@dataclass(frozen=True)
class View:
    """What a renderer sees: the whole build, the population of its tree, and the
    release the pool is compared with (None in a release tree or without releases)."""

    build: Build
    results: Results
    baseline: Results | None

    @property
    def is_pool(self) -> bool:
        """True in the pool's tree (``reports/``)."""
        return self.results.name == POOL

    @property
    def claims(self) -> list[ClaimResult]:
        """The claims this tree reports: all of them in the pool's tree, those about the
        release in a release tree."""
        return list(self.build.claims) if self.is_pool else self.build.claims_about(self.results.name)

    @cached_property
    def bib_entries(self) -> str:
        """The entries of the tree's ``papers.bib`` (:func:`masrl.bib.bibexport.entries`), made
        once for the file and the site's citation boxes."""
        return bibexport.entries(list(self.results.retained_records))

    def base_table(self, name: str) -> Table | None:
        """The baseline release's table ``name`` (None without a baseline or such a table)."""
        if self.baseline is None or not self.baseline.has_table(name):
            return None
        return self.baseline.table(name)

    # ------------------------------------------------------------ what the outputs read, as digests
    @property
    def compared(self) -> Results | None:
        """The release the tree shows beside its own values (the baseline, in the pool's tree only)."""
        return self.baseline if self.is_pool else None

    def base_key(self, name: str) -> str | None:
        """The key of the compared release's table ``name`` (None without one)."""
        base = self.compared
        return base.table_key(name) if base is not None and base.has_table(name) else None

    @cached_property
    def claims_digest(self) -> str:
        """A digest of the evaluated claims the tree reports (:attr:`claims`)."""
        return keys.digest(self.claims)

    @cached_property
    def pending_digest(self) -> str:
        return keys.digest(self.build.pending)

    @cached_property
    def line(self) -> str:
        """The population line with the release beside the pool (:func:`_population_line`)."""
        return str(_population_line(self))

    @cached_property
    def line_alone(self) -> str:
        return str(_population_line(self, beside=False))

    def stats_keys(self, results: Results | None) -> list | None:
        """The keys of ``results``' tables of STATS.md (the counts and crosstabs) and its headline."""
        if results is None:
            return None
        tax = results.tax
        names = [f.name for f in tax.of("retained")] + [f"{r}_x_{c}" for r, c in tax.crosstabs] + [f.name for f in tax.of("excluded")]
        return [results.name, results.headline, [results.table_key(n) if results.has_table(n) else n for n in names]]


@dataclass(frozen=True)
class Output:
    """One kind of generated file.

    Attributes:
        name: what it is (for listings and errors).
        render: View -> ``{path relative to the report tree: bytes}``.
        releases: whether release trees get it too (else only ``reports/``).
        reads: View -> what the render reads (plain values and digests: :mod:`masrl.build.keys`),
            the key of its files (:func:`tree_units`); the same key, the same bytes.
        units: View -> the output's :class:`Unit` s, when its files are keyed in parts (one unit
            per table); by default the output is one unit, ``render`` keyed by ``reads``.
    """

    name: str
    render: Callable[[View], dict[str, bytes]]
    releases: bool = True
    reads: Callable[[View], Any] | None = None
    units: Callable[[View], list["Unit"]] | None = None


@dataclass(frozen=True)
class Unit:
    """Files of a report tree rendered together, and what they read.

    Attributes:
        name: which files (unique in its tree).
        reads: () -> what they are computed from (plain values and digests), cheap to compute:
            no analysis runs for it.
        render: () -> ``{path relative to the report tree: bytes}``.
    """

    name: str
    reads: Callable[[], Any]
    render: Callable[[], dict[str, bytes]]


def tree(results: Results) -> str:
    """Folder of a population's report tree: ``reports/`` or ``reports/releases/<name>/``."""
    return REPORTS if results.name == POOL else f"{REPORTS}releases/{results.name}/"


# ---------------------------------------------------------------- tables
def shown_table(view: View, table: Table) -> Table:
    """The table as the tree shows it: in the pool's tree, a count table carries the
    baseline release's count beside its own when they differ."""
    if view.baseline is None or not view.is_pool:
        return table
    base = compare.relabelled(view.base_table(table.name), table, view.baseline.tax, view.results.tax)
    return compare.beside_release(table, base, view.baseline.name)


def changes_note(view: View, table: Table) -> str:
    """One line listing the cells of ``table`` that differ from the baseline release
    (empty when none do, in a release tree, or for a count table that shows them as columns)."""
    if view.baseline is None or not view.is_pool or "count" in table.frame.columns:
        return ""
    base = compare.relabelled(view.base_table(table.name), table, view.baseline.tax, view.results.tax)
    if not compare.comparable(base, table):
        return ""  # another layout: an updated review's flow counts only what came after its previous version
    changes = compare.table_changes(base.frame if base is not None else None, table.frame)
    if not changes:
        return ""
    if base is None:
        return f"Not in release {view.baseline.name}."
    cells = "; ".join(f"{c['row']}" + (f" × {c['column']}" if c["column"] else "") + f": {c['before']} → {c['after']}" for c in changes)
    return f"Changed since release {view.baseline.name}: {cells}."


def _table_files(view: View) -> dict[str, bytes]:
    out = {}
    for original in view.results.all_tables() + [view.results.exclusion_log]:
        out.update(_one_table_files(view, original))
    return out


def _one_table_files(view: View, original: Table) -> dict[str, bytes]:
    """``tables/<name>.csv``, ``tables/<name>.md`` and ``tex/<name>.tex`` of one table."""
    table = shown_table(view, original)
    md = f"# {md_text(table.title)}\n\n" + table_md(table.frame)
    for line in (table.note, changes_note(view, original)):
        if line:
            md += f"\n{md_text(line)}\n"
    if table.source:
        md += f"\nSource: {md_text(table.source)}\n"
    return {f"tables/{table.name}.csv": table_csv(table.frame), f"tables/{table.name}.md": md.encode(),
            f"tex/{table.name}.tex": table_tex(table.frame).encode()}


def _table_units(view: View) -> list["Unit"]:
    """One unit per table of the tree (its three files), keyed by the table's own key and the key
    of the release's table of the same name it is shown beside."""
    results = view.results
    base = view.compared
    units = {}
    for name in results.table_names():
        units[name] = Unit(f"table {name}", lambda name=name: ["table", name, results.table_key(name), view.base_key(name),
                                                               base.name if base is not None else None],
                           lambda name=name: _one_table_files(view, results.table(name)))
    units["exclusion_log"] = Unit(
        "table exclusion_log",
        lambda: ["exclusion log", results.tax_digest, keys.of_object(results.excluded_records),
                 base.name if base is not None else None],
        lambda: _one_table_files(view, results.exclusion_log))
    return list(units.values())


def _population_line(view: View, beside: bool = True) -> MdSafe:
    """One Markdown line saying which population the report is about (user text escaped); ``beside``:
    the report shows the release's value beside the pool's where they differ."""
    pop = view.results.population
    if pop.is_release:
        rel = pop.release
        errata = "".join(f" Erratum of {e.date}: {len(e.corrections)} correction{'s' if len(e.corrections) != 1 else ''} "
                         f"of the vocabulary's wording (see {md_code('reports/RELEASES.md')})." for e in pop.errata)
        return MdSafe(f"Release **{md_text(rel.name)}** ({rel.date}; search cutoff {rel.search_cutoff}): {md_text(rel.title)}. "
                      f"Computed from its frozen snapshot {md_code(f'corpus/releases/{rel.name}.yaml')}; these numbers never change."
                      + errata)
    if view.baseline is None:
        return MdSafe("The current pool (no release has been frozen yet).")
    what = md_text(view.build.pending.describe(f"release {view.baseline.name}"))
    own = f"own reports are in {md_code(f'reports/releases/{view.baseline.name}/')}."
    shown = (f"Where it differs from {md_text(view.baseline.population.label)}, the release's value is shown beside it; "
             f"the release's {own}" if beside else f"The release's {own}")
    return MdSafe(f"The current pool ({what}). {shown}")


def _stats(view: View) -> dict[str, bytes]:
    results = view.results
    tax = results.tax
    retained_fields = {f.name for f in tax.of("retained")}
    stats_tables = [shown_table(view, t) for t in results.stats_tables]
    sections = [
        ("Retained records", [t for t in stats_tables if t.name in retained_fields]),
        ("Crosstabs", [t for t in stats_tables if "_x_" in t.name]),
        ("Exclusion log", [t for t in stats_tables if t.name not in retained_fields and "_x_" not in t.name]),
    ]
    notes = {t.name: changes_note(view, t) for t in results.stats_tables}
    base = view.baseline.headline if view.baseline is not None and view.is_pool else None
    text = render_template("stats.md.j2", headline=results.headline, sections=sections, tex=True, notes=notes,
                           population=_population_line(view), base=base,
                           base_name=view.baseline.name if view.baseline is not None else "",
                           na=tax.not_applicable or "", audited_term=tax.sentence("audited_term"))
    return {"STATS.md": text.encode()}


def _taxonomy_tables(view: View) -> dict[str, bytes]:
    tables = [shown_table(view, t) for t in view.results.axis_tables]
    notes = {t.name: changes_note(view, t) for t in view.results.axis_tables}
    intro = MdSafe(view.results.tax.sentence("tables_intro", TABLES_INTRO))
    return {"TABLES.md": render_template("tables.md.j2", tables=tables, notes=notes, population=_population_line(view),
                                         intro=intro).encode()}


def _gaps(view: View) -> dict[str, bytes]:
    results = view.results
    moved = compare.gap_moves(list(view.baseline.gaps), list(results.gaps)) if view.baseline is not None and view.is_pool else []
    return gaps_files(results, view.claims, population=_population_line(view), moved=moved,
                      base_name=view.baseline.name if view.baseline is not None else "",
                      release="" if view.is_pool else results.name)


def claim_drift(result: ClaimResult) -> str:
    """Drift of a claim's checks from the data, one part per check that no longer holds: ``+1 (records
    with ...: stated 7, computed 8)`` for a count, the bound or the share stated and computed for the
    others, and the keys a stated set gained or lost (a set of the same size that changed drifts too)."""
    parts = []
    for check in result.checks:
        if check.holds:
            continue
        d, e = check.drift(), check.expected
        if d is not None and not {"min_count", "max_count", "max_percent"} & set(e):  # an exact count or key set
            stated = e["count"] if "count" in e else f"{len(e['keys'])} keys"
            head, body, tail = f"{d:+d} (", f"{check.label}: stated {stated}, computed {check.count}", ")"
        else:  # a bound, a share or a trace: what was stated and what is computed
            head, body, tail = "", f"{check.label}: stated {check.stated()}, computed {check.computed()}", ""
        if "keys" in e:
            stated_keys, found = {str(k) for k in e["keys"]}, set(check.keys)
            body += "".join(f"; {what}: {', '.join(sorted(keys))}"
                            for what, keys in (("added", found - stated_keys), ("gone", stated_keys - found)) if keys)
        parts.append(head + body + tail)
    return "; ".join(parts) or "none (the stated figures still match the data)"


def _claims(view: View) -> dict[str, bytes]:
    claims = view.claims
    labels = {r.name: r.population.label for r in view.build.releases}
    labels[POOL] = "current pool"
    drift = {c.id: claim_drift(c) for c in claims}
    md = render_template("claims.md.j2", claims=claims, drift=drift, scopes=labels, population=_population_line(view, beside=False),
                         is_pool=view.is_pool)
    return {"claims.md": md.encode()}


def macros(results: Results, claims: list[ClaimResult], prefix: str = "") -> dict[str, int]:
    """LaTeX macro name -> number for one population: headline counts and every cell
    of its one-field count tables (``prefix`` + ``NumRetained``, ...), plus the macro
    of every check of ``claims`` (names as the ledger gives them)."""
    out = {f"{prefix}NumRetained": results.headline["retained"], f"{prefix}NumExcluded": results.headline["excluded"],
           f"{prefix}NumAudited": results.headline["audited"]}
    for table in results.stats_tables:
        if "_x_" in table.name:
            continue
        for value, count in table.frame["count"].items():
            out[f"{prefix}Num{camel(table.name)}{camel(str(value))}"] = int(count)
    for claim in claims:
        for check in claim.checks:
            if check.macro and check.count is not None:
                out[check.macro] = check.count
    return out


def _numbers(view: View) -> dict[str, bytes]:
    build = view.build
    if not view.is_pool:
        values = macros(view.results, build.claims_about(view.results.name))
        header = f"{view.results.population.label}: frozen, these values never change."
    elif view.baseline is None:
        values = macros(view.results, build.claims_about(POOL))
        header = "The current pool (no release frozen yet)."
    else:
        values = macros(view.baseline, build.claims_about(view.baseline.name))
        values.update(macros(view.results, build.claims_about(POOL), prefix=CURRENT_PREFIX))
        header = (f"Unprefixed macros: {view.baseline.population.label} (stable); "
                  f"\\{CURRENT_PREFIX}Num...: the current pool; claim macros: the population each claim is about.")
    return {"tex/numbers.tex": numbers_tex(values, header).encode()}


def _exclusions(view: View) -> dict[str, bytes]:
    log = view.results.exclusion_log
    tax = view.results.tax
    stage, reason = tax.role("stages"), tax.role("reasons")
    codes = tax.values(reason) if reason else ()
    classes = (f"{codes[0]}-{codes[-1]}" if len(codes) > 1 else codes[0]) if codes else ""
    md = render_template("exclusions.md.j2", log=log.frame, population=_population_line(view, beside=False),
                         screening_columns=[log_column(f) for f in (stage, reason) if f], stage_column=bool(stage),
                         classes=classes,
                         pending=set(view.build.pending.excluded) if view.is_pool and view.baseline is not None else set(),
                         base_name=view.baseline.name if view.baseline is not None else "")
    return {"exclusions.md": md.encode()}


def _releases(view: View) -> dict[str, bytes]:
    build = view.build
    rows = [{"name": r.name, "date": r.population.release.date, "cutoff": r.population.release.search_cutoff,
             "title": r.population.release.title, "retained": r.headline["retained"], "excluded": r.headline["excluded"],
             "digest": r.population.release.content_sha256 or "(not recorded)",
             "notes": r.population.release.notes}
            for r in build.releases]
    errata = errata_items([e for r in build.releases for e in r.population.errata])
    titles = {r["key"]: r["title"] for r in build.pool.retained_records}
    labels = {r["record_id"]: r["screening_label"] for r in build.pool.excluded_records}
    md = render_template("releases.md.j2", releases=rows, errata=errata, pending=build.pending, titles=titles, labels=labels,
                         base_name=view.baseline.name if view.baseline is not None else "", headline=build.pool.headline)
    return {"RELEASES.md": md.encode()}


def bib_survey_lines(tax) -> str:
    """The survey's lines of the header of papers.bib: the taxonomy's ``survey.bib_header``, else
    ``Survey: <title>.`` (nothing without a title)."""
    survey = tax.declared("survey")
    if isinstance(survey.get("bib_header"), str):
        return survey["bib_header"]
    return f"Survey: {survey['title']}." if isinstance(survey.get("title"), str) else ""


def _bibliography(view: View) -> dict[str, bytes]:
    records = list(view.results.retained_records)
    return {"papers.bib": bibexport.document(bibexport.header(bib_survey_lines(view.results.tax)), view.bib_entries).encode(),
            "papers.json": csljson.export(records)}


def _site(view: View) -> dict[str, bytes]:
    return site_files(view.results, view.claims, baseline=view.baseline, pending=view.build.pending, bibtex=view.bib_entries,
                      releases=view.build.releases)


def _schemas(view: View) -> dict[str, bytes]:
    tax = view.results.tax
    return {
        "schema/retained-record.schema.json": json_bytes(schemas.retained_schema(tax, for_report=True)),
        "schema/excluded-record.schema.json": json_bytes(schemas.excluded_schema(tax, for_report=True)),
        "schema/claims.schema.json": json_bytes(schemas.CLAIMS_SCHEMA),
        "schema/taxonomy.schema.json": json_bytes(schemas.TAXONOMY_SCHEMA),
        "schema/audit.schema.json": json_bytes(schemas.audit_schema(tax)),
        "schema/releases.schema.json": json_bytes(schemas.RELEASES_SCHEMA),
        **{path[len("reports/"):]: data for path, data in audit_report.schema_files().items()},
    }


def _stats_reads(view: View):
    return ["stats", view.results.tax_digest, view.stats_keys(view.results), view.stats_keys(view.compared), view.line]


def _tables_reads(view: View):
    results = view.results
    return ["tables", results.tax_digest, results.axis_keys, [view.base_key(name) for name in results.axis_names], view.line]


def _gaps_reads(view: View):
    base = view.compared
    return ["gaps", view.results.digest, view.claims_digest, base.digest if base is not None else None, view.line]


def _claims_reads(view: View):
    scopes = {c.scope for c in view.claims}
    return ["claims", view.claims_digest, [[r.name, r.population.label] for r in view.build.releases if r.name in scopes],
            view.line_alone, view.is_pool]


def _numbers_reads(view: View):
    build, results, base = view.build, view.results, view.compared
    return ["numbers", view.is_pool, view.stats_keys(results), keys.digest(build.claims_about(results.name)),
            results.population.label, view.stats_keys(base),
            None if base is None else [keys.digest(build.claims_about(base.name)), base.population.label]]


def _exclusions_reads(view: View):
    results = view.results
    pending = sorted(view.build.pending.excluded) if view.is_pool and view.baseline is not None else None
    return ["exclusions", results.tax_digest, keys.of_object(results.excluded_records), pending,
            view.baseline.name if view.baseline is not None else None, view.line_alone]


def _releases_reads(view: View):
    build = view.build
    return ["releases", [[r.population.release, r.population.errata, r.headline, r.population.label] for r in build.releases],
            keys.of_object(build.pool.retained_records), keys.of_object(build.pool.excluded_records), view.pending_digest,
            view.baseline.name if view.baseline is not None else None, build.pool.headline]


def _bibliography_reads(view: View):
    return ["bibliography", keys.of_object(view.results.retained_records), view.results.tax_digest]


def _site_reads(view: View):
    base = view.baseline
    return ["site", view.results.digest, base.digest if base is not None else None, view.claims_digest, view.pending_digest]


def _audit_reads(view: View):
    build = view.build
    return ["audit", [r.digest for r in (build.pool, *build.releases)], keys.digest(build.claims_raw), build.traces_valid,
            keys.digest(build.audits), view.claims_digest]


def _schemas_reads(view: View):
    return ["schemas", view.results.tax_digest]


#: Every text output, in build order.
OUTPUTS: tuple[Output, ...] = (
    Output("statistics (STATS.md)", _stats, reads=_stats_reads),
    Output("taxonomy tables (TABLES.md)", _taxonomy_tables, reads=_tables_reads),
    Output("tables as CSV, Markdown and LaTeX", _table_files, units=_table_units),
    Output("gap analysis", _gaps, reads=_gaps_reads),
    Output("claim ledger", _claims, reads=_claims_reads),
    Output("LaTeX number macros", _numbers, reads=_numbers_reads),
    Output("exclusion log", _exclusions, reads=_exclusions_reads),
    Output("releases and pending records", _releases, releases=False, reads=_releases_reads),
    Output("BibTeX and CSL-JSON of the retained records", _bibliography, releases=False, reads=_bibliography_reads),
    Output("catalogue site for readers", _site, releases=False, reads=_site_reads),
    Output("audit of inclusion decisions", audit_files, releases=False, reads=_audit_reads),
    Output("JSON Schemas of the input files", _schemas, releases=False, reads=_schemas_reads),
)

#: Format of the keys of :func:`tree_units` (another value never meets an older key).
KEY_FORMAT = 1

#: The files of the outputs rendered in this process, by their key (:func:`tree_units`): a build
#: of a changed pool renders only the outputs whose key changed, and a release's tree once.
UNITS = Memo(4096)


def units(view: View) -> list[Unit]:
    """Every :class:`Unit` of a view's report tree, in build order."""
    out: list[Unit] = []
    for output in OUTPUTS:
        if not view.is_pool and not output.releases:
            continue
        if output.units is not None:
            out += output.units(view)
        else:
            reads = output.reads or (lambda v: None)
            out.append(Unit(output.name, lambda reads=reads: reads(view), lambda output=output: output.render(view)))
    return out


@dataclass(frozen=True)
class Keyed:
    """One unit of a report tree with its key: ``id`` (the tree's folder and the unit's name),
    ``key`` (a digest of what it reads; :mod:`masrl.build.keys`) and ``render`` (() -> ``{path
    from the survey root: bytes}``)."""

    id: str
    key: str
    render: Callable[[], dict[str, bytes]]


def tree_units(build: Build, results: Results) -> list[Keyed]:
    """The units of one population's report tree, each with its key. Computing the keys runs no
    analysis; rendering a unit computes what it needs (and only that)."""
    view = View(build, results, build.baseline if results.name == POOL else None)
    prefix = tree(results)
    out = []
    for unit in units(view):
        unit_id = prefix + unit.name
        reads = unit.reads()
        key = keys.digest(KEY_FORMAT, unit_id, reads) if reads is not None else ""

        def render(unit=unit) -> dict[str, bytes]:
            return {prefix + rel: data for rel, data in unit.render().items()}

        out.append(Keyed(unit_id, key, render))
    return out


def rendered(unit: Keyed) -> dict[str, bytes]:
    """The files of ``unit``: rendered in this process before under its key, or now."""
    files = UNITS.get(unit.key or None)
    if files is MISSING:
        files = unit.render()
        UNITS.put(unit.key or None, files)
    return files


def render_tree(build: Build, results: Results) -> dict[str, bytes]:
    """Every text file of one population's report tree: ``{path from the survey root: bytes}``
    (an output rendered in this process before under the same key is not rendered again)."""
    out: dict[str, bytes] = {}
    for unit in tree_units(build, results):
        out.update(rendered(unit))
    return out


def readme_file(build: Build, readme: str) -> bytes:
    """README.md with its paper list regenerated from the pool.

    Raises:
        masrl.render.readme.MarkersMissing: if ``readme`` lacks the paper-list markers.
    """
    pool = build.pool
    key = keys.digest(KEY_FORMAT, "README.md", keys.of_object(pool.retained_records), pool.tax_digest, pool.headline, readme)
    data = UNITS.get(key)
    if data is MISSING:
        papers = readme_render.papers_markdown(list(pool.retained_records), pool.tax, pool.headline)
        data = readme_render.splice(readme, papers).encode()
        UNITS.put(key, data)
    return data


def render_text(build: Build, readme: str | None = None, trees: dict[str, dict[str, bytes]] | None = None) -> dict[str, bytes]:
    """Every generated text file except figures, for the pool and every release:
    ``{relative posix path: UTF-8 bytes}``. With ``readme`` (the current text of
    README.md), the README with its paper list regenerated is included. ``trees`` gives
    report trees already rendered (:func:`render_tree`), by population name.

    Raises:
        masrl.render.readme.MarkersMissing: if ``readme`` lacks the paper-list markers.
    """
    out: dict[str, bytes] = {}
    if readme is not None:
        out["README.md"] = readme_file(build, readme)
    for results in (*build.releases, build.pool):
        out.update((trees or {}).get(results.name) or render_tree(build, results))
    return out
