"""reports/papers.bib and reports/papers.json: types by venue, one key space, round trip, BibTeX/biber, CSL-JSON schema."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from masrl.bib import bibexport, bibimport, bibtex, csljson
from masrl.bib.matching import normalize_title
from trees import published_only  # noqa: F401 - the published tree only

HERE = Path(__file__).parent


@pytest.fixture
def records(built):
    """Every retained record of the pool."""
    return list(built.pool.retained_records)


def test_type_follows_the_venue():
    base = {"title": "T", "authors": ["Doe, Jane"], "year": 2026, "url": "https://arxiv.org/abs/2601.00001",
            "identifiers": {"arxiv": "2601.00001"}, "bibtex": {"type": "article", "journal": "arXiv preprint arXiv:2601.00001"}}
    conf = bibexport.entry_fields({**base, "key": "a", "venue": "ICLR 2026"})
    assert conf[0] == "inproceedings" and conf[1]["booktitle"] == "ICLR 2026" and "journal" not in conf[1]
    journal = bibexport.entry_fields({**base, "key": "b", "venue": "TMLR", "identifiers": {"arxiv": "2601.00001", "doi": "10.1/x"}})
    assert journal[0] == "article" and journal[1]["journal"] == "TMLR" and journal[1]["doi"] == "10.1/x"
    pre = bibexport.entry_fields({**base, "key": "c", "venue": "arXiv", "bibtex": {"type": "misc", "primaryclass": "cs.MA"}})
    assert pre == ("misc", {"title": "T", "author": "Doe, Jane", "year": "2026", "eprint": "2601.00001",
                            "archiveprefix": "arXiv", "primaryclass": "cs.MA", "url": "https://arxiv.org/abs/2601.00001"})


@pytest.mark.parametrize("title, protected", [
    ("Training LLMs with GRPO", "Training {LLMs} with {GRPO}"),
    ("MarsRL: Multi-Agent LLM-based Reasoning", "{MarsRL}: Multi-Agent {LLM}-based Reasoning"),
    ("DeepSeek-R1 and Kimi K2.5", "{DeepSeek}-{R1} and Kimi {K2.5}"),
    ("Already {LLM} protected and $O(N^2)$ math", "Already {LLM} protected and {$O(N^2)$} math"),
    ("Agent Q-Mix", "Agent {Q}-Mix"),
    # run 46: an accent's empty group is its argument (\~{} is a tilde); pdflatex stopped on {\~}
    ("Paths like \\~{}/.config in {Unix}", "Paths like {\\~{}}/.config in {Unix}"), ("x\\^{}y", "x{\\^{}}y"),
    ("\\O{}resund", "{\\O}resund"),
])
def test_titles_protect_capitals_and_acronyms(title, protected):
    assert bibexport.protect_title(title) == protected


def test_month_is_a_macro_and_corporate_names_stay_one_author():
    record = {"key": "k", "title": "T", "authors": ["{Agents and Tools Lab, Inc.}", "Doe, Jane"], "year": 2025,
              "venue": "Blog Post", "url": "https://x.org", "identifiers": {"url": ["https://x.org"]},
              "bibtex": {"type": "misc", "month": "sep"}, "bibtex_key": "k"}
    text = bibexport.export([record])
    assert "  author = {{Agents and Tools Lab, Inc.} and Doe, Jane},\n" in text and "  month = sep,\n" in text


def test_one_key_space_record_keys_with_the_old_key_as_alias(records, survey_tree):
    text = bibexport.export(records)
    assert "@misc{c3,\n" in text and "  ids = {c3-2026},\n" in text and "@misc{marsrl,\n" in text
    tables = (survey_tree / "reports/TABLES.md").read_text()
    for key in ("c3", "marsrl", "puppeteer"):
        assert f"`{key}`" in tables or key in tables
        assert f"{{{key},\n" in text


def test_round_trip_import_the_export_gives_the_same_records(records):
    text = bibexport.export(records)
    result = bibimport.import_entries(bibtex.parse(text, "papers.bib"), "papers.bib")
    assert result.refused == [] and len(result.papers) == len(records)
    by_key = {p["entry_key"]: p for p in result.papers}
    for rec in records:
        back = by_key[rec["key"]]
        same = normalize_title(back["title"]).replace(" ", "") == normalize_title(rec["title"]).replace(" ", "")
        assert same or rec.get("bibtex_differs", {}).get("title"), rec["key"]  # LaTeX source decoded: MARS$^2$ is MARS^2
        assert back["authors"] == rec["authors"], rec["key"]
        assert back["year"] == rec["year"] or "year" in rec.get("bibtex_differs", {}), rec["key"]
        assert back["identifiers"] == {k: v for k, v in rec["identifiers"].items()}, rec["key"]
        assert back["bibtex_key"] == rec["bibtex_key"], rec["key"]
    # a second cycle changes nothing: the export of the re-imported records is byte-identical
    again = [{**rec, "bibtex": by_key[rec["key"]]["bibtex"], "authors": by_key[rec["key"]]["authors"]} for rec in records]
    assert bibexport.export(again) == text


def test_csl_json_validates_against_the_official_schema(records):
    import jsonschema

    schema = json.loads((HERE / "data/csl/csl-data.json").read_text())
    items = json.loads(csljson.export(records))
    jsonschema.Draft7Validator(schema).validate(items)
    by_id = {i["id"]: i for i in items}
    assert by_id["c3"]["type"] == "article" and by_id["c3"]["number"] == "2603.06859"
    assert by_id["puppeteer"]["type"] == "paper-conference"
    assert by_id["dec-pomdp2002"]["DOI"] == "10.1287/moor.27.4.819.297"
    assert by_id["kimi-k2-5"]["author"] == [{"literal": "Kimi Team"}]
    assert csljson.csl_name("van Beethoven, Ludwig") == {"family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"}


@pytest.mark.skipif(shutil.which("bibtex") is None, reason="bibtex not installed (Debian: texlive-binaries)")
def test_papers_bib_compiles_with_bibtex_and_every_table_key_resolves(records, tmp_path):
    (tmp_path / "papers.bib").write_text(bibexport.export(records))
    cites = "".join(f"\\citation{{{r['key']}}}\n" for r in records)
    (tmp_path / "doc.aux").write_text(f"\\relax\n{cites}\\bibdata{{papers}}\n\\bibstyle{{plain}}\n")
    done = subprocess.run(["bibtex", "doc"], cwd=tmp_path, capture_output=True, text=True)
    log = (tmp_path / "doc.blg").read_text()
    assert done.returncode == 0, log
    assert "Warning" not in log and "error" not in log.lower().replace("(there were 0 error", ""), log
    bbl = (tmp_path / "doc.bbl").read_text()
    assert bbl.count("\\bibitem") == len(records) and "Agents and Tools" not in bbl


@pytest.mark.skipif(shutil.which("bibtex") is None, reason="bibtex not installed (Debian: texlive-binaries)")
def test_bibtex_sorts_and_labels_accented_names_by_their_letters(tmp_path):
    names = {"rao": "Rao, Ravi", "sahin": "Şahin, Emre", "smith": "Smith, John", "okten": "Ökten, Ümit", "nash": "Nash, John"}
    records = [{"key": key, "title": "The ÖBB Network" if key == "okten" else "A title", "authors": [name], "year": 2025,
                "venue": "arXiv", "identifiers": {}, "bibtex": {"type": "misc"}} for key, name in names.items()]
    (tmp_path / "papers.bib").write_text(bibexport.export(records))
    (tmp_path / "doc.aux").write_text("\\citation{*}\n\\bibdata{papers}\n\\bibstyle{alpha}\n")
    done = subprocess.run(["bibtex", "doc"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, (tmp_path / "doc.blg").read_text()
    bbl = (tmp_path / "doc.bbl").read_text()
    assert re.findall(r"\\bibitem\[(.*?)\]\{(\w+)\}", bbl) == [
        ("Nas25", "nash"), ("{\\\"O}kt25", "okten"), ("Rao25", "rao"), ("{\\c{S}}ah25", "sahin"), ("Smi25", "smith")]
    assert "The {{\\\"O}BB} network" in bbl  # the acronym keeps its capitals, the special character too


@pytest.mark.skipif(shutil.which("bibtex") is None, reason="bibtex not installed (Debian: texlive-binaries)")
def test_a_sorting_macro_of_an_imported_title_is_defined_by_the_file_itself(tmp_path):
    record = {"key": "k", "title": "A Sorted title", "authors": ["Doe, Jane"], "year": 2025, "venue": "arXiv", "identifiers": {},
              "bibtex": {"type": "misc", "title": "A {\\noopsort{b}}Sorted title"}}
    text = bibexport.export([record])
    assert '\n@preamble{ "\\providecommand{\\noopsort}[1]{}" }\n' in text
    assert "@preamble" not in bibexport.export([{**record, "bibtex": {"type": "misc"}}])  # only where an entry uses one
    assert bibtex.decode_latex("A {\\noopsort{b}}Sorted title") == "A Sorted title"
    (tmp_path / "papers.bib").write_text(text)
    (tmp_path / "doc.aux").write_text("\\citation{*}\n\\bibdata{papers}\n\\bibstyle{plain}\n")
    done = subprocess.run(["bibtex", "doc"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and (tmp_path / "doc.bbl").read_text().startswith("\\providecommand{\\noopsort}[1]{}")


@pytest.mark.skipif(shutil.which("biber") is None, reason="biber not installed (Debian: biber)")
def test_papers_bib_is_valid_for_biber(records, tmp_path):
    (tmp_path / "papers.bib").write_text(bibexport.export(records))
    done = subprocess.run(["biber", "--tool", "--validate-datamodel", "--output-file", "out.bib", "papers.bib"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    problems = [line for line in done.stdout.splitlines() if "WARN" in line or "ERROR" in line]
    assert problems == [], problems


def test_a_bare_percent_is_escaped_outside_the_url_fields():
    """In the .bbl a bare % starts a LaTeX comment: every field but the verbatim URL fields has
    each unescaped % written \\% (an escaped one, or one after an escaped backslash, as it is)."""
    from masrl.bib.bibexport import _field_source as _percent

    assert _percent("note", "50% off, 10\\% more, a \\\\% b") == "50\\% off, 10\\% more, a \\\\\\% b"
    assert _percent("title", "100%") == "100\\%"
    assert _percent("url", "https://example.org/a%20b") == "https://example.org/a%20b"
    assert _percent("doi", "10.1000/a%b") == "10.1000/a%b"


def test_a_letter_with_accents_latex_writes_and_a_math_letter_are_encoded_for_pdflatex():
    """Vietnamese and pinyin letters (ễ, ặ, ạ, ị, ǚ) were written raw, which pdflatex cannot set; 𝒪 became
    \\mathscr, which needs a package, as a special character that styles lowered to \\mathscr{o}."""
    assert [bibtex.encode_latex(t) for t in ("Nguyễn", "Đặng, Thị", "Lǚ, Mǎ", "ǐ", "𝒪(n) for ℒ")] == [
        "Nguy{\\~{\\^{e}}}n", "{\\DJ}{\\u{\\d{a}}}ng, Th{\\d{i}}", "L{\\v{\\\"{u}}}, M{\\v{a}}", "{\\v{\\i}}",
        "{{\\ensuremath{\\mathcal{O}}}}(n) for {{\\ensuremath{\\mathcal{L}}}}"]
    assert bibtex.encode_latex("ả ơ") == "ả ơ"  # a hook above and a horn have no command of LaTeX's own: as written
    for text in ("Nguyễn", "Đặng, Thị", "Lǚ, Mǎ", "ǐ", "𝒪(n) for ℒ"):
        assert bibtex.decode_latex(bibtex.encode_latex(text)) == text


def test_a_letter_with_two_accents_no_one_character_has_is_written_with_nested_accents():
    """Run 45: Yoruba ọ̀ (ọ and a combining grave) and ā̂ were written {\\d{o}} and {\\={a}} followed by the raw combining
    mark, which pdflatex cannot set ("Unicode character ̀ (U+0300) not set up")."""
    import unicodedata

    cases = {"Adébáyọ̀, Tunde": "Ad{\\'e}b{\\'a}y{\\`{\\d{o}}}, Tunde", "Ọ̀yọ́ empire": "{\\`{\\d{O}}}y{\\'{\\d{o}}} empire",
             "Dā̂o": "D{\\^{\\={a}}}o", "Re\u0301mi": "R{\\'e}mi"}
    for text, latex in cases.items():
        assert bibtex.encode_latex(text) == latex
        assert unicodedata.normalize("NFC", bibtex.decode_latex(latex)) == unicodedata.normalize("NFC", text)
        assert not any(unicodedata.combining(ch) for ch in latex)
    from masrl.bib.latex import ascii_source

    assert ascii_source("Ad{\\'e}b{\\'a}yọ̀") == "Ad{\\'e}b{\\'a}y{\\`{\\d{o}}}"  # an imported field kept as written


def test_a_dollar_nothing_closes_leaves_text_after_it_and_every_math_form_keeps_its_subscripts():
    """Run 34: after a '$' nothing closes (written \\$), A_b and x^2 were left bare as if in math (pdflatex: "Missing $
    inserted"); in \\(x_1^2\\) and \\ensuremath{x_1^2} they were escaped (pdflatex: "Please use \\mathaccent")."""
    from masrl.bib.latex import latex_safe

    assert latex_safe("Price is $5 and A_b and x^2") == "Price is \\$5 and A\\_b and x\\^{}2"
    assert latex_safe("Costs {$}5 for A_b") == "Costs {\\$}5 for A\\_b"
    assert latex_safe("Bounds \\(x_1^2\\) and \\[y_2\\] for A_b") == "Bounds \\(x_1^2\\) and \\[y_2\\] for A\\_b"
    assert latex_safe("Rates \\ensuremath{x_{1}^2} at 5%") == "Rates \\ensuremath{x_{1}^2} at 5\\%"
    assert latex_safe("$a_1$ and $b^2$ but c_d") == "$a_1$ and $b^2$ but c\\_d"
    assert latex_safe("an \\( unclosed x_1") == "an \\( unclosed x\\_1"
    # run 35: display math $$...$$ was read as closing and opening math, its ^ escaped (pdflatex: "Please use \\mathaccent")
    assert latex_safe("Bounds $$y^2$$ for x_1 and 5%") == "Bounds $$y^2$$ for x\\_1 and 5\\%"
    assert latex_safe("$x$$y^2$ and a_b") == "$x$$y^2$ and a\\_b"
    assert latex_safe("costs $$ 5 and a_b") == "costs \\$\\$ 5 and a\\_b"


def test_a_space_after_a_command_in_math_is_kept_in_the_plain_title():
    """Run 34: '$\\log n$' was read as 'logn', '$a \\times b$' as 'a ×b', '$O(n \\log n)$' as 'O(n logn)' (in the README,
    the site, papers.json); outside math LaTeX's own rule holds (a command eats the blank after it)."""
    assert [bibtex.decode_latex(t) for t in ("Bounds $\\log n$ and $\\alpha n$", "$a \\times b$", "$\\le 3$ steps",
                                             "$O(n \\log n)$", "\\LaTeX{} is", "$x_1$")] == [
        "Bounds log n and α n", "a × b", "≤ 3 steps", "O(n log n)", "LaTeX is", "x_1"]


def test_math_symbols_latex_has_a_command_for_are_encoded_and_read_back():
    """Run 33: √ (regret bounds), ′ and ✓ were written raw (pdflatex stops: "Unicode character √ not set up"), and
    \\checkmark in an imported title was dropped as a macro masrl could not read."""
    assert [bibtex.encode_latex(t) for t in ("O(√T) Regret", "f′(x)", "✓ Verified", "a · b")] == [
        "O({{\\ensuremath{\\surd}}}T) Regret", "f{{\\ensuremath{\\prime}}}(x)", "{{\\ensuremath{\\checkmark}}} Verified",
        "a {{\\ensuremath{\\cdot}}} b"]
    for text in ("O(√T) Regret", "f′(x)", "✓ Verified", "a · b"):
        assert bibtex.decode_latex(bibtex.encode_latex(text)) == text
    assert bibtex.decode_latex("A \\checkmark{} for $f\\prime$") == "A ✓ for f′"
    assert bibtex.decode_latex("Costs in \\pounds\\ and \\euro{} under \\S 5") == "Costs in £ and € under §5"  # run 36
    # run 34: the minus sign (−40 °C), ℏ and ∣ were written raw too
    assert [bibtex.encode_latex(t) for t in ("−40", "ℏ-scaled", "a ∣ b")] == [
        "{\\textminus}40", "{{\\ensuremath{\\hbar}}}-scaled", "a {{\\ensuremath{\\mid}}} b"]
    for text in ("−40 °C", "ℏ-scaled", "a ∣ b", "Ħal Far"):
        assert bibtex.decode_latex(bibtex.encode_latex(text)) == text


@pytest.mark.skipif(shutil.which("bibtex") is None or shutil.which("pdflatex") is None,
                    reason="bibtex or pdflatex not installed (Debian: texlive-binaries, texlive-base)")
def test_papers_bib_of_vietnamese_and_pinyin_names_and_a_math_title_sets_with_pdflatex(tmp_path):
    records = [{"key": "k", "title": "𝒪(n) Bounds for Phạm's Method", "authors": ["Nguyễn, Văn A", "Lǚ, Mǎ", "Phạm, Thị"],
                "year": 2025, "venue": "arXiv", "identifiers": {}, "bibtex": {"type": "misc"}},
               {"key": "t", "title": "Typesetting with TeX, the Øresund, Æsop and Œuvre", "authors": ["Poe, Ed"],
                "year": 2025, "venue": "arXiv", "identifiers": {}, "bibtex": {"type": "misc", "title": (
                    "Typesetting with \\TeX{} and the \\O{}resund, \\AE{}sop and \\OE uvre")}},
               {"key": "m", "title": "Price is $5 and A_b and x^2, with √T", "authors": ["Roe, Ann"], "year": 2025,
                "venue": "arXiv", "identifiers": {}, "bibtex": {"type": "misc", "title": "Price is $5 and A_b and x^2, "
                                                                "\\(x_1^2\\) and \\ensuremath{y_1^2}"}}]
    (tmp_path / "papers.bib").write_text(bibexport.export(records), encoding="utf-8")
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\\begin{document}\\cite{k,m,t}\\bibliographystyle{plain}"
                                      "\\bibliography{papers}\\end{document}\n")
    for command in (["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc"], ["bibtex", "doc"],
                    ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc"]):
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]
    bbl = (tmp_path / "doc.bbl").read_text(encoding="utf-8")
    assert "{{\\ensuremath{\\mathcal{O}}}}(n) bounds for ph{\\d{a}}m's method" in bbl and bbl.isascii()
    # run 36: \\TeX{} became \\tex{} (undefined); a letter's command is the style's to lower, as a capital is
    assert "Typesetting with {{\\TeX}} and the {\\o}resund, {\\ae}sop and {\\oe}uvre" in " ".join(bbl.split())


