"""A paper's abstract: kept in the free field the taxonomy names (screening.abstract), read by the
suggestions and the screening rank, and shown by no published report.

Every survey here is a new one (`masrl init`) or a copy of the bundled one (`survey`), changed by
the test: nothing reads the repository's own corpus."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from grow import set_field
from masrl.corpus.load import load
from masrl.corpus.taxonomy import Taxonomy
from masrl.review.suggest import screening, text

ABSTRACT = "We assign counterfactual credit to every message between the planner and the executor agents."
ARXIV_ATOM = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"
      xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
  <opensearch:totalResults>1</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <opensearch:itemsPerPage>1</opensearch:itemsPerPage>
  <entry>
    <id>http://arxiv.org/abs/2606.01234v1</id>
    <updated>2026-06-02T00:00:00Z</updated>
    <published>2026-06-02T00:00:00Z</published>
    <title>Message Credit for Planner Teams</title>
    <summary>We assign counterfactual credit to every message
      between the planner and the executor\u200b agents.</summary>
    <author><name>Ada Lovelace</name></author>
    <link href="http://arxiv.org/abs/2606.01234v1" rel="alternate" type="text/html"/>
    <arxiv:primary_category term="cs.MA" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.MA" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>
"""


@pytest.fixture
def new_survey(tmp_path, cli):
    root = tmp_path / "survey"
    assert cli("init", str(root), "--title", "Credit in agent teams: a survey").code == 0
    return root


def _taxonomy(root):
    return yaml.safe_load((root / "corpus/taxonomy.yaml").read_text(encoding="utf-8"))


def _write_taxonomy(root, data) -> None:
    (root / "corpus/taxonomy.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _add_by_id(cli, root, no_network):
    no_network.get(re.compile(r"https://export\.arxiv\.org/api/query\?.*id_list=2606\.01234.*"),
                   body=ARXIV_ATOM, content_type="application/atom+xml")
    run = cli("add", "--root", root, "2606.01234")
    assert run.code == 0, run.err
    (path,) = (root / "corpus/papers").glob("*.yaml")
    return path


def _tag(root, path) -> None:
    set_field(path, "method", "learned")
    set_field(path, "evaluation", "[benchmark]")
    set_field(path, "one_liner", "Message-level credit for planner teams")


def test_a_new_survey_declares_the_abstract_as_a_free_field(new_survey):
    data = _taxonomy(new_survey)
    assert data["screening"]["abstract"] == "abstract"
    assert data["free_fields"]["abstract"]["type"] == "text"
    assert Taxonomy(data).abstract_field == "abstract" and Taxonomy(data).abstract_declared


def test_add_by_id_keeps_the_abstract_it_looks_up_on_one_line(new_survey, cli, no_network):
    path = _add_by_id(cli, new_survey, no_network)
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert record["abstract"] == ABSTRACT  # the line break and the zero-width space of the source are gone
    _tag(new_survey, path)
    check = cli("validate", "--root", new_survey)
    assert check.code == 0, check.err


def test_the_abstract_goes_into_the_field_the_taxonomy_names(new_survey, cli, no_network):
    data = _taxonomy(new_survey)
    data["free_fields"]["summary"] = data["free_fields"].pop("abstract")
    data["screening"]["abstract"] = "summary"
    _write_taxonomy(new_survey, data)
    path = _add_by_id(cli, new_survey, no_network)
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert record["summary"] == ABSTRACT and "abstract" not in record
    _tag(new_survey, path)
    assert cli("validate", "--root", new_survey).code == 0
    # the field's name is the survey's: masrl's old field is no field of this survey
    text_ = path.read_text(encoding="utf-8").replace("summary:", "abstract:")
    path.write_text(text_, encoding="utf-8")
    check = cli("validate", "--root", new_survey)
    assert check.code == 1 and "abstract" in check.err


@pytest.mark.parametrize("named, why", [
    ("method", "'method' is none; allowed: abstract"),
    ("nothing", "'nothing' is none; allowed: abstract"),
])
def test_the_abstract_role_must_name_a_free_text_field_of_retained_records(new_survey, cli, named, why):
    data = _taxonomy(new_survey)
    data["screening"]["abstract"] = named
    _write_taxonomy(new_survey, data)
    check = cli("validate", "--root", new_survey)
    assert check.code == 1
    assert ("screening.abstract must name a free text field of retained records (type text or multiline, under "
            f"free_fields); {why}") in check.err


def test_a_taxonomy_that_names_no_abstract_field_keeps_masrls_own(new_survey, cli, no_network):
    """Surveys written before taxonomies declared the field: their records' abstract stays valid."""
    data = _taxonomy(new_survey)
    del data["screening"]["abstract"]
    del data["free_fields"]["abstract"]
    _write_taxonomy(new_survey, data)
    assert Taxonomy(data).abstract_field == "abstract" and not Taxonomy(data).abstract_declared
    path = _add_by_id(cli, new_survey, no_network)
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["abstract"] == ABSTRACT
    _tag(new_survey, path)
    check = cli("validate", "--root", new_survey)
    assert check.code == 0, check.err


def test_no_published_report_shows_the_abstract(new_survey, cli, no_network):
    path = _add_by_id(cli, new_survey, no_network)
    _tag(new_survey, path)
    built = cli("build", "--root", new_survey)
    assert built.code == 0, built.err
    reports = new_survey / "reports"
    papers = json.loads((reports / "papers.json").read_text(encoding="utf-8"))
    assert papers and "abstract" not in papers[0]
    leaked = [p.relative_to(new_survey).as_posix() for p in reports.rglob("*") if p.is_file()
              and p.suffix in (".json", ".bib", ".md", ".html", ".js", ".csv", ".tex", ".xml")
              and "counterfactual credit to every message" in p.read_text(encoding="utf-8", errors="replace")]
    assert leaked == []
    assert "counterfactual credit to every message" not in (new_survey / "README.md").read_text(encoding="utf-8")


def test_suggestions_and_the_screening_rank_read_the_abstract(survey):
    corpus = load(survey)
    tax = Taxonomy(corpus.taxonomy)
    stub = {"title": "A Study", "venue": "arXiv", tax.abstract_field: ABSTRACT, "one_liner": "untagged"}
    assert text.record_text(stub, tax.abstract_field, stub=True) == f"A Study\n{ABSTRACT}\narXiv"
    assert text.record_text(stub, None, stub=True) == "A Study\narXiv"  # records without one still work
    assert text.screening_text(stub, tax.abstract_field) == f"A Study\n{ABSTRACT}"
    # the same title ranks higher with an abstract in the words of the retained records than without
    words = " ".join(r["title"] for r in list(corpus.retained.values())[:8])
    plain = {"title": "An Untitled Preprint"}
    told = {"title": "An Untitled Preprint", tax.abstract_field: words}
    ranked = {r.index: r for r in screening.rank_candidates(corpus, [plain, told])}
    assert ranked[1].rank == 1 and ranked[1].score > ranked[0].score
