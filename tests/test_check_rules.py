"""The registry of validation rules: stable, unique codes, and every problem carries its rule's code."""

from __future__ import annotations

import dataclasses

from masrl.checks.validate import NOT_CHECKED, RULES, validate
from masrl.corpus.load import parse_tree, read_tree


def _problems(root, edits: dict[str, bytes]):
    return validate(parse_tree({**read_tree(root), **edits}))


def test_rule_codes_and_names_are_unique_and_well_formed():
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
    assert all(len(c) == 4 and c[0] in "TDPSCAU" and c[1:].isdigit() for c in codes)
    assert NOT_CHECKED not in codes


def test_every_problem_carries_the_code_of_the_rule_that_found_it(published_tree):
    files = read_tree(published_tree)
    record = next(p for p in sorted(files) if p.startswith("corpus/papers/"))
    text = files[record].decode()
    start = text.index("\nreward_type: ") + 1
    end = text.index("\n", start)
    broken = text[:start] + "reward_type: hybird" + text[end:]
    broken = broken.replace("\none_liner: ", "\none_liner: untagged\nx_one_liner: ", 1)
    problems = _problems(published_tree, {record: broken.encode(), "exclusions/E999.yaml": b"record_id: [unclosed\n"})
    by_code = {}
    for p in problems:
        by_code.setdefault(p.code, []).append(p)
    assert all(p.code for p in problems)
    assert [p.message.split(";")[0] for p in by_code["D001"] if p.field == "reward_type"] == ["'hybird' is not in the vocabulary"]
    assert [p.field for p in by_code["D001"] if p.file == record and p.field != "reward_type"] == ["x_one_liner"]
    assert [p.field for p in by_code["D007"]] == ["one_liner"]
    assert [p.file for p in by_code["R001"]] == ["exclusions/E999.yaml"]


def test_a_broken_taxonomy_stops_the_record_rules_with_one_coded_problem(published_tree):
    files = read_tree(published_tree)
    taxonomy = files["corpus/taxonomy.yaml"].decode().replace("\ncrosstabs:\n", "\ncrosstabs:\n  - [category, no_such_field]\n", 1)
    problems = _problems(published_tree, {"corpus/taxonomy.yaml": taxonomy.encode()})
    assert [(p.code, p.message) for p in problems] == [  # sorted by line: the one without a line first
        (NOT_CHECKED, "the records, claims and audits were not checked: fix the taxonomy first"),
        ("T006", "table 'category_x_no_such_field' is in neither combine nor left_out; say whether its axes combine, "
                 "or why it is left out"),
        ("T003", "crosstab names unknown field 'no_such_field'"),
    ]


def test_the_code_is_not_part_of_the_printed_line(published_tree):
    problem = validate(parse_tree({**read_tree(published_tree), "exclusions/E999.yaml": b"- a list\n"}))[0]
    assert problem.code == "R001"
    assert str(problem) == str(dataclasses.replace(problem, code=None))
