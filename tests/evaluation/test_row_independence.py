"""Row independence: a row's local-judge scores are a pure function of the row, the judge's settings and the
embedding model. The same rows scored alone, in a shuffled batch and inside a larger file score the same (<= 1e-6),
each run with a fresh embedding memo (so every run embeds its own batch) on the real all-MiniLM-L6-v2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from evaluation.engine import evaluate_dataset
from ragtest_core.datasets import read_dataset
from ragtest_core.embeddings import Embedder

LOCAL_METRICS = [
    "faithfulness",
    "answer_relevancy",
    "answer_relevancy_raw",
    "context_relevance",
    "context_precision",
    "context_recall",
    "answer_correctness",
    "citation_recall",
    "citation_precision",
    "answer_claim_precision",
    "answer_claim_recall",
    "answer_claim_f1",
    "context_claim_recall",
    "context_utilization",
    "noise_sensitivity_relevant",
    "noise_sensitivity_irrelevant",
    "hallucination",
    "self_knowledge",
]
TOLERANCE = 1e-6


def fresh(base: Embedder) -> Embedder:
    """The session's model with an empty memo: the run embeds its own texts in its own batch."""
    embedder = Embedder(base.model_name)
    embedder._model = base.model
    return embedder


def rows_under_test(test_data: Path) -> pd.DataFrame:
    """Four FiQA rows (long LLM answers) and three WikiEval rows with a cited answer (ground truth = the answer)."""
    fiqa = read_dataset(test_data / "fiqa" / "fiqa.jsonl").head(4)
    lines = (test_data / "wikieval" / "wikieval.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    wiki = []
    for line in lines:
        row = json.loads(line)
        answer = str(row["answer"]).removeprefix("Answer: ").strip()
        wiki.append(
            {
                "question": str(row["question"]).removeprefix("Question: ").strip(),
                "answer": answer.replace(". ", " [1]. ", 1),
                "contexts": list(row["context_v1"]),
                "ground_truth": answer,
            }
        )
    columns = ["question", "answer", "contexts", "ground_truth"]
    return pd.concat([fiqa[columns], pd.DataFrame(wiki)[columns]], ignore_index=True)


def score(frame: pd.DataFrame, embedder: Embedder) -> pd.DataFrame:
    result = evaluate_dataset(frame, metrics=LOCAL_METRICS, embedder=fresh(embedder), show_progress=False)
    return result.frame[LOCAL_METRICS].astype(float)


def test_scores_do_not_depend_on_the_other_rows(test_data: Path, embedder: Embedder) -> None:
    frame = rows_under_test(test_data)
    alone = pd.concat([score(frame.iloc[[i]], embedder) for i in range(len(frame))], ignore_index=True)

    order = np.random.default_rng(7).permutation(len(frame))
    shuffled = score(frame.iloc[order].reset_index(drop=True), embedder)
    shuffled.index = order
    shuffled = shuffled.sort_index()

    extra = read_dataset(test_data / "fiqa" / "fiqa.jsonl").iloc[20:26][list(frame.columns)]
    larger = score(pd.concat([extra.iloc[:3], frame, extra.iloc[3:]], ignore_index=True), embedder)
    inside = larger.iloc[3 : 3 + len(frame)].reset_index(drop=True)

    assert alone.notna().to_numpy().sum() >= len(frame) * (len(LOCAL_METRICS) - 2)  # real scores, not all None
    for other in (shuffled, inside):
        assert (alone.isna() == other.isna()).all().all()
        diff = (alone - other).abs().to_numpy()
        print("max |difference|:", float(np.nanmax(diff)))
        assert np.nanmax(diff) <= TOLERANCE, dict(zip(LOCAL_METRICS, np.nanmax(diff, axis=0), strict=True))
