"""Every built-in metric on a small answered test set built from real Wikipedia text, offline (local judge)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from evaluation import available_metrics
from evaluation.engine import evaluate_dataset
from ragtest_core.embeddings import Embedder
from ragtest_core.text import split_sentences


def chunks(path: Path, count: int) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if len(line) > 200][:count]


def answered_set(wiki_dir: Path) -> pd.DataFrame:
    brown, polar = chunks(wiki_dir / "Brown_bear.txt", 4), chunks(wiki_dir / "Polar_bear.txt", 2)
    first = [split_sentences(c)[0] for c in brown]
    return pd.DataFrame(
        [
            {
                "question": "What is the brown bear?",
                "ground_truth": first[0],
                "reference_context_ids": ["b0"],
                "question_type": "simple",
                "source": "Brown bear",
                "answer": f"{first[0]} [1]",
                "contexts": [brown[0], brown[3]],
                "context_ids": ["b0", "b3"],
            },
            {
                "question": "Which habitats does the brown bear inhabit?",
                "ground_truth": first[1],
                "reference_context_ids": ["b1"],
                "question_type": "distracting",
                "source": "Brown bear",
                "answer": f"{first[1]} [2] It also lives in deserts.",
                "contexts": [brown[2], brown[1], brown[1]],
                "context_ids": ["b2", "b1", "b1"],
            },
            {
                "question": "What is the polar bear's favourite colour?",
                "ground_truth": "The sources do not say.",
                "reference_context_ids": ["p1"],
                "question_type": "unanswerable",
                "source": "Polar bear",
                "answer": "I don't know.",
                "contexts": [polar[1]],
                "context_ids": ["p1"],
            },
            {
                "question": "What is the polar bear?",
                "ground_truth": split_sentences(polar[0])[0],
                "reference_context_ids": ["p0"],
                "question_type": "simple",
                "source": "Polar bear",
                "answer": "",
                "contexts": [],
                "context_ids": [],
            },
        ]
    )


def test_every_metric_on_an_answered_set(wiki_dir: Path, embedder: Embedder) -> None:
    frame = answered_set(wiki_dir)
    names = available_metrics()
    assert len(names) >= 19
    result = evaluate_dataset(frame, metrics=names, embedder=embedder, show_progress=False)
    for name in names:
        for value, reason in zip(result.frame[name], result.frame[f"{name}_reason"], strict=True):
            assert value is None or (isinstance(value, float) and 0.0 <= value <= 1.0 and not math.isnan(value))
            assert isinstance(reason, str) and reason
        entry = result.summary[name]
        assert entry["rows_scored"] + entry["rows_failed"] == 4
        assert {"ci_low", "ci_high", "confidence_level", "by_question_type", "by_source"} <= set(entry)
        assert set(entry["by_source"]) == {"Brown bear", "Polar bear"}
    out = result.frame
    assert out.loc[0, "hit_rate"] == 1.0 and out.loc[1, "mrr"] == 0.5 and out.loc[3, "ndcg"] == 0.0
    assert out.loc[0, "citation_recall"] == 1.0 and out.loc[1, "citation_recall"] == 0.5
    assert out.loc[0, "exact_match"] == 0.0 and out.loc[0, "token_f1"] > 0.9  # the "[1]" marker differs
    assert out.loc[2, "negative_rejection"] == 1.0 and out.loc[2, "faithfulness"] == 1.0
    assert out.loc[1, "noise_robustness"] is not None and out.loc[0, "noise_robustness"] is not None
    assert out.loc[3, "answer_relevancy"] == 0.0 and out.loc[3, "faithfulness_reason"] == "empty answer: no claims"
    assert result.summary["faithfulness"]["by_question_type"]["unanswerable"]["mean"] == 1.0
