"""BibTeX. Every author BibTeX can read, every kept block field LaTeX can
typeset, quotes and URLs as written, and only what a record says (no invented venue); bibtex and
biber read the export without an error or a warning."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import yaml

from hostile_surveys import edit_record, soil  # noqa: F401 (fixtures)
from test_bib_hostile import _bibtex_compiles  # bibtex (plain) on the export: the .bbl, no error or warning
from masrl.bib import bibexport, csljson
from masrl.bib.latex import decode_latex, encode_latex

needs_bibtex = pytest.mark.skipif(shutil.which("bibtex") is None, reason="bibtex not installed (Debian: texlive-binaries)")
needs_biber = pytest.mark.skipif(shutil.which("biber") is None, reason="biber not installed (Debian: biber)")


def _record(key: str, title: str = "A Title", authors=("Doe, Jane",), venue: str = "arXiv", **extra) -> dict:
    return {"key": key, "title": title, "authors": list(authors), "year": 2026, "venue": venue,
            "url": f"https://example.org/{key}", "identifiers": {"url": [f"https://example.org/{key}"]}, **extra}


def _biber(tmp_path, records) -> str:
    (tmp_path / "papers.bib").write_text(bibexport.export(records), encoding="utf-8")
    done = subprocess.run(["biber", "--tool", "--validate-datamodel", "--output-file", "out.bib", "papers.bib"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if "WARN" in line or "ERROR" in line] == []
    return (tmp_path / "out.bib").read_text(encoding="utf-8")


def bare_specials(latex: str) -> list[str]:
    """The characters of ``latex`` that stop LaTeX: a bare ``#``, ``&`` or ``%``, and ``_`` or ``^``
    outside math (``\\url{...}`` arguments and escaped characters left out), and a ``$`` left open."""
    text = re.sub(r"\\url\{[^{}]*\}", "", latex)
    found, math, i = [], False, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "$":
            math = not math
        elif ch in "#&%" or (ch in "_^" and not math):
            found.append(ch)
        i += 1
    return found + (["$"] if math else [])


# ---------------------------------------------------------------------------- authors
@pytest.mark.parametrize("authors, message", [
    (["Doe, Jr., John, Extra"], "has more than two commas"),
    (["Smith, A., Jones, B."], "has more than two commas"),
    (["Doe, "], "'Doe,' has a comma with no name after it, which BibTeX refuses"),
    (["Doe, , Jane"], "'Doe, , Jane' has a comma with no name after it"),
    (["others"], "names no author, only 'others'"),
    (["others", "others"], "names no author, only 'others'"),
    (["others", "Doe, Jane"], "'others' (et al.) stands for the authors not named and ends the list"),
    (["Turing, Alan and Hopper, Grace"], "holds the word 'and', which BibTeX reads as two authors"),
    (["Alan Turing AND Grace Hopper"], "holds the word 'and', which BibTeX reads as two authors"),
    (["{Lovelace, Ada"], "has unbalanced braces, which BibTeX cannot read: every '{' is closed by a '}'"),
    (["Lovelace}, {Ada"], "has unbalanced braces"),
    (["[Lovelace, Ada]"], "is not one person's name: '[', ']', ';', '&', '|', '/' and 'et al.' write several names as text"),
    (["Lovelace, Ada; Turing, Alan"], "is not one person's name: '[', ']', ';', '&', '|', '/' and 'et al.' write several names as text"),
    (["Lovelace, Ada & Babbage, Charles"], "is not one person's name"),
    (["Hopper, Grace et al."], "is not one person's name"),
    (["Lovelace/Babbage"], "is not one person's name"),
    (["Smith1, John"], "'Smith1, John' holds 'Smith1', a footnote or affiliation mark glued to a name"),
    (["Doe, 3"], "'Doe, 3' holds '3', digits where a name goes"),
    (["=Roe, Richard"], "'=Roe, Richard' begins with '=', which no name does"),
    (["@roe"], "'@roe' begins with '@', which no name does"),
])
def test_an_author_list_bibtex_cannot_read_is_refused(soil, cli, edit_record, authors, message):
    edit_record(soil / "corpus/papers/smith2019.yaml", authors=authors)
    check = cli("validate", "--root", soil)
    assert check.code == 1
    assert message in check.err, check.err


@pytest.mark.parametrize("authors", [["Doe, Jr, John"], ["{Agents, Tools, and Co, Inc.}"], ["Doe, Jane", "others"],
                                     ["van Beethoven, Ludwig", "{Kimi Team}"], ["Andersen, Anders", "Sandoval, Brand"],
                                     ["{Lab [Agents]; Tools}"], ["{AT&T Labs}"], ["Etalon, Ada"],
                                     ["{3M Company}", "{Team 42}", "XIV, Louis", "Plato", "A, Nguyễn Văn", "O'Brien, Pat"]])
def test_authors_bibtex_reads_are_accepted(soil, cli, edit_record, authors):
    edit_record(soil / "corpus/papers/smith2019.yaml", authors=authors, first_author=authors[0])
    check = cli("validate", "--root", soil)
    assert check.code == 0, check.err


def test_exclude_refuses_the_same_authors(soil, cli):
    args = ["exclude", "--root", soil, "--title", "Ocean carbon", "--arxiv", "2605.05555", "--year", "2026",
            "--phase", "title_screen", "--why", "W1", "--reason", "off topic", "--searched-in", "arXiv"]
    for authors, message in ((["Doe, Jr., John, X"], "more than two commas"), (["others"], "only 'others'"),
                             (["Doe2, Jane"], "holds 'Doe2', a footnote or affiliation mark glued to a name"),
                             (["@roe"], "begins with '@'")):
        run = cli(*args, *[a for name in authors for a in ("--author", name)])
        assert run.code == 1 and message in run.err, run.err
    assert sorted(p.name for p in (soil / "exclusions").iterdir()) == ["E001.yaml", "E002.yaml", "E003.yaml"]


@needs_bibtex
def test_every_author_validate_accepts_compiles_with_bibtex(tmp_path):
    records = [_record("a", authors=["Doe, Jr, John", "{Agents, Tools, and Co, Inc.}", "others"]),
               _record("b", authors=["van Beethoven, Ludwig", "Zoë, Ånne"])]
    bbl = _bibtex_compiles(tmp_path, records)
    assert bbl.count("\\bibitem") == 2 and "et~al." in bbl


@pytest.mark.parametrize(("block", "why"), [({"month": "may", "day": "41"}, "day '41' is no day of may 2019; allowed: 1 to 31"),
                                          ({"month": "2", "day": "29"}, "day '29' is no day of feb 2019; allowed: 1 to 28"),
                                          ({"day": "3"}, "day '3' is given without a month: give month too, or leave day out"),
                                          ({"month": "feb", "day": "28"}, None)])
def test_a_block_day_that_is_no_day_of_its_month_is_refused(soil, cli, block, why):
    """A record's bibtex day of 41 was exported to papers.bib as it was."""
    path = soil / "corpus/papers/smith2019.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["year"] == 2019
    data["bibtex"].update(block)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    check = cli("validate", "--root", soil)
    if why is None:
        assert check.code == 0, check.err
    else:
        assert check.code == 1 and check.err.startswith("corpus/papers/smith2019.yaml:") and f": bibtex.day: {why}\n" in check.err, check.err


