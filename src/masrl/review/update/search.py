"""One search round: the window and the selection, every query of every source, then the files.

:func:`plan_search` checks the arguments against the protocol and the releases (every problem
at once); :func:`run_search` sends the queries, source by source and family by family, splits
what they found into candidates and duplicates (:mod:`.dedupe`), ranks the candidates
(:mod:`.rank`) and returns the round's files (:mod:`.model`). A source that cannot be searched
ends the run with one line naming its host; nothing is returned then, so nothing is written
(an interrupted run likewise writes nothing): a round is written whole or not at all. So does a
search that would lose records: a query whose result set passes the paging bound fails, naming
how many records were not fetched and why, unless the run allows it (``allow_incomplete``:
the round then records them). Records returned outside the window are counted in
``round.yaml`` and named in the run's notes. Before anything is returned, the round's files are
put through the checks of ``masrl validate`` (:func:`masrl.checks.protocol.check_rounds`): a
round masrl would write and its own checks refuse is never written.
"""

from __future__ import annotations

from collections import Counter

import datetime
import os
from dataclasses import dataclass
from typing import Callable

from ...bib.fetch import endpoint_problem
from ...core import clock
from ...core.didyoumean import did_you_mean
from ...core.errors import COMMAND_LINE, Problem, UserError, sort_key, summary
from ...corpus.load import TAXONOMY, parse_tree
from ...corpus.releases import latest, releases_from
from ...corpus.rounds import PROTOCOL, ROUNDS
from . import dedupe, model
from .protocol import Protocol
from .rank import rank
from .sources.base import SourceError


@dataclass(frozen=True)
class SearchPlan:
    """What a round searches: its id, the window (``YYYY-MM-DD``, both ends included), the
    source names and the family names, in protocol order."""

    round_id: str
    since: str
    until: str
    sources: tuple[str, ...]
    families: tuple[str, ...]


@dataclass(frozen=True)
class SearchResult:
    """A finished round: its files and the numbers of its one-line summary."""

    files: dict
    round_id: str
    queries: int
    requests: int
    identified: dict
    duplicates: int
    queued: int
    notes: tuple = ()


def _date_problem(flag: str, value: str) -> Problem | None:
    why = clock.date_problem(value)
    return None if why is None else Problem(COMMAND_LINE, None, flag, why)


def _before(day: str, days) -> str:
    """``day`` (YYYY-MM-DD) less ``days`` days (a whole number; anything else, as validate names it, none)."""
    import datetime

    if not isinstance(days, int) or isinstance(days, bool) or days <= 0:
        return day
    try:
        return (datetime.date.fromisoformat(day) - datetime.timedelta(days=days)).isoformat()
    except ValueError:
        return day


def plan_search(corpus, protocol: Protocol, today: str, since: str | None = None, until: str | None = None,
                sources: list[str] | None = None, families: list[str] | None = None) -> SearchPlan:
    """The round to search. ``since`` defaults to the last release's search cutoff (the
    protocol's ``date_cutoff`` without a release), less the protocol's ``window_overlap_days``
    (sources list some papers after the day they give them), ``until`` to ``today``; ``sources`` and
    ``families`` default to all of the protocol's.

    Raises:
        UserError: with every problem of the arguments (a bad date, a window that ends before it
            starts or after today, an unknown source or family, with "did you mean").
    """
    problems = [p for flag, value in (("--since", since), ("--until", until)) if value is not None
                and (p := _date_problem(flag, value))]
    release = latest(releases_from(corpus.releases))
    if since is None:
        since = release.search_cutoff if release else str((corpus.protocol or {}).get("date_cutoff") or today)
        since = _before(since, (corpus.protocol or {}).get("window_overlap_days"))
    until = until or today
    if not problems and since > until:
        problems.append(Problem(COMMAND_LINE, None, "--since", f"{since} is after the end of the window ({until})"))
    if not problems and until > today:
        problems.append(Problem(COMMAND_LINE, None, "--until", f"{until} is in the future (today is {today})"))
    names = list(protocol.searchers)
    for name in sources or []:
        if name not in names:
            problems.append(Problem(COMMAND_LINE, None, "--source", f"{name!r} is not a source of the protocol; allowed: "
                                                                    f"{', '.join(names)}{did_you_mean(name, names)}"))
    family_names = [f.name for f in protocol.families]
    for name in families or []:
        if name not in family_names:
            problems.append(Problem(COMMAND_LINE, None, "--family", f"{name!r} is not a query family of the protocol; "
                                    f"allowed: {', '.join(family_names)}{did_you_mean(name, family_names)}"))
    if problems:
        raise UserError(summary(problems, "nothing was searched."), sorted(problems, key=sort_key))
    chosen_sources = tuple(n for n in names if not sources or n in sources)

    bad = [f"{protocol.searchers[n].endpoint_env}: {why}" if protocol.searchers[n].redirected else f"{PROTOCOL}: "
           f"searchers.{n}.endpoint: {why}" for n in chosen_sources if (why := endpoint_problem(protocol.searchers[n].endpoint))]
    if any(protocol.searchers[n].name in ("semanticscholar", "citations") for n in chosen_sources) and (why := s2_key_problem()):
        bad.append(why)
    if bad:  # two sources of one variable (Semantic Scholar's search and its citation links) name it once
        raise UserError("; ".join(dict.fromkeys(bad)) + "; nothing was searched")
    chosen_families = tuple(n for n in family_names if not families or n in families)
    return SearchPlan(model.next_round_id(corpus, today), since, until, chosen_sources, chosen_families)


