"""The strict YAML reader and writer pinned exactly, without a survey tree: the typing rule of every
plain scalar, the line of every node, comments after plain values, the exact messages, and values
YAML would read as numbers or booleans round-tripped through the writer."""

from __future__ import annotations

import pytest

from masrl.corpus.yamlio import Document, dump_record, parse


def value(text: str):
    doc, problems = parse(text.encode(), "x.yaml")
    assert problems == []
    return doc.value


def messages(text: str | bytes) -> list[str]:
    doc, problems = parse(text.encode() if isinstance(text, str) else text, "x.yaml")
    return [str(p) for p in problems]


@pytest.mark.parametrize("plain, read", [
    ("", None), ("~", None), ("null", None), ("Null", None), ("NULL", None), ("nUll", "nUll"),
    ("true", True), ("True", True), ("TRUE", True), ("false", False), ("False", False), ("FALSE", False),
    ("tRue", "tRue"), ("yes", "yes"), ("no", "no"), ("on", "on"),
    ("0", 0), ("08", 8), ("+08", 8), ("-3", -3), ("12345678901234567890", 12345678901234567890),
    ("1e3", "1e3"), ("2510.10", "2510.10"), ("0x1F", "0x1F"), ("1_000", "1_000"), (".inf", ".inf"), ("3 ", 3),
    ("2026-04-26", "2026-04-26"), ("NA", "NA"),
])
def test_plain_scalars_follow_one_typing_rule(plain, read):
    assert value(f"a: {plain}\n") == {"a": read}


def test_quoted_and_tagged_scalars_stay_strings():
    assert value("a: '08'\nb: \"true\"\nc: !!str 12\ne: 'null'\nf: ''\ng: |\n  7\n") == {
        "a": "08", "b": "true", "c": "12", "e": "null", "f": "", "g": "7\n"}


def test_lines_of_every_node_and_the_nearest_ancestor():
    doc, _ = parse(b"key: c3\nauthors:\n  - Doe, Jane\n  - Roe, Ann\nids:\n  arxiv: '2501.00001'\nlist: [a, b]\n", "x.yaml")
    assert doc.lines == {("key",): 1, ("authors",): 2, ("authors", 0): 3, ("authors", 1): 4, ("ids",): 5,
                         ("ids", "arxiv"): 6, ("list",): 7, ("list", 0): 7, ("list", 1): 7, (): 1}
    assert doc.line(("ids", "arxiv")) == 6
    assert doc.line(("ids", "doi", "x")) == 5
    assert doc.line(("nowhere",)) == 1
    assert Document({}).line(("a",)) is None
    assert Document({}, {(): 4}).line(()) == 4


def test_a_scalar_document_has_its_line():
    doc, problems = parse(b"\n\njust text\n", "x.yaml")
    assert problems == [] and doc.value == "just text" and doc.lines == {(): 3}


def test_comments_after_plain_values_are_kept_by_path():
    doc, _ = parse(b"title: #1 agents\nnote: a  # cut here \nq: 'x' # quoted\nlist:\n  - b # in a list\nlast: z #end", "x.yaml")
    assert doc.value == {"title": None, "note": "a", "q": "x", "list": ["b"], "last": "z"}
    assert doc.comments == {("title",): "#1 agents", ("note",): "# cut here", ("list", 0): "# in a list", ("last",): "#end"}


def test_a_hash_inside_a_plain_value_is_no_comment():
    doc, _ = parse(b"a: C# code\nb: x\n", "x.yaml")
    assert doc.value == {"a": "C# code", "b": "x"} and doc.comments == {}


