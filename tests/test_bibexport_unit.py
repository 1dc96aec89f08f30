"""The BibTeX export of single records pinned exactly, without a survey tree: entry type by venue
kind, which fields a block keeps or loses, landing pages, aliases, brace balance and the header."""

from __future__ import annotations

import pytest

from masrl.bib import bibexport
from masrl.bib.entries import bibtex_block

BASE = {"key": "k", "title": "A Title", "authors": ["Doe, Jane", "others"], "year": 2026}


def fields(**kw):
    return bibexport.entry_fields({**BASE, **kw})


def test_conference_replaces_a_stale_arxiv_journal_line():
    etype, out = fields(venue="NeurIPS 2025", bibtex={"type": "article", "journal": "arXiv preprint arXiv:2501.1"},
                        identifiers={"arxiv": "2501.00001v3"}, url="https://a.org ; https://b.org")
    assert etype == "inproceedings"
    assert out == {"title": "A Title", "author": "Doe, Jane and others", "booktitle": "NeurIPS 2025", "year": "2026",
                   "eprint": "2501.00001", "archiveprefix": "arXiv", "url": "https://a.org"}
    assert list(out) == ["title", "author", "booktitle", "year", "eprint", "archiveprefix", "url"]


def test_identifiers_are_exported_as_the_record_holds_them_not_as_an_imported_block_wrote_them():
    _, out = fields(venue="arXiv", identifiers={"doi": "10.1234/ABC.def", "arxiv": "2402.00011"},
                    bibtex={"type": "misc", "doi": "https://doi.org/10.1234/ABC.def", "eprint": "arXiv:2402.00011"})
    assert (out["doi"], out["eprint"], out["archiveprefix"]) == ("10.1234/ABC.def", "2402.00011", "arXiv")
    _, out = fields(venue="arXiv", identifiers={"arxiv": "2402.00011"},
                    bibtex={"type": "misc", "eprint": "hal-01234", "archiveprefix": "HAL"})
    assert (out["eprint"], out["archiveprefix"]) == ("hal-01234", "HAL")  # another archive's eprint is its own


def test_conference_keeps_a_real_journal_as_booktitle():
    _, out = fields(venue="ICML 2025", bibtex={"journal": "Proc. ICML"})
    assert out["booktitle"] == "Proc. ICML" and "journal" not in out
    _, out = fields(venue="ICML 2025", bibtex={"booktitle": "Own", "journal": "CoRR abs/1"})
    assert out["booktitle"] == "Own" and "journal" not in out


def test_journal_takes_the_booktitle_or_the_venue():
    etype, out = fields(venue="TMLR", bibtex={"booktitle": "Trans. ML Research"})
    assert etype == "article" and out["journal"] == "Trans. ML Research" and "booktitle" not in out
    _, out = fields(venue="Nature", bibtex={"journal": "arXiv preprint"})
    assert out["journal"] == "Nature"
    _, out = fields(venue="Nature", bibtex={"journal": "Nature Physics"})
    assert out["journal"] == "Nature Physics"


def test_preprint_and_other():
    etype, out = fields(venue="arXiv", bibtex={"journal": "arXiv preprint arXiv:2501.00001"}, identifiers={"arxiv": "2501.00001"})
    assert etype == "misc" and "journal" not in out and "howpublished" not in out and out["eprint"] == "2501.00001"
    etype, out = fields(venue="Blog Post", bibtex={"type": "techreport"}, url="https://x.org")
    assert etype == "techreport" and out["institution"] == "Blog Post" and "howpublished" not in out  # its venue field
    etype, _ = fields(venue="Blog Post", bibtex={"type": "article"})
    assert etype == "misc"
    etype, _ = fields(venue="Blog Post", bibtex={"type": "inproceedings"})
    assert etype == "misc"
    etype, _ = fields(venue="Blog Post", bibtex={"type": "software"})
    assert etype == "misc"
    etype, _ = fields(venue="arXiv", bibtex={"type": "techreport"})
    assert etype == "misc"


