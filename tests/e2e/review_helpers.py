"""A run folder to review and label, copied from the session's scored reference-RAG run (tests/e2e/conftest.py),
and headless Chromium driven by Selenium through Debian's chromium-driver."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import browser
from tests.e2e.conftest import TwoVariants

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def copy_run(variants: TwoVariants, folder: Path, side: str = "base") -> Path:
    """A run folder of its own: the test set (with its manifest and store) and one side's answers and scores."""
    folder.mkdir(parents=True)
    for name in ("testset.jsonl", "testset.manifest.json"):
        if (variants.root / name).is_file():
            shutil.copy(variants.root / name, folder / name)
    shutil.copytree(variants.root / "chroma", folder / "chroma")
    for path in (variants.root / side).iterdir():
        if path.is_file():
            shutil.copy(path, folder / path.name)
    return folder


def need_browser() -> None:
    """Skip without Chromium, chromium-driver or Selenium; fail instead in CI (RAGTEST_REQUIRE_BROWSER)."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).is_file()]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install -e '.[dev]')")
    if missing:
        message = f"missing {', '.join(missing)} (apt-get install -y chromium chromium-driver); .ci/run installs them"
        if os.environ.get(browser.REQUIRE_ENV):
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def chromium(size: str = "1300,1000") -> Iterator[Any]:
    """A headless Chromium under Selenium, offline: the driver and the browser named explicitly."""
    need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={size}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def press(driver: Any, keys: str, *, ctrl: bool = False) -> None:
    """Type `keys` into the page, as a person at the keyboard would (to the focused element, else the page)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    chain = ActionChains(driver)
    typed = chain.key_down(Keys.CONTROL).send_keys(keys).key_up(Keys.CONTROL) if ctrl else chain.send_keys(keys)
    typed.perform()


def wait_for_path(driver: Any, path: str, timeout_s: float = 15) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout_s).until(lambda d: d.current_url.split("?")[0].endswith(path))