def test_a_repeated_key_names_both_lines_and_keeps_the_first():
    doc, problems = parse(b"a: 1\nb:\n  c: 2\n  c: 3\n  c: 4\na: 5\n", "r.yaml")
    assert [str(p) for p in problems] == [
        "r.yaml:4: b.c: key 'c' appears twice in one mapping (lines 3 and 4)",
        "r.yaml:5: b.c: key 'c' appears twice in one mapping (lines 3 and 5)",
        "r.yaml:6: a: key 'a' appears twice in one mapping (lines 1 and 6)",
    ]
    assert doc.value == {"a": 1, "b": {"c": 2}}
    assert doc.lines[("a",)] == 1 and doc.lines[("b", "c")] == 3


def test_a_repeated_key_in_a_list_item_names_its_index():
    _, problems = parse(b"items:\n  - x: 1\n    x: 2\n", "r.yaml")
    assert [str(p) for p in problems] == ["r.yaml:3: items[0].x: key 'x' appears twice in one mapping (lines 2 and 3)"]


def test_a_repeated_mapping_value_keeps_the_first():
    doc, problems = parse(b"a:\n  b: 1\na:\n  c: 2\n", "r.yaml")
    assert doc.value == {"a": {"b": 1}} and len(problems) == 1


@pytest.mark.parametrize("text, message", [
    ("a: &x 1\n", "x.yaml:1: anchor &x is not allowed; write the value out"),
    ("a: 1\nb: &m {c: 1}\n", "x.yaml:2: anchor &m is not allowed; write the value out"),
    ("a:\n  - &s [1]\n", "x.yaml:2: anchor &s is not allowed; write the value out"),
    ("a: 1\n\nb: *x\n", "x.yaml:3: alias *x is not allowed; write the value out"),
    ("a: !!int 3\n", "x.yaml:1: explicit tag 'tag:yaml.org,2002:int' is not allowed; write the value plainly or quote it"),
    ("a: !!map {b: 1}\n", None),
    ("a: !!seq [1]\n", None),
    ("a: !!set {b}\n", "x.yaml:1: explicit tag 'tag:yaml.org,2002:set' is not allowed"),
    ("x: 1\na: !!omap [b]\n", "x.yaml:2: explicit tag 'tag:yaml.org,2002:omap' is not allowed"),
    ("? [a]\n: 1\n", "x.yaml:1: a mapping key must be a plain string, not a mapping or a list"),
    ("a: 1\n? \n: 2\n", "x.yaml:2: empty mapping key"),
    ("a: 1\n---\nb: 2\n", "x.yaml:2: a record file holds one YAML document; remove the second '---'"),
])
def test_refused_constructs_give_one_exact_message(text, message):
    doc, problems = parse(text.encode(), "x.yaml")
    if message is None:
        assert problems == [] and doc is not None
    else:
        assert doc is None and [str(p) for p in problems] == [message]


def test_quoted_empty_keys_and_null_like_keys_are_strings():
    assert value("'': 1\nnull2: 2\n") == {"": 1, "null2": 2}
    assert value("'null': 1\n") == {"null": 1}


def test_not_utf8_names_the_byte_and_line():
    assert messages(b"a: 1\nb: 2\nc: caf\xe9\n") == ["x.yaml:3: not valid UTF-8 (byte 0xe9 at offset 16); save the file as UTF-8"]
    assert messages(b"\xff") == ["x.yaml:1: not valid UTF-8 (byte 0xff at offset 0); save the file as UTF-8"]


def test_syntax_errors_name_the_line_and_a_hint():
    assert messages("a: 1\ntitle: GAIA: a benchmark\n") == [
        "x.yaml:2: YAML syntax error: mapping values are not allowed in this context; quote the value if it contains ': ' "
        "(title: \"GAIA: a benchmark\")"]
    # the hint quotes the line's own value (an adjudication's note had been shown a title as the example)
    assert messages("resolutions:\n  - item: S01\n    note: see page 3: it says \"so\"\n") == [
        "x.yaml:3: YAML syntax error: mapping values are not allowed in this context; quote the value if it contains "
        "': ' (note: \"see page 3: it says \\\"so\\\"\")"]
    assert messages("a: [1\nb: 2\n") == [
        "x.yaml:2: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence)"]
    control = messages("a: b\x07\n")
    assert control == ["x.yaml:1: YAML syntax error: control characters are not allowed"]
    assert messages("a: 1\nb: 2\nc: \x01\n") == ["x.yaml:3: YAML syntax error: control characters are not allowed"]


