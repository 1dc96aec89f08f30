"""Populations: the sets of records a report or a claim is computed on.

Two kinds (survey team's view of a living review):

* the **pool**: every record of the working tree (``corpus/papers``, ``exclusions``)
  with the working tree's vocabulary; it moves on as papers are added;
* a **release**: the frozen snapshot of a published version (``corpus/releases/<name>.yaml``)
  with the vocabulary frozen beside it; it never changes.

A :class:`Population` is plain data; :mod:`masrl.build.pipeline` turns it into frames
and tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from .load import Corpus
from .releases import Release, Snapshot, latest, releases_from, snapshot_from

#: Name of the population of the working tree.
POOL = "pool"


@dataclass(frozen=True)
class Population:
    """One set of records with the vocabulary it is tagged in.

    Attributes:
        name: ``pool`` or the release name (``v1``).
        label: how reports name it (``current pool``, ``release v1 (2026-05-04)``).
        taxonomy: the mapping of the controlled vocabulary these records use.
        retained: retained records sorted by key.
        excluded: excluded records sorted by record id.
        release: the release it freezes, None for the pool.
        identification: for a release, the update rounds' identification counts frozen with it.
    """

    name: str
    label: str
    taxonomy: dict
    retained: tuple[dict, ...]
    excluded: tuple[dict, ...]
    release: Release | None = None
    identification: dict | None = None

    @property
    def is_release(self) -> bool:
        """True for a frozen release, False for the pool."""
        return self.release is not None

    @property
    def keys(self) -> frozenset[str]:
        """Keys of the retained records."""
        return frozenset(r["key"] for r in self.retained)

    @property
    def record_ids(self) -> frozenset[str]:
        """Record ids of the excluded records."""
        return frozenset(r["record_id"] for r in self.excluded)


@dataclass(frozen=True)
class Pending:
    """How one population differs from an earlier one (the pool from the latest release).

    Attributes:
        retained: keys of retained records the earlier population does not hold as retained.
        excluded: record ids of excluded records the earlier population does not hold.
        dropped: keys the earlier population held as retained that are no longer retained.
        changed: keys and record ids held by both whose record differs (retagged, corrected).
        vocabulary: True when the controlled vocabulary differs from the earlier one.
    """

    retained: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    vocabulary: bool = False

    def __bool__(self) -> bool:
        return bool(self.retained or self.excluded or self.dropped or self.changed or self.vocabulary)

    @property
    def count(self) -> int:
        """Number of records not in the earlier population (new retained + new excluded)."""
        return len(self.retained) + len(self.excluded)

    def describe(self, base: str) -> str:
        """One clause for reports and commands (``base`` names the earlier population): ``1 retained record
        and 0 excluded records added since release v1, 2 records changed, the vocabulary changed``,
        ``1 record changed since release v1``, or ``identical to release v1``."""
        if not self:
            return f"identical to {base}"
        parts = []
        if self.count:
            parts.append(f"{counted(len(self.retained), 'retained')} and {counted(len(self.excluded), 'excluded')} "
                         f"added since {base}")
        for items, what in ((self.dropped, "dropped"), (self.changed, "changed")):
            if items:
                parts.append(f"{counted(len(items), 'record')} {what}" + ("" if parts else f" since {base}"))
        if self.vocabulary:
            parts.append("the vocabulary changed" + ("" if parts else f" since {base}"))
        return ", ".join(parts)


def counted(n: int, word: str) -> str:
    """``counted(1, 'record')`` -> ``1 record``; ``counted(2, 'retained')`` -> ``2 retained records``."""
    noun = "record" if n == 1 else "records"
    return f"{n} {noun}" if word == "record" else f"{n} {word} {noun}"


def pending(current: Population, earlier: Population | None) -> Pending:
    """The records of ``current`` that ``earlier`` does not hold (all of them without ``earlier``), and
    those both hold with other content."""
    old_ret = earlier.keys if earlier else frozenset()
    old_exc = earlier.record_ids if earlier else frozenset()
    changed: list[str] = []
    if earlier is not None:
        before = {r["key"]: r for r in earlier.retained} | {r["record_id"]: r for r in earlier.excluded}
        now = {r["key"]: r for r in current.retained} | {r["record_id"]: r for r in current.excluded}
        changed = sorted(k for k in before.keys() & now.keys() if before[k] != now[k])
    return Pending(tuple(sorted(current.keys - old_ret)), tuple(sorted(current.record_ids - old_exc)),
                   tuple(sorted(old_ret - current.keys)), tuple(changed),
                   earlier is not None and earlier.taxonomy != current.taxonomy)


def pool(corpus: Corpus) -> Population:
    """The working tree's records (validated corpus) as the pool population."""
    retained = tuple(sorted(corpus.retained.values(), key=lambda r: r["key"]))
    excluded = tuple(sorted(corpus.excluded.values(), key=lambda r: r["record_id"]))
    return Population(POOL, "current pool", corpus.taxonomy, retained, excluded)


def snapshots(corpus: Corpus) -> dict[str, Snapshot]:
    """Release name -> its parsed snapshot, for every readable snapshot file."""
    out = {}
    for data in corpus.snapshots.values():
        snap = snapshot_from(data)
        if snap is not None:
            out[snap.release] = snap
    return out


def releases(corpus: Corpus) -> list[Population]:
    """Every release of ``corpus/releases.yaml`` (in release order) as a population
    built from its snapshot. Releases without a readable snapshot are left out
    (``masrl validate`` reports them)."""
    snaps = snapshots(corpus)
    out = []
    for rel in releases_from(corpus.releases):
        snap = snaps.get(rel.name)
        if snap is None:
            continue
        out.append(Population(
            rel.name, f"release {rel.label}", snap.taxonomy,
            tuple(snap.retained[k] for k in sorted(snap.retained)),
            tuple(snap.excluded[k] for k in sorted(snap.excluded)), rel, snap.identification,
        ))
    return out


def latest_release(corpus: Corpus) -> Release | None:
    """The most recent release listed, or None."""
    return latest(releases_from(corpus.releases))
