"""masrl's own in-process memos: what a second ``validate`` of the same corpus, or the second
side of ``masrl diff``, does not compute again. Each keeps only what the code would compute
anyway: a document found valid against a schema, a record's problems, a frozen release's analyses, a text's LaTeX
decoding. These tests check that a remembered answer is the answer, and that a changed input
is never answered from memory."""

from __future__ import annotations

import dataclasses

import pytest

from jsonschema import Draft202012Validator

from masrl.bib import latex
from masrl.build import pipeline
from masrl.checks import collector
from masrl.checks.collector import Checker, schema_valid
from masrl.checks.validate import validate, validate_taxonomy
from masrl.core.memo import MISSING, Memo, content_key
from masrl.core.text import _kind, unsafe_characters
from masrl.corpus.load import TAXONOMY, Corpus, load
from trees import published_only  # noqa: F401 - the published tree only

pytestmark = pytest.mark.memos

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}, "flag": {"enum": ["yes", "no"]}},
          "required": ["n"], "additionalProperties": False}


def problems(value) -> list[tuple[str | None, str]]:
    c = Checker(Corpus(taxonomy={}))
    c.schema_errors("x.yaml", value, Draft202012Validator(SCHEMA))
    return [(p.field, p.message) for p in c.problems]


def test_a_valid_document_is_remembered_and_an_invalid_one_is_reported_every_time():
    value = {"n": 1234567, "flag": "yes"}
    assert not schema_valid(Draft202012Validator(SCHEMA), value)
    assert problems(value) == []
    assert schema_valid(Draft202012Validator(SCHEMA), value)
    bad = {"n": "7", "flag": True, "extra": 1}
    expected = [("extra", "unknown field 'extra'; allowed: n, flag"),
                ("flag", "the boolean true is not in the vocabulary; allowed: yes, no (YAML read it as a boolean: quote it, e.g. \"yes\")"),
                ("n", "expected an integer, got the string '7' (write it without quotes)")]
    assert sorted(problems(bad)) == sorted(expected)
    assert sorted(problems(bad)) == sorted(expected)  # worded again, not remembered
    assert not schema_valid(Draft202012Validator(SCHEMA), bad)


@pytest.mark.parametrize("decimal", ["33.3", ".5", "12.", "-0.25"])
def test_a_number_with_decimals_where_a_whole_one_goes_is_named_as_a_number(decimal):
    """masrl's YAML reads no floats (``2510.10`` stays text), so a percentage of 33.3 reaches the schema
    as text: it is named as the number it is, not as "the string '33.3'"."""
    assert problems({"n": decimal}) == [("n", f"expected an integer, got {decimal}, a number with decimals: give a whole number")]
    assert problems({"n": "1.2.3"}) == [("n", "expected an integer, got the string '1.2.3'")]


def test_remembered_validity_tells_exact_types_and_schemas_apart():
    assert problems({"n": 1}) == []
    # True == 1 in Python, but it is no integer to the schema: the memo must not take one for the other
    assert problems({"n": True}) == [("n", "expected an integer, got the boolean true")]
    other = dict(SCHEMA, properties={"n": {"type": "string"}})
    c = Checker(Corpus(taxonomy={}))
    c.schema_errors("x.yaml", {"n": 1}, Draft202012Validator(other))  # valid against SCHEMA, not against this one
    assert [(p.field, p.message) for p in c.problems] == [("n", "expected a string, got the integer 1")]


def test_the_memo_of_valid_documents_is_bounded():
    limit = collector._VALID.limit
    for i in range(limit + 10):
        assert problems({"n": i}) == []
    assert len(collector._VALID) == limit
    assert not schema_valid(Draft202012Validator(SCHEMA), {"n": 0})  # the oldest went first
    assert schema_valid(Draft202012Validator(SCHEMA), {"n": limit + 9})


