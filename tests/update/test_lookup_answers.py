"""masrl add ID: the metadata lookup takes the same care with an answer as a search round does:
its source's documented format, size and time limits, no redirect to another host; anything else
is one line naming the source, and nothing is added. Served through the mocked transport
(``responses``) on a survey made with ``masrl init``."""

from __future__ import annotations

import json
import re
import zlib

import pytest

from servers import atom, entry, small_survey  # noqa: F401 - fixtures

ARXIV = re.compile(r"https://export\.arxiv\.org/api/query\?.*id_list=2605\.30001.*")
CROSSREF = "https://api.crossref.org/works/10.5555/orch.1"


def crossref_work(**fields) -> dict:
    return {"status": "ok", "message-type": "work", "message": {
        "DOI": "10.5555/orch.1", "title": ["An Orchestrator"], "author": [{"family": "Lovelace", "given": "Ada"}],
        "issued": {"date-parts": [[2026, 6, 1]]}, "container-title": ["Proceedings of Agents"], **fields}}


def test_an_arxiv_answer_in_the_format_is_read(small_survey, cli, no_network):
    no_network.get(ARXIV, body=atom(entry(title="Q&amp;amp;A for an Orchestrator"), 1), content_type="application/atom+xml")
    run = cli("add", "--root", small_survey, "2605.30001", "--dry-run")
    assert run.code == 0, run.err
    assert "title: Q&A for an Orchestrator\n" in run.out and "  - Lovelace, Ada\n" in run.out


@pytest.mark.parametrize("body, what", [
    (b"<html><body>maintenance</body></html>", "an HTML page where the format has an Atom feed"),
    (atom(entry(published="yesterday"), 1), "entry 1 (arxiv:2605.30001): published: 'yesterday' is not a date"),
    (atom(entry(published="2026-07-02T10:00:00Z"), 1),  # small_survey's day is 2026-06-30
     "entry 1 (arxiv:2605.30001): published 2026-07-02: after today (2026-06-30): arXiv publishes nothing ahead"),
    (atom(entry(), 1)[:-30], "not well-formed XML"),
    (atom(entry("2605.39999"), 1), "answered 1 entries (first arxiv:2605.39999) for arxiv:2605.30001"),
])
def test_a_broken_arxiv_answer_adds_nothing_and_says_why(small_survey, cli, no_network, body, what):
    no_network.get(ARXIV, body=body, content_type="application/atom+xml")
    run = cli("add", "--root", small_survey, "2605.30001")
    assert run.code == 1 and not list((small_survey / "corpus" / "papers").glob("*.yaml"))
    (line,) = run.err.splitlines()
    assert line.startswith("masrl: error: cannot look up arxiv 2605.30001: export.arxiv.org") and what in line, line
    assert "Traceback" not in run.err


@pytest.mark.parametrize("work, what", [
    (crossref_work(title="An Orchestrator"), "Expected `array`, got `str` - at `$.message.title`"),
    (crossref_work(author=[{"family": 42, "given": ["x"]}]), "Expected `str | null`, got `int` - at `$.message.author[0].family`"),
    (crossref_work(issued={"date-parts": [[2026, 6, 45]]}), "$.message.issued: [2026, 6, 45] is not a date"),
    ({"status": "ok", "message-type": "work-list", "message": {"total-results": 0, "items": []}},
     "message-type 'work-list': not a work"),
    (crossref_work(DOI="10.9999/other-paper", title=["Some Other Paper"]),
     "answered about doi:'10.9999/other-paper' when asked for doi:10.5555/orch.1"),
])
def test_a_broken_crossref_answer_adds_nothing_and_says_why(small_survey, cli, no_network, work, what):
    no_network.get(CROSSREF, json=work)
    run = cli("add", "--root", small_survey, "https://doi.org/10.5555/orch.1")
    assert run.code == 1
    (line,) = run.err.splitlines()
    assert line.startswith("masrl: error: cannot look up doi 10.5555/orch.1: api.crossref.org") and what in line, line


