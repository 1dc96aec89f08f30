"""masrl add: duplicates in every identifier form, bulk imports, metadata lookup through a mocked transport."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from masrl.core import clock
from trees import published_only  # noqa: F401 - the published tree only

sys.path.insert(0, str(Path(__file__).resolve().parent / "update"))
from servers import Scripted, serve  # noqa: E402, F401 - local servers in the sources' formats

DBLP_RETAINED = """@article{DBLP:journals/corr/abs-2505-19591,
  author = {Yufan Dang and Chen Qian},
  title = {A Retitled Version},
  journal = {CoRR}, volume = {abs/2505.19591}, year = {2025},
  doi = {10.48550/ARXIV.2505.19591}, eprinttype = {arXiv}, eprint = {2505.19591},
  timestamp = {x}, biburl = {https://dblp.org/x}, bibsource = {dblp}
}
"""


@pytest.mark.parametrize("args", [
    ["--doi", "10.48550/arXiv.2505.19591"],
    ["--arxiv", "arXiv:2505.19591v2"],
    ["--arxiv", "https://arxiv.org/abs/2505.19591"],
    ["--url", "https://arxiv.org/pdf/2505.19591v1.pdf"],
    ["https://doi.org/10.48550/arXiv.2505.19591"],
])
def test_every_form_of_a_retained_arxiv_id_is_refused(survey, cli, args):
    run = cli("add", "--root", survey, *args, "--title", "Another Title", "--author", "Dang, Yufan", "--year", "2025")
    assert run.code == 1
    assert "refused: already retained as corpus/papers/puppeteer.yaml (same arxiv 2505.19591;" in run.err


def test_a_dblp_entry_of_a_retained_paper_is_a_duplicate(survey, cli):
    (survey / "d.bib").write_text(DBLP_RETAINED)
    run = cli("add", "--root", survey, "--bibtex", survey / "d.bib")
    assert run.code == 1
    assert ("d.bib:1: entry 'DBLP:journals/corr/abs-2505-19591' refused: already retained as corpus/papers/puppeteer.yaml "
            "(same arxiv 2505.19591; its title: 'Multi-Agent Collaboration via Evolving Orchestration')") in run.err
    assert "note: d.bib:1: entry 'DBLP:journals/corr/abs-2505-19591': not kept: timestamp, biburl, bibsource" in run.err


def test_skip_invalid_adds_the_rest_and_writes_a_report(survey, cli, tmp_path):
    (survey / "m.bib").write_text(DBLP_RETAINED + """
@misc{good, title={A Brand New Orchestration Study}, author={Roe, Rita}, year={2026}, eprint={2601.00042}, archivePrefix={arXiv}}
@misc{noyear, title={Undated}, author={Roe, Rita}, eprint={2601.00043}, archivePrefix={arXiv}}
""")
    report = tmp_path / "skipped.bib"
    run = cli("add", "--root", survey, "--bibtex", survey / "m.bib", "--skip-invalid", "--report", report)
    assert run.code == 0, run.err
    assert "created corpus/papers/roe2026.yaml" in run.out and f"skipped 2 entries: see {report}" in run.out
    text = report.read_text()
    assert "% m.bib:10: entry noyear was not added:\n%   year: entry 'noyear': needs a four-digit year (year or date), got 'nothing'\n@misc{noyear," in text
    assert "% m.bib:1: entry DBLP:journals/corr/abs-2505-19591 was not added:" in text


def test_every_problem_of_an_entry_is_named_in_one_run_also_those_its_record_would_have(survey, cli, tmp_path):
    """An entry refused at import (an author with no last name) was not checked as a record: its category and year
    were named only once the author was fixed. An eprint of an arXiv id's form that arXiv never gave was dropped
    without a word, and the paper added without it."""
    (survey / "m.bib").write_text("""@misc{c1, title = {Some New Paper on Agents}, author = {Roe, R and , , x}, year = {2031},
  doi = {10.1000/abc}, primaryclass = {cs.ZZ}}
@misc{c2, title = {Another New Paper on Agents}, author = {Poe, P}, year = {2024}, eprint = {9912.12345}, doi = {10.1000/abd}}
""")
    run = cli("add", "--root", survey, "--bibtex", survey / "m.bib")
    assert run.code == 1 and run.err.splitlines() == [
        "m.bib:1: author: entry 'c1': ', , x' has no last name (write \"Last, First\")",
        "m.bib:1: bibtex.primaryclass: entry 'c1': 'cs.ZZ' is not an arXiv category (did you mean 'cs.SY'?)",
        "m.bib:1: year: entry 'c1': 2031 is out of range; allowed: 1950 to 2028",
        "m.bib:3: eprint: entry 'c2': '9912.12345' is not an arXiv id: 9912 is 2099-12, after 01/2027, the latest month an id can name today: no "
        "such id exists yet",
        "masrl: error: 2 of 2 paper(s) cannot be added; nothing was added"], run.err
    report = tmp_path / "skipped.bib"
    assert cli("add", "--root", survey, "--bibtex", survey / "m.bib", "--skip-invalid", "--report", report).code == 0
    assert "%   year: entry 'c1': 2031 is out of range; allowed: 1950 to 2028\n" in report.read_text()
    # a placeholder title or author, a missing id, an eprint of a month that is none: the year is named beside them
    (survey / "n.bib").write_text("""@misc{i3, title={TODO}, author={Doe, Jane}, year={3000}, url={https://example.org/i3}}
@misc{j3, title={Some Real Title}, author={-}, year={3000}, url={https://example.org/j3}}
@misc{a3, title={TODO}, author={-}, year={1066}, eprint={2613.00001}, url={https://example.org/a3}}
@misc{f3, title={TODO}, author={Roe, R}, year={1066}}
""")
    lines = cli("add", "--root", survey, "--bibtex", survey / "n.bib").err.splitlines()
    assert [line.split(": ", 2)[1] + " " + line.split("'")[1] for line in lines[:-1]] == [
        "title i3", "year i3", "author j3", "year j3", "author a3", "eprint a3", "title a3", "year a3", "identifiers f3",
        "title f3", "year f3"], lines
    assert "eprint: entry 'a3': '2613.00001' is not an arXiv id: 13 is not a month" in lines[5], lines
    # a paper the pool holds already: its year and month are named beside the refusal, not after --force
    (survey / "d.bib").write_text("@misc{ex6, title={Another Paper}, author={Babbage, Charles}, year={1800}, "
                                  "eprint={2505.19591}, month={13}}\n")
    lines = cli("add", "--root", survey, "--bibtex", survey / "d.bib").err.splitlines()
    assert lines[0].startswith("d.bib:1: entry 'ex6' refused: already retained as corpus/papers/puppeteer.yaml"), lines
    assert lines[1:3] == ["d.bib:1: bibtex.month: entry 'ex6': '13' is not a month; allowed: 1 to 12, or jan ... dec (a "
                          "month's name or its first three letters)",
                          "d.bib:1: year: entry 'ex6': 1800 is out of range; allowed: 1950 to 2028"], lines
    assert not list((survey / "corpus/papers").glob("po*.yaml")) and not list((survey / "corpus/papers").glob("roe2031*"))


@pytest.mark.parametrize(("written", "mark"), [("Smith, John\\IEEEauthorrefmark{1}", "\\IEEEauthorrefmark"),
                                              ("Doe, Jane\\orcidID{0000-0002-1825-0097}", "\\orcidID"),
                                              ("Roe, Rick$\\star$", "\\star"), ("Ng, Bo\\textdagger", "\\textdagger"),
                                              ("Wu, Ci\\S", "\\S")])
def test_a_footnote_or_orcid_mark_of_a_bibtex_name_is_refused(survey, cli, written, mark):
    """An unknown mark glued its argument to the name: 'Smith, John1', 'Doe, Jane0000-0002-1825-0097', 'Ng, Bo†'."""
    (survey / "m.bib").write_text(f"@misc{{m1, title={{A Paper Title Here}}, author={{{written}}}, year={{2026}}, "
                                  "eprint={2611.04009}}\n")
    run = cli("add", "--root", survey, "--bibtex", survey / "m.bib")
    assert run.code == 1 and f"{mark.lstrip(chr(92))}', a footnote or affiliation mark" in run.err, run.err


@pytest.mark.parametrize("name", ["Curie, Marie†", "Smith, John¹", "Doe, Jane 0000-0002-1825-0097", "Smith, John\\thanks{MIT}"])
def test_a_decoded_name_with_a_footnote_mark_or_an_orcid_is_refused(survey, cli, name):
    run = cli("add", "--root", survey, "--no-fetch", "--arxiv", "2605.00011", "--title", "Orchestrating One", "--author",
              name, "--year", "2026", "--dry-run")
    assert run.code == 1 and "a footnote or affiliation mark or an ORCID" in run.err, run.err


@pytest.mark.parametrize("name", ["Todo, Yosuke", "Yosuke Todo", "Ng, Name", "Ana Title", "Kim Jong - Un", "Ibn · Sina",
                                  "Gore, Al", "Todd, Et", "Anderson, Andrea", "van der Berg, Jan", "O'Neil, Shaq",
                                  "Heath, Jr., Robert W.", "李, 小龙", "Al-Farabi"])
def test_a_real_name_that_holds_a_placeholder_word_is_kept(survey, cli, name):
    """Yosuke Todo is a cryptographer: a placeholder word checked anywhere in a name refused his papers in every path."""
    run = cli("add", "--root", survey, "--no-fetch", "--arxiv", "2605.00011", "--title", "Orchestrating One", "--author",
              name, "--year", "2026", "--dry-run")
    assert run.code == 0, run.err


@pytest.mark.parametrize(("name", "why"), [
    ("Smith1, John", "'Smith1, John' holds 'Smith1', a footnote or affiliation mark glued to a name"),
    ("Jane Doe2", "'Jane Doe2' holds 'Doe2', a footnote or affiliation mark glued to a name"),
    ("Doe, 3", "'Doe, 3' holds '3', digits where a name goes"), ("Team 42", "'Team 42' holds '42', digits where"),
    ("=Roe, Richard", "'=Roe, Richard' begins with '=', which no name does"),
    ("@roe", "'@roe' begins with '@', which no name does"), ("{=Roe Labs}", "'{=Roe Labs}' begins with '='"),
    ("bin.wang@example.org", "'bin.wang@example.org' holds '@': an e-mail address is no name"),  # run 39
    ("Wang, bin.wang@example.org", "'Wang, bin.wang@example.org' holds '@'")])
def test_a_digit_in_a_name_or_a_formula_or_handle_for_a_name_is_refused(survey, cli, name, why):
    """An affiliation's digit glued to a name ('Smith1, John', 'Jane Doe2' stored as 'Doe2, Jane'), a given name of
    digits only and a name beginning with '=' or '@' were accepted as authors."""
    run = cli("add", "--root", survey, "--no-fetch", "--arxiv", "2605.00011", "--title", "Orchestrating One", "--author",
              name, "--year", "2026", "--dry-run")
    assert run.code == 1 and f"command line: authors[0]: {why}" in run.err, run.err


@pytest.mark.parametrize("name", ["Plato", "King, Jr., Martin Luther", "Louis XIV", "Nguyễn Văn A", "O'Brien",
                                  "'t Hooft, Gerard", "{3M Company}", "{Team 42}", "Ibn · Sina"])
def test_a_name_without_digits_or_an_organisation_with_digits_is_kept(survey, cli, name):
    run = cli("add", "--root", survey, "--no-fetch", "--arxiv", "2605.00011", "--title", "Orchestrating One", "--author",
              name, "--year", "2026", "--dry-run")
    assert run.code == 0, run.err


def test_a_digit_glued_to_a_bibtex_name_is_refused_and_a_braced_organisation_keeps_its_digits(survey, cli):
    """'Jane Doe2,3' (an affiliation's marks) was read as 'Jane Doe2, 3' and 'John Smith1' as 'Smith1, John'; an
    organisation in braces with a digit was stored unbraced ('3M Company'), as no person's name may be."""
    (survey / "d.bib").write_text(
        "@misc{d1, title={Digits in names test paper}, author={John Smith1 and Jane Doe2,3 and Kim Lee and @roe}, "
        "year={2020}, url={https://example.org/d1}}\n"
        "@misc{d2, title={Digits in names test paper two}, author={{3M Company} and {Team 42} and Louis XIV and "
        "Nguy{\\~{\\^e}}n V{\\u{a}}n A}, year={2020}, url={https://example.org/d2}}\n")
    run = cli("add", "--root", survey, "--bibtex", survey / "d.bib")
    assert run.code == 1 and run.err.splitlines()[:-1] == [
        "d.bib:1: author: entry 'd1': '@roe' begins with '@', which no name does (a spreadsheet formula, a handle such "
        "as '@roe'): write the name alone",
        "d.bib:1: author: entry 'd1': 'Jane Doe2,3' holds 'Doe2', a footnote or affiliation mark glued to a name: write "
        "the name alone (a person's name holds no digit; an organisation whose name holds one goes in braces, "
        "'{Team 42}')",
        "d.bib:1: author: entry 'd1': 'John Smith1' holds 'Smith1', a footnote or affiliation mark glued to a name: "
        "write the name alone (a person's name holds no digit; an organisation whose name holds one goes in braces, "
        "'{Team 42}')"], run.err
    (survey / "d.bib").write_text((survey / "d.bib").read_text().split("\n", 1)[1])
    run = cli("add", "--root", survey, "--bibtex", survey / "d.bib")
    assert run.code == 0, run.err
    record = yaml.safe_load((survey / "corpus/papers/3mcompany2020.yaml").read_text())
    assert record["authors"] == ["{3M Company}", "{Team 42}", "XIV, Louis", "A, Nguyễn Văn"], record["authors"]


def test_latex_of_a_bibtex_name_is_judged_decoded_and_a_footnote_mark_is_refused(survey, cli):
    """'M{\\"u}ller {\\&} Sons' and 'Ada {(MIT)} Lovelace' were stored as LaTeX source and accepted; 'J\\textsuperscript{1}'
    became 'J1' and 'R.\\thanks{MIT}' 'R.MIT'. 'others' before a name was named only once the other names were fixed."""
    (survey / "x.bib").write_text(
        "@misc{x1, title={A Paper Title Here}, author={Lovelace, Ada and M{\\\"u}ller {\\&} Sons and Ada {(MIT)} Lovelace "
        "and Doe, J\\textsuperscript{1} and Roe, R.\\thanks{MIT} and Doe, Jane$^*$}, year={2026}, eprint={2611.04002}}\n"
        "@misc{o1, title={Another Paper Title Two}, author={Lovelace, Ada and TODO, X and others and Doe, J}, year={2026}, "
        "eprint={2611.04004}}\n")
    lines = cli("add", "--root", survey, "--bibtex", survey / "x.bib").err.splitlines()
    assert lines[:-1] == [
        "x.bib:1: author: entry 'x1': 'Ada (MIT) Lovelace' holds a parenthesis: an affiliation or a note, such as '(MIT)', "
        "is no part of a person's name; write the name alone (an organisation whose name holds one goes in braces)",
        "x.bib:1: author: entry 'x1': 'Doe, J\\\\textsuperscript{1}' holds '\\\\textsuperscript', a footnote or affiliation "
        "mark: write the name alone",
        "x.bib:1: author: entry 'x1': 'Doe, Jane$^*$' holds '$^', a footnote or affiliation mark: write the name alone",
        "x.bib:1: author: entry 'x1': 'Müller & Sons' is not one person's name: '[', ']', ';', '&', '|', '/' and 'et al.' "
        "write several names as text; give each person as an author of their own (an organisation whose name holds "
        "one goes in braces)",
        "x.bib:1: author: entry 'x1': 'Roe, R.\\\\thanks{MIT}' holds '\\\\thanks', a footnote or affiliation mark: write "
        "the name alone",
        "x.bib:2: author: entry 'o1': 'TODO, X' holds a placeholder ('TODO') where the last name goes: write the real name",
        "x.bib:2: author: entry 'o1': 'others' (et al.) stands for the authors not named and ends the list; move it last "
        "(once)"], lines


def test_a_refused_entry_checked_as_a_record_never_refuses_a_good_one(survey, cli, tmp_path):
    """A refused entry is checked as a record for its other problems: its stub (lovelace0.yaml, of a year that is none)
    clashed with the good entry's id, which was refused for a file that does not exist, and --skip-invalid lost it."""
    (survey / "e.bib").write_text(
        "@misc{k1, title={Zebra first title}, author={Lovelace, Ada}, year={2026}, eprint={2611.04001}, archivePrefix={arXiv}}\n"
        "@misc{k2, title={Zebra second different}, author={Lovelace, Ada}, year={20266}, eprint={2611.04001}, "
        "archivePrefix={arXiv}}\n")
    report = tmp_path / "skipped.bib"
    run = cli("add", "--root", survey, "--bibtex", survey / "e.bib", "--skip-invalid", "--report", report)
    assert run.code == 0 and "created corpus/papers/lovelace2026.yaml" in run.out and "skipped 1 entry" in run.out, run.err
    assert "lovelace0" not in run.err + run.out + report.read_text()
    assert "entry 'k2' refused: appears twice in this batch" in run.err


def test_the_skip_report_keeps_every_refused_entry_and_starts_none_of_its_own(survey, cli, tmp_path):
    """A reason quoting an '@' would start an entry in the report (BibTeX has no comments), which adding the fixed
    report then imported; an entry refused for a duplicate key or field had lost its text."""
    (survey / "m.bib").write_text("""
@misc{evil, title={Evil}, author={Roe, Rita}, year={@misc{phantom, title={Phantom}, author={X, Y}, year={2020}}}}
@misc{twice, title={Twice}, author={Roe, Rita}, year={2026}, year={2027}}
@misc{good, title={A Brand New Orchestration Study}, author={Roe, Rita}, year={2026}, eprint={2601.00042}, archivePrefix={arXiv}}
""")
    report = tmp_path / "skipped.bib"
    run = cli("add", "--root", survey, "--bibtex", survey / "m.bib", "--skip-invalid", "--report", report)
    assert run.code == 0, run.err
    text = report.read_text()
    comments = [line for line in text.splitlines() if line.startswith("%")]
    assert comments and not any("@" in line for line in comments), comments
    assert "@misc{twice, title={Twice}, author={Roe, Rita}, year={2026}, year={2027}}" in text
    assert "(no entry text" not in text


@pytest.mark.parametrize("target", ["m.bib", "corpus/papers/c3.yaml", "existing.txt"])
def test_skip_invalid_never_overwrites_a_file_with_its_report(survey, cli, target):
    (survey / "m.bib").write_text(DBLP_RETAINED + "\n@misc{good, title={A Brand New Orchestration Study}, author={Roe, Rita}, "
                                  "year={2026}, eprint={2601.00042}, archivePrefix={arXiv}}\n")
    (survey / "existing.txt").write_text("notes\n")
    before = {p: p.read_bytes() for p in survey.rglob("*") if p.is_file()}
    run = cli("add", "--root", survey, "--bibtex", survey / "m.bib", "--skip-invalid", "--report", survey / target)
    assert run.code == 1
    assert run.err.splitlines()[-1] == (f"masrl: error: --report: {survey / target} exists already; nothing was added. "
                                        "Name a new file with --report PATH")
    assert {p: p.read_bytes() for p in survey.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("written", ["et al.", "Et Al", "et al", "et.al.", "etal", "al., et", "Al., Et", "et. al.", "et~al.",
                                     "{et al.}"])
def test_et_al_as_an_author_is_others_never_a_person_named_al(survey, cli, tmp_path, written):
    """'et al.' was turned 'Last, First' into 'al., et', which no check caught: a record, papers.bib and the site
    named a person 'et al.'. It is BibTeX's 'others', from the command line and from a .bib alike."""
    run = cli("add", "--root", survey, "--no-fetch", "--arxiv", "2605.00011", "--title", "Orchestrating One", "--author",
              "Lovelace, Ada", "--author", written, "--year", "2026", "--dry-run")
    assert run.code == 0 and "authors:\n  - Lovelace, Ada\n  - others\n" in run.out, run.out + run.err
    bib = tmp_path / "e.bib"
    bib.write_text(f"@misc{{e, title={{Orchestrating Two}}, author={{Lovelace, Ada and {written}}}, year={{2026}}, "
                   "eprint={2605.00012}, archivePrefix={arXiv}}\n")
    run = cli("add", "--root", survey, "--bibtex", bib, "--dry-run")
    assert run.code == 0 and "authors:\n  - Lovelace, Ada\n  - others\n" in run.out, run.out + run.err


@pytest.mark.parametrize(("written", "why"), [
    ("Ada Lovelace et.al.", "is not one person's name"), ("Lovelace,et al.", "is not one person's name"),
    ("Lovelace, Ada etal", "is not one person's name"), ("TODO, Ada", "holds a placeholder ('TODO') where the last name goes"),
    ("tbd, Ada", "holds a placeholder ('tbd') where the last name goes"), ("{Kimi Team", "has unbalanced braces"),
    ("Ada Lovelace and others", "'and others' is others, an author of its own"),
    ("Ada TODO", "holds a placeholder ('TODO') where a name goes"), ("Ada ...", "holds a placeholder ('...')"),
    ("Lovelace, Ada ＆ Bob", "is not one person's name"), ("{OpenAI et al.}", "holds 'et al.'"),
])
def test_a_name_that_is_not_one_persons_is_refused_as_written(survey, cli, written, why):
    """Each of these was turned 'Last, First' ('et.al., Ada Lovelace'), repaired ('Kimi Team') or let through ('TODO, Ada')
    and written into a record; it is refused, named as it was written."""
    run = cli("add", "--root", survey, "--no-fetch", "--arxiv", "2605.00011", "--title", "Orchestrating One", "--author",
              "Lovelace, Ada", "--author", written, "--year", "2026", "--dry-run")
    assert run.code == 1 and f"{written!r} " in run.err and why in run.err, run.err
    assert "stored as" not in run.err, run.err


def test_first_last_author_gets_a_warning_with_the_stored_form(survey, cli):
    run = cli("add", "--root", survey, "--arxiv", "2601.00077", "--title", "New", "--author", "Yujie Zhao", "--year", "2026",
              "--no-fetch", "--dry-run")
    assert run.code == 0, run.err
    assert ("warning: --author 'Yujie Zhao' is not written \"Last, First\"; it is stored as 'Zhao, Yujie' "
            "(an organisation goes in braces: '{Yujie Zhao}')") in run.err
    assert "authors:\n  - Zhao, Yujie\n" in run.out


def test_exclude_stores_a_first_last_author_as_add_does(survey, cli):
    run = cli("exclude", "--root", survey, "--title", "Wireless Orchestration", "--arxiv", "2601.00078", "--author",
              "Robert W. Heath Jr.", "--year", "2026", "--stage", "abstract_screen", "--reason", "a prompted pipeline",
              "--reason-class", "X3", "--source", "arXiv", "--query-family", "industrial agent system")
    assert run.code == 0, run.err
    assert ("warning: --author 'Robert W. Heath Jr.' is not written \"Last, First\"; it is stored as 'Heath, Jr., Robert W.' "
            "(an organisation goes in braces: '{Robert W. Heath Jr.}')") in run.err
    (written,) = [p for p in (survey / "exclusions").iterdir() if "Wireless Orchestration" in p.read_text()]
    assert "authors:\n  - Heath, Jr., Robert W.\n" in written.read_text()


ARXIV_ATOM = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title>arXiv Query</title><id>https://arxiv.org/api/x</id><updated>2026-05-12T00:00:00Z</updated>
  <opensearch:totalResults>1</opensearch:totalResults><opensearch:startIndex>0</opensearch:startIndex><opensearch:itemsPerPage>1</opensearch:itemsPerPage>
  <entry>
    <id>http://arxiv.org/abs/2605.08686v1</id>
    <updated>2026-05-11T17:00:00Z</updated><published>2026-05-11T17:00:00Z</published>
    <title>Learning When to Stop: Orchestrator
      Credit for Agent Swarms</title>
    <summary>  We train the stopping decision.
    </summary>
    <author><name>Ada Lovelace</name></author><author><name>Charles Babbage</name></author>
    <arxiv:comment>12 pages</arxiv:comment>
    <link href="http://arxiv.org/abs/2605.08686v1" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/2605.08686v1" rel="related" type="application/pdf"/>
    <arxiv:primary_category term="cs.MA" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.MA" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>
"""


def test_add_by_bare_arxiv_id_looks_up_the_metadata(survey, cli, no_network):
    no_network.get(re.compile(r"https://export\.arxiv\.org/api/query\?.*id_list=2605\.08686.*"),
                   body=ARXIV_ATOM, content_type="application/atom+xml")
    run = cli("add", "--root", survey, "2605.08686", "--dry-run")
    assert run.code == 0, run.err
    out = run.out
    assert "title: 'Learning When to Stop: Orchestrator Credit for Agent Swarms'\n" in out
    assert "authors:\n  - Lovelace, Ada\n  - Babbage, Charles\n" in out and "\nyear: 2026\nvenue: arXiv\n" in out
    assert "abstract: We train the stopping decision.\n" in out and "primaryclass: cs.MA" in out


@pytest.mark.parametrize(("written", "plain"), [
    ("$\\infty$-former: Infinite Memory Transformer", "∞-former: Infinite Memory Transformer"),
    ("H$_2$O: Heavy-Hitter Oracle for Agents", "H_2O: Heavy-Hitter Oracle for Agents"),
    ("\\emph{Learned} Routers at 50% Cost", "Learned Routers at 50% Cost"),
])
def test_an_arxiv_title_written_in_tex_is_read_as_its_text(survey, cli, no_network, written, plain):
    """Run 35: arXiv writes titles in TeX; '$\\infty$-former' was kept as the title, and papers.bib then printed the
    dollars and the backslash ('\\${\\textbackslash}infty\\$-former')."""
    feed = ARXIV_ATOM.replace("""Learning When to Stop: Orchestrator
      Credit for Agent Swarms""", written.replace("&", "&amp;"))
    no_network.get(re.compile(r"https://export\.arxiv\.org/api/query\?.*id_list=2605\.08686.*"), body=feed,
                   content_type="application/atom+xml")
    run = cli("add", "--root", survey, "2605.08686", "--dry-run")
    assert run.code == 0, run.err
    assert yaml.safe_load(run.out.split("\n---", 1)[0] if "\n---" in run.out else run.out)["title"] == plain, run.out
    assert "textbackslash" not in run.out and "\\$" not in run.out


CROSSREF = {"status": "ok", "message-type": "work", "message": {
    "DOI": "10.1145/3605764.3623999", "type": "proceedings-article", "title": ["A Workshop Paper on Agents"],
    "author": [{"given": "Kai", "family": "Greshake", "sequence": "first"}, {"name": "Agents Lab"}],
    "issued": {"date-parts": [[2023, 11, 30]]}, "container-title": ["Proceedings of the 16th ACM Workshop on AISec"],
    "abstract": "<jats:p>Agents are attacked.</jats:p>"}}


def test_add_by_doi_uses_crossref(survey, cli, no_network):
    no_network.get("https://api.crossref.org/works/10.1145/3605764.3623999", json=CROSSREF)
    run = cli("add", "--root", survey, "https://doi.org/10.1145/3605764.3623999", "--dry-run")
    assert run.code == 0, run.err
    assert "authors:\n  - Greshake, Kai\n  - Agents Lab\n" in run.out
    assert "venue: Proceedings of the 16th ACM Workshop on AISec\n" in run.out and "abstract: Agents are attacked.\n" in run.out
    assert "  type: inproceedings\n" in run.out


def test_add_by_doi_keeps_crossrefs_subtitle_in_the_title(survey, cli, no_network):
    """Run 33: `masrl add 10.5555/...` wrote `title: Learning Whom to Call`, the subtitle Crossref sent lost."""
    message = {**CROSSREF["message"], "title": ["Learning Whom to Call"], "subtitle": ["An Orchestrator Trained by Credit"]}
    no_network.get("https://api.crossref.org/works/10.1145/3605764.3623999", json={**CROSSREF, "message": message})
    run = cli("add", "--root", survey, "10.1145/3605764.3623999", "--dry-run")
    assert run.code == 0, run.err
    assert "title: 'Learning Whom to Call: An Orchestrator Trained by Credit'\n" in run.out


OPENREVIEW = {"notes": [{"id": "AbCdEf12Gh", "forum": "AbCdEf12Gh", "pdate": 1769904000000, "content": {
    "title": {"value": "Self-Play for Stopping"}, "authors": {"value": ["Grace Hopper"]},
    "abstract": {"value": "We stop."}, "venue": {"value": "ICLR 2026 Poster"}}}], "count": 1}


def test_add_by_openreview_url_uses_the_openreview_api(survey, cli, no_network):
    no_network.get(re.compile(r"https://api2\.openreview\.net/notes\?id=AbCdEf12Gh"), json=OPENREVIEW)
    run = cli("add", "--root", survey, "https://openreview.net/forum?id=AbCdEf12Gh&noteId=x", "--dry-run")
    assert run.code == 0, run.err
    assert "title: Self-Play for Stopping\n" in run.out and "venue: ICLR 2026 Poster\n" in run.out and "year: 2026\n" in run.out


ACL_BIB = b"""@inproceedings{lovelace-2024-orchestra,
    title = "Orchestra of Agents",
    author = "Lovelace, Ada and Babbage, Charles",
    booktitle = "Proceedings of the 62nd Annual Meeting of the ACL",
    year = "2024",
    doi = "10.18653/v1/2024.acl-long.1",
}
"""
LOOKUPS = {  # scheme: (variable, path served, what add is given, content type, answer, a line of the record)
    "arxiv": ("MASRL_ARXIV_API", "/api/query", "2605.08686", "application/atom+xml; charset=UTF-8", ARXIV_ATOM.encode(),
              "abstract: We train the stopping decision.\n"),
    "doi": ("MASRL_CROSSREF_API", "/works", "https://doi.org/10.1145/3605764.3623999", "application/json",
            json.dumps(CROSSREF).encode(), "venue: Proceedings of the 16th ACM Workshop on AISec\n"),
    "openreview": ("MASRL_OPENREVIEW_API", "/notes", "https://openreview.net/forum?id=AbCdEf12Gh", "application/json",
                   json.dumps(OPENREVIEW).encode(), "venue: ICLR 2026 Poster\n"),
    "acl": ("MASRL_ACL_URL", "", "https://aclanthology.org/2024.acl-long.1/", "text/plain; charset=utf-8", ACL_BIB,
            "venue: Proceedings of the 62nd Annual Meeting of the ACL\n"),
}


@pytest.mark.parametrize("scheme", sorted(LOOKUPS))
def test_a_lookup_asks_the_address_its_environment_variable_gives(survey, cli, serve, monkeypatch, scheme):
    """The variables `masrl update search` reads move `masrl add`'s lookups too (a mirror, a local stand-in); an
    answer of another media type is refused by name, and an address that is not a URL is named before anything is sent."""
    variable, path, given, kind, body, line = LOOKUPS[scheme]
    served = serve(Scripted(lambda p, params: (200, kind, body)))
    monkeypatch.setenv(variable, served.url + path)
    run = cli("add", "--root", survey, given, "--dry-run")
    assert run.code == 0, run.err
    assert line in run.out and len(served.log) == 1
    html = serve(Scripted(lambda p, params: (200, "text/html", body)))
    monkeypatch.setenv(variable, html.url + path)
    run = cli("add", "--root", survey, given, "--dry-run")
    assert run.code == 1 and run.err.startswith(f"masrl: error: cannot look up {scheme} ")
    assert f"{html.url.removeprefix('http://')} answered 'text/html' where its documented format is " in run.err
    monkeypatch.setenv(variable, " ")  # set, to blanks: refused as update rounds refuse it, never the public address
    run = cli("add", "--root", survey, given, "--dry-run")
    assert run.code == 1 and f": {variable}: " in run.err and "is not a URL (it holds a space)" in run.err, run.err
    monkeypatch.setenv(variable, "not-a-url")
    run = cli("add", "--root", survey, given, "--dry-run")
    assert run.code == 1 and run.err.endswith(f": {variable}: 'not-a-url' is not a URL (it must start with https:// or "
                                              "http://); nothing was looked up\n"), run.err


@pytest.mark.parametrize("variable", ["MASRL_OPENREVIEW_API", "MASRL_OPENREVIEW_V1_API"])
def test_openreview_moved_to_a_stand_in_asks_no_other_server(survey, cli, serve, monkeypatch, variable):
    """Either OpenReview API moved alone is the only one asked (the HTTP mock fails any other request)."""
    served = serve(Scripted(lambda p, params: (200, "application/json", b'{"notes": [], "count": 0}')))
    monkeypatch.setenv(variable, f"{served.url}/notes")
    run = cli("add", "--root", survey, "https://openreview.net/forum?id=AbCdEf12Gh", "--dry-run")
    assert run.code == 1 and "has no paper openreview AbCdEf12Gh" in run.err
    assert [params for _, params in served.log] == [{"id": "AbCdEf12Gh"}]


@pytest.mark.parametrize(("kind", "said"), [
    ("text/html", "answered HTTP 404 with an HTML page, not the source's own \"not found\" (a wrong address?)"),
    ("application/json", "Crossref has no paper doi 10.1145/3605764.3623999")])
def test_a_not_found_page_of_another_server_is_not_the_sources_not_found(survey, cli, serve, monkeypatch, kind, said):
    served = serve(Scripted(lambda p, params: (404, kind, b'<html>Not Found</html>' if kind == "text/html" else b'{}')))
    monkeypatch.setenv("MASRL_CROSSREF_API", f"{served.url}/works")
    run = cli("add", "--root", survey, "https://doi.org/10.1145/3605764.3623999", "--dry-run")
    assert run.code == 1 and said in run.err, run.err


def test_a_content_type_sent_twice_alike_is_that_type(survey, cli, serve, monkeypatch):
    served = serve(Scripted(lambda p, params: (200, "application/json", json.dumps(CROSSREF).encode(),
                                               {"Content-Type": "application/json"})))
    monkeypatch.setenv("MASRL_CROSSREF_API", f"{served.url}/works")
    run = cli("add", "--root", survey, "https://doi.org/10.1145/3605764.3623999", "--dry-run")
    assert run.code == 0, run.err


def test_a_key_a_release_froze_is_not_given_to_a_new_paper_even_once_its_record_is_gone(survey, cli):
    (survey / "corpus/papers/greshake2023.yaml").unlink()
    run = cli("add", "--root", survey, "--no-fetch", "--title", "A Wholly Invented Paper on Agents", "--author",
              "Greshake, Kai", "--year", "2023", "--arxiv", "2311.07777")
    assert run.code == 0, run.err
    assert "created corpus/papers/greshake2023b.yaml" in run.out


def test_no_network_is_one_line_naming_the_flags(survey, cli):
    run = cli("add", "--root", survey, "2605.08686")
    assert run.code == 1
    assert run.err == ("masrl: error: cannot reach export.arxiv.org to look up arxiv 2605.08686 (no network?); give the "
                       "metadata by hand: --title T --author \"Last, First\" (repeat) --year Y [--venue V], or add --no-fetch\n")


def test_no_fetch_never_touches_the_network(survey, cli, no_network):
    run = cli("add", "--root", survey, "2605.08686", "--no-fetch")
    assert run.code == 2 and "masrl add needs --title, --author, --year (--no-fetch: nothing was looked up)" in run.err
    assert len(no_network.calls) == 0
    # what is given is judged in the same run as what is missing
    run = cli("add", "--root", survey, "2605.08686", "--no-fetch", "--title", "Ok title", "--year", "99999", "--venue", "V\x1b[2J")
    assert run.code == 2 and run.err.splitlines()[-1] == (
        "masrl: error: masrl add needs --author (--no-fetch: nothing was looked up); and --year: 99999 is out of range; "
        f"allowed: 1950 to {clock.today().year + 1}; and --venue: 'V\\x1b[2J' contains a character that is invisible or "
        "changes how the text shows (U+001B ESCAPE, a control character); remove it"), run.err


def test_a_taken_key_is_named_as_taken(survey, cli):
    run = cli("add", "--root", survey, "--no-fetch", "--arxiv", "2611.07777", "--title", "Zed Teams", "--author", "Zed, Q",
              "--year", "2026", "--key", "c3")
    assert run.code == 1 and run.err.splitlines()[-1] == (
        "masrl: error: --key c3: the key is taken by corpus/papers/c3.yaml; choose another (or leave --key out: zed2026)")
    assert not (survey / "corpus/papers/zed2026.yaml").exists()


def test_a_key_another_record_keeps_as_its_bibtex_key_is_taken(survey, cli, tmp_path):
    """Run 33: a record imported with another author's key kept it as its BibTeX key (park2021, alias lee2021); a
    paper by Lee of 2021 was then refused, 'lee2021' "also the bibtex_key of" a file that does not exist."""
    bib = tmp_path / "k.bib"
    bib.write_text("@misc{lee2021, author={Park, Ji}, title={A Paper Whose Old Key Names Another Author}, year={2021},"
                   " url={https://example.org/k1}}\n", encoding="utf-8")
    assert cli("add", "--root", survey, "--bibtex", bib).code == 0
    assert "bibtex_key: lee2021" in (survey / "corpus/papers/park2021.yaml").read_text(encoding="utf-8")
    run = cli("add", "--root", survey, "--no-fetch", "--url", "https://example.org/k9", "--title",
              "Lee's own paper about something else entirely", "--author", "Lee, Bo", "--year", "2021")
    assert run.code == 0, run.err
    assert "created corpus/papers/lee2021b.yaml" in run.out
    run = cli("add", "--root", survey, "--no-fetch", "--url", "https://example.org/k8", "--title",
              "Another paper of Lee on something else", "--author", "Lee, Bo", "--year", "2021", "--key", "Lee2021")
    assert run.code == 1 and run.err.splitlines()[-1] == (
        "masrl: error: --key Lee2021: the key is taken by corpus/papers/park2021.yaml (its BibTeX key); choose another "
        "(or leave --key out: lee2021c)")
    checked = cli("validate", "--root", survey)  # the new records are untagged, and nothing else
    assert "bibtex_key" not in checked.err and "untagged" in checked.err


@pytest.mark.parametrize("title, author", [("Πολυπρακτορικά Συστήματα Μάθησης", "Παπαδόπουλος, Νίκος"),
                                           ("Űrhajó routing for agents", "Szűcs, Péter"), ("Routing agents in Ħal Far", "Borg, Ann")])
def test_a_title_in_letters_latex_has_no_macro_for_is_added_and_exported_as_written(survey, cli, title, author):
    run = cli("add", "--root", survey, "--no-fetch", "--arxiv", "2612.00001", "--title", title, "--author", author, "--year", "2026")
    assert run.code == 0, run.err  # its own BibTeX reads back as the title (no refusal of masrl's own output)
    (path,) = [p for p in (survey / "corpus/papers").glob("*.yaml") if "2612.00001" in p.read_text()]
    from masrl.bib.latex import decode_latex

    record = yaml.safe_load(path.read_text())
    assert decode_latex(record["bibtex"]["title"]) == title


def test_the_report_of_skipped_entries_carries_the_macros_and_containers_they_use(survey, cli, tmp_path):
    """An entry using an @string macro, or inheriting from a crossref'd container, could not be added again from the
    report its header says to fix and add: the macro was undefined, the inherited year and booktitle gone."""
    source = tmp_path / "q12.bib"
    source.write_text("@string{jsoil = {Journal of Soil}}\n"
                      "@article{m1, title={Macro user paper}, author={Smith, K.}, journal=jsoil, year={in press}, "
                      "eprint={2605.00021}}\n"
                      "@inproceedings{m2, title={Crossref child paper}, author={Smith, K.}, crossref={conf21}, "
                      "eprint={2605.00022}, month={Juno}}\n"
                      "@proceedings{conf21, title={Proc. Soil 2026}, booktitle={Proc. Soil 2026}, year=2026}\n",
                      encoding="utf-8")
    report = tmp_path / "r.bib"
    run = cli("add", "--root", survey, "--bibtex", source, "--skip-invalid", "--report", report)
    assert run.code == 0 and "skipped 2 entries" in run.out, run.err
    text = report.read_text(encoding="utf-8")
    assert "@string{jsoil = {Journal of Soil}}" in text and "@proceedings{conf21," in text
    report.write_text(text.replace("in press", "2026").replace("Juno", "June"), encoding="utf-8")
    run = cli("add", "--root", survey, "--bibtex", report, "--dry-run")
    assert run.code == 0 and run.out.count("# would write corpus/papers/") == 2, run.err
    assert "venue: Journal of Soil" in run.out and "venue: Proc. Soil 2026" in run.out


def test_a_bad_character_in_a_links_query_is_located_and_named_once(survey, cli, tmp_path):
    """The link is shown cut before its query ('https://example.org/h2?…'), which hid where the '"' was; and the same
    problem was named twice, as bibtex.url and as url."""
    source = tmp_path / "u.bib"
    source.write_text('@misc{u1, title={A paper with a bad link}, author={Doe, Jane}, year={2026}, '
                      'url={https://example.org/h2?a=1&b="x"}}\n', encoding="utf-8")
    lines = cli("add", "--root", survey, "--bibtex", source).err.splitlines()
    assert lines == ["u.bib:1: url: entry 'u1': 'https://example.org/h2?…' contains '\"' (U+0022) at character 30 "
                     "(in its query), a character that ends a Markdown link or an HTML attribute; percent-encode it (%22)",
                     "masrl: error: 1 of 1 paper(s) cannot be added; nothing was added"], lines


def test_a_bad_character_of_a_title_with_markup_is_named_once(survey, cli, tmp_path):
    """'Evil {RL} agents' + U+202E was named twice, as title and as bibtex.title, since the two quote it differently."""
    source = tmp_path / "g.bib"
    source.write_text("@article{bad5, title = {Evil {RL} agents \u202e}, author = {Zed, Zack}, journal = {J}, "
                      "year = {2026}, eprint = {2605.00031}}\n", encoding="utf-8")
    lines = cli("add", "--root", survey, "--bibtex", source).err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("g.bib:1: title: entry 'bad5': 'Evil RL agents \\u202e' contains"), lines


def test_a_title_written_in_tex_is_stored_as_its_text_and_a_dollar_amount_is_kept(survey, cli):
    """Run 40: --title with TeX was stored as written (the site showed $\\alpha$, papers.bib typeset the markup), though
    an arXiv title with the same TeX became α."""
    run = cli("add", "--root", survey, "--no-fetch", "--url", "https://example.org/tex", "--title",
              "Scaling $\\alpha$-Nets to $O(n)$ with \\textbf{Bold} {CNN}s", "--author", "Todo, Yosuke", "--year", "2024")
    assert run.code == 0, run.err
    assert "title: Scaling α-Nets to O(n) with Bold CNNs\n" in (survey / "corpus/papers/todo2024.yaml").read_text(encoding="utf-8")
    assert "is written in TeX; it is stored as the text 'Scaling α-Nets to O(n) with Bold CNNs'" in run.err
    math = cli("add", "--root", survey, "--no-fetch", "--url", "https://example.org/kmeans", "--title",
               "The $k$-means view of CO$_2$ in soils", "--author", "Smith, Ann", "--year", "2024")  # run 41: no backslash
    assert math.code == 0 and "stored as the text 'The k-means view of CO_2 in soils'" in math.err, math.err
    plain = cli("add", "--root", survey, "--no-fetch", "--url", "https://example.org/dollar", "--title",
                "The $100 Agent and $5 Tools", "--author", "Roe, Richard", "--year", "2024")
    assert plain.code == 0 and "TeX" not in plain.err, plain.err
    assert "title: The $100 Agent and $5 Tools\n" in (survey / "corpus/papers/roe2024.yaml").read_text(encoding="utf-8")


def test_an_author_written_in_bibtex_markup_is_stored_as_its_text(survey, cli):
    """Run 36: --author 'D{\\"u}rst, Martin' was stored as written (the README showed Martin D{\\"u}rst, papers.bib
    typeset the braces and the backslash) though the key was durst2024."""
    run = cli("add", "--root", survey, "--no-fetch", "--url", "https://example.org/durst", "--title", "Name with braces",
              "--author", 'D{\\"u}rst, Martin', "--author", "{AT\\&T Labs}", "--year", "2024")
    assert run.code == 0, run.err
    text = (survey / "corpus/papers/durst2024.yaml").read_text(encoding="utf-8")
    assert "authors:\n  - Dürst, Martin\n  - '{AT&T Labs}'\n" in text
    assert "is written in BibTeX's markup; it is stored as 'Dürst, Martin'" in run.err
    tie = cli("add", "--root", survey, "--no-fetch", "--url", "https://example.org/tie", "--title", "Paper on soils",
              "--author", "Smith, J.~R.", "--year", "2024")  # run 37: a tie was kept, papers.bib printed a tilde
    assert tie.code == 0, tie.err
    assert "authors:\n  - Smith, J. R.\n" in (survey / "corpus/papers/smith2024.yaml").read_text(encoding="utf-8")
