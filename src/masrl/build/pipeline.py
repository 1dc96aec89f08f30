"""The pure part of the build: validated corpus -> populations -> analyses.

:func:`analyse` computes every frame, table, gap and flow of one population
(the current pool or a frozen release); :func:`build` analyses the pool and
every release, then evaluates the claim ledger, each claim on the population
it is about (its ``scope``). What is written, and where, is declared in
:mod:`masrl.build.outputs`. No file-system access here.
"""

from __future__ import annotations

from dataclasses import dataclass

from masrl.core.tabular import pd

from ..analyses import claims, gaps, prisma, stats
from ..analyses.declared import declared_table
from ..analyses.rounds import boundary, identification, round_states
from ..analyses.table import Table
from ..audits.analysis import confirmations
from ..audits.model import Audit, audits_of
from ..corpus.frame import excluded_frame, near_miss_frame, retained_frame
from ..core.memo import MISSING, Memo, content_key
from ..corpus.load import Corpus
from ..corpus.population import POOL, Pending, Population, pending, pool, releases
from ..corpus.declarations import tables as declared_tables
from ..corpus.taxonomy import Taxonomy


@dataclass(frozen=True)
class Results:
    """Everything computed from one population, computed once and never changed.

    Attributes:
        population: the records and vocabulary analysed (pool or release).
        tax: the controlled vocabulary of that population.
        retained, excluded: the typed frames (see :mod:`masrl.corpus.frame`).
        near_misses: frame of the near-miss exclusions tagged as if retained.
        retained_records, excluded_records: the record mappings, sorted by key / record id.
        headline: retained / excluded / audited record counts.
        stats_tables: count tables and crosstabs (STATS.md).
        axis_tables: the survey's declared tables (taxonomy ``tables``, those of TABLES.md).
        gaps, gap_sections: the gap analysis: every empty and sparse cell, and the declared
            sections (``gap_analysis.sections``) evaluated.
        prisma: the PRISMA 2020 flow as data (an update of ``previous`` when given).
        flow_tables: the flow table and the declared tables of records per year.
        exclusion_log: one row per excluded record (id, title, authors, year, stage, reason).
    """

    population: Population
    tax: Taxonomy
    retained: pd.DataFrame
    excluded: pd.DataFrame
    near_misses: pd.DataFrame
    retained_records: tuple[dict, ...]
    excluded_records: tuple[dict, ...]
    headline: dict
    stats_tables: tuple[Table, ...]
    axis_tables: tuple[Table, ...]
    gaps: tuple[gaps.Gap, ...]
    gap_sections: tuple[gaps.SectionResult, ...]
    prisma: dict
    flow_tables: tuple[Table, ...]
    exclusion_log: Table

    @property
    def name(self) -> str:
        """``pool`` or the release name."""
        return self.population.name

    def all_tables(self) -> list[Table]:
        """Every table written to ``tables/`` and ``tex/`` of the population's report tree."""
        return [*self.stats_tables, *self.axis_tables, *self.flow_tables]

    def table(self, name: str) -> Table:
        """The table called ``name`` (KeyError if there is none)."""
        for table in self.all_tables():
            if table.name == name:
                return table
        raise KeyError(name)

    def has_table(self, name: str) -> bool:
        """Whether a table called ``name`` exists for this population."""
        return any(t.name == name for t in self.all_tables())

    def section(self, key: str) -> gaps.SectionResult:
        """The declared section of the gap analysis whose gaps.json key is ``key`` (KeyError if none)."""
        for result in self.gap_sections:
            if result.section.json == key:
                return result
        raise KeyError(key)

    def populations(self) -> dict[str, pd.DataFrame]:
        """The record populations a claim check can select from (frames, index = key or record id).

        Computed once per :class:`Results` (every claim of a build checks against them; the
        frames are read-only), and handed out as a new dict each time."""
        cached = self.__dict__.get("_populations")
        if cached is None:
            cached = {
                "retained": self.retained,
                "retained_with_near_misses": pd.concat([self.retained, self.near_misses]),
                "near_misses": self.near_misses,
                "excluded": self.excluded,
            }
            object.__setattr__(self, "_populations", cached)
        return dict(cached)


def analyse(population: Population, previous: Population | None = None, audits: list[Audit] = (),
            rounds: dict | None = None) -> Results:
    """Compute every analysis of one population whose records validate.

    ``previous`` is the population of the previous version of the review (the
    last release before it); with it, the PRISMA flow follows the PRISMA 2020
    template for updated reviews whenever records were added or dropped.
    ``audits`` (the pool's second-reader audits) add, per screening stage, the
    exclusions a second reader checked and confirmed to the flow table. ``rounds`` (the pool's
    update rounds since ``previous``, :func:`masrl.analyses.rounds.identification`) give the
    updated flow its identification counts.
    """
    tax = Taxonomy(population.taxonomy)
    retained_records, excluded_records = population.retained, population.excluded
    retained = retained_frame(list(retained_records), tax)
    excluded = excluded_frame(list(excluded_records), tax)
    flow = prisma.screening_flow(retained, excluded, tax, previous=_previous_members(previous), rounds=rounds)
    decls = declared_tables(tax)
    computed = [declared_table(d, retained, list(retained_records), tax) for d in decls]
    return Results(
        population=population,
        tax=tax,
        retained=retained,
        excluded=excluded,
        near_misses=near_miss_frame(list(excluded_records), tax),
        retained_records=retained_records,
        excluded_records=excluded_records,
        headline=stats.headline(retained, excluded),
        stats_tables=tuple(stats.stats_tables(retained, excluded, tax)),
        axis_tables=tuple(t for d, t in zip(decls, computed) if d.kind != "years"),
        gaps=tuple(gaps.find_gaps(retained, tax)),
        gap_sections=tuple(gaps.sections(retained, list(retained_records), tax)),
        prisma=flow,
        flow_tables=(_flow_table(flow, tax, audits, excluded_records), *(t for d, t in zip(decls, computed) if d.kind == "years")),
        exclusion_log=stats.exclusion_log(list(excluded_records), tax),
    )


