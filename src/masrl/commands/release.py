"""``masrl release NAME --date YYYY-MM-DD``: freeze the pool as the next release.

Writes the release's snapshot (``corpus/releases/<name>.yaml``: the vocabulary
and every record as they are now) and lists it in ``corpus/releases.yaml``.
Refused when the corpus does not validate, when the name or date does not fit
the releases before it, and when a current claim fails, nothing is pending since
the last release, candidates of the update rounds are undecided, suggested tags
are not confirmed or a record was added after the date (every one of these
reasons named in one run).

``masrl release NAME --freeze-claims`` freezes instead the claims written about
the existing release NAME since (:func:`freeze_claims`).
"""

from __future__ import annotations

import dataclasses
import re
from argparse import Namespace

from ..build import write
from ..checks.validate import validate
from ..core.errors import COMMAND_LINE, Problem, UserError, summary
from ..core.names import file_name_problem
from ..core.text import text_problem
from ..corpus.keepedit import insert_keeping
from ..corpus.load import find_root, load
from ..corpus.population import counted
from ..corpus.provenance import drafted, named
from ..corpus.releases import (
    NAME_PATTERN,
    RELEASES,
    RESERVED_NAMES,
    Release,
    claim_digest,
    content_digest,
    freeze,
    next_name,
    releases_bytes,
    releases_from,
    tag_problem,
)
from ..corpus.yamlio import parse
from ..core import clock


def _argument_problems(args: Namespace, existing: list[Release]) -> list[Problem]:
    problems = []
    names = [r.name for r in existing]
    if not re.fullmatch(NAME_PATTERN, args.name) or args.name in RESERVED_NAMES:
        problems.append(Problem(COMMAND_LINE, None, "NAME", f"{args.name!r} is not a release name: use lower-case letters, "
                                f"digits, '.', '_' and '-', not {', '.join(RESERVED_NAMES)} (e.g. {next_name(existing)})"))
    elif why := tag_problem(args.name):
        problems.append(Problem(COMMAND_LINE, None, "NAME", f"{args.name!r} {why}; e.g. {next_name(existing)}"))
    elif why := file_name_problem(args.name):
        problems.append(Problem(COMMAND_LINE, None, "NAME", f"{args.name[:80]!r}: {why}" if why.startswith("is ") else why))
    elif args.name in names:
        problems.append(Problem(COMMAND_LINE, None, "NAME", f"release {args.name!r} exists already; the next name could be {next_name(existing)}"))
    if args.date is None:
        problems.append(Problem(COMMAND_LINE, None, "--date", f"is required: the date of release {args.name[:80]!r} (YYYY-MM-DD)"))
    valid = {}  # flag -> whether its value is a date (the checks of its value run in the same run as the name's)
    for flag, value in (("--date", args.date), ("--cutoff", args.cutoff)):
        if value is None:
            continue
        why = clock.date_problem(value)
        valid[flag] = why is None
        if why:
            problems.append(Problem(COMMAND_LINE, None, flag, why))
    date_ok = valid.get("--date", False)
    cutoff_ok = valid.get("--cutoff", args.cutoff is None) and date_ok
    if date_ok and existing and args.date < existing[-1].date:
        problems.append(Problem(COMMAND_LINE, None, "--date", f"{args.date} is before the last release "
                                f"{existing[-1].name} ({existing[-1].date})"))
    if date_ok and args.date > clock.today_iso():
        problems.append(Problem(COMMAND_LINE, None, "--date", f"{args.date} is in the future (today is "
                                f"{clock.today_iso()}); freeze a release on or after its date"))
    if cutoff_ok and args.cutoff and args.cutoff > args.date:
        problems.append(Problem(COMMAND_LINE, None, "--cutoff", f"{args.cutoff} is after the release date {args.date}"))
    cutoff = args.cutoff or args.date
    if cutoff_ok and existing and cutoff < existing[-1].search_cutoff:
        problems.append(Problem(COMMAND_LINE, None, "--cutoff", f"{cutoff} is before the search cutoff of the last release "
                                f"{existing[-1].name} ({existing[-1].search_cutoff}); a later release covers at least as much"))
    for flag, value in (("--title", args.title), ("--source", args.source)):
        if value is not None and not value.strip():
            problems.append(Problem(COMMAND_LINE, None, flag, "must not be empty"))
        elif value is not None and any(ch in value for ch in "\n\r\t"):
            problems.append(Problem(COMMAND_LINE, None, flag, "must be one line (no line break or tab)"))
        elif value is not None and (why := text_problem(value)):
            problems.append(Problem(COMMAND_LINE, None, flag, why))
    return problems


