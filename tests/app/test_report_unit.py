"""The run report's pieces: weakest rows strictly below the median, inline SVG plots, a page that fetches nothing."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ragtest.report import weakest_rows, write_run_report


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question": [f"Q{i}?" for i in range(6)],
            "ground_truth": [f"G{i}." for i in range(6)],
            "answer": [f"A{i}" for i in range(6)],
            "contexts": [[f"context {i}"] for i in range(6)],
            "question_type": ["simple", "simple", "simple", "multi_context", "multi_context", "simple"],
            "faithfulness": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            "faithfulness_reason": ["ok"] * 6,
            "context_recall": [1.0, 0.5, None, 0.0, 1.0, 1.0],
            "context_recall_reason": ["r"] * 2 + ["needs ground_truth"] + ["r"] * 3,
        }
    )


def test_weakest_rows_are_strictly_below_the_median() -> None:
    median, rows = weakest_rows(frame(), "faithfulness")
    assert median == 1.0 and rows == []  # every row at 1.00: nothing to show (the trial listed five of them)
    median, rows = weakest_rows(frame(), "context_recall")
    assert median == 1.0 and [r["score"] for r in rows] == [0.0, 0.5]
    assert rows[0]["question"] == "Q3?" and rows[0]["ground_truth"] == "G3." and rows[0]["contexts"] == ["context 3"]


def test_run_report_has_plots_and_no_remote_resource(tmp_path: Path) -> None:
    by_type = {
        "simple": {"mean": 1.0, "ci_low": 0.7, "ci_high": 1.0, "rows_scored": 4},
        "multi_context": {"mean": 1.0, "ci_low": 0.3, "ci_high": 1.0, "rows_scored": 2},
    }
    summary = {
        "faithfulness": {"mean": 1.0, "ci_low": 0.8, "ci_high": 1.0, "rows_scored": 6, "rows_failed": 0},
        "context_recall": {"mean": 0.7, "ci_low": 0.3, "ci_high": 0.9, "rows_scored": 5, "rows_failed": 1},
    }
    summary["faithfulness"]["by_question_type"] = by_type
    document = {
        "metrics": summary,
        "scoring": {"judge": "local"},
        "run": {"generation_warnings": ["types renormalised"]},
    }
    html_path = write_run_report(tmp_path / "report", frame(), document, {}, {})[1]
    html = html_path.read_text()
    assert html.count("<svg") == 2 and "http" not in html.replace("http-equiv", "")
    assert "No row scores below the median" in html and "types renormalised" in html and "Q3?" in html


def test_too_few_rows_or_groups_draw_no_plot(tmp_path: Path) -> None:
    """Four rows make no histogram and one question type no by-type chart: the tables say it all."""
    small = frame().head(4)
    summary = {"faithfulness": {"mean": 1.0, "ci_low": 0.5, "ci_high": 1.0, "rows_scored": 4, "rows_failed": 0}}
    summary["faithfulness"]["by_question_type"] = {
        "simple": {"mean": 1.0, "ci_low": 0.5, "ci_high": 1.0, "rows_scored": 3}
    }
    html_path = write_run_report(tmp_path / "report", small, {"metrics": summary, "scoring": {}, "run": {}}, {}, {})[1]
    assert "<svg" not in html_path.read_text()
