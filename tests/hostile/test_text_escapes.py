"""Text that escapes. A title or a cell is shown as the text it is, in every
output (Markdown, a terminal), and one character policy (masrl.core.text) refuses every
invisible character everywhere."""

from __future__ import annotations

import html
import re

import cmarkgfm
import pytest

from hostile_surveys import candidate, edit_record, soil, write_round  # noqa: F401 (fixtures)
from masrl.core.text import text_problem

HOSTILE_TITLES = [
    "<img src=x onerror=alert(1)>",
    "Agents <script>alert(1)</script> at scale",
    "[click](javascript:alert(1)) and <https://evil.example>",
    "*emphasis* and __strong__ and ~~struck~~",
    "Closing hashes #",
    "# not a heading",
    "1. not a list",
    "> not a quote",
    "`code` and $math$ | pipe",
    "http://autolink.example and www.evil.example",
    "&lt;entity&gt; &amp; &#x41;",
]


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_init_writes_the_title_into_the_readme_as_text(tmp_path, cli, title):
    root = tmp_path / "survey"
    run = cli("init", str(root), "--title", title)
    assert run.code == 0, run.err
    first = (root / "README.md").read_text(encoding="utf-8").splitlines()[0]
    rendered = cmarkgfm.github_flavored_markdown_to_html(first)
    heading = re.fullmatch(r"<h1>(.*)</h1>\n", rendered)
    assert heading, rendered
    assert "<" not in heading.group(1).replace("&lt;", ""), rendered  # no element of any kind: text only
    assert html.unescape(heading.group(1)) == title


# characters Unicode says to show as nothing (Default_Ignorable_Code_Point), those drawn as a blank
# that is not a space, and noncharacters: one policy refuses each wherever text is read
INVISIBLE = ["\u00ad", "\U0001d173", "\U0001d17a", "\u3164", "\u115f", "\u1160", "\uffa0", "\u034f", "\u17b4",
             "\u2061", "\u2064", "\u206a", "\ufff9", "\U000e0001", "\U000e0041", "\U0001bca0", "\u2800",
             "\U0001d159", "\ufdd0", "\uffff", "\U0010fffe"]


@pytest.mark.parametrize("ch", INVISIBLE, ids=lambda ch: f"U+{ord(ch):04X}")
def test_every_invisible_character_is_refused(ch):
    why = text_problem(f"Multi{ch}Agent")
    assert why is not None and f"U+{ord(ch):04X}" in why and why.endswith("remove it")
    assert text_problem(ch) is not None  # a text of nothing else is no title either
    from masrl.core.text import printable

    assert printable(f"a{ch}b") == "a" + ch.encode("unicode_escape").decode("ascii") + "b"


@pytest.mark.parametrize("text", [
    "I \u2764\ufe0f multi-agent RL",                    # an emoji with its presentation selector
    "keycap 1\ufe0f\u20e3 and #\ufe0f\u20e3",           # keycap sequences
    "\u845b\U000e0100\u57ce",                            # an ideographic variation sequence
    "flag \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # the flag of Scotland
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian: the non-joiner between letters
    "Zoë, naïve, café, \u00a0non-breaking space",
])
def test_characters_that_are_part_of_what_is_shown_are_kept(text):
    from masrl.core.text import printable

    assert text_problem(text) is None
    assert printable(text) == text


@pytest.mark.parametrize("text", ["a\ufe0fb", "\ufe0f at the start", "tag \U000e0067\U000e007f without its flag",
                                  "\U0001f3f4\U000e0067 a flag never cancelled"])
def test_selectors_and_tags_alone_are_invisible(text):
    assert text_problem(text) is not None


