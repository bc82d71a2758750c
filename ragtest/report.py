"""The run report (Markdown and one self-contained HTML file), rendered with Jinja2; HTML autoescaped.

The HTML has no script, no link and no remote resource: its plots are inline SVG (`ragtest.plots`) and a
Content-Security-Policy of `default-src 'none'` forbids the browser any request, so it works from a file:// URL.
Every string that comes from documents, questions, answers or reasons is escaped by Jinja2's autoescape; only
the SVG that matplotlib wrote is inserted as markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from ragtest import plots
from ragtest.failure_panel import where_it_failed
from ragtest_core.datasets import as_str_list
from ragtest_core.files import atomic_write_text
from ragtest_core.schema import reason_column

REPORT_MD = "report.md"
REPORT_HTML = "report.html"
WEAKEST_ROWS = 5


def environment() -> Environment:
    return Environment(
        loader=PackageLoader("ragtest", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    return str(value)


def scores_of(frame: pd.DataFrame, metric: str) -> list[float]:
    if metric not in frame.columns:
        return []
    return [float(v) for v in frame[metric] if v is not None and not (isinstance(v, float) and np.isnan(v))]


def weakest_rows(frame: pd.DataFrame, metric: str, limit: int = WEAKEST_ROWS) -> tuple[float | None, list[dict]]:
    """The metric's median and its lowest-scoring rows strictly below that median: where to look first. When
    every row scores the same, or the lowest score is the median itself, no row is below it and none is listed."""
    values = scores_of(frame, metric)
    if not values:
        return None, []
    median = float(np.median(values))
    column = pd.to_numeric(frame[metric], errors="coerce")
    below = frame[column < median].assign(_score=column[column < median])
    rows = below.sort_values("_score", kind="stable").head(limit)
    return median, [row_view(row, metric) for _, row in rows.iterrows()]


def row_view(row: pd.Series, metric: str) -> dict[str, Any]:
    """One row as the report shows it: question, reference, answer, contexts and the judge's reason."""
    return {
        "score": float(row[metric]),
        "question": _text(row.get("question")),
        "ground_truth": _text(row.get("ground_truth")),
        "answer": _text(row.get("answer")),
        "contexts": as_str_list(row.get("contexts")),
        "reason": _text(row.get(reason_column(metric))),
        "question_type": _text(row.get("question_type")),
        "source": _text(row.get("source")),
    }


def breakdown_rows(summary: Mapping[str, Any], column: str) -> list[dict[str, Any]]:
    """One row per metric and label of a summary breakdown (e.g. by_question_type)."""
    return [
        {"metric": metric, "label": label, **stats}
        for metric, entry in summary.items()
        for label, stats in (entry.get(column) or {}).items()
    ]


def run_plots(frame: pd.DataFrame, summary: Mapping[str, Any]) -> dict[str, Markup | None]:
    """The run report's inline SVG plots: score distributions and means by question type."""
    distributions = plots.score_distributions({m: scores_of(frame, m) for m in summary})
    by_type = plots.means_by_group(summary, "by_question_type")
    return {
        "distributions": Markup(distributions) if distributions else None,
        "by_type": Markup(by_type) if by_type else None,
    }


def run_report_context(
    frame: pd.DataFrame, document: Mapping[str, Any], stats: Mapping[str, Any], timings: Mapping[str, float]
) -> dict[str, Any]:
    summary = document.get("metrics") or {}
    weakest = {metric: weakest_rows(frame, metric) for metric in summary}
    return {
        "rows": len(frame),
        "summary": summary,
        "scoring": document.get("scoring") or {},
        "run": document.get("run") or {},
        "testset": document.get("testset") or {},
        "rows_without_any_score": document.get("rows_without_any_score", 0),
        "stats": stats,
        "timings": timings,
        "weakest": {metric: {"median": median, "rows": rows} for metric, (median, rows) in weakest.items()},
        "weakest_limit": WEAKEST_ROWS,
        "breakdowns": {
            "question type": breakdown_rows(summary, "by_question_type"),
            "source document": breakdown_rows(summary, "by_source"),
        },
        "plots": run_plots(frame, summary),
        "where_it_failed": where_it_failed(summary),
    }


def render(stem: Path, templates: Sequence[tuple[str, str]], context: Mapping[str, Any]) -> list[Path]:
    """Render each (template, suffix) into `<stem><suffix>` atomically."""
    env = environment()
    return [
        atomic_write_text(stem.with_name(stem.name + suffix), env.get_template(template).render(**context))
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
