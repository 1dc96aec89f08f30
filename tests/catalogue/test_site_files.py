"""The files of the catalogue site, without a browser: every page and asset, the same bytes on
every build, text escaped for HTML and for the embedded JSON, links only to http(s) URLs, and
``masrl build --check`` covering the site."""

from __future__ import annotations

import json
import re

from markupsafe import escape

from masrl.build.pipeline import build
from masrl.corpus.load import load
from masrl.render.site import TREE_FOLDER as FOLDER
from masrl.render.site import json_script, site_files
from masrl.render.site.data import _identifier_links, filter_link, safe_url
from trees import grown_only  # noqa: F401 - the grown tree only

PAGES = ["index.html", "taxonomy.html", "screening.html", "claims.html", "figures.html"]


def embedded(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="site-data">(.*?)</script>', page, re.S)
    return json.loads(match.group(1))


def site_of(root):
    """The site files of the pool of the survey at ``root`` (with its claims and release)."""
    b = build(load(root), {"survey_example": True})
    return site_files(b.pool, b.claims, b.baseline, b.pending)


def test_every_page_and_asset_deterministic(published_tree):
    first, second = site_of(published_tree), site_of(published_tree)
    assert sorted(first) == sorted(f"{FOLDER}/{p}" for p in PAGES + ["assets/site.css", "assets/site.js", "feed.xml"])
    assert first == second
    for name in PAGES:
        page = first[f"{FOLDER}/{name}"].decode()
        assert page.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
        # self-contained: no absolute URL is loaded (links to papers are fine, sources are not)
        assert not re.search(r'(src|href)="(https?:)?//[^"]*\.(js|css|woff2?|ttf)"', page)
        assert '<link rel="stylesheet" href="assets/site.css">' in page and '<script src="assets/site.js" defer>' in page


def test_hostile_text_is_escaped_in_html_and_json(survey, set_field):
    title = "</script><script>alert(1)</script> <img src=x onerror=alert(2)> & 'quotes' \"too\""
    set_field(survey / "corpus/papers/c3.yaml", "title", json.dumps(title))
    set_field(survey / "corpus/papers/c3.yaml", "one_liner", json.dumps("a </SCRIPT > b <!-- c"))
    page = site_of(survey)[f"{FOLDER}/index.html"].decode()
    assert "<script>alert(1)" not in page and "<img src=x" not in page and "</SCRIPT >" not in page
    assert str(escape(title)) in page  # the table cell, escaped
    data = embedded(page)
    paper = next(p for p in data["papers"] if p["key"] == "c3")
    assert paper["title"] == title and paper["one_liner"] == "a </SCRIPT > b <!-- c"
    assert page.count("</script>") == page.count("<script")  # nothing closes the data element early


def test_json_script_escapes_markup_characters():
    assert str(json_script({"a": "</script>&<!--"})) == '{"a":"\\u003c/script\\u003e\\u0026\\u003c!--"}'
    assert json.loads(str(json_script({"a": "</script>&<!--"}))) == {"a": "</script>&<!--"}


def test_links_are_only_http_urls(published_tree):
    assert safe_url("https://arxiv.org/abs/2505.19591") == "https://arxiv.org/abs/2505.19591"
    assert safe_url("http://example.org/a?b=1&c=2") == "http://example.org/a?b=1&c=2"
    for bad in ("javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,<b>", "//evil.org/x", "ftp://x.org/",
                "https://", "https://a b.org", "", None, "vbscript:x"):
        assert safe_url(bad) is None, bad
    results = build(load(published_tree), {"survey_example": True}).pool
    record = {"identifiers": {"doi": "10.1142/S0219525901000188", "label": "X-1", "url": ["javascript:alert(1)"]},
              "url": "javascript:alert(2) ; https://ok.org/p"}
    assert _identifier_links(record, results.tax) == [
        {"scheme": "doi", "label": "DOI", "id": "10.1142/S0219525901000188", "url": "https://doi.org/10.1142/S0219525901000188"},
        {"scheme": "label", "label": "screening label", "id": "X-1", "url": None},
        {"scheme": "url", "label": "landing-page URLs", "id": "javascript:alert(1)", "url": None},
        {"scheme": "url", "label": "landing page", "id": "https://ok.org/p", "url": "https://ok.org/p"}]


def test_filter_links_encode_values():
    assert filter_link("index.html", {"query_family": "multi-agent LLM", "q": "a&b=c#d"}) == \
        "index.html#query_family=multi-agent+LLM&q=a%26b%3Dc%23d"
    assert filter_link("index.html", {"reward_type": ["debate", "verifier"], "is_rl": "yes"}) == \
        "index.html#reward_type=debate&reward_type=verifier&is_rl=yes"
    assert filter_link("index.html", {}) == "index.html"


def test_taxonomy_cells_link_to_their_records_and_mark_gaps(published_tree):
    results = build(load(published_tree), {"survey_example": True}).pool
    page = site_of(published_tree)[f"{FOLDER}/taxonomy.html"].decode()
    hybrid_turn = int(results.table("reward_type_x_credit_granularity").frame.loc["hybrid", "turn"])
    assert (f'<a href="index.html#reward_type=hybrid&amp;credit_granularity=turn">{hybrid_turn}'
            '<span class="visually-hidden"> records</span></a>') in page
    assert page.count('(gap: no record)') >= 60  # every empty, non-structural crosstab cell
    assert '<a href="screening.html#stage=abstract_screen&amp;reason_class=X1">' in page  # excluded-record crosstab


def test_build_writes_the_site_and_check_covers_it(survey, cli):
    assert cli("build", "--root", survey).code == 0
    assert not (survey / "reports/papers.html").exists()
    site = survey / "reports/site"
    assert sorted(p.name for p in (site / "figures").iterdir()) == sorted(
        p.name for p in (survey / "reports/figures").glob("*.svg"))
    assert (site / "figures/prisma_flow.svg").read_bytes() == (survey / "reports/figures/prisma_flow.svg").read_bytes()
    index = site / "index.html"
    index.write_text(index.read_text().replace("Papers", "Paperz", 1))
    run = cli("build", "--check", "--root", survey)
    assert run.code == 1 and "stale: reports/site/index.html" in run.err.splitlines()


def test_records_added_since_the_release_are_marked_new(grown_survey):
    import grow

    survey = grown_survey  # papers added and an exclusion logged through the CLI, then built (grow.grow)
    result = build(load(survey), {"survey_example": True})
    pending, latest = result.pending, result.baseline.name
    assert {p["key"] for p in grow.PAPERS} <= set(pending.retained)
    site = survey / "reports/site"
    page = (site / "index.html").read_text()
    data = embedded(page)
    new = sorted(p["key"] for p in data["papers"] if p["is_new"])
    assert new == sorted(pending.retained)
    assert {p["tags"]["release"] for p in data["papers"] if not p["is_new"]} == {latest}
    facet = next(f for f in data["facets"] if f["field"] == "release")
    assert [v["code"] for v in facet["values"]] == [latest, "new"] and facet["values"][1]["label"] == f"new since {latest}"
    if latest == "v1":  # the survey as published
        assert facet["values"][0] == {"code": "v1", "label": "in release v1 (published)"}
    assert page.count(f'<span class="badge new">new since {latest}</span>') == len(new) + 1  # each row, and the note
    assert f"{len(new)} records added since are marked" in page
    screening = (site / "screening.html").read_text()
    assert screening.count(f'<span class="badge new">new since {latest}</span>') == len(pending.excluded)


def test_the_names_the_sites_address_gives_its_state_are_the_ones_no_field_may_take(repo):
    """site.js reads and writes these names in the page's fragment; validate refuses a field of one of them."""
    import re

    from masrl.corpus.records import SITE_ADDRESS_KEYS
    from masrl.render.site.data import RELEASE_FIELD

    script = (repo / "src/masrl/render/site/assets/site.js").read_text(encoding="utf-8")
    literal = set(re.findall(r'\bp\.(?:get|getAll|append)\("([A-Za-z_]+)"', script))
    assert literal | {RELEASE_FIELD} == set(SITE_ADDRESS_KEYS)
