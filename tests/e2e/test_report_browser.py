"""The HTML reports in a real browser (headless Chromium): the page loads from a file:// URL, the inline SVG plots
render, and the page asks the network for nothing. A page that does fetch something proves the detector works."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import ragtest
from ragtest.plots import PLOT_BLUE, PLOT_ORANGE
from tests.e2e import browser
from tests.e2e.conftest import TwoVariants

EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?!#|data:)[a-z][\w+.-]*:|url\(\s*["']?(?!data:|#)[a-z]+:""", re.I)


@pytest.fixture(scope="module")
def chromium() -> str:
    found = browser.chromium()
    if found is None:
        if os.environ.get(browser.REQUIRE_ENV):
            pytest.fail("chromium is not installed (apt-get install -y chromium); .ci/run installs it")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return found


def check_page(chromium: str, page: Path, tmp_path: Path, heading: str, colours: tuple[str, ...]) -> Path:
    html = page.read_text(encoding="utf-8")
    assert "default-src 'none'" in html and not EXTERNAL.search(html) and "<script" not in html.lower()
    png, netlog = tmp_path / f"{page.stem}.png", tmp_path / f"{page.stem}.netlog.json"
    browser.screenshot(chromium, page, png, netlog, tmp_path / "profile")
    dom = browser.dump_dom(chromium, page, tmp_path / "profile")
    assert f"<h1>{heading}</h1>" in dom  # the page loaded and was parsed
    assert dom.count("<svg") == html.count("<svg") >= 2
    assert browser.page_requests(netlog) == []  # nothing tried the network
    assert browser.non_white_share(png) > 0.05
    plotted = sum(browser.colour_pixels(png, colour) for colour in colours)
    assert plotted > 3000, f"the plots did not render: {plotted} plot-coloured pixels in {png}"
    return png


def test_run_report_renders_offline(chromium: str, two_variants: TwoVariants, tmp_path: Path) -> None:
    check_page(chromium, two_variants.base.with_name("report.html"), tmp_path, "ragtest report", (PLOT_BLUE,))


def test_compare_report_renders_offline(chromium: str, two_variants: TwoVariants, tmp_path: Path) -> None:
    comparison = ragtest.compare(two_variants.base, two_variants.new, out_dir=tmp_path / "cmp")
    assert "hit_rate" in comparison.worse
    page = tmp_path / "cmp" / "compare.html"
    check_page(chromium, page, tmp_path, "ragtest compare", (PLOT_BLUE, PLOT_ORANGE))


def test_the_network_detector_sees_a_page_request(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "leak.html"
    page.write_text('<!doctype html><h1>leak</h1><img src="http://127.0.0.1:9/pixel.png">')
    netlog = tmp_path / "leak.netlog.json"
    browser.screenshot(chromium, page, tmp_path / "leak.png", netlog, tmp_path / "profile", size="400,300")
    assert browser.page_requests(netlog) == ["http://127.0.0.1:9/pixel.png"]
