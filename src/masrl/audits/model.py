"""Audits as typed data, read from a validated :class:`~masrl.corpus.load.Corpus` (no file access).

Both audit formats become one :class:`Audit`: an audit folder
(``corpus/audits/<id>/audit.yaml``, ``rounds/*.yaml``, ``adjudication-round-<n>.yaml``)
and a single-file audit in the survey's earlier format (the 2026-05-03
spot-check: rows of ``original`` and ``second_reader`` values), which becomes
round 1 with the reader "second reader".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..corpus.load import AUDITS, Corpus
from .fields import DECISION, EXCLUDE, INCLUDE, ORIGINAL

AUDIT_FILE = "audit.yaml"
ROUNDS = "rounds"
SHEET = "sheet"
#: Reader name of the second reader of a single-file (earlier format) audit.
LEGACY_READER = "second reader"

_ROUND_FILE = re.compile(r"round-([0-9]+)-([a-z0-9][a-z0-9-]*)\.yaml")
_ADJUDICATION_FILE = re.compile(r"adjudication-round-([0-9]+)\.yaml")


def folder_of(audit_id: str) -> str:
    """``corpus/audits/<audit_id>/``."""
    return f"{AUDITS}{audit_id}/"


def reader_slug(name: str) -> str:
    """File-name form of a reader's name: ``Jörg Müller`` -> ``jorg-muller``; a name without
    Latin letters or digits -> ``reader-`` and the first 8 hex digits of its SHA-256."""
    import hashlib
    import unicodedata

    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-") or "reader-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


def round_file(audit_id: str, round_no: int, reader: str) -> str:
    """``corpus/audits/<id>/rounds/round-<n>-<reader slug>.yaml``."""
    return f"{folder_of(audit_id)}{ROUNDS}/round-{round_no}-{reader_slug(reader)}.yaml"


def adjudication_file(audit_id: str, round_no: int) -> str:
    """``corpus/audits/<id>/adjudication-round-<n>.yaml``."""
    return f"{folder_of(audit_id)}adjudication-round-{round_no}.yaml"


def parse_round_file(rel: str) -> tuple[int, str] | None:
    """``(round, reader slug)`` of a round file name, or None if the name is not of that form."""
    match = _ROUND_FILE.fullmatch(rel.rsplit("/", 1)[-1])
    return (int(match.group(1)), match.group(2)) if match else None


def parse_adjudication_file(rel: str) -> int | None:
    """The round of an adjudication file name, or None."""
    match = _ADJUDICATION_FILE.fullmatch(rel.rsplit("/", 1)[-1])
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Item:
    """One sampled record.

    Attributes:
        item: the blind label on the sheet (``S07``); the record key for an earlier-format audit.
        record: the record key (retained) or record id (excluded) at sampling time.
        kind: ``retained`` or ``excluded`` at sampling time.
        stratum: the record's value of the stratification field, or None.
        identifier: ``scheme:value`` shown on the sheet (checked on import).
        original: the values the corpus held at sampling time, field -> value
            (a screening audit's stage and reason class are absent for a retained record).
    """

    item: str
    record: str
    kind: str
    stratum: str | None
    identifier: str
    original: dict[str, str]

    def value(self, name: str) -> str | None:
        """The original value of a field; for ``decision`` include/exclude by the record's kind."""
        if name == DECISION:
            return self.original.get(DECISION) or (INCLUDE if self.kind == "retained" else EXCLUDE)
        return self.original.get(name)


@dataclass(frozen=True)
class Reading:
    """One imported sheet: one reader's values for every item of one round."""

    round: int
    reader: str
    file: str
    date: str
    values: dict[str, dict[str, str | None]]
    notes: dict[str, str]


@dataclass(frozen=True)
class Resolution:
    """One adjudicated disagreement: the resolved value (None while pending) and who resolved it.

    ``bibliographic`` holds the ``authors``/``year``/``venue`` given (not empty)
    for an exclusion overturned to include (the exclusion log does not record them).
    """

    round: int
    item: str
    record: str
    field: str
    resolved: str | None
    by: str | None
    date: str | None
    note: str | None
    file: str
    index: int
    bibliographic: dict = field(default_factory=dict)


@dataclass
class Audit:
    """One audit, either format. ``rounds()`` lists the rounds that have readings."""

    audit_id: str
    file: str
    kind: str
    population: str
    fields: list[str]
    date: str
    description: str
    sampling: dict
    instructions: str
    items: list[Item]
    readings: list[Reading]
    resolutions: list[Resolution]
    provenance: dict
    legacy: bool = False
    vocabulary: dict = field(default_factory=dict)

    @property
    def folder(self) -> str:
        """``corpus/audits/<audit_id>/`` (meaningless for an earlier-format audit)."""
        return folder_of(self.audit_id)

    def rounds(self) -> list[int]:
        """Round numbers with at least one reading, ascending."""
        return sorted({r.round for r in self.readings})

    def readings_of(self, round_no: int) -> list[Reading]:
        """The readings of one round, by reader name."""
        return sorted((r for r in self.readings if r.round == round_no), key=lambda r: r.reader)

    def readers(self, round_no: int) -> list[str]:
        """``["original", reader, ...]`` of one round."""
        return [ORIGINAL] + [r.reader for r in self.readings_of(round_no)]

    def resolution(self, round_no: int, item: str, name: str) -> Resolution | None:
        """The adjudication of one disagreement, if any."""
        for res in self.resolutions:
            if (res.round, res.item, res.field) == (round_no, item, name):
                return res
        return None


def _legacy(file: str, data: dict) -> Audit:
    rows = data["rows"]
    items = [Item(r["key"], r["key"], "retained", None, "", {k: str(v) for k, v in r["original"].items()}) for r in rows]
    values = {r["key"]: {k: str(v) for k, v in r["second_reader"].items()} for r in rows}
    notes = {r["key"]: str(r.get("annotator_note") or "") for r in rows}
    reading = Reading(1, LEGACY_READER, file, str(data["date"]), values, notes)
    return Audit(
        audit_id=data["audit_id"], file=file, kind="tags", population="retained", fields=list(data["fields"]),
        date=str(data["date"]), description=str(data.get("description", "")), sampling={}, instructions="",
        items=items, readings=[reading], resolutions=[], provenance=dict(data.get("provenance") or {}), legacy=True,
    )


def _folder(audit_file: str, data: dict, files: dict[str, dict]) -> Audit:
    folder = audit_file[: -len(AUDIT_FILE)]
    items = [Item(str(i["item"]), str(i["record"]), str(i["kind"]), i.get("stratum"), str(i.get("identifier", "")),
                  {k: str(v) for k, v in (i.get("original") or {}).items() if v is not None}) for i in data["items"]]
    readings, resolutions = [], []
    for rel, value in sorted(files.items()):
        if not rel.startswith(folder):
            continue
        if parse_round_file(rel) and rel.startswith(f"{folder}{ROUNDS}/"):
            readings.append(Reading(
                int(value["round"]), str(value["reader"]), rel, str(value["date"]),
                {str(r["item"]): dict(r.get("values") or {}) for r in value["rows"]},
                {str(r["item"]): str(r.get("note") or "") for r in value["rows"] if r.get("note")},
            ))
        elif parse_adjudication_file(rel) is not None:
            for i, res in enumerate(value.get("resolutions") or []):
                biblio = {k: res[k] for k in ("authors", "year", "venue") if res.get(k) is not None}
                resolutions.append(Resolution(
                    int(value["round"]), str(res["item"]), str(res["record"]), str(res["field"]),
                    None if res.get("resolved") is None else str(res["resolved"]),
                    None if res.get("by") is None else str(res["by"]),
                    None if res.get("date") is None else str(res["date"]),
                    None if res.get("note") is None else str(res["note"]), rel, i, biblio,
                ))
    return Audit(
        audit_id=data["audit_id"], file=audit_file, kind=data["kind"], population=data["population"],
        fields=list(data["fields"]), date=str(data["date"]), description=str(data.get("description", "")),
        sampling=dict(data.get("sampling") or {}), instructions=str(data.get("instructions", "")), items=items,
        readings=readings, resolutions=resolutions, provenance=dict(data.get("provenance") or {}),
        vocabulary=dict(data.get("vocabulary") or {}),
    )


def audits_of(corpus: Corpus) -> list[Audit]:
    """Every audit of a corpus that :func:`masrl.checks.validate.validate` accepted, sorted by audit id."""
    from dataclasses import replace

    from .fields import released_vocabulary

    out = [_legacy(file, data) for file, data in corpus.audits.items()]
    for rel, data in corpus.audit_files.items():
        if rel.endswith(f"/{AUDIT_FILE}") and rel.count("/") == 3:
            out.append(_folder(rel, data, corpus.audit_files))
    # an audit that recorded no vocabulary (an earlier masrl's) keeps the values of the frozen releases
    out = [a if a.vocabulary else replace(a, vocabulary=released_vocabulary(corpus.snapshots, a.fields, a.date)) for a in out]
    return sorted(out, key=lambda a: a.audit_id)
