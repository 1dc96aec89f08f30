"""Record text can never break reports/papers.bib (braces), and no text is lost on import
(editors, the argument of \\texttt and \\mbox, BibTeX's \\noop)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from masrl.core.placeholders import author_problem
from masrl.bib import bibexport, bibimport, bibtex
from masrl.checks.validate import validate
from masrl.corpus.load import parse_tree, read_tree
from trees import published_only  # noqa: F401 - the published tree only


def _record(key: str, title: str, authors: list[str], venue: str = "arXiv", **extra) -> dict:
    return {"key": key, "title": title, "authors": authors, "year": 2026, "venue": venue,
            "url": f"https://example.org/{key}", "identifiers": {"url": [f"https://example.org/{key}"]}, **extra}


#: Records whose text holds braces in every way that broke the export: unpaired, a title that
#: writes fields and an entry of its own, an organisation with braces inside, a kept block field.
HOSTILE = [
    _record("evil", "x }, note = {y}, z = { @misc{evil,", ["Doe, Jane"]),
    _record("close", "Only a closing } brace", ["D}oe, J{ane"], venue="Vol } 1 {"),
    _record("pairs", "Set {a, b} notation and {nested {deep} pairs}", ["{The {GPT} Team, Inc.}", "{Agents and Tools Lab, Inc.}",
                                                                         "{GPT} and {Co}"]),
    _record("kept", "Kept source", ["Roe, Rick"], bibtex={"type": "misc", "title": "Kept source", "note": "a \\} b \\{ c"}),
    _record("doibrace", "A DOI with a lone brace", ["Poe, Ed"],
            identifiers={"doi": "10.5555/h5}", "url": ["https://example.org/doibrace"]}),
]


def _bibtex_compiles(tmp_path, records) -> str:
    (tmp_path / "papers.bib").write_text(bibexport.export(records), encoding="utf-8")
    cites = "".join(f"\\citation{{{r['key']}}}\n" for r in records)
    (tmp_path / "doc.aux").write_text(f"\\relax\n{cites}\\bibdata{{papers}}\n\\bibstyle{{plain}}\n")
    done = subprocess.run(["bibtex", "doc"], cwd=tmp_path, capture_output=True, text=True)
    log = (tmp_path / "doc.blg").read_text()
    assert done.returncode == 0 and "error message" not in log and "Warning" not in log, log
    return (tmp_path / "doc.bbl").read_text()


def test_every_exported_field_has_balanced_braces_as_bibtex_counts_them():
    text = bibexport.export(HOSTILE)
    fields = [line for line in text.splitlines() if line.startswith("  ")]
    for line in fields:
        value = line.split(" = ", 1)[1].rstrip(",")
        depth = 0
        for ch in value:  # BibTeX's count: every brace, escaped or not
            depth += (ch == "{") - (ch == "}")
            assert depth >= 0, line
        assert depth == 0, line
    assert "  title = {x \\textbraceright{}, note = \\{y\\}, z = \\textbraceleft{} @misc\\textbraceleft{}evil,},\n" in text
    assert "  author = {{The \\{GPT\\} Team, Inc.} and {Agents and Tools Lab, Inc.} and {\\{GPT\\} and \\{Co\\}}},\n" in text
    assert "  note = {a \\textbraceright{} b \\textbraceleft{} c},\n" in text
    assert "  doi = {10.5555/h5%7D},\n" in text  # a verbatim field prints a macro as it is: the link's form
    assert text.count("\n@") == len(HOSTILE)


@pytest.mark.skipif(shutil.which("bibtex") is None, reason="bibtex not installed (Debian: texlive-binaries)")
def test_hostile_records_compile_with_bibtex(tmp_path):
    bbl = _bibtex_compiles(tmp_path, HOSTILE)
    assert bbl.count("\\bibitem") == len(HOSTILE)
    assert "\\bibitem{evil}" in bbl and "misc\\textbraceleft{}evil" in bbl  # the title is text, not an entry
    assert "{The \\{GPT\\} Team, Inc.}" in bbl  # the organisation's inner braces print


@pytest.mark.skipif(shutil.which("biber") is None, reason="biber not installed (Debian: biber)")
def test_hostile_records_are_valid_for_biber(tmp_path):
    (tmp_path / "papers.bib").write_text(bibexport.export(HOSTILE), encoding="utf-8")
    done = subprocess.run(["biber", "--tool", "--validate-datamodel", "--output-file", "out.bib", "papers.bib"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if "WARN" in line or "ERROR" in line] == []
    out = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert out.count("@misc{") + out.count("@MISC{") == len(HOSTILE)


def test_hostile_records_read_back_as_written():
    text = bibexport.export(HOSTILE)
    parsed = bibtex.parse(text, "papers.bib")
    assert parsed.problems == [] and [e.key for e in parsed.entries] == sorted(r["key"] for r in HOSTILE)
    result = bibimport.import_entries(parsed, "papers.bib")
    back = {p["entry_key"]: p for p in result.papers}
    # an author validate refuses (unbalanced braces) is refused on the way in too, by its rule; '{GPT} and {Co}'
    # was exported braced whole, which BibTeX reads as one organisation: it comes back as that organisation
    refused = {key: [p.message for p in found] for key, _line, found in result.refused}
    assert refused == {"close": [f"entry 'close': {author_problem('D}oe, J{ane')}"]}, refused
    assert back["pairs"]["authors"][-1] == "{{GPT} and {Co}}" and author_problem("{{GPT} and {Co}}") is None
    for rec in HOSTILE:
        if rec["key"] not in refused:
            assert back[rec["key"]]["title"] == rec["title"]
            read = [a for a in rec["authors"] if a != "{GPT} and {Co}"] + (["{{GPT} and {Co}}"] if rec["key"] == "pairs" else [])
            assert back[rec["key"]]["authors"] == read  # the one author validate refuses comes back as BibTeX read it
            assert back[rec["key"]]["identifiers"].get("doi") == rec["identifiers"].get("doi")


@given(st.text(alphabet="ab {}\\,^~", max_size=30))
def test_any_text_is_encoded_with_balanced_braces_and_decodes_back(text):
    encoded = bibtex.encode_latex(text)
    assert encoded.count("{") == encoded.count("}")
    depth = 0
    for ch in encoded:
        depth += (ch == "{") - (ch == "}")
        assert depth >= 0
    assert bibtex.collapse(bibtex.decode_latex(encoded)) == bibtex.collapse(text)


# ---------------------------------------------------------------------------- text kept on import
def _import(text: str) -> bibimport.ImportResult:
    return bibimport.import_entries(bibtex.parse(text, "refs.bib"), "refs.bib")


def test_editors_are_kept_also_through_crossref():
    result = _import("""
