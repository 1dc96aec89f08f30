"""Resolved values -> record edits (pure: bytes in, planned file changes out).

For each resolved disagreement of a round:

* a tag of a retained record, or the stage / reason class of an excluded
  one: the field is set to the resolved value and ``tag_provenance`` of that
  field names the audit, round and who resolved it;
* an exclusion resolved as ``include``: the exclusion is overturned. A record
  that ``masrl exclude --key`` moved to the exclusion log comes back as it was
  (its key, tags and history, from ``former_record``) unless its key was taken
  since; any other gets a retained stub made by ``masrl add``'s stub function
  (every controlled field ``untagged``). Either way it holds
  ``former_record_id`` and the whole exclusion record in ``former_exclusion``;
  the exclusion file is removed after the record is written;
* a retained record resolved as ``exclude`` is not moved here: the plan says
  which ``masrl exclude --key`` command does it (it keeps the record's history).

A value already in the record is no edit (so applying twice changes nothing);
a record whose value changed since the sample, to something else than the
resolved value, is a conflict and blocks the whole plan. Files that would not
survive a rewrite byte for byte apart from the edit (hand formatting,
comments) are refused too: edit those by hand.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from ..bib import bibtex
from ..bib.entries import bibtex_block
from ..core.errors import Problem
from ..corpus.keys import taken_keys
from ..corpus.load import EXCLUSIONS, PAPERS, Corpus
from ..corpus.records import excluded_order, make_key, ordered, retained_order
from ..corpus.stubs import retained_stub
from ..corpus.taxonomy import Taxonomy
from ..corpus.yamlio import dump_record
from .fields import DECISION, EXCLUDE, INCLUDE
from .model import Audit, Resolution


@dataclass
class Plan:
    """What applying a round would do.

    Attributes:
        edits: existing file -> (bytes as read, new bytes).
        creates: new file -> bytes (retained stubs of overturned exclusions, and records restored).
        restored: the files of ``creates`` that are records restored as they were (not stubs).
        removes: files removed after the stubs are written (the overturned exclusions).
        changes: one line per change, for the user.
        problems: conflicts; any problem blocks the whole plan.
        pending: resolutions still without a resolved value.
        manual: steps left to the user (a retained record resolved as exclude).
    """

    edits: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)
    creates: dict[str, bytes] = field(default_factory=dict)
    restored: list[str] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    pending: list[Resolution] = field(default_factory=list)
    manual: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when nothing would be written."""
        return not (self.edits or self.creates or self.removes)

    def diff(self, files: dict[str, bytes]) -> str:
        """Unified diff of every planned change (``a/`` before, ``b/`` after)."""
        out: list[str] = []

        def add(rel: str, old: bytes | None, new: bytes | None) -> None:
            a = old.decode("utf-8").splitlines(keepends=True) if old is not None else []
            b = new.decode("utf-8").splitlines(keepends=True) if new is not None else []
            out.extend(difflib.unified_diff(a, b, f"a/{rel}" if old is not None else "/dev/null",
                                            f"b/{rel}" if new is not None else "/dev/null"))
        for rel in sorted(self.edits):
            add(rel, *self.edits[rel])
        for rel in sorted(self.creates):
            add(rel, None, self.creates[rel])
        for rel in sorted(self.removes):
            add(rel, files[rel], None)
        return "".join(out)


def _provenance(audit: Audit, res: Resolution, before: str | None) -> str:
    return (f"audit {audit.audit_id} round {res.round}: adjudicated by {res.by}"
            + (f" on {res.date}" if res.date else "") + (f" (was {before})" if before is not None else ""))


def _locate(corpus: Corpus, record: str) -> tuple[str, str, dict] | None:
    """(file, current kind, record) of an audited record, following its history."""
    for rel, rec in corpus.retained.items():
        if rec.get("key") == record or rec.get("former_record_id") == record:
            return rel, "retained", rec
    for rel, rec in corpus.excluded.items():
        if rec.get("record_id") == record or rec.get("former_key") == record:
            return rel, "excluded", rec
    return None


