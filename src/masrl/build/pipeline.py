"""The pure part of the build: validated corpus -> populations -> analyses.

:func:`analyse` computes every frame, table, gap and flow of one population
(the current pool or a frozen release); :func:`build` analyses the pool and
every release, then evaluates the claim ledger, each claim on the population
it is about (its ``scope``). What is written, and where, is declared in
:mod:`masrl.build.outputs`. No file-system access here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from masrl.core.tabular import pd

from ..analyses import claims, gaps, prisma, stats
from ..analyses.declared import declared_table
from ..analyses.gap_plan import gap_tables
from ..analyses.prisma import FLOW_TABLE
from ..analyses.rounds import boundary, identification, round_states
from ..analyses.table import Table
from ..audits.analysis import confirmations
from ..audits.model import Audit, audits_of
from ..corpus.frame import excluded_frame, near_miss_frame, retained_frame
from ..core.memo import MISSING, Memo, content_key
from . import keys
from ..corpus.load import Corpus
from ..corpus.population import POOL, Pending, Population, pending, pool, releases
from ..corpus.declarations import gap_sections, tables as declared_tables
from ..corpus.taxonomy import Taxonomy


#: The analysis tables computed in this process, keyed by exactly what each reads (its kind and
#: declaration, the vocabulary, and the values of the columns it reads, record by record): a table
#: of a changed population is computed again only when the change touched one of its columns, and a
#: frozen release's tables once per process (:func:`masrl.core.memo.set_enabled` turns it off).
TABLES = Memo(4096)


class Results:
    """Everything computed from one population, each part computed when first asked for (a table
    alone, by :meth:`table`), and never changed.

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

    Each table is computed from the columns it reads alone (its memo key, :data:`TABLES`).
    """

    def __init__(self, population: Population, previous: Population | None = None, audits=(), rounds: dict | None = None):
        self.population = population
        self._previous = previous
        self._audits = tuple(audits)
        self._rounds = rounds
        self._computed: dict[tuple, Table] = {}

    def __repr__(self) -> str:
        return f"Results({self.population.name!r})"

    @property
    def name(self) -> str:
        """``pool`` or the release name."""
        return self.population.name

    @cached_property
    def tax(self) -> Taxonomy:
        return Taxonomy(self.population.taxonomy)

    @property
    def retained_records(self) -> tuple[dict, ...]:
        return self.population.retained

    @property
    def excluded_records(self) -> tuple[dict, ...]:
        return self.population.excluded

    @cached_property
    def retained(self) -> pd.DataFrame:
        return retained_frame(list(self.population.retained), self.tax)

    @cached_property
    def excluded(self) -> pd.DataFrame:
        return excluded_frame(list(self.population.excluded), self.tax)

    @cached_property
    def near_misses(self) -> pd.DataFrame:
        return near_miss_frame(list(self.population.excluded), self.tax)

    @cached_property
    def headline(self) -> dict:
        retained, excluded = len(self.population.retained), len(self.population.excluded)
        return {"retained": retained, "excluded": excluded, "audited": retained + excluded}

    # ------------------------------------------------------------ the tables, one by one
    @cached_property
    def tax_digest(self) -> str:
        """:func:`masrl.build.keys.digest` of the vocabulary (the declarations with it)."""
        return keys.of_object(self.population.taxonomy)

    @cached_property
    def digest(self) -> str:
        """A digest of everything these analyses read: the population (records, vocabulary,
        release), the previous version's members, the audits and the update rounds."""
        previous = _previous_members(self._previous)
        return keys.digest(keys.of_object(self.population), None if previous is None else
                           [previous.label, sorted(previous.keys), sorted(previous.record_ids)],
                           self._audits, self._rounds)

    @cached_property
    def _decls(self) -> list:
        return declared_tables(self.tax)

    @cached_property
    def _makers(self) -> dict:
        """``{table name: (kind, argument)}`` of every table of :meth:`all_tables`, in that order
        (the first of two tables of one name wins, as :meth:`table` always found it)."""
        tax = self.tax
        makers: dict = {}
        for f in tax.of("retained"):
            makers.setdefault(f.name, ("count", f))
        for rows, cols in tax.crosstabs:
            makers.setdefault(f"{rows}_x_{cols}", ("crosstab", (rows, cols)))
        for f in tax.of("excluded"):
            makers.setdefault(f.name, ("count", f))
        for d in self._decls:
            if d.kind != "years":
                makers.setdefault(d.name, ("declared", d))
        makers.setdefault(FLOW_TABLE, ("flow", None))
        for d in self._decls:
            if d.kind == "years":
                makers.setdefault(d.name, ("declared", d))
        return makers

    def _reads(self, kind: str, arg) -> list:
        """What one table reads: its kind and declaration, the vocabulary, and the values of the
        columns it reads, record by record (the flow table: everything, :attr:`digest`)."""
        tax = self.tax
        if kind == "count":
            records = self.population.retained if arg.applies_to == "retained" else self.population.excluded
            index = "key" if arg.applies_to == "retained" else "record_id"
            return ["count", arg.name, arg.applies_to, self.tax_digest, [[r[index], r.get(arg.name)] for r in records]]
        if kind == "crosstab":
            rows, cols = arg
            applies = tax.fields[rows].applies_to if rows in tax.fields else "retained"
            records = self.population.retained if applies == "retained" else self.population.excluded
            index = "key" if applies == "retained" else "record_id"
            return ["crosstab", rows, cols, self.tax_digest, [[r[index], r.get(rows), r.get(cols)] for r in records]]
        if kind == "declared":
            names = sorted({n.split(".")[0] for n in _declared_reads(arg)})
            return ["declared", arg, self.tax_digest,
                    [[r["key"], [r.get(n) for n in names]] for r in self.population.retained]]
        return ["flow", self.digest]

    def _column_key(self, kind: str, arg) -> str:
        """The key of one table (:meth:`_reads`, digested)."""
        return keys.digest(self._reads(kind, arg))

    def table_key(self, name: str) -> str:
        """The key of the table called ``name`` (KeyError if there is none): a digest of what it
        reads, computed without computing the table."""
        return self._key(*self._makers[name])

    @cached_property
    def axis_names(self) -> list[str]:
        """The names of :attr:`axis_tables`, in order."""
        return [d.name for d in self._decls if d.kind != "years"]

    @cached_property
    def axis_keys(self) -> list[str]:
        """The keys of :attr:`axis_tables` (what each reads, digested), in order, without computing them."""
        return [self._key("declared", d) for d in self._decls if d.kind != "years"]

    def _key(self, kind: str, arg) -> str:
        slot = ("key", kind, arg.name if kind == "count" else id(arg) if kind == "declared" else arg)
        key = self._computed.get(slot)
        if key is None:
            key = self._computed[slot] = self._column_key(kind, arg)
        return key

    def table_names(self) -> list[str]:
        """The names of :meth:`all_tables`, in order, without computing them."""
        tax = self.tax
        return [*(f.name for f in tax.of("retained")), *(f"{r}_x_{c}" for r, c in tax.crosstabs),
                *(f.name for f in tax.of("excluded")), *(d.name for d in self._decls if d.kind != "years"),
                FLOW_TABLE, *(d.name for d in self._decls if d.kind == "years")]

    def _compute(self, kind: str, arg) -> Table:
        if kind == "count":
            frame = self.retained if arg.applies_to == "retained" else self.excluded
            return stats.count_table(frame, arg.name, self.tax, arg.applies_to)
        if kind == "crosstab":
            rows, cols = arg
            frame = self.retained if self.tax.fields[rows].applies_to == "retained" else self.excluded
            return stats.crosstab_table(frame, rows, cols, self.tax)
        if kind == "declared":
            return declared_table(arg, self.retained, list(self.population.retained), self.tax)
        return _flow_table(self.prisma, self.tax, list(self._audits), self.population.excluded)

    def _get(self, kind: str, arg) -> Table:
        """One table of ``kind`` (``count``, ``crosstab``, ``declared``, ``flow``), from this
        population's tables, the process's memo (:data:`TABLES`), or computed."""
        slot = (kind, arg.name if kind == "count" else id(arg) if kind == "declared" else arg)
        table = self._computed.get(slot)
        if table is None:
            key = self._key(kind, arg)
            table = TABLES.get(key)
            if table is MISSING:
                table = self._compute(kind, arg)
                TABLES.put(key, table)
            self._computed[slot] = table
        return table

    def table(self, name: str) -> Table:
        """The table called ``name`` (KeyError if there is none), computed alone when first asked for."""
        return self._get(*self._makers[name])

    def has_table(self, name: str) -> bool:
        """Whether a table called ``name`` exists for this population (nothing is computed)."""
        return name in self._makers

    @cached_property
    def stats_tables(self) -> tuple[Table, ...]:
        tax = self.tax
        return (*(self._get("count", f) for f in tax.of("retained")),
                *(self._get("crosstab", pair) for pair in tax.crosstabs),
                *(self._get("count", f) for f in tax.of("excluded")))

    @cached_property
    def axis_tables(self) -> tuple[Table, ...]:
        return tuple(self._get("declared", d) for d in self._decls if d.kind != "years")

    @cached_property
    def flow_tables(self) -> tuple[Table, ...]:
        return (self._get("flow", None), *(self._get("declared", d) for d in self._decls if d.kind == "years"))

    def all_tables(self) -> list[Table]:
        """Every table written to ``tables/`` and ``tex/`` of the population's report tree."""
        return [*self.stats_tables, *self.axis_tables, *self.flow_tables]

    # ------------------------------------------------------------ the rest
    @cached_property
    def prisma(self) -> dict:
        return prisma.screening_flow(self.retained, self.excluded, self.tax,
                                     previous=_previous_members(self._previous, self.population.excluded),
                                     rounds=self._rounds)

    @cached_property
    def gaps(self) -> tuple[gaps.Gap, ...]:
        tax = self.tax
        names = sorted({n for table in gap_tables(tax) for n in table.split("_x_", 1) if n in tax.fields} |
                       {n for r, c in tax.crosstabs if f"{r}_x_{c}" in gap_tables(tax) for n in (r, c)})
        key = keys.digest("gaps", self.tax_digest, [[r["key"], [r.get(n) for n in names]] for r in self.population.retained])
        found = TABLES.get(key)
        if found is MISSING:
            found = tuple(gaps.find_gaps(self.retained, tax))
            TABLES.put(key, found)
        return found

    @cached_property
    def gap_sections(self) -> tuple[gaps.SectionResult, ...]:
        out = []
        for section in gap_sections(self.tax):
            if section.kind == "table":
                out.append(gaps.SectionResult(section, table=self._get("declared", section.table)))
            else:
                out.append(gaps.SectionResult(section, coverage=gaps.coverage(
                    self.retained, dict(section.spec.get("where") or {}), str(section.spec.get("field")), self.tax)))
        return tuple(out)

    @cached_property
    def exclusion_log(self) -> Table:
        return stats.exclusion_log(list(self.population.excluded), self.tax)

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
            self.__dict__["_populations"] = cached
        return dict(cached)


