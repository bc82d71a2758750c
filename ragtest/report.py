"""The run report (Markdown and HTML, rendered with Jinja2; HTML autoescaped)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape

from ragtest_core.files import atomic_write_text

REPORT_MD = "report.md"
REPORT_HTML = "report.html"
WORST_ROWS = 5


def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("ragtest", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def worst_rows(frame: pd.DataFrame, metric: str, limit: int = WORST_ROWS) -> list[dict[str, Any]]:
    """The lowest-scoring rows for a metric: where to look first."""
    if metric not in frame.columns:
        return []
    scored = frame[frame[metric].notna()].sort_values(metric, kind="stable").head(limit)
    reason = f"{metric}_reason"
    return [
        {
            "question": str(row.get("question", "")),
            "answer": str(row.get("answer", "")),
            "score": float(row[metric]),
            "reason": str(row.get(reason, "") or ""),
        }
        for _, row in scored.iterrows()
    ]


def report_context(
    frame: pd.DataFrame, summary: Mapping[str, Any], stats: Mapping[str, Any], timings: Mapping[str, float]
) -> dict[str, Any]:
    return {
        "rows": len(frame),
        "summary": summary,
        "stats": stats,
        "timings": timings,
        "worst": {metric: worst_rows(frame, metric) for metric in summary},
        "breakdowns": {
            "question type": breakdown_rows(summary, "by_question_type"),
            "source document": breakdown_rows(summary, "by_source"),
        },
    }


def breakdown_rows(summary: Mapping[str, Any], column: str) -> list[dict[str, Any]]:
    """One row per metric and label of a summary breakdown (e.g. by_question_type)."""
    return [
        {"metric": metric, "label": label, **stats}
        for metric, entry in summary.items()
        for label, stats in (entry.get(column) or {}).items()
    ]


def write_report(
    run_dir: Path,
    frame: pd.DataFrame,
    summary: Mapping[str, Any],
    stats: Mapping[str, Any],
    timings: Mapping[str, float],
) -> list[Path]:
    """Write report.md and report.html into the run directory."""
    env = _environment()
    context = report_context(frame, summary, stats, timings)
    paths = []
    for template, name in (("report.md.j2", REPORT_MD), ("report.html.j2", REPORT_HTML)):
        paths.append(atomic_write_text(run_dir / name, env.get_template(template).render(**context)))
    return paths
