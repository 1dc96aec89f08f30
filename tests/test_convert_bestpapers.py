"""scripts/convert_bestpapers.py: a public paper list (github.com/clemense/ai-bestpapers, MIT) as a masrl
survey. The inputs here are a few entries written in that list's own format (``_data/*.yml``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

from masrl.build.generate import generate
from masrl.checks.validate import validate
from masrl.corpus.load import parse_tree, read_tree

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "convert_bestpapers.py"

PAPERS = """---
- venue: NeurIPS
  year: 2020
  awards:
  - award: Best Paper
    title: Language Models are Few-Shot Learners
    author: Tom B. Brown, Benjamin Mann, Nick Ryder
    link: https://arxiv.org/abs/2005.14165
    source: https://neuripsconf.medium.com/x
  - award: Test of Time
    title: "HOGWILD!: A Lock-Free Approach to Parallelizing Stochastic Gradient Descent"
    author: Feng Niu, Benjamin Recht
    link: https://papers.nips.cc/paper/2011/hash/218a0aefd1d1a4be65601cc6ddc1520e-Abstract.html
    source: https://neuripsconf.medium.com/x
  sub: ML
- venue: ICRA
  year: 2020
  awards:
  - award: Best Paper
    title: Preference-Based Learning for Exoskeleton Gait Optimization
    link: https://arxiv.org/abs/1909.12316
    author: Maegan Tucker, Ellen Novoseller
    source: https://www.ieee-ras.org/x
  - award: Best Human-Robot Interaction Paper
    title: Preference-Based Learning for Exoskeleton Gait Optimization
    link: https://arxiv.org/abs/1909.12316
    author: Maegan Tucker, Ellen Novoseller
    source: https://www.ieee-ras.org/x
  - award: Best Student Paper
    title: Design of a Roller-Based Dexterous Hand for Object Grasping
    link: https://arxiv.org/abs/1909.12316
    author: Shenli Yuan
    source: https://www.ieee-ras.org/x
  sub: RO
- venue: IJCAI-JAIR
  year: 2021
  awards:
  - award: Mike Stilman Paper
    title: A Study Without a Link
    link: ''
    author: Ada Lovelace
    source: https://example.org
  sub: AI
"""
TYPES = "---\n- name: Robotics\n  sub: RO\n- name: Artificial Intelligence\n  sub: AI\n- name: Machine Learning\n  sub: ML\n"
VENUES = "---\n- name: NeurIPS\n  long: Neural Information Processing Systems\n- name: ICRA\n  long: IEEE ICRA\n"


def _script():
    spec = importlib.util.spec_from_file_location("convert_bestpapers", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_award_classes_read_the_award_names():
    script = _script()
    assert [script.award_class(n) for n in ("Best Paper", "Best Student Paper Honorable Mention", "Test of Time",
                                            "Retrospective Most Impactful Paper from CVPR 2011", "Distinguished Paper",
                                            "Best Robot Vision Paper", "Best Demo", "Mike Stilman Paper")] == [
        "best_paper", "honorable_mention", "test_of_time", "test_of_time", "outstanding", "topical", "demo", "other"]
    assert script.authors_of("Tom B. Brown, Benjamin Mann") == ["Brown, Tom B.", "Mann, Benjamin"]
    assert script.authors_of("https://arxiv.org/abs/2209.07753") == ["others"]


def test_the_converted_list_validates_and_builds(tmp_path):
    repo = tmp_path / "ai-bestpapers"
    (repo / "_data").mkdir(parents=True)
    for name, text in (("papers.yml", PAPERS), ("types.yml", TYPES), ("venues.yml", VENUES)):
        (repo / "_data" / name).write_text(text, encoding="utf-8")
    out = tmp_path / "survey"
    assert _script().main([str(repo), str(out), "--commit", "4f981332ad6cc6c79a04a4ac7a5a1739fc4ceb90", "--date", "2026-12-01"]) == 0
    corpus = parse_tree(read_tree(out))
    assert validate(corpus) == []
    records = {r["key"]: r for r in corpus.retained.values()}
    assert sorted(records) == ["brown2020", "lovelace2021", "niu2020", "tucker2020", "yuan2020"]
    # two awards of one paper: one record with both; a link another paper has: an opaque label
    assert (records["tucker2020"]["award"], records["tucker2020"]["award_names"]) == (
        ["best_paper", "topical"], ["Best Paper", "Best Human-Robot Interaction Paper"])
    assert records["tucker2020"]["identifiers"] == {"arxiv": "1909.12316"}
    assert set(records["yuan2020"]["identifiers"]) == {"label"} and set(records["lovelace2021"]["identifiers"]) == {"label"}
    assert records["niu2020"]["identifiers"] == {"url": ["https://papers.nips.cc/paper/2011/hash/218a0aefd1d1a4be65601cc6ddc1520e-Abstract.html"]}
    assert records["lovelace2021"]["conference"] == "ijcai_jair"  # a venue venues.yml lacks is a value too
    assert records["brown2020"]["provenance"]["commit"] == "4f981332ad6cc6c79a04a4ac7a5a1739fc4ceb90"
    claim = yaml.safe_load((out / "corpus/claims.yaml").read_text())["claims"][0]
    assert claim["checks"][0]["count"] == 2  # brown2020 and tucker2020 won a best-paper award
    generated = generate(corpus, {}, check=True).outputs
    assert generated["reports/tables/award.csv"].decode().splitlines()[1:3] == [
        "test_of_time,test of time,1", "honorable_mention,honorable mention or runner-up,0"]
    readme = generated["README.md"].decode()
    assert "5 retained records in 3 areas" in readme and "Within an area:" in readme


def test_texts_lose_the_invisible_characters_the_list_copied_from_web_pages():
    script = _script()
    # the real list (commit 4f98133) has a title that starts with a zero-width space
    assert script._visible("\u200bEvaluating Factuality in Text Simplification") == \
        "Evaluating Factuality in Text Simplification"
    assert script._visible("Tom  B.\u00a0Brown,\tBenjamin\u202e Mann") == "Tom B. Brown, Benjamin Mann"
    assert script._visible(2020) == "2020"
