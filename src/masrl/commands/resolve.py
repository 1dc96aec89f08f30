"""``masrl resolve``: finish a git merge of two contributions.

Two branches that each add papers and run ``masrl build`` conflict in the
generated files (``.gitattributes`` marks ``reports/`` so that git keeps one
side whole instead of writing conflict markers into them) and, when both
logged an exclusion or chose the same key, in the new record files. This
command:

1. regenerates everything under ``reports/`` and the README paper list from
   the merged records (a README conflict is resolved only when it lies inside
   the generated paper list);
2. keeps both papers when both branches created the same record file with
   different content: ours keeps the name, theirs is renamed to the next free
   exclusion id or key (and says so) — unless theirs froze that name in a release
   and ours did not: then theirs keeps it and ours is renamed (a published id names
   one paper for good);
3. keeps both update rounds when both branches searched on the same day (both wrote
   ``corpus/rounds/<day>/``): theirs becomes the next round of that day, its id followed into
   its files and records (:mod:`masrl.review.update.merge`);
4. refuses, writing nothing, when a conflict needs a person: the same record
   edited on both sides, the claim ledger, the taxonomy, the releases, two audit
   rounds sampled under one id on both sides (named once per audit; each with
   what to do);
5. validates, builds, and marks every file it resolved with ``git add``.

It finishes a cherry-pick, a rebase or a revert that stopped on conflicts the same way (ours:
``HEAD``; theirs: the commit applied), and says which command concludes it.
"""

from __future__ import annotations

import functools
import re
import sys
from argparse import Namespace
from pathlib import Path

from ..build import write
from ..core.errors import UserError, summary
from ..corpus.gitread import index_lock, merge_sides, operation, paths_at, read_unmerged, stopped_without_operation
from ..corpus.load import (
    AUDITS,
    EXCLUSIONS,
    PAPERS,
    README,
    find_root,
    parse_tree,
    read_figure_files,
    read_tree,
)
from ..corpus.records import free_key
from ..corpus.readcache import read_reports
from ..corpus.releases import RELEASES, SNAPSHOTS, frozen_names
from ..render.readme import MarkersMissing, list_bounds
from ..review.update.merge import RoundRename, released_by, rename_theirs, round_of

GENERATED_PREFIX = "reports/"


def _outside_list(readme: str) -> str | None:
    try:
        start, end = list_bounds(readme)
    except MarkersMissing:
        return None
    return readme[:start] + readme[end:]


def _renamed(rel: str, data: bytes, taken: set[str]) -> tuple[str, bytes]:
    """Theirs of an add/add conflict under a free name, with the id or key inside the record changed to match.

    An exclusion gets the next free id (``exclusions/E034.yaml``). A paper gets the next free key of
    ``masrl add``'s scheme for its ``<surname><year>`` stem (``zhao2025b`` taken: ``zhao2025c``); its
    ``bibtex_key`` follows when it was the old key.

    Raises:
        UserError: when the record has no ``record_id:`` or ``key:`` line to change.
    """
    text = data.decode("utf-8")
    if rel.startswith(EXCLUSIONS):
        numbers = [int(m.group(1)) for name in taken if (m := re.fullmatch(r"exclusions/E([0-9]+)\.yaml", name))]
        new_id = f"E{max(numbers, default=0) + 1:03d}"
        text, n = re.subn(r"(?m)^record_id: .*$", f"record_id: {new_id}", text, count=1)
        new = f"{EXCLUSIONS}{new_id}.yaml"
    else:
        key = rel[len(PAPERS):].rsplit(".", 1)[0]
        stem = re.fullmatch(r"(.*?[0-9]{4})[a-z]*", key)
        keys = {name[len(PAPERS):].rsplit(".", 1)[0] for name in taken if name.startswith(PAPERS)}
        new_key = free_key(stem.group(1) if stem else key, keys | {key})
        text, n = re.subn(r"(?m)^key: .*$", f"key: {new_key}", text, count=1)
        text = re.sub(rf"(?m)^bibtex_key: {re.escape(key)}$", f"bibtex_key: {new_key}", text, count=1)
        new = f"{PAPERS}{new_key}.yaml"
    if n != 1:
        raise UserError(f"{rel}: cannot rename theirs of the conflict: no id or key line found; resolve it by hand")
    return new, text.encode("utf-8")