def test_identifiers_and_landing_pages_survive():
    _, out = fields(venue="Blog Post", identifiers={"doi": "10.1/x", "url": ["https://a.org", "https://b.org", "https://c.org"]})
    assert out["doi"] == "10.1/x"
    assert out["howpublished"] == "Blog Post; \\url{https://b.org}; \\url{https://c.org}"
    assert out["url"] == "https://a.org"
    _, out = fields(venue="arXiv", identifiers={"arxiv": "2501.00001", "url": ["https://a.org"]}, url="https://a.org")
    assert out["url"] == "https://a.org" and "howpublished" not in out
    _, out = fields(venue="arXiv", identifiers={"arxiv": "2501.00001", "url": ["https://a.org", "https://b.org"]})
    assert out["url"] == "https://a.org" and out["howpublished"] == "\\url{https://b.org}"
    _, out = fields(venue="ICLR 2026", identifiers={"doi": "10.1/x"}, bibtex={"doi": "10.2/y", "eprint": "e"})
    assert out["doi"] == "10.2/y" and out["eprint"] == "e" and "archiveprefix" not in out


def test_year_block_and_alias():
    _, out = fields(venue="arXiv", bibtex={"year": "2025", "zz": "last", "aa": "", "note": "n"}, bibtex_key="k-2025")
    assert out["year"] == "2025" and out["ids"] == "k-2025"
    assert list(out)[-2:] == ["ids", "zz"] and "aa" not in out and out["note"] == "n"
    _, out = fields(venue="arXiv", bibtex_key="k")
    assert "ids" not in out


@pytest.mark.parametrize("title, protected", [
    ("An LLM", "An {LLM}"), ("x-Y", "x-{Y}"), ("GPT4o", "{GPT4o}"), ("R1", "{R1}"), ("3D", "{3D}"), ("3d", "3d"), ("Q", "Q"),
    ("(GRPO)", "({GRPO})"), ("\\LaTeX{} Agents", "{{\\LaTeX}} Agents"), ("\\O{}resund \\\"Uber \\emph{x}", "{\\O}resund {\\\"U}ber \\emph{x}"), ("Hello", "Hello"), ("{A}{B}", "{A}{B}"),
    ("a $X^2$ b", "a {$X^2$} b"), ("{\\\"O}BB and {\\'E}TS", "{{\\\"O}BB} and {{\\'E}TS}"),
    ("{\\\"O}sterreich", "{\\\"O}sterreich"), ("{\\\"O}BB-based", "{{\\\"O}BB}-based"), ("{\\L}LM", "{{\\L}LM}"),
    ("\\$ LLM", "\\$ {LLM}"), ("\\{ LLM", "\\{ {LLM}"), ("a \\$ USD", "a \\$ {USD}"), ("{a \\} b} ABc", "{a \\} b} {ABc}"),
])
def test_protect_title(title, protected):
    assert bibexport.protect_title(title) == protected


@pytest.mark.parametrize("text, latex", [
    ("Şahin", "{\\c{S}}ahin"), ("Ökten", "{\\\"O}kten"), ("Ångström", "{\\r{A}}ngstr{\\\"o}m"), ("Tramèr", "Tram{\\`e}r"),
    ("Łukasz", "{\\L}ukasz"), ("Erdős", "Erd{\\H{o}}s"), ("ı", "{\\i}"), ("50% & a_b", "50\\% \\& a\\_b"),
    # where pylatexenc's table writes another letter (ű as \\'u), LaTeX's accents write it; a Greek capital (written as its
    # Latin look-alike) is kept; math letters are braced whole, so that no style changes their case
    ("Szűcs", "Sz{\\H{u}}cs"), ("Ħal ŉ", "Ħal ŉ"), ("Ολα", "Ο{{\\ensuremath{\\lambda}}}{{\\ensuremath{\\alpha}}}"),
])
def test_accented_letters_are_bibtex_special_characters(text, latex):
    from masrl.bib.latex import decode_latex, encode_latex

    assert encode_latex(text) == latex and decode_latex(latex) == text