def _notes(runs: list[tuple[str, object]]) -> list[str]:
    """One line per query that returned records outside the window or without what a candidate needs
    (named, at most 10 each), left
    records unfetched (how many, and why) or ended early (why); a source's queries that share one of
    the first or the last reason, more than five of them, in one line."""
    out = []
    many = {label for label in {lb for lb, _ in runs}
            if sum(1 for lb, r in runs if lb == label and r.outside_window) > 5}
    for label in sorted(many):
        mine = [r for lb, r in runs if lb == label and r.outside_window]
        out.append(f"{label}: {sum(len(r.outside_window) for r in mine):,} record(s) returned outside the window across "
                   f"{len(mine)} queries, not queued (round.yaml lists them)")
    ended = Counter((label, run.stopped) for label, run in runs if run.stopped and not run.not_fetched and not run.incomplete)
    for label, run in runs:
        if run.stopped and not run.not_fetched and not run.incomplete and ended[label, run.stopped] <= 5:
            out.append(f"{label}, {run.family}: {run.stopped}")
        if run.outside_window and label not in many:
            named = ", ".join(run.outside_window[:10]) + (f", and {len(run.outside_window) - 10} more (round.yaml "
                                                           "lists them)" if len(run.outside_window) > 10 else "")
            out.append(f"{label}, {run.family}: {len(run.outside_window)} record(s) returned outside the window, not "
                       f"queued: {named}")
        if run.unusable:
            named = ", ".join(run.unusable[:10]) + (f", and {len(run.unusable) - 10} more (round.yaml lists them)"
                                                     if len(run.unusable) > 10 else "")
            out.append(f"{label}, {run.family}: {len(run.unusable)} record(s) returned without what a candidate needs, or "
                       f"with a value no record may hold, not queued: {named}")
        if run.not_fetched:
            out.append(f"{label}, {run.family}: {lost_text(run)}: {run.stopped}")
    for (label, reason), n in sorted(ended.items()):
        if n > 5:
            out.append(f"{label}: {n:,} queries ended early: {reason} (round.yaml names each query)")
    return out


def lost_text(run) -> str:
    """How many records of ``run`` were not fetched, for a message: ``12 of 250 record(s) not fetched``, or, where the
    source announced fewer than it holds (an approximate total), ``at least 200 record(s) not fetched``."""
    if not getattr(run, "counted", True):
        return f"at least {run.not_fetched:,} record(s) not fetched ({run.returned:,} fetched; the source gives no count)"
    if run.not_fetched <= run.total - run.returned:
        return f"{run.not_fetched:,} of {run.total:,} record(s) not fetched"
    return (f"at least {run.not_fetched:,} record(s) not fetched ({run.returned:,} fetched; the source announced about "
            f"{run.total:,})")


def _whole(label: str, run, allow_incomplete: bool) -> None:
    """Raise when ``run`` lost records to a bound and the run does not allow it."""
    if run.incomplete and not allow_incomplete:
        lost = lost_text(run) if run.total else "records not fetched"
        raise UserError(f"cannot search {label} whole: {run.family}: {lost} ({run.stopped}); narrow the window or give "
                        "--allow-incomplete to write the round with them counted as not fetched; nothing was written")


def _undecidable(run, taxonomy: dict) -> None:
    """Move each record of ``run`` that no decision could make a record (its row's cells are what the
    source sent, which the screener may not change: :func:`masrl.checks.protocol.record_cell_problems`)
    from those kept to those unusable, named with the first reason (``(year: 2025 is out of range; ...)``)."""
    from ...checks.protocol import record_cell_problems
    from ...corpus.taxonomy import Taxonomy

    from ...bib.answers import not_one_person
    from ...bib.identifiers import conflicts, record_identifiers

    tax = Taxonomy(taxonomy)
    for found in list(run.found):
        ids = [found.identifier, *(f"{scheme}:{value}" for scheme, value in found.identifiers.items())]
        problems = [("authors", f"authors[{k}]: {why}") for k, author in enumerate(found.authors)
                    if (why := not_one_person(author))]
        problems += [("identifier", f"two different {scheme} ids, {first} and {other}: which paper is it?")
                     for scheme, first, other in conflicts(record_identifiers(found.identifiers))]  # a DOI of another
        problems += record_cell_problems(found.title, list(found.authors), str(found.year), ids, tax)
        if problems:
            run.found.remove(found)
            run.kept -= 1
            column, why = problems[0]
            run.unusable.append(f"{found.identifier} ({column}: {why})")


