"""One test per YAML trap: each gives one clear error line or the right value."""

from __future__ import annotations

import datetime

from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from masrl.corpus.yamlio import dump_record, parse
from trees import published_only  # noqa: F401 - the published tree only


def test_repeated_key_is_an_error_not_last_one_wins(survey, cli, set_field):
    path = survey / "corpus/papers/c3.yaml"
    path.write_text(path.read_text() + "year: 2019\n")
    run = cli("validate", "--root", survey)
    assert run.code == 1
    line = len(path.read_text().splitlines())
    first = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if t.startswith("year:"))
    assert f"corpus/papers/c3.yaml:{line}: year: key 'year' appears twice in one mapping (lines {first} and {line})" in run.err.splitlines()
    assert "Traceback" not in run.err


def test_git_conflict_markers_are_named_even_inside_a_quoted_value(survey, cli):
    """A merge that stopped inside a value quoted over several lines leaves YAML that still parses: the
    markers would be published as the value's text. They are refused by name, at the line of the first."""
    path = survey / "corpus/papers/c3.yaml"
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("one_liner:"))
    lines[at:at + 1] = ["one_liner: 'Role credit", "<<<<<<< HEAD", "  for planners", "=======", "  for critics",
                        ">>>>>>> contrib-a", "  in teams'"]
    path.write_text("\n".join(lines) + "\n")
    assert parse(path.read_bytes(), "x.yaml")[0] is None
    run = cli("validate", "--root", survey)
    assert run.code == 1 and run.err.splitlines()[0] == (
        f"corpus/papers/c3.yaml:{at + 2}: git conflict marker: a merge left this file unresolved; keep what each side "
        "should keep, remove the lines <<<<<<<, ======= and >>>>>>>, then `git add` it (or run `masrl resolve`)")
    assert parse(b"title: '<<<<<<<< not a marker'\nnote: '>>>>>>> quoted'\n", "y.yaml")[1] == []


def test_yes_is_the_vocabulary_string_not_a_boolean():
    doc, problems = parse(b"is_rl: yes\nverified: no\nflag: true\n", "x.yaml")
    assert problems == []
    assert doc.value == {"is_rl": "yes", "verified": "no", "flag": True}


def test_unquoted_yes_validates_as_the_vocabulary_value(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "is_rl", "yes")
    set_field(survey / "corpus/papers/c3.yaml", "verified", "yes")
    assert cli("validate", "--root", survey).code == 0


def test_a_real_boolean_is_refused_with_the_allowed_values(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "is_rl", "true")
    run = cli("validate", "--root", survey)
    assert run.code == 1
    line = next(i for i, t in enumerate((survey / "corpus/papers/c3.yaml").read_text().splitlines(), 1) if t.startswith("is_rl:"))
    assert (f'corpus/papers/c3.yaml:{line}: is_rl: the boolean true is not in the vocabulary; allowed: yes, partial, no '
            '(YAML read it as a boolean: quote it, e.g. "yes")') in run.err.splitlines()


def test_arxiv_id_that_looks_like_a_float_stays_text():
    doc, _ = parse(b"identifiers:\n  arxiv: 2510.10\n  other: 2510.10000\n", "x.yaml")
    assert doc.value["identifiers"] == {"arxiv": "2510.10", "other": "2510.10000"}


def test_float_looking_arxiv_id_gets_a_format_error_not_a_type_error(survey, cli, set_field):
    path = survey / "corpus/papers/magrpo.yaml"
    path.write_text(path.read_text().replace("  arxiv: '2508.04652'", "  arxiv: 2508.04"))
    run = cli("validate", "--root", survey)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if t.startswith("  arxiv:"))
    assert (f"corpus/papers/magrpo.yaml:{line}: identifiers.arxiv: '2508.04' is not a valid arXiv identifier: ids of 2508 "
            "(2025-08) have a 5-digit number (YYMM.NNNNN: 4 digits from 0704 to 1412, 5 from 1501)") in run.err.splitlines()


def test_dates_keep_one_type():
    doc, _ = parse(b"a: 2026-04-26\nb: '2026-04-26'\nc: 2026-04-26T10:00:00\n", "x.yaml")
    assert doc.value == {"a": "2026-04-26", "b": "2026-04-26", "c": "2026-04-26T10:00:00"}
    assert not any(isinstance(v, datetime.date) for v in doc.value.values())


def test_impossible_date_is_reported(survey, cli, set_field):
    set_field(survey / "exclusions/E002.yaml", "date_screened", "2026-02-30")
    run = cli("validate", "--root", survey)
    line = next(i for i, t in enumerate((survey / "exclusions/E002.yaml").read_text().splitlines(), 1) if t.startswith("date_screened:"))
    assert f"exclusions/E002.yaml:{line}: date_screened: '2026-02-30' is not a real date (YYYY-MM-DD)" in run.err.splitlines()


