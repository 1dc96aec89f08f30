"""Errata: recorded corrections of the wording of a frozen release's vocabulary.

A release's snapshot never changes (its digest guards it), so a mistake in the
*wording* frozen with it (a label or definition of the controlled vocabulary) is
corrected by an erratum listed in ``corpus/releases.yaml``::

    errata:
      - release: v1
        date: '2026-12-02'
        reason: the definitions were cut at a comma by YAML
        corrections:
          - field: method               # a field of the release's vocabulary
            value: role                 # one of its values (omit to correct the field's own text)
            key: definition             # label or definition, nothing else
            was: rewards that differ by role (planner
            now: rewards that differ by role (planner, executor, critic)
            drop: [executor, critic)]   # keys without a value the cut left (optional)

An erratum can change only label and definition text of the vocabulary (and drop the
keys without a value that a cut text left behind): never a record, a code, a count or
an order, so a release's numbers stay what it published. ``was`` must be the text the
snapshot holds (checked by ``masrl validate``), so an erratum states exactly what it
replaces. Reports of the release are computed from the corrected vocabulary
(:func:`corrected`); ``reports/RELEASES.md`` lists every erratum and ``masrl diff``
shows new ones.

Pure functions; the loader reads the files and the writer writes them.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass

#: The keys of the vocabulary an erratum may correct.
KEYS = ("label", "definition")


@dataclass(frozen=True)
class Correction:
    """One corrected text.

    Attributes:
        field: the controlled field (``method``).
        value: the value whose text is corrected (``role``), or None for the field's own text.
        key: ``label`` or ``definition``.
        was: the text as the snapshot holds it.
        now: the corrected text.
        drop: keys without a value in the same mapping that the cut text left (removed).
    """

    field: str
    value: str | None
    key: str
    was: str
    now: str
    drop: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """``method: survey (definition)`` or ``method (label)``."""
        return f"{self.field}: {self.value} ({self.key})" if self.value is not None else f"{self.field} ({self.key})"


@dataclass(frozen=True)
class Erratum:
    """One erratum of a release.

    Attributes:
        release: the release whose snapshot's wording it corrects.
        date: when it was recorded, ``YYYY-MM-DD``.
        reason: why (one paragraph).
        corrections: the corrected texts, in file order.
    """

    release: str
    date: str
    reason: str
    corrections: tuple[Correction, ...]


def errata_from(data: dict | None) -> list[Erratum]:
    """The errata of a parsed ``corpus/releases.yaml`` mapping, in file order.

    Malformed entries and corrections are skipped here (``masrl validate`` reports them).
    """
    items = data.get("errata") if isinstance(data, dict) else None
    out = []
    for item in items if isinstance(items, list) else []:
        if not (isinstance(item, dict) and all(isinstance(item.get(k), str) for k in ("release", "date", "reason"))):
            continue
        corrections = []
        for c in item.get("corrections") if isinstance(item.get("corrections"), list) else []:
            if not (isinstance(c, dict) and all(isinstance(c.get(k), str) for k in ("field", "key", "was", "now"))):
                continue
            value = c.get("value")
            drop = c.get("drop") if isinstance(c.get("drop"), list) else []
            corrections.append(Correction(c["field"], str(value) if value is not None else None, c["key"], c["was"],
                                          c["now"], tuple(str(d) for d in drop)))
        out.append(Erratum(item["release"], item["date"], item["reason"], tuple(corrections)))
    return out


def target(taxonomy: dict, correction: Correction) -> dict | None:
    """The mapping of ``taxonomy`` a correction applies to (a field's or one value's), or None."""
    fields = taxonomy.get("fields") if isinstance(taxonomy, dict) else None
    spec = fields.get(correction.field) if isinstance(fields, dict) else None
    if not isinstance(spec, dict) or correction.value is None:
        return spec if isinstance(spec, dict) else None
    values = spec.get("values")
    found = values.get(correction.value) if isinstance(values, dict) else None
    return found if isinstance(found, dict) else None


def corrected(taxonomy: dict, errata: list[Erratum], release: str) -> dict:
    """A copy of a release's frozen ``taxonomy`` with the corrections of its errata applied, in order.

    A correction whose ``was`` is not the text in place is skipped (``masrl validate`` refuses
    it), so a stale erratum never replaces other text.
    """
    out = pickle.loads(pickle.dumps(taxonomy, protocol=pickle.HIGHEST_PROTOCOL))  # a deep copy, five times faster
    for erratum in errata:
        if erratum.release != release:
            continue
        for c in erratum.corrections:
            spec = target(out, c)
            if spec is None or c.key not in KEYS or spec.get(c.key) != c.was:
                continue
            spec[c.key] = c.now
            for key in c.drop:
                if key in spec and spec[key] is None:
                    del spec[key]
    return out


def errata_items(errata: list[Erratum]) -> list[dict]:
    """Plain mappings of ``errata`` for reports and ``masrl diff``: release, date, reason and
    every correction (where, was, now)."""
    return [{"release": e.release, "date": e.date, "reason": e.reason,
             "corrections": [{"where": c.where, "was": c.was, "now": c.now} for c in e.corrections]} for e in errata]
