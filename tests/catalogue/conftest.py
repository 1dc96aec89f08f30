"""The headless Chromium of the site's browser tests, driven by selenium.

The browser is the distribution's (``apt-get install chromium chromium-driver``); nothing is
downloaded. Where it is missing the browser tests are skipped, and the run says so at its end;
with ``MASRL_REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing browser fails them instead.
"""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE = "MASRL_REQUIRE_BROWSER"
BROWSERS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVERS = ("/usr/bin/chromedriver",)
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000")


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
