"""Checks of the releases (``corpus/releases.yaml``) and their frozen snapshots.

Called by :func:`masrl.checks.validate.validate` with its checker. A snapshot is
checked for what its reports need (every record carries its key or id, a year,
and a value of the snapshot's own vocabulary in every controlled field), not
against today's record schema: a record frozen in a release must stay valid
when later versions of masrl ask more of new records.
"""

from __future__ import annotations

import re

from jsonschema import Draft202012Validator, FormatChecker

from ..corpus import schema as schemas
from ..corpus.errata import corrected, errata_from, target
from ..corpus.load import PAPERS
from ..corpus.releases import (
    RELEASES,
    RESERVED_NAMES,
    SNAPSHOTS,
    Snapshot,
    content_digest,
    releases_from,
    snapshot_from,
    tag_problem,
)
from ..corpus.taxonomy import Taxonomy
from ..core import clock
from .collector import malformed_entries


def check_releases(checker) -> dict[str, Snapshot]:
    """Check ``corpus/releases.yaml``, every snapshot, and the records' ``date_added``
    against the releases; return release name -> snapshot for the valid ones."""
    corpus = checker.corpus
    snapshots: dict[str, tuple[str, Snapshot]] = {}
    for file, data in sorted(corpus.snapshots.items()):
        before = len(checker.problems)
        checker.schema_errors(file, data, Draft202012Validator(schemas.SNAPSHOT_SCHEMA, format_checker=FormatChecker()))
        snap = snapshot_from(data)
        if len(checker.problems) != before or snap is None:
            continue
        stem = file[len(SNAPSHOTS):].rsplit(".", 1)[0]
        if snap.release != stem:
            checker.add(file, ("release",), f"{snap.release!r} does not match the file name; a snapshot of release {snap.release} "
                                            f"is {SNAPSHOTS}{snap.release}.yaml")
            continue
        if _snapshot_records(checker, file, snap):
            snapshots[snap.release] = (file, snap)
    if RELEASES in corpus.unreadable:
        return {}  # reported as unreadable; the snapshots are judged once it reads
    if corpus.releases is None:
        for file, _ in snapshots.values():
            checker.add(file, (), f"a snapshot without {RELEASES}: list its release there (or remove the file)")
        _published(checker, [], snapshots)
        return {}
    before = len(checker.problems)
    checker.schema_errors(RELEASES, corpus.releases, Draft202012Validator(schemas.RELEASES_SCHEMA, format_checker=FormatChecker()))
    malformed = malformed_entries(checker.problems[before:], "releases")
    if malformed is None:
        return {}  # the file's own keys are wrong: the checks below need them
    if malformed:
        return _malformed_releases(checker, corpus, snapshots, malformed)
    releases = releases_from(corpus.releases)
    listed = set()
    valid = {}
    for i, rel in enumerate(releases):
        path = ("releases", i)
        if rel.name in RESERVED_NAMES:
            checker.add(RELEASES, path + ("name",), f"{rel.name!r} is reserved (it names another population); choose e.g. v2")
        elif why := tag_problem(rel.name):
            checker.add(RELEASES, path + ("name",), f"{rel.name!r} {why}")
        if rel.name in listed:
            checker.add(RELEASES, path + ("name",), f"release {rel.name!r} is listed twice")
        listed.add(rel.name)
        if i and rel.date < releases[i - 1].date:
            checker.add(RELEASES, path + ("date",), f"{rel.date} is before the previous release {releases[i - 1].name} "
                                                    f"({releases[i - 1].date}); list releases in date order")
        if rel.search_cutoff > rel.date:
            checker.add(RELEASES, path + ("search_cutoff",), f"{rel.search_cutoff} is after the release date {rel.date}")
        elif i and rel.search_cutoff < releases[i - 1].search_cutoff:
            checker.add(RELEASES, path + ("search_cutoff",), f"{rel.search_cutoff} is before the search cutoff of the previous "
                                                             f"release {releases[i - 1].name} ({releases[i - 1].search_cutoff})")
        found = snapshots.get(rel.name)
        if found is None:
            if rel.snapshot_path not in corpus.snapshots:
                checker.add(RELEASES, path + ("name",), f"release {rel.name} has no snapshot {rel.snapshot_path}")
            continue
        file, snap = found
        digest = content_digest(corpus.snapshots[file])
        if rel.content_sha256 and digest != rel.content_sha256:
            checker.add(file, (), f"the frozen snapshot of release {rel.name} was edited: its content no longer has the "
                                  f"digest {RELEASES} records ({rel.content_sha256[:12]}…, now {digest[:12]}…). A release "
                                  f"never changes: restore it (git checkout -- {file}) and edit the records instead")
            continue
        for key, listed_value in (("date", rel.date), ("search_cutoff", rel.search_cutoff)):
            frozen = (corpus.snapshots[file] or {}).get(key)
            if (frozen is not None or key == "date") and frozen != listed_value:
                checker.add(RELEASES, path + (key,), f"{listed_value!r}, but the frozen snapshot {file} says {frozen!r}: a "
                                                     f"release's {key.replace('_', ' ')} never changes (its reports state it)")
        valid[rel.name] = snap
    for name, (file, _) in sorted(snapshots.items()):
        if name not in listed:
            checker.add(file, (), f"release {name} is not listed in {RELEASES}: list it there or remove the snapshot")
    _dates_added(checker, releases, valid)
    _frozen_papers(checker, releases, valid)
    _published(checker, releases, snapshots)
    return valid