def _flow_table(flow: dict, tax: Taxonomy, audits: list[Audit], excluded_records) -> Table:
    table = prisma.prisma_table(flow, tax)
    if "update" in flow or not audits:
        return table  # an update's rows are the new records only; second readers are counted over the whole log
    return prisma.with_second_reader(table, confirmations(list(audits), {r["record_id"]: r for r in excluded_records},
                                                          tax.role("stages")))


def rounds_since(corpus: Corpus, frozen: list[Population]) -> dict | None:
    """The identification counts of the update rounds after the latest of the releases ``frozen``
    (every round that no release covers, :class:`masrl.analyses.rounds.Boundary`; every round without
    a release), summed (:func:`masrl.analyses.rounds.identification`); None without rounds.
    ``masrl release`` freezes them into the new release's snapshot, which so covers those rounds."""
    states = round_states(corpus.rounds, corpus.retained, corpus.excluded, after=boundary(frozen))
    return identification(states)


def _previous_members(previous: Population | None) -> prisma.Previous | None:
    if previous is None:
        return None
    return prisma.Previous(previous.label, previous.keys, previous.record_ids)


@dataclass(frozen=True)
class Build:
    """The whole build: the pool, every release, and the claim ledger evaluated.

    Attributes:
        pool: results of the current pool.
        releases: results of every frozen release, in release order.
        claims: every claim of the ledger, each evaluated on the population of its scope.
        claims_raw: the ledger as written (for what-if re-evaluation and diffs).
        traces_valid: packaged example-trace name -> whether it validates.
        audits: the second-reader audits of the pool (:class:`masrl.audits.model.Audit`), in id order.
        pending: records of the pool that the latest release does not hold.
    """

    pool: Results
    releases: tuple[Results, ...]
    claims: tuple[claims.ClaimResult, ...]
    claims_raw: tuple[dict, ...]
    traces_valid: dict
    audits: tuple[Audit, ...]
    pending: Pending

    @property
    def baseline(self) -> Results | None:
        """The latest release (the published version the pool is compared with), or None."""
        return self.releases[-1] if self.releases else None

    def population(self, name: str) -> Results:
        """Results of the pool (``pool``) or of the release called ``name`` (KeyError if unknown)."""
        if name == POOL:
            return self.pool
        for results in self.releases:
            if results.name == name:
                return results
        raise KeyError(name)

    def claims_about(self, name: str) -> list[claims.ClaimResult]:
        """The claims whose scope is the population ``name``, in ledger order."""
        return [c for c in self.claims if c.scope == name]


#: The analyses of the frozen releases last computed in this process, keyed by everything
#: :func:`analyse` reads for a release (its population, the previous one's label, keys and record
#: ids): a second build in one process (``masrl diff`` builds both sides) analyses an unchanged
#: release once.
_RELEASES = Memo(8)


def _release_results(population: Population, previous: Population | None) -> Results:
    key = content_key(population, _previous_members(previous))
    results = _RELEASES.get(key)
    if results is MISSING:
        results = analyse(population, previous, rounds=population.identification if previous else None)
        _RELEASES.put(key, results)
    return results


def build(corpus: Corpus, traces_valid: dict[str, bool] | None = None) -> Build:
    """Analyse the pool and every release of a corpus that :func:`masrl.checks.validate.validate`
    accepted, then evaluate every claim on the population it is about. A frozen release
    analysed earlier in this process from the same population is not analysed again (its
    :class:`Results` are never changed)."""
    traces_valid = dict(traces_valid or {})
    frozen = releases(corpus)
    release_results = []
    previous = None
    for population in frozen:
        release_results.append(_release_results(population, previous))
        previous = population
    current = pool(corpus)
    audits = tuple(audits_of(corpus))
    pool_results = analyse(current, previous, audits, rounds_since(corpus, frozen) if previous is not None else None)
    by_name = {r.name: r for r in [*release_results, pool_results]}
    ledger = []
    for claim in corpus.claims:
        scope = by_name[claim.get("scope", POOL)]
        ledger.append(claims.claim_result(claim, scope.populations(), scope.tax, traces_valid))
    return Build(
        pool=pool_results,
        releases=tuple(release_results),
        claims=tuple(ledger),
        claims_raw=tuple(corpus.claims),
        traces_valid=traces_valid,
        audits=audits,
        pending=pending(current, previous),
    )
