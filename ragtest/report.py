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

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape

from ragtest.markdown_text import markdown_inline
from ragtest.report_explain import TESTSET_ID
from ragtest.report_panels import RunData, build_panels
from ragtest.report_rows import shown_score
from ragtest_core.files import atomic_write_text


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
    env.filters["one_line"] = lambda text: " ".join(str(text).split())  # a Markdown list item or cell: one line
    env.filters["score"] = shown_score  # a changed row's scores, never "-0.00"
    return env


def render(stem: Path, template: str, context: Mapping[str, Any]) -> list[Path]:
    """`<template>.md.j2` and `<template>.html.j2` rendered into `<stem>.md` and `<stem>.html`, atomically."""
    return [
        atomic_write_text(
            stem.with_name(f"{stem.name}.{kind}"),
            environment(markdown=kind == "md").get_template(f"{template}.{kind}.j2").render(**context),
        )
        for kind in ("md", "html")
    ]


def write_run_report(
    stem: Path,
    frame: pd.DataFrame,
    document: Mapping[str, Any],
    stats: Mapping[str, Any],
    timings: Mapping[str, float],
) -> list[Path]:
    """Write `<stem>.md` and `<stem>.html` (stem `run_dir/report` gives report.md and report.html): the page's
    headline facts and its panels (`ragtest.report_panels`), in order."""
    context = {
        "rows": len(frame),
        "stats": stats,
        "testset": document.get("testset") or {},
        "testset_id": TESTSET_ID,
        "rows_without_any_score": document.get("rows_without_any_score", 0),
        "panels": build_panels(RunData(frame, document, stats, timings)),
    }
    return render(stem, "report", context)