@pytest.mark.parametrize("month", ["6", "06", " 6 ", "June", "JUN", "jun.", "Jun", "{June}", "{Jun}"])
def test_a_month_however_written_is_exported_as_its_macro_and_kept_in_csl(month):
    """validate accepts these; papers.bib wrote them as text ({June}, {06}), which biber warns of, and CSL-JSON dropped
    the month of all but 'jun'."""
    from masrl.bib.csljson import csl_item

    rec = {**BASE, "key": "b", "venue": "arXiv", "year": 2025, "bibtex": {"month": month}}
    assert "  month = jun,\n" in bibexport.export([rec])
    assert csl_item(rec)["issued"]["date-parts"] == [[2025, 6]]


def test_export_header_order_months_and_balanced_braces():
    recs = [{**BASE, "key": "b", "venue": "arXiv", "title": "x } y", "bibtex": {"month": "sep"}},
            {**BASE, "key": "a", "venue": "arXiv", "bibtex": {"month": "Sept."}}]
    text = bibexport.export(recs, "Survey line one\n\n  \nline two")
    assert text.startswith("% Generated by `masrl build` from corpus/papers/*.yaml -- do not edit by hand.\n"
                           "% Survey line one\n% line two\n% Entry keys are the record keys shown in every table; "
                           "`ids` holds an older key (biber resolves it).\n\n@misc{a,\n")
    assert text.index("@misc{a,") < text.index("@misc{b,")
    assert text.count("  month = sep,\n") == 2 and "Sept." not in text  # every way of writing a month is its macro
    assert "  title = {x \\textbraceright{} y},\n" in text
    assert text.endswith("}\n")
    # an @ starts an entry wherever it stands (BibTeX has no comments): a survey title cannot add one
    injected = bibexport.header("Agents @Work\n@misc{injected, title={pwn}}")
    assert "@" not in injected and "% (at)misc{injected, title={pwn}}\n" in injected
    assert bibexport.header() == ("% Generated by `masrl build` from corpus/papers/*.yaml -- do not edit by hand.\n"
                                  "% Entry keys are the record keys shown in every table; `ids` holds an older key "
                                  "(biber resolves it).\n\n")


def test_export_refuses_a_key_used_twice_in_any_case():
    with pytest.raises(ValueError, match="BibTeX key 'k' of k is also used by K"):
        bibexport.export([{**BASE, "venue": "arXiv"}, {**BASE, "key": "K", "venue": "arXiv"}])
    with pytest.raises(ValueError, match="BibTeX key 'a' of b is also used by a"):
        bibexport.export([{**BASE, "key": "a", "venue": "arXiv"}, {**BASE, "key": "b", "venue": "arXiv", "bibtex_key": "a"}])


def test_export_kind_falls_back_to_the_block_then_other():
    assert bibexport.export_kind({"venue": "ICLR 2026"}) == "conference"
    assert bibexport.export_kind({"venue": "", "bibtex": {"booktitle": "Proc. X"}}) == "conference"
    assert bibexport.export_kind({"bibtex": None}) == "other"


@pytest.mark.parametrize(("name", "stored"), [
    ("李 小龙", "李, 小龙"),         # Han: the family name first, as the name is written
    ("山田 太郎", "山田, 太郎"),     # kanji
    ("キム ミンス", "キム, ミンス"),  # katakana
    ("김 민수", "김, 민수"),         # Hangul
    ("Xiaolong Li", "Li, Xiaolong"),  # the same person in Latin letters: given name first
    ("李 Xiaolong", "Xiaolong, 李"),  # mixed scripts: BibTeX's reading
    ("李小龙", "李小龙")])           # one word: kept
def test_a_name_in_its_own_east_asian_script_keeps_its_family_name_first(name, stored):
    from masrl.bib.bibtex import record_author, stored_author

    assert record_author(name) == stored_author(name) == stored
    from masrl.bib.bibtex import display_name

    assert display_name(stored) == (name if stored != "Xiaolong, 李" else "李 Xiaolong")  # shown as it was written


_JOURNALS = ("Proceedings of the National Academy of Sciences", "Proceedings of the IEEE", "Proceedings of the VLDB Endowment",
             "Proceedings of the ACM on Human-Computer Interaction", "Transactions of the ACL")
_PROCEEDINGS = ("Machine Learning and Knowledge Discovery in Databases", "Machine Learning: ECML 2004",
                "Artificial Intelligence in Medicine")
_BOOKS = ("Letters from the Field", "Review Track", "Nature-Inspired Computing")