def _published(checker, releases, snapshots: dict) -> None:
    """Every release a git tag says was published (``release-NAME``, made as ``masrl release`` asks) is
    still listed, with the content digest the tag recorded, in its entry and in its snapshot: a revert of
    a release's commit, a snapshot edited with its digest recomputed, or an entry whose digest was
    deleted, leaves the files consistent with each other, not with what was published."""
    listed = {rel.name: i for i, rel in enumerate(releases)}
    for name, tagged in sorted(checker.corpus.release_tags.items()):
        i = listed.get(name)
        if i is None:
            checker.add(RELEASES, (), f"release {name} was published (git tag release-{name} records content_sha256 "
                                      f"{tagged[:12]}…), but {RELEASES} no longer lists it: a published release is never "
                                      f"removed; restore {SNAPSHOTS}{name}.yaml, reports/releases/{name}/ and its entry here "
                                      f"from the tag (`git show release-{name}:{RELEASES}` shows the entry)")
            continue
        restore = (f"`masrl diff release-{name}` shows how; a published release never changes: restore it from the tag "
                   "and correct its wording with an erratum")
        if releases[i].content_sha256 and releases[i].content_sha256 != tagged:
            checker.add(RELEASES, ("releases", i, "content_sha256"),
                        f"{releases[i].content_sha256[:12]}…, but git tag release-{name} recorded {tagged[:12]}… when the "
                        f"release was published: its snapshot changed since ({restore})")
        elif not releases[i].content_sha256:  # the entry's digest deleted: the snapshot is judged by the tag's
            checker.add(RELEASES, ("releases", i, "name"),
                        f"release {name} lists no content_sha256, but git tag release-{name} recorded {tagged[:12]}… when "
                        f"it was published: restore the line (`git show release-{name}:{RELEASES}`)")
            found = snapshots.get(name)
            if found is not None and (digest := content_digest(checker.corpus.snapshots[found[0]])) != tagged:
                checker.add(found[0], (), f"the snapshot's content has the digest {digest[:12]}…, but git tag "
                                          f"release-{name} recorded {tagged[:12]}… when the release was published: it "
                                          f"changed since ({restore})")


def _frozen_papers(checker, releases, valid: dict[str, Snapshot]) -> None:
    """A key or id a release froze names that paper for good: the record under it now may be corrected (its title,
    or an id) since the latest release that froze it, never another paper (a rebase, a cherry-pick or a hand edit
    that gave the name to another one)."""
    from ..bib.matching import may_be_one_paper, record_known

    corpus = checker.corpus
    latest: dict[str, tuple] = {}  # file -> (release, name, frozen record, ...) of the latest release holding it
    for rel in releases:
        snap = valid.get(rel.name)
        if snap is None:
            continue
        for frozen_records, folder, now, status in ((snap.retained, PAPERS, corpus.retained, "retained"),
                                                    (snap.excluded, "exclusions/", corpus.excluded, "excluded")):
            for name, frozen in frozen_records.items():
                latest[f"{folder}{name}.yaml"] = (rel, name, frozen, folder, now, status)
    for file, (rel, name, frozen, folder, now, status) in sorted(latest.items()):
        current = now.get(file)
        if not isinstance(current, dict) or not isinstance(frozen, dict):
            continue
        was, is_now = (record_known(file, status, r) for r in (frozen, current))
        if not may_be_one_paper(was, is_now):
            checker.add(file, ("title" if folder == PAPERS else "screening_label",),
                        f"{_short(is_now.title)!r} is another paper than the one release {rel.name} froze as {name} "
                        f"({_short(was.title)!r}; no id in common): a released name is that paper's for good. Give "
                        f"this paper a new {'key' if folder == PAPERS else 'id'} and {name} back to the paper "
                        "the release holds")


def _short(title: str) -> str:
    """A title as a message quotes it: whole up to 100 characters, else its first 99 and '…'."""
    return title if len(title) <= 100 else title[:99] + "…"