@pytest.mark.parametrize("name", ["note = {x}, author", "bad name", "1note", "note}"])
def test_a_block_field_name_bibtex_would_read_otherwise_is_refused(soil, cli, name):
    path = soil / "corpus/papers/smith2019.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["bibtex"][name] = "x"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    check = cli("validate", "--root", soil)
    assert check.code == 1
    assert f"bibtex: {name!r} is not a BibTeX field name: write a letter, then letters, digits, '_' or '-'" in check.err


# ---------------------------------------------------------------------------- kept LaTeX source
HOSTILE_BLOCK = {"type": "misc", "title": "Q&A # of agents: x_i ^ 2 and 100% of $n$ cost $5",
                 "note": "Tom & Jerry #1 with snake_case and a^b", "howpublished": "see \\url{https://a.example/x_y%20z#frag}",
                 "keywords": "rl_agents, q&a"}


def test_a_kept_block_field_is_written_with_every_special_escaped():
    record = _record("raw", title="Q&A # of agents: x_i ^ 2 and 100% of $n$ cost $5", bibtex=dict(HOSTILE_BLOCK))
    text = bibexport.export([record])
    fields = dict(re.findall(r"^  (\w+) = \{(.*)\},$", text, re.MULTILINE))
    for name in ("title", "note", "howpublished", "keywords"):
        assert bare_specials(fields[name]) == [], (name, fields[name])
    assert fields["note"] == "Tom \\& Jerry \\#1 with snake\\_case and a\\^{}b"
    assert fields["howpublished"] == "see \\url{https://a.example/x_y%20z#frag}"  # the URL as written
    assert "$n$" in fields["title"] and "\\$5" in fields["title"]  # math kept; the $ nothing closes escaped
    assert fields["url"] == "https://example.org/raw"