def _references_to_renamed(sides, merged: dict[str, bytes], renames: list[tuple[str, str, str]]) -> list[str]:
    """The survey files (the taxonomy, the claim ledger, the audits ...) in which the side renamed (``theirs``, or
    ``ours`` when theirs froze the name in a release) names a record that is renamed now: after the merge that name
    is the other side's paper, so a person points each such reference at the record it means. A file is named while
    the merge holds more of the old name than the side kept does and the renamed side added some (so a file fixed
    by hand passes)."""
    if not renames:
        return []
    base, ours, theirs = sides()
    out = []
    for old_rel, new_rel, side in renames:
        old, new = (Path(rel).stem for rel in (old_rel, new_rel))
        name = re.compile(rf"(?<![\w.-]){re.escape(old)}(?![\w-])")
        moved, kept = (theirs, ours) if side == "theirs" else (ours, theirs)

        def count(tree: dict, rel: str) -> int:
            data = tree.get(rel)
            return len(name.findall(data.decode("utf-8", "replace"))) if isinstance(data, bytes) else 0

        for rel in sorted(moved):
            if rel.startswith((PAPERS, EXCLUSIONS, GENERATED_PREFIX)) or rel == README:
                continue
            if count(moved, rel) > count(base, rel) and count(merged, rel) > count(kept, rel):
                other = "ours" if side == "theirs" else "theirs"
                what = "the branch merged in" if side == "theirs" else "your branch"
                out.append(f"{rel}: {what} names {old} there, and its {old} is now {new} ({other} keeps "
                           f"{old}): point each reference at the record it means")
    return out


def _frozen_names(corpus) -> set[str]:
    """The record files of every id and key a release of ``corpus`` froze, as paths (``exclusions/E032.yaml``)."""
    keys, ids = frozen_names(corpus.snapshots)
    return {f"{PAPERS}{key}.yaml" for key in keys} | {f"{EXCLUSIONS}{rid}.yaml" for rid in ids}


def _released_names(tree: dict[str, bytes]) -> set[str]:
    """The record files of every id and key a release froze or a record keeps as its former one, as paths
    (``exclusions/E032.yaml``): a renamed record never takes a name that named another paper."""
    from ..review.excluding import used_record_ids

    corpus = parse_tree(tree)
    return {f"{EXCLUSIONS}{rid}.yaml" for rid in used_record_ids(corpus)} | _frozen_names(corpus)


def _one_paper(rel: str, ours: bytes, theirs: bytes) -> bool:
    """Whether the two sides' versions of a record file are one paper (:func:`masrl.bib.matching.may_be_one_paper`)."""
    from ..bib.matching import may_be_one_paper, record_known

    status = "excluded" if rel.startswith(EXCLUSIONS) else "retained"
    records = [getattr(parse_tree({rel: data}), status).get(rel) for data in (ours, theirs)]
    if not all(isinstance(rec, dict) for rec in records):
        return False
    return may_be_one_paper(*(record_known(rel, status, rec) for rec in records))


def _frozen_by_side(sides) -> tuple[set[str], set[str]]:
    """The record files whose names the releases of ours and of theirs froze (:func:`_frozen_names`)."""
    _, ours, theirs = sides()
    return _frozen_names(parse_tree(ours)), _frozen_names(parse_tree(theirs))


def _round_files(rename: RoundRename, sides, merged: dict[str, bytes], unmerged: dict, by_hand: list[str]) -> dict[str, bytes]:
    """The files of a renamed round, and the records and rounds of its side that name it, followed to its new
    id: those the merge holds as that side made them, or still in conflict (resolved below). A file someone
    already resolved to the other side's version is that side's, and names that side's round: it is left as
    it is; one that holds neither side's version cannot be followed, and is named."""
    _, ours, theirs = sides()
    renamed, other = (ours, theirs) if rename.side == "ours" else (theirs, ours)
    out = {}
    for rel, data in rename.files.items():
        if rel in unmerged or round_of(rel) == rename.new or merged.get(rel) == renamed.get(rel):
            out[rel] = data
        elif merged.get(rel) != other.get(rel):
            by_hand.append(f"{rel}: {rename.side}' version names round {rename.old}, which is now {rename.new}, and the "
                           "merge holds neither side's version of it: make it name the round of its row")
    return out


def _rounds_both_added(sides, unmerged: dict) -> list[RoundRename]:
    """Theirs of every round id that both sides added (a file of it in conflict, and no common ancestor of it),
    under the next free id of its day (:mod:`masrl.review.update.merge`); ours instead when only a release of
    theirs covers the round (a published round keeps its id)."""
    both = sorted({rid for rel, stages in unmerged.items() if (rid := round_of(rel)) and 1 not in stages
                   and 2 in stages and 3 in stages})
    if not both:
        return []
    base, ours, theirs = sides()
    taken = {rid for tree in (base, ours, theirs) for rel in tree if (rid := round_of(rel))}
    out = []
    for rid in both:
        if released_by(theirs, base, rid) and not released_by(ours, base, rid):  # a published round keeps its id
            rename = rename_theirs(rid, taken, base, theirs, ours)
            rename.side = "ours"
        else:
            rename = rename_theirs(rid, taken, base, ours, theirs)
        taken.add(rename.new)
        out.append(rename)
    return out


