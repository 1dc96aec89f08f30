"""BibTeX/BibLaTeX as real tools export it: fields kept or named, blocks named, every problem at once."""

from __future__ import annotations

import pytest

from masrl.bib import bibimport, bibtex


def papers(text: str):
    result = bibimport.import_entries(bibtex.parse(text, "in.bib"), "in.bib")
    return result, {p["entry_key"]: p for p in result.papers}


def test_biblatex_date_eprinttype_journaltitle_and_month():
    result, got = papers("""@article{zotero,
  title = {Some Title about {LLMs}},
  author = {Doe, Jane and van Beethoven, Ludwig and Doe, Jr., John and others},
  date = {2025-09-02},
  journaltitle = {Journal of Agents},
  eprint = {2509.00001}, eprinttype = {arXiv}, eprintclass = {cs.AI},
}
""")
    paper = got["zotero"]
    assert paper["year"] == 2025 and paper["venue"] == "Journal of Agents"
    assert paper["identifiers"] == {"arxiv": "2509.00001"}
    assert paper["authors"] == ["Doe, Jane", "van Beethoven, Ludwig", "Doe, Jr., John", "others"]
    assert paper["bibtex"] == {"type": "article", "title": "Some Title about {LLMs}", "journal": "Journal of Agents",
                               "eprint": "2509.00001", "archiveprefix": "arXiv", "eprintclass": "cs.AI",
                               "year": "2025", "month": "sep"}
    assert [str(n) for n in result.notes] == [
        "in.bib:1: entry 'zotero': date '2025-09-02' kept as year 2025, month sep (the day/range is not kept)"]


def test_dblp_corr_entry_gives_the_arxiv_id_and_names_what_is_not_kept():
    result, got = papers("""@article{DBLP:journals/corr/abs-2307-07924,
  author = {Chen Qian and Xin Cong},
  title = {Some Title},
  journal = {CoRR}, volume = {abs/2307.07924}, year = {2023},
  url = {https://doi.org/10.48550/arXiv.2307.07924}, doi = {10.48550/ARXIV.2307.07924},
  eprinttype = {arXiv}, eprint = {2307.07924},
  timestamp = {Tue, 01 Aug 2023}, biburl = {https://dblp.org/rec/x.bib}, bibsource = {dblp}
}""")
    paper = got["DBLP:journals/corr/abs-2307-07924"]
    assert paper["identifiers"] == {"arxiv": "2307.07924"} and paper["venue"] == "arXiv"
    assert paper["authors"] == ["Qian, Chen", "Cong, Xin"]
    assert "in.bib:1: entry 'DBLP:journals/corr/abs-2307-07924': not kept: timestamp, biburl, bibsource (bookkeeping of the exporting tool)" in [str(n) for n in result.notes]


def test_mendeleys_arxivid_is_the_arxiv_id_and_not_kept_as_a_field():
    """Run 38: Mendeley's arxivId was kept as a field biber's data model refuses, and an entry with no eprint
    beside it had no arXiv id (so a round did not know it)."""
    result, got = papers("""@article{Brown2020,
  author = {Brown, Tom}, title = {Language Models are Few-Shot Learners}, year = {2020},
  journal = {arXiv}, arxivId = {2005.14165}, url = {https://example.org/gpt3}
}
@article{Bad2020, author = {Bad, Al}, title = {Other}, year = {2020}, arxivId = {2005.141}, url = {https://e.org/x}}
@article{Two2020, author = {Two, Al}, title = {Other Two}, year = {2020}, eprint = {2005.14165}, arxivId = {2101.00001}}""")
    paper = got["Brown2020"]
    assert paper["identifiers"]["arxiv"] == "2005.14165" and "arxivid" not in paper["bibtex"]
    assert "in.bib:1: entry 'Brown2020': arxivid 2005.14165 read as the arXiv id (papers.bib writes it as eprint)" in [
        str(n) for n in result.notes]
    assert "Bad2020" not in got and "Two2020" not in got
    refused = {key: " ".join(str(p) for p in problems) for key, _, problems in result.refused}
    assert "arxivid" in refused["Bad2020"] and "two different arxiv ids" in refused["Two2020"], refused


def test_an_escaped_character_of_a_doi_or_url_is_the_character():
    """DBLP writes a DOI's ``_`` as ``\\_``: the id, its link and the kept block hold ``_`` itself."""
    _, got = papers(r"""@inproceedings{DBLP:conf/eccv/X20,
  author = {Poe, Ed}, title = {Orchestrated Agents}, booktitle = {ECCV}, year = {2020},
  doi = {10.1007/978-3-030-58452-8\_13}, url = {https://doi.org/10.1007/978-3-030-58452-8\_13},
  note = {code at \url{https://example.org/a\_b\%20c}}
}""")
    paper = got["DBLP:conf/eccv/X20"]
    assert paper["identifiers"] == {"doi": "10.1007/978-3-030-58452-8_13"}
    assert (paper["bibtex"]["doi"], paper["bibtex"]["url"]) == ("10.1007/978-3-030-58452-8_13",
                                                                "https://doi.org/10.1007/978-3-030-58452-8_13")