@pytest.mark.parametrize("ch", ["\u00ad", "\u3164", "\u115f", "\U0001d173"], ids=lambda ch: f"U+{ord(ch):04X}")
def test_one_policy_for_titles_of_init_add_and_records(tmp_path, cli, soil, ch):
    title = f"Learning{ch} to orchestrate"
    init = cli("init", str(tmp_path / "new"), "--title", title)
    assert init.code == 1 and f"U+{ord(ch):04X}" in init.err and not (tmp_path / "new").exists()
    add = cli("add", "--root", soil, "--no-fetch", "--arxiv", "2605.01234", "--title", title, "--author", "Doe, Jane",
              "--year", "2026")
    assert add.code == 1 and f"U+{ord(ch):04X}" in add.err
    assert not (soil / "corpus/papers/doe2026.yaml").exists()
    record = soil / "corpus/papers/smith2019.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace(
        "title: Infrared spectra", f'title: "Infrared{ch} spectra', 1).replace("croplands\n", 'croplands"\n', 1),
        encoding="utf-8")
    check = cli("validate", "--root", soil)
    assert check.code == 1
    assert f"corpus/papers/smith2019.yaml:2: title: 'Infrared{ch} spectra" in check.err.replace("\\xad", "\xad") or \
        f"U+{ord(ch):04X}" in check.err


def test_a_soft_hyphen_of_latex_is_no_character_of_an_imported_title():
    from masrl.bib.latex import decode_latex

    assert decode_latex("Multi\\-Agent Re\\-inforcement") == "MultiAgent Reinforcement"
    assert decode_latex("Multi\u00adAgent") == "MultiAgent"


def _escaped(text: str) -> str:
    """What a problem line shows of ``text`` (masrl.core.errors.Problem escapes what is not printable)."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


HOSTILE_CELLS = [
    ("title", "clears \x1b[2J the screen", "U+001B ESCAPE"),
    ("title", "spoofed \u202etxt.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("title", "two\nlines", "U+000A LINE FEED"),
    ("authors", "Doe,\u200b Alex", "U+200B ZERO WIDTH SPACE"),
    ("venue", "bell\x07", "U+0007 BELL"),
    ("abstract", "soft\u00adhyphen", "U+00AD SOFT HYPHEN"),
    ("reason", "erase\x08", "U+0008 BACKSPACE"),
]


@pytest.mark.parametrize("column, cell, named", HOSTILE_CELLS, ids=[c[2] for c in HOSTILE_CELLS])
def test_a_queue_cell_that_escapes_is_refused_and_shown_escaped(soil, cli, column, cell, named):
    extra = {"decision": "exclude", "stage": "title_screen", "reason_class": "W1"} if column == "reason" else {}
    write_round(soil, "2026-05-31", [candidate(1), candidate(2, **{column: cell, **extra})])
    check = cli("validate", "--root", soil)
    assert check.code == 1
    lines = [line for line in check.err.splitlines() if line.startswith("corpus/rounds/")]
    assert len(lines) == 1, check.err
    assert lines[0].startswith(f"corpus/rounds/2026-05-31/queue.csv:3: {column}: {_escaped(repr(cell))} contains a character "
                               f"that is invisible or changes how the text shows ({named}, ")
    assert lines[0].endswith("); remove it")
    show = cli("update", "show", "--root", soil, "2026-05-31")
    assert show.code == 0
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f\u202e\u200b\u00ad]", show.out), show.out


def test_a_reason_may_hold_a_line_break_as_an_exclusion_record_does(soil, cli):
    write_round(soil, "2026-05-31", [candidate(1, decision="exclude", stage="title_screen", reason_class="W1",
                                                reason="not about soil;\nabout oceans")])
    check = cli("validate", "--root", soil)
    assert check.code == 0, check.err


def test_update_show_of_a_sheet_edited_by_hand_prints_every_cell_escaped(soil, cli):
    """A sheet that does not validate (a hostile identifier, rank and decision) is still shown
    without a character that a terminal would run."""
    write_round(soil, "2026-05-31", [candidate(1, identifier="arxiv:2605.10001\x1b]0;owned\x07", rank="1\x1b[2J",
                                                decision="\u202eexclude", title="\x1b[31mred\x1b[0m")])
    show = cli("update", "show", "--root", soil, "2026-05-31")
    assert show.code == 0
    assert "\x1b" not in show.out and "\x07" not in show.out and "\u202e" not in show.out
    assert "\\x1b[31mred\\x1b[0m" in show.out and "\\u202eexclude" in show.out


def test_an_error_naming_an_argument_never_prints_it_raw(soil, cli):
    run = cli("update", "show", "--root", soil, "nosuch\x1b[2J")
    assert run.code == 1 and "\x1b" not in run.err and "nosuch\\x1b[2J" in run.err
