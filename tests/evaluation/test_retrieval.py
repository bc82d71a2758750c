"""Retrieval metrics against hand-computed values: duplicates, empty retrieval, the ideal DCG, k."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from evaluation import get_metric
from evaluation.engine import evaluate_dataset
from evaluation.metrics.retrieval import dedupe, hit_rate, ndcg, reciprocal_rank
from ragtest_core.datasets import read_dataset, write_dataset
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import MissingColumnsError


def test_hand_computed_with_a_duplicate() -> None:
    retrieved, gold = ["a", "b", "a", "c"], {"c", "a"}  # distinct ranking: a, b, c
    assert dedupe(retrieved) == ["a", "b", "c"]
    assert hit_rate(retrieved, gold, k=1) == 1.0
    assert reciprocal_rank(retrieved, gold) == 1.0
    dcg = 1 / math.log2(2) + 1 / math.log2(4)  # a at rank 1, c at rank 3
    ideal = 1 / math.log2(2) + 1 / math.log2(3)  # two relevant items at ranks 1 and 2
    assert ndcg(retrieved, gold, k=5) == pytest.approx(dcg / ideal)
    assert ndcg(retrieved, gold, k=2) == pytest.approx(1.0 / ideal)


def test_repeated_relevant_id_never_exceeds_one() -> None:
    # counted three times, DCG would be 1 + 0.631 + 0.5 = 2.13 > IDCG = 1 (the LlamaIndex bug)
    assert ndcg(["a", "a", "a"], {"a"}) == 1.0
    assert reciprocal_rank(["b", "b", "a", "a"], {"a"}) == pytest.approx(1 / 2)
    assert hit_rate(["b", "b", "b", "b", "b", "a"], {"a"}, k=2) == 1.0  # distinct ranks: b, a


def test_late_hit_cut_off_and_ideal_with_more_gold_than_k() -> None:
    assert reciprocal_rank(["x", "y", "g"], {"g"}) == pytest.approx(1 / 3)
    assert hit_rate(["x", "y", "g"], {"g"}, k=2) == 0.0
    assert hit_rate(["x", "y", "g"], {"g"}, k=3) == 1.0
    assert ndcg(["x", "y", "g"], {"g"}, k=5) == pytest.approx(0.5)  # 1/log2(4) over an ideal of 1
    assert ndcg(["x", "y", "g"], {"g"}, k=2) == 0.0
    # six gold ids, k = 2: the ideal has 2 hits, so two hits at the top are perfect
    assert ndcg(["a", "b"], set("abcdef"), k=2) == pytest.approx(1.0)
    assert ndcg(["a", "z"], set("abcdef"), k=2) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_empty_retrieval_and_no_gold() -> None:
    assert hit_rate([], {"a"}) == 0.0 and reciprocal_rank([], {"a"}) == 0.0 and ndcg([], {"a"}) == 0.0
    assert ndcg(["a"], set()) == 0.0
    with pytest.raises(ValueError):
        hit_rate(["a"], {"a"}, k=0)


def test_through_the_engine_with_k_in_the_name() -> None:
    frame = pd.DataFrame(
        {
            "context_ids": [["a", "b", "a", "c"], [], ["x", "y", "g"], ["a"]],
            "reference_context_ids": [["c", "a"], ["a"], ["g"], []],
        }
    )
    result = evaluate_dataset(frame, metrics=["hit_rate", "mrr", "ndcg", "ndcg@2", "hit_rate@2"], show_progress=False)
    out = result.frame
    assert out["mrr"].tolist()[:3] == [1.0, 0.0, pytest.approx(1 / 3)]
    assert out.loc[0, "ndcg"] == pytest.approx((1 + 0.5) / (1 + 1 / math.log2(3)))
    assert out.loc[1, "ndcg_reason"] == "nothing retrieved" and out.loc[1, "hit_rate"] == 0.0
    assert out.loc[2, "hit_rate"] == 1.0 and out.loc[2, "hit_rate@2"] == 0.0
    assert out.loc[3, "ndcg"] is None and out.loc[3, "ndcg_reason"] == "no reference_context_ids"
    assert "1 repeated id(s) ignored" in out.loc[0, "mrr_reason"]
    assert result.summary["ndcg"]["rows_scored"] == 3 and result.summary["ndcg"]["rows_failed"] == 1
    assert get_metric("ndcg@10").name == "ndcg@10"
    with pytest.raises(MissingColumnsError, match="hit_rate needs reference_context_ids"):
        evaluate_dataset(frame.drop(columns=["reference_context_ids"]), metrics=["hit_rate"], show_progress=False)


def test_in_memory_and_file_round_trip_score_alike(tmp_path: Path, embedder: Embedder) -> None:
    """`ragtest run` scores the rows in memory (a RAG without ids gives context_ids None); `answer` + `evaluate`
    scores them after the file round trip (where they read []). Both paths give the same scores and reasons."""
    gold = {
        "reference_context_ids": ["c1"],
        "reference_contexts": ["The Eiffel Tower is in Paris."],
        "ground_truth": "The Eiffel Tower is in Paris.",
    }
    rows = [
        {"question": "Where is it?", "answer": "In Paris.", "contexts": ["The Eiffel Tower is in Paris."], **gold},
        {"question": "Where is it?", "answer": "In Paris.", "contexts": ["It is in Paris, France."], **gold},
        {"question": "Where is it?", "answer": "I don't know.", "contexts": [], **gold},
    ]
    for row in rows:
        row["context_ids"] = None
    metrics = ["hit_rate", "mrr", "ndcg", "context_recall", "faithfulness"]
    memory = evaluate_dataset(pd.DataFrame(rows), metrics=metrics, embedder=embedder, show_progress=False).frame
    path = write_dataset(rows, tmp_path / "answers.jsonl")
    assert read_dataset(path)["context_ids"].tolist() == [[], [], []]
    disk = evaluate_dataset(read_dataset(path), metrics=metrics, embedder=embedder, show_progress=False).frame
    for name in metrics:
        assert memory[f"{name}_reason"].tolist() == disk[f"{name}_reason"].tolist()
        assert memory[name].tolist() == pytest.approx(disk[name].tolist(), abs=1e-6)
    assert memory["hit_rate"].tolist() == [1.0, 0.0, 0.0]
    assert memory.loc[2, "hit_rate_reason"] == "nothing retrieved"


def test_the_cut_off_is_every_retrieved_context_unless_set_and_the_reason_states_it() -> None:
    frame = pd.DataFrame(
        {
            "context_ids": [["w", "x", "y", "z", "g"], ["a", "b", "c", "g"]],
            "reference_context_ids": [["g"], ["g"]],
        }
    )
    plain = evaluate_dataset(frame, metrics=["hit_rate", "ndcg"], show_progress=False).frame
    assert plain["hit_rate"].tolist() == [1.0, 1.0]  # a gold chunk at rank 5 of 5 still counts: k = all retrieved
    assert plain.loc[1, "hit_rate_reason"].startswith("hit@4 (all retrieved): gold ids at ranks [4]")
    assert plain.loc[0, "ndcg"] == pytest.approx(1 / math.log2(6))
    cut = evaluate_dataset(frame, metrics=["hit_rate", "ndcg", "hit_rate@5"], show_progress=False, retrieval_k=3).frame
    assert cut["hit_rate"].tolist() == [0.0, 0.0] and cut["ndcg"].tolist() == [0.0, 0.0]
    assert cut.loc[0, "hit_rate_reason"] == "hit@3: gold ids at ranks [5]"  # the miss says where the gold was
    assert cut["hit_rate@5"].tolist() == [1.0, 1.0]  # a named cut-off keeps its own k


def test_metrics_all_scores_every_metric_the_columns_allow() -> None:
    frame = pd.DataFrame(
        {"question": ["Q?"], "answer": ["Paris."], "ground_truth": ["Paris."], "context_ids": [["g"]],
         "reference_context_ids": [["g"]]}
    )  # fmt: skip
    result = evaluate_dataset(frame, metrics="all", show_progress=False)
    assert {"hit_rate", "mrr", "ndcg", "exact_match", "token_f1", "rouge_l", "bleu"} <= set(result.metric_names)
    assert "faithfulness" in result.skipped and "contexts" in result.skipped["faithfulness"]
    assert result.frame.loc[0, "exact_match"] == 1.0


def test_each_metric_declares_its_scale() -> None:
    """The report lists every miss of a 0/1 metric, misses then lower hits of a rank metric."""
    from evaluation.metric import BINARY, GRADED, RANK
    from evaluation.registry import metric_scale

    assert [metric_scale(n) for n in ("hit_rate", "hit_rate@10", "exact_match", "negative_rejection")] == [BINARY] * 4
    assert [metric_scale(n) for n in ("mrr", "ndcg@3")] == [RANK, RANK]
    assert metric_scale("faithfulness") == GRADED and metric_scale("not_a_metric") is None
