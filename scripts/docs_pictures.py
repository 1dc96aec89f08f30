#!/usr/bin/env python3
"""Screenshots of the catalogue site for the manual's Pictures page (docs/pictures.md).

Opens the bundled survey's catalogue (``reports/site/``, from disk: it needs no network) in the
distribution's headless Chromium (``apt-get install chromium chromium-driver``) at a fixed window
size and writes one PNG per page to ``docs/_static/`` (:data:`PAGES`), replacing the earlier
ones. Run it after a change that alters how the site looks, look at the pictures, and commit them.

Usage: python scripts/docs_pictures.py [--width 1280] [--height 860]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "reports" / "site"
OUT = ROOT / "docs" / "_static"
#: page of the site -> the picture made of it.
PAGES = {"index.html": "catalogue.png", "taxonomy.html": "catalogue-taxonomy.png"}
BROWSERS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVERS = ("/usr/bin/chromedriver",)
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--lang=en-GB", "--font-render-hinting=none")


def _first(paths: tuple[str, ...], name: str) -> str:
    found = next((p for p in paths if os.access(p, os.X_OK)), None) or shutil.which(name)
    if not found:
        sys.exit(f"{name} not found: apt-get install chromium chromium-driver")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=860)
    args = parser.parse_args()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # never let selenium look for a driver online
    options = webdriver.ChromeOptions()
    options.binary_location = _first(BROWSERS, "chromium")
    for flag in FLAGS:
        options.add_argument(flag)
    with tempfile.TemporaryDirectory() as profile:
        options.add_argument(f"--user-data-dir={profile}")
        options.add_argument(f"--window-size={args.width},{args.height}")
        driver = webdriver.Chrome(options=options, service=Service(executable_path=_first(DRIVERS, "chromedriver")))
        try:
            driver.set_page_load_timeout(30)
            for page, picture in PAGES.items():
                driver.get((SITE / page).as_uri())
                driver.save_screenshot(str(OUT / picture))
                print(f"wrote {(OUT / picture).relative_to(ROOT)} ({page}, {args.width}x{args.height})")
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