def test_semantic_scholar_and_google_scholar_arxiv_forms():
    _, got = papers("""@article{s2, title={A}, author={Doe, J.}, year={2024}, journal={ArXiv}, volume={abs/2401.00001}}
@article{gs, title={B}, author={Doe, J.}, year={2024}, journal={arXiv preprint arXiv:2401.00002}}
@misc{prefix, title={C}, author={Doe, J.}, year={2024}, eprint={arXiv:2401.00003}}
@misc{old, title={D}, author={Doe, J.}, year={2005}, eprint={cs/0506042}, archivePrefix={arXiv}}""")
    assert {k: p["identifiers"] for k, p in got.items()} == {
        "s2": {"arxiv": "2401.00001"}, "gs": {"arxiv": "2401.00002"}, "prefix": {"arxiv": "2401.00003"},
        "old": {"arxiv": "cs/0506042"}}


def test_crossref_inherits_and_the_container_is_not_a_paper():
    result, got = papers("""@inproceedings{child, title={Paper}, author={Doe, Jane}, crossref={conf}, pages={1--9},
  url={https://example.org/p}}
@proceedings{conf, title={Proceedings of the Agents Conference}, editor={Roe, Rita}, year={2024}, publisher={ACM}}""")
    assert list(got) == ["child"]
    block = got["child"]["bibtex"]
    assert block["booktitle"] == "Proceedings of the Agents Conference" and block["year"] == "2024" and block["publisher"] == "ACM"
    assert "crossref" not in block and got["child"]["venue"] == "Proceedings of the Agents Conference"
    notes = [str(n) for n in result.notes]
    assert "in.bib:1: entry 'child': crossref 'conf' resolved: inherited booktitle (the container's title), year, publisher, editor" in notes
    assert ("in.bib:3: not imported: entry 'conf' (@proceedings) is a container (crossref'd by child), not a paper; "
            "its fields are inherited by the entries that crossref it") in notes


def test_string_macros_and_concatenation_are_expanded_undefined_ones_refused():
    result, got = papers("""@STRING{ nice = "Nice Journal" }
@STRING ( jean={Jean} )
@STRING{cesar = {C\\'esar}}
@article{ok, author = jean # " " # cesar, title = {T}, year = 2013, month = jan, journal = nice, doi = {10.1234/abc}}
@article{bad, author = {Doe, J.}, title = {T2} # undefinedmacro, year = 2013, doi = {10.1234/abd}}""")
    assert got["ok"]["authors"] == ["César, Jean"] and got["ok"]["venue"] == "Nice Journal"
    assert got["ok"]["bibtex"]["month"] == "jan"
    assert [str(p) for _, _, ps in result.refused for p in ps] == [
        "in.bib:5: title: entry 'bad': @string macro 'undefinedmacro' is not defined before it is used in this file "
        "(define it with an @string above its first use, or write the value in braces)"]
    assert "in.bib:1: not imported: @string nice (a macro, expanded where entries use it)" in [str(n) for n in result.notes]


def test_a_string_made_of_a_macro_defined_later_and_a_crossref_cycle_are_refused():
    """BibTeX reads a macro where it is used: an @string using one defined below it holds no title (the macro's name
    had become the text); an entry's crossref chain that comes back to it inherits from no container (biber:
    "circular inheritance"; the entries had taken each other's titles for venues)."""
    result, got = papers("""@string{a = b # " agents"}
@string{b = "Orchestration"}
@misc{uses, title = a, author = {Roe, R}, year = 2024, doi = {10.5555/u}}
@inproceedings{p, title = {P}, author = {Pe, P}, year = 2024, crossref = {q}, doi = {10.5555/p}}
@inproceedings{q, title = {Q}, author = {Qu, Q}, year = 2024, crossref = {p}, doi = {10.5555/q}}
@inproceedings{me, title = {Me}, author = {Me, M}, year = 2024, crossref = {me}, doi = {10.5555/me}}""")
    assert got == {}
    said = [str(p) for _, _, ps in result.refused for p in ps]
    assert ("in.bib:3: title: entry 'uses': @string macro 'b' is not defined before it is used in this file (define it "
            "with an @string above its first use, or write the value in braces)") in said
    for line, key, chain, back in ((4, "p", "p -> q -> p", "q"), (5, "q", "q -> p -> q", "p"), (6, "me", "me -> me", "me")):
        assert (f"in.bib:{line}: crossref: entry '{key}': crossref '{back}' leads back to '{key}' ({chain}): an entry "
                "inherits from a container, never from itself; point it at the container") in said, said


def test_corporate_author_stays_one_name():
    _, got = papers("@misc{c, title={T}, author={{Agents and Tools Lab, Inc.} and Doe, Jane}, year={2025}, url={https://x.org}}")
    assert got["c"]["authors"] == ["{Agents and Tools Lab, Inc.}", "Doe, Jane"]
    assert bibtex.display_name("{Agents and Tools Lab, Inc.}") == "Agents and Tools Lab, Inc."
    assert bibtex.encode_author("{Agents and Tools Lab, Inc.}") == "{Agents and Tools Lab, Inc.}"