def _malformed_releases(checker, corpus, snapshots: dict, malformed: set[int]) -> dict[str, Snapshot]:
    """With some entries of ``releases`` malformed (reported), the well-formed ones whose snapshot is valid and
    matches its digest, so that the errata and claims about them are judged in the same run; their order and
    dates are judged once every entry is well formed."""
    items = corpus.releases.get("releases") or []
    valid = {}
    for i, item in enumerate(items):
        if i in malformed or not isinstance(item, dict):
            continue
        (rel,) = releases_from({"releases": [item]}) or (None,)
        found = snapshots.get(rel.name) if rel is not None else None
        if found is not None and (not rel.content_sha256 or content_digest(corpus.snapshots[found[0]]) == rel.content_sha256):
            valid[rel.name] = found[1]
    return valid


def _snapshot_records(checker, file: str, snap: Snapshot) -> bool:
    """Every frozen record carries what its release's reports need; True when they all do."""
    before = len(checker.problems)
    tax = Taxonomy(snap.taxonomy)
    if not tax.fields:
        checker.add(file, ("taxonomy",), "the frozen vocabulary has no fields")
        return False
    for kind, records, id_field in (("retained", snap.retained, "key"), ("excluded", snap.excluded, "record_id")):
        for rid, rec in records.items():
            path = (kind, rid)
            if rec.get(id_field) != rid:
                checker.add(file, path + (id_field,), f"the record is filed under {rid!r} but its {id_field} is {rec.get(id_field)!r}")
            if kind == "retained" and not isinstance(rec.get("year"), int):
                checker.add(file, path + ("year",), "a frozen retained record needs its year (an integer)")
            for field in tax.of(kind):
                value = rec.get(field.name)
                if value is None:
                    if field.always:  # an optional field, or one required only when another holds a value, may be absent
                        checker.add(file, path + (field.name,), "missing in the frozen record")
                    continue
                for v in value if field.multi and isinstance(value, list) else [value]:
                    if v not in field.values:
                        checker.add(file, path + (field.name,), f"{v!r} is not in the release's vocabulary; allowed: {', '.join(field.values)}")
    return len(checker.problems) == before


def _dates_added(checker, releases, valid: dict[str, Snapshot]) -> None:
    """A record that a release holds was added on or before the release date; no
    ``date_added`` lies in the future."""
    corpus = checker.corpus
    first_holder: dict[str, str] = {}
    for rel in releases:
        snap = valid.get(rel.name)
        if snap is None:
            continue
        for key in snap.retained:
            first_holder.setdefault(f"{PAPERS}{key}.yaml", rel.date)
        for rid in snap.excluded:
            first_holder.setdefault(f"exclusions/{rid}.yaml", rel.date)
    today = clock.today_iso()
    for file, rec in sorted({**corpus.retained, **corpus.excluded}.items()):
        added = rec.get("date_added")
        if not isinstance(added, str) or len(added) != 10:
            continue
        if added > today:
            checker.add(file, ("date_added",), f"{added} is in the future (today is {today})")
        released = first_holder.get(file)
        if released is not None and added > released:
            checker.add(file, ("date_added",), f"{added} is after {released}, the date of the first release that holds this record")


