"""Agreement with human labels: the statistics equal scikit-learn's and scipy's, intervals hold the value, the
confusion table and disagreeing rows are right, two labellers are compared, and WikiEval turned into a scored file
plus a labels file gives the same agreement as `meta-eval --wikieval`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from evaluation.label_agreement import GRADED, YES_NO, format_label_agreement, label_agreement
from evaluation.label_stats import bootstrap, roc_auc, weighted_kappa
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
    assert roc_auc(np.array([0.1, 0.2]), np.array([1.0, 1.0])) is None
    estimate = bootstrap(roc_auc, [0.1, 0.9, 0.4, 0.8], [0, 1, 0, 1])
    assert estimate.value == 1.0 and estimate.n == 4


def test_wikieval_as_scored_plus_labels_gives_the_same_agreement(shared_data: Path, embedder: Embedder) -> None:
    path = shared_data / "wikieval" / "wikieval.jsonl"
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