def test_a_lookup_that_answers_without_authors_or_a_year_is_named_not_blamed_on_the_command_line(small_survey, cli,
                                                                                                   no_network):
    """The user gave a DOI alone: a work without authors is the source's gap (exit 1, what to give by hand),
    not a usage error; a placeholder title it gives is named as the title looked up."""
    no_network.get(CROSSREF, json=crossref_work(author=[]))
    run = cli("add", "--root", small_survey, "10.5555/orch.1")
    assert run.code == 1 and run.err.splitlines() == [
        'masrl: error: the metadata looked up for doi 10.5555/orch.1 has no author; give --author "Last, First" (repeat) '
        "by hand"]
    no_network.replace("GET", CROSSREF, json=crossref_work(title=["TODO"]))
    run = cli("add", "--root", small_survey, "10.5555/orch.1")
    assert run.code == 1 and run.err.splitlines()[0] == (
        "command line: title looked up for doi 10.5555/orch.1: 'TODO' is a placeholder; give the paper's real title "
        "with --title")
    assert not list((small_survey / "corpus" / "papers").glob("*.yaml"))


def test_character_references_of_crossref_are_decoded(small_survey, cli, no_network):
    no_network.get(CROSSREF, json=crossref_work(title=["Q&amp;A &lt;i&gt;for&lt;/i&gt; Orchestrators"],
                                                abstract="<jats:p>Teams &amp; their orchestrator.</jats:p>"))
    run = cli("add", "--root", small_survey, "https://doi.org/10.5555/orch.1", "--dry-run")
    assert run.code == 0, run.err
    assert "title: Q&A for Orchestrators\n" in run.out and "abstract: Teams & their orchestrator.\n" in run.out


def test_a_bomb_a_redirect_elsewhere_and_a_json_nest_are_refused(small_survey, cli, no_network):
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    bomb = packer.compress(b" " * (20 << 20)) + packer.flush()
    no_network.get(ARXIV, body=bomb, headers={"Content-Encoding": "gzip"}, content_type="application/atom+xml")
    run = cli("add", "--root", small_survey, "2605.30001")
    assert run.code == 1 and "export.arxiv.org: sent an answer that decompresses to more than the limit of 8,388,608 bytes" in run.err
    no_network.replace("GET", ARXIV, status=302, headers={"Location": "https://elsewhere.example.org/feed"})
    run = cli("add", "--root", small_survey, "2605.30001")
    assert run.code == 1 and "a redirect to 'https://elsewhere.example.org/feed', another host" in run.err
    nested = json.dumps(crossref_work()).encode()[:-1] + b', "x": ' + b"[" * 200000 + b"]" * 200000 + b"}"
    no_network.get(CROSSREF, body=nested, content_type="application/json")
    run = cli("add", "--root", small_survey, "https://doi.org/10.5555/orch.1")
    assert run.code == 1 and "JSON nested deeper than any answer of the format" in run.err


@pytest.mark.parametrize("doi, path", [("10.1234/a?b=1", "/works/10.1234/a%3Fb%3D1"), ("10.1234/a#frag", "/works/10.1234/a%23frag"),
                                       ("10.1234/50%off", "/works/10.1234/50%25off"), ("10.1234/../../admin", None)])
def test_a_doi_is_looked_up_whole_at_its_own_address(small_survey, cli, no_network, doi, path):
    asked = []

    def answer(request):
        asked.append(request.url)
        return 200, {}, json.dumps(crossref_work(DOI=doi))

    no_network.add_callback("GET", re.compile(r"https://api\.crossref\.org/.*"), callback=answer, content_type="application/json")
    run = cli("add", "--root", small_survey, "--doi", doi, "--dry-run")
    if path is None:  # HTTP resolves a '..' segment away, encoded or not: not sent at all
        assert asked == [] and run.code == 1
        assert f"the DOI {doi} holds a '.' or '..' segment, which no address at api.crossref.org keeps" in run.err
        return
    assert asked == [f"https://api.crossref.org{path}"]
    assert run.code == 0, run.err