def test_every_problem_of_every_entry_with_key_and_line():
    result, got = papers("""@wrong{a, author={x}}

@article{b, title={Only a title}}
@article{c, title={Fine}, author={Doe, J.}, year={2020}, eprint={2001.00001}, archivePrefix={arXiv},
  url={https://arxiv.org/abs/2002.00002}}
@article{d, title={Good}, author={Doe, J.}, year={2020}, doi={10.1/x}}
""")
    problems = sorted(str(p) for _, _, ps in result.refused for p in ps)
    assert len(problems) == 9 and sorted(k for k, _, _ in result.refused) == ["a", "b", "c", "d"]
    text = "\n".join(problems)
    for expected in (
        "in.bib:1: entry 'a': entry type @wrong is not a BibTeX or BibLaTeX type",
        "in.bib:1: title: entry 'a': has no title",
        "in.bib:1: year: entry 'a': needs a four-digit year (year or date), got 'nothing'",
        "in.bib:3: author: entry 'b': has no author",
        "in.bib:3: identifiers: entry 'b': has no identifier: give eprint (arXiv id), doi, or url",
        "in.bib:4: identifiers: entry 'c': names two different arxiv ids, 2001.00001 and 2002.00002: which paper is it?",
        "in.bib:6: doi: entry 'd': '10.1/x' is not a valid DOI",
    ):
        assert expected in text, expected
    assert got == {}


def test_an_entry_bibtex_itself_cannot_read_is_refused_by_name():
    """BibTeX counts every brace, also one after a backslash: a value bibtexparser reads as
    balanced but BibTeX does not is refused, with the field and the rule."""
    from masrl.bib.bibtex import bibtex_balanced, parse

    text = ("@misc{hostile, title = {A \\{ b \\\\{\\} c}, author = {Doe, Jane}, year = {2025}}\n"
            "@misc{fine, title = {A {B} c \\textbraceleft{} d}, author = {Doe, John}, year = {2025}}\n")
    parsed = parse(text, "x.bib")
    assert [e.key for e in parsed.entries] == ["fine"]
    assert [(p.line, p.field, p.message) for p in parsed.problems] == [(
        1, "title", "BibTeX counts every brace, also one after a backslash: 'A \\\\{ b \\\\\\\\{\\\\} c' is unbalanced as "
                    "BibTeX reads it, so BibTeX cannot read this entry; write \\textbraceleft{} or \\textbraceright{} "
                    "for a literal brace")]
    assert bibtex_balanced("a {b} \\{c\\}") and not bibtex_balanced("a \\{") and not bibtex_balanced("}{")


def test_an_entry_refused_for_what_validate_refuses_names_it_once():
    result, got = papers("""@article{a, doi={10.5555/b.1}, title={Orchestrator One}, author={, Ada}, year=2026}
@article{b, doi={10.5555/b.2}, title={Delegation Two}, author={Lovelace, ...}, year=2026}
@article{c, doi={10.5555/b.3}, title={Routing Three}, author={Hopper, Grace}, date={2026-02-30}}
@article{d, doi={10.5555/b.4}, title={Routing Four}, author={Hopper, Grace}, date={2026-13}}
@article{e, doi={10.5555/b.5}, title={Routing Five}, author={Robert W. Heath Jr. and Martin Luther King III}, date={2026-02-28}}
""")
    assert {key: [str(p) for p in found] for key, _line, found in result.refused} == {
        "a": ["in.bib:1: author: entry 'a': ', Ada' has no last name (write \"Last, First\")"],
        "b": ["in.bib:2: author: entry 'b': 'Lovelace, ...' holds a placeholder ('...') where a name goes: write the real name"],
        "c": ["in.bib:3: date: entry 'c': date '2026-02-30' names no day of the calendar (YYYY[-MM[-DD]])"],
        "d": ["in.bib:4: date: entry 'd': date '2026-13' names no day of the calendar (YYYY[-MM[-DD]])"]}
    assert got["e"]["authors"] == ["Heath, Jr., Robert W.", "King, III, Martin Luther"] and got["e"]["year"] == 2026


def test_a_year_month_or_day_the_date_contradicts_is_refused_and_an_agreeing_one_is_kept_from_one_field():
    """year={2020} with date={2021-01-01} was noted "date '2021-01-01' kept as year 2021, month jan" and stored as year
    2020, month jan, a date neither field gave; a month the date contradicted was kept without a word."""
    result, got = papers("""@misc{y8, author={Roe, Richard}, title={Year quirk eight}, year={2020}, date={2021-01-01}, doi={10.5555/y.8}}
@misc{m1, author={Roe, Richard}, title={Month quirk one}, year={2020}, month={may}, date={2020-01-03}, doi={10.5555/m.1}}
@misc{d1, author={Roe, Richard}, title={Day quirk one}, date={2020-02-03}, day={4}, doi={10.5555/d.1}}
@misc{g1, author={Roe, Richard}, title={Good one}, year={2020}, date={2020-03-04}, doi={10.5555/g.1}}
@misc{g2, author={Roe, Richard}, title={Good two}, year={{2020}}, month={March}, date={2020-03-04/2020-03-06}, doi={10.5555/g.2}}
@misc{g3, author={Roe, Richard}, title={Good three}, month={may}, date={2020}, doi={10.5555/g.3}}
@misc{g4, author={Roe, Richard}, title={Good four}, year={2020}, date={2020-03-04}, day={04}, doi={10.5555/g.4}}
""")
    assert {key: [str(p) for p in found] for key, _line, found in result.refused} == {
        "y8": ["in.bib:1: date: entry 'y8': year '2020' and date '2021-01-01' disagree: which is the paper's? write one of "
               "them (or the same year in both)"],
        "m1": ["in.bib:2: date: entry 'm1': month 'may' and date '2020-01-03' disagree: which is the paper's? write one of "
               "them (or the same month in both)"],
        "d1": ["in.bib:3: date: entry 'd1': day '4' and date '2020-02-03' disagree: which is the paper's? write one of "
               "them (or the same day in both)"]}
    assert {key: (p["year"], p["bibtex"].get("year"), p["bibtex"].get("month")) for key, p in got.items()} == {
        "g1": (2020, "2020", "mar"), "g2": (2020, "2020", "mar"), "g3": (2020, "2020", "may"), "g4": (2020, "2020", "mar")}
    assert [str(n) for n in result.notes] == [
        "in.bib:4: entry 'g1': date '2020-03-04' kept as year 2020, month mar (the day/range is not kept)",
        "in.bib:5: entry 'g2': date '2020-03-04/2020-03-06' kept as year 2020, month mar (the day/range is not kept)",
        "in.bib:7: entry 'g4': date '2020-03-04' kept as year 2020, month mar (the day/range is not kept)"]