@needs_bibtex
def test_a_kept_block_field_compiles_and_typesets_as_written(tmp_path):
    bbl = _bibtex_compiles(tmp_path, [_record("raw", title="Q&A # of agents: x_i ^ 2 and 100% of $n$ cost $5",
                                     bibtex=dict(HOSTILE_BLOCK))])
    body = bbl.split("\\bibitem{raw}", 1)[1]
    assert bare_specials(body.replace("\\newblock", "")) == [], body


@needs_biber
def test_a_kept_block_field_is_valid_for_biber(tmp_path):
    out = _biber(tmp_path, [_record("raw", title="Q&A # of agents: x_i ^ 2 and 100% of $n$ cost $5",
                                    bibtex=dict(HOSTILE_BLOCK))])
    assert "Tom \\& Jerry \\#1" in out


@needs_biber
@pytest.mark.parametrize("isbn, issn, written", [
    ("ISBN-13: 978-0262033848", "0028-0836 (Print) 1476-4687 (Electronic)", ("978-0262033848", "0028-0836")),
    ("ISBN-10: 0262033844, ISBN-13: 978-0262033848", "1532-4435, 1533-7928", ("0262033844", "1532-4435")),
    ("978-0-262-03384-8 (print), 978-0-262-33737-3 (ebook)", "eISSN 1533-7928", ("978-0-262-03384-8", "1533-7928")),
    ("0-262-03384-4 (v. 1 : alk. paper)", "ISSN 1532-4435", ("0-262-03384-4", "1532-4435")),
    ("978 0 262 03384 8", "1532 4435", ("978-0-262-03384-8", "1532-4435")),
    # run 47: braces and blanks around hyphens made 978---0---262 (em dashes in print)
    ("978{-}0{-}262{-}03384{-}8", "{0028}-{0836}", ("978-0-262-03384-8", "0028-0836")),
    ("978 - 0 - 262 - 03384 - 8", "{{1476-4687}}", ("978-0-262-03384-8", "1476-4687")),
])
def test_an_isbn_or_issn_field_of_several_numbers_is_written_as_its_first_for_biber(tmp_path, isbn, issn, written):
    """Run 45: fields validate accepts (labels, several numbers, qualifiers) were written as they were, and biber, which
    reads the field as one number, called each "Invalid ISBN"."""
    book = _record("book", venue="MIT Press", bibtex={"type": "book", "publisher": "MIT Press", "isbn": isbn})
    paper = _record("paper", venue="Nature", bibtex={"type": "article", "journal": "Nature", "issn": issn})
    _biber(tmp_path, [book, paper])  # no warning
    assert (bibexport.entry_fields(book)[1]["isbn"], bibexport.entry_fields(paper)[1]["issn"]) == written
    items = json.loads(csljson.export([book, paper]))
    assert (items[0]["ISBN"], items[1]["ISSN"]) == written


