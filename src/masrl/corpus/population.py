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

from .errata import Erratum, corrected, errata_from
from .load import Corpus
from .migrate import migrate
from .releases import Release, Snapshot, latest, releases_from, snapshot_from
from ..core.names import record_id_order

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
        errata: the errata of the release, applied to ``taxonomy`` (:mod:`masrl.corpus.errata`).
        identification: for a release, the update rounds' identification counts frozen with it.
    """

    name: str
    label: str
    taxonomy: dict
    retained: tuple[dict, ...]
    excluded: tuple[dict, ...]
    release: Release | None = None
    identification: dict | None = None
    errata: tuple[Erratum, ...] = ()

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
        changed_fields: ``(key or record id, (field, ...))`` for each of ``changed``: the
            top-level fields whose values differ, sorted.
        vocabulary: the parts of the controlled vocabulary that differ (:func:`vocabulary_changes`);
            empty (false) when it is the same.
    """

    retained: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    vocabulary: tuple[str, ...] = ()
    changed_fields: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def fields_changed(self) -> tuple[str, ...]:
        """Every field that differs in at least one changed record, sorted."""
        return tuple(sorted({f for _, fields in self.changed_fields for f in fields}))

    @property
    def vocabulary_sections(self) -> tuple[str, ...]:
        """The top-level parts of the vocabulary that differ (``gap_analysis``, ``fields.method``), in order."""
        return tuple(dict.fromkeys(p if p.startswith("fields.") else p.split(".")[0] for p in self.vocabulary))

    def __bool__(self) -> bool:
        return bool(self.retained or self.excluded or self.dropped or self.changed or self.vocabulary)

    @property
    def count(self) -> int:
        """Number of records not in the earlier population (new retained + new excluded)."""
        return len(self.retained) + len(self.excluded)

    def describe(self, base: str) -> str:
        """One clause for reports and commands (``base`` names the earlier population) that says
        what changed: ``1 retained record and 0 excluded records added since release v1, 2 records
        changed in the fields bibtex_differs and method, the vocabulary changed in gap_analysis
        and fields.method``, ``1 record changed since release v1 in the field year``, or ``identical
        to release v1``."""
        if not self:
            return f"identical to {base}"
        parts = []
        if self.count:
            parts.append(f"{counted(len(self.retained), 'retained')} and {counted(len(self.excluded), 'excluded')} "
                         f"added since {base}")
        if self.dropped:
            parts.append(f"{counted(len(self.dropped), 'record')} dropped" + ("" if parts else f" since {base}"))
        if self.changed:
            fields = self.fields_changed
            what = f" in {'the field' if len(fields) == 1 else 'the fields'} {_and(fields)}" if fields else ""
            parts.append(f"{counted(len(self.changed), 'record')} changed" + ("" if parts else f" since {base}") + what)
        if self.vocabulary:
            parts.append("the vocabulary changed" + ("" if parts else f" since {base}")
                         + f" in {_and(self.vocabulary_sections)}")
        return ", ".join(parts)


def _and(items) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def counted(n: int, word: str) -> str:
    """``counted(1, 'record')`` -> ``1 record``; ``counted(2, 'retained')`` -> ``2 retained records``."""
    noun = "record" if n == 1 else "records"
    return f"{n} {noun}" if word == "record" else f"{n} {word} {noun}"


def vocabulary_changes(before: dict, after: dict) -> tuple[str, ...]:
    """The parts of two vocabularies (taxonomy mappings) that differ, as dotted paths two levels
    deep (``gap_analysis.combine``, ``identifier_schemes.arxiv``, ``fields.method``; a part
    that is not a mapping on both sides by its own name), in the order of ``after`` then ``before``."""
    out = []
    for top in dict.fromkeys([*after, *before]):
        a, b = before.get(top), after.get(top)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out += [f"{top}.{k}" for k in dict.fromkeys([*b, *a]) if a.get(k) != b.get(k)]
        else:
            out.append(str(top))
    return tuple(out)


def pending(current: Population, earlier: Population | None) -> Pending:
    """The records of ``current`` that ``earlier`` does not hold (all of them without ``earlier``), those
    both hold with other content (and which of their fields differ), and what of the vocabulary differs."""
    old_ret = earlier.keys if earlier else frozenset()
    old_exc = earlier.record_ids if earlier else frozenset()
    changed: list[str] = []
    fields: list[tuple[str, tuple[str, ...]]] = []
    if earlier is not None:
        before = {r["key"]: r for r in earlier.retained} | {r["record_id"]: r for r in earlier.excluded}
        now = {r["key"]: r for r in current.retained} | {r["record_id"]: r for r in current.excluded}
        changed = sorted(k for k in before.keys() & now.keys() if before[k] != now[k])
        fields = [(k, tuple(sorted(f for f in before[k].keys() | now[k].keys() if before[k].get(f) != now[k].get(f))))
                  for k in changed]
    # an older release's vocabulary is compared as the current format reads it: what the format's
    # migration adds (declarations, attributes) is not a change of the vocabulary
    vocabulary = vocabulary_changes(migrate(earlier.taxonomy), migrate(current.taxonomy)) if earlier is not None else ()
    return Pending(tuple(sorted(current.keys - old_ret)), tuple(sorted(current.record_ids - old_exc)),
                   tuple(sorted(old_ret - current.keys)), tuple(changed), vocabulary, tuple(fields))


def pool(corpus: Corpus) -> Population:
    """The working tree's records (validated corpus) as the pool population."""
    retained = tuple(sorted(corpus.retained.values(), key=lambda r: r["key"]))
    excluded = tuple(sorted(corpus.excluded.values(), key=lambda r: record_id_order(r["record_id"])))
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
    built from its snapshot, its vocabulary's wording corrected by its errata. Releases
    without a readable snapshot are left out (``masrl validate`` reports them)."""
    snaps = snapshots(corpus)
    errata = errata_from(corpus.releases)
    out = []
    for rel in releases_from(corpus.releases):
        snap = snaps.get(rel.name)
        if snap is None:
            continue
        own = tuple(e for e in errata if e.release == rel.name)
        out.append(Population(
            rel.name, f"release {rel.label}", corrected(snap.taxonomy, list(own), rel.name),
            tuple(snap.retained[k] for k in sorted(snap.retained)),
            tuple(snap.excluded[k] for k in sorted(snap.excluded, key=record_id_order)), rel, snap.identification, own,
        ))
    return out


def latest_release(corpus: Corpus) -> Release | None:
    """The most recent release listed, or None."""
    return latest(releases_from(corpus.releases))
