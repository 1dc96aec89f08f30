"""The catalogue site in a real headless Chromium, loaded from disk.

Each test drives one view the way a reader would (type a search, tick facets, click a crosstab
cell and a sub-decision, open a paper, search the exclusion log) and checks that the rows left
visible are exactly what pandas selects from the records for the same filter. The ``page``
fixture checks after every test that the console holds no error and that nothing was requested
from the network. Every view is saved as a screenshot under ``test-output/site/``; axe-core
checks the accessibility of every page.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pandas as pd
import pytest

from masrl.core.fold import ascii_words

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
#: Screenshots of every view the browser tests visit, for people to look at (gitignored).
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "site"


@pytest.fixture(scope="session")
def site_results(published_build):
    """The results of the current pool (what the site shows)."""
    return published_build.pool


@pytest.fixture(scope="session")
def site_dir(published_tree) -> Path:
    """The catalogue site of the test survey, as its build wrote it (read-only)."""
    return published_tree / "reports/site"



def fold(text: str) -> str:
    """Lower case without accents (what the site's search compares)."""
    letters = str.maketrans({"ł": "l", "ø": "o", "ß": "ss", "æ": "ae", "œ": "oe", "đ": "d", "þ": "th", "ð": "d", "ı": "i",
                             "ħ": "h", "ə": "e", "ɛ": "e", "ɔ": "o", "ŋ": "ng",
                             "'": "", "`": "", "\u2018": "", "\u2019": "", "\u02bb": "", "\u02bc": ""})
    text = "".join(c for c in unicodedata.normalize("NFKD", str(text).lower()) if not unicodedata.combining(c))
    return text.translate(letters).lower()


@pytest.fixture(scope="session")
def records(site_results) -> pd.DataFrame:
    """One row per retained record (index key): the typed frame plus ``search``, the text the
    site searches (title, every author's full name, one-liner, venue), accent-folded."""
    frame = site_results.retained.copy()
    texts = {}
    for r in site_results.retained_records:
        names = [" ".join(reversed([p.strip() for p in a.split(",", 1)])) for a in r["authors"] if a != "others"]
        texts[r["key"]] = [fold(r["title"]), fold(" ".join(names)), fold(r.get("one_liner", "")), fold(r.get("venue", ""))]
        shown = " ".join([r["title"], *names, r.get("one_liner", ""), r.get("venue", "")])
        if not shown.isascii():  # the spelling masrl's keys use, which the site searches too
            texts[r["key"]].append(ascii_words(shown))
    frame["search"] = pd.Series(texts)
    return frame


def search(frame: pd.DataFrame, query: str) -> pd.DataFrame:
    """The rows whose searched text holds every word of ``query`` (within one field)."""
    words = fold(query).split()
    mask = frame["search"].map(lambda fields: all(any(w in f for f in fields) for w in words))
    return frame[mask]


@pytest.fixture
def page(browser, site_dir):
    """``page(name_and_fragment)`` loads a page of the site from disk; after the test, the console
    must hold no error and no request may have left ``file://``."""
    import json

    browser.get_log("browser")
    browser.get_log("performance")

    def load_page(path: str):
        browser.get("about:blank")  # a fresh document, even when only the fragment differs
        browser.get((site_dir / path.split("#")[0]).as_uri() + ("#" + path.split("#", 1)[1] if "#" in path else ""))
        return browser

    yield load_page
    errors = [e for e in browser.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]
    assert errors == [], errors
    messages = (json.loads(entry["message"])["message"] for entry in browser.get_log("performance"))
    requests = [m["params"]["request"]["url"] for m in messages if m.get("method") == "Network.requestWillBeSent"]
    assert requests, "no request was logged at all: the network log does not work"
    # chrome://, chrome-search://, chrome-untrusted://: the browser's own pages (a new tab page that a
    # fresh browser may still be loading), which never reach the network
    assert [u for u in requests if not u.startswith(("file://", "data:", "about:", "chrome://", "chrome-search://",
                                                      "chrome-untrusted://"))] == []


@pytest.fixture
def screenshot(browser):
    """``screenshot(name)`` writes the current view to ``test-output/site/<name>.png``."""

    def take(name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        browser.save_screenshot(str(path))
        return path

    return take


def wait(driver, condition, timeout: float = 5.0):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: condition())


def visible_keys(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#papers tbody tr')).filter(r => !r.hidden).map(r => r.dataset.key)")


def visible_ids(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#exclusions tbody tr')).filter(r => !r.hidden).map(r => r.dataset.id)")


def fragment(driver) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(driver.current_url).fragment)


def settled_fragment(driver, expected: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Wait until the URL's fragment is ``expected`` and return it: the page rewrites it from an
    event handler (a dialog's ``close`` event runs after ``open`` is already false), so a busy
    browser may not have done it yet when the test looks. The assertion after it shows a difference."""
    try:
        wait(driver, lambda: fragment(driver) == expected)
    except Exception:  # noqa: BLE001 - the assertion below shows the difference
        pass
    return fragment(driver)


def shows(driver, expected_keys) -> list[str]:
    """Wait until the list shows ``expected_keys`` (any order) and return what it shows."""
    expected = sorted(expected_keys)
    try:
        wait(driver, lambda: sorted(visible_keys(driver)) == expected)
    except Exception:  # noqa: BLE001 - the assertion below shows the difference
        pass
    return sorted(visible_keys(driver))


def facet_box(driver, field: str, value: str):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, f'#filters input[name="{field}"][value="{value}"]')


def test_search_and_two_facets_match_pandas(page, records, screenshot):
    from selenium.webdriver.common.by import By

    driver = page("index.html")
    assert shows(driver, records.index) == sorted(records.index)
    box = driver.find_element(By.ID, "q")
    box.send_keys("credit")
    expected = search(records, "credit")
    assert 0 < len(expected) < len(records)
    assert shows(driver, expected.index) == sorted(expected.index)
    facet_box(driver, "category", "rl_method").click()
    facet_box(driver, "is_rl", "yes").click()
    expected = expected[(expected["category"].astype(str) == "rl_method") & (expected["is_rl"].astype(str) == "yes")]
    assert shows(driver, expected.index) == sorted(expected.index)
    address = [("q", "credit"), ("category", "rl_method"), ("is_rl", "yes")]
    assert settled_fragment(driver, address) == address
    status = driver.find_element(By.ID, "status").text
    assert status == f"Showing {len(expected)} of {len(records)} records"
    # live counts: each reward type's count is what the other filters leave with that reward type
    for code, n in expected["reward_type"].astype(str).value_counts().items():
        count = driver.find_element(By.CSS_SELECTOR, f'[data-count="reward_type={code}"]').text
        assert count == str(n), code
    screenshot("papers-search-and-facets")
    # the address reproduces the view
    url = driver.current_url
    driver.get("about:blank")
    driver.get(url)
    assert shows(driver, expected.index) == sorted(expected.index)
    assert driver.find_element(By.ID, "q").get_attribute("value") == "credit"
    assert facet_box(driver, "category", "rl_method").is_selected()


@pytest.mark.parametrize("query", ["osullivan", "O’Sullivan", "o'sulłivan", "OSULLIVAN"])
def test_a_search_folds_apostrophes_and_letters_unicode_does_not_decompose(page, records, query):
    """Run 45: "obrien" found no O'Brien and "Walesa" no Wałęsa, though masrl's keys fold them (obrien2021, walesa2020)."""
    from selenium.webdriver.common.by import By

    driver = page("index.html")
    driver.find_element(By.ID, "q").send_keys(query)
    expected = search(records, query)
    assert list(expected.index) == ["survey-collab"]  # Barry O'Sullivan's
    assert shows(driver, expected.index) == sorted(expected.index)


@pytest.mark.parametrize("query", ["𝐂𝐫𝐞𝐝𝐢𝐭", "ＣＲＥＤＩＴ", "CREDIT"])
def test_a_query_in_compatibility_capitals_finds_what_its_letters_find(page, records, query):
    """Run 47: the query was lower-cased before NFKD, so ℝ and 𝐐 stayed capitals and found nothing."""
    from selenium.webdriver.common.by import By

    driver = page("index.html")
    driver.find_element(By.ID, "q").send_keys(query)
    expected = search(records, "credit")
    assert 0 < len(expected) < len(records) and list(search(records, query).index) == list(expected.index)
    assert shows(driver, expected.index) == sorted(expected.index)


def test_multi_valued_facets_need_every_checked_value(page, records):
    driver = page("index.html#eval_measures=E1&eval_measures=E2")
    both = records[records["eval_measures"].map(lambda tags: "E1" in tags and "E2" in tags)]
    assert len(both) > 0
    assert shows(driver, both.index) == sorted(both.index)


def test_sorting_by_year_and_title(page, records):
    from selenium.webdriver.common.by import By

    driver = page("index.html#category=benchmark")
    driver.find_element(By.CSS_SELECTOR, 'button[data-sort="year"]').click()
    wait(driver, lambda: ("sort", "year") in fragment(driver))
    # the table is drawn after the fragment changes: its sorted column's header says when it is
    wait(driver, lambda: driver.find_element(By.CSS_SELECTOR, 'th[data-col="year"]').get_attribute("aria-sort") == "descending")
    keys = visible_keys(driver)
    years = [int(records.loc[k, "year"]) for k in keys]
    assert years == sorted(years, reverse=True)
    driver.find_element(By.CSS_SELECTOR, 'button[data-sort="title"]').click()
    wait(driver, lambda: ("sort", "title") in fragment(driver))
    wait(driver, lambda: driver.find_element(By.CSS_SELECTOR, 'th[data-col="title"]').get_attribute("aria-sort") is not None)
    titles = [records.loc[k, "title"].lower() for k in visible_keys(driver)]
    assert titles == sorted(titles)


def test_crosstab_cell_lists_its_records(page, records, screenshot):
    from selenium.webdriver.common.by import By

    driver = page("taxonomy.html")
    screenshot("taxonomy")
    table = driver.find_element(By.ID, "reward_type_x_credit_granularity")
    link = table.find_element(By.XPATH, "following::table[1]").find_element(
        By.CSS_SELECTOR, 'a[href="index.html#reward_type=hybrid&credit_granularity=turn"]')
    link.click()
    expected = records[(records["reward_type"].astype(str) == "hybrid") & (records["credit_granularity"].astype(str) == "turn")]
    assert len(expected) > 0
    assert shows(driver, expected.index) == sorted(expected.index)
    assert link_count(driver) == len(expected)
    screenshot("papers-from-crosstab-cell")
    # an empty cell is marked as a gap and links nowhere
    driver.back()
    gap = driver.execute_script(
        "const t = document.getElementById('reward_type_x_credit_granularity').nextElementSibling.querySelector('table');"
        "const cell = t.tBodies[0].rows[0].cells[1];"  # shared team reward x token
        "return [cell.textContent.trim(), cell.querySelector('a') === null, cell.querySelector('.gap') !== null];")
    assert gap == ["× 0 (gap: no record)", True, True]


def link_count(driver) -> int:
    text = driver.execute_script("return document.getElementById('status').textContent")
    return int(text.split()[1])


def test_o_decision_lists_its_records(page, records, screenshot):
    from selenium.webdriver.common.by import By

    driver = page("taxonomy.html#subdecisions")
    driver.find_element(By.CSS_SELECTOR, 'a[href="index.html#subdecisions=O1"]').click()
    expected = records[records["subdecisions"].map(lambda tags: "O1" in tags)]
    assert len(expected) > 0
    assert shows(driver, expected.index) == sorted(expected.index)
    assert facet_box(driver, "subdecisions", "O1").is_selected()
    screenshot("papers-from-o1")
    driver.back()
    driver.find_element(By.CSS_SELECTOR, 'a[href="index.html#subdecisions=O1&is_rl=yes"]').click()
    expected = expected[expected["is_rl"].astype(str) == "yes"]
    assert shows(driver, expected.index) == sorted(expected.index)


def test_open_a_paper(page, records, site_results, screenshot, published_tree):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver = page("index.html#category=rl_method")
    driver.find_element(By.CSS_SELECTOR, 'tr[data-key="puppeteer"] a.open').click()
    wait(driver, lambda: driver.execute_script("return document.getElementById('detail').open"))
    address = [("category", "rl_method"), ("paper", "puppeteer")]
    assert settled_fragment(driver, address) == address
    dialog = driver.find_element(By.ID, "detail")
    record = next(r for r in site_results.retained_records if r["key"] == "puppeteer")
    assert dialog.find_element(By.ID, "detail-title").text == record["title"]
    assert record["one_liner"] in dialog.text
    link = dialog.find_element(By.CSS_SELECTOR, ".identifiers a")
    assert (link.text, link.get_attribute("href")) == ("2505.19591", "https://arxiv.org/abs/2505.19591")
    rows = {r.find_element(By.TAG_NAME, "th").text: r.find_elements(By.TAG_NAME, "td")
            for r in dialog.find_elements(By.CSS_SELECTOR, "table tbody tr")}
    assert rows["Credit mechanism"][0].text == "strict"
    assert rows["Credit mechanism"][1].text == "survey: claim ledger (strict reading of the sparse cells)"
    assert rows["Orchestration sub-decisions"][0].text == "O2 whom to delegate to"
    assert rows["Category"][1].text.startswith("as imported (upstream papers.csv line 11")
    bib = dialog.find_element(By.ID, "bibtex").get_attribute("value")
    assert bib.startswith("@inproceedings{puppeteer,\n  title = {Multi-Agent Collaboration via Evolving Orchestration},")
    assert bib in (published_tree / "reports/papers.bib").read_text()  # the entry of the exported bibliography
    dialog.find_element(By.ID, "copy-bibtex").click()
    wait(driver, lambda: dialog.find_element(By.ID, "copy-status").text != "")
    screenshot("paper-detail")
    dialog.send_keys(Keys.ESCAPE)
    wait(driver, lambda: not driver.execute_script("return document.getElementById('detail').open"))
    address = [("category", "rl_method")]
    assert settled_fragment(driver, address) == address
    # a link to a paper opens it directly
    driver.get("about:blank")
    driver = page("index.html#paper=c3")
    wait(driver, lambda: driver.execute_script("return document.getElementById('detail').open"))
    assert driver.find_element(By.ID, "detail-title").text == records.loc["c3", "title"]


def test_keyboard_reaches_and_ticks_a_facet(page, records):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver = page("index.html")
    box = facet_box(driver, "category", "survey")
    driver.execute_script("arguments[0].focus()", box)
    driver.switch_to.active_element.send_keys(Keys.SPACE)
    expected = records[records["category"].astype(str) == "survey"]
    assert shows(driver, expected.index) == sorted(expected.index)
    assert driver.find_element(By.CSS_SELECTOR, "#active button").get_attribute("aria-label") == "Remove filter: Category: Survey"


def test_exclusion_log_search_and_filters(page, site_results, screenshot):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    excluded = site_results.excluded
    near = {r["record_id"] for r in site_results.excluded_records if r.get("if_retained")}
    driver = page("screening.html")
    assert sorted(visible_ids(driver)) == sorted(excluded.index)
    driver.find_element(By.ID, "xq").send_keys("debate")
    words = excluded["exclusion_reason"].str.lower().str.contains("debate") | \
        excluded["screening_label"].str.lower().str.contains("debate")
    expected = sorted(excluded.index[words])
    assert expected
    wait(driver, lambda: sorted(visible_ids(driver)) == expected)
    assert sorted(visible_ids(driver)) == expected
    driver.find_element(By.ID, "xq").clear()
    driver.execute_script("document.getElementById('xq').dispatchEvent(new Event('input'))")
    Select(driver.find_element(By.ID, "xstage")).select_by_value("full_text_screen")
    Select(driver.find_element(By.ID, "xnear")).select_by_value("yes")
    expected = sorted(k for k in excluded.index[excluded["stage"].astype(str) == "full_text_screen"] if k in near)
    wait(driver, lambda: sorted(visible_ids(driver)) == expected)
    assert sorted(visible_ids(driver)) == expected
    address = [("stage", "full_text_screen"), ("near_miss", "yes")]
    assert settled_fragment(driver, address) == address
    screenshot("screening-exclusion-log")
    # a count of the PRISMA table opens the log at that stage and reason class
    driver = page("screening.html")
    driver.find_element(By.CSS_SELECTOR, 'a[href="#stage=abstract_screen&reason_class=X2"]').click()
    expected = sorted(excluded.index[(excluded["stage"].astype(str) == "abstract_screen")
                                     & (excluded["reason_class"].astype(str) == "X2")])
    wait(driver, lambda: sorted(visible_ids(driver)) == expected)
    assert sorted(visible_ids(driver)) == expected
    screenshot("screening-prisma")


def test_claims_and_figures_pages(page, published_build, screenshot):
    from selenium.webdriver.common.by import By

    driver = page("claims.html")
    rows = driver.find_elements(By.CSS_SELECTOR, "main > table tbody tr")
    assert len(rows) == len(published_build.claims)
    claim = next(c for c in published_build.claims if c.id == "message-credit-sparse")
    keys = [k for check in claim.checks for k in check.keys]
    assert len(set(keys)) > 1
    section = driver.find_element(By.ID, f"claim-{claim.id}").find_element(By.XPATH, "..")
    links = [a.text for a in section.find_elements(By.CSS_SELECTOR, "tbody a") if a.text != "open in the list"]
    assert links == keys
    screenshot("claims")
    section.find_element(By.LINK_TEXT, "open in the list").click()
    first = sorted(claim.checks[0].keys)
    assert shows(driver, first) == first
    driver = page("figures.html")
    wait(driver, lambda: driver.execute_script(
        "return Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)"))
    assert len(driver.find_elements(By.CSS_SELECTOR, "figure img")) == 7
    screenshot("figures")


@pytest.mark.parametrize("view", ["index.html", "index.html#paper=puppeteer", "taxonomy.html", "screening.html",
                                  "claims.html", "figures.html"])
def test_accessibility_axe(page, view):
    driver = page(view)
    if "paper=" in view:
        wait(driver, lambda: driver.execute_script("return document.getElementById('detail').open"))
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {preload: false, runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})"
        ".then(r => done(JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))))).catch(e => done(JSON.stringify([{id: 'axe error', help: String(e)}])));")
    assert json.loads(result) == []


@pytest.mark.parametrize("fragment_text", [
    "paper=constructor", "paper=__proto__", "paper=toString", "category=constructor&paper=hasOwnProperty",
    "sort=constructor&dir=desc", "sort=__proto__", "category=__proto__",
])
def test_a_fragment_naming_an_object_property_is_an_unknown_key(page, records, fragment_text):
    """Keys, codes and columns of the fragment are looked up as data, never as properties of
    Object.prototype: the list shows every record, no dialog opens, the console stays clean."""
    driver = page("index.html#" + fragment_text)
    assert shows(driver, list(records.index)) == sorted(records.index)
    assert driver.execute_script("return document.getElementById('detail').open") is False
    assert driver.execute_script("return document.getElementById('active').children.length") == 0