def _refusals(args: Namespace, corpus, result, existing: list[Release], undecided: list[str]) -> list[str]:
    """Every reason the pool cannot be frozen now (all of them, so that one run names them all): a
    current claim that fails, nothing pending since the last release, candidates of the update
    rounds not decided (unless ``--allow-undecided``), suggested tags no person has confirmed, and
    records added after ``--date``. [] when the release may go ahead."""
    from ..analyses.claims import failing_current

    refusals = []
    failing = failing_current(list(result.claims))
    if failing:
        refusals.append(f"current claim(s) {', '.join(c.id for c in failing)} fail: a release freezes what the survey "
                        "states, so fix the claims (masrl build shows why) before releasing")
    if existing and not result.pending:
        refusals.append(f"nothing is pending: the pool is identical to release {existing[-1].name}; add, exclude or "
                        "correct records first")
    if undecided and not args.allow_undecided:
        shown = "; ".join(undecided[:5]) + (" ..." if len(undecided) > 5 else "")
        refusals.append(f"{len(undecided)} candidate(s) of the update rounds since the last release are not decided and "
                        f"applied yet: {shown}. Screen them in corpus/rounds/<round>/queue.csv and run `masrl update apply "
                        "ROUND`, or release anyway with --allow-undecided (the release notes then name them)")
    drafts = drafted(corpus.retained.values())
    if drafts:
        refusals.append(f"{len(drafts)} record(s) hold suggested tags no person has confirmed: {named(drafts)}. A release "
                        "freezes what the survey states: confirm each with `masrl suggest KEY --apply FIELD=VALUE` (or tag it by hand), then release")
    late = sorted(f"{r.get('key') or r.get('record_id')} ({r['date_added']})"
                  for r in [*corpus.retained.values(), *corpus.excluded.values()] if r.get("date_added", "") > args.date)
    if late:
        refusals.append(f"{len(late)} record(s) were added after {args.date}, so a release of that date cannot hold them: "
                        + ", ".join(late[:10]) + (" ..." if len(late) > 10 else ""))
    return refusals


def _cutoff(args: Namespace, existing: list[Release], rounds: list) -> tuple[str, str]:
    """The release's search cutoff and, when it is not given (``--cutoff``), why it is what it is: the end of
    the latest window of the update rounds since the last release (the search covered no later day), else
    the release date (said, with the last release's cutoff to give instead when no search covered the days
    since). Refused when the rounds end before the last release's cutoff."""
    if args.cutoff:
        return args.cutoff, ""
    if not rounds:
        return args.date, ("the release date: no update round ran since " + (f"release {existing[-1].name} (its cutoff: "
                           f"{existing[-1].search_cutoff}); if no search covered the days since, give that cutoff"
                           if existing else "the start; if the search stopped earlier, give that day"))
    latest = max(rounds, key=lambda state: state.until)
    cutoff = min(latest.until, args.date)
    if existing and cutoff < existing[-1].search_cutoff:
        raise UserError(f"the update rounds since release {existing[-1].name} searched up to {latest.until} (round "
                        f"{latest.round_id}), before its search cutoff {existing[-1].search_cutoff}: give the search "
                        "cutoff of this release with --cutoff; nothing was written")
    return cutoff, f"the end of the window of round {latest.round_id}, the latest update round since " + (
        f"release {existing[-1].name}" if existing else "the start")