def test_an_unclosed_quote_is_named_at_the_line_that_opens_it():
    """YAML lets a quoted value run on to the next quote, so the error shows further down: the
    message names the line whose quote never closes (a new user's slip, 2026-12-03)."""
    assert messages('title: T\none_liner: "MMOA trains\nnotes: n\nyear: 2025\nvenue: "arXiv"\nkey: k\n') == [
        "x.yaml:5: YAML syntax error: did not find expected key (while parsing a block mapping); the quoted value "
        'that starts on line 2 does not end on that line: close its quote (one_liner: "MMOA trains)']
    assert messages("title: T\none_liner: 'it''s\nnotes: n\n") == [
        "x.yaml:2: YAML syntax error: found unexpected end of stream (while scanning a quoted scalar) at the end of "
        "the file; the quoted value that starts on line 2 does not end on that line: close its quote (one_liner: 'it''s)"]
    assert messages('a: 1\nb: "x \\" y\nc: 2\n') == [  # an escaped quote does not close it
        "x.yaml:2: YAML syntax error: found unexpected end of stream (while scanning a quoted scalar) at the end of "
        'the file; the quoted value that starts on line 2 does not end on that line: close its quote (b: "x \\" y)']
    assert messages('title: T\nauthors:\n  - "Chen, Yiqun\n  - "Yan, L"\nyear: 2025\n') == [
        "x.yaml:4: YAML syntax error: did not find expected '-' indicator (while parsing a block collection); the "
        'quoted value that starts on line 3 does not end on that line: close its quote (- "Chen, Yiqun)']
    # the quote closes on a later line, so YAML names where the rest no longer parses
    assert messages('a: "x \\" y\nb: 1\nc: "z"\n') == [
        "x.yaml:3: YAML syntax error: did not find expected key (while parsing a block mapping); the quoted value "
        'that starts on line 1 does not end on that line: close its quote (a: "x \\" y)']
    assert messages("a: 'it''s\nb: 1\nc: 'z'\n") == [
        "x.yaml:3: YAML syntax error: did not find expected key (while parsing a block mapping); the quoted value "
        "that starts on line 1 does not end on that line: close its quote (a: 'it''s)"]
    assert messages('a: 1\nb: "x') == [  # YAML notices on the line the quote opens: no second line named
        "x.yaml:2: YAML syntax error: found unexpected end of stream (while scanning a quoted scalar); the quoted "
        'value that starts on line 2 does not end on that line: close its quote (b: "x)']
    assert messages('a: "ok \\\\"\nb: [1\nc: 2\n') == [  # an escaped backslash before the quote: closed
        "x.yaml:3: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence)"]


def test_a_tab_two_lines_up_is_named():
    assert messages("a:\n\tb: [1\nc: 2\n")[0].endswith("; indent with spaces, not tabs")


# ------------------------------------------------------------------------------------- writer
def test_dump_quotes_what_the_reader_would_not_read_as_the_string():
    record = {"a": "08", "b": "+08", "c": "-3", "d": "yes", "e": "NA", "f": "null", "g": "", "h": "~", "i": "True",
              "j": "2510.10", "k": "2026-04-26", "l": "1e3", "m": "FALSE", "n": "Null", "o": 7, "p": None, "q": False}
    text = dump_record(record).decode()
    for key in "abcfghimn":
        assert f"{key}: '" in text, key
    assert "o: 7\n" in text and "p: null\n" in text and "q: false\n" in text
    doc, problems = parse(text.encode(), "x.yaml")
    assert problems == [] and doc.value == record


