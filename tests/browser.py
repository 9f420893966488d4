"""Headless Chromium for the page tests (Debian's chromium and chromium-driver, driven by
selenium). Under CI a missing browser fails the tests; locally it skips them."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

# the flags a browser needs on a machine with no network and no display
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--window-size=1400,900")


def browser():
    """A selenium Chrome driver with browser and network logs enabled."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        if os.environ.get("CI"):
            raise RuntimeError("chromium and chromium-driver are needed (apt-get install chromium chromium-driver)")
        pytest.skip("no chromium / chromedriver on this machine")
    webdriver = pytest.importorskip("selenium.webdriver") if not os.environ.get("CI") else __import__(
        "selenium.webdriver", fromlist=["webdriver"])
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    for f in FLAGS:
        opts.add_argument(f)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=opts)