def _declared_reads(decl) -> set[str]:
    """The top-level record fields a declared table reads (:func:`masrl.analyses.declared.reads`)."""
    from ..analyses.declared import reads

    return reads(decl)


def analyse(population: Population, previous: Population | None = None, audits: list[Audit] = (),
            rounds: dict | None = None) -> Results:
    """The analyses of one population whose records validate, each computed when first asked for.

    ``previous`` is the population of the previous version of the review (the
    last release before it); with it, the PRISMA flow follows the PRISMA 2020
    template for updated reviews whenever records were added or dropped.
    ``audits`` (the pool's second-reader audits) add, per screening stage, the
    exclusions a second reader checked and confirmed to the flow table. ``rounds`` (the pool's
    update rounds since ``previous``, :func:`masrl.analyses.rounds.identification`) give the
    updated flow its identification counts.
    """
    return Results(population, previous, audits, rounds)


def _flow_table(flow: dict, tax: Taxonomy, audits: list[Audit], excluded_records) -> Table:
    table = prisma.prisma_table(flow, tax)
    if not audits:
        return table
    confirmed = confirmations(list(audits), {r["record_id"]: r for r in excluded_records}, tax.role("stages"))
    if "update" in flow:  # an update's rows are the new records only; second readers are counted over the whole log
        return prisma.second_reader_note(table, confirmed, tax)
    return prisma.with_second_reader(table, confirmed)