def test_a_memo_keeps_the_most_recent_values_and_a_limit_of_0_keeps_none():
    memo = Memo(2)
    for key, value in ((b"a", 1), (b"b", 2)):
        memo.put(key, value)
    assert memo.get(b"a") == 1  # now the most recent
    memo.put(b"c", 3)
    assert (memo.get(b"a"), memo.get(b"b"), memo.get(b"c")) == (1, MISSING, 3)
    memo.put(None, 4)
    assert memo.get(None) is MISSING and len(memo) == 2
    nothing = Memo(0)
    nothing.put(b"a", 1)
    assert nothing.get(b"a") is MISSING and len(nothing) == 0
    assert content_key(True) != content_key(1) and content_key(1) != content_key(1.0)
    assert content_key(lambda: 0) is None  # cannot be pickled: never remembered


def mistagged(corpus: Corpus) -> tuple[Corpus, str]:
    """``corpus`` with its first retained record's ``reward_type`` misspelt, and that record's file."""
    file = sorted(corpus.retained)[0]
    return dataclasses.replace(corpus, retained={**corpus.retained, file: {**corpus.retained[file], "reward_type": "hybird"}}), file


def test_a_snapshots_digest_is_computed_once_per_process_and_a_changed_one_again(survey_tree):
    """Every command checks the frozen snapshots' digests: one content is hashed once per process."""
    from masrl.corpus import releases

    snapshot = load(survey_tree).snapshots["corpus/releases/v1.yaml"]
    releases._DIGESTS.clear()
    hits, misses = releases._DIGESTS.hits, releases._DIGESTS.misses
    digest = releases.content_digest(snapshot)
    assert releases.content_digest(snapshot) == digest
    assert (releases._DIGESTS.hits - hits, releases._DIGESTS.misses - misses) == (1, 1)
    assert releases.content_digest({**snapshot, "date": "2099-01-01"}) != digest
    assert (releases._DIGESTS.hits - hits, releases._DIGESTS.misses - misses) == (1, 2)


def test_a_second_validation_finds_what_the_first_found(survey_tree):
    corpus = load(survey_tree)
    assert validate(corpus) == validate(corpus) == []
    broken, file = mistagged(corpus)
    first, second = validate(broken), validate(broken)
    assert first == second
    allowed = [v for v in corpus.taxonomy["fields"]["reward_type"]["values"]]
    assert [(p.file, p.field, p.message) for p in first if p.field == "reward_type"] == [
        (file, "reward_type", f"'hybird' is not in the vocabulary; allowed: {', '.join(allowed)} (did you mean 'hybrid'?)")]


def test_a_records_problems_are_remembered_by_what_its_rules_read(survey_tree):
    from masrl.checks import validate as validation
    from masrl.corpus.yamlio import Document

    corpus = load(survey_tree)
    broken, file = mistagged(corpus)

    def reward_type(c: Corpus) -> list[tuple[str, int | None, str]]:
        return [(p.file, p.line, p.message) for p in validate(c) if p.field == "reward_type"]

    first = reward_type(broken)
    assert len(first) == 1 and first[0][0] == file and len(validation._RECORD_PROBLEMS) > 0  # noqa: SLF001
    other = sorted(corpus.retained)[1]  # another record changed: this one's problem is answered from memory, the same
    assert reward_type(dataclasses.replace(broken, retained={**broken.retained, other: {**broken.retained[other], "title": "T"}})) == first
    doc = broken.docs[file]  # the same record two lines further down: its problem's line moves with it
    moved = Document(doc.value, {path: line + 2 for path, line in doc.lines.items()}, doc.comments)
    assert reward_type(dataclasses.replace(broken, docs={**broken.docs, file: moved})) == [(file, first[0][1] + 2, first[0][2])]
    tax = dict(corpus.taxonomy, fields=dict(corpus.taxonomy["fields"]))  # "hybird" made a value of the vocabulary
    field = tax["fields"]["reward_type"] = dict(tax["fields"]["reward_type"])
    field["values"] = {**field["values"], "hybird": {"label": "Hybird", "definition": "a value of the test"}}
    assert reward_type(dataclasses.replace(broken, taxonomy=tax)) == []