def check_written(inputs: dict[str, bytes], files: dict[str, bytes]) -> list[Problem]:
    """The problems ``masrl validate`` would find in the round ``files`` (with the survey's
    taxonomy and protocol from ``inputs``)."""
    from ...checks.protocol import check_rounds

    # the earlier rounds too: the new round's duplicates may name their rows
    corpus = parse_tree({**{k: data for k, data in inputs.items() if k in (TAXONOMY, PROTOCOL) or k.startswith(ROUNDS)},
                         **files})
    return [p for p in check_rounds(corpus) if p.file in files]


def run_search(corpus, protocol: Protocol, plan: SearchPlan, make_source: Callable, now: Callable[[], str],
               on_query: Callable[[str, str, int], None] | None = None, allow_incomplete: bool = False,
               inputs: dict[str, bytes] | None = None) -> SearchResult:
    """Search every (source, family) pair of ``plan`` and return the round's files.

    ``make_source(name, searcher)`` builds a source (:func:`.sources.source_for` with the run's
    settings); ``now()`` gives the UTC time (``YYYY-MM-DDTHH:MM:SSZ``); ``on_query(source label,
    family, records found so far)`` is told before each query (progress).

    Raises:
        UserError: one line naming the host of a source that could not be searched; the round
            is then not written.
    """
    started = now()
    source_runs: list[model.SourceRuns] = []
    runs: list[tuple[str, object]] = []
    unsearched: list[str] = []  # notes of what a source could not search from
    for name in plan.sources:
        searcher = protocol.searchers[name]
        source = make_source(name, searcher)

        def told(how: str, label: str = searcher.label) -> None:
            if on_query is not None:
                on_query(label, how, sum(len(r.found) for _, r in runs))

        try:
            if hasattr(source, "search_all"):  # citation searching: one query per seed and direction, no family
                done = source.search_all([protocol.family(f) for f in plan.families], plan.since, plan.until, now, told)
            else:
                done = []
                for family_name in plan.families:
                    told(family_name)
                    done.append(source.search(protocol.family(family_name), plan.since, plan.until, now))
                    _whole(searcher.label, done[-1], allow_incomplete)
        except SourceError as err:
            raise UserError(f"cannot search {searcher.label}: {err}; nothing was written") from None
        for run in done:
            run.sent = max(run.sent, started)  # a fixed clock (MASRL_TODAY) stands still: no query before its round
            _undecidable(run, corpus.taxonomy)
            _whole(searcher.label, run, allow_incomplete)
            runs.append((searcher.label, run))
        source_runs.append(model.SourceRuns(name, searcher.label, searcher.endpoint, source.settings, tuple(done),
                                            searcher.options.get("method", "database")))
        if keys := getattr(source, "unseeded", None):
            shown = ", ".join(keys[:10]) + (f" and {len(keys) - 10} more" if len(keys) > 10 else "")
            unsearched.append(f"{searcher.label}: {len(keys)} retained record(s) have no id Semantic Scholar takes (an "
                              f"arXiv id, a DOI or an ACL Anthology id), so their citations are not searched: {shown}")
    requests = sum(run.requests for _, run in runs)
    candidates, duplicates, by_source, by_family = dedupe.deduplicate(corpus, runs, unsearched)
    ranks = rank(corpus, candidates)
    files = model.round_files(plan.round_id, (plan.since, plan.until), started, now(), protocol.sha256, source_runs,
                              candidates, duplicates, ranks, by_source, by_family)
    if inputs is not None and (problems := check_written(inputs, files)):
        raise UserError(summary(problems, "masrl would write a round its own checks refuse; nothing was written "
                                          "(please report this with the lines above)."), problems)
    identified = {label: tally.identified for label, tally in by_source.items()}
    return SearchResult(files, plan.round_id, len(runs), requests, identified, len(duplicates), len(candidates),
                        tuple(unsearched + _notes(runs)))


def s2_key_problem() -> str | None:
    """Why the Semantic Scholar key in the environment cannot be sent as an HTTP header, or None
    (the key is never printed)."""
    from .sources.semanticscholar import KEY_VARIABLE

    key = os.environ.get(KEY_VARIABLE, "").strip()
    if key and not (key.isascii() and key.isprintable() and " " not in key):
        return (f"{KEY_VARIABLE}: holds characters an HTTP header cannot carry (a space, a control character or a "
                "letter outside ASCII); give the key as Semantic Scholar issued it")
    return None
