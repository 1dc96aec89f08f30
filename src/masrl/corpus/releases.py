"""Releases: named, dated, frozen snapshots of the pool (a living review's versions).

A *release* is listed in ``corpus/releases.yaml`` (name, date, search cutoff,
title, source) and frozen in ``corpus/releases/<name>.yaml``: the controlled
vocabulary and every retained and excluded record exactly as they were when
the release was made. Reports of a release are computed from its snapshot
only, so retagging, moving or adding records later can never change a number
the release published. The first release, ``v1``, is the survey as published
(arXiv 2605.02801v1, search cutoff 2026-05-04), imported from the survey's
artifact at commit a14d8de.

Records of the working tree that no snapshot of the latest release holds are
*pending*: they enter the next release when ``masrl release NAME --date
YYYY-MM-DD`` freezes it. Membership is data (the snapshot's keys), never
derived from git history.

Pure functions; the loader reads the files and the writer writes them.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from ..core.memo import MISSING, Memo, content_key
from .yamlio import dump_by_parts, dump_record

#: The list of releases (metadata only).
RELEASES = "corpus/releases.yaml"
#: Folder of the frozen snapshots, one ``<name>.yaml`` per release.
SNAPSHOTS = "corpus/releases/"
#: Version of the snapshot file format written by :func:`freeze`.
SNAPSHOT_FORMAT = 1

NAME_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"


def frozen_names(snapshots: dict) -> tuple[set[str], set[str]]:
    """``(keys, record ids)`` every release snapshot of ``snapshots`` (file -> parsed YAML) froze: names
    that stay their papers' for good."""
    keys: set[str] = set()
    ids: set[str] = set()
    for snapshot in snapshots.values():
        for kind, into in (("retained", keys), ("excluded", ids)):
            records = snapshot.get(kind) if isinstance(snapshot, dict) else None
            into.update(str(name) for name in (records if isinstance(records, dict) else {}))
    return keys, ids


def tag_problem(name: str) -> str:
    """Why git would refuse ``release-<name>`` as a tag (the one ``masrl release`` asks for; ``git
    check-ref-format``), or ''."""
    if ".." in name:
        return "holds '..', which git refuses in the tag release-" + name
    if name.endswith(".") or name.endswith(".lock"):
        return f"ends with '{'.lock' if name.endswith('.lock') else '.'}', which git refuses at the end of the tag release-{name}"
    return ""
#: Names a release cannot take: they name other populations or folders.
RESERVED_NAMES = ("pool", "current", "pending", "latest")

RELEASES_HEADER = """\
# Releases of the living review: named, dated, frozen snapshots of the pool.
#
# Written by `masrl release NAME --date YYYY-MM-DD`; review it like any record.
# Each release's records and vocabulary are frozen in corpus/releases/<name>.yaml
# (never edit a snapshot: its reports under reports/releases/<name>/ are the
# published numbers). Records no snapshot holds yet are "pending" and enter the
# next release. The first release is the survey as published.
# A mistake in the wording a snapshot froze (a label or definition of its
# vocabulary, never a record) is corrected by an entry of `errata:` below, with
# its date and reason (see masrl.corpus.errata); the snapshot itself stays as it is.
# `claims:` of a release holds a digest of the checks of each claim about it in
# corpus/claims.yaml (written by `masrl release NAME --freeze-claims`): what such a
# claim counts is then frozen with the release, as its published numbers are.
"""

SNAPSHOT_HEADER = """\
# Frozen snapshot of release {name} ({date}), written by `masrl release`.
# Do not edit: reports/releases/{name}/ is computed from this file alone, so
# that the numbers the release published never change. Edit the records under
# corpus/papers/ and exclusions/ instead; they enter the next release.
"""


@dataclass(frozen=True)
class Release:
    """One release as listed in ``corpus/releases.yaml``.

    Attributes:
        name: short name, also the snapshot's file stem and the report folder (``v1``).
        date: release date, ``YYYY-MM-DD``.
        search_cutoff: last date covered by the search, ``YYYY-MM-DD``.
        title: one line saying what the release is (``arXiv 2605.02801v1, the survey as published``).
        source: where its records come from (free text).
        content_sha256: :func:`content_digest` of its snapshot when it was frozen; ``masrl
            validate`` refuses a snapshot whose content no longer has it (a hand edit).
        notes: release notes, one line each (e.g. the update-round candidates still undecided
            when it was frozen with ``--allow-undecided``).
        claims: (claim id, :func:`claim_digest`) of each claim about the release whose checks are
            frozen with it, sorted by id; ``masrl validate`` refuses a change of what such a claim
            counts (the release's published numbers).
    """

    name: str
    date: str
    search_cutoff: str
    title: str
    source: str = ""
    content_sha256: str = ""
    notes: tuple[str, ...] = ()
    claims: tuple[tuple[str, str], ...] = ()

    @property
    def frozen_claims(self) -> dict[str, str]:
        """Claim id -> digest of its frozen checks (:attr:`claims`)."""
        return dict(self.claims)

    @property
    def snapshot_path(self) -> str:
        """Relative path of the frozen snapshot."""
        return f"{SNAPSHOTS}{self.name}.yaml"

    @property
    def label(self) -> str:
        """``v1 (2026-05-04)``."""
        return f"{self.name} ({self.date})"