def test_a_vocabularys_problems_are_remembered_by_what_its_rules_read(survey_tree):
    from masrl.checks import validate as validation
    from masrl.corpus.yamlio import Document

    corpus = load(survey_tree)
    tax = dict(corpus.taxonomy, sparse_threshold=-1)  # a value the schema refuses

    def taxonomy_problems(c: Corpus) -> list[tuple[str, int | None, str | None, str]]:
        return [(p.file, p.line, p.field, p.message) for p in validate_taxonomy(c)]

    broken = dataclasses.replace(corpus, taxonomy=tax, docs={**corpus.docs, TAXONOMY: Document(
        tax, corpus.docs[TAXONOMY].lines, corpus.docs[TAXONOMY].comments)})
    first = taxonomy_problems(broken)
    assert first and all(p[0] == TAXONOMY for p in first) and len(validation._TAXONOMY_PROBLEMS) > 0  # noqa: SLF001
    key = validation._taxonomy_key(broken, frozenset())  # noqa: SLF001
    assert validation._TAXONOMY_PROBLEMS.get(key) is not MISSING  # noqa: SLF001
    # validate_taxonomy and validate read the same vocabulary: one answer (the records are not checked)
    assert [(p.file, p.line, p.field, p.message) for p in validate(broken)] == first
    doc = broken.docs[TAXONOMY]  # the same vocabulary two lines further down: its problems' lines move with it
    moved = Document(doc.value, {path: line + 2 for path, line in doc.lines.items()}, doc.comments)
    assert taxonomy_problems(dataclasses.replace(broken, docs={**broken.docs, TAXONOMY: moved})) == [
        (f, line + 2 if line is not None else None, field, message) for f, line, field, message in first]
    assert taxonomy_problems(corpus) == []  # the vocabulary as it is: its own answer
    assert validation._taxonomy_key(corpus, frozenset({"T020"})) != validation._taxonomy_key(corpus, frozenset())  # noqa: SLF001


def test_validate_taxonomy_checks_the_vocabulary_only(survey_tree):
    corpus = load(survey_tree)
    broken, _ = mistagged(corpus)
    assert validate_taxonomy(broken) == []
    tax = dict(corpus.taxonomy, crosstabs=[["reward_type", "reward_type"]])
    found = validate_taxonomy(dataclasses.replace(corpus, taxonomy=tax))
    assert ("crosstabs[0]", "crosstab [reward_type, reward_type] crosses a field with itself; its count table already has "
            "every value") in [(p.field, p.message) for p in found]
    assert {p.file for p in found} == {"corpus/taxonomy.yaml"}


def test_an_unchanged_release_is_analysed_once_per_process_and_a_changed_one_again(survey_tree):
    corpus = load(survey_tree)
    first, second = pipeline.build(corpus), pipeline.build(corpus)
    assert second.population("v1") is first.population("v1")
    assert second.population("v1").headline == {"retained": 84, "excluded": 32, "audited": 116}
    file = "corpus/releases/v1.yaml"
    snapshot = corpus.snapshots[file]
    dropped = sorted(snapshot["retained"])[0]
    changed = dataclasses.replace(corpus, snapshots={**corpus.snapshots, file: {
        **snapshot, "retained": {k: v for k, v in snapshot["retained"].items() if k != dropped}}})
    again = pipeline.build(changed)
    assert again.population("v1") is not first.population("v1")
    assert again.population("v1").headline["retained"] == 83


def test_latex_decoding_is_remembered_per_text():
    latex._decode.cache_clear()
    assert latex.decode_latex(r"Gr\'{e}goire and {LLM}s") == "Grégoire and LLMs"
    assert latex.decode_latex(r"Gr\'{e}goire and {LLM}s") == "Grégoire and LLMs"
    assert latex._decode.cache_info().hits == 1 and latex._decode.cache_info().misses == 1
    assert latex.decode_latex("plain text") == "plain text" and latex._decode.cache_info().misses == 1  # no LaTeX: not parsed