@proceedings{conf, title = {Proceedings of AgentConf}, editor = {Stone, Peter and Roe, Ann}, year = 2026}
@inproceedings{paper, title = {A Paper}, author = {Doe, Jane}, crossref = {conf}, url = {https://example.org/p}}
@incollection{chap, title = {A Chapter}, author = {Poe, Ed}, editor = {Lee, Kim}, booktitle = {A Book}, year = 2025,
  url = {https://example.org/c}}
""")
    papers = {p["entry_key"]: p for p in result.papers}
    assert papers["paper"]["bibtex"]["editor"] == "Stone, Peter and Roe, Ann"
    assert papers["chap"]["bibtex"]["editor"] == "Lee, Kim"
    assert papers["paper"]["authors"] == ["Doe, Jane"]
    assert any("inherited booktitle (the container's title), year, editor" in n.message for n in result.notes)
    record = {**_record("chap", "A Chapter", ["Poe, Ed"]), "bibtex": papers["chap"]["bibtex"]}
    assert "  editor = {Lee, Kim},\n" in bibexport.export([record])


@pytest.mark.parametrize("latex, text", [
    ("Zebra \\texttt{Foo} Agents", "Zebra Foo Agents"),
    ("\\mbox{Multi-Agent} Systems", "Multi-Agent Systems"),
    ("{\\noop{x}}Entry", "Entry"),
    ("\\textsf{Sans} and \\textup{up} and \\textmd{md}", "Sans and up and md"),
    ("a \\textbraceleft{}b\\textbraceright{}", "a {b}"),
    ("Gr\\'{e}goire and \\emph{Emph}", "Grégoire and Emph"),
    ("O(n{\\textasciicircum}2) and a{\\textasciitilde}b", "O(n^2) and a~b"),  # as masrl writes ^ and ~
    ("O(n\\^{}2) and a\\~{}b, \\^{o}", "O(n^2) and a~b, ô"),  # an accent on nothing is the character
])
def test_latex_decoding_keeps_the_text_of_text_macros(latex, text):
    assert bibtex.decode_latex(latex) == text


def test_a_hand_written_record_with_texttt_in_its_block_validates(published_tree):
    files = read_tree(published_tree)
    record = files["corpus/papers/c3.yaml"].decode()
    title = "Contextual Counterfactual Credit Assignment for Multi-Agent Reinforcement Learning in {LLM} Collaboration"
    assert title in record
    edited = record.replace(title, "Contextual Counterfactual Credit Assignment for Multi-Agent Reinforcement "
                                   "Learning in \\texttt{LLM} Collaboration")
    assert [str(p) for p in validate(parse_tree({**files, "corpus/papers/c3.yaml": edited.encode()}))] == []


# ---------------------------------------------------------------------------- names shown as exported
@pytest.mark.parametrize("name, shown", [
    ("{Agents and Tools Lab, Inc.}", "Agents and Tools Lab, Inc."),
    ("Doe, Jr., John", "John Doe Jr."),
    ("van Beethoven, Ludwig", "Ludwig van Beethoven"),
    ("Liu, Shuo", "Shuo Liu"),
    ("Kimi Team", "Kimi Team"),
    ("{The {GPT} Team, Inc.}", "The {GPT} Team, Inc."),
])
def test_names_are_shown_as_the_export_reads_them(name, shown):
    from bibtexparser.middlewares.names import parse_single_name_into_parts

    from masrl.bib import csljson
    from masrl.render.readme import authors_display
    from masrl.render.site.data import _full_name

    assert authors_display([name]) == _full_name(name) == bibtex.display_name(name) == shown
    assert authors_display([name, "others"]) == f"{shown} et al."
    csl = csljson.csl_name(name)
    parts = parse_single_name_into_parts(bibtex.encode_author(name))
    if "literal" in csl:
        assert csl["literal"] == shown and bibtex.decode_latex(bibtex.encode_author(name)) == shown
        assert len(parts.last) == 1 and not parts.first  # one braced name for BibTeX too
    else:
        given = " ".join(x for x in (csl.get("given"), csl.get("non-dropping-particle"), csl["family"], csl.get("suffix")) if x)
        assert given == shown
        assert " ".join(parts.first + parts.von + parts.last + parts.jr) == shown


def test_the_readme_list_and_the_site_show_an_organisation_with_a_comma_whole(built):
    from masrl.render.readme import papers_markdown

    record = {**next(iter(built.pool.retained_records)), "key": "zz-org", "authors": ["{Agents and Tools Lab, Inc.}"],
              "title": "An Organisation's Report"}
    text = papers_markdown([record], built.pool.tax, built.pool.headline)
    assert "**An Organisation's Report** — Agents and Tools Lab, Inc. (" in text
    assert "Inc.} {Agents" not in text


@pytest.mark.parametrize("venue", ["unpublished", "Unpublished"])
def test_a_record_without_a_venue_is_not_called_unpublished_on_a_readers_page(built, venue):
    """Run 45: a record added with --url alone showed "Plato (2021). unpublished." in README.md, the site and the feed,
    though no export says so (the record does not say the paper is unpublished)."""
    from types import SimpleNamespace

    from masrl.render.readme import papers_markdown
    from masrl.render.site.data import papers
    from masrl.render.site.feed import feed_xml

    record = {**next(iter(built.pool.retained_records)), "key": "zz-plato", "authors": ["Plato"], "year": 2021,
              "title": "The Republic of Agents", "venue": venue}
    text = papers_markdown([record], built.pool.tax, built.pool.headline)
    assert "— Plato (2021). [link](" in text and "npublished" not in text, text
    results = SimpleNamespace(tax=built.pool.tax, retained_records=[record])
    assert papers(results)[0]["venue"] == ""
    assert b"npublished" not in feed_xml(results, []) and b"Plato (2021)." in feed_xml(results, [])
    shown = {**record, "venue": "NeurIPS"}
    assert "(2021). NeurIPS. [link](" in papers_markdown([shown], built.pool.tax, built.pool.headline)


def test_the_site_searches_a_papers_text_also_as_masrls_keys_spell_it(built):
    """Run 46: the site's search found nothing for "eliyev" (Əliyev), "okomfo" (Ɔkomfo), "ngugi" (Ŋugi) or "hawaii"
    (Hawaiʻi), which masrl's keys spell so (eliyev2023)."""
    from types import SimpleNamespace

    from masrl.render.site.data import papers

    base = {k: v for k, v in next(iter(built.pool.retained_records)).items() if k != "bibtex_key"}
    plain = {**base, "key": "zz-plain", "authors": ["Doe, Jane"], "title": "Plain Title", "one_liner": "x", "venue": "NeurIPS"}
    record = {**plain, "key": "zz-eliyev", "authors": ["Əliyev, Rəşad", "Иванов, Иван"],
              "title": "Agents for Ɔkomfo and Ŋugi in Hawaiʻi"}
    rows = {row["key"]: row for row in papers(SimpleNamespace(tax=built.pool.tax, retained_records=[plain, record]))}
    assert "ascii" not in rows["zz-plain"]  # an ASCII paper's text is searched as it is
    assert set(rows["zz-eliyev"]["ascii"].split()) >= {"okomfo", "ngugi", "hawaii", "eliyev", "resad", "ivanov"}, rows["zz-eliyev"]


def test_a_bare_percent_in_a_block_title_is_a_percent_sign_for_the_title_check_as_for_the_export():
    """``bibtex.title: 100% {Multi-Agent} RL`` is exported as ``100\\%``; the check that a record agrees
    with its block read it as a LaTeX comment, cut the title at ``100`` and refused the record (a
    new user's record, 2026-12-03)."""
    from masrl.bib.consistency import bibtex_disagreements
    from masrl.bib.latex import latex_safe

    title = "Improving RAG through 100% Multi-Agent RL"
    record = _record("pct", title, ["Doe, Jane"], bibtex={"type": "misc", "title": "Improving RAG through 100% {Multi-Agent} RL"})
    assert bibtex_disagreements(record) == []
    entry = bibexport.export([record])
    assert "title = {Improving {RAG} through 100\\% {Multi-Agent} {RL}}," in entry
    assert bibtex_disagreements(dict(record, title="Improving RAG through 100")) == [
        ("title", "Improving RAG through 100", "Improving RAG through 100% Multi-Agent RL")]
    assert [latex_safe(t) for t in ["100%", "100\\%", "a\\\\%b", "a\\\\\\%b", "%%"]] == [
        "100\\%", "100\\%", "a\\\\\\%b", "a\\\\\\%b", "\\%\\%"]  # after an even run of backslashes, % is bare


@pytest.mark.parametrize("url, why", [
    ("javascript:alert(1)", "'javascript:alert(1)' is not an http(s) URL"),
    ("ftp://example.org/paper.pdf", "'ftp://example.org/paper.pdf' is not an http(s) URL"),
    ("HTTPS://example.org/p", "'HTTPS://example.org/p' has its scheme in upper case: a record writes it in lower case "
                              "(its normal form, RFC 3986): write 'https://example.org/p'"),
    ("not a url", "'not a url' is not an http(s) URL"),  # was 'not…': a value that is no URL is quoted as written
    ("example.org/a b", "'example.org/a b' is not an http(s) URL"),
    ("x" * 400, f"'{'x' * 200}…' is not an http(s) URL"),  # a very long one shortened
    ("https://example.org/a b", "'https://example.org/a…' contains ' ' (U+0020), a space or control character; "
                                "percent-encode it (%20)"),  # an http(s) URL with a blank is one: what is wrong is the blank
])
def test_a_link_of_the_bibtex_block_that_is_no_http_url_is_refused_at_import_and_in_validate(survey, cli, tmp_path, url, why):
    """papers.bib and the catalogue export the block's url as a link: it is held to the record's own url's rule. A value
    was cut at its first blank ('not a url' shown as 'not…'), and an http(s) URL holding a blank was called no
    http(s) URL."""
    bib = tmp_path / "in.bib"
    bib.write_text("@article{x,\n  title = {A Paper on Orchestrators},\n  author = {Doe, Jane},\n  year = {2026},\n"
                   f"  eprint = {{2607.01234}},\n  archivePrefix = {{arXiv}},\n  url = {{{url}}}\n}}\n")
    run = cli("add", "--root", survey, "--bibtex", bib, "--no-fetch")
    assert run.code == 1 and f"in.bib:1: bibtex.url: entry 'x': {why}" in run.err.splitlines(), run.err
    record = survey / "corpus/papers/c3.yaml"
    text = record.read_text()
    assert "\nbibtex:\n" in text
    record.write_text(text.replace("\nbibtex:\n", f"\nbibtex:\n  url: '{url}'\n", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and f"bibtex.url: {why}" in run.err, run.err


def test_a_record_url_with_an_upper_case_scheme_is_refused_with_the_url_to_write(survey, cli):
    record = survey / "corpus/papers/c3.yaml"
    text = record.read_text()
    url = next(line for line in text.splitlines() if line.startswith("url: ")).removeprefix("url: ")
    record.write_text(text.replace(f"url: {url}", f"url: HTTPS://example.org/a ; Http://{url.split('://', 1)[1]}", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and (f"url: 'HTTPS://example.org/a ; Http://{url.split('://', 1)[1]}' has its scheme in upper case: "
                              "a record writes it in lower case (its normal form, RFC 3986): write "
                              f"'https://example.org/a ; http://{url.split('://', 1)[1]}'") in run.err, run.err


@pytest.mark.parametrize("given, why", [
    ("not a category; really", "'not a category; really' is not an arXiv category (arXiv's category taxonomy: an archive "
                               "and its subject class, such as cs.CL, hep-th or math.AG)"),
    ("cs.cl", "'cs.cl' is not an arXiv category (did you mean 'cs.CL'?)"),
])
def test_a_primaryclass_that_is_no_arxiv_category_is_refused_at_import_and_in_validate(survey, cli, tmp_path, given, why):
    """papers.bib exports the block's primaryclass as biblatex's primaryClass: one of arXiv's categories, as an answer
    of arXiv and a round's arxiv_category cell must hold."""
    bib = tmp_path / "in.bib"
    entry = ("@misc{x,\n  title = {A Paper on Orchestrators},\n  author = {Doe, Jane},\n  year = {2026},\n"
             "  eprint = {2607.01234},\n  archivePrefix = {arXiv},\n  primaryClass = {%s}\n}\n")
    bib.write_text(entry % given)
    run = cli("add", "--root", survey, "--bibtex", bib, "--no-fetch", "--dry-run")
    assert run.code == 1 and f"in.bib:1: bibtex.primaryclass: entry 'x': {why}" in run.err.splitlines(), run.err
    bib.write_text(entry % "cs.MA")
    assert cli("add", "--root", survey, "--bibtex", bib, "--no-fetch", "--dry-run").code == 0
    record = survey / "corpus/papers/c3.yaml"
    text = record.read_text()
    record.write_text(text.replace("\nbibtex:\n", f"\nbibtex:\n  primaryclass: '{given}'\n", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and f"bibtex.primaryclass: {why}" in run.err, run.err


@pytest.mark.parametrize("name", ["Ada Lovelace (MIT)", "Lovelace (née Byron), Ada"])
def test_a_name_holding_an_affiliation_in_parentheses_is_no_persons_name(name):
    assert "holds a parenthesis: an affiliation or a note" in author_problem(name)
    assert author_problem("{Agents (and Tools) Lab}") is None


def test_a_bibtex_key_another_record_holds_in_another_case_is_refused_at_import(survey, cli, tmp_path):
    """BibTeX matches keys in any case: an entry whose key is a record's bibtex_key in another case would give papers.bib
    one key for two papers. `add --bibtex` refuses it (before, it wrote a record that validate then refused)."""
    held = next(line.split(": ", 1)[1] for line in (survey / "corpus/papers/latentmas.yaml").read_text().splitlines()
                if line.startswith("bibtex_key: "))
    bib = tmp_path / "in.bib"
    bib.write_text(f"@article{{{held.capitalize()},\n  title = {{A Distinct Paper on Agent Routing Games}},\n"
                   "  author = {Kay, Ed},\n  year = {2025},\n  doi = {10.1000/alias1}\n}\n")
    run = cli("add", "--root", survey, "--bibtex", bib, "--no-fetch")
    assert run.code == 1 and not (survey / "corpus/papers/kay2025.yaml").exists(), run.err
    assert (f"in.bib:1: bibtex_key: entry '{held.capitalize()}': corpus/papers/latentmas.yaml: {held!r} is "
            f"{held.capitalize()!r}, the bibtex_key of corpus/papers/kay2025.yaml, in another case") in run.err, run.err
