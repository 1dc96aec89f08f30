"""Every rule of a survey's inputs, as a registry, and :func:`validate`, which runs them all.

A rule is one small check with a stable code (:class:`Rule`); every problem it finds carries
that code (:attr:`masrl.core.errors.Problem.code`), so that tests and waivers can match codes
instead of wording. The rules run in the order of :data:`RULES`:

1. ``R`` reading: UTF-8, YAML syntax, duplicate keys, anchors/aliases, one mapping per file
   (found by :mod:`masrl.corpus.load`);
2. ``T`` the taxonomy (:mod:`.taxonomy`, :mod:`.declarations`): its format (an older one is
   only told what it lacks), its schema, and what its fields and declarations (tables, figures,
   README list, site, screening, audits, sentences) name. When any taxonomy rule finds a
   problem, the records are not checked (a broken vocabulary would make every record look
   wrong) and one problem says so;
3. ``D`` each record (:mod:`.records`): the JSON Schema derived from the taxonomy (required
   fields, types, allowed values, identifier formats, year range), single-line text,
   placeholders, BibTeX braces, the screening date, file name = key, ``untagged``, the rules
   between fields of one record, links, the characters of every text and portable keys
   (:mod:`.portable`);
4. ``P`` across records (:mod:`.pool`): unique keys, one paper one record (canonical
   identifiers, near-identical titles, across retained AND excluded records), agreement with
   the BibTeX block, the anchors of values;
5. ``S`` releases, their frozen snapshots and errata (:mod:`.releases`); ``C`` the claim ledger
   (:mod:`.claims`); ``A`` audits (:mod:`.audits`); ``U`` the search protocol and the update
   rounds (:mod:`.protocol`).

Never raises for user data, never writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..core.errors import NOT_CHECKED as errors_not_checked, Problem, sort_key
from ..core.memo import MISSING, Memo, content_key
from ..corpus.load import PAPERS, TAXONOMY, Corpus
from ..corpus.population import POOL
from ..corpus.releases import RELEASES, releases_from
from ..corpus.taxonomy import Taxonomy
from ..trace.examples import load_examples
from . import audits, declarations, figure_rules, pool, portable, records, taxonomy
from .claims import Scope, check_claims
from .protocol import check_protocol, check_rounds
from .collector import Checker
from .releases import check_errata, check_releases
from ..core import clock


@dataclass
class Context:
    """What the rules of one run share: the collector and the records by key.

    Attributes:
        checker: the :class:`~masrl.checks.collector.Checker` every rule adds to.
        by_key: retained records by key.
        keys: every retained key, also of record files that could not be read (reported once).
        snapshots: release name -> parsed snapshot, set by the releases rule.
    """

    checker: Checker
    by_key: dict
    keys: set
    snapshots: dict
    record_keys: dict = field(default_factory=dict)

    def record_key(self, file: str, rec: dict, kind: str) -> bytes | None:
        """What a per-record rule reads of one record (:data:`_RECORD_PROBLEMS`): the vocabulary, the
        file's name and line map, the record, its kind and today's date; None if it cannot be pickled."""
        if file not in self.record_keys:
            if "" not in self.record_keys:  # the vocabulary and the date, once per run
                self.record_keys[""] = content_key(self.checker.corpus.taxonomy, clock.today_iso())
            doc = self.checker.corpus.docs.get(file)
            base = self.record_keys[""]
            self.record_keys[file] = None if base is None else content_key(base, file, kind, rec, doc.lines if doc else None)
        return self.record_keys[file]


@dataclass(frozen=True)
class Rule:
    """One rule.

    Attributes:
        code: stable code (``T001``); never reused for another rule.
        name: short name (``taxonomy-schema``).
        run: ``Context -> None``; adds its problems to the context's checker.
        records: for a per-record rule, the kinds of record it is run on (``retained``,
            ``excluded``); ``run`` then takes ``(checker, file, record, kind)``.
    """

    code: str
    name: str
    run: Callable
    records: tuple[str, ...] = ()


def _on(fn: Callable) -> Callable[[Context], None]:
    return lambda ctx: fn(ctx.checker)


def _releases(ctx: Context) -> None:
    ctx.snapshots.update(check_releases(ctx.checker))


def _claims(ctx: Context) -> None:
    corpus, checker = ctx.checker.corpus, ctx.checker
    listed = frozenset(r.name for r in releases_from(corpus.releases)) - set(ctx.snapshots)
    if RELEASES in corpus.unreadable:  # reported as unreadable: no claim scope can be checked against it
        listed = frozenset(str(c.get("scope")) for c in corpus.claims if isinstance(c, dict)) - {POOL}
    traces = sorted(load_examples()) if checker.tax.traces else []
    check_claims(checker, _scopes(corpus, checker.tax, ctx.keys, ctx.snapshots), traces, listed)


def _audit_folders(ctx: Context) -> None:
    audits.check_audit_folders(ctx.checker, {a.get("audit_id") for a in ctx.checker.corpus.audits.values()})


#: The rule of the taxonomy's format, run first: an older format is only told what it lacks.
FORMAT_RULE = Rule("T011", "format-version", _on(taxonomy.format_version))

#: The rules of the taxonomy, run when its format is current.
TAXONOMY_RULES: tuple[Rule, ...] = (
    Rule("T001", "taxonomy-schema", _on(taxonomy.schema)),
    Rule("T002", "families", _on(declarations.families)),
    Rule("T003", "crosstabs", _on(taxonomy.crosstabs)),
    Rule("T004", "declared-tables", _on(declarations.tables)),
    Rule("T005", "identifier-schemes", _on(taxonomy.identifier_schemes)),
    Rule("T006", "gap-declarations", _on(taxonomy.gap_declarations)),
    Rule("T007", "derived-names", _on(taxonomy.derived_names)),
    Rule("T008", "year-minimum", _on(taxonomy.year_minimum)),
    Rule("T009", "field-conditions", _on(taxonomy.conditions)),
    Rule("T012", "declared-figures", _on(figure_rules.figures)),
    Rule("T013", "readme-and-site", _on(declarations.readme_and_site)),
    Rule("T014", "screening-fields", _on(declarations.screening)),
    Rule("T015", "audit-defaults", _on(declarations.audit_defaults)),
    Rule("T016", "field-names", _on(declarations.field_names)),
    Rule("T017", "free-fields", _on(declarations.free_fields)),
    Rule("T018", "sentences", _on(declarations.sentences)),
    Rule("T019", "value-keys", _on(taxonomy.value_keys)),
    Rule("T020", "taxonomy-text", _on(portable.taxonomy_text)),
    Rule("T021", "keys-without-value", _on(taxonomy.keys_without_value)),
    Rule("T022", "value-codes", _on(taxonomy.value_codes)),
    Rule("T024", "value-labels", _on(taxonomy.value_labels)),
    Rule("T023", "survey-links", _on(taxonomy.survey_links)),
)

#: The rules of the records, run when the taxonomy has no problem.
RECORD_RULES: tuple[Rule, ...] = (
    Rule("T010", "editorial-keys", lambda ctx: taxonomy.editorial_keys(ctx.checker, ctx.keys)),
    Rule("D001", "record-schema", records.RecordSchema, ("retained", "excluded")),
    Rule("D002", "single-line-text", records.single_line_text, ("retained", "excluded")),
    Rule("D003", "placeholders", records.placeholders, ("retained", "excluded")),
    Rule("D004", "bibtex-braces", records.braces, ("retained",)),
    Rule("D005", "screening-date", records.screening_date, ("excluded",)),
    Rule("D006", "file-name", records.file_name, ("retained", "excluded")),
    Rule("D007", "untagged", records.untagged, ("retained",)),
    Rule("D008", "cross-fields", records.cross_fields, ("retained", "excluded")),
    Rule("D009", "urls", records.urls, ("retained", "excluded")),
    Rule("D010", "text-characters", portable.record_text, ("retained", "excluded")),
    Rule("D011", "portable-keys", portable.record_names, ("retained",)),
    Rule("D012", "arxiv-dates", records.arxiv_dates, ("retained", "excluded")),
    Rule("D013", "suggestion-provenance", records.suggestion_provenance, ("retained",)),
    Rule("D014", "bibtex-primaryclass", records.primary_class, ("retained",)),
    Rule("D015", "dates-after-paper", records.dates_after_paper, ("retained", "excluded")),
    Rule("D016", "bibtex-month", records.bibtex_month, ("retained",)),
    Rule("D017", "bibtex-day", records.bibtex_day, ("retained",)),
    Rule("D018", "bibtex-isbn-issn", records.bibtex_numbers, ("retained",)),
    Rule("P001", "unique-keys", _on(pool.unique_keys)),
    Rule("P002", "one-identifier-one-record", _on(pool.identifiers)),
    Rule("P003", "one-title-one-record", _on(pool.titles)),
    Rule("P004", "bibtex-agreement", _on(pool.bibtex_agreement)),
    Rule("P005", "value-anchors", lambda ctx: pool.value_anchors(ctx.checker, ctx.by_key)),
    Rule("S001", "releases", _releases),
    Rule("S002", "errata", lambda ctx: check_errata(ctx.checker, ctx.snapshots)),
    Rule("S003", "releases-text", _on(portable.releases_text)),
    Rule("S004", "portable-release-names", _on(portable.release_names)),
    Rule("C001", "claims", _claims),
    Rule("C002", "claims-text", _on(portable.claims_text)),
    Rule("A001", "single-file-audits", lambda ctx: audits.single_file_audits(ctx.checker, ctx.keys)),
    Rule("A002", "audit-folders", _audit_folders),
    Rule("A003", "portable-audit-ids", _on(portable.audit_ids)),
    Rule("A004", "audits-text", _on(portable.audits_text)),
    Rule("U001", "search-protocol", lambda ctx: ctx.checker.extend(check_protocol(ctx.checker.corpus))),
    Rule("U002", "update-rounds", lambda ctx: ctx.checker.extend(check_rounds(ctx.checker.corpus))),
)

#: Every rule, in the order they run; codes are unique.
RULES: tuple[Rule, ...] = (FORMAT_RULE,) + TAXONOMY_RULES + RECORD_RULES

#: The rules that read declarations whose shape the schema checks: skipped once the schema rule found
#: a problem, so that a malformed declaration is reported once, by the schema.
SHAPE_DEPENDENT = frozenset({"T002", "T004", "T012", "T013", "T014", "T015", "T016", "T017", "T018"})

#: Rules of the taxonomy that an older git revision may predate: ``masrl diff`` does not run them on
#: the revision's side (a vocabulary with a text YAML cut short is still compared as it was).
PREDATED = frozenset({"T019", "T020", "T023", "T024"})

#: The code of the one problem that says the records were not checked because of the taxonomy
#: (:data:`masrl.core.errors.NOT_CHECKED`: a notice, not counted as an error).
NOT_CHECKED = errors_not_checked


#: The problems each per-record rule found in one record, by the rule's code and what it reads
#: (:meth:`Context.record_key`): a record validated again in this process (the other side of
#: ``masrl diff``, a command that validates before and after it writes, every record but the one a
#: contributor changed) is not checked again. The problems are frozen, so they are shared.
_RECORD_PROBLEMS = Memo(50000)


def _run(rule: Rule, ctx: Context) -> None:
    checker = ctx.checker
    checker.code = rule.code
    if not rule.records:
        rule.run(ctx)
        return
    check = None
    for kind, recs in (("retained", checker.corpus.retained), ("excluded", checker.corpus.excluded)):
        if kind in rule.records:
            for file, rec in recs.items():
                key = ctx.record_key(file, rec, kind)
                key = None if key is None else key + rule.code.encode()
                found = _RECORD_PROBLEMS.get(key)
                if found is not MISSING:
                    checker.problems += found
                    continue
                if check is None:  # a rule of a class compiles its schema once per run, when needed
                    check = rule.run(checker.tax) if isinstance(rule.run, type) else rule.run
                before = len(checker.problems)
                check(checker, file, rec, kind)
                _RECORD_PROBLEMS.put(key, tuple(checker.problems[before:]))


def _scopes(corpus: Corpus, tax: Taxonomy, keys: set[str], snapshots: dict) -> dict[str, Scope]:
    """What a claim about each population may name: the pool and every valid release."""
    near = {r.get("record_id") for r in corpus.excluded.values()
            if isinstance(r.get("if_retained"), dict) and isinstance(r.get("record_id"), str)}
    ids = {r.get("record_id") for r in corpus.excluded.values() if isinstance(r.get("record_id"), str)}
    scopes = {POOL: Scope(tax, keys, ids, near)}
    for name, snap in snapshots.items():
        snap_near = {rid for rid, r in snap.excluded.items() if isinstance(r.get("if_retained"), dict)}
        scopes[name] = Scope(Taxonomy(snap.taxonomy), set(snap.retained), set(snap.excluded), snap_near)
    return scopes


def from_older_format(problem: Problem) -> bool:
    """Whether ``problem`` only says the files predate the current format (records without
    ``date_added``, claims without a ``scope`` or with numbers typed in a statement). ``masrl diff``
    tolerates these on the side of an older git revision, whose claims are then read as
    claims about the pool."""
    if problem.field and problem.field.endswith("date_added") and problem.message == "required field is missing":
        return True
    if problem.file == "corpus/claims.yaml" and problem.field and problem.field.startswith("claims["):
        return (problem.field.endswith(".scope") and problem.message.startswith("say what the claim is about")) or \
            (problem.field.endswith(".statement") and problem.message.startswith("the number "))
    return False


#: The problems the taxonomy's rules (:data:`FORMAT_RULE` and :data:`TAXONOMY_RULES`) found in one
#: vocabulary, by what they read (:func:`_taxonomy_key`): a command that validates the vocabulary and
#: then the whole tree (``masrl add``), the other side of ``masrl diff`` and every validation after a
#: record changed check an unchanged vocabulary once. The problems are frozen, so they are shared.
_TAXONOMY_PROBLEMS = Memo(256)

#: The codes of the rules of the taxonomy.
TAXONOMY_CODES = frozenset(rule.code for rule in (FORMAT_RULE, *TAXONOMY_RULES))


def _taxonomy_key(corpus: Corpus, skip: frozenset[str]) -> bytes | None:
    """What the taxonomy's rules read: the vocabulary, its file's line and comment maps, today's date
    (the year minimum) and the rules skipped; None if it cannot be pickled."""
    doc = corpus.docs.get(TAXONOMY)
    return content_key(corpus.taxonomy, doc.lines if doc else None, doc.comments if doc else None,
                       clock.today_iso(), sorted(TAXONOMY_CODES & set(skip)))


def _taxonomy_phase(ctx: Context, skip: frozenset[str]) -> None:
    """The format rule, then (when the format is current) every rule of the taxonomy not in ``skip``;
    the rules whose declarations the schema refused are skipped (:data:`SHAPE_DEPENDENT`)."""
    checker = ctx.checker
    before = len(checker.problems)
    _run(FORMAT_RULE, ctx)
    if len(checker.problems) == before:
        shape_ok = True
        for rule in TAXONOMY_RULES:
            if rule.code in skip or (rule.code in SHAPE_DEPENDENT and not shape_ok):
                continue  # a declaration the schema refused would only be reported again, differently
            found = len(checker.problems)
            _run(rule, ctx)
            shape_ok = shape_ok and not (rule.code == "T001" and len(checker.problems) > found)


def validate(corpus: Corpus, skip: frozenset[str] = frozenset()) -> list[Problem]:
    """Every problem of the corpus (:data:`RULES`, except the rules whose codes are in ``skip``),
    sorted by file and line.

    Returns an empty list when the corpus is valid. Raises nothing for bad user data.
    """
    checker = Checker(corpus)
    by_key = {r.get("key"): r for r in corpus.retained.values() if isinstance(r.get("key"), str)}
    # a record that could not be read is reported once; its key still counts as known
    keys = set(by_key) | {f[len(PAPERS):].rsplit(".", 1)[0] for f in corpus.unreadable if f.startswith(PAPERS)}
    ctx = Context(checker, by_key, keys, {})
    if TAXONOMY in corpus.docs:
        before = len(checker.problems)
        key = _taxonomy_key(corpus, skip)
        found = _TAXONOMY_PROBLEMS.get(key)
        if found is MISSING:
            _taxonomy_phase(ctx, skip)
            _TAXONOMY_PROBLEMS.put(key, tuple(checker.problems[before:]))
        else:
            checker.problems += found
        if len(checker.problems) == before:
            for rule in RECORD_RULES:
                if rule.code not in skip:
                    _run(rule, ctx)
        else:
            checker.problems.append(Problem(TAXONOMY, None, None, "the records, claims and audits were not checked: fix "
                                                                  "the taxonomy first", NOT_CHECKED))
    return sorted(set(checker.problems), key=sort_key)


#: The codes of the rules on records, claims, audits and rounds (everything but the taxonomy).
RECORD_CODES = frozenset(rule.code for rule in RECORD_RULES)


def validate_taxonomy(corpus: Corpus) -> list[Problem]:
    """The problems of ``corpus/taxonomy.yaml`` alone (:func:`validate` without :data:`RECORD_CODES`):
    for a command that checks the records later, together with what it adds (``masrl add``)."""
    return validate(corpus, skip=RECORD_CODES)
