"""Every accepted identifier form maps to its canonical id (one table, one test)."""

from __future__ import annotations

import re

import pytest

from masrl.bib.identifiers import IdentifierError, keys_of, parse
from trees import published_only  # noqa: F401 - the published tree only

FORMS = [
    # arXiv, new style
    ("2505.19591", None, "arxiv:2505.19591"),
    ("2505.19591v2", None, "arxiv:2505.19591"),
    ("arXiv:2505.19591", None, "arxiv:2505.19591"),
    ("arxiv:2505.19591v3", "arxiv", "arxiv:2505.19591"),
    ("ARXIV: 2505.19591", "arxiv", "arxiv:2505.19591"),
    ("0704.0001", None, "arxiv:0704.0001"),
    ("https://arxiv.org/abs/2505.19591", None, "arxiv:2505.19591"),
    ("https://arxiv.org/abs/2505.19591v2", "arxiv", "arxiv:2505.19591"),
    ("http://www.arxiv.org/abs/2505.19591/", None, "arxiv:2505.19591"),
    ("https://arxiv.org/pdf/2505.19591", None, "arxiv:2505.19591"),
    ("https://arxiv.org/pdf/2505.19591v1.pdf", None, "arxiv:2505.19591"),
    ("https://arxiv.org/html/2505.19591v1", None, "arxiv:2505.19591"),
    ("https://export.arxiv.org/abs/2505.19591?context=cs.AI", None, "arxiv:2505.19591"),
    ("https://arxiv.org/abs/2505.19591#references", None, "arxiv:2505.19591"),
    ("10.48550/arXiv.2505.19591", None, "arxiv:2505.19591"),
    ("10.48550/ARXIV.2505.19591", "doi", "arxiv:2505.19591"),
    ("https://doi.org/10.48550/arXiv.2505.19591", "doi", "arxiv:2505.19591"),
    ("doi:10.48550/arxiv.2505.19591", "doi", "arxiv:2505.19591"),
    # arXiv, old style
    ("cs/0506042", None, "arxiv:cs/0506042"),
    ("cs/0506042v2", "arxiv", "arxiv:cs/0506042"),
    ("arXiv:hep-th/9901001", None, "arxiv:hep-th/9901001"),
    ("math.GT/0309136", None, "arxiv:math/0309136"),
    ("https://arxiv.org/abs/cs/0506042", None, "arxiv:cs/0506042"),
    ("https://arxiv.org/pdf/cs/0506042v1", None, "arxiv:cs/0506042"),
    ("10.48550/arXiv.cs/0506042", "doi", "arxiv:cs/0506042"),
    # DOI
    ("10.1145/3605764.3623985", None, "doi:10.1145/3605764.3623985"),
    ("10.1142/S0219525901000188", "doi", "doi:10.1142/s0219525901000188"),
    ("doi:10.1142/S0219525901000188", "doi", "doi:10.1142/s0219525901000188"),
    ("DOI: 10.1142/S0219525901000188", "doi", "doi:10.1142/s0219525901000188"),
    ("https://doi.org/10.1142/S0219525901000188", None, "doi:10.1142/s0219525901000188"),
    ("http://dx.doi.org/10.1142/S0219525901000188", "doi", "doi:10.1142/s0219525901000188"),
    ("https://www.doi.org/10.1142/s0219525901000188", "doi", "doi:10.1142/s0219525901000188"),
    ("10.1002%2F(SICI)1097-4571", "doi", "doi:10.1002/(sici)1097-4571"),
    ("https://doi.org/10.1002%2F(SICI)1097-4571", "doi", "doi:10.1002/(sici)1097-4571"),
    # OpenReview
    ("ur295YVtmt", None, "openreview:ur295YVtmt"),
    ("openreview:ur295YVtmt", None, "openreview:ur295YVtmt"),
    ("https://openreview.net/forum?id=ur295YVtmt", None, "openreview:ur295YVtmt"),
    ("https://openreview.net/forum?id=ur295YVtmt&noteId=abc123XYZ", "openreview", "openreview:ur295YVtmt"),
    ("https://openreview.net/forum?noteId=abc123XYZ&id=ur295YVtmt&referrer=%5BAuthor%20Console%5D", None, "openreview:ur295YVtmt"),
    ("https://openreview.net/pdf?id=ur295YVtmt", "openreview", "openreview:ur295YVtmt"),
    ("https://openreview.net/forum/?id=ur295YVtmt", None, "openreview:ur295YVtmt"),
    # ACL Anthology
    ("2025.acl-long.476", None, "acl:2025.acl-long.476"),
    ("P19-1001", None, "acl:P19-1001"),
    ("p19-1001", "acl", "acl:P19-1001"),
    ("https://aclanthology.org/2025.acl-long.476/", None, "acl:2025.acl-long.476"),
    ("https://aclanthology.org/2025.acl-long.476.pdf", "acl", "acl:2025.acl-long.476"),
    ("https://www.aclweb.org/anthology/P19-1001", None, "acl:P19-1001"),
    ("https://aclanthology.org/P19-1001.bib", None, "acl:P19-1001"),
    ("10.18653/v1/2025.acl-long.476", "acl", "acl:2025.acl-long.476"),
    # other URLs
    ("https://www.kimi.com/blog/kimi-k2-6/", None, "url:kimi.com/blog/kimi-k2-6"),
    ("HTTPS://example.org/Paper#top", "url", "url:example.org/paper"),
]