def test_the_fast_search_for_refused_characters_finds_what_the_plain_walk_finds():
    samples = ["plain", "tab\there", "line\nfeed", "e\u0301", "a\u200db", "\u0627\u200c\u0644", "x\u200cy", "\u202eexe.jpg",
               "\ud83d", "del\x7f", "c1\x85", "sep\u2028", "\ufeffbom", "mixed\x1b[31m\u200b\u2066", ""]
    for text in samples:
        for multiline in (False, True):
            walk: dict[str, str] = {}
            for i, ch in enumerate(text):
                if ch not in walk and (kind := _kind(text, i, multiline)):
                    walk[ch] = kind
            assert unsafe_characters(text, multiline) == list(walk.items()), (text, multiline)
    assert unsafe_characters("mixed\x1b[31m\u200b\u2066") == [("\x1b", "control"), ("\u200b", "zero-width"),
                                                             ("\u2066", "bidirectional")]
    assert unsafe_characters("x\u200cy") == [("\u200c", "zero-width")] and unsafe_characters("\u0627\u200c\u0644") == []


def test_the_suggestions_figures_are_measured_once_per_pool_and_again_for_a_changed_tag(survey_tree):
    """``masrl suggest`` measures its leave-one-out figures over the tagged records; a second
    measurement of the same records and vocabulary is the remembered one, equal to a fresh
    measurement, and a record retagged, or a stub added, is told apart by what is measured."""
    from masrl.corpus.taxonomy import Taxonomy
    from masrl.review.suggest import evaluate

    corpus = load(survey_tree)
    tax = Taxonomy(corpus.taxonomy)
    records = list(corpus.retained.values())
    first = evaluate.measure(records, tax)
    tagged = evaluate.propose.tagged_records(records, tax)
    key = content_key(tax.data, tagged.records)
    assert evaluate._MEASURED.get(key) == first  # noqa: SLF001
    assert evaluate.measure(records, tax) == first == evaluate._measure(tagged, tax)  # noqa: SLF001
    assert evaluate.measure(records, tax) is not first  # a copy: a caller may change its own
    stub = {"key": "zz2026stub", "title": "A stub", "scenario": "untagged"}
    assert content_key(tax.data, evaluate.propose.tagged_records([*records, stub], tax).records) == key  # a stub is not measured
    moved = next(r for r in tagged.records if r.get("scenario") not in (None, "math"))
    retagged = [dict(r, scenario="math") if r is moved else r for r in records]
    again = evaluate.measure(retagged, tax)
    assert again == evaluate._measure(evaluate.propose.tagged_records(retagged, tax), tax)  # noqa: SLF001
    assert again["scenario"] != first["scenario"]


def test_near_identical_titles_are_compared_once_per_list_of_titles():
    """The title rule of ``validate`` remembers the near-identical pairs of a list of normalised
    titles as positions: the same titles give the same pairs (of the records now asked about),
    and a changed title is compared anew."""
    from masrl.bib.matching import make_known, similar_title_pairs
    from masrl.checks import pool

    def known(titles):
        return [make_known(f"corpus/papers/p{i}.yaml", "retained", t, {}) for i, t in enumerate(titles)]

    titles = ["Multi-Agent Credit Assignment for LLM Teams", "Stop When Done: Learning to Halt", "Multi-agent credit assignment for LLM teams!"]
    first = known(titles)
    assert [(a.where, b.where) for a, b, _ in pool._similar_pairs(first)] == [("corpus/papers/p0.yaml", "corpus/papers/p2.yaml")]  # noqa: SLF001
    key = content_key([[k.norm, sorted(k.names)] for k in first])
    assert pool._TITLE_PAIRS.get(key) == [(0, 2, 1.0)]  # noqa: SLF001
    again = known(titles)
    assert [(a, b) for a, b, _ in pool._similar_pairs(again)] == [(again[0], again[2])]  # noqa: SLF001
    changed = known([*titles[:2], "Credit Assignment Across Agents"])
    assert pool._similar_pairs(changed) == similar_title_pairs(changed) == []  # noqa: SLF001
    # the authors count too: the same titles by authors who share no name are compared anew, and are two papers
    authored = [make_known(k.where, "retained", k.title, {}, authors=[f"Author{i}, Ada{i}"]) for i, k in enumerate(first)]
    assert pool._similar_pairs(authored) == similar_title_pairs(authored) == []  # noqa: SLF001