def _stub_paper(rec: dict, res: Resolution) -> dict | None:
    """The bibliographic part of the stub of an overturned exclusion (None without authors and year)."""
    former = rec.get("former_record") if isinstance(rec.get("former_record"), dict) else {}
    authors = res.bibliographic.get("authors") or rec.get("authors") or former.get("authors")
    year = res.bibliographic.get("year") or rec.get("year") or former.get("year")
    if not authors or not isinstance(year, int):
        return None
    authors = [bibtex.stored_author(a) if isinstance(a, str) else a for a in authors]  # as masrl add stores "First Last"
    venue = res.bibliographic.get("venue") or former.get("venue") or "arXiv"
    ids = dict(rec.get("identifiers") or {})
    bib = bibtex_block(former.get("title") or rec["screening_label"], year, venue, {})
    return {"title": former.get("title") or rec["screening_label"], "authors": list(authors), "year": year,
            "venue": venue, "identifiers": ids, "url": rec.get("url", ""), "bibtex_key": "", "bibtex": bib}


def _first_difference(written: bytes, ours: bytes) -> tuple[int, str, str]:
    """``(line, as written, as masrl writes it)`` of the first line where a record file differs from masrl's own form."""
    a, b = written.decode("utf-8", "replace").splitlines(), ours.decode("utf-8").splitlines()
    for number, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return number, x, y
    number = min(len(a), len(b)) + 1
    return number, a[number - 1] if number <= len(a) else "", b[number - 1] if number <= len(b) else ""


def _restorable(rec: dict, corpus: Corpus) -> bool:
    """An exclusion ``masrl exclude --key`` made of a retained record (its ``former_record`` kept), whose
    key no retained record has taken since: overturned, the record comes back as it was."""
    key = rec.get("former_key")
    return (isinstance(key, str) and bool(key) and isinstance(rec.get("former_record"), dict)
            and rec["former_record"].get("key") == key and key not in {r.get("key") for r in corpus.retained.values()})


def _retained_stub(paper: dict, tax: Taxonomy, key: str, source: str) -> dict:
    """A retained stub exactly as ``masrl add`` writes it."""
    return retained_stub({**paper, "source": source}, tax, key)