def test_a_day_that_is_no_day_of_its_month_or_has_no_month_is_refused_as_a_date_of_none_is():
    """day={41} was kept and exported (@misc{..., month={may}, day={41}}), while date={2020-02-30} was refused."""
    result, got = papers("""@misc{a, author={Roe, Richard}, title={Day one}, year={2020}, month={may}, day={41}, doi={10.5555/a.1}}
@misc{b, author={Roe, Richard}, title={Day two}, year={2021}, month={feb}, day={29}, doi={10.5555/b.1}}
@misc{c, author={Roe, Richard}, title={Day three}, year={2020}, day={3}, doi={10.5555/c.1}}
@misc{d, author={Roe, Richard}, title={Day four}, year={2020}, month={jun}, day={first}, doi={10.5555/d.1}}
@misc{e, author={Roe, Richard}, title={Day five}, year={2020}, month={feb}, day={29}, doi={10.5555/e.1}}
@misc{f, author={Roe, Richard}, title={Day six}, date={2020-04}, day={30}, doi={10.5555/f.1}}
""")
    assert {key: [str(p) for p in found] for key, _line, found in result.refused} == {
        "a": ["in.bib:1: day: entry 'a': day '41' is no day of may 2020; allowed: 1 to 31"],
        "b": ["in.bib:2: day: entry 'b': day '29' is no day of feb 2021; allowed: 1 to 28"],
        "c": ["in.bib:3: day: entry 'c': day '3' is given without a month: give month too, or leave day out"],
        "d": ["in.bib:4: day: entry 'd': day 'first' is no day of jun 2020; allowed: 1 to 30"]}
    assert (got["e"]["bibtex"]["day"], got["f"]["bibtex"]["month"], got["f"]["bibtex"]["day"]) == ("29", "apr", "30")


def test_field_names_in_any_case_are_read_as_bibtex_reads_them():
    result, got = papers("""@ARTICLE{up, TITLE = {Upper}, AUTHOR = {Doe, Jane and Roe, Richard}, EDITOR = {Poe, E. and Moe, M.},
  JOURNAL = {J}, YEAR = {2026}, DOI = {10.1234/up}}
@article{twice, title = {T}, author = {Doe, J.}, Author = {Roe, R.}, year = 2026, doi = {10.1234/tw}}""")
    assert got["up"]["authors"] == ["Doe, Jane", "Roe, Richard"] and got["up"]["title"] == "Upper"
    assert [str(p) for p in result.problems] == [
        "in.bib:3: BibTeX block could not be parsed: duplicate field(s) author and Author in one entry (BibTeX reads "
        "field names in any case as one)"]


def test_a_comment_in_a_bare_value_is_named_as_a_comment_not_a_macro():
    result, _ = papers("@article{c, title = {T}, author = {Doe, J.}, year = 2026 % checked, doi = {10.1234/c}}")
    said = [str(p) for _, _, ps in result.refused for p in ps]
    assert any("'2026 % checked' holds a '%' comment, which BibTeX does not read inside an entry" in s for s in said)
    assert not any("macro" in s for s in said), said


def test_a_title_with_a_link_a_logo_or_layout_macros_keeps_its_words_and_never_a_traceback():
    from masrl.bib.latex import decode_latex

    assert decode_latex(r"See \href{https://example.org/x}{our site} for code") == "See our site for code"
    assert decode_latex(r"{\LaTeX} for Agents at Scale") == "LaTeX for Agents at Scale"
    assert decode_latex(r"\TeX{} and \BibTeX") == "TeX and BibTeX"
    # macros of layout are no words of the title (their names never land in it, nor in a key)
    assert decode_latex(r"{\sc Maestro}: Orchestrating Agents\xspace with {\relax Ch}ain Rewards") == (
        "Maestro: Orchestrating Agents with Chain Rewards")
    assert decode_latex(r"\includegraphics[height=1em]{logo.png} Maestro") == "Maestro"
    assert decode_latex(r"{\bfseries Foo} \textsuperscript{2}") == "Foo 2"


def test_a_value_ending_in_a_backslash_is_named_as_such_not_as_unbalanced_braces(tmp_path):
    from masrl.bib.bibtex import parse as parse_bibtex

    path = tmp_path / "b.bib"
    path.write_text("@misc{b2,\n  title = {Path C:\\\\},\n  author = {Backs, Lash},\n  year = {2023},\n}\n")
    problems = parse_bibtex(path.read_text(), "b.bib").problems
    assert [p.message for p in problems] == [
        "BibTeX block could not be parsed: syntax error (a backslash before a closing brace: the parser reads '\\}' as an "
        "escaped brace, though BibTeX does not; write the value without a trailing backslash)"]