@pytest.mark.parametrize("text, scheme, canonical", FORMS)
def test_every_form_maps_to_its_canonical_id(text, scheme, canonical):
    assert parse(text, scheme).key == canonical


def test_an_acl_doi_is_kept_as_a_doi_and_matches_the_acl_id():
    ident = parse("10.18653/v1/2025.acl-long.476", "doi")
    assert (ident.scheme, ident.value) == ("doi", "10.18653/v1/2025.acl-long.476")
    assert ident.keys() == ("doi:10.18653/v1/2025.acl-long.476", "acl:2025.acl-long.476")
    assert keys_of({"acl": "2025.acl-long.476"}) & keys_of({"doi": "10.18653/V1/2025.ACL-LONG.476"}) == {"acl:2025.acl-long.476"}


def test_stored_forms_keep_the_version_and_the_case():
    assert parse("https://arxiv.org/pdf/2505.19591v2.pdf").value == "2505.19591v2"
    assert parse("https://doi.org/10.1142/S0219525901000188").value == "10.1142/S0219525901000188"
    assert parse("10.48550/arXiv.2505.19591").scheme == "arxiv"


@pytest.mark.parametrize("text, scheme, message", [
    ("2605.2801", "arxiv", "'2605.2801' is not an arXiv id: ids of 2605 (2026-05) have a 5-digit number"),
    ("2613.00001", "arxiv", "'2613.00001' is not an arXiv id: 13 is not a month"),
    ("https://example.org/x", "arxiv", "'https://example.org/x' is not a valid arXiv identifier"),
    ("11.1234/x", "doi", "'11.1234/x' is not a valid DOI: expected a DOI 10.<registrant>/<suffix>"),
    ("10.48550/arXiv.12345", "doi", "'10.48550/arXiv.12345' is an arXiv DOI, but '12345' is not an arXiv id"),
    ("hello world", None, "'hello world' is not an identifier masrl can read"),
    ("ftp://arxiv.org/abs/2505.19591", "url", "'ftp://arxiv.org/abs/2505.19591' is not a valid URL"),
])
def test_bad_forms_are_refused_with_the_accepted_forms(text, scheme, message):
    with pytest.raises(IdentifierError) as err:
        parse(text, scheme)
    assert str(err.value).startswith(message)


@pytest.mark.parametrize(("text", "why"), [
    ("2099.acl-long.1", "2099 is not a year of the Anthology's ids written YYYY.venue.N"),  # after next year
    ("2019.acl-long.1", "2019 is not a year of the Anthology's ids written YYYY.venue.N"),  # the form began in 2020
    ("P25-1001", "ids written like P25-NNNN end in 2019"),
    ("2025.acl-long.00476", r"00476 is no paper number of the Anthology: it numbers a volume's front matter 0 and its "
                            r"papers from 1, without leading zeros \(2025.acl-long.476\)"),
    ("2025.acl-long.00", r"00 is no paper number of the Anthology")])