def run(args: Namespace) -> int:
    """Resolve the merge conflicts masrl can resolve; return the exit code."""
    root = find_root(args.root)
    unmerged = read_unmerged(root)
    if not unmerged:
        print("nothing to resolve: git reports no conflicted file (run it after a `git merge` that stopped on conflicts)")
        return 0
    by_hand: list[str] = []
    writes: dict[str, bytes] = {}
    renames: list[tuple[str, str, str]] = []  # (old, new, the side renamed)
    resolved: list[str] = []
    frozen: tuple[set[str], set[str]] | None = None  # the names each side's releases froze, read when needed
    taken = {p.relative_to(root).as_posix() for folder in (PAPERS, EXCLUSIONS) for p in (root / folder).glob("*.yaml")}
    merged = read_tree(root)  # the working tree as git left it: read once
    taken |= _released_names(merged)
    sides = functools.cache(lambda: merge_sides(root))  # (base, ours, theirs), read from git once, when needed
    moved = _rounds_both_added(sides, unmerged)
    for rename in moved:
        writes.update(_round_files(rename, sides, merged, unmerged, by_hand))
        by_hand += rename.by_hand
    audits_both_added: set[str] = set()
    for rel, stages in unmerged.items():
        ours, theirs, base = stages.get(2), stages.get(3), stages.get(1)
        if rel.startswith(AUDITS) and base is None and ours is not None and theirs is not None:
            audits_both_added.add(rel[len(AUDITS):].split("/", 1)[0])  # named once per audit, below
            continue
        rid = round_of(rel)
        if rid is not None and (rename := next((r for r in moved if r.old == rid), None)):
            writes[rel] = theirs if rename.side == "ours" else ours  # one side keeps the round id, the other a new one
            resolved.append(rel)
            continue
        if rel.startswith((PAPERS, EXCLUSIONS)):  # the renamed round's new id followed into its side's record
            for r in moved:
                if rel in r.files:
                    ours, theirs = (r.files[rel], theirs) if r.side == "ours" else (ours, r.files[rel])
        if rel.startswith(GENERATED_PREFIX):
            resolved.append(rel)  # regenerated below (a file deleted on one side is regenerated or dropped by the build)
        elif rel == README:
            a, b = (_outside_list(x.decode("utf-8", "replace")) if x else None for x in (ours, theirs))
            if a is not None and a == b:
                writes[rel] = ours
                resolved.append(rel)
            else:
                by_hand.append(f"{rel}: both sides edited the README outside the generated paper list")
        elif rel.startswith((PAPERS, EXCLUSIONS)) and base is None and ours is not None and theirs is not None:
            frozen = frozen or _frozen_by_side(sides)
            if ours != theirs and rel in frozen[0] and rel in frozen[1]:
                if _one_paper(rel, ours, theirs):  # histories without a common ancestor: one record edited twice
                    by_hand.append(f"{rel}: the same record was changed on both sides: edit it to what it should say")
                else:
                    by_hand.append(f"{rel}: both sides froze it in a release, as two different papers; a published name "
                                   "is one paper's: keep the side published first (`git checkout --ours` or `--theirs` "
                                   f"{rel}, then `git add` it) and give the other paper a new record")
                continue
            side = "ours" if rel in frozen[1] and rel not in frozen[0] else "theirs"  # the side its release did not freeze
            keep, move = (theirs, ours) if side == "ours" else (ours, theirs)
            writes[rel] = keep
            resolved.append(rel)
            if ours != theirs:
                new, data = _renamed(rel, move, taken | set(writes))
                writes[new] = data
                taken.add(new)
                renames.append((rel, new, side))
                resolved.append(new)
        elif ours is None or theirs is None:  # deleted (or moved) on one side, changed on the other
            gone = "ours" if ours is None else "theirs"
            by_hand.append(f"{rel}: {gone} deleted or moved it, the other side changed it: keep the file (`git add {rel}`) "
                           f"or its deletion (`git rm {rel}`)")
        elif rel == RELEASES or rel.startswith(SNAPSHOTS):
            by_hand.append(f"{rel}: both sides froze or edited a release; a release is published once: keep the side "
                           f"that was published (`git checkout --ours {RELEASES} {SNAPSHOTS}` or `--theirs`, then "
                           "`git add` them); the other side's new papers are then pending, for the next release")
        else:
            what = "the same record was changed on both sides: edit it to what it should say" \
                if rel.startswith((PAPERS, EXCLUSIONS)) else "changed on both sides: edit it to what it should say"
            by_hand.append(f"{rel}: {what}")
    by_hand += [f"{AUDITS}{audit}/: each side sampled an audit round of its own under this id: keep one side's "
                f"(`git checkout --ours -- {AUDITS}{audit}` or `--theirs`, then `git add {AUDITS}{audit}`) and sample the "
                f"other again under an id of its own (`masrl audit sample ... --id {audit}-2`)"
                for audit in sorted(audits_both_added)]
    by_hand += _references_to_renamed(sides, merged, renames)
    for rel in paths_at(root, "HEAD", SNAPSHOTS):  # a revert of a release's commit, say: a published release stays
        if rel not in merged and rel not in writes:
            by_hand.append(f"{rel}: this would delete release {Path(rel).stem}, which is published: a release is never "
                           f"removed; keep it (`git checkout HEAD -- {rel} {RELEASES}`)")
    if by_hand:
        for line in by_hand:
            print(f"conflict: {line}", file=sys.stderr)
        raise UserError(f"{len(by_hand)} conflict(s) need you: resolve them by hand, `git add` them, then run "
                        "`masrl resolve` again; nothing was written")
    from ..build.generate import generate
    from ..checks.validate import validate

    corpus = parse_tree({**merged, **writes})  # the merged records, judged before anything is written
    problems = validate(corpus)
    if problems:
        hint = "".join(f"\n  {side} of {old} would become {new}; if both sides added the same paper, keep one: "
                       f"`git checkout --{'ours' if side == 'theirs' else 'theirs'} {old} && git add {old}`"
                       for old, new, side in renames)
        raise UserError(summary(problems, "the merged records do not validate; nothing was written. Fix them, "
                                f"`git add` them, then run `masrl resolve` again.{hint}"), problems)
    if (lock := index_lock(root)) is not None:  # `git add` comes after the writes: make sure it can run first
        raise UserError(f"git's index is locked ({lock} exists: another git command is running, or one stopped and "
                        "left it); nothing was written. When no git command runs, remove it and run `masrl resolve` again")
    write.replace(root, writes)
    for rename in moved:
        kept = "theirs (a release of theirs covers it)" if rename.side == "ours" else "ours"
        print(f"kept both rounds: corpus/rounds/{rename.old}/ is {kept}; {rename.side} is now corpus/rounds/{rename.new}/ "
              f"(its records name it)")
    for old, new, side in renames:
        if side == "theirs":
            print(f"kept both: {old} is ours; theirs is now {new} (its id/key changed to match)")
        else:
            print(f"kept both: {old} is theirs (a release of theirs froze it); ours is now {new} (its id/key changed "
                  "to match)")
    figures = args.figures
    # without figures, every report as the merge left it: the figure folders and the releases' manifests stay as they are
    generated = generate(corpus, read_figure_files(root) if figures else read_reports(root), figures=figures)
    report = write.sync(root, generated.outputs, ("reports",))
    changed = report.changed + report.missing + report.orphaned
    write.git_add(root, sorted(set(resolved) | set(changed) | {"README.md"} | {rel for r in moved for rel in r.files}))
    print(f"resolved {len(unmerged)} conflicted file(s): regenerated {len(changed)} report file(s) from the merged records")
    if not figures:
        print("note: --no-figures: no figure was drawn; the figures and the manifests that record them were left as the "
              "merge left them (`masrl build` brings them up to date)", file=sys.stderr)
    from ..analyses.claims import failing_current
    from ..build.claim_failures import failure_message

    failing = failing_current(list(generated.build.claims))
    if failing:  # the merge is resolved, but the merged records break what the survey states: not a clean commit
        sys.stdout.flush()
        for claim in failing:
            print(failure_message(generated.build, claim), file=sys.stderr)
        print("the merged records break a current claim (above): fix the tags, or supersede the claim "
              "(docs/guides/contribute.md, \"When a claim no longer holds\"), then `masrl build`, before you commit",
              file=sys.stderr)
        return 1
    if (waiting := operation(root)) is not None:
        print(f"next: review with `git diff --cached`, then `{waiting[3]}` to conclude the {waiting[0]}")
    else:
        print(f"next: review with `git diff --cached`; {stopped_without_operation(root)}")
    return 0