def test_a_built_papers_bib_defines_the_sorting_macro_an_entry_uses(survey, cli):
    """Run 42: export() wrote the @preamble but `masrl build` wrote papers.bib without it, so \\noopsort of an
    imported title stopped pdflatex ("Undefined control sequence")."""
    import yaml

    path = sorted((survey / "corpus/papers").glob("*.yaml"))[0]
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    record["bibtex"] = {**(record.get("bibtex") or {}), "title": "{\\noopsort{1}}" + record["title"]}
    path.write_text(yaml.safe_dump(record, sort_keys=False, allow_unicode=True), encoding="utf-8")
    run = cli("build", "--root", survey)
    assert run.code == 0, run.err
    text = (survey / "reports/papers.bib").read_text(encoding="utf-8")
    assert '\n@preamble{ "\\providecommand{\\noopsort}[1]{}" }\n' in text and "{\\noopsort{1}}" in text


@pytest.mark.parametrize("latex, text", [("a \\'{} and \\`{} accents \\r{} ring", "a ´ and ` accents ˚ ring"),
                                         ("\\~{}/.config x\\^{}y", "~/.config x^y"), ("\\c{} and \\v{s}", "¸ and š")])
def test_an_accent_on_an_empty_group_is_the_accent_itself(latex, text):
    """Run 47: a title's \\'{}, \\`{} and \\r{} were dropped from the stored title (TeX prints the accent alone)."""
    assert bibtex.decode_latex(latex) == text
    assert bibtex.decode_latex(bibtex.encode_latex(text)) == text