@pytest.mark.parametrize(("etype", "venue", "exported"), [
    *(("article", venue, "article") for venue in _JOURNALS),
    ("article", "Proceedings of the AAAI Conference on Artificial Intelligence", "inproceedings"),
    *(("inproceedings", venue, "inproceedings") for venue in _PROCEEDINGS),
    *(("incollection", venue, "incollection") for venue in _BOOKS),
])
def test_a_venue_whose_words_belong_to_another_kind_is_no_disagreement_and_keeps_its_entry_type(etype, venue, exported):
    """PNAS, Proceedings of the IEEE and chapters in books named '... Review' were refused ("disagrees with
    bibtex.journal"), and exported as another entry type, because the venue's kind was guessed from its words."""
    from masrl.bib.consistency import bibtex_disagreements

    record = {"key": "k", "title": "T", "year": 2020, "venue": venue, "authors": ["Doe, Jane"],
              "bibtex": {"type": etype, "title": "T", "journal" if etype == "article" else "booktitle": venue, "year": "2020"}}
    assert bibtex_disagreements(record) == []
    got, out = bibexport.entry_fields(record)
    assert got == exported and out.get("booktitle" if exported != "article" else "journal") == venue
    assert "howpublished" not in out


def test_a_venue_given_by_hand_takes_the_entry_type_of_its_series():
    assert [bibtex_block("T", 2020, venue, {})["type"] for venue in (
        "Proceedings of the National Academy of Sciences", "Transactions of the ACL", "Machine Learning: ECML 2004",
        "Nature Machine Intelligence", "Nature-Inspired Computing", "Lecture Notes in Computer Science")] == [
        "article", "article", "inproceedings", "article", "misc", "misc"]


def test_a_preprint_block_beside_a_published_venue_is_still_a_disagreement():
    from masrl.bib.consistency import bibtex_disagreements

    record = {"key": "k", "title": "T", "year": 2020, "venue": "ICLR 2026", "authors": ["Doe, Jane"],
              "bibtex": {"type": "article", "title": "T", "journal": "arXiv preprint arXiv:2501.00001", "year": "2020"}}
    assert bibtex_disagreements(record) == [
        ("venue", "ICLR 2026 (conference)", "arXiv preprint arXiv:2501.00001 (preprint)")]


@pytest.mark.parametrize(("etype", "field", "value"), [("phdthesis", "school", "MIT"), ("techreport", "institution", "Google"),
                                                       ("book", "publisher", "Springer")])
def test_a_thesis_report_or_book_gets_no_howpublished_beside_its_own_venue_field(etype, field, value):
    """Export wrote howpublished = {MIT} beside school = {MIT}: a field the record does not hold, invalid for biber."""
    got, out = fields(venue=value, bibtex={"type": etype, field: value})
    assert got == etype and out[field] == value and "howpublished" not in out


def test_corrs_volume_goes_with_its_journal_line():
    """DBLP's CoRR entry (journal = {CoRR}, volume = {abs/2401.00031}) became @misc still holding that volume."""
    for journal, volume in (("CoRR", "abs/2401.00031"), ("ArXiv", "abs/2401.00031"), ("arXiv preprint", "arXiv:2401.00031")):
        got, out = fields(venue="arXiv", identifiers={"arxiv": "2401.00031"},
                          bibtex={"type": "article", "journal": journal, "volume": volume})
        assert got == "misc" and "volume" not in out and "journal" not in out, (journal, out)
    _, out = fields(venue="TMLR", bibtex={"type": "article", "journal": "TMLR", "volume": "3"})
    assert out["volume"] == "3"


def test_a_letter_of_a_field_kept_as_imported_is_written_with_latexs_commands():
    """Only authors and titles given by hand were encoded: an imported title or journal with Vietnamese letters stopped
    pdflatex ("Unicode character ạ not set up")."""
    _, out = fields(title="Phạm's Method", venue="Tạp chí Khoa học",
                    bibtex={"type": "article", "title": "Phạm's Method", "journal": "Tạp chí Khoa học"})
    from masrl.bib.bibexport import _field_source

    assert _field_source("journal", out["journal"]) == "T{\\d{a}}p ch{\\'\\i} Khoa h{\\d{o}}c"
    assert _field_source("url", "https://x.org/ạ") == "https://x.org/ạ"


