"""The suggestions' text model and the choice of each field's setting, on a small survey written
here: the TF-IDF fitted on any subset of texts is scikit-learn's, the leave-one-out measurement
compares each record as `masrl suggest` would, and the settings' choice counts exactly what the
suggestions would predict, with and without each record (nested leave-one-out)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from masrl.corpus.taxonomy import Taxonomy
from masrl.review.suggest import evaluate, model, pool, propose, show, structure, text, tuning

TEXTS = ["Learning agents for chess with self-play", "Poker agents that bluff", "The the of and",
         "Go players learn by search", "Self-play for poker and chess agents", "", "A survey of game agents"]

TAX = Taxonomy({"format_version": 2, "not_applicable": "NA", "fields": {
    "game": {"applies_to": "retained", "label": "Game", "values": {
        "chess": {"label": "chess", "definition": "board game of agents learning strategy from self-play and search"},
        "poker": {"label": "poker", "definition": "card game of agents learning strategy from self-play and search"},
        "go": {"label": "go", "definition": "board game of agents learning strategy from self-play and search"},
        "NA": {"label": "not applicable", "definition": "no game"}}},
    "tools": {"applies_to": "retained", "multi": True, "label": "Tools", "values": {
        "search": {"label": "tree search", "definition": "a planner looks ahead over moves"},
        "memory": {"label": "memory", "definition": "agents keep notes between episodes"}}},
    "kind": {"applies_to": "retained", "label": "Kind", "values": {
        "method": {"label": "method", "definition": "a training procedure"},
        "survey": {"label": "survey", "definition": "a review of the literature", "implies": {"game": "NA"}}}},
}})

#: (key, title, year, game, tools, kind)
ROWS = [
    ("a1", "Chess agents learn tree search by self-play", 2020, "chess", ["search"], "method"),
    ("a2", "Chess openings with memory of past games", 2021, "chess", ["memory"], "method"),
    ("a3", "Learning chess endgames with agents", 2022, "chess", [], "method"),
    ("a4", "Self-play agents for chess and strategy", 2023, "chess", ["search"], "method"),
    ("a5", "Poker agents that bluff with memory", 2021, "poker", ["memory"], "method"),
    ("a6", "Learning poker strategy from self-play", 2022, "poker", [], "method"),
    ("a7", "Go agents with tree search", 2019, "go", ["search"], "method"),
    ("a8", "Go strategy learned by self-play agents", 2024, "go", ["search", "memory"], "method"),
    ("a9", "A survey of game-playing agents", 2023, "NA", [], "survey"),
    ("b1", "Strategy agents for board games", 2020, "chess", ["search"], "method"),
    ("b2", "Card agents bluff and remember", 2024, "poker", ["memory"], "method"),
    ("b3", "Reviewing self-play for games", 2025, "NA", [], "survey"),
]


def _records() -> list[dict]:
    return [{"key": k, "title": t, "year": y, "venue": "arXiv", "one_liner": f"{t.lower()} ({g})",
             "notes": "" if number % 2 else "self-play strategy agents learning", "game": g, "tools": tools, "kind": kind}
            for number, (k, t, y, g, tools, kind) in enumerate(ROWS)]


def _vectorised(fit: list[str], queries: list[str], documents: list[str]) -> np.ndarray:
    """The similarity as scikit-learn's TfidfVectorizer computes it, fitted on ``fit``."""
    out = np.zeros((len(queries), len(documents)))
    for options in (model.WORD_OPTIONS, model.CHAR_OPTIONS):
        vectorizer = TfidfVectorizer(**options).fit(fit)
        out += (vectorizer.transform(queries) @ vectorizer.transform(documents).T).toarray() / 2
    return np.clip(out, 0.0, 1.0)


def test_counts_weigh_as_tfidfvectorizer_fitted_on_any_subset():
    counts = model.Counts(TEXTS)
    for fit in ([0, 1, 3, 4], [0, 1, 2, 3, 4, 5, 6], [1, 6]):
        got = counts.similarity(fit, [4, 2, 5], [0, 1, 3, 6])
        want = _vectorised([TEXTS[i] for i in fit], [TEXTS[i] for i in (4, 2, 5)], [TEXTS[i] for i in (0, 1, 3, 6)])
        assert np.allclose(got, want, atol=1e-12), fit
    # an empty text is similar to nothing; one of stop words only shares no word (its letters may meet others')
    assert counts.similarity([0, 1, 2], [5], [0, 1]).tolist() == [[0.0, 0.0]]
    assert counts.index([0, 1, 2], [2], [0, 1]).shared_words(0, 1) == ()
    assert counts.similarity([0, 1], [0], [0])[0, 0] == pytest.approx(1.0)
    # a word no text of the fit has weighs nothing: "bluff" (text 1 only) once text 1 leaves the fit
    assert counts.index([1, 4], [1], [1]).shared_words(0, 0) == ("agents bluff", "poker agents")
    assert counts.index([0, 4], [1], [1]).shared_words(0, 0) == ("poker", "agents")


