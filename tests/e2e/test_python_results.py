"""`ragtest.evaluate` returns a typed `EvaluationReport` holding what summary.json says, on real FiQA rows with
human labels for one metric: each metric's mean, interval, coverage, prediction-powered mean and breakdowns."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

import ragtest
from ragtest_core.datasets import read_jsonl
from ragtest_core.labels import write_labels


def test_evaluate_returns_the_summary_typed(test_data: Path, tmp_path: Path) -> None:
    frame = pd.read_json(test_data / "fiqa" / "fiqa.jsonl", lines=True).head(12)
    frame["question_type"] = ["simple", "reasoning", "simple"] * 4
    frame.loc[3, "response"] = ""  # no answer: token_f1 scores 0, exact_match too; still a scored row
    labelled = [" ".join(str(q).split()) for q in frame["user_input"].head(8)]  # a row's key: its question's text
    labels = write_labels(
        [{"sample_id": key, "labeller": "ana", "token_f1": float(i % 3 != 0)} for i, key in enumerate(labelled)],
        tmp_path / "labels.jsonl",
    )
    config = ragtest.make_config(metrics=["token_f1", "exact_match"], labels=str(labels))

    report = ragtest.evaluate(frame, config, tmp_path / "out", show_progress=False)
    assert "user_input" in frame.columns and "question" not in frame.columns  # the caller's frame is left as it was

    written = json.loads((tmp_path / "out" / "summary.json").read_text())["metrics"]
    assert list(report.metrics) == ["token_f1", "exact_match"] and report.judge == "local"
    f1, entry = report.metrics["token_f1"], written["token_f1"]
    assert (f1.mean, f1.interval.low, f1.interval.high) == (entry["mean"], entry["ci_low"], entry["ci_high"])
    assert f1.interval.method == entry["interval_method"] and f1.interval.low <= f1.mean <= f1.interval.high
    assert f1.rows == 12 and f1.coverage == entry["rows_scored"] / 12
    assert f1.ppi_labels == 8 and f1.ppi_mean == entry["ppi"]["mean"] and f1.ppi_interval is not None
    assert f1.ppi_interval.low <= f1.ppi_mean <= f1.ppi_interval.high
    assert report.metrics["exact_match"].ppi_mean is None  # nobody labelled it
    assert set(f1.by_question_type) == {"simple", "reasoning"}
    assert sum(group.rows for group in f1.by_question_type.values()) == 12
    simple = f1.by_question_type["simple"]
    assert simple.mean == entry["by_question_type"]["simple"]["mean"] and simple.rows == 8
    scored = report.to_pandas()
    on_disk = read_jsonl(tmp_path / "out" / "scores.jsonl")
    assert len(scored) == 12 and list(scored["token_f1"]) == [row["token_f1"] for row in on_disk]
    assert math.isclose(sum(scored["token_f1"]) / 12, f1.mean)