def test_an_inproceedings_of_a_preprint_server_is_a_preprint_not_a_disagreement_with_itself():
    """@inproceedings{booktitle = {arXiv}} was refused: "'arXiv (preprint)' disagrees with 'arXiv (conference)'"."""
    from masrl.bib.consistency import bibtex_disagreements

    for server in ("arXiv", "arXiv.org", "CoRR"):
        record = {**BASE, "venue": server, "identifiers": {"arxiv": "2401.00004"},
                  "bibtex": {"type": "inproceedings", "title": "A Title", "booktitle": server, "year": "2026"}}
        assert bibtex_disagreements(record) == []
        assert bibexport.entry_fields(record)[0] == "misc"


def test_an_entry_keeps_no_field_its_exported_type_lacks():
    """booktitle = {arXiv} stayed on the @misc it became; a @misc's howpublished venue stayed beside the booktitle of
    the @inproceedings it became, and an imported howpublished beside a thesis's school (biber: invalid field)."""
    got, out = fields(venue="arXiv", identifiers={"arxiv": "2301.00009"},
                      bibtex={"type": "inproceedings", "booktitle": "arXiv", "eprint": "2301.00009"})
    assert got == "misc" and "booktitle" not in out
    workshop = "NeurIPS 2023 Workshop on Agents"
    got, out = fields(venue=workshop, bibtex={"type": "misc", "howpublished": workshop})
    assert got == "inproceedings" and out["booktitle"] == workshop and "howpublished" not in out
    got, out = fields(venue="MIT", bibtex={"type": "phdthesis", "school": "MIT", "howpublished": "MIT"})
    assert got == "phdthesis" and "howpublished" not in out
    got, out = fields(venue="Blog", bibtex={"type": "misc", "howpublished": "\\url{https://x.org/post}"})
    assert out["howpublished"] == "\\url{https://x.org/post}"  # links kept where they were written


def test_a_block_of_two_venue_fields_or_another_types_field_is_written_with_its_exported_types_only():
    """Semantic Scholar's @Article{booktitle=..., journal=...} became @inproceedings with a journal; a @techreport with
    a journal became @article with its institution (biber: invalid field)."""
    got, out = fields(venue="AAAI Conference on Artificial Intelligence",
                      bibtex={"type": "article", "booktitle": "AAAI Conference on Artificial Intelligence",
                              "journal": "Proceedings of the AAAI Conference on Artificial Intelligence"})
    assert got == "inproceedings" and "journal" not in out
    got, out = fields(venue="TMLR", bibtex={"type": "techreport", "institution": "CMU", "journal": "TMLR"})
    assert got == "article" and "institution" not in out and out["journal"] == "TMLR"
    got, out = fields(venue="Journal of Soil", bibtex={"type": "techreport", "institution": "CMU", "journal": "Journal of Soil"})
    assert got == "techreport" and "journal" not in out and out["institution"] == "CMU"


def test_an_article_in_a_preprint_server_or_a_submission_is_a_preprint_not_a_disagreement_with_itself():
    from masrl.bib.consistency import bibtex_disagreements

    for journal in ("OpenReview", "Submitted to Nature Machine Intelligence"):
        record = {**BASE, "venue": journal, "identifiers": {"url": ["https://x.org/p"]},
                  "bibtex": {"type": "article", "title": "A Title", "journal": journal, "year": "2026"}}
        assert bibtex_disagreements(record) == [], journal
        assert bibexport.entry_fields(record)[0] == "misc"


