"""The HTML reports in a real browser (headless Chromium): the page loads from a file:// URL, the inline SVG plots
render, and the page asks the network for nothing. A page that does fetch something proves the detector works.
A run with retrieval misses lists each one with its gold chunk beside the retrieved contexts, folded away until a
link (or the reader) opens it, and the page stays a few screens tall. The demo's page shows each metric's definition
and scale beside its score, on the first screen."""

from __future__ import annotations

import html as html_lib
import json
import os
import re
from pathlib import Path

import pytest

import ragtest
from evaluation.registry import metric_explanation
from ragtest.plots import PLOT_BLUE, PLOT_ORANGE
from ragtest_core.datasets import read_jsonl
from tests.app.demo_run import run_demo
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


def check_page(
    chromium: str, page: Path, tmp_path: Path, heading: str, colours: tuple[str, ...], size: str = "1400,4000"
) -> Path:
    """Load `page` offline and check it: parsed, every plot in the DOM, no request, plots drawn in the screenshot
    (`size` tall enough to reach them: they follow the scores table, whose rows carry each metric's definition)."""
    html = page.read_text(encoding="utf-8")
    assert "default-src 'none'" in html and not EXTERNAL.search(html) and "<script" not in html.lower()
    png, netlog = tmp_path / f"{page.stem}.png", tmp_path / f"{page.stem}.netlog.json"
    browser.screenshot(chromium, page, png, netlog, tmp_path / "profile", size=size)
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
    check_page(chromium, page, tmp_path, "ragtest compare", (PLOT_BLUE, PLOT_ORANGE), size="1400,4400")


def test_the_network_detector_sees_a_page_request(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "leak.html"
    page.write_text('<!doctype html><h1>leak</h1><img src="http://127.0.0.1:9/pixel.png">')
    netlog = tmp_path / "leak.netlog.json"
    browser.screenshot(chromium, page, tmp_path / "leak.png", netlog, tmp_path / "profile", size="400,300")
    assert browser.page_requests(netlog) == ["http://127.0.0.1:9/pixel.png"]


def shown(text: str) -> str:
    """How Chromium serialises the start of a text node: its first line, &, < and > escaped."""
    return html_lib.escape(text.strip().splitlines()[0][:60], quote=False)


def test_retrieval_misses_are_listed_with_gold_and_retrieved_contexts(
    chromium: str, two_variants: TwoVariants, tmp_path: Path
) -> None:
    """The degraded RAG answers from the wrong chunks: its report lists the misses, each with the gold chunk it did
    not retrieve beside the contexts it did, and a link to a miss opens its folded section."""
    page = two_variants.new.with_name("report.html")
    check_page(chromium, page, tmp_path, "ragtest report", (PLOT_BLUE,))
    dom = browser.dump_dom(chromium, page, tmp_path / "profile")
    rows = read_jsonl(two_variants.new)
    misses = [number for number, row in enumerate(rows, start=1) if row["hit_rate"] == 0.0]
    assert len(misses) >= 10, "the degraded RAG should miss most gold chunks"
    assert f"{len(misses)} misses" in dom and "No row scores below the median" not in dom
    cards = dict(
        re.findall(r'<div class="row" id="hit_rate-row-(\d+)">(.*?)(?=<div class="row" |</details>)', dom, re.S)
    )
    assert [int(n) for n in cards] == misses[:10]
    for number, card in cards.items():
        row = rows[int(number) - 1]
        assert "gold chunk: not retrieved" in card or "gold chunks: not retrieved" in card
        assert all(shown(text) in card for text in row["reference_contexts"])
        assert all(shown(text) in card for text in row["contexts"]) and card.count("#4") == 1

    folded = browser.layout(chromium, page, tmp_path / "profile", ids=("weakest", "rows-hit_rate"))
    assert folded["open"] == []  # every list of rows starts folded
    assert folded["tops"]["weakest"] < 1000  # "Where the run is weakest" is on the first screen
    assert folded["height"] < 5 * 1000, f"the folded page is {folded['height']} px tall"
    opened = browser.layout(chromium, page, tmp_path / "profile", fragment=f"hit_rate-row-{misses[0]}")
    assert opened["open"] == ["rows-hit_rate"] and opened["height"] > folded["height"]


def test_the_demo_page_shows_each_metric_definition_beside_its_score(chromium: str, tmp_path: Path) -> None:
    """`make demo`'s report.html in Chromium: every metric's row of the scores table holds its mean, its definition
    and how its scale reads (context_relevance: that it reads low by design), unfolded, starting on the first
    screen."""
    run = tmp_path / "demo"
    run_demo(run)
    page = run / "report.html"
    check_page(chromium, page, tmp_path, "ragtest report", (PLOT_BLUE,))
    dom = browser.dump_dom(chromium, page, tmp_path / "profile")
    scores = dom.split('<section id="scores" class="panel">')[1].split("</section>")[0]
    assert "<details" not in scores  # nothing folded: the definitions show as the page opens
    rows = re.findall(r"<tr>(.*?)</tr>", scores, re.S)
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))["metrics"]
    assert len(rows) == 1 + len(summary) == 6
    for name, entry in summary.items():
        [row] = [r for r in rows if f"<strong>{name}</strong>" in r]
        explained = metric_explanation(name)
        assert f">{entry['mean']:.3f}<" in row
        assert html_lib.escape(explained.definition, quote=False) in row
        assert html_lib.escape(explained.scale_note, quote=False) in row
    assert "Reads low by design" in next(r for r in rows if "<strong>context_relevance</strong>" in r)
    placed = browser.layout(chromium, page, tmp_path / "profile", ids=("scores",))
    assert 0 < placed["tops"]["scores"] < 1000  # type: ignore[index]