@dataclass(frozen=True)
class Snapshot:
    """The frozen content of one release.

    Attributes:
        release: name of the release it freezes.
        taxonomy: the controlled vocabulary at release time (the mapping of taxonomy.yaml).
        retained: key -> retained record, as it was at release time.
        excluded: record id -> excluded record, as it was at release time.
        identification: the identification counts of the update rounds the release covers, as
            they stood at release time (:func:`masrl.analyses.rounds.identification`); ``{"rounds": []}``
            when it covers none; None for a snapshot of a masrl that did not record them.
    """

    release: str
    taxonomy: dict
    retained: dict[str, dict] = field(default_factory=dict)
    excluded: dict[str, dict] = field(default_factory=dict)
    identification: dict | None = None


def releases_from(data: dict | None) -> list[Release]:
    """The releases of a parsed ``corpus/releases.yaml`` mapping, in file order.

    Malformed entries are skipped here (``masrl validate`` reports them).
    """
    items = (data or {}).get("releases") if isinstance(data, dict) else None
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and all(isinstance(item.get(k), str) for k in ("name", "date", "search_cutoff", "title")):
            notes = item.get("notes") if isinstance(item.get("notes"), list) else []
            claims = item.get("claims") if isinstance(item.get("claims"), dict) else {}
            out.append(Release(item["name"], item["date"], item["search_cutoff"], item["title"], str(item.get("source", "")),
                               str(item.get("content_sha256", "")), tuple(str(n) for n in notes),
                               tuple(sorted((str(k), str(v)) for k, v in claims.items()))))
    return out