def test_a_report_or_thesis_keeps_its_venue_in_its_own_field_and_a_submission_its_venue():
    """A @techreport naming its publisher lost it (bibtex: empty institution); biblatex's @report and @thesis became
    @misc without their institution; "Submitted to ICLR 2023" vanished; type was written where biber has none."""
    got, out = fields(venue="RAND Corporation", bibtex={"type": "techreport", "publisher": "RAND Corporation"})
    assert (got, out.get("institution"), "publisher" in out) == ("techreport", "RAND Corporation", False)
    got, out = fields(venue="CERN", bibtex={"type": "report", "institution": "CERN", "type_field": "techreport"})
    assert (got, out.get("institution")) == ("techreport", "CERN")
    got, out = fields(venue="ETH Zurich", bibtex={"type": "thesis", "institution": "ETH Zurich", "type_field": "phdthesis"})
    assert (got, out.get("school"), "institution" in out) == ("phdthesis", "ETH Zurich", False)
    got, out = fields(venue="Submitted to ICLR 2023", identifiers={"url": ["https://example.org/p4"]},
                      bibtex={"type": "article", "journal": "Submitted to ICLR 2023"})
    assert got == "misc" and out["howpublished"] == "Submitted to ICLR 2023" and "journal" not in out
    got, out = fields(venue="Nature", bibtex={"type": "article", "journal": "Nature", "type_field": "Letter"})
    assert got == "article" and "type_field" not in out and out["note"] == "Letter"
    from masrl.bib.consistency import bibtex_disagreements

    record = {**BASE, "venue": "arXiv", "bibtex": {"type": "techreport", "institution": "arXiv", "title": "A Title"}}
    assert bibtex_disagreements(record) == []


def test_a_page_range_is_written_with_bibtexs_double_hyphen():
    """Run 33: pages '1–10' (an en dash, as a .bib or a record writes it) became '1{\\textendash}10', where every
    style expects '1--10'."""
    from masrl.bib.bibexport import _field_source

    assert [_field_source("pages", p) for p in ("1–10", "1 — 10", "12--19", "e1001", "1‐3")] == [
        "1--10", "1--10", "12--19", "e1001", "1--3"]
    assert _field_source("note", "pp. 1–10") == "pp. 1{\\textendash}10"  # other fields keep their dash


def test_biblatex_type_codes_decide_a_thesis_and_are_written_as_their_labels():
    """A biblatex @thesis or @report kept its type code in BibTeX's field type (plain.bst printed "mathesis,
    University of Oslo"), and a @thesis of type mathesis was exported as a @phdthesis (only "master" in the text
    made a @mastersthesis)."""
    got, out = fields(venue="University of Oslo", bibtex={"type": "thesis", "institution": "University of Oslo",
                                                          "type_field": "mathesis"})
    assert (got, out.get("school"), "type_field" in out) == ("mastersthesis", "University of Oslo", False)
    got, out = fields(venue="MIT", bibtex={"type": "thesis", "institution": "MIT", "type_field": "phdthesis"})
    assert (got, out.get("school"), "type_field" in out) == ("phdthesis", "MIT", False)
    got, out = fields(venue="MIT", bibtex={"type": "mastersthesis", "school": "MIT", "type_field": " MAthesis "})
    assert (got, "type_field" in out) == ("mastersthesis", False)
    got, out = fields(venue="RIKEN", bibtex={"type": "report", "institution": "RIKEN", "type_field": "resreport"})
    assert (got, out.get("institution"), out.get("type_field")) == ("techreport", "RIKEN", "Research report")
    got, out = fields(venue="CERN", bibtex={"type": "techreport", "institution": "CERN", "type_field": "techreport"})
    assert (got, "type_field" in out) == ("techreport", False)
    got, out = fields(venue="Uppsala University", bibtex={"type": "thesis", "institution": "Uppsala University",
                                                          "type_field": "candthesis"})
    assert (got, out.get("type_field")) == ("phdthesis", "Candidate thesis")
    got, out = fields(venue="GitHub", bibtex={"type": "misc", "howpublished": "GitHub", "type_field": "software"})
    assert (got, out.get("type_field")) == ("misc", "Computer software")
    # where the exported type has no field type, the label goes to the note
    got, out = fields(venue="ICML 2024", bibtex={"type": "report", "institution": "RIKEN", "type_field": "resreport"})
    assert (got, out.get("note"), "type_field" in out) == ("inproceedings", "Research report", False)
    # a type that is no code is written as it is, a thesis whose text says master's a @mastersthesis as before
    got, out = fields(venue="TU Berlin", bibtex={"type": "thesis", "institution": "TU Berlin", "type_field": "Diplomarbeit"})
    assert (got, out.get("type_field")) == ("phdthesis", "Diplomarbeit")
    got, out = fields(venue="ETH", bibtex={"type": "thesis", "institution": "ETH", "type_field": "mathesis2"})
    assert (got, out.get("type_field")) == ("phdthesis", "mathesis2")
    got, out = fields(venue="ETH", bibtex={"type": "thesis", "institution": "ETH", "type_field": "Master's thesis"})
    assert (got, out.get("type_field")) == ("mastersthesis", "Master's thesis")
    text = bibexport.entries([{**BASE, "key": "rr", "venue": "RIKEN",
                               "bibtex": {"type": "report", "institution": "RIKEN", "type_field": "resreport"}}])
    assert text.startswith("@techreport{rr,") and "  type = {Research report},\n" in text