def test_an_openreview_answer_about_another_note_adds_nothing(small_survey, cli, no_network):
    note = {"id": "OtherPaper9", "forum": "OtherPaper9", "content": {"title": {"value": "Completely Different"},
                                                                    "authors": {"value": ["Ada Lovelace"]}}}
    no_network.get(re.compile(r"https://api2\.openreview\.net/notes\?id=HostileId01"), json={"notes": [note]})
    run = cli("add", "--root", small_survey, "--openreview", "HostileId01")
    assert run.code == 1 and not list((small_survey / "corpus" / "papers").glob("*.yaml"))
    assert ("api2.openreview.net answered about openreview:'OtherPaper9' when asked for openreview:HostileId01"
            in run.err), run.err
    # OpenReview ids are case-sensitive: a note whose id differs only in case is another note
    other_case = dict(note, id="hOSTILEiD01", forum="hOSTILEiD01")
    no_network.replace("GET", re.compile(r"https://api2\.openreview\.net/notes\?id=HostileId01"), json={"notes": [other_case]})
    run = cli("add", "--root", small_survey, "--openreview", "HostileId01")
    assert run.code == 1 and not list((small_survey / "corpus" / "papers").glob("*.yaml"))
    assert ("api2.openreview.net answered about openreview:'hOSTILEiD01' when asked for openreview:HostileId01"
            in run.err), run.err
    mine = dict(note, id="HostileId01", forum="HostileId01")
    no_network.replace("GET", re.compile(r"https://api2\.openreview\.net/notes\?id=HostileId01"), json={"notes": [mine, note]})
    run = cli("add", "--root", small_survey, "--openreview", "HostileId01")
    assert run.code == 1 and not list((small_survey / "corpus" / "papers").glob("*.yaml"))
    assert "api2.openreview.net answered 2 notes (first openreview:HostileId01) for openreview:HostileId01" in run.err, run.err


@pytest.mark.parametrize("status, what", [(403, "export.arxiv.org answered HTTP 403, not the paper's metadata"),
                                          (429, "export.arxiv.org answered HTTP 429 (rate limit): it asks to be asked later"),
                                          (503, "export.arxiv.org answered HTTP 503 (a server error): try again later")])
def test_an_arxiv_status_that_is_no_answer_is_named_not_called_no_paper_or_no_network(small_survey, cli, no_network,
                                                                                       status, what):
    no_network.get(ARXIV, status=status, body=b"", content_type="application/atom+xml")
    run = cli("add", "--root", small_survey, "2605.30001")
    assert run.code == 1 and what in run.err and "no network" not in run.err and "has no paper" not in run.err, run.err


def test_a_year_the_lookup_gives_that_no_record_may_have_is_blamed_on_the_lookup(small_survey, cli, no_network):
    no_network.get(CROSSREF, json=crossref_work(issued={"date-parts": [[1901, 5, 20]]}))
    run = cli("add", "--root", small_survey, "https://doi.org/10.5555/orch.1")
    assert run.code == 1 and not list((small_survey / "corpus" / "papers").glob("*.yaml"))
    assert run.err.startswith("command line and the metadata looked up for doi 10.5555/orch.1: year: 1901 is out of range"), run.err


@pytest.mark.parametrize("published, refused", [
    ("2019-03-01", True),   # years before the month its id names
    ("2025-04-30", True),   # 366 days before it
    ("2025-05-01", False),  # 365 days before: numbered when it was announced, after a hold by arXiv's moderators
    ("2026-04-28", False),  # numbered in the next month's first announcement
    ("2026-05-31", False),
    ("2026-06-02", True),   # after the month: numbered before it was submitted
])
def test_an_arxiv_answer_dated_outside_its_ids_month_is_about_another_paper(small_survey, cli, no_network, published, refused):
    no_network.get(ARXIV, body=atom(entry(published=f"{published}T10:00:00Z"), 1), content_type="application/atom+xml")
    run = cli("add", "--root", small_survey, "2605.30001", "--dry-run")
    assert run.code == refused, run.err
    if refused:
        assert (f"entry 1 (arxiv:2605.30001): published {published}: not in 2026-05, the month arXiv numbered 2605.30001 "
                "in (a first version is submitted then, or in the 365 days before): an answer about another paper") in run.err