def test_a_braced_organisation_holding_an_ampersand_is_one_author_as_masrl_exports_it():
    """`{AT\\&T Labs}` is how masrl's own papers.bib writes the organisation `--author '{AT&T Labs}'` gave: read back,
    it is that organisation, kept in braces (its '&' is no list of names)."""
    from masrl.bib.bibtex import record_author
    from masrl.core.placeholders import author_problem

    assert record_author(r"{AT\&T Labs}") == "{AT&T Labs}" and author_problem("{AT&T Labs}") is None
    assert record_author("{Kimi Team}") == "Kimi Team" and record_author("{Agents and Tools Lab, Inc.}") == (
        "{Agents and Tools Lab, Inc.}")


@pytest.mark.parametrize(("written", "stored"), [
    ("Kimi Team", "Kimi Team"), ("Google Research", "Google Research"), ("Meta AI", "Meta AI"),
    ("Agents and Tools Lab Inc.", "Agents and Tools Lab Inc."),
    ("Weiwei Ai", "Ai, Weiwei"), ("Sarah Teamwork", "Teamwork, Sarah"), ("Ada Lovelace", "Lovelace, Ada"),
])
def test_a_name_written_first_last_that_ends_in_an_organisations_kind_is_that_organisation(written, stored):
    """Run 33: arXiv's `Kimi Team` became a person, `Team, Kimi` (key team2026), and `Google Research` `Research,
    Google`, without a word (only `masrl add --author` warned). A name ending in a word that names an organisation's
    kind is that organisation; Ai (a family name) and other words are a person's."""
    from masrl.bib.bibtex import record_author, stored_author

    assert record_author(written) == stored_author(written) == stored


def test_a_macro_of_the_papers_own_in_a_title_is_named_not_dropped_without_a_word(tmp_path):
    from masrl.bib.bibimport import import_entries
    from masrl.bib.bibtex import parse as parse_bibtex

    text = "@misc{c2,\n  title = {{\\LaTeX} for Agents: \\mysystem{} at {\\sc Scale}},\n  author = {Mac, Ro},\n  year = {2023},\n}\n"
    result = import_entries(parse_bibtex(text, "c.bib"), "c.bib")
    assert [p.message for p in result.notes if "macro" in p.message] == [
        "entry 'c2': title: \\mysystem is no macro masrl can read, so the title is 'LaTeX for Agents: at Scale' without it: "
        "write its word in the record's title"]  # \\sc changes how a word looks, not which: no note


def test_an_accent_command_in_a_name_stays_one_letter_wherever_the_name_stands():
    r"""A bare accent command (``\O{}stergaard``, ``Nguy\~{\^e}n``) is the letter BibTeX and LaTeX read, also
    after ``and`` (where the name splitter once dropped its backslash) and with a ``~`` (once read as a tie)."""
    _, got = papers(r"""@article{k, title={Accents}, year=2021, doi={10.1000/acc.1}, journal={J},
  author={Doe, Jane and \O{}stergaard, S{\o}ren and \"{O}zt\"{u}rk, Ali and \v{C}apek, Karel and
          \L{}ukasiewicz, Jan and Nguy\~{\^e}n, V\u{a}n A and Juan Mu\~noz and Jos\'\i{} Ortega AND {Agents and Tools Lab}}}""")
    assert got["k"]["authors"] == ["Doe, Jane", "Østergaard, Søren", "Öztürk, Ali", "Čapek, Karel", "Łukasiewicz, Jan",
                                   "Nguyễn, Văn A", "Muñoz, Juan", "Ortega, Josí", "{Agents and Tools Lab}"]


def test_an_empty_name_in_the_list_is_named():
    result, got = papers("@misc{e, title={T}, author={Doe, Jane and and Roe, Ann}, year={2025}, url={https://x.org}}\n"
                         "@misc{f, title={T}, author={Doe, Jane and}, year={2025}, url={https://x.org/f}}")
    assert got == {}
    assert sorted(str(p) for _, _, ps in result.refused for p in ps) == [
        f"in.bib:{line}: author: entry '{key}': holds an empty name: 'and' twice in a row, or at the start or end of the list"
        for line, key in ((1, "e"), (2, "f"))]


def test_a_braced_year_and_a_month_with_its_day_are_read_as_bibtex_reads_them():
    """``year = {{2020}}`` was refused ("got '{2020}'"); ``month = jun # "~15"`` (btxdoc's idiom) was "not a month"."""
    result, got = papers('@misc{a, title={T}, author={Doe, Jane}, year={{2020}}, month = jun # "~15", url={https://x.org}}\n'
                         '@misc{b, title={U}, author={Doe, Jane}, year = { 2021 }, month = {15~June}, url={https://x.org/b}}')
    assert (got["a"]["year"], got["a"]["bibtex"]["year"], got["a"]["bibtex"]["month"]) == (2020, "2020", "jun")
    assert (got["b"]["year"], got["b"]["bibtex"]["month"]) == (2021, "jun")
    assert [str(n) for n in result.notes] == [
        "in.bib:1: entry 'a': month 'June~15' kept as jun (the day is not kept)",
        "in.bib:2: entry 'b': month '15~June' kept as jun (the day is not kept)"]