def _listing(root, corpus, releases: list[Release]) -> bytes:
    """The new bytes of ``corpus/releases.yaml`` listing ``releases``: masrl's own form, or, when the file
    holds comments or formatting of a person's, the file as it stands with the lines that change adds
    (:func:`~masrl.corpus.keepedit.insert_keeping`). Refused (nothing written) when they cannot be placed."""
    errata = (corpus.releases or {}).get("errata")
    new = releases_bytes(releases, errata)
    path = root / RELEASES
    if not path.exists():
        return new
    actual = path.read_bytes()
    ours = releases_bytes(releases_from(corpus.releases), errata)
    if actual.split(b"\nformat_version:", 1)[-1] == ours.split(b"\nformat_version:", 1)[-1]:
        return new  # as masrl writes it (whatever header an older masrl wrote): nothing of a person's to keep
    kept = insert_keeping(actual.decode("utf-8"), ours.decode("utf-8"), new.decode("utf-8"))
    if kept is not None:
        doc, problems = parse(kept.encode("utf-8"), RELEASES)
        expected, _ = parse(new, RELEASES)
        if not problems and doc is not None and expected is not None and doc.value == expected.value:
            return kept.encode("utf-8")
    raise UserError(f"{RELEASES} holds comments or formatting that masrl cannot keep while it adds to the file; "
                    f"nothing was written. Move them (e.g. into a release's notes), or make the change by hand: "
                    f"the file should read as\n{new.decode('utf-8')}")


def freeze_claims(args: Namespace) -> int:
    """Record in ``corpus/releases.yaml`` the digest of the checks of every claim about the existing
    release ``args.name`` that it has not frozen yet (or say what would be, with ``--dry-run``)."""
    root = find_root(args.root)
    corpus = load(root)
    existing = releases_from(corpus.releases)
    names = [r.name for r in existing]
    problems = [Problem(COMMAND_LINE, None, flag, "does not go with --freeze-claims, which freezes the claims about an "
                                                  "existing release") for flag, value in
                (("--date", args.date), ("--cutoff", args.cutoff), ("--title", args.title), ("--source", args.source),
                 ("--allow-undecided", args.allow_undecided or None)) if value is not None]
    if args.name not in names:
        known = ", ".join(names) or "none yet"
        problems.append(Problem(COMMAND_LINE, None, "NAME", f"{args.name[:80]!r} is not a release (releases: {known})"))
    found = validate(corpus)
    if problems or found:
        raise UserError(summary(problems + found, "nothing was frozen."), problems + found)
    i = names.index(args.name)
    release = existing[i]
    frozen = release.frozen_claims
    new = {c["id"]: claim_digest(c) for c in corpus.claims if c.get("scope") == release.name and c["id"] not in frozen}
    if not new:
        about = sorted(frozen)
        raise UserError(f"no claim about release {release.name} is left to freeze: "
                        + (f"it froze {', '.join(about)} already" if about else
                           f"no claim in corpus/claims.yaml is about it (scope: {release.name})"))
    from ..analyses.claims import failing_current
    from ..build.examples import examples_valid
    from ..build.pipeline import build

    failing = [c.id for c in failing_current(build(corpus, examples_valid()).claims_about(release.name)) if c.id in new]
    if failing:
        raise UserError(f"current claim(s) {', '.join(failing)} about release {release.name} fail: freezing them would publish "
                        "a failing verdict for good. Fix their checks (masrl build shows why), or mark a claim that no "
                        "longer holds `status: superseded`, then freeze; nothing was frozen")
    release = dataclasses.replace(release, claims=tuple(sorted({**frozen, **new}.items())))
    what = f"the checks of {len(new)} claim(s) about release {release.name}: {', '.join(sorted(new))}"
    if args.dry_run:
        print(f"dry run: would freeze {what} in {RELEASES}; nothing was written")
        return 0
    existing[i] = release
    write.replace(root, {RELEASES: _listing(root, corpus, existing)})
    print(f"froze {what}")
    print(f"{RELEASES} records their digests: `masrl validate` now refuses an edit of what they count (their statements "
          "may still be reworded, or a claim superseded); commit it")
    return 0


