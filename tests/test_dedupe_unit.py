"""Duplicate detection and identifiers from the command line, on hand-made records."""

from __future__ import annotations

import pytest

from masrl.bib.matching import make_known
from masrl.core.errors import UserError
from masrl.corpus.load import Corpus
from masrl.review import intake


def flags(arxiv=None, openreview=None, doi=None, url=None) -> dict:
    return intake.mapping(intake.identifiers_from_flags({"--arxiv": arxiv, "--openreview": openreview, "--doi": doi, "--url": url}))


@pytest.mark.parametrize("args, ids", [
    (("2501.00001", None, None, None), {"arxiv": "2501.00001"}),
    ((" 2501.00001 ", " abcDEF12 ", " 10.1234/X ", None), {"arxiv": "2501.00001", "openreview": "abcDEF12", "doi": "10.1234/X"}),
    ((None, None, None, "https://example.org/p "), {"url": ["https://example.org/p"]}),
    ((None, None, None, "https://arxiv.org/abs/2501.00002v3"), {"arxiv": "2501.00002v3"}),
    (("2501.00002v3", None, None, "https://arxiv.org/abs/2501.00002v3"), {"arxiv": "2501.00002v3"}),
    ((None, None, "10.1234/x", "https://openreview.net/forum?id=abc123"), {"openreview": "abc123", "doi": "10.1234/x"}),
])
def test_identifiers_from_flags(args, ids):
    result = flags(*args)
    assert result == ids and list(result) == list(ids)


def test_identifiers_from_flags_errors():
    with pytest.raises(UserError) as err:
        flags(" ", None, None, "")  # a flag given empty is a mistake, not "no identifier"
    assert [str(p) for p in err.value.problems] == ["command line: --arxiv: empty identifier", "command line: --url: empty identifier"]
    with pytest.raises(UserError) as err:
        flags("2501.00001", None, None, "https://arxiv.org/abs/2501.00003")
    assert any("2501.00001" in str(p) and "2501.00003" in str(p) for p in err.value.problems), err.value.problems


def corpus() -> Corpus:
    c = Corpus()
    c.retained = {"corpus/papers/a.yaml": {"title": "Learning to Spawn Agents", "identifiers": {"arxiv": "2501.00001"}},
                  "corpus/papers/b.yaml": {"title": "Something Else Entirely", "identifiers": {"doi": "10.1234/ABC"}}}
    c.excluded = {"exclusions/E001.yaml": {"screening_label": "Prompted Agent Frameworks", "identifiers": {"url": ["https://x.org/p/"]}},
                  "exclusions/E002.yaml": {"screening_label": "Odd", "identifiers": "not a mapping"}}
    return c


def matches(title: str, ids: dict, c: Corpus, batch: list[tuple[str, dict]] = ()) -> list[str]:
    pool = intake.pool_of(c)
    for i, (other, other_ids) in enumerate(batch):
        pool.add(make_known(f"entry 'b{i}'", "batch", other, other_ids))
    return [m.message() for m in pool.matches(title, ids)]


def test_matches_by_identifier_title_and_batch():
    c = corpus()
    assert matches("New", {"arxiv": "2501.00001v2"}, c) == [
        "already retained as corpus/papers/a.yaml (same arxiv 2501.00001; its title: 'Learning to Spawn Agents')"]
    assert matches("Learning to Spawn Agents", {"doi": "10.1234/abc"}, c) == [
        "already retained as corpus/papers/a.yaml (title 100% similar: 'Learning to Spawn Agents')",
        "already retained as corpus/papers/b.yaml (same doi 10.1234/abc; its title: 'Something Else Entirely')"]
    assert matches("z", {"url": ["http://www.x.org/p"]}, c) == [
        "already excluded as exclusions/E001.yaml (same url x.org/p; its title: 'Prompted Agent Frameworks')"]
    assert matches("Learning to Spawn Agent", {"doi": "10.9999/q"}, c) == [
        "already retained as corpus/papers/a.yaml (title 97% similar: 'Learning to Spawn Agents')"]
    assert matches("Learning to Spawn Agent", {"arxiv": "2509.99999"}, c) == []  # another arXiv id: another paper
    assert matches("Learning to Split Agents", {"doi": "10.9999/q"}, c) == []  # below 90%
    batch = [("First", {"arxiv": "2509.99999"}), ("A Brand New Title", {})]
    assert matches("zzz", {"arxiv": "2509.99999"}, c, batch) == [
        "appears twice in this batch (also entry 'b0': same arxiv 2509.99999; its title: 'First')"]
    assert matches("A brand new title!", {"doi": "10.9999/q"}, c, batch) == [
        "appears twice in this batch (also entry 'b1': title 100% similar: 'A Brand New Title')"]
    assert matches("Unrelated", {"doi": "10.9999/q"}, Corpus(), batch) == []


def test_title_threshold_is_inclusive_and_missing_titles_never_match():
    c = Corpus()
    c.retained = {"corpus/papers/a.yaml": {"title": "abcdefghij", "identifiers": {}},
                  "corpus/papers/n.yaml": {"identifiers": {}}}  # no title at all
    assert matches("abcdefghik", {}, c) == ["already retained as corpus/papers/a.yaml (title 90% similar: 'abcdefghij')"]
    assert matches("abcdefghik", {}, Corpus(), [("abcdefghij", {})]) == [
        "appears twice in this batch (also entry 'b0': title 90% similar: 'abcdefghij')"]
    for title in ("None", "XXXX", ""):
        assert matches(title, {}, c) == [], title


def test_a_candidate_takes_the_arxiv_category_of_the_arxiv_record_whose_id_it_carries():
    """A Crossref work that names its preprint, then the preprint found on arXiv: the candidate keeps the
    category of the arXiv record (its record is `masrl add`'s); an arXiv record of another paper gives none."""
    from masrl.review.update.dedupe import Candidate
    from masrl.review.update.sources.base import Found

    work = Found("doi:10.1234/w.1", {"doi": "10.1234/w.1", "arxiv": "2605.10002"}, "T", ("A, B",), 2026, "J", "", "2026-06-01")
    preprint = Found("arxiv:2605.10002", {"arxiv": "2605.10002"}, "T", ("A, B",), 2026, "arXiv", "", "2026-05-01", "cs.MA")
    other = Found("arxiv:2605.10009", {"arxiv": "2605.10009"}, "U", ("C, D",), 2026, "arXiv", "", "2026-05-01", "cs.CL")
    candidate, taken = Candidate(work), {}
    candidate.take_identifiers(work, taken)
    candidate.take_identifiers(other, {})
    assert candidate.arxiv_category == ""
    candidate.take_identifiers(preprint, taken)
    assert (candidate.identifiers, candidate.arxiv_category) == (["doi:10.1234/w.1", "arxiv:2605.10002"], "cs.MA")
