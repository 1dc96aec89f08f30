"""Checks of audit folders (``corpus/audits/<audit_id>/``), run by :func:`masrl.checks.validate.validate`.

Per folder: ``audit.yaml`` against its schema, its id = the folder name, its
kind fits its population, every field may be audited for that population,
every sampled record exists (or exists under its history: an exclusion now
retained with ``former_record_id``, a retained record moved to the exclusion
log with ``former_key``) and every original value is in the vocabulary. Each
round file: its name, schema, round and reader match the name, its rows are
exactly the sample and every value is allowed. Each adjudication file: each
entry is a disagreement of its round, the resolved value is allowed and says
who resolved it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from jsonschema import Draft202012Validator, FormatChecker

from ..audits.analysis import round_results
from ..audits.fields import (
    DECISION,
    EXCLUDE,
    INCLUDE,
    ORIGINAL,
    TABLE_COLUMNS,
    AuditField,
    allowed_fields,
    kind_of,
    released_vocabulary,
    stratify_choices,
    with_vocabulary,
)
from ..audits.model import (
    AUDIT_FILE,
    ROUNDS,
    _folder,
    parse_adjudication_file,
    parse_round_file,
    reader_slug,
)
from ..audits.sample import strata_order
from ..audits.schema import ADJUDICATION_SCHEMA, AUDIT_FILE_SCHEMA, ROUND_SCHEMA
from ..bib.identifiers import IdentifierError, keys_of, parse, scheme_and_value
from ..core.didyoumean import did_you_mean as _suggest
from ..corpus import schema as schemas
from ..core import clock
from ..corpus.load import AUDITS, EXCLUSIONS, PAPERS
from .collector import malformed_entries


def _value_problem(spec: AuditField, value) -> str | None:
    if value in spec.values:
        return None
    allowed = ", ".join(spec.values)
    return f"{value!r} is not an allowed value of {spec.name}; allowed: {allowed}{_suggest(value, spec.value_labels)}"


class _FolderChecker:
    """The checks of one audit folder; problems go to the shared validator (``checker``)."""

    def __init__(self, checker, folder: str, files: dict[str, dict], known: dict[str, str]):
        self.c = checker
        self.folder = folder
        self.files = files
        self.known = known  # record key / id (also former ones) -> "retained" | "excluded"
        self._holders: dict[str, tuple[str, ...]] | None = None
        self.audit_file = f"{folder}{AUDIT_FILE}"

    def valid(self, file: str, value: dict, schema: dict) -> bool:
        before = len(self.c.problems)
        self.c.schema_errors(file, value, Draft202012Validator(schema, format_checker=FormatChecker()))
        return len(self.c.problems) == before

    def entries(self, rel: str, data: dict, schema: dict, key: str) -> set[int] | None:
        """Check ``data`` against ``schema``; the indices of the entries of list ``key`` its problems name, or
        None when one is about the file's own keys (the checks of the entries need those), so that the
        well-formed entries are judged in the same run."""
        before = len(self.c.problems)
        self.valid(rel, data, schema)
        return malformed_entries(self.c.problems[before:], key)

    def run(self) -> None:
        others = sorted(f for f in self.files if f != self.audit_file)
        for rel in others:
            name = rel[len(self.folder):]
            ok = (name.startswith(f"{ROUNDS}/") and parse_round_file(rel)) or ("/" not in name and parse_adjudication_file(rel) is not None)
            if not ok:
                self.c.add(rel, (), f"unexpected file in an audit folder; expected {AUDIT_FILE}, "
                                    f"adjudication-round-<n>.yaml and {ROUNDS}/round-<n>-<reader>.yaml")
        if self.audit_file not in self.files:
            self.c.add(self.folder.rstrip("/"), (), f"audit folder without {AUDIT_FILE}: the sample must be recorded "
                                                    "there (masrl audit sample writes it)")
            return
        data = self.files[self.audit_file]
        malformed = self.entries(self.audit_file, data, AUDIT_FILE_SCHEMA, "items")
        if malformed is None:
            return
        if malformed:  # the well-formed items are judged; the readings once every item is (they are read against them)
            self.sample({**data, "items": [item for i, item in enumerate(data["items"]) if i not in malformed]}, malformed)
            return
        sample_ok = self.sample(data)  # its readings are judged against it even so: every problem in one run
        rounds_ok = [self.round(rel, data) for rel in others if parse_round_file(rel) and f"/{ROUNDS}/" in rel]
        if not (sample_ok and all(rounds_ok)):  # every round is checked, so that all their problems show at once
            return
        audit = replace(_folder(self.audit_file, data, self.files), vocabulary=self.recorded(data))
        disagreements = {(rr.round, d.item, d.field): d.values for rr in round_results(audit, self.c.tax)
                         for f in rr.fields for d in f.disagreements}
        for rel in others:
            if parse_adjudication_file(rel) is not None and "/" not in rel[len(self.folder):]:
                self.adjudication(rel, data, audit, disagreements)

    def when(self, file: str, path: tuple, date, earliest=None) -> None:
        """A date of the audit is not in the future, nor (``earliest``: the audit's own date) before the sample."""
        day, today = str(date), clock.today_iso()
        if day > today:
            self.c.add(file, path, f"{day} is in the future (today is {today})")
        elif earliest is not None and day < str(earliest):
            self.c.add(file, path, f"{day} is before the audit was drawn ({earliest}, {AUDIT_FILE})")

    # ------------------------------------------------------------------ audit.yaml
    def sample(self, data: dict, skipped: set[int] = frozenset()) -> bool:
        """The sample's own rules (``skipped``: indices of malformed items left out of ``data["items"]``, so that
        the paths of the others stay theirs)."""
        file, before = self.audit_file, len(self.c.problems)
        index = [i for i in range(len(data["items"]) + len(skipped)) if i not in skipped]
        self.when(file, ("date",), data["date"])
        folder_id = self.folder[len(AUDITS):].rstrip("/")
        if data["audit_id"] != folder_id:
            self.c.add(file, ("audit_id",), f"{data['audit_id']!r} does not match the folder name {folder_id!r}")
        population = data["population"]
        if data["kind"] != kind_of(population):
            self.c.add(file, ("kind",), f"an audit of the {population} population is of kind {kind_of(population)!r}")
        allowed = allowed_fields(self.c.tax, population)
        self.vocabulary(data, allowed)
        for i, name in enumerate(data["fields"]):
            if name not in allowed:
                self.c.add(file, ("fields", i), f"{name!r} cannot be audited for the {population} population; "
                                                f"allowed: {', '.join(allowed)}{_suggest(name, allowed)}")
        if kind_of(population) == "screening" and DECISION not in data["fields"]:
            self.c.add(file, ("fields",), "a screening audit asks for the decision: list 'decision' first")
        stratify = data["sampling"].get("stratify")
        choices = stratify_choices(self.c.tax, population)
        if stratify is not None and stratify not in choices:
            self.c.add(file, ("sampling", "stratify"), f"{stratify!r} is not a field to stratify the {population} population by; "
                                                       f"allowed: {', '.join(choices)}{_suggest(stratify, choices)}")
        self.sampling(data, stratify if stratify in choices else None, len(index))
        seen_items: dict[str, int] = {}
        seen_records: dict[str, int] = {}
        for i, item in zip(index, data["items"]):
            path = ("items", i)
            for what, seen, value in (("item", seen_items, item["item"]), ("record", seen_records, item["record"])):
                if value in seen:
                    self.c.add(file, path + (what,), f"{value!r} is also items[{seen[value]}]; each record is sampled once")
                seen.setdefault(value, i)
            if item["record"] not in self.known:
                self.c.add(file, path + ("record",), f"names record {item['record']!r}, which is neither retained nor "
                                                     f"excluded (nor the former id of one){_suggest(item['record'], self.known)}")
            if population != "all" and item["kind"] != population:
                self.c.add(file, path + ("kind",), f"a {item['kind']} record in a sample of the {population} population")
            self.identifier(item, path)
            self.originals(item, path, with_vocabulary(allowed, self.recorded(data)), data["fields"])
        return len(self.c.problems) == before

    def recorded(self, data: dict) -> dict:
        """The vocabulary the audit recorded when sampled; for one that recorded none (sampled by an earlier
        masrl), the values of its fields in the frozen releases (:func:`masrl.audits.fields.released_vocabulary`)."""
        if isinstance(data.get("vocabulary"), dict):
            return data["vocabulary"]
        names = [*data["fields"], *([data["sampling"]["stratify"]] if data["sampling"].get("stratify") else [])]
        return released_vocabulary(self.c.corpus.snapshots, names, str(data["date"]))

    def vocabulary(self, data: dict, allowed: dict) -> None:
        """The values recorded at sampling time: of the audit's fields (or its stratification field) only."""
        for name in data.get("vocabulary") or {}:
            if name not in data["fields"] and name != data["sampling"].get("stratify"):
                self.c.add(self.audit_file, ("vocabulary", name), f"{name!r} is neither a field of this audit "
                                                                 f"({', '.join(data['fields'])}) nor its stratification field")

    def sampling(self, data: dict, stratify: str | None, items: int) -> None:
        """What the sample says of its drawing (published in the audit report) is what it holds: ``n`` items; per
        stratum a value of the field, no more sampled than there were, and as many items of it as sampled."""
        file, sampling = self.audit_file, data["sampling"]
        if sampling["n"] != items:
            self.c.add(file, ("sampling", "n"), f"says {sampling['n']} but the sample has {items} item(s)")
        strata = sampling.get("strata") or []
        if not strata:
            return
        values = strata_order(self.c.tax, stratify) if stratify else ()
        recorded = self.recorded(data).get(stratify) if stratify else None
        values = (*values, *[v for v in recorded if v not in values]) if values and isinstance(recorded, list) else values
        counted = Counter(str(item.get("stratum")) for item in data["items"])
        for j, stratum in enumerate(strata):
            path = ("sampling", "strata", j)
            if values and stratum["value"] not in values:
                self.c.add(file, path + ("value",), f"{stratum['value']!r} is not a value of {stratify}; allowed: "
                                                    f"{', '.join(values)}{_suggest(stratum['value'], values)}")
            if stratum["sampled"] > stratum["population"]:
                self.c.add(file, path + ("sampled",), f"{stratum['sampled']} sampled of a population of "
                                                      f"{stratum['population']}: no more can be drawn than there are")
            if stratum["sampled"] != counted.get(stratum["value"], 0):
                self.c.add(file, path + ("sampled",), f"says {stratum['sampled']} but {counted.get(stratum['value'], 0)} "
                                                      f"item(s) are of the stratum {stratum['value']!r}")
        total = sum(stratum["sampled"] for stratum in strata)
        if total != sampling["n"]:
            self.c.add(file, ("sampling", "strata"), f"the strata's sampled add up to {total}, not n ({sampling['n']})")

    def identifier(self, item: dict, path: tuple) -> None:
        """An item's identifier (a reader's sheet row is matched by it) is an identifier, and not another record's
        (its own record may have had it corrected since the sample: an id no record has is let be)."""
        text = item.get("identifier")
        if not isinstance(text, str) or not text:
            return
        try:
            key = parse(*reversed(scheme_and_value(text))).key
        except (IdentifierError, KeyError, ValueError) as err:
            self.c.add(self.audit_file, path + ("identifier",), f"{text!r} is not an identifier: {err}")
            return
        holder = self.holders().get(key)
        if holder is not None and holder[0] != item["record"] and item["record"] not in holder:
            self.c.add(self.audit_file, path + ("identifier",),
                       f"{text!r} is the identifier of record {holder[0]!r}, not of {item['record']!r}: a reader's row is "
                       "matched to its item by it; give the item its record's identifier")

    def holders(self) -> dict[str, tuple[str, ...]]:
        """Canonical identifier -> the names of the record that has it (its key or id, and its former ones)."""
        if self._holders is None:
            self._holders = {}
            for rec in [*self.c.corpus.retained.values(), *self.c.corpus.excluded.values()]:
                names = tuple(str(n) for n in (rec.get("key") or rec.get("record_id"), rec.get("former_record_id"),
                                               rec.get("former_key")) if n)
                ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
                for key in sorted(keys_of(ids)):
                    self._holders.setdefault(key, names)
        return self._holders

    def originals(self, item: dict, path: tuple, allowed: dict[str, AuditField], fields: list[str]) -> None:
        file = self.audit_file
        original = item["original"]
        for name in fields:
            spec = allowed.get(name)
            if spec is None:
                continue
            if name == DECISION:
                value = original.get(DECISION, INCLUDE if item["kind"] == "retained" else EXCLUDE)
            elif spec.only_if_excluded and item["kind"] == "retained":
                if name in original:
                    self.c.add(file, path + ("original", name), "a retained record has no screening stage or reason class")
                continue
            elif name not in original:
                self.c.add(file, path + ("original", name), "required field is missing")
                continue
            else:
                value = original[name]
            problem = _value_problem(spec, value)
            if problem:
                self.c.add(file, path + ("original", name), problem)
        for name in original:
            if name not in fields:
                self.c.add(file, path + ("original", name), f"{name!r} is not a field of this audit ({', '.join(fields)})")

    # ------------------------------------------------------------------ rounds
    def round(self, rel: str, sample: dict) -> bool:
        data = self.files[rel]
        before = len(self.c.problems)
        malformed = self.entries(rel, data, ROUND_SCHEMA, "rows")
        if malformed is None:
            return False
        number, slug = parse_round_file(rel)
        self.when(rel, ("date",), data["date"], sample["date"])
        if data["audit_id"] != sample["audit_id"]:
            self.c.add(rel, ("audit_id",), f"{data['audit_id']!r} is not the id of this audit ({sample['audit_id']!r})")
        if data["round"] != number:
            self.c.add(rel, ("round",), f"{data['round']} does not match the file name (round {number})")
        if reader_slug(data["reader"]) != slug:
            self.c.add(rel, ("reader",), f"{data['reader']!r} does not match the file name (reader '{slug}')")
        if reader_slug(data["reader"]) == ORIGINAL:
            self.c.add(rel, ("reader",), f"'{ORIGINAL}' names the corpus's own values; choose another reader name")
        elif reader_slug(data["reader"]) in TABLE_COLUMNS:
            self.c.add(rel, ("reader",), f"{data['reader']!r} names a column of the table of disagreements "
                                         f"({', '.join(TABLE_COLUMNS)}); choose another reader name")
        allowed = with_vocabulary(allowed_fields(self.c.tax, sample["population"]), self.recorded(sample))
        items = {i["item"]: i for i in sample["items"]}
        seen: set[str] = set()
        for j, row in enumerate(data["rows"]):
            if j in malformed:
                continue
            path = ("rows", j)
            item = items.get(row["item"])
            if item is None:
                self.c.add(rel, path + ("item",), f"{row['item']!r} is not an item of the sample")
                continue
            if row["item"] in seen:
                self.c.add(rel, path + ("item",), f"{row['item']!r} appears twice")
            seen.add(row["item"])
            if row["record"] != item["record"]:
                self.c.add(rel, path + ("record",), f"{row['record']!r} but the sample's {row['item']} is {item['record']!r}")
            self.row_values(rel, path, row["values"], sample["fields"], allowed)
        missing = [i for i in items if i not in seen]
        if missing and not malformed:  # a malformed row may be the missing item's
            self.c.add(rel, ("rows",), f"the sample's item(s) {', '.join(missing)} are missing")
        return len(self.c.problems) == before

    def row_values(self, rel: str, path: tuple, values: dict, fields: list[str], allowed: dict[str, AuditField]) -> None:
        for name in values:
            if name not in fields:
                self.c.add(rel, path + ("values", name), f"{name!r} is not a field of this audit ({', '.join(fields)})")
        excluded = values.get(DECISION) == EXCLUDE
        for name in fields:
            spec = allowed.get(name)
            value = values.get(name)
            if spec is None:
                continue
            if spec.only_if_excluded and not excluded:
                if value is not None:
                    self.c.add(rel, path + ("values", name), "only an exclusion has a stage and reason class; leave it empty for include")
                continue
            if value is None:
                self.c.add(rel, path + ("values", name), "required field is missing")
                continue
            problem = _value_problem(spec, value)
            if problem:
                self.c.add(rel, path + ("values", name), problem)

    # ------------------------------------------------------------------ adjudication
    def adjudication(self, rel: str, sample: dict, audit, disagreements: dict) -> None:
        data = self.files[rel]
        malformed = self.entries(rel, data, ADJUDICATION_SCHEMA, "resolutions")
        if malformed is None:
            return
        number = parse_adjudication_file(rel)
        if data["audit_id"] != sample["audit_id"]:
            self.c.add(rel, ("audit_id",), f"{data['audit_id']!r} is not the id of this audit ({sample['audit_id']!r})")
        if data["round"] != number:
            self.c.add(rel, ("round",), f"{data['round']} does not match the file name (round {number})")
        if number not in audit.rounds():
            self.c.add(rel, ("round",), f"round {number} has no imported sheet")
            return
        today = allowed_fields(self.c.tax, sample["population"])
        allowed = with_vocabulary(today, self.recorded(sample))
        items = {i.item: i for i in audit.items}
        seen: dict[tuple, int] = {}
        named = {}  # entry -> the keys its form problems name: the rest of the entry is judged in the same run
        for problem in self.c.problems:
            if problem.file == rel and (m := re.match(r"resolutions\[([0-9]+)\]\.?([A-Za-z_]*)", problem.field or "")):
                named.setdefault(int(m.group(1)), set()).add(m.group(2))

        def resolved_problems(path: tuple, res: dict) -> None:
            if res["resolved"] is not None:  # a value of the audit's time, or of today's vocabulary (what apply writes)
                problem = _value_problem(allowed[res["field"]], res["resolved"]) and _value_problem(today[res["field"]], res["resolved"])
                if problem:
                    self.c.add(rel, path + ("resolved",), problem)

        for j, res in enumerate(data["resolutions"]):
            if j in malformed:  # what its form problems leave well formed is judged in the same run
                if (isinstance(res, dict) and not named.get(j, {""}) & {"", "item", "field", "resolved"}
                        and isinstance(res.get("field"), str) and res["field"] in allowed and "resolved" in res):
                    resolved_problems(("resolutions", j), res)
                if isinstance(res, dict) and res.get("date") is not None and not named.get(j, {""}) & {"", "date"}:
                    self.when(rel, ("resolutions", j, "date"), res["date"], sample["date"])
                continue
            path = ("resolutions", j)
            key = (number, res["item"], res["field"])
            if key not in disagreements:
                self.c.add(rel, path, f"{res['item']} {res['field']} is not a disagreement of round {number}")
                continue
            now = disagreements[key]
            if isinstance(res["values"], dict) and res["values"] != now:
                shown = lambda values: ", ".join(f"{r}: {v!r}" for r, v in values.items())  # noqa: E731
                self.c.add(rel, path + ("values",), f"{res['item']} {res['field']}: the readings of round {number} now say "
                                                    f"{shown(now)}, not {shown(res['values'])} as this entry resolved: a "
                                                    "reading changed after the adjudication; restore it, or adjudicate "
                                                    "the disagreement again (give these values and resolve it anew)")
            if key[1:] in seen:
                self.c.add(rel, path, f"{res['item']} {res['field']} is also resolutions[{seen[key[1:]]}]")
            seen.setdefault(key[1:], j)
            if res["record"] != items[res["item"]].record:
                self.c.add(rel, path + ("record",), f"{res['record']!r} but the sample's {res['item']} is {items[res['item']].record!r}")
            if res.get("date") is not None:
                self.when(rel, path + ("date",), res["date"], sample["date"])
            resolved_problems(path, res)
            if res["resolved"] is not None:
                if not res.get("by"):
                    self.c.add(rel, path + ("by",), "say who resolved it (a name)")
            may_overturn = res["field"] == DECISION and items[res["item"]].kind == "excluded"
            for extra in ("authors", "year", "venue"):
                if res.get(extra) is not None and not may_overturn:
                    self.c.add(rel, path + (extra,), f"{extra} is only needed for an exclusion resolved as include "
                                                     "(the exclusion log does not record it)")


def known_records(retained: dict[str, dict], excluded: dict[str, dict]) -> dict[str, str]:
    """Every record name an audit may use -> its current kind: keys, record ids, and the former
    ids they keep (``former_record_id`` of a retained record, ``former_key`` of an excluded one)."""
    known: dict[str, str] = {}
    for rec in retained.values():
        for name in (rec.get("key"), rec.get("former_record_id")):
            if isinstance(name, str):
                known[name] = "retained"
    for rec in excluded.values():
        for name in (rec.get("record_id"), rec.get("former_key")):
            if isinstance(name, str):
                known[name] = "excluded"
    return known


def check_audit_folders(checker, legacy_ids: set[str]) -> None:
    """Add the problems of every audit folder of ``checker.corpus`` to ``checker`` (a
    :class:`masrl.checks.collector.Checker`); ``legacy_ids`` are the ids of single-file audits."""
    corpus = checker.corpus
    known = known_records(corpus.retained, corpus.excluded)
    for rel in corpus.unreadable:  # reported once, by the loader: an audit naming it repeats nothing
        for prefix, kind in ((PAPERS, "retained"), (EXCLUSIONS, "excluded")):
            if rel.startswith(prefix) and "/" not in rel[len(prefix):]:
                known.setdefault(rel[len(prefix):].rsplit(".", 1)[0], kind)
    folders: dict[str, dict[str, dict]] = {}
    for rel, value in corpus.audit_files.items():
        folder = "/".join(rel.split("/")[:3]) + "/"
        folders.setdefault(folder, {})[rel] = value
    for rel in corpus.unreadable:
        if rel.startswith(AUDITS) and rel.count("/") >= 3:
            folders.setdefault("/".join(rel.split("/")[:3]) + "/", {})
    for folder, files in sorted(folders.items()):
        audit_id = folder[len(AUDITS):].rstrip("/")
        if audit_id in legacy_ids:
            checker.add(f"{folder}{AUDIT_FILE}", (), f"audit id {audit_id!r} is also used by a single-file audit in {AUDITS}")
        if any(rel.startswith(folder) for rel in corpus.unreadable):
            continue  # reported by the loader; the rest of the folder would only repeat it
        _FolderChecker(checker, folder, files, known).run()


def single_file_audits(c, keys: set[str]) -> None:
    """Audits in the earlier single-file format (``corpus/audits/*.yaml``, e.g. the survey's
    spot-check): schema, unique ids, fields of the taxonomy, records that are retained, values
    in the vocabulary."""
    validator = Draft202012Validator(schemas.audit_schema(c.tax), format_checker=FormatChecker())
    seen: dict[str, str] = {}
    for file, audit in c.corpus.audits.items():
        before = len(c.problems)
        c.schema_errors(file, audit, validator)
        if len(c.problems) != before:
            continue
        if audit["audit_id"] in seen:
            c.add(file, ("audit_id",), f"audit id {audit['audit_id']!r} is also used by {seen[audit['audit_id']]}")
        seen.setdefault(audit["audit_id"], file)
        fields = audit["fields"]
        for name in fields:
            if name not in c.tax.fields:
                c.add(file, ("fields",), f"unknown field {name!r}{_suggest(name, c.tax.fields)}")
        released = released_vocabulary(c.corpus.snapshots, fields, str(audit["date"]))  # the values of its time
        for i, row in enumerate(audit["rows"]):
            if row["key"] not in keys:
                c.add(file, ("rows", i, "key"), f"names record {row['key']!r}, which is not a retained record{_suggest(row['key'], keys)}")
            for side in ("original", "second_reader"):
                for name in fields:
                    value = row[side].get(name)
                    if value is None:
                        c.add(file, ("rows", i, side, name), "required field is missing")
                    elif name in c.tax.fields and value not in c.tax.values(name) and value not in released.get(name, ()):
                        allowed = c.tax.values(name)
                        c.add(file, ("rows", i, side, name), f"{value!r} is not in the vocabulary; allowed: {', '.join(allowed)}"
                                                                  f"{_suggest(value, c.tax.labels(name))}")
