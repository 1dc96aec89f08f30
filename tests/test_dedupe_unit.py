"""Duplicate detection and identifiers from the command line, on hand-made records."""

from __future__ import annotations

import pytest

from masrl.commands.dedupe import find_matches, identifiers_from_args
from masrl.errors import UserError
from masrl.load import Corpus


@pytest.mark.parametrize("args, ids", [
    (("2501.00001", None, None, None), {"arxiv": "2501.00001"}),
    ((" 2501.00001 ", " abcDEF12 ", " 10.1/X ", None), {"arxiv": "2501.00001", "openreview": "abcDEF12", "doi": "10.1/X"}),
    ((None, None, None, "https://example.org/p "), {"url": ["https://example.org/p"]}),
    ((None, None, None, "https://arxiv.org/abs/2501.00002v3"), {"arxiv": "2501.00002v3"}),
    (("2501.00002v3", None, None, "https://arxiv.org/abs/2501.00002v3"), {"arxiv": "2501.00002v3"}),
    ((None, None, "10.1/x", "https://openreview.net/forum?id=abc123"), {"openreview": "abc123", "doi": "10.1/x"}),
    (("  ", None, "", "https://example.org/p"), {"url": ["https://example.org/p"]}),
])
def test_identifiers_from_args(args, ids):
    result = identifiers_from_args(*args)
    assert result == ids and list(result) == list(ids)


def test_identifiers_from_args_errors():
    with pytest.raises(UserError, match=r"^the paper needs an identifier: --arxiv, --doi, --openreview or --url$"):
        identifiers_from_args(" ", None, None, "")
    with pytest.raises(UserError, match=r"^--url is the page of arxiv 2501.00003, but --arxiv says 2501.00001: which paper is it\?$"):
        identifiers_from_args("2501.00001", None, None, "https://arxiv.org/abs/2501.00003")


def corpus() -> Corpus:
    c = Corpus()
    c.retained = {"corpus/papers/a.yaml": {"title": "Learning to Spawn Agents", "identifiers": {"arxiv": "2501.00001"}},
                  "corpus/papers/b.yaml": {"title": "Something Else Entirely", "identifiers": {"doi": "10.1/ABC"}}}
    c.excluded = {"exclusions/E001.yaml": {"screening_label": "Prompted Agent Frameworks", "identifiers": {"url": ["https://x.org/p/"]}},
                  "exclusions/E002.yaml": {"screening_label": "Odd", "identifiers": "not a mapping"}}
    return c


def test_matches_by_identifier_title_and_batch():
    c = corpus()
    assert find_matches({"arxiv": "2501.00001v2"}, "New", c) == [
        "already retained as corpus/papers/a.yaml (same arxiv 2501.00001; its title: 'Learning to Spawn Agents')"]
    assert find_matches({"doi": "10.1/abc"}, "Learning to Spawn Agents", c) == [
        "already retained as corpus/papers/a.yaml (title 100% similar: 'Learning to Spawn Agents')",
        "already retained as corpus/papers/b.yaml (same doi 10.1/abc; its title: 'Something Else Entirely')"]
    assert find_matches({"url": ["http://www.x.org/p"]}, "z", c) == [
        "already excluded as exclusions/E001.yaml (same url x.org/p; its title: 'Prompted Agent Frameworks')"]
    assert find_matches({"arxiv": "2509.99999"}, "Learning to Spawn Agent", c) == [
        "already retained as corpus/papers/a.yaml (title 97% similar: 'Learning to Spawn Agents')"]
    assert find_matches({"arxiv": "2509.99999"}, "Learning to Split Agents", c) == []  # below 90%
    batch = [{"identifiers": {"arxiv": "2509.99999"}, "title": "First"}, {"identifiers": {}, "title": "A Brand New Title"}]
    assert find_matches({"arxiv": "2509.99999"}, "zzz", c, batch) == ["appears twice in this batch (also 'First')"]
    assert find_matches({"doi": "10.9/q"}, "A brand new title!", c, batch) == [
        "appears twice in this batch (also 'A Brand New Title')"]
    assert find_matches({"doi": "10.9/q"}, "Unrelated", Corpus(), batch) == []


def test_title_threshold_is_inclusive_and_missing_titles_never_match():
    from masrl.records import title_similarity

    assert title_similarity("abcdefghik", "abcdefghij") == 0.9
    c = Corpus()
    c.retained = {"corpus/papers/a.yaml": {"title": "abcdefghij", "identifiers": {}},
                  "corpus/papers/n.yaml": {"identifiers": {}}}  # no title at all
    assert find_matches({}, "abcdefghik", c) == ["already retained as corpus/papers/a.yaml (title 90% similar: 'abcdefghij')"]
    assert find_matches({}, "abcdefghik", Corpus(), [{"identifiers": {}, "title": "abcdefghij"}]) == [
        "appears twice in this batch (also 'abcdefghij')"]
    for title in ("None", "XXXX", ""):
        assert find_matches({}, title, c) == [], title
