"""Fixtures of the site tests: the test survey's site as its build wrote it, the pandas view of the
same records, and a headless Chromium driven by selenium.

The browser is the distribution's (``apt-get install chromium chromium-driver``); nothing is
downloaded. Where it is missing the browser tests are skipped, and the run says so at its end;
with ``MASRL_REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing browser fails them instead.
"""

from __future__ import annotations

import os
import shutil
import unicodedata
from pathlib import Path

import pandas as pd
import pytest


REPO = Path(__file__).resolve().parents[2]
#: Screenshots of every view the browser tests visit, for people to look at (gitignored).
SCREENSHOTS = REPO / "test-output" / "site"
REQUIRE = "MASRL_REQUIRE_BROWSER"
BROWSERS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVERS = ("/usr/bin/chromedriver",)
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000")


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
    return "".join(c for c in unicodedata.normalize("NFD", str(text)) if not unicodedata.combining(c)).lower()


@pytest.fixture(scope="session")
def records(site_results) -> pd.DataFrame:
    """One row per retained record (index key): the typed frame plus ``search``, the text the
    site searches (title, every author's full name, one-liner, venue), accent-folded."""
    frame = site_results.retained.copy()
    texts = {}
    for r in site_results.retained_records:
        names = [" ".join(reversed([p.strip() for p in a.split(",", 1)])) for a in r["authors"] if a != "others"]
        texts[r["key"]] = [fold(r["title"]), fold(" ".join(names)), fold(r.get("one_liner", "")), fold(r.get("venue", ""))]
    frame["search"] = pd.Series(texts)
    return frame


def search(frame: pd.DataFrame, query: str) -> pd.DataFrame:
    """The rows whose searched text holds every word of ``query`` (within one field)."""
    words = fold(query).split()
    mask = frame["search"].map(lambda fields: all(any(w in f for f in fields) for w in words))
    return frame[mask]


def _found(paths: tuple, name: str) -> str | None:
    return next((p for p in paths if os.access(p, os.X_OK)), None) or shutil.which(name)


def _missing_browser() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install '.[test]')"
    if not _found(BROWSERS, "chromium") or not _found(DRIVERS, "chromedriver"):
        return "Chromium or chromedriver not found (apt-get install chromium chromium-driver)"
    return None


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """A headless Chromium (selenium WebDriver) that logs the console and every network request."""
    missing = _missing_browser()
    if missing:
        if os.environ.get(REQUIRE):
            pytest.fail(f"browser tests need a browser ({REQUIRE} is set): {missing}")
        pytest.skip(f"browser tests skipped: {missing}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # never let selenium look for a driver online
    options = webdriver.ChromeOptions()
    options.binary_location = _found(BROWSERS, "chromium")
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=_found(DRIVERS, "chromedriver")))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


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
