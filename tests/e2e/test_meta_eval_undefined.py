"""`ragtest meta-eval --labels` says when it cannot say, on the session's real scored run (local judge,
tests/e2e/conftest.py): one-class labels give "undefined" with the reason (never a kappa or ROC-AUC number, never
an interval), labels for a metric the run did not score are named, "most disagreeing rows" holds only rows that
disagree, and a labeller who only skipped rows gave no labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluation.registry import metric_threshold
from ragtest.cli import main
from ragtest_core.datasets import read_jsonl
from ragtest_core.labels import answer_id, write_labels
from tests.e2e.conftest import TwoVariants
from tests.e2e.review_helpers import copy_run

METRIC = "faithfulness"


def labelled(run: Path, value: Any, extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """ana's label for every row (`value(row)`), plus a labeller who only skipped rows on the review page."""
    rows = read_jsonl(run / "scores.jsonl")
    labels = [
        {"sample_id": row["sample_id"], "labeller": "ana", "answer_id": answer_id(row), METRIC: value(row),
         **(extra or {})}
        for row in rows
    ]  # fmt: skip
    labels += [{"sample_id": row["sample_id"], "labeller": "cy", "note": "skipped"} for row in rows[:3]]
    return labels


def meta_eval(labels: Path, run: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["meta-eval", "--labels", str(labels), str(run), *extra])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_one_class_labels_and_an_unscored_metric(
    two_variants: TwoVariants, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(two_variants, tmp_path / "run")
    rows = read_jsonl(run / "scores.jsonl")
    assert "answer_similarity" not in rows[0]  # the run did not score it
    labels = write_labels(labelled(run, lambda row: 1.0, {"answer_similarity": 1.0}), run / "labels.jsonl")
    code, text = meta_eval(labels, run, capsys)
    assert code == 0, text
    assert "ROC-AUC            undefined: the humans said yes on every row (one class)" in text
    kappa = next(line for line in text.splitlines() if "Cohen's kappa" in line)
    assert "undefined: the humans said yes on every row (one class)" in kappa and "[" not in kappa
    assert "n/a" not in text and "1.00 [1.00, 1.00]" not in text
    assert "no scores for: answer_similarity (15 label(s))" in text
    assert "labellers: ana;" in text  # cy only skipped: no labels, no labeller

    code, text = meta_eval(labels, run, capsys, "--json")
    report = json.loads(text)
    entry = report["metrics"][METRIC]
    assert entry["roc_auc"]["value"] is None and "one class" in entry["roc_auc"]["undefined"]
    assert entry["kappa"]["value"] is None and entry["kappa"]["ci_low"] is None
    assert report["not_scored"] == {"answer_similarity": 15} and report["labellers"] == ["ana"]

    only_unscored = write_labels(labelled(run, lambda row: None, {"answer_similarity": 1.0}), tmp_path / "l.jsonl")
    code, text = meta_eval(only_unscored, run, capsys)
    assert code == 2 and "answer_similarity, which have no scores there" in text


def test_most_disagreeing_rows_disagree(
    two_variants: TwoVariants, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(two_variants, tmp_path / "run")
    threshold = metric_threshold(METRIC)
    rows = read_jsonl(run / "scores.jsonl")
    scored = [row for row in rows if row[METRIC] is not None]
    flipped = {row["sample_id"] for row in scored[:2]}  # ana disagrees with the judge on two rows, agrees elsewhere

    def value(row: dict[str, Any]) -> float:
        says_yes = row[METRIC] is not None and row[METRIC] >= threshold
        return float(says_yes != (row["sample_id"] in flipped))

    labels = write_labels(labelled(run, value), run / "labels.jsonl")
    code, text = meta_eval(labels, run, capsys, "--json")
    entry = json.loads(text)["metrics"][METRIC]
    assert code == 0 and entry["confusion"]["judge_yes_human_no"] + entry["confusion"]["judge_no_human_yes"] == 2
    assert {row["sample_id"] for row in entry["disagreeing"]} == flipped  # never padded with rows that agree
    code, text = meta_eval(labels, run, capsys)
    listed = [line for line in text.split("most disagreeing rows")[1].splitlines()[1:] if line.startswith("    ")]
    assert code == 0 and len(listed) == 2
    for line in listed:
        score, _, label = line.split()[:3]
        assert (float(score) >= threshold) != (float(label) >= threshold)
