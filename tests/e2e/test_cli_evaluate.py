"""`ragtest evaluate` on a real ragas-format dataset (FiQA): every score in [0, 1] or explained."""

from __future__ import annotations

import json
from pathlib import Path

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl

METRICS = ("faithfulness", "answer_relevancy", "context_relevance", "context_precision", "context_recall")


def test_evaluate_fiqa(test_data: Path, tmp_path: Path) -> None:
    output = tmp_path / "fiqa-scores.jsonl"
    assert (
        main(["--quiet", "evaluate", "--input", str(test_data / "fiqa" / "fiqa.jsonl"), "--output", str(output)]) == 0
    )
    rows = read_jsonl(output)
    assert len(rows) == 30
    for row in rows:
        for metric in METRICS:
            value = row[metric]
            assert (value is not None and 0.0 <= value <= 1.0) or row[f"{metric}_reason"]
    summary = json.loads(output.with_name("fiqa-scores.summary.json").read_text())
    assert all(summary["metrics"][m]["rows_scored"] > 0 for m in METRICS)
    assert summary["rows"] == 30 and summary["scoring"]["judge"] == "local"
    assert output.with_name("fiqa-scores.report.html").is_file() and output.with_name("fiqa-scores.report.md").is_file()


def test_evaluate_reports_missing_columns(tmp_path: Path, capsys: object) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text(json.dumps({"question": "q?", "answer": "a"}) + "\n")
    assert (
        main(
            [
                "--quiet",
                "evaluate",
                "--input",
                str(source),
                "--metrics",
                "faithfulness",
                "--output",
                str(tmp_path / "o.jsonl"),
            ]
        )
        == 2
    )