def rounds_since(corpus: Corpus, frozen: list[Population]) -> dict | None:
    """The identification counts of the update rounds after the latest of the releases ``frozen``
    (every round that no release covers, :class:`masrl.analyses.rounds.Boundary`; every round without
    a release), summed (:func:`masrl.analyses.rounds.identification`), with the candidates of earlier
    rounds included since (``carried_over``) or still waiting (``awaiting_earlier``); None when there
    is none of these.
    ``masrl release`` freezes them into the new release's snapshot, which so covers those rounds."""
    states = rounds_after(corpus, frozen)
    out = identification(states)
    if not frozen:
        return out
    current = {s.round_id for s in states}
    carried = _carried_over(corpus, frozen[-1], current)
    earlier = sum(s.awaiting for s in round_states(corpus.rounds, corpus.retained, corpus.excluded) if s.round_id not in current)
    if out is None and (carried or earlier):  # no round since, but candidates of earlier rounds decided or waiting
        out = identification([], empty=True)
    if out is not None and carried:
        out["carried_over"] = carried
    if out is not None and earlier:  # candidates of a round an earlier release covered, still undecided
        out["awaiting_earlier"] = earlier
    return out


def counts_rounds(ident: dict | None) -> bool:
    """Whether identification counts (:func:`rounds_since`, or a release's frozen ones) say anything of update
    rounds: rounds searched, or candidates of earlier rounds decided or still waiting since."""
    return bool(ident and (ident.get("rounds") or ident.get("carried_over") or ident.get("awaiting_earlier")))