def run(args: Namespace) -> int:
    """Freeze the next release (or show it with ``--dry-run``); return the exit code."""
    if args.freeze_claims:
        return freeze_claims(args)
    root = find_root(args.root)
    corpus = load(root)
    existing = releases_from(corpus.releases)
    problems = _argument_problems(args, existing)
    found = validate(corpus)  # the records' problems are named with the arguments' (all of a run's at once)
    if found:
        raise UserError(summary(problems + found, "nothing was released (fix the records, then release again)."),
                        problems + found)
    if problems:
        raise UserError(summary(problems, "nothing was written."), problems)

    from ..build.examples import examples_valid
    from ..build.pipeline import build, rounds_after, rounds_since
    from ..review.update.status import undecided_candidates

    result = build(corpus, examples_valid())

    undecided = undecided_candidates(corpus)
    refusals = _refusals(args, corpus, result, existing, undecided)
    if len(refusals) == 1:
        raise UserError(refusals[0])
    if refusals:
        raise UserError(f"the release is refused for {len(refusals)} reasons; nothing was written:\n"
                        + "\n".join(f"{n}. {why}" for n, why in enumerate(refusals, 1)))

    cutoff, because = _cutoff(args, existing, rounds_after(corpus, [r.population for r in result.releases]))
    release = Release(args.name, args.date, cutoff,
                      (args.title or f"Release {args.name} of the living review").strip(), (args.source or "").strip(),
                      notes=tuple(f"undecided at release: {u}" for u in undecided))
    retained = {r["key"]: r for r in corpus.retained.values()}
    excluded = {r["record_id"]: r for r in corpus.excluded.values()}
    pend = result.pending
    # without rounds, the snapshot still says which it covers (none): a round searched before the release on a
    # branch merged later is then counted in the next update, not taken for one this release covered
    snapshot = freeze(release, corpus.taxonomy, retained, excluded,
                      rounds_since(corpus, [r.population for r in result.releases]) or {"rounds": []})
    doc, _ = parse(snapshot, release.snapshot_path)  # the digest of what the loader will read back
    release = dataclasses.replace(release, content_sha256=content_digest(doc.value))
    listing = _listing(root, corpus, [*existing, release])
    since = f"since {existing[-1].name}" if existing else "(first release)"
    what = (f"release {release.name} ({release.date}): {counted(len(retained), 'retained')} and "
            f"{counted(len(excluded), 'excluded')}; " + (pend.describe(f"release {existing[-1].name}") if existing else since))
    if args.dry_run:
        print(f"dry run: would write {release.snapshot_path} and add {release.name} to {RELEASES}: {what}; nothing was written")
        if because:
            print(f"search cutoff {cutoff}: {because} (--cutoff sets another)")
        return 0
    write.create_new(root, {release.snapshot_path: snapshot})
    try:
        write.replace(root, {RELEASES: listing})
    except UserError:
        write.remove(root, release.snapshot_path)  # nothing half-released
        raise
    print(f"froze {what}")
    if because:
        print(f"search cutoff {cutoff}: {because} (--cutoff sets another)")
    if undecided:
        shown = "; ".join(undecided[:5]) + (f"; and {len(undecided) - 5} more" if len(undecided) > 5 else "")
        print(f"released with {len(undecided)} candidate(s) of the update rounds undecided (--allow-undecided), named "
              f"in its notes in {RELEASES}: {shown}")
    print(f"wrote {release.snapshot_path}; listed it in {RELEASES}")
    print(f"next: `masrl build` writes reports/releases/{release.name}/ and compares the pool with it; commit both")
    print(f"then record its digest outside the files: git tag -a release-{release.name} -m "
          f"'masrl release {release.name}: content_sha256 {release.content_sha256}' (`masrl diff release-{release.name}` "
          "shows any later change to the release)")
    return 0
