"""Identifiers. An arXiv id is one arXiv can have given (its scheme,
https://info.arxiv.org/help/arxiv_identifier.html): YYMM.NNNN from April 2007 to December 2014,
YYMM.NNNNN from January 2015, months 01-12, never the number zero, never a month after next;
archive/YYMMNNN (archive.SC/YYMMNNN with a subject class of cs, math, nlin or q-bio) from August 1991 to
March 2007. ``add``, ``exclude``, ``validate``, the BibTeX
import, the update rounds and the records' JSON Schema agree."""

from __future__ import annotations

import itertools
import re

import pytest

from hostile_surveys import edit_record, soil  # noqa: F401 (fixtures)
from masrl.bib.identifiers import STORED_PATTERNS, IdentifierError, parse

INVALID = [
    "0703.0001",        # the new scheme began in April 2007
    "0612.1234",
    "2606.00000",       # no paper has the number 00000
    "0801.0000",
    "9912.12345",       # December 2099
    "2701.12345",       # after next month (today is 2026-06-30 here)
    "2613.00001",       # no month 13
    "2600.00001",       # no month 00
    "1501.1234",        # from 2015 five digits
    "1412.12345",       # until 2014 four
    "hep-th/9107001",   # old-style ids began in August 1991
    "cs/0704001",       # and ended in March 2007
    "cs/0506000",       # no number 000
    "cs/0513001",       # no month 13
    "nosuch/0506042",   # not an archive
    "cs.XX/0501001",    # no subject class of cs
    "hep-th.TH/9901001",  # an archive whose ids name no subject class
]
VALID = ["0704.0001", "1412.9999", "1501.00001", "2505.19591", "2505.19591v12", "2606.00001", "2607.00001",
         "hep-th/9108001", "cs/0703999", "math.GT/0309136v1", "cond-mat/0001001",
         "cs.AI/0501001", "q-bio.CB/0501001", "nlin.CD/0203001"]


@pytest.fixture(autouse=True)
def today(monkeypatch):
    monkeypatch.setenv("MASRL_TODAY", "2026-06-30")


@pytest.mark.parametrize("text", INVALID)
def test_an_id_arxiv_never_gave_is_refused_with_the_reason(text):
    for form in (text, f"arXiv:{text}", f"https://arxiv.org/abs/{text}"):
        with pytest.raises(IdentifierError, match="not an arXiv id|names no arXiv paper") as info:
            parse(form, "arxiv")
        assert "expected an arXiv id such as" not in str(info.value)  # the reason, not the list of forms
    with pytest.raises(IdentifierError):
        parse(text)  # a bare id is not taken for another scheme either


@pytest.mark.parametrize("text", VALID)
def test_every_id_arxiv_gives_is_read(text):
    assert parse(text, "arxiv").value == text


@pytest.mark.parametrize("text", INVALID)
def test_validate_refuses_a_record_with_such_an_id(soil, cli, edit_record, text):
    edit_record(soil / "corpus/papers/smith2019.yaml", identifiers={"arxiv": text})
    check = cli("validate", "--root", soil)
    assert check.code == 1
    assert f"corpus/papers/smith2019.yaml:12: identifiers.arxiv: '{text}' is not " in check.err, check.err


@pytest.mark.parametrize("text", INVALID[:6])
def test_add_exclude_and_the_bibtex_import_refuse_it(soil, cli, tmp_path, text):
    add = cli("add", "--root", soil, "--no-fetch", "--arxiv", text, "--title", "A new soil paper", "--author",
              "Doe, Jane", "--year", "2026")
    assert add.code == 1 and "not an arXiv id" in add.err, add.err
    exclude = cli("exclude", "--root", soil, "--title", "Ocean carbon", "--arxiv", text, "--author", "Doe, Jane",
                  "--year", "2026", "--phase", "title_screen", "--why", "W1", "--reason", "off topic",
                  "--searched-in", "arXiv")
    assert exclude.code == 1 and "not an arXiv id" in exclude.err, exclude.err
    bib = tmp_path / "new.bib"
    bib.write_text(f"@misc{{doe2026, title={{A new soil paper}}, author={{Doe, Jane}}, year={{2026}}, "
                   f"eprint={{{text}}}, archivePrefix={{arXiv}}}}\n", encoding="utf-8")
    imported = cli("add", "--root", soil, "--no-fetch", "--bibtex", bib)
    assert imported.code == 1 and "not an arXiv id" in imported.err, imported.err
    assert not (soil / "corpus/papers/doe2026.yaml").exists()


def _reads(text: str) -> bool:
    try:
        return parse(text, "arxiv").value == text
    except IdentifierError:
        return False


def test_the_schema_pattern_and_the_reader_agree_on_every_form(monkeypatch):
    """Every YYMM.N... and archive/YYMMNNN form (numbers at the edges of each range): the records'
    JSON Schema pattern accepts exactly what the reader reads on the last day of 2099; today, the
    reader reads the same but for the months after next, which only a date can tell (validate's
    rule D012)."""
    pattern = re.compile(STORED_PATTERNS["arxiv"])
    forms = [f"{y:02d}{m:02d}.{n}" for y in range(100) for m in (0, 1, 3, 4, 12, 13)
             for n in ("0", "1", "0000", "0001", "9999", "00000", "00001", "99999", "123456")]
    forms += [f"{a}/{yymm}{n}" for a, yymm, n in itertools.product(["cs", "hep-th", "math.GT", "nosuch"],
                                                                  ["9107", "9108", "9912", "0001", "0703", "0704", "0613"],
                                                                  ["000", "001", "999"])]
    today = {text: _reads(text) for text in forms}
    monkeypatch.setenv("MASRL_TODAY", "2099-12-31")
    for text in forms:
        assert bool(pattern.fullmatch(text)) == _reads(text), text
        later = "/" not in text and text[:4] > "2607"
        assert today[text] == (_reads(text) and not later), text
    # read today: 0704, 0712 and 4 months of 2008-2014 with 0001 and 9999 (2 x 2 + 28 x 2), 4 months of
    # 2015-2025 and 2601-2604 with 00001 and 99999 (47 x 2), 9108, 9912, 0001, 0703 of 3 archives with 001 and 999
    assert sum(today.values()) == 4 + 56 + 94 + 24


def test_a_taxonomy_may_not_give_its_own_pattern_for_a_scheme_masrl_knows(soil, cli):
    tax = soil / "corpus/taxonomy.yaml"
    tax.write_text(tax.read_text(encoding="utf-8").replace(
        "  arxiv: {label: arXiv identifier, definition: arXiv id YYMM.NNNNN,",
        "  arxiv: {label: arXiv identifier, pattern: '^[0-9]{4}\\.[0-9]{4,5}$', definition: arXiv id YYMM.NNNNN,"),
        encoding="utf-8")
    check = cli("validate", "--root", soil)
    assert check.code == 1
    assert "identifier_schemes.arxiv.pattern: masrl knows the ids of arxiv" in check.err, check.err