def _carried_over(corpus: Corpus, previous: Population, current: set[str]) -> int:
    """Records added since ``previous`` (the latest release) from the queue of a round it covered: candidates
    a database search found before that release that were still awaiting a decision then (not records
    identified by other methods in this update)."""
    new = 0
    for state in round_states(corpus.rounds, corpus.retained, corpus.excluded):
        if state.round_id in current:
            continue
        for held in set(state.applied.values()):  # a record the previous version held (retained, or excluded: also
            if held in corpus.retained:              # one moved since, or overturned) was decided then: not awaiting
                rec = corpus.retained[held]
                new += rec.get("key") not in previous.keys and str(rec.get("former_record_id")) not in previous.record_ids
            elif held in corpus.excluded:
                rec = corpus.excluded[held]
                new += rec.get("record_id") not in previous.record_ids and str(rec.get("former_key")) not in previous.keys
    return new


def rounds_after(corpus: Corpus, frozen: list[Population]) -> list:
    """The update rounds that no release of ``frozen`` covers (:class:`masrl.analyses.rounds.RoundState`)."""
    return round_states(corpus.rounds, corpus.retained, corpus.excluded, after=boundary(frozen))


def _previous_members(previous: Population | None, excluded=()) -> prisma.Previous | None:
    """The previous version's members; ``excluded``: the records of the exclusion log now (those moved there from
    its retained records are dropped ones, not new)."""
    if previous is None:
        return None
    moved = [r for r in excluded if r.get("former_key") in previous.keys]
    return prisma.Previous(previous.label, previous.keys, previous.record_ids, frozenset(r["record_id"] for r in moved),
                           frozenset(r["former_key"] for r in moved))


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
        rounds = population.identification if previous and counts_rounds(population.identification) else None
        results = analyse(population, previous, rounds=rounds)
        _RELEASES.put(key, results)
    return results


#: The analyses of the pools last analysed in this process, keyed as :data:`_RELEASES` keys a release
#: (and by the audits and update rounds its flow counts): a build of the same corpus again (a test
#: suite, ``masrl resolve`` after ``build``) shares the tables already computed.
_POOLS = Memo(16)


def _pool_results(population: Population, previous: Population | None, audits: tuple, rounds: dict | None) -> Results:
    key = content_key(population, _previous_members(previous), audits, rounds)
    results = _POOLS.get(key)
    if results is MISSING:
        results = analyse(population, previous, audits, rounds)
        _POOLS.put(key, results)
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
    rounds = rounds_since(corpus, frozen) if previous is not None else None
    flow_of = previous
    if (previous is not None and not (rounds or {}).get("rounds")
            and (current.keys, current.record_ids) == (previous.keys, previous.record_ids)):
        # no record added or dropped since the latest release, no round searched: the pool's flow is that
        # release's own (an update of the release before it, with the rounds it froze), not the whole log's
        flow_of = frozen[-2] if len(frozen) > 1 else None
        rounds = previous.identification if flow_of is not None and counts_rounds(previous.identification) else None
    pool_results = _pool_results(current, flow_of, audits, rounds)
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