def check_errata(checker, snapshots: dict[str, Snapshot]) -> None:
    """The errata of ``corpus/releases.yaml`` (:mod:`masrl.corpus.errata`): each names a valid
    release, is dated on or after it and not in the future, and each correction replaces the
    label or definition text the snapshot holds (after the release's earlier errata) with other
    one-line text, dropping only keys without a value. ``snapshots``: the valid releases'
    snapshots (from :func:`check_releases`)."""
    data = checker.corpus.releases
    if not isinstance(data, dict) or "errata" not in data:
        return
    before = len(checker.problems)
    checker.schema_errors(RELEASES, data["errata"], Draft202012Validator(schemas.ERRATA_SCHEMA, format_checker=FormatChecker()),
                          ("errata",))
    bad_entries: dict[int, set[str]] = {}  # erratum -> the keys of it the schema names ("" for the whole entry)
    bad_corrections: set[tuple[int, int]] = set()
    for problem in checker.problems[before:]:
        at = re.match(r"errata\[([0-9]+)\](?:\.corrections\[([0-9]+)\])?\.?([a-z_]*)", problem.field or "")
        if at is None:
            return  # the list itself: the checks below need one
        if at.group(2) is not None:
            bad_corrections.add((int(at.group(1)), int(at.group(2))))
        else:
            bad_entries.setdefault(int(at.group(1)), set()).add(at.group(3))
    if not snapshots:
        return  # the releases themselves have problems (reported); errata are judged once they are valid
    dates = {r.name: r.date for r in releases_from(data)}
    # each release's vocabulary as the errata so far leave it: read here, and replaced by a corrected copy
    state = {name: snap.taxonomy for name, snap in snapshots.items()}
    today = clock.today_iso()
    items = data["errata"] if isinstance(data["errata"], list) else []
    changed: dict[tuple, int] = {}  # (release, field, value, key) -> the last erratum that corrected it
    for i, item in enumerate(items):
        path = ("errata", i)
        if i in bad_entries:  # judged once well formed, but for the release it names (every problem in one run)
            name = item.get("release") if isinstance(item, dict) and "release" not in bad_entries[i] else None
            if isinstance(name, str) and name not in dates:
                checker.add(RELEASES, path + ("release",), f"{name!r} is not a release with a valid snapshot "
                                                           f"(releases: {', '.join(sorted(state)) or 'none'})")
            continue
        kept = [j for j in range(len(item["corrections"])) if (i, j) not in bad_corrections]
        (erratum,) = errata_from({"errata": [{**item, "corrections": [item["corrections"][j] for j in kept]}]})
        if erratum.release not in state:
            if erratum.release in dates:
                continue  # a listed release whose snapshot has problems (reported): judged once it is valid
            known = ", ".join(sorted(state)) or "none"
            checker.add(RELEASES, path + ("release",), f"{erratum.release!r} is not a release with a valid snapshot "
                                                       f"(releases: {known})")
            continue
        if erratum.date < dates[erratum.release]:
            checker.add(RELEASES, path + ("date",), f"{erratum.date} is before the release date of {erratum.release} "
                                                    f"({dates[erratum.release]})")
        elif erratum.date > today:
            checker.add(RELEASES, path + ("date",), f"{erratum.date} is in the future (today is {today})")
        taxonomy = state[erratum.release]
        for j, c in zip(kept, erratum.corrections):
            at = (erratum.release, c.field, c.value, c.key)
            _correction(checker, path + ("corrections", j), c, taxonomy, erratum.release, changed.get(at))
        for c in erratum.corrections:
            changed[(erratum.release, c.field, c.value, c.key)] = i
        state[erratum.release] = corrected(taxonomy, [erratum], erratum.release)


def _correction(checker, path: tuple, c, taxonomy: dict, release: str, earlier: int | None = None) -> None:
    """The problems of one correction ``c`` of an erratum, against ``taxonomy``: release ``release``'s vocabulary as
    the errata before it left it (``earlier``: the last of them that corrected the same text, if one did)."""
    spec = target(taxonomy, c)
    if spec is None:
        fields = taxonomy.get("fields") or {}
        if c.field not in fields:
            checker.add(RELEASES, path + ("field",), f"{c.field!r} is not a field of release {release}'s vocabulary")
        else:
            checker.add(RELEASES, path + ("value",), f"{c.value!r} is not a value of {c.field} in release {release}'s vocabulary")
        return
    if spec.get(c.key) != c.was and earlier is not None:
        checker.add(RELEASES, path + ("was",), f"errata[{earlier}] made the text at {c.where} of release {release} read "
                                               f"{spec.get(c.key)!r}, not {c.was!r}; an erratum states the text it "
                                               "replaces, as the errata before it leave it")
    elif spec.get(c.key) != c.was:
        checker.add(RELEASES, path + ("was",), f"the snapshot of {release} holds {spec.get(c.key)!r} at {c.where}, not "
                                               f"{c.was!r}; an erratum states the text it replaces")
    elif c.now == c.was:
        checker.add(RELEASES, path + ("now",), "is the text the snapshot holds; an erratum changes it")
    if c.key == "label" and c.value is not None and (same := _labelled(taxonomy, c)):
        checker.add(RELEASES, path + ("now",), f"{c.now!r} is the label of {same} in release {release}'s vocabulary: each "
                                               "value of a field has a label of its own (tables and figures name it by it)")
    if not c.now.isprintable() or c.now != c.now.strip():
        checker.add(RELEASES, path + ("now",), "must be one line of printable text, without leading or trailing spaces")
    for key in c.drop:
        if key not in spec:
            checker.add(RELEASES, path + ("drop",), f"{key!r} is not a key at {c.where.rsplit(' (', 1)[0]}")
        elif spec[key] is not None or key in schemas.VALUE_KEYS:
            checker.add(RELEASES, path + ("drop",), f"{key!r} holds a value; an erratum drops only keys without one "
                                                    "(the rest of a text YAML cut at a comma)")


def _labelled(taxonomy: dict, c) -> str:
    """Another value of the corrected value's field whose label (its code when it has none) is ``c.now``:
    ``value 'x' of field f``, or ''."""
    values = taxonomy["fields"][c.field].get("values")
    for code, spec in values.items() if isinstance(values, dict) else ():
        label = spec.get("label", code) if isinstance(spec, dict) else code
        if code != c.value and str(label) == c.now:
            return f"value {code!r} of {c.field}"
    return ""
