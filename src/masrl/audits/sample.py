"""Drawing a reproducible, optionally stratified sample and writing its audit file (pure).

Sampling rule (anyone can redo it by hand):

1. the population's records, each in its stratum (its value of the
   stratification field; one stratum without ``--stratify``);
2. proportional allocation: stratum h of N_h records gets n·N_h/N items,
   rounded down, and the items left go to the largest remainders (ties: the
   stratum that comes first in vocabulary order) — Hamilton's method, so the
   strata sum to n and none exceeds N_h;
3. within a stratum, the records with the smallest ``sha256("<seed>:<record>")``
   (hex) are drawn; record = key or record id;
4. the sheet lists the drawn records by ``sha256("<seed>:sheet:<record>")``, so
   that neither strata nor the retained/excluded split show in its order, and
   labels them S01, S02, ...

The same corpus, seed, n and stratification give the same sample on any
machine and Python version (no pseudo-random generator is involved).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..corpus.records import SCHEME_ORDER
from ..corpus.taxonomy import Taxonomy
from .fields import DECISION, EXCLUDE, INCLUDE, AuditField, kind_of
from ..core.names import record_id_order

METHOD = ("proportional allocation (largest remainders); within a stratum the records with the smallest "
          "sha256('<seed>:<record>'); sheet order by sha256('<seed>:sheet:<record>')")


@dataclass(frozen=True)
class Candidate:
    """A record of the population as the sample and the blind sheet need it."""

    record: str
    kind: str
    stratum: str | None
    identifier: str
    title: str
    link: str
    original: dict[str, str]


def _identifier(ids: dict) -> str:
    for scheme in SCHEME_ORDER:
        value = ids.get(scheme)
        if isinstance(value, list):
            value = value[0] if value else None
        if value:
            return f"{scheme}:{value}"
    return ""


def candidates(retained: list[dict], excluded: list[dict], population: str, fields: list[str],
               stratify: str | None) -> list[Candidate]:
    """The population's records (sorted by key / record id) with their original values of ``fields``.

    A retained record in a screening audit has ``decision: include`` and no
    stage or reason class; an excluded one ``decision: exclude`` and its own.
    """
    out = []
    if population in ("retained", "all"):
        for rec in sorted(retained, key=lambda r: r["key"]):
            original = {DECISION: INCLUDE} if population == "all" else {f: str(rec[f]) for f in fields if f in rec}
            stratum = INCLUDE if stratify == DECISION else (None if stratify is None else str(rec.get(stratify)))
            out.append(Candidate(rec["key"], "retained", stratum, _identifier(rec.get("identifiers") or {}),
                                 str(rec["title"]), str(rec.get("url", "")).split(" ; ")[0], original))
    if population in ("excluded", "all"):
        for rec in sorted(excluded, key=lambda r: record_id_order(r["record_id"])):
            original = {f: (EXCLUDE if f == DECISION else str(rec[f])) for f in fields if f == DECISION or f in rec}
            stratum = EXCLUDE if stratify == DECISION else (None if stratify is None else str(rec.get(stratify)))
            out.append(Candidate(rec["record_id"], "excluded", stratum, _identifier(rec.get("identifiers") or {}),
                                 str(rec["screening_label"]), str(rec.get("url", "")), original))
    return out


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Hamilton's proportional allocation of ``n`` items to strata of ``sizes`` (in the given order).

    Raises:
        ValueError: if ``n`` exceeds the population.
    """
    total = sum(sizes.values())
    if n > total:
        raise ValueError(f"n = {n} but the population has {total} records")
    quotas = {s: n * size / total for s, size in sizes.items()} if total else {}
    out = {s: int(q) for s, q in quotas.items()}
    order = sorted(quotas, key=lambda s: (-(quotas[s] - out[s]), list(sizes).index(s)))
    for s in order[: n - sum(out.values())]:
        out[s] += 1
    return out


def _rank(seed: int, *parts: str) -> str:
    return hashlib.sha256(":".join([str(seed), *parts]).encode("utf-8")).hexdigest()


