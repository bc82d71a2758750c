"""Agreement with human labels: the statistics equal scikit-learn's and scipy's, intervals hold the value, the
confusion table and disagreeing rows are right, two labellers are compared, and WikiEval turned into a scored file
plus a labels file gives the same agreement as `meta-eval --wikieval`."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from evaluation.label_agreement import GRADED, YES_NO, format_label_agreement, label_agreement
from evaluation.label_stats import Undefined, bootstrap, kappa_at, roc_auc, spearman, weighted_kappa
from evaluation.meta_eval import run_wikieval, wikieval_labelled
from ragtest_core.embeddings import Embedder


def frame_and_labels(rows: int = 60, seed: int = 0) -> tuple[pd.DataFrame, list[dict]]:
    rng = np.random.default_rng(seed)
    quality = rng.random(rows)
    frame = pd.DataFrame(
        {
            "sample_id": [f"s{i}" for i in range(rows)],
            "question": [f"Question {i}?" for i in range(rows)],
            "answer": [f"Answer {i}." for i in range(rows)],
            "contexts": [[f"Context {i}."] for i in range(rows)],
            "faithfulness": np.clip(quality + rng.normal(0, 0.2, rows), 0, 1),
            "faithfulness_reason": ["judged"] * rows,
            "answer_correctness": np.clip(quality + rng.normal(0, 0.3, rows), 0, 1),
            "answer_correctness_reason": ["judged"] * rows,
        }
    )
    labels = []
    for i in range(rows):
        for who, noise in (("ana", 0.1), ("ben", 0.25)):
            if who == "ben" and i % 2:
                continue  # ben labels every other row
            value = quality[i] + rng.normal(0, noise)
            labels.append(
                {
                    "sample_id": f"s{i}",
                    "labeller": who,
                    "faithfulness": float(value >= 0.5),
                    "answer_correctness": float(np.clip(np.round(2 * value) / 2, 0, 1)),
                }
            )
    return frame, labels


def test_statistics_equal_the_reference_libraries() -> None:
    frame, labels = frame_and_labels()
    ana = [row for row in labels if row["labeller"] == "ana"]
    report = label_agreement(frame, ana, seed=1)
    faith, correct = report.metrics["faithfulness"], report.metrics["answer_correctness"]
    y = np.array([row["faithfulness"] for row in ana])
    graded = np.array([row["answer_correctness"] for row in ana])
    assert faith.kind == YES_NO and correct.kind == GRADED
    assert faith.roc_auc is not None and faith.roc_auc.value == pytest.approx(roc_auc_score(y, frame["faithfulness"]))
    assert faith.roc_auc.ci_low is not None and faith.roc_auc.ci_high is not None
    assert faith.roc_auc.ci_low <= faith.roc_auc.value <= faith.roc_auc.ci_high and faith.roc_auc.n == 60
    assert faith.kappa is not None and faith.kappa.value == pytest.approx(
        cohen_kappa_score(y.astype(int), (frame["faithfulness"] >= 0.5).astype(int))
    )
    spearman = stats.spearmanr(frame["answer_correctness"], graded).statistic
    assert correct.spearman is not None and correct.spearman.value == pytest.approx(spearman)
    c = faith.confusion
    assert sum(c.values()) == 60
    assert c["judge_yes_human_yes"] == int(np.sum((frame["faithfulness"] >= 0.5) & (y == 1)))
    gaps = np.abs(frame["faithfulness"] - y)
    assert faith.disagreeing[0].sample_id == f"s{int(np.argmax(gaps))}"
    assert abs(faith.disagreeing[0].gap) == pytest.approx(float(gaps.max()))


def test_two_labellers_agreement_and_consensus() -> None:
    frame, labels = frame_and_labels()
    report = label_agreement(frame, labels)
    assert report.labellers == ["ana", "ben"]
    pair = report.metrics["answer_correctness"].labellers[0]
    ana = {r["sample_id"]: r["answer_correctness"] for r in labels if r["labeller"] == "ana"}
    ben = {r["sample_id"]: r["answer_correctness"] for r in labels if r["labeller"] == "ben"}
    common = sorted(ben)
    codes = {0.0: 0, 0.5: 1, 1.0: 2}
    expected = cohen_kappa_score([codes[ana[s]] for s in common], [codes[ben[s]] for s in common], weights="linear")
    assert pair.kappa.n == 30 and pair.kappa.value == pytest.approx(expected)
    assert pair.exact == pytest.approx(np.mean([ana[s] == ben[s] for s in common]))
    # the consensus of two labellers can be 0.25 / 0.75: graded; yes/no faithfulness becomes graded where they differ
    assert report.metrics["faithfulness"].n_labelled == 60
    text = format_label_agreement(report)
    assert "labellers ana / ben" in text and "Spearman" in text and "most disagreeing rows" in text
    data = report.as_dict()
    assert data["metrics"]["answer_correctness"]["headline"] == "spearman"


def test_weighted_kappa_is_cohens_kappa_on_yes_no() -> None:
    rng = np.random.default_rng(4)
    a = (rng.random(40) < 0.6).astype(float)
    b = np.where(rng.random(40) < 0.8, a, 1 - a)
    assert weighted_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))
    one_class = roc_auc(np.array([0.1, 0.2]), np.array([1.0, 1.0]))
    assert isinstance(one_class, Undefined) and "one class" in one_class.reason
    estimate = bootstrap(roc_auc, [0.1, 0.9, 0.4, 0.8], [0, 1, 0, 1])
    assert estimate.value == 1.0 and estimate.n == 4


def test_wikieval_as_scored_plus_labels_gives_the_same_agreement(test_data: Path, embedder: Embedder) -> None:
    path = test_data / "wikieval" / "wikieval.jsonl"
    table = run_wikieval(path, embedder=embedder, limit=12)
    scored, labels = wikieval_labelled(path, table)
    assert len(scored) == 12 * 6 and len(labels) == 12 * 6
    report = label_agreement(scored, labels)
    names = {
        "faithfulness": "faithfulness",
        "answer_relevancy": "answer relevance",
        "context_relevance": "context relevance",
    }
    for metric, label in names.items():
        pairwise = report.metrics[metric].pairwise_accuracy
        assert pairwise is not None and pairwise.n == 12
        assert pairwise.value == pytest.approx(table.agreement[label])


def test_one_class_labels_make_roc_auc_and_kappa_undefined() -> None:
    frame, labels = frame_and_labels(rows=30)
    ana = [{**row, "faithfulness": 1.0, "answer_correctness": 0.5} for row in labels if row["labeller"] == "ana"]
    report = label_agreement(frame, ana)
    faith, correct = report.metrics["faithfulness"], report.metrics["answer_correctness"]
    assert faith.roc_auc is not None and faith.roc_auc.value is None and faith.roc_auc.ci_low is None
    assert "yes on every row (one class)" in faith.roc_auc.undefined
    assert faith.kappa is not None and faith.kappa.value is None and "one class" in faith.kappa.undefined
    assert correct.spearman is not None and correct.spearman.value is None
    assert "every human label is 0.5" in correct.spearman.undefined
    text = format_label_agreement(report)
    assert "ROC-AUC            undefined: the humans said yes on every row (one class)" in text
    assert "Cohen's kappa      undefined: the humans said yes on every row (one class) at 0.5" in text
    assert "n/a" not in text and "1.00 [1.00, 1.00]" not in text
    # the judge saying yes throughout (the new user's case: all labels and all scores yes): kappa 0/0, undefined
    judged_yes = frame.assign(faithfulness=0.9)
    kappa = label_agreement(judged_yes, ana).metrics["faithfulness"].kappa
    assert kappa is not None and kappa.value is None and kappa.text().startswith("undefined: ")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(cohen_kappa_score([1, 1, 1], [1, 1, 1]))  # scikit-learn: undefined too


def test_too_few_rows_leave_statistics_or_intervals_undefined() -> None:
    one = bootstrap(spearman, [0.4], [1.0])
    assert one.value is None and "1 labelled row(s) with a judge score" in one.undefined
    single = bootstrap(lambda a, b: float(np.mean(a == b)), [1.0], [1.0])
    assert single.value == 1.0 and single.ci_low is None and "1 row" in single.text()
    # defined on the three rows, but in most resamples one side holds one class: no interval, and why
    kappa = bootstrap(kappa_at(0.5), [0.9, 0.1, 0.9], [1.0, 1.0, 0.0])
    assert kappa.value == pytest.approx(-0.5) and kappa.ci_low is None and kappa.ci_high is None
    assert "undefined in" in kappa.no_interval and "interval undefined" in kappa.text()


def test_most_disagreeing_rows_are_only_rows_that_disagree() -> None:
    frame, labels = frame_and_labels(rows=40, seed=5)
    ana = [row for row in labels if row["labeller"] == "ana"]
    entry = label_agreement(frame, ana).metrics["faithfulness"]
    off_diagonal = entry.confusion["judge_yes_human_no"] + entry.confusion["judge_no_human_yes"]
    assert 0 < off_diagonal < 5 and len(entry.disagreeing) == off_diagonal  # never padded with agreeing rows
    assert all((row.score >= 0.5) != (row.label >= 0.5) for row in entry.disagreeing)
    agreeing = frame.assign(faithfulness=[row["faithfulness"] for row in ana])  # the judge says what ana says
    entry = label_agreement(agreeing, ana).metrics["faithfulness"]
    assert entry.disagreeing == []
    assert "no disagreeing row: judge and humans agree at 0.5" in format_label_agreement(label_agreement(agreeing, ana))


def test_labels_for_a_metric_not_scored_are_named() -> None:
    frame, labels = frame_and_labels(rows=20)
    ana = [{**row, "answer_similarity": 1.0} for row in labels if row["labeller"] == "ana"]
    report = label_agreement(frame.assign(faithfulness=None), ana)
    assert report.not_scored == {"answer_similarity": 20, "faithfulness": 20}
    assert list(report.metrics) == ["answer_correctness"]
    text = format_label_agreement(report)
    assert "no scores for: faithfulness (20 label(s)), answer_similarity (20 label(s))" in text
    assert label_agreement(frame, ana, metrics=["faithfulness"]).not_scored == {}  # only the metrics asked for