ACL_BIB = """@inproceedings{lovelace-2019-orchestrators,
    title = "Orchestrators for Agent Teams",
    author = "Lovelace, Ada and Turing, Alan",
    booktitle = "Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics",
    year = "2019",
    url = "https://aclanthology.org/P19-1001",
    doi = "DOI",
}
"""


@pytest.mark.parametrize("body, what", [
    (ACL_BIB.replace("DOI", "10.18653/v1/P19-1001"), None),
    (ACL_BIB.replace("DOI", "10.18653/v1/P19-9999"),
     "names two different acl ids, P19-9999 (DOI 10.18653/v1/P19-9999) and P19-1001: which paper is it?"),
    ("<html><body>Not here</body></html>", "aclanthology.org answered no BibTeX entry for acl:P19-1001"),
    (ACL_BIB.replace("DOI", "10.18653/v1/P19-1001") + ACL_BIB.replace("DOI", "10.18653/v1/P19-1001").replace("2019-orch", "2019-other"),
     "aclanthology.org answered 2 BibTeX entries for acl:P19-1001, not one")])
def test_an_anthology_answer_is_the_paper_asked_for_or_is_named(small_survey, cli, no_network, body, what):
    no_network.get("https://aclanthology.org/P19-1001.bib", body=body.encode())
    run = cli("add", "--root", small_survey, "https://aclanthology.org/P19-1001/", "--dry-run")
    if what is None:
        assert run.code == 0 and "title: Orchestrators for Agent Teams" in run.out, run.err
        return
    assert run.code == 1 and what in run.err and "has no paper" not in run.err, run.err


def test_a_crossref_answer_naming_the_doi_in_other_case_is_the_same_work(small_survey, cli, no_network):
    no_network.get(CROSSREF, json=crossref_work(DOI="10.5555/ORCH.1"))
    run = cli("add", "--root", small_survey, "https://doi.org/10.5555/orch.1", "--dry-run")
    assert run.code == 0 and "doi: 10.5555/orch.1" in run.out, run.err + run.out


def test_an_anthology_answer_whose_page_is_another_papers_adds_nothing(small_survey, cli, no_network):
    """Without a DOI, the entry's url names its Anthology id: another paper's is refused."""
    body = ACL_BIB.replace('    doi = "DOI",\n', "").replace("P19-1001", "P19-1999")
    no_network.get("https://aclanthology.org/P19-1001.bib", body=body.encode())
    run = cli("add", "--root", small_survey, "https://aclanthology.org/P19-1001/", "--dry-run")
    assert run.code == 1 and "aclanthology.org answered about acl:'P19-1999' when asked for acl:P19-1001" in run.err, run.err


def test_a_crossref_work_with_its_preprint_is_the_record_an_update_round_makes(small_survey, cli, no_network):
    """`masrl add DOI` keeps the preprint's arXiv id (relation has-preprint) and names a work without container or
    publisher by its preprint, as an update round queues it."""
    preprint = {"has-preprint": [{"id-type": "arxiv", "id": "arXiv:2605.31001", "asserted-by": "subject"}]}
    no_network.get(CROSSREF, json=crossref_work(relation=preprint, **{"container-title": []}))
    run = cli("add", "--root", small_survey, "https://doi.org/10.5555/orch.1", "--dry-run")
    assert run.code == 0, run.err
    assert "identifiers:\n  arxiv: '2605.31001'\n  doi: 10.5555/orch.1\n" in run.out and "\nvenue: arXiv\n" in run.out, run.out


def test_an_openreview_note_that_does_not_open_its_forum_is_no_paper(small_survey, cli, no_network):
    note = {"id": "HostileId01", "forum": "OtherForum9", "content": {"title": {"value": "A Reply"},
                                                                    "authors": {"value": ["Ada Lovelace"]}}}
    no_network.get(re.compile(r"https://api2\.openreview\.net/notes\?id=HostileId01"), json={"notes": [note]})
    run = cli("add", "--root", small_survey, "--openreview", "HostileId01")
    assert run.code == 1 and not list((small_survey / "corpus" / "papers").glob("*.yaml"))
    assert ("api2.openreview.net answered a note of the forum openreview:'OtherForum9', not a paper, for "
            "openreview:HostileId01") in run.err, run.err
