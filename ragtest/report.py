"""The run report (Markdown and one self-contained HTML file), rendered with Jinja2; HTML autoescaped.

The HTML has no script, no link and no remote resource: its plots are inline SVG (`ragtest.plots`) and a
Content-Security-Policy of `default-src 'none'` forbids the browser any request, so it works from a file:// URL.
Every string that comes from documents, questions, answers or reasons is escaped by Jinja2's autoescape; only
the SVG that matplotlib wrote is inserted as markup. Long parts fold away in <details> elements (no script needed).
In the Markdown, every value printed goes through `ragtest.markdown_text.markdown_inline` (the environment's
finalize): no HTML, link or image can come from the data.

Each section of the page is a panel of `ragtest.report_panels`, in the order it lists them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape

from ragtest.markdown_text import markdown_inline
from ragtest.report_explain import TESTSET_ID
from ragtest.report_panels import RunData, build_panels
from ragtest.report_rows import shown_score
from ragtest_core.files import atomic_write_text


def one_line(text: Any) -> str:
    """The text with every run of whitespace (newlines included) as one space: for a Markdown list item or cell
    (its `|` and markup are escaped by `markdown_inline` when printed)."""
    return " ".join(str(text).split())


def environment(markdown: bool = False) -> Environment:
    """The templates' environment: HTML autoescaped; Markdown (`markdown=True`) with every printed value passed
    through `markdown_inline`, which neutralises HTML, links and table pipes coming from the data."""
    env = Environment(
        loader=PackageLoader("ragtest", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=markdown_inline if markdown else None,
    )
    env.filters["one_line"] = one_line
    env.filters["score"] = shown_score  # a changed row's scores, never "-0.00"
    return env


def run_report_context(
    frame: pd.DataFrame, document: Mapping[str, Any], stats: Mapping[str, Any], timings: Mapping[str, float]
) -> dict[str, Any]:
    """The page's headline facts and its panels (`ragtest.report_panels`), in order."""
    run = RunData(frame, document, stats, timings)
    return {
        "rows": len(frame),
        "stats": stats,
        "testset": document.get("testset") or {},
        "testset_id": TESTSET_ID,
        "rows_without_any_score": document.get("rows_without_any_score", 0),
        "panels": build_panels(run),
    }


def render(stem: Path, templates: Sequence[tuple[str, str]], context: Mapping[str, Any]) -> list[Path]:
    """Render each (template, suffix) into `<stem><suffix>` atomically."""
    envs = {markdown: environment(markdown) for markdown in (False, True)}
    return [
        atomic_write_text(
            stem.with_name(stem.name + suffix),
            envs[template.endswith(".md.j2")].get_template(template).render(**context),
        )
        for template, suffix in templates
    ]


def write_run_report(
    stem: Path,
    frame: pd.DataFrame,
    document: Mapping[str, Any],
    stats: Mapping[str, Any],
    timings: Mapping[str, float],
) -> list[Path]:
    """Write `<stem>.md` and `<stem>.html` (stem `run_dir/report` gives report.md and report.html)."""
    context = run_report_context(frame, document, stats, timings)
    return render(stem, (("report.md.j2", ".md"), ("report.html.j2", ".html")), context)