def test_a_reference_managers_own_fields_are_not_kept_and_named():
    result, got = papers("@misc{a, title={T}, author={Doe, Jane}, year={2021}, url={https://x.org},\n"
                         "  mendeley-groups={Reading}, mendeley-tags={rl}, groups={to read}, readstatus={read},\n"
                         "  bdsk-file-1={YnBsaXN0}, annote={kept: an annotated bibliography's note}}")
    assert set(got["a"]["bibtex"]) == {"type", "title", "year", "url", "annote"}
    assert [str(n) for n in result.notes] == [
        "in.bib:1: entry 'a': not kept: mendeley-groups, mendeley-tags, groups, readstatus, bdsk-file-1 (bookkeeping of "
        "the exporting tool)"]


def test_a_bare_ampersand_percent_or_hash_in_a_title_with_markup_is_the_character():
    """'Soil & Carbon in \\emph{Deep} Layers' was stored as 'Soil Carbon in Deep Layers' (the & read as an alignment tab),
    and 'Over 50% of Soil \\$5' refused as 'Over 50' (the % read as a comment); without other markup both were kept."""
    from masrl.bib.consistency import bibtex_disagreements

    result, got = papers("@misc{a, title={Soil & Carbon in \\emph{Deep} Layers}, author={Doe, Jane}, year={2021}, "
                         "url={https://x.org/a}}\n"
                         "@misc{b, title={Over 50% of Soil \\$5 and Q#1}, author={Doe, Jane}, year={2021}, url={https://x.org/b}}")
    assert (got["a"]["title"], got["b"]["title"]) == ("Soil & Carbon in Deep Layers", "Over 50% of Soil $5 and Q#1")
    for paper in got.values():
        assert bibtex_disagreements({**paper, "bibtex": paper["bibtex"]}) == []
    assert bibtex.decode_latex("\\url{https://x.org/a%20b&c} and 5% \\emph{z}") == "<https://x.org/a%20b&c> and 5% z"
    # a $ that closes no math is the character too (it swallowed '$10' of 'Costs of \$5 and $10 models')
    assert [bibtex.decode_latex(t) for t in ("Costs of \\$5 and $10 models", "Price: $5 \\emph{x}", "Math $x^2$ here")] == [
        "Costs of $5 and $10 models", "Price: $5 x", "Math x^2 here"]


def test_bibtexs_own_field_type_is_kept_apart_from_the_entry_type():
    """type = {Technical Report} of a @techreport replaced its entry type: refused as no entry type, or with
    type = {report} silently retyped (exported as @misc beside its institution)."""
    result, got = papers("@techreport{tr1, title={Cooperative Credit}, author={Doe, Jane}, institution={Stanford},"
                         " type={Technical Report}, year={2021}, url={https://x.org/tr1}}\n"
                         "@techreport{tr2, title={Another Report}, author={Roe, R.}, institution={CMU}, type={report},"
                         " year={2021}, url={https://x.org/tr2}}")
    assert result.refused == []
    assert [(got[k]["bibtex"]["type"], got[k]["bibtex"]["type_field"]) for k in ("tr1", "tr2")] == [
        ("techreport", "Technical Report"), ("techreport", "report")]
    from masrl.bib import bibexport

    record = {"key": "doe2021", "title": "Cooperative Credit", "authors": ["Doe, Jane"], "year": 2021,
              "venue": "Tech Report", "bibtex": got["tr1"]["bibtex"]}
    assert bibexport.entry_fields(record)[0] == "techreport"
    assert "type = {Technical Report}," in bibexport.entries([record])


def test_a_field_named_type_field_is_refused_not_read_as_the_type():
    result, got = papers("@techreport{tt1, title={T}, author={Doe, Jane}, institution={MIT}, type={Memo},"
                         " type_field={Other}, year={2022}, url={https://x.org/tt1}}")
    assert got == {} and any("is masrl's name for BibTeX's field type" in str(p) for _, _, ps in result.refused for p in ps)


def test_a_biblatex_subtitle_is_part_of_the_title_and_every_alias_not_kept_is_named():
    """Run 35: biblatex's subtitle was left out of the record's title (the paper was added again beside the record of its
    whole title), and an entry's own key and second alias were dropped without a word when it had ids."""
    from masrl.bib.bibimport import import_entries
    from masrl.bib.bibtex import parse as parse_bibtex
    from masrl.bib.consistency import bibtex_disagreements

    text = ("@article{x1, author={Roe, Ann}, title={Graph Agents}, subtitle={Learning to Coordinate Many Workers}, "
            "journaltitle={J}, date={2021}, doi={10.1000/sub.1}}\n"
            "@article{smith2020deep, ids={smithDeep, Smith2020}, author={Smith, John}, title={Deep things?}, "
            "subtitle={A study}, journal={J}, year={2020}, doi={10.1000/ids.1}}\n")
    result = import_entries(parse_bibtex(text, "s.bib"), "s.bib")
    assert [p["title"] for p in result.papers] == ["Graph Agents: Learning to Coordinate Many Workers",
                                                    "Deep things? A study"]
    assert [p["bibtex_key"] for p in result.papers] == ["x1", "smithDeep"]
    assert [p.message for p in result.notes if "ids:" in p.message] == [
        "entry 'smith2020deep': ids: smithDeep is kept as its BibTeX key (papers.bib's alias of the record's key); a "
        "record keeps one, so smith2020deep, Smith2020 are not kept: cite the record by its key or smithDeep"]
    for paper in result.papers:  # the record's title and its block's title and subtitle agree
        assert [f for f, _, _ in bibtex_disagreements(paper) if f == "title"] == []