def test_anchor_is_refused(survey, cli, set_field):
    (survey / "exclusions/E001.yaml").write_text("record_id: &id E001\nscreening_label: *id\n")
    run = cli("validate", "--root", survey)
    assert run.code == 1
    assert "exclusions/E001.yaml:1: anchor &id is not allowed; write the value out" in run.err.splitlines()


def test_alias_alone_is_refused():
    _, problems = parse(b"a: 1\nb: *x\n", "x.yaml")
    assert [str(p) for p in problems] == ["x.yaml:2: alias *x is not allowed; write the value out"]


def test_not_utf8_is_reported_not_crashed_on(survey, cli, set_field):
    (survey / "corpus/papers/c3.yaml").write_bytes("key: c3\ntitle: Caf\u00e9\n".encode("latin-1"))
    run = cli("validate", "--root", survey)
    assert run.code == 1
    assert ("corpus/papers/c3.yaml:2: not valid UTF-8 (byte 0xe9 at offset 18); save the file as UTF-8"
            in run.err.splitlines())
    assert "Traceback" not in run.err


def test_not_a_mapping_is_reported(survey, cli, set_field):
    (survey / "corpus/papers/c3.yaml").write_text("- key: c3\n")
    run = cli("validate", "--root", survey)
    assert ("corpus/papers/c3.yaml:1: the file must hold one YAML mapping (field: value lines); it is a list"
            in run.err.splitlines())


def test_empty_file_is_reported(survey, cli, set_field):
    (survey / "corpus/papers/c3.yaml").write_text("")
    run = cli("validate", "--root", survey)
    assert "corpus/papers/c3.yaml:1: the file must hold one YAML mapping (field: value lines); it is empty" in run.err.splitlines()


def test_yaml_syntax_error_names_the_line(survey, cli, set_field):
    (survey / "corpus/papers/c3.yaml").write_text("key: c3\ntitle: [unclosed\nyear: 2026\n")
    run = cli("validate", "--root", survey)
    assert run.code == 1
    assert any(line.startswith("corpus/papers/c3.yaml:3: YAML syntax error:") for line in run.err.splitlines())


def test_python_tags_are_refused():
    _, problems = parse(b"a: !!python/object:os.system ls\n", "x.yaml")
    assert [str(p) for p in problems] == [
        "x.yaml:1: explicit tag 'tag:yaml.org,2002:python/object:os.system' is not allowed; write the value plainly or quote it"]


def test_second_document_is_refused():
    _, problems = parse(b"a: 1\n---\nb: 2\n", "x.yaml")
    assert [str(p) for p in problems] == ["x.yaml:2: a record file holds one YAML document; remove the second '---'"]


def test_validation_never_rewrites_a_record(survey, cli, set_field):
    path = survey / "corpus/papers/c3.yaml"
    set_field(path, "is_rl", "yes")  # unquoted, as a contributor would write it
    before = {p: p.read_bytes() for p in (survey / "corpus").rglob("*.yaml")}
    cli("validate", "--root", survey)
    assert {p: p.read_bytes() for p in (survey / "corpus").rglob("*.yaml")} == before


_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=40)


@settings(max_examples=examples(300), deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), st.one_of(_text, st.integers(-10**6, 10**6), st.lists(_text, max_size=4)), max_size=8))
def test_dump_then_parse_gives_back_every_value(record):
    doc, problems = parse(dump_record(record), "x.yaml")
    assert problems == []
    assert doc.value == record


def test_a_tab_in_the_indentation_is_named_however_the_scanner_words_it():
    for text, line, words in ((b"key: c3\n\ttitle: x\n", 2, "found a tab character that violates indentation"),
                              (b"key: c3\nauthors:\n\t- a\n", 3, "found character that cannot start any token"),
                              (b"a:\n  b: 1\n\tc: 2\n", 3, "found a tab character that violates indentation")):
        _doc, problems = parse(text, "x.yaml")
        assert [(p.line, p.message) for p in problems] == [(line, f"YAML syntax error: {words} (while scanning a plain scalar); "
                                                            "indent with spaces, not tabs" if "tab" in words else
                                                            f"YAML syntax error: {words} (while scanning for the next token); "
                                                            "indent with spaces, not tabs")]
    _doc, problems = parse(b"title: a\tb\nkey: x: y\n", "x.yaml")
    assert "tabs" not in problems[0].message  # a tab inside a value is no indentation