def test_an_acl_anthology_id_of_a_year_the_anthology_gave_no_such_id_is_refused(text, why, monkeypatch, survey, cli,
                                                                                 set_field):
    monkeypatch.setenv("MASRL_TODAY", "2026-06-30")
    with pytest.raises(IdentifierError, match=f"is not an ACL Anthology id: {why}"):
        parse(text, "acl")
    assert parse("2025.acl-long.476", "acl").value == "2025.acl-long.476" and parse("P19-1001", "acl").value == "P19-1001"
    assert parse("2020.acl-main.0", "acl").value == "2020.acl-main.0"  # a volume's front matter (run 33: refused)
    record = survey / "corpus/papers/c3.yaml"
    record.write_text(record.read_text().replace("identifiers:\n", f"identifiers:\n  acl: {text}\n", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and re.search(f"identifiers.acl: '{text}' is not an ACL Anthology id: {why}", run.err), run.err


@pytest.mark.parametrize("url", [
    "https://arxiv.org/abs/2508.03680v0", "https://arxiv.org/abs/2508.03680v00", "https://arxiv.org/abs/2508.03680v",
    "https://arxiv.org/abs/2508.03680vv2", "https://arxiv.org/abs/2605.02801x", "https://arxiv.org/abs/cs/0506042v0",
    "https://arxiv.org/abs/", "https://openreview.net/forum?id=", "https://openreview.net/forum",
    "https://openreview.net/pdf?id=abc123&id=def456"])
def test_a_paper_page_of_arxiv_or_openreview_that_names_no_paper_is_refused_not_kept_as_a_link(url):
    """A mistyped arXiv or OpenReview paper address was kept as a plain URL, which matches no record of the paper."""
    from masrl.bib.identifiers import IdentifierError, from_url

    with pytest.raises(IdentifierError, match="names no (arXiv|OpenReview) paper"):
        from_url(url)


def test_other_pages_of_arxiv_and_openreview_are_links_and_paper_pages_their_ids():
    from masrl.bib.identifiers import from_url

    assert [(i.scheme, i.value) for i in map(from_url, (
        "https://arxiv.org/list/cs.AI/recent", "https://openreview.net/group?id=ICLR.cc/2026/Conference",
        "https://arxiv.org/pdf/2508.03680v2.pdf", "https://openreview.net/forum?id=ur295YVtmt&noteId=x"))] == [
        ("url", "https://arxiv.org/list/cs.AI/recent"), ("url", "https://openreview.net/group?id=ICLR.cc/2026/Conference"),
        ("arxiv", "2508.03680v2"), ("openreview", "ur295YVtmt")]


def test_a_new_style_id_of_a_month_to_come_is_named_so_whatever_the_length_of_its_number():
    """'9107.0001' was told it needs a 5-digit number, and '9107.00001' then that 2091 is to come."""
    for text in ("9107.0001", "9107.00001"):
        with pytest.raises(IdentifierError, match=r"9107 is 2091-07, after .*, the latest month an id can name today: no such id exists yet"):
            parse(text, "arxiv")


@pytest.mark.parametrize(("today", "taken"), [("2026-12-15", False), ("2026-12-30", False), ("2026-12-31", True),
                                              ("2027-02-28", True), ("2028-02-28", False)])
def test_an_id_of_next_month_exists_only_from_the_last_day_of_this_one(monkeypatch, today, taken):
    """2701.00001 was accepted on 2026-12-15 (`masrl exclude` then refused the same paper as screened before its id)."""
    monkeypatch.setenv("MASRL_TODAY", today)
    nxt = {"2026-12": "2701", "2027-02": "2703", "2028-02": "2803"}[today[:7]]
    if taken:
        assert parse(f"{nxt}.00001", "arxiv").value == f"{nxt}.00001"
    else:
        with pytest.raises(IdentifierError, match="the latest month an id can name today"):
            parse(f"{nxt}.00001", "arxiv")


def test_a_doi_address_with_a_closing_slash_and_an_acl_revision_address_name_their_paper():
    """doi.org/10.1145/x/ kept the slash in the DOI, and aclanthology.org/2024.acl-long.5v2.pdf was kept as a link: neither
    matched the record of the paper, so a second record of it was written."""
    from masrl.bib.identifiers import from_url

    assert [(i.scheme, i.value) for i in map(from_url, (
        "https://doi.org/10.1145/3605764.3623985/", "https://aclanthology.org/2024.acl-long.5v2.pdf",
        "https://aclanthology.org/P19-1001v2.pdf"))] == [
        ("doi", "10.1145/3605764.3623985"), ("acl", "2024.acl-long.5"), ("acl", "P19-1001")]


def test_a_bare_doi_with_a_closing_slash_is_its_doi_and_an_acl_address_of_no_paper_is_refused():
    """10.5555/k.1/ kept its slash (another key than its doi.org address); aclanthology.org/2024.acl-long.5v0.pdf and
    .../2024.acl-long.05.pdf were taken as ids."""
    from masrl.bib.identifiers import from_url

    assert parse("10.5555/k.1/").value == parse("doi:10.5555/k.1/").value == from_url("https://doi.org/10.5555/k.1/").value
    for url in ("https://aclanthology.org/2024.acl-long.5v0.pdf", "https://aclanthology.org/2024.acl-long.05.pdf"):
        with pytest.raises(IdentifierError, match="names no ACL Anthology paper"):
            from_url(url)


def test_a_bare_acl_id_with_its_version_is_the_acl_paper_never_an_openreview_id():
    """P19-1001v2 was stored as openreview: P19-1001v2 (ten letters and digits), and 2024.acl-long.5v2 refused."""
    assert [(parse(t).scheme, parse(t).value) for t in ("P19-1001v2", "2024.acl-long.5v2")] == [
        ("acl", "P19-1001"), ("acl", "2024.acl-long.5")]
    with pytest.raises(IdentifierError, match="versions are numbered from 1"):
        parse("P19-1001v0")