def snapshot_from(data: dict | None) -> Snapshot | None:
    """The :class:`Snapshot` of a parsed snapshot file, or None if it is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("release"), str) or not isinstance(data.get("taxonomy"), dict):
        return None
    retained = data.get("retained") if isinstance(data.get("retained"), dict) else {}
    excluded = data.get("excluded") if isinstance(data.get("excluded"), dict) else {}
    found = data.get("identification") if isinstance(data.get("identification"), dict) else None
    return Snapshot(data["release"], data["taxonomy"],
                    {str(k): v for k, v in retained.items() if isinstance(v, dict)},
                    {str(k): v for k, v in excluded.items() if isinstance(v, dict)}, found)


#: Digests of snapshots this process has computed, by the exact content of the mapping (pickling it
#: is a quarter of the time of its canonical JSON): every command reads and checks the same frozen
#: snapshots again.
_DIGESTS = Memo(64)


def content_digest(data: dict) -> str:
    """SHA-256 (hex) of a parsed snapshot's content: its mapping as canonical JSON (sorted keys,
    UTF-8), so that comments and layout do not count and any changed value does."""
    key = content_key(data)
    known = _DIGESTS.get(key)
    if known is not MISSING:
        return known
    digest = _canonical_digest(data)
    _DIGESTS.put(key, digest)
    return digest


def _canonical_digest(data) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def claim_digest(claim: dict) -> str:
    """SHA-256 (hex) of what a claim of ``corpus/claims.yaml`` counts: its ``checks`` as canonical
    JSON (what each selects, the number it states, its macro). Its statement, status and sources
    are not counted: they may be reworded, or the claim superseded, without changing a number."""
    return _canonical_digest(claim.get("checks"))


def latest(releases: list[Release]) -> Release | None:
    """The last release of the list (releases are kept in date order), or None."""
    return releases[-1] if releases else None


#: A date in a release's name: 2026-12-31, 2026.12.31, 2026_12_31, 26-12-31, 2026-12, or 20261231.
_DATE_IN_NAME = re.compile(r"(?<![0-9])(?:(?P<year>[0-9]{4})(?P<sep>[-._])[0-9]{2}(?:(?P=sep)(?P<day>[0-9]{2}))?"
                           r"|(?P<year2>[0-9]{2})(?P<sep2>[-._])[0-9]{2}(?P=sep2)(?P<day2>[0-9]{2}))(?![0-9])"
                           r"|(?<![0-9])(?P<compact>[0-9]{8})(?![0-9])")


def _is_date(found: re.Match) -> bool:
    """Whether a match of :data:`_DATE_IN_NAME` is a day (or a month) of the calendar, not a version (v10.20.30)."""
    import datetime

    digits = re.sub(r"[^0-9]", "", found.group())
    year = digits[:4] if found.group("year") or found.group("compact") else "20" + digits[:2]
    rest = digits[4:] if len(year) == 4 and not found.group("year2") else digits[2:]
    try:
        datetime.date(int(year), int(rest[:2]), int(rest[2:4]) if len(rest) >= 4 else 1)
    except ValueError:
        return False
    return True


def next_name(releases: list[Release]) -> str:
    """A suggested name for the next release: ``v<n+1>`` after the highest ``v<n>``; without one, the
    latest release's name with its last number raised (``v1.0`` -> ``v1.1``, ``2026`` -> ``2027``),
    or today's date after a release named by its date, never a name that is taken; else ``v1``."""
    taken = {r.name for r in releases}
    numbers = [int(m.group(1)) for r in releases if (m := re.fullmatch(r"v([0-9]+)", r.name))]
    last = latest(releases)
    digits = list(re.finditer(r"[0-9]+", last.name)) if last is not None and not numbers else []
    if not digits:
        return f"v{max(numbers, default=0) + 1}"
    dated = next((m for m in reversed(list(_DATE_IN_NAME.finditer(last.name))) if _is_date(m)), None)  # the last date
    if dated:  # a name holding a date: the next holds today's, in the same form (never 2026-12-32 or 2026-02-29)
        from ..core import clock

        year, month, day = clock.today_iso().split("-")
        if dated.group("compact"):
            today = year + month + day
        else:
            sep, width = dated.group("sep") or dated.group("sep2"), len(dated.group("year") or dated.group("year2"))
            today = sep.join([year[-width:], month] + ([day] if dated.group("day") or dated.group("day2") else []))
        name = last.name[:dated.start()] + today + last.name[dated.end():]
        later = today > dated.group() if len(today) == len(dated.group()) else False
        return name if later and name not in taken else f"v{max(numbers, default=0) + 1}"
    group, n = digits[-1], int(digits[-1].group()) + 1
    while (name := f"{last.name[:group.start()]}{n:0{len(group.group())}d}{last.name[group.end():]}") in taken:
        n += 1
    return name


def releases_bytes(releases: list[Release], errata: list | None = None) -> bytes:
    """Bytes of ``corpus/releases.yaml`` listing ``releases`` and, when given, the ``errata``
    list as parsed from the file (kept as it is; :mod:`masrl.corpus.errata`), header comment included."""
    items = []
    for r in releases:
        item = {"name": r.name, "date": r.date, "search_cutoff": r.search_cutoff, "title": r.title}
        if r.source:
            item["source"] = r.source
        if r.content_sha256:
            item["content_sha256"] = r.content_sha256
        if r.notes:
            item["notes"] = list(r.notes)
        if r.claims:
            item["claims"] = dict(r.claims)
        items.append(item)
    data = {"format_version": SNAPSHOT_FORMAT, "releases": items}
    if errata:
        data["errata"] = errata
    return RELEASES_HEADER.encode() + b"\n" + dump_record(data)


def freeze(release: Release, taxonomy: dict, retained: dict[str, dict], excluded: dict[str, dict],
           identification: dict | None = None) -> bytes:
    """Bytes of the snapshot file of ``release``: its date and search cutoff (which its reports state), the
    vocabulary and every record, sorted by key / id, and the identification counts of the update rounds it covers (when there are any), so that the
    release's PRISMA flow never changes when rounds are edited later.

    ``retained`` maps keys to records, ``excluded`` record ids to records; the
    records are written as they are (every field), so that nothing the
    release's reports need can be lost later.
    """
    data = {
        "format_version": SNAPSHOT_FORMAT,
        "release": release.name,
        "date": release.date,
        "search_cutoff": release.search_cutoff,
        "taxonomy": taxonomy,
        "retained": {k: retained[k] for k in sorted(retained)},
        "excluded": {k: excluded[k] for k in sorted(excluded)},
    }
    if identification is not None:
        data["identification"] = identification
    return SNAPSHOT_HEADER.format(name=release.name, date=release.date).encode() + b"\n" + dump_by_parts(data)