def test_biblatex_extended_names_are_read_and_a_name_holding_an_equals_sign_is_refused(survey, cli):
    """Run 35: author = {family=Smith, given=John} was stored as a person called 'family=Smith' (key familysmith2021),
    and two such names were refused with the parser's own 'Too many commas'."""
    from masrl.bib.bibimport import import_entries
    from masrl.bib.bibtex import parse as parse_bibtex

    text = ("@misc{e1, author={family=Smith, given=John and given=Jan, prefix=van der, family=Berg, useprefix=true}, "
            "title={Extended Names of Agents}, year={2021}, url={https://example.org/e1}}\n")
    result = import_entries(parse_bibtex(text, "e.bib"), "e.bib")
    assert [p["authors"] for p in result.papers] == [["Smith, John", "van der Berg, Jan"]] and result.problems == []
    run = cli("add", "--root", survey, "--no-fetch", "--url", "https://example.org/e2", "--title", "Extended Names Again",
              "--author", "family=Smith, given=John", "--year", "2021")
    assert run.code == 1 and "holds '=': biblatex's extended name format" in run.err, run.err


def test_a_name_of_three_commas_is_refused_in_masrls_words():
    """Run 36: 'Smith, Jr., John, PhD' was refused with the parser's own 'Cannot split the following name ... Too many
    commas', not with what to write instead."""
    from masrl.bib.bibimport import import_entries
    from masrl.bib.bibtex import parse as parse_bibtex

    text = "@misc{c3, author={Smith, Jr., John, PhD}, title={Three Commas}, year={2021}, url={https://example.org/c3}}\n"
    result = import_entries(parse_bibtex(text, "c.bib"), "c.bib")
    (message,) = [p.message for _, _, problems in result.refused for p in problems if p.field == "author"]
    assert "has more than two commas, which BibTeX cannot read as a name" in message and "Cannot split" not in message


def test_an_author_with_a_macro_masrl_cannot_read_is_refused_not_stored_without_its_letters():
    """Run 42: Nguy{\\~{\\ecircumflex}}n (vntex's T5 letters) was stored 'Nguyn', key nguyn2019, without a word."""
    result, got = papers(r"""@article{v2, author = {Nguy{\~{\ecircumflex}}n, B}, title = {Paper two}, journal = {J}, year = {2019},
  url = {https://example.org/2}}
@article{v5, author = {Nguy{\~{\^e}}n, B}, title = {Paper five}, journal = {J}, year = {2019}, url = {https://example.org/5}}""")
    assert "v2" not in got and got["v5"]["authors"] == ["Nguyễn, B"]
    (problems,) = [problems for key, _, problems in result.refused if key == "v2"]
    assert "holds \\ecircumflex, no macro masrl can read, so letters of the name would be lost" in str(problems[0])


def test_an_accent_on_an_accent_without_braces_is_refused_in_a_name_and_a_title():
    """Run 44: Tr{\\`\\^a}n was stored with both accents on the r, Nguy\\~\\^en as 'Nguyên' (the tilde lost), and
    papers.bib then stopped pdflatex; LaTeX itself cannot read them."""
    result, got = papers(r"""@article{a3, title={Paper Three}, author={Tr{\`\^a}n, Minh}, journal={J}, year={2020}, url={https://example.org/3}}
@article{a5, title={Paper Five}, author={Nguy\~\^en, Van}, journal={J}, year={2020}, url={https://example.org/5}}
@article{a6, title={Tr\`\^an's Paper}, author={Doe, Jane}, journal={J}, year={2020}, url={https://example.org/6}}
@article{a7, title={Paper Seven}, author={Tr\`{\^a}n, Minh and Nguy\~{\^e}n, Van and Garc{\'\i}a, Ana}, journal={J}, year={2020},
  url={https://example.org/7}}""")
    assert sorted(got) == ["a7"] and got["a7"]["authors"] == ["Trần, Minh", "Nguyễn, Van", "García, Ana"]
    messages = {key: str(problems[0]) for key, _, problems in result.refused}
    assert sorted(messages) == ["a3", "a5", "a6"], messages
    assert "puts an accent on an accent without braces (\\`\\^), which LaTeX cannot read" in messages["a3"]
    assert "(\\~\\^)" in messages["a5"] and "title" in messages["a6"]


@pytest.mark.parametrize("written, stored", [("Ren\\' e, Jean", "René, Jean"), ("Jos\\' e Garc\\'{\\i}a", "García, José"),
                                             ("Ren\\' e Descartes", "Descartes, René"), ("G\\\" odel, Kurt", "Gödel, Kurt"),
                                             ("Fran\\c cois Chollet", "Chollet, François"), ("Dvo\\v r\\'ak, Anton\\' {\\i}n", "Dvořák, Antonín"),
                                             ("Garc\\'{\\i}a, Ana", "García, Ana"), ("{\\ss}ler, Hans", "ßler, Hans"),
                                             # run 46: TeX takes out the blanks after a letter's command too
                                             ("Garc\\'\\i a, Jos\\'e", "García, José"), ("Gro\\ss e, Hans", "Große, Hans"),
                                             ("\\O stergaard, Lars", "Østergaard, Lars"), ("Bj\\o rn Borg", "Borg, Bjørn"),
                                             ("Jos\\' e Garc\\' \\i a", "García, José"), ("Gro\\ss{} Hans", "Hans, Groß"),
                                             # run 47: ... before an accent or a group too
                                             ("Sigur\\dh ur \\TH \\'orsson", "Þórsson, Sigurður"),
                                             ("\\TH \\'orsson, Sigur\\dh ur", "Þórsson, Sigurður"),
                                             ("\\O {s}tergaard, Lars", "Østergaard, Lars")])
