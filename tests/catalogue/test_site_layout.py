"""The catalogue site of a survey written for these tests (the soil survey of tests/second_survey.py,
with long names, long tokens and vocabulary codes that are names of JavaScript's object model), in
the distribution's headless Chromium: the paper list fits a 1400 px window without the page
scrolling sideways, the search box fits a 400 px one, and a facet value ``__proto__`` or
``constructor`` filters like any other."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from masrl.build.pipeline import build
from masrl.corpus.load import load
from masrl.render.site import site_files

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import second_survey  # noqa: E402  (tests/second_survey.py)

#: Words no line can break, as real records have them: a long surname, a one-liner's slashed terms.
LONG_AUTHOR = "Wolfeschlegelsteinhausenbergerdorff, Hubert"
LONG_TOKEN = "spectroscopy/chemometrics/calibration/transfer/validation/uncertainty/budgets/archives"


@pytest.fixture(scope="module")
def layout_site(tmp_path_factory) -> Path:
    """The site of the soil survey with two records tagged ``__proto__`` and ``constructor`` and one
    with a long surname and a long token in its one-liner (no figures: the pages only)."""
    root = second_survey.write_survey(tmp_path_factory.mktemp("layout") / "soil")
    tax = root / "corpus/taxonomy.yaml"
    tax.write_text(tax.read_text(encoding="utf-8").replace(
        "      landscape: {label: landscape, definition: many fields, source: \"test survey\"}\n",
        "      landscape: {label: landscape, definition: many fields, source: \"test survey\"}\n"
        "      __proto__: {label: prototype plots, definition: a code named like JavaScript's prototype, source: \"test survey\"}\n"
        "      constructor: {label: constructed soils, definition: a code named like an object's constructor, "
        "source: \"test survey\"}\n"), encoding="utf-8")
    for key, changes in {"garcia2021": {"scale": "__proto__"}, "tanaka2024": {"scale": "constructor"},
                         "jones2020": {"authors": [LONG_AUTHOR, "others"], "first_author": LONG_AUTHOR,
                                       "one_liner": f"Combustion {LONG_TOKEN} study of soil carbon"}}.items():
        path = root / f"corpus/papers/{key}.yaml"
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        data.update(changes)
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    result = build(load(root))
    out = root / "site"
    for rel, data in site_files(result.pool, result.claims, result.baseline, result.pending).items():
        path = out / rel.split("/", 1)[1]  # "site/index.html" -> index.html
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return out


@pytest.fixture
def sized(browser, layout_site):
    """``sized(width, fragment="")`` loads the paper list in a window ``width`` px wide; the window
    is 1400 x 1000 again after the test (the other browser tests' size)."""
    def load_at(width: int, fragment: str = ""):
        browser.set_window_size(width, 900)
        browser.get("about:blank")
        browser.get((layout_site / "index.html").as_uri() + (f"#{fragment}" if fragment else ""))
        return browser

    yield load_at
    browser.set_window_size(1400, 1000)


def _layout(driver) -> dict:
    return driver.execute_script("""
        var box = function (el) { var r = el.getBoundingClientRect(); return [r.left, r.right]; };
        var wrap = document.querySelector('.table-wrap');
        var heads = Array.from(document.querySelectorAll('#papers thead th'));
        return {client: document.documentElement.clientWidth, page: document.documentElement.scrollWidth,
                search: box(document.getElementById('q')), wrap: box(wrap),
                wrapScroll: [wrap.clientWidth, wrap.scrollWidth], last: box(heads[heads.length - 1])};""")


def test_the_paper_list_fits_a_1400_px_window(sized):
    layout = _layout(sized(1400))
    assert layout["page"] <= layout["client"], layout  # the page never scrolls sideways
    assert layout["last"][1] <= layout["wrap"][1] + 0.5, layout  # the last column is on screen
    assert layout["wrapScroll"][1] <= layout["wrapScroll"][0], layout


def test_the_search_box_fits_a_400_px_window(sized):
    layout = _layout(sized(400))
    assert layout["page"] <= layout["client"], layout
    assert 0 <= layout["search"][0] < layout["search"][1] <= layout["client"], layout
    # the table scrolls inside its box, not the page
    assert layout["wrap"][1] <= layout["client"] and layout["wrapScroll"][1] > layout["wrapScroll"][0], layout


def _visible(driver) -> list[str]:
    return sorted(driver.execute_script(
        "return Array.from(document.querySelectorAll('#papers tbody tr')).filter(r => !r.hidden).map(r => r.dataset.key)"))


def _shows(driver, check) -> None:
    """Wait until the keys the table shows pass ``check`` (a view follows a change of the fragment on
    the page's ``hashchange`` event, which the browser fires after the click has returned)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 10).until(lambda d: check(_visible(d)), message=f"the table shows {_visible(driver)}")


@pytest.mark.parametrize("code, keys", [("__proto__", ["garcia2021"]), ("constructor", ["tanaka2024"]),
                                        ("plot", ["muller2023", "okafor2022", "smith2019"])])
def test_a_facet_value_named_like_an_object_property_filters(sized, code, keys):
    from selenium.webdriver.common.by import By

    driver = sized(1400, f"scale={code}")
    _shows(driver, lambda shown: shown == keys)
    box = driver.find_element(By.CSS_SELECTOR, f'#filters input[name="scale"][value="{code}"]')
    assert box.is_selected()
    chips = driver.execute_script("return Array.from(document.querySelectorAll('#active button')).map(b => b.textContent)")
    assert len(chips) == 1 and chips[0].startswith("Spatial scale: ")
    box.click()  # unticked: every record again
    _shows(driver, lambda shown: len(shown) == 7)
    box.click()
    _shows(driver, lambda shown: shown == keys)