# ---------------------------------------------------------------------------- quotes and URLs
@pytest.mark.parametrize("text, latex", [
    ('The "Agent" problem', "The {\\textquotedblleft}Agent{\\textquotedblright} problem"),
    ('("quoted")', "({\\textquotedblleft}quoted{\\textquotedblright})"),
    ('see https://x.org/a","x") and', "see \\url{https://x.org/a}{\\textquotedblright},{\\textquotedblright}x{\\textquotedblright}) and"),
    ("(see https://en.wikipedia.org/wiki/Foo_(bar)).", "(see \\url{https://en.wikipedia.org/wiki/Foo_(bar)})."),
    ("at https://x.org/p?a=1&b=%20#top.", "at \\url{https://x.org/p?a=1&b=%20#top}."),
    ("xhttps://not.a.link", "xhttps://not.a.link"),
])
def test_quotes_stay_quotes_and_a_url_ends_where_it_ends(text, latex):
    assert encode_latex(text) == latex
    back = decode_latex(latex)
    assert back.replace("“", '"').replace("”", '"').replace("<", "").replace(">", "") == text


@needs_bibtex
def test_quotes_and_urls_compile(tmp_path):
    bbl = _bibtex_compiles(tmp_path, [_record("q", title='The "Agent" problem at https://x.org/a","x") and (https://y.org/b)')])
    assert "\\url{https://x.org/a}" in bbl and "\\url{https://y.org/b}" in bbl and "''" not in bbl


# ---------------------------------------------------------------------------- only what the record says
@pytest.mark.parametrize("venue", ["unpublished", "Unpublished", ""])
def test_an_entry_without_a_venue_says_nothing_of_one(venue):
    record = _record("nov", venue=venue, bibtex={"type": "misc", "title": "A Title"})
    etype, fields = bibexport.entry_fields(record)
    assert etype == "misc" and "howpublished" not in fields, fields
    assert "unpublished" not in bibexport.export([record]).lower()
    item = json.loads(csljson.export([record]))[0]
    assert "genre" not in item and "unpublished" not in json.dumps(item).lower()


@pytest.mark.parametrize("etype, label, field", [("book", "Book", "publisher"), ("phdthesis", "PhD thesis", "school"),
                                                  ("mastersthesis", "Master's thesis", "school"),
                                                  ("techreport", "Tech Report", "institution"),
                                                  ("manual", "Documentation", "howpublished")])
def test_an_entry_types_label_is_no_publisher_school_or_institution(etype, label, field):
    """Run 45: an imported @book or @phdthesis without its publisher or school got the venue "Book" or "PhD thesis",
    which papers.bib wrote as ``publisher = {Book}`` and ``school = {PhD thesis}`` (bibtex: "PhD thesis, PhD thesis,
    2010")."""
    from masrl.bib.bibimport import import_entries
    from masrl.bib.bibtex import parse as parse_bibtex

    text = f"@{etype}{{b1, title={{A Work}}, author={{Knuth, Donald}}, year={{1997}}, url={{https://e.org/b}}}}\n"
    (paper,) = import_entries(parse_bibtex(text, "b.bib"), "b.bib").papers
    record = _record("b1", venue=paper["venue"], bibtex=paper.get("bibtex"))
    assert record["venue"] == label
    etype_out, fields = bibexport.entry_fields(record)
    assert label not in fields.get(field, "") and label not in bibexport.export([record]), fields
    item = json.loads(csljson.export([record]))[0]
    assert item.get("publisher") != label, item


def test_a_venue_the_record_gives_is_written():
    etype, fields = bibexport.entry_fields(_record("blog", venue="Lab blog post"))
    assert fields["howpublished"] == "Lab blog post"


@pytest.mark.parametrize("depth", [150, 900])
def test_braces_nested_deeper_than_any_title_are_named_not_a_recursion_error(soil, cli, tmp_path, depth):
    """pylatexenc reads braces recursively: 900 levels exhausted Python's stack (a traceback)."""
    title = "{" * depth + "Deep" + "}" * depth
    bib = tmp_path / "deep.bib"
    bib.write_text(f"@misc{{k4,\n  title = {{{title}}},\n  author = {{Doe, Jane}},\n  year = 2026,\n  eprint = {{2605.30001}}\n}}\n")
    run = cli("add", "--root", soil, "--no-fetch", "--bibtex", bib)
    assert run.code == 1 and "Traceback" not in run.err
    assert f"deep.bib:1: title: entry 'k4': title nests braces {depth} levels deep; at most 100" in run.err, run.err
    assert decode_latex(title) == "Deep"  # a record's text is read with its braces dropped (validate reads every record)
    assert decode_latex("{" * 100 + "Deep" + "}" * 100) == "Deep"