def test_csl_json_files_each_record_as_papers_bib_does():
    """CSL-JSON filed theses, reports and books as web pages (or documents) whose genre was the school, institution
    or publisher, dropped a chapter's book and editors, and gave a submission its venue as publisher."""
    import json
    from pathlib import Path

    import jsonschema

    from masrl.bib.csljson import csl_item

    def item(venue, bibtex, ids=None):
        return csl_item({**BASE, "venue": venue, "bibtex": bibtex, "url": "https://x.org/p",
                         "identifiers": ids or {"url": ["https://x.org/p"]}})

    items = [
        item("MIT", {"type": "phdthesis", "school": "MIT", "address": "Cambridge, MA"}),
        item("University of Oslo", {"type": "thesis", "institution": "University of Oslo", "type_field": "mathesis"}),
        item("Stanford University", {"type": "techreport", "institution": "Stanford University", "number": "CS-TR-7"}),
        item("RIKEN", {"type": "report", "institution": "RIKEN", "type_field": "resreport"}),
        item("Éditions Gallimard", {"type": "book", "publisher": "{\\'E}ditions Gallimard"}),
        item("Readings in Machine Learning", {"type": "incollection", "booktitle": "Readings in Machine Learning",
                                              "editor": "Shavlik, Jude and Thomas G. Dietterich and others",
                                              "publisher": "Morgan Kaufmann", "pages": "1--10"}),
        item("Submitted to NeurIPS 2025", {"type": "misc", "howpublished": "Submitted to NeurIPS 2025"}),
        item("Submitted to NeurIPS 2025", {"type": "misc", "howpublished": "Submitted to NeurIPS 2025"},
             {"arxiv": "2501.00001", "url": ["https://x.org/p"]}),
        item("arXiv", {"type": "techreport", "institution": "arXiv"}, {"arxiv": "2501.00002"}),
        item("Blog Post", {"type": "misc"}),
        item("unpublished", {"type": "phdthesis"}),
    ]
    got = [{k: i[k] for k in ("type", "genre", "publisher", "publisher-place", "number", "container-title", "editor",
                              "page") if k in i} for i in items]
    assert got == [
        {"type": "thesis", "genre": "PhD thesis", "publisher": "MIT", "publisher-place": "Cambridge, MA"},
        {"type": "thesis", "genre": "Master's thesis", "publisher": "University of Oslo"},
        {"type": "report", "genre": "Technical report", "publisher": "Stanford University", "number": "CS-TR-7"},
        {"type": "report", "genre": "Research report", "publisher": "RIKEN"},
        {"type": "book", "publisher": "Éditions Gallimard"},
        {"type": "chapter", "publisher": "Morgan Kaufmann", "container-title": "Readings in Machine Learning",
         "editor": [{"family": "Shavlik", "given": "Jude"}, {"family": "Dietterich", "given": "Thomas G."}],
         "page": "1–10"},
        {"type": "article", "genre": "Submitted to NeurIPS 2025"},
        {"type": "article", "genre": "Submitted to NeurIPS 2025", "publisher": "arXiv", "number": "2501.00001"},
        {"type": "article", "genre": "Preprint", "publisher": "arXiv", "number": "2501.00002"},
        {"type": "webpage", "genre": "Blog Post"},
        {"type": "thesis", "genre": "PhD thesis"},  # no school known: no publisher
    ]
    schema = json.loads((Path(__file__).parent / "data/csl/csl-data.json").read_text())
    jsonschema.Draft7Validator(schema).validate(items)