def test_dump_writes_multi_line_text_as_a_literal_block():
    record = {"notes": "line one\nline two\n", "key": "c3"}
    assert dump_record(record) == b"notes: |\n  line one\n  line two\nkey: c3\n"
    assert value(dump_record(record).decode()) == record


@pytest.mark.parametrize("text", ["two\nlines ", "bell\x07\nx", "tab\tand\nnewline"])
def test_dump_keeps_text_a_literal_block_cannot_hold(text):
    out = dump_record({"a": text})
    assert not out.startswith(b"a: |")
    assert parse(out, "x.yaml")[0].value == {"a": text}


def test_dump_keeps_order_unicode_one_line_and_no_aliases():
    shared = ["x", "y"]
    long = "word " * 1900  # under the emitter width (10,000)
    out = dump_record({"z": "é", "a": shared, "b": shared, "long": long.strip()})
    assert out == ("z: é\na:\n  - x\n  - y\nb:\n  - x\n  - y\nlong: " + long.strip() + "\n").encode()


def test_a_tab_on_the_first_line_is_named():
    assert messages("\ta: 1\nb: 2\n") == [
        "x.yaml:1: YAML syntax error: found character that cannot start any token (while scanning for the next token); "
        "indent with spaces, not tabs"]


@pytest.mark.parametrize("digits", [101, 5000])
def test_an_integer_longer_than_any_value_is_refused_on_its_line(digits):
    """Python refuses to read an integer of more than 4,300 digits (a traceback); masrl names the line."""
    assert messages(f"key: a\nyear: {'9' * digits}\n") == [
        f"x.yaml:2: an integer of {digits:,} digits: masrl reads integers of at most 100 digits (a year, a count); "
        "quote the value if it is text"]
    assert value(f"year: {'9' * 100}\n") == {"year": int("9" * 100)}
    assert value(f"year: '{'9' * 5000}'\n") == {"year": "9" * 5000}


@pytest.mark.memos
def test_a_file_parsed_again_gives_values_of_its_own_from_the_memo():
    from masrl.corpus.yamlio import PARSED

    text = b"key: a\nauthors:\n  - X, Y\nkey: b\n"
    first, problems = parse(text, "corpus/papers/m.yaml")
    hits = PARSED.hits
    first.value["authors"].append("changed")
    first.lines.clear()
    again, again_problems = parse(text, "corpus/papers/m.yaml")
    assert PARSED.hits == hits + 1
    assert again.value == {"key": "a", "authors": ["X, Y"]} and again.lines[("authors", 0)] == 3
    assert [p.message for p in again_problems] == [p.message for p in problems] and "lines 1 and 4" in problems[0].message
    other, other_problems = parse(text, "corpus/papers/n.yaml")  # another file's problems name that file
    assert other_problems[0].file == "corpus/papers/n.yaml"


def test_a_large_mapping_written_by_parts_is_the_bytes_written_whole():
    """A release's snapshot is written part by part (each record remembered): the same bytes as written whole, with
    literal blocks, empty lines, keys YAML would read otherwise, empty values, and a key too long for the short form
    (written whole)."""
    from masrl.corpus.yamlio import dump_by_parts

    data = {"format_version": 2, "release": "v2", "taxonomy": {"fields": {"a": {"values": {"yes": "Yes", "2023": "x"}}}},
            "retained": {"k1": {"title": "T", "notes": "line one\n\n  indented\nlast", "tags": ["a", "b"], "empty": []},
                         "2023": {"title": "yes", "nested": {"deep": {"deeper": "no"}}, "abstract": "x " * 300}},
            "excluded": {}, "identification": {"n": 3}}
    assert dump_by_parts(data) == dump_record(data) and dump_by_parts(data) == dump_by_parts(data)
    long_key = {"retained": {"k" * 200: {"title": "T"}}, "excluded": {"E001": {"screening_label": "S"}}}
    assert dump_by_parts(long_key) == dump_record(long_key)
    assert dump_by_parts({"retained": {"k1": "not a record"}}) == dump_record({"retained": {"k1": "not a record"}})