def test_leaving_one_text_out_of_the_fit_at_once_is_each_fit_without_it():
    counts = model.Counts(TEXTS)
    fit = [0, 1, 3, 4, 6]
    rows = counts.leaving_one(fit, [0, 4, 6], [1, 3, 4], [0, 1, 3, 4, 6])
    for k, (gone, query) in enumerate(zip([0, 4, 6], [1, 3, 4])):
        assert np.allclose(rows[k], counts.similarity([i for i in fit if i != gone], [query], [0, 1, 3, 4, 6])[0], atol=1e-12)
    # a term only the text left out had weighs nothing: without text 0 ("chess ... self-play"), text 4 meets it by chess only
    assert rows[2, 0] > 0


def test_counts_extended_by_a_text_are_those_of_every_text_counted_again():
    new = "Bluffing chess agents: zugzwang and self-play"
    grown, again = model.Counts(TEXTS).extend([new]), model.Counts(TEXTS + [new])
    fit = [0, 1, 3, 4, 7]
    assert np.allclose(grown.similarity(fit, [7], list(range(7))), again.similarity(fit, [7], list(range(7))), atol=1e-12)
    a, b = grown.index(fit, [7], list(range(7))), again.index(fit, [7], list(range(7)))
    assert [a.shared_words(0, j) for j in range(7)] == [b.shared_words(0, j) for j in range(7)]
    assert a.shared_words(0, 4) == ("chess agents", "play", "self")
    assert "zugzwang" in set(grown.words)


def test_each_record_is_measured_as_masrl_suggest_would_compare_it():
    """The outer leave-one-out compares a held-out record's stub under the fit `masrl suggest`
    would make for it (the other records in full and as stubs, the definitions, the stub; never its
    own full text), not under the one fit over the pool that chooses the settings."""
    tagged = propose.tagged_records(_records(), TAX)
    counted = pool.Pool(tagged.records, TAX)
    held = counted.held_out()
    n = len(tagged.records)
    full = [text.record_text(r, TAX.abstract_field) for r in tagged.records]
    stubs = [text.record_text(r, TAX.abstract_field, stub=True) for r in tagged.records]
    words = list(counted.texts.values()) + list(counted.label_texts.values())
    for i in range(n):
        others = [j for j in range(n) if j != i]
        # what masrl suggest computes for the stub, from the pool of the other records
        alone = pool.Pool([tagged.records[j] for j in others], TAX).suggestions(stubs[i]).similarity[0]
        fit = [full[j] for j in others] + list(counted.texts.values()) + [stubs[j] for j in others] + [stubs[i]]
        built = _vectorised(fit, [stubs[i]], [full[j] for j in others] + words)[0]
        assert np.allclose(np.delete(held[i], i), alone, atol=1e-12) and held[i, i] == 0.0
        assert np.allclose(alone, built, atol=1e-12)
        # one fit over the whole pool would have seen the record's full text, and differs
        whole = _vectorised(full + list(counted.texts.values()) + stubs, [stubs[i]], [full[j] for j in others] + words)[0]
        assert not np.allclose(whole, alone, atol=1e-9)


def _predicted(index, tagged, q, name, setting, counted) -> object:
    """What :func:`.propose.propose` suggests first for field ``name`` of record ``q`` under
    ``setting``, its other fields as tagged."""
    others = [j for j in range(len(tagged.records)) if j != q]
    rest = propose.Tagged([tagged.records[j] for j in others], [tagged.keys[j] for j in others])
    rec = tagged.records[q]
    known = {f.name: rec[f.name] for f in structure.fields(TAX) if f.name != name}
    found = propose.propose(index, q, others, rest, TAX, known, [name], explain=False, definitions=counted.columns,
                            labels=counted.labels, settings={name: setting}, year=tuning.year_of(rec))
    return found[name][0].value if found.get(name) else None


