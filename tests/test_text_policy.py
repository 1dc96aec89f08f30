"""One policy for the characters of every free-text field, and names every system can hold:
a hostile text or name is refused with one clear line, never written, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from masrl.core import clock
from masrl.build import write
from masrl.checks.validate import validate
from masrl.core.errors import UserError
from masrl.core.text import text_problem
from masrl.corpus.load import parse_tree, read_tree
from masrl.corpus.records import make_key
from trees import published_only  # noqa: F401 - the published tree only

ADD = ["--no-fetch", "--author", "Doe, Jane", "--year", "2026"]
EXCLUDE = ["--author", "Doe, Jane", "--year", "2026", "--stage", "abstract_screen", "--reason-class", "X1",
           "--source", "arXiv", "--query-family", "orchestration"]


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _problems(root: Path, rel: str, edit) -> list:
    files = read_tree(root)
    return validate(parse_tree({**files, rel: edit(files[rel].decode()).encode()}))


# ---------------------------------------------------------------------------- the text policy
@pytest.mark.parametrize("text, multiline, problem", [
    ("Agents \u202etxt.exe", False, "contains a character that is invisible or changes how the text shows "
                                    "(U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control); remove it"),
    ("Zero\u200bwidth", False, "contains a character that is invisible or changes how the text shows "
                               "(U+200B ZERO WIDTH SPACE, zero-width); remove it"),
    ("bell\x07 and escape\x1b[2J", True, "contains characters that are invisible or change how the text shows "
                                          "(U+0007 BELL, a control character; U+001B ESCAPE, a control character); remove them"),
    ("back\x08space del\x7f nul\x00", True, "contains characters that are invisible or change how the text shows "
                                             "(U+0008 BACKSPACE, a control character; U+007F DELETE, a control character; "
                                             "U+0000 NULL, a control character); remove them"),
    ("bad \udcff byte", False, "contains bytes that are not UTF-8 (the byte 0xFF); write the text in UTF-8 "
                               "(check the terminal's or the file's encoding)"),
    ("two\nlines\tand a tab", True, None),
    ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", False, None),  # Persian: the non-joiner between letters
    ("family \U0001F468\u200d\U0001F469\u200d\U0001F467", False, None),  # an emoji sequence
    ("Soil of \u0dc1\u0dca\u200d\u0dbb\u0dd3 \u0dbd\u0d82\u0d9a\u0dcf", False, None),  # Sinhala: the joiner after al-lakuna
    ("\u0915\u094d\u200d\u0937", False, None),  # Devanagari: after the virama (a half form)
    ("\u0d05\u0d35\u0d28\u0d4d\u200d \u0d2a\u0d4b\u0d2f\u0d3f", False, None),  # Malayalam: an old chillu ends a word
    ("Agents of \u0d15\u0d47\u0d30\u0d33\u0d24\u0d4d\u0d24\u0d3f\u0d32\u0d4d\u200d.", False, None),  # ... before a dot
    ("\u0dca\u200da", False, "contains a character that is invisible or changes how the text shows "
                             "(U+200D ZERO WIDTH JOINER, zero-width); remove it"),  # not before an ASCII letter
    ("a\u200cb", False, "contains a character that is invisible or changes how the text shows "
                        "(U+200C ZERO WIDTH NON-JOINER, zero-width); remove it"),
])
def test_the_text_policy(text, multiline, problem):
    assert text_problem(text, multiline) == problem


@pytest.mark.parametrize("field, value, message", [
    ("title", "Agents \u202etxt.exe", "'Agents \\u202etxt.exe' contains a character that is invisible or changes how the "
                                      "text shows (U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control); remove it"),
    ("one_liner", "ring\x07", "'ring\\x07' contains a character that is invisible or changes how the text shows "
                              "(U+0007 BELL, a control character); remove it"),
    ("notes", "erase\x08\x7f", "'erase\\x08\\x7f' contains characters that are invisible or change how the text shows "
                               "(U+0008 BACKSPACE, a control character; U+007F DELETE, a control character); remove them"),
])
def test_every_text_of_a_record_follows_the_policy(published_tree, field, value, message):
    import json

    def edit(text):
        start = text.index(f"\n{field}: ") + 1
        end = text.index("\n", start)
        return text[:start] + f"{field}: {json.dumps(value)}" + text[end:]

    problems = [p for p in _problems(published_tree, "corpus/papers/c3.yaml", edit) if p.code == "D010"]
    assert [(p.field, p.message) for p in problems] == [(field, message)]


def test_the_policy_covers_the_vocabulary_the_claims_and_the_releases(published_tree):
    tax = _problems(published_tree, "corpus/taxonomy.yaml", lambda t: t.replace("label: shared team reward", 'label: "shared\\u200b reward"'))
    assert [(p.code, p.field) for p in tax if p.code == "T020"] == [("T020", "fields.reward_type.values.shared.label")]
    claims = _problems(published_tree, "corpus/claims.yaml", lambda t: t.replace("statement: Message-level credit is sparse (at most "
                                                                       "{message_share} of the retained records with a "
                                                                       "credit unit carry it).", 'statement: "Message-level\\e '
                                                                       'credit is sparse (at most {message_share})."', 1))
    assert [(p.code, p.message) for p in claims if p.code == "C002"] == [
        ("C002", "'Message-level\\x1b credit is sparse (at most {message_share}).' contains a character that is invisible or "
                 "changes how the text shows (U+001B ESCAPE, a control character); remove it")]
    rel = _problems(published_tree, "corpus/releases.yaml", lambda t: t.replace("title: '", "title: '\u202e", 1))
    assert [(p.code, p.field) for p in rel if p.code == "S003"] == [("S003", "releases[0].title")]


def test_a_record_with_a_spoofing_title_is_never_written_into_the_readme_or_the_site(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "title", '"Contextual \\u202eCredit"')
    set_field(survey / "corpus/papers/c3.yaml", "one_liner", '"bell\\a escape\\e"')
    before = files_of(survey / "reports") | {"README.md": (survey / "README.md").read_bytes()}
    run = cli("build", "--root", survey)
    assert run.code == 1
    assert "corpus/papers/c3.yaml:2: title: 'Contextual \\u202eCredit' contains a character" in run.err
    assert "one_liner: 'bell\\x07 escape\\x1b' contains characters" in run.err
    assert files_of(survey / "reports") | {"README.md": (survey / "README.md").read_bytes()} == before


def test_add_and_exclude_refuse_spoofing_and_control_characters(survey, cli):
    before = files_of(survey)
    run = cli("add", "--root", survey, "--arxiv", "2606.70001", "--title", "Evil \u202etxt.exe", *ADD)
    assert run.code == 1 and ("command line: title: 'Evil \\u202etxt.exe' contains a character that is invisible or "
                              "changes how the text shows (U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control); "
                              "remove it") in run.err
    run = cli("exclude", "--root", survey, "--arxiv", "2606.70002", "--title", "Fine", "--reason", "wipe\x1b[2J", *EXCLUDE)
    assert run.code == 1 and ("command line: --reason: 'wipe\\x1b[2J' contains a character that is invisible or changes "
                              "how the text shows (U+001B ESCAPE, a control character); remove it") in run.err
    assert files_of(survey) == before


# ---------------------------------------------------------------------------- bytes that are not UTF-8
def test_a_title_that_is_not_utf8_is_refused_and_the_pool_stays_valid(survey, cli):
    before = files_of(survey)
    title = b"Bad \xff byte".decode("utf-8", "surrogateescape")  # what argv holds for that byte
    run = cli("add", "--root", survey, "--arxiv", "2606.70003", "--title", title, *ADD)
    assert run.code == 1 and "Traceback" not in run.err
    assert ("command line: title: 'Bad \\udcff byte' contains bytes that are not UTF-8 (the byte 0xFF); write the text "
            "in UTF-8 (check the terminal's or the file's encoding)") in run.err
    run = cli("exclude", "--root", survey, "--arxiv", "2606.70004", "--title", title, "--reason", "x", *EXCLUDE)
    assert run.code == 1 and "command line: --title: 'Bad \\udcff byte' contains bytes that are not UTF-8" in run.err
    assert files_of(survey) == before
    assert cli("validate", "--root", survey).code == 0


def test_a_bibtex_file_without_end_is_read_only_up_to_the_bound(survey, cli):
    from masrl.corpus.load import MAX_USER_FILE

    run = cli("add", "--root", survey, "--bibtex", "/dev/zero")
    assert run.code == 1 and run.err == (f"masrl: error: --bibtex /dev/zero: holds more than {MAX_USER_FILE // 2**20} MiB; "
                                         "masrl reads at most that much (split the file)\n")


# ---------------------------------------------------------------------------- names that become files
LONG = "a" * 300


@pytest.mark.parametrize("key, message", [
    (LONG, f"command line: key: '{'a' * 80}'...: is 300 characters long; at most 64 (it names a file)"),
    ("con", "command line: key: 'con' is a device name on Windows (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or without "
            "an extension); choose another"),
    ("nul.x", "command line: key: 'nul.x' is a device name on Windows"),
    ("lpt1", "command line: key: 'lpt1' is a device name on Windows"),
    ("com9.backup", "command line: key: 'com9.backup' is a device name on Windows"),
])
def test_add_refuses_keys_no_system_can_hold(survey, cli, key, message):
    before = files_of(survey)
    run = cli("add", "--root", survey, "--arxiv", "2606.70005", "--title", "A Paper With A Key", *ADD, "--key", key)
    assert run.code == 1 and "Traceback" not in run.err
    assert message in run.err
    assert files_of(survey) == before


@pytest.mark.parametrize("name, message", [
    (LONG, f"command line: NAME: '{'a' * 80}': is 300 characters long; at most 64 (it names a file)"),
    ("aux", "command line: NAME: 'aux' is a device name on Windows"),
    ("prn.v2", "command line: NAME: 'prn.v2' is a device name on Windows"),
])
def test_release_refuses_names_no_system_can_hold(survey, cli, name, message):
    before = files_of(survey)
    run = cli("release", "--root", survey, name, "--date", clock.today().isoformat())
    assert run.code == 1 and "Traceback" not in run.err and message in run.err
    assert files_of(survey) == before


def test_audit_refuses_an_id_no_system_can_hold(survey, cli):
    run = cli("audit", "sample", "--root", survey, "--population", "retained", "--n", "2", "--seed", "1", "--id", "com1")
    assert run.code == 1 and "command line: --id: 'com1' is a device name on Windows" in run.err


def test_a_record_file_with_a_device_name_does_not_validate(published_tree):
    files = read_tree(published_tree)
    text = files["corpus/papers/c3.yaml"].decode().replace("key: c3\n", "key: aux\n", 1)
    problems = validate(parse_tree({**files, "corpus/papers/aux.yaml": text.encode()}))
    assert [(p.code, p.file, p.message) for p in problems if p.code == "D011"] == [
        ("D011", "corpus/papers/aux.yaml", "'aux' is a device name on Windows (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or "
                                          "without an extension); choose another")]


def test_the_writer_refuses_a_name_the_file_system_cannot_hold(tmp_path):
    (tmp_path / "corpus/papers").mkdir(parents=True)
    with pytest.raises(UserError) as err:
        write.create_new(tmp_path, {f"corpus/papers/{LONG}.yaml": b"x"})
    assert [p.message for p in err.value.problems] == ["cannot be written: File name too long"]
    assert list((tmp_path / "corpus/papers").iterdir()) == []
    with pytest.raises(UserError, match=r"^cannot write reports/a+\.md: File name too long; nothing was written$"):
        write.sync(tmp_path, {f"reports/{LONG}.md": b"x"})  # a folder that does not exist yet
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]


def test_generated_keys_stay_short():
    key = make_key("{" + "Agents and Tools Laboratory of Very Long Names " * 10 + "}", 2026, set())
    assert len(key) == 44 and key.endswith("2026")


@pytest.mark.parametrize("sent, kept", [
    ("Evil \x1b[2J\x1b[31mRed\x1b[0m title", "Evil Red title"),
    ("A \x1b]0;pwned\x07 b", "A b"),
    ("a\x9b1mb and c\x1bcd", "ab and cd"),
    ("plain [2J text", "plain [2J text"),  # no escape: the text as sent
])
def test_a_terminal_escape_sequence_is_taken_out_whole(sent, kept):
    """Run 41: after ESC was taken out of a source's title, the rest of its sequence ('[2J', '[31m') stayed as text."""
    from masrl.core.text import without_unsafe

    assert without_unsafe(sent) == kept
