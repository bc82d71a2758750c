"""Case 5: report.md and compare.md carry no live HTML or link from the data. Questions, answers, contexts and
source names full of `<script>`, `<img onerror>`, `<svg onload>`, `<iframe>`, `](javascript:` links and a tracking
image are scored, reported and compared; both Markdown files are rendered the way a permissive viewer does
(markdown-it-py, CommonMark with raw HTML on, GFM tables, every link scheme allowed) and the result must hold no
element or attribute that runs or fetches anything, while the payloads still read as text. Where Chromium is
installed, the rendered pages are also opened in it: a payload that ran would have marked the DOM."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

import ragtest
from ragtest.cli import main
from ragtest.outputs import OutputPaths
from ragtest_core.datasets import read_jsonl
from tests.e2e import browser

MARK = "document.body.setAttribute('data-pwned','1')"
PAYLOADS = (
    f"<script>{MARK}</script>",
    f'<img src=x onerror="{MARK}">',
    f'<svg onload="{MARK}"></svg>',
    '<iframe src="javascript:alert(1)"></iframe>',
    "[click me](javascript:alert(1))",
    "![pixel](http://tracker.invalid/p.png)",
    "<javascript:alert(1)>",
    "<!-- comment --> <a href='javascript:alert(1)'>link</a>",
)
HOSTILE = " ".join(PAYLOADS)
LIVE_TAGS = {"script", "img", "svg", "iframe", "object", "embed", "a", "link", "style", "form", "input", "video"}


class Elements(HTMLParser):
    """Every start tag and its attributes, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def permissive_viewer(markdown: str) -> str:
    """Markdown rendered as a permissive viewer would: raw HTML passed through, tables, any link scheme."""
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    md.validateLink = lambda url: True  # type: ignore[method-assign]  (markdown-it's own check would hide a leak)
    return md.render(markdown)


def live_parts(html: str) -> list[str]:
    parser = Elements()
    parser.feed(html)
    found = [tag for tag, _ in parser.tags if tag in LIVE_TAGS]
    for tag, attrs in parser.tags:
        found += [f"{tag} {name}" for name, _ in attrs if name.startswith("on")]
        found += [f"{tag} {name}={value}" for name, value in attrs if "javascript:" in (value or "").lower()]
    return found


def hostile_rows() -> list[dict]:
    rows = []
    for i in range(6):
        rows.append(
            {
                "question": f"{HOSTILE} Where do brown bears live {i}?",
                "answer": f"{HOSTILE} Brown bears live in Alaska {i}." if i % 2 else "I do not know.",
                "contexts": [f"{HOSTILE} Brown bears live in Alaska {i}."],
                "ground_truth": f"Brown bears live in Alaska {i}.",
                "source": f"bears<script>{MARK}</script>[x](javascript:alert(1)).txt",
                "question_type": "simple<img src=x onerror=alert(1)>",
            }
        )
    return rows


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile-md")
    source = folder / "answers.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in hostile_rows()), encoding="utf-8")
    base = folder / "base" / "scores.jsonl"
    args = ["evaluate", "--quiet", "--input", str(source), "--metrics", "faithfulness,token_f1"]
    assert main([*args, "--output", str(base)]) == 0
    rows = read_jsonl(base)
    for row in rows:  # a second run where every score moved, so compare lists the changed rows
        row["token_f1"] = 1.0 - row["token_f1"]
    new = folder / "new" / "scores.jsonl"
    new.parent.mkdir()
    new.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    OutputPaths.beside(new).summary.write_text(OutputPaths.beside(base).summary.read_text())
    ragtest.compare(base, new, out_dir=folder / "cmp")
    report = OutputPaths.beside(base).report_stem
    return {"report.md": report.with_name(report.name + ".md"), "compare.md": folder / "cmp" / "compare.md"}


@pytest.mark.parametrize("name", ["report.md", "compare.md"])
def test_rendered_markdown_runs_and_fetches_nothing(reports: dict[str, Path], name: str) -> None:
    markdown = reports[name].read_text(encoding="utf-8")
    assert "Where do brown bears live" in markdown and "&lt;script>" in markdown  # the data is there, escaped
    html = permissive_viewer(markdown)
    assert live_parts(html) == [], name
    assert "&lt;script&gt;" in html and "javascript:alert(1)" in html  # still readable, as text
    assert "<table>" in html  # tables survive the escaping


def test_the_check_catches_raw_html() -> None:
    """The same viewer on unescaped data finds the live parts (the test above can fail)."""
    found = live_parts(permissive_viewer(f"| a |\n|---|\n| {HOSTILE} |\n\n- {HOSTILE}\n"))
    assert {"script", "img", "svg", "iframe", "a"} <= set(found) and any("onerror" in f for f in found)


@pytest.mark.parametrize("name", ["report.md", "compare.md"])
def test_rendered_markdown_in_chromium(reports: dict[str, Path], name: str, tmp_path: Path) -> None:
    chromium = browser.chromium()
    if chromium is None:
        if os.environ.get(browser.REQUIRE_ENV):
            pytest.fail("chromium is required here")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    page = tmp_path / f"{name}.html"
    page.write_text(permissive_viewer(reports[name].read_text(encoding="utf-8")), encoding="utf-8")
    dom = browser.dump_dom(chromium, page, tmp_path / "profile")
    assert "Where do brown bears live" in dom and 'data-pwned="1"' not in dom  # the payloads are text only
    control = tmp_path / "control.html"  # the raw payload does run in this browser
    control.write_text(permissive_viewer(f"- {PAYLOADS[0]}\n"), encoding="utf-8")
    assert 'data-pwned="1"' in browser.dump_dom(chromium, control, tmp_path / "profile2")