def plan_round(audit: Audit, round_no: int, corpus: Corpus, files: dict[str, bytes], tax: Taxonomy) -> Plan:
    """The :class:`Plan` of applying the resolved disagreements of ``round_no``.

    ``files`` are the bytes of the corpus files (from :func:`masrl.corpus.load.read_tree`).
    """
    plan = Plan()
    items = {i.item: i for i in audit.items}
    changed: dict[str, dict] = {}  # file -> record with edits
    overturned: set[str] = set()
    taken = taken_keys(corpus)
    resolutions = sorted((r for r in audit.resolutions if r.round == round_no),
                         key=lambda r: (r.item, r.field != DECISION, r.field))
    for res in resolutions:
        if res.resolved is None:
            plan.pending.append(res)
            continue
        item = items[res.item]
        where = _locate(corpus, item.record)
        if where is None:
            plan.problems.append(Problem(res.file, None, f"resolutions[{res.index}]", f"record {item.record} is no longer in the corpus"))
            continue
        rel, kind, rec = where
        if res.field != DECISION and kind != item.kind:  # moved to (or from) the exclusion log since the sample
            now = f"moved to the exclusion log ({rec.get('record_id')})" if kind == "excluded" else f"retained now ({rec.get('key')})"
            plan.problems.append(Problem(res.file, None, f"resolutions[{res.index}]",
                                         f"{item.record} was {item.kind} in the sample and is {now}: its {res.field} "
                                         "cannot be resolved on it: remove this resolution"))
            continue
        if res.field == DECISION:
            if res.resolved == INCLUDE and kind == "excluded" and _restorable(rec, corpus):
                key = str(rec["former_key"])
                restored = dict(rec["former_record"])
                restored["former_record_id"] = rec["record_id"]
                restored["former_exclusion"] = rec
                inclusion = tax.role("inclusion")
                if inclusion:
                    restored["tag_provenance"] = {**(restored.get("tag_provenance") or {}),
                                                  inclusion: _provenance(audit, res, None) + f": include, not {EXCLUDE}"}
                plan.creates[f"{PAPERS}{key}.yaml"] = dump_record(ordered(restored, retained_order(tax)))
                plan.restored.append(f"{PAPERS}{key}.yaml")
                plan.removes.append(rel)
                overturned.add(rel)
                plan.changes.append(f"{item.record}: exclusion overturned -> {PAPERS}{key}.yaml restored as it was before "
                                    "masrl exclude moved it (its key and tags; check them, then masrl validate)")
            elif res.resolved == INCLUDE and kind == "excluded":
                paper = _stub_paper(rec, res)
                if paper is None:
                    plan.problems.append(Problem(res.file, None, f"resolutions[{res.index}]",
                                                 f"{item.record} is resolved as include, but the exclusion log does not "
                                                 "record its authors and year: give authors, year (and venue) in this entry"))
                    continue
                key = make_key(paper["authors"][0], paper["year"], taken)
                taken.add(key)
                paper["bibtex_key"] = key
                source = f"masrl audit apply {audit.audit_id} (round {res.round}): exclusion {rec['record_id']} overturned by {res.by}"
                stub = _retained_stub(paper, tax, key, source)
                stub["former_record_id"] = rec["record_id"]
                stub["former_exclusion"] = rec
                inclusion = tax.role("inclusion")
                stub["tag_provenance"] = {inclusion: _provenance(audit, res, None) + f": include, not {EXCLUDE}"} if inclusion else {}
                plan.creates[f"{PAPERS}{key}.yaml"] = dump_record(ordered(stub, retained_order(tax)))
                plan.removes.append(rel)
                overturned.add(rel)
                plan.changes.append(f"{item.record}: exclusion overturned -> new retained stub {PAPERS}{key}.yaml "
                                    f"(tag it, then masrl validate)")
            elif res.resolved == EXCLUDE and kind == "retained":
                options = []
                for option, name in tax.exclusion_options():
                    resolved = audit.resolution(round_no, res.item, name)
                    options.append(f"{option} {resolved.resolved if resolved and resolved.resolved else name.upper()}")
                plan.manual.append(f"{item.record} is resolved as exclude: masrl exclude --key {rec['key']} "
                                   + " ".join(options) + " --reason '...'")
            continue
        if rel in overturned:
            continue
        current = rec.get(res.field)
        current = None if current is None else str(current)
        if current == res.resolved:
            continue
        if res.field in tax.fields and res.resolved not in tax.values(res.field):
            plan.problems.append(Problem(res.file, None, f"resolutions[{res.index}]",
                                         f"{item.record} {res.field}: {res.resolved!r} was a value when the audit was "
                                         "sampled but is not one of the vocabulary now (corpus/taxonomy.yaml): resolve "
                                         f"it to one of {', '.join(tax.values(res.field))}"))
            continue
        original = item.value(res.field)
        if current != original:
            plan.problems.append(Problem(res.file, None, f"resolutions[{res.index}]",
                                         f"{item.record} {res.field} is {current!r} now but was {original!r} in the sample; "
                                         f"resolved {res.resolved!r} would overwrite a later edit: edit the record by hand"))
            continue
        new = changed.setdefault(rel, dict(rec))
        new[res.field] = res.resolved
        new["tag_provenance"] = {**(new.get("tag_provenance") or {}), res.field: _provenance(audit, res, current)}
        plan.changes.append(f"{item.record}: {res.field} {current} -> {res.resolved}")
    for rel, rec in changed.items():
        old = files[rel]
        ours = dump_record(corpus.retained.get(rel) or corpus.excluded.get(rel))
        if ours != old:
            line, as_written, as_masrl = _first_difference(old, ours)
            plan.problems.append(Problem(rel, line, None, f"reads {as_written!r} where masrl writes {as_masrl!r}: this "
                                         "hand formatting (or a comment) would be lost by rewriting the file. Write the "
                                         "line as masrl does (then apply again), or make the audit's edit by hand"))
            continue
        order = retained_order(tax) if rel.startswith(PAPERS) else excluded_order(tax)
        plan.edits[rel] = (old, dump_record(ordered(rec, order)))
    assert all(rel.startswith(EXCLUSIONS) for rel in plan.removes)
    return plan