def test_a_biblatex_subtitle_is_written_in_the_title_bibtex_reads():
    """Run 36: the record, README, site and papers.json said 'Symphonies: A Study'; papers.bib wrote title = {Symphonies}
    and a subtitle plain.bst ignores."""
    got, out = fields(title="Symphonies: A Study", bibtex={"type": "inproceedings", "title": "Symphonies",
                                                           "subtitle": "A Study", "booktitle": "Proc. X"})
    assert (out["title"], "subtitle" in out) == ("Symphonies: A Study", False)


def test_math_with_capitals_is_braced_as_a_style_lowers_a_title():
    """Run 37: $\\Gamma$ and $N$ in a title became $\\gamma$ and $n$ under plain.bst (\\(...\\) was braced already)."""
    assert bibexport.protect_title("On $N$-player games with $\\Gamma$-convergence and $x_1$") == (
        "On {$N$}-player games with {$\\Gamma$}-convergence and $x_1$")


@pytest.mark.parametrize("title, protected", [
    ("Why {\\textquotedblleft}Attention{\\textquotedblright} Matters", "Why {\\textquotedblleft}Attention{\\textquotedblright} Matters"),
    ("Why `Attention' and ``Memory'' Matter", "Why `Attention' and ``Memory'' Matter"),
    ("Model-Free {\\guillemotleft}Planning{\\guillemotright}", "Model-Free {\\guillemotleft}Planning{\\guillemotright}"),
    ("Actor/Critic Methods", "Actor/Critic Methods"),
    ("TCP/IP and A/B Tests", "{TCP}/{IP} and {A}/{B} Tests"),
    ("``LLMs'' at Work", "``{LLMs}'' at Work"),
])
def test_a_quote_or_slash_beside_an_ordinary_capitalised_word_does_not_lock_its_capital(title, protected):
    """Run 38: `Attention', “Attention”, «Planning» and Actor/Critic were braced as acronyms, so a style that lowers a
    title's case left them capitalised."""
    assert bibexport.protect_title(title) == protected


def test_an_edited_volume_names_its_editors_as_editors_in_papers_bib_and_papers_json():
    """Run 39: an entry with editors and no author was cited with its editors as its authors."""
    from masrl.bib import bibimport, bibtex
    from masrl.bib.csljson import csl_item

    result = bibimport.import_entries(bibtex.parse(
        "@book{p3, editor = {Smith, Ann and Jones, Bob}, title = {An Edited Volume on Agents}, publisher = {Springer},"
        " year = {2019}, doi = {10.1000/p3}}", "e.bib"), "e.bib")
    paper = result.papers[0]
    assert paper["authors"] == ["Smith, Ann", "Jones, Bob"] and paper["bibtex"]["editor"] == "Smith, Ann and Jones, Bob"
    record = {**paper, "key": "smith2019", "venue": "Springer"}
    etype, out = bibexport.entry_fields(record)
    assert (etype, "author" in out, out["editor"]) == ("book", False, "Smith, Ann and Jones, Bob")
    item = csl_item(record)
    assert "author" not in item and [n["family"] for n in item["editor"]] == ["Smith", "Jones"]
    # a block's editors beside other authors leave the authors the authors
    _, out = fields(bibtex={"type": "incollection", "editor": "Roe, Richard", "booktitle": "Edited"})
    assert (out["author"], out["editor"]) == ("Doe, Jane and others", "Roe, Richard")


@pytest.mark.parametrize("written", ["doi:10.48550/arXiv.2301.00001", "DOI: 10.48550/arXiv.2301.00001",
                                     "https://doi.org/10.48550/ARXIV.2301.00001v2"])
def test_arxivs_own_doi_written_with_a_prefix_is_exported_bare(written):
    """Run 37 (left then): a block's doi = {doi:10.48550/arXiv...} was copied, so a style linked https://doi.org/doi:..."""
    _, out = fields(venue="arXiv", identifiers={"arxiv": "2301.00001"}, bibtex={"type": "misc", "doi": written})
    assert (out["doi"], out["eprint"]) == ("10.48550/arXiv.2301.00001", "2301.00001")