def test_an_accent_before_a_blank_takes_the_letter_after_it_as_tex_does(written, stored):
    """Run 45: 'Ren\\' e, Jean' was stored 'Ren e, Jean' and 'Jos\\' e Garc\\'{\\i}a' 'e García, Jos' (the accent lost and
    its letter taken for a particle), while a title read it as é."""
    from masrl.bib.bibtex import record_author
    from masrl.review.intake import author_from_flag

    assert record_author(written) == stored
    assert author_from_flag(written)[0] == stored


def test_an_author_flag_with_an_accent_on_an_accent_without_braces_is_refused():
    from masrl.core.errors import UserError
    from masrl.review.intake import author_from_flag

    with pytest.raises(UserError, match="puts an accent on an accent without braces"):
        author_from_flag("Nguy\\~\\^en, Van")
    assert author_from_flag("Nguy\\~{\\^e}n, Van")[0] == "Nguyễn, Van"
    from masrl.review.intake import title_from_flag

    with pytest.raises(UserError, match="--title .* puts an accent on an accent without braces"):
        title_from_flag("Tr\\`\\^an Agents")
    assert title_from_flag("Tr\\`{\\^a}n Agents")[0] == "Trần Agents"
    assert title_from_flag("Caf\\'e Agents")[0] == "Café Agents"  # an accent without braces was kept raw


def test_an_isbn_or_issn_that_cannot_exist_is_named_and_a_real_one_kept():
    """Run 42: isbn = {not an isbn at all} and an ACM ISBN of 10 digits with no right check digit were exported;
    biber calls them invalid."""
    from masrl.bib.standard_numbers import isbn_problem, issn_problem

    for good in ("978-0-262-03384-8", "0-262-03384-4", "0-8044-2957-X", "9781450383097",
                 "978-0-262-03384-8, 978-0-262-33737-3",
                 # run 43: what biber reads past: a label, a qualifier, dashes of any kind
                 "ISBN 978-0-262-03384-8", "9780262033848 (hardcover)", "978\u20100\u2010262\u201003384\u20108"):
        assert isbn_problem(good) is None, good
    for bad in ("not an isbn at all", "9781450383", "978-0-262-03384-9", "0-262-03384-5"):
        assert isbn_problem(bad).startswith(f"{bad!r} is not an ISBN"), bad
    assert issn_problem("1050-124X") is None and issn_problem("0378-5955") is None
    assert issn_problem("0028-0836 (Print)") is None and issn_problem("0028 0836") is None and issn_problem("0028\u20130836") is None
    assert isbn_problem("ISBN 978-0-262-03384-9").startswith("'ISBN 978-0-262-03384-9' is not an ISBN:")  # as written
    assert issn_problem("zzzz").startswith("'zzzz' is not an ISSN") and issn_problem("0378-5956") is not None


@pytest.mark.parametrize("value", [
    "978-0-262-03561-3 0-262-03561-8", "9780262039246 0262039249", "0262033844 0262533057", "0262033844 9780262033848",
    "978 0 262 03384 8", "ISBN13: 978-0-262-03384-8", "ISBN 10: 0-262-03384-4", "ISBN10 0262033844",
    "e-ISBN 978-0-262-33737-3", "eISBN: 978-0-262-33737-3", "ISBN 978-0-262-03384-8 eISBN 978-0-262-33737-3",
    "978-0-262-03384-8 / 978-0-262-33737-3", "978-0-262-03384-8 | 978-0-262-33737-3", "978-0-262-03384-8 [print]",
    "0-8044-2957-X 978-0-262-03384-8", "978-0-262-03384-8.", "{978-0-262-03384-8}"])
def test_an_isbn_field_as_exporters_write_it_is_read_number_by_number(value):
    """Run 44: an ISBN-13 and its ISBN-10 separated by a blank read as one number of 23 digits, and labels such as
    ISBN13:, eISBN and separators / | were refused."""
    from masrl.bib.standard_numbers import isbn_problem

    assert isbn_problem(value) is None


@pytest.mark.parametrize("value", ["eISSN 1533-7928", "E-ISSN 1533-7928", "p-ISSN 1532-4435", "ISSN-L 1532-4435",
                                   "1532-4435 1533-7928", "1532-4435 / 1533-7928", "pISSN: 1532-4435 (Print)",
                                   "{1476-4687}"])
def test_an_issn_field_as_exporters_write_it_is_read_number_by_number(value):
    from masrl.bib.standard_numbers import issn_problem

    assert issn_problem(value) is None


@pytest.mark.parametrize("value, named", [
    ("978-0-262-03561-3 0-262-03561-9", "'0-262-03561-9'"),  # the ISBN-10's check digit is wrong
    ("9780262039246 026203924", "'026203924'"), ("ISBN13: 978-0-262-03384-9", None), ("0262033844 12", "'12'"),
    ("978-0-262-03384-8 / 978-0-262-33737-4", "'978-0-262-33737-4'")])
def test_a_wrong_number_among_several_is_named(value, named):
    from masrl.bib.standard_numbers import isbn_problem

    problem = isbn_problem(value)
    assert problem is not None and problem.startswith(f"{value!r} is not an ISBN"), problem
    assert (named is None and "(its" not in problem) or f"(its {named})" in problem, problem