def draw(pool: list[Candidate], n: int, seed: int, strata_order: tuple[str, ...] = ()) -> tuple[list[Candidate], list[dict]]:
    """Draw ``n`` candidates as the module doc says.

    Returns ``(drawn candidates in sheet order, strata)`` with strata
    ``[{"value", "population", "sampled"}]`` in ``strata_order`` (values not
    listed there after, sorted); ``[]`` without stratification.

    Raises:
        ValueError: if ``n`` exceeds the population.
    """
    groups: dict[str, list[Candidate]] = {}
    for cand in pool:
        groups.setdefault(cand.stratum if cand.stratum is not None else "", []).append(cand)
    order = [s for s in strata_order if s in groups] + sorted(s for s in groups if s not in strata_order)
    sizes = {s: len(groups[s]) for s in order}
    quota = allocate(sizes, n)
    chosen: list[Candidate] = []
    for s in order:
        chosen += sorted(groups[s], key=lambda c: _rank(seed, c.record))[: quota[s]]
    chosen.sort(key=lambda c: _rank(seed, "sheet", c.record))
    strata = [] if list(groups) == [""] else [{"value": s, "population": sizes[s], "sampled": quota[s]} for s in order]
    return chosen, strata


def item_labels(count: int) -> list[str]:
    """``S01`` ... (at least two digits; a letter first so spreadsheets keep it as text)."""
    width = max(2, len(str(count)))
    return [f"S{i:0{width}d}" for i in range(1, count + 1)]


def default_instructions(population: str, fields: dict[str, AuditField]) -> str:
    """The reader's instructions for an audit of ``population`` asking ``fields``."""
    common = ("Fill in sheet.csv without looking at this survey's records, tables or reports until you have "
              "finished: decide from the paper alone. Find each paper from its identifier, title and link; read its "
              "abstract, and the full text where the abstract does not settle a field. Write exactly one value per "
              "cell from allowed-values.csv (the value, not its label; case matters). Keep the item column as it is; "
              "rows may be sorted. Put anything else in the note column. Save the sheet as CSV (UTF-8).")
    if kind_of(population) == "tags":
        return f"Tag each paper with {', '.join(fields)}. {common}"
    return ("Decide for each paper whether it meets one of the inclusion criteria (see instructions.md): write "
            "include or exclude in the decision column. For exclude, also give the screening stage at which you "
            "would exclude it and the exclusion-reason class; leave the stage and reason class empty for include. "
            + common)


def audit_document(*, audit_id: str, date: str, population: str, fields: list[str], n: int, seed: int,
                   stratify: str | None, strata: list[dict], instructions: str, description: str | None,
                   drawn: list[Candidate], command: str, version: str, vocabulary: dict | None = None) -> dict:
    """The mapping of ``audit.yaml`` (keys in file order). ``vocabulary``: the allowed values of the
    audited fields (and of the stratification field) as the taxonomy gives them at sampling time."""
    doc: dict = {"audit_id": audit_id, "kind": kind_of(population), "date": date}
    if description:
        doc["description"] = description
    doc.update(population=population, fields=list(fields))
    if vocabulary:
        doc["vocabulary"] = {name: list(values) for name, values in vocabulary.items()}
    doc["sampling"] = {"n": n, "seed": seed, "stratify": stratify, "method": METHOD, "strata": strata}
    doc["instructions"] = instructions
    doc["sheet"] = {"csv": "sheet/sheet.csv", "allowed_values": "sheet/allowed-values.csv",
                    "instructions": "sheet/instructions.md"}
    doc["items"] = [{"item": label, "record": c.record, "kind": c.kind, "stratum": c.stratum,
                     "identifier": c.identifier, "original": dict(c.original)}
                    for label, c in zip(item_labels(len(drawn)), drawn)]
    doc["provenance"] = {"source": command, "masrl": version}
    return doc


def strata_order(tax: Taxonomy, stratify: str | None) -> tuple[str, ...]:
    """The vocabulary order of the stratification field's values."""
    if stratify == DECISION:
        return (INCLUDE, EXCLUDE)
    return tax.values(stratify) if stratify else ()