def test_the_choice_counts_what_the_suggestions_predict_under_every_setting_with_and_without_each_record():
    tagged = propose.tagged_records(_records(), TAX)
    counted = pool.Pool(tagged.records, TAX)
    index = model.Index(counted.held_out(), np.array([], dtype=object), None, None)
    chooser = tuning.Chooser(index, tagged, TAX, counted.columns, propose.NEIGHBOURS, propose.FLOOR, labels=counted.labels)
    assert len(tuning.SETTINGS) == len(tuning.WORDS) * len(tuning.YEARS) * len(tuning.WEIGHTS) == 70
    settings = [s for s in tuning.SETTINGS if s.weight in (0.0, 1.0, 16.0) and s.years in (None, 1.0)]
    n = len(tagged.records)
    for name in ("game", "tools"):
        field = TAX.fields[name]
        truth = [evaluate._value(r, field) for r in tagged.records]  # noqa: SLF001
        predicted = {s: [_predicted(index, tagged, q, name, s, counted) for q in range(n)] for s in settings}
        for s in settings:
            assert chooser.counts[name][tuning.SETTINGS.index(s)] == sum(p == t for p, t in zip(predicted[s], truth)), (name, s)
        # without record 2 (a neighbour of others): the counts of a chooser over the other records
        keep = [j for j in range(n) if j != 2]
        smaller = propose.Tagged([tagged.records[j] for j in keep], [tagged.keys[j] for j in keep])
        rows = keep + list(range(n, index.similarity.shape[1]))
        cut = model.Index(index.similarity[np.ix_(keep, rows)], index.words, None, None)
        shift = {pair: column - 1 for pair, column in counted.columns.items()}
        labels = {pair: column - 1 for pair, column in counted.labels.items()}
        alone = tuning.Chooser(cut, smaller, TAX, shift, propose.NEIGHBOURS, propose.FLOOR, labels=labels)
        assert np.array_equal(chooser.counts[name] + chooser.changes[name][2], alone.counts[name]), name
        assert chooser.choose(leave_out=2)[name] == alone.choose()[name]


def test_a_field_may_be_suggested_by_its_labels_alone_and_says_so():
    tagged = propose.tagged_records(_records(), TAX)
    counted = pool.Pool(tagged.records, TAX)
    index = counted.suggestions("Poker bots that bluff\narXiv")
    columns = list(range(len(tagged.records)))
    by_label = tuning.Setting(8.0, None, "label")
    found = propose.propose(index, 0, columns, tagged, TAX, {"kind": "method"}, ["game"], definitions=counted.columns,
                            labels=counted.labels, settings={"game": by_label}, texts=counted.texts,
                            label_texts=counted.label_texts)
    best = found["game"][0]
    assert best.value == "poker"
    assert [(d.kind, d.text, d.shared) for d in best.definitions] == [("label", "poker", ("poker",))]
    assert by_label.describe() == "labels weigh 8; publication years left out"
    assert tuning.Setting(2.0, 4.0).describe() == "definitions weigh 2; neighbours discounted by exp(-years apart / 4)"
    data = show._suggestion(best, False)  # noqa: SLF001
    assert data["definitions"] == [{"kind": "label", "text": "poker", "similarity": best.definitions[0].similarity,
                                    "shared_words": ["poker"]}]
    # the same words under the label and definition: the definition says "card game", shared with no word here
    by_definition = propose.propose(index, 0, columns, tagged, TAX, {"kind": "method"}, ["game"], definitions=counted.columns,
                                    labels=counted.labels, settings={"game": tuning.Setting(8.0)}, texts=counted.texts,
                                    label_texts=counted.label_texts)["game"][0]
    assert [d.kind for d in by_definition.definitions] == ["definition"]
    assert by_definition.definitions[0].text.startswith("poker\ncard game")
    assert by_definition.definitions[0].similarity < best.definitions[0].similarity


def test_a_pool_is_counted_once_per_process():
    tagged = propose.tagged_records(_records(), TAX)
    first = pool.pool(tagged.records, TAX)
    assert pool.pool([dict(r) for r in tagged.records], TAX) is first
    changed = [dict(r) for r in tagged.records]
    changed[0]["title"] = "Another title"
    assert pool.pool(changed, TAX) is not first


def test_the_measurement_predicts_each_record_as_masrl_suggest_would_from_the_others():
    tagged = propose.tagged_records(_records(), TAX)
    counted = pool.Pool(tagged.records, TAX)
    chooser = tuning.Chooser(model.Index(counted.held_out(), np.array([], dtype=object), None, None), tagged, TAX, counted.columns, propose.NEIGHBOURS, propose.FLOOR,
                             labels=counted.labels)
    scores = evaluate._measure(tagged, TAX)  # noqa: SLF001
    n = len(tagged.records)
    right = {name: [] for name in ("game", "tools", "kind")}
    for i, rec in enumerate(tagged.records):
        others = [j for j in range(n) if j != i]
        rest = propose.Tagged([tagged.records[j] for j in others], [tagged.keys[j] for j in others])
        theirs = pool.Pool(rest.records, TAX)
        index = theirs.suggestions(text.record_text(rec, TAX.abstract_field, stub=True))
        found = propose.propose(index, 0, list(range(n - 1)), rest, TAX, {}, list(right), explain=False,
                                definitions=theirs.columns, labels=theirs.labels, settings=chooser.choose(leave_out=i),
                                year=tuning.year_of(rec))
        for name in right:
            if found[name] and found[name][0].value == evaluate._value(rec, TAX.fields[name]):  # noqa: SLF001
                right[name].append(rec["key"])
    assert {name: list(scores[name].right) for name in right} == right
    assert [scores[name].top1 for name in right] == [len(right[name]) for name in right]
    assert scores["game"].n == n and 0 < scores["game"].top1 < n
