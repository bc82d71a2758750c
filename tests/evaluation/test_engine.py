"""The scoring engine with the local judge: registry, column checks, RAG errors, custom metrics, summaries."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from typing import ClassVar

import pandas as pd
import pytest

from evaluation import Metric, Sample, available_metrics, get_metric, register_metric, unregister_metric
from evaluation.engine import aevaluate_dataset, evaluate_dataset
from evaluation.local_judge import LocalJudge
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import MissingColumnsError, RagtestError
from ragtest_core.schema import MetricResult
from ragtest_core.support import joint_support
from tests.evaluation.helpers import one_row

FIVE = ["answer_relevancy", "context_precision", "context_recall", "context_relevance", "faithfulness"]


class AnswerLength(Metric):
    """A user's metric: longer answers score higher (capped)."""

    name: ClassVar[str] = "answer_length"
    required_columns: ClassVar[tuple[str, ...]] = ("answer",)

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return MetricResult.ok(min(1.0, len(sample.answer or "") / 100), "length / 100")


@pytest.fixture
def registered_length() -> Iterator[None]:
    register_metric(AnswerLength)
    yield
    unregister_metric("answer_length")


def test_registry_lists_the_five_metrics() -> None:
    assert set(FIVE) <= set(available_metrics())
    metric = get_metric("faithfulness")
    assert metric.required_columns == ("question", "answer", "contexts")
    with pytest.raises(RagtestError, match="unknown metric"):
        get_metric("meteor")


def test_register_a_user_metric(registered_length: None, embedder: Embedder) -> None:
    assert "answer_length" in available_metrics()
    with pytest.raises(RagtestError, match="already registered"):
        register_metric(type("Other", (AnswerLength,), {}))
    result = evaluate_dataset(one_row(), metrics=["answer_length"], embedder=embedder, show_progress=False)
    assert result.frame.loc[0, "answer_length"] == pytest.approx(0.71)


def test_pass_a_metric_instance(embedder: Embedder) -> None:
    result = evaluate_dataset(
        one_row(), metrics=[AnswerLength(), "faithfulness"], embedder=embedder, show_progress=False
    )
    assert list(result.summary) == ["answer_length", "faithfulness"]


def test_local_judge_on_a_hand_made_row(embedder: Embedder) -> None:
    result = evaluate_dataset(one_row(), embedder=embedder, show_progress=False)
    row = result.frame.iloc[0]
    statements = result.results[0]["faithfulness"].details["statements"]
    judge = LocalJudge(embedder)
    found = judge.support([s["statement"] for s in statements], judge.evidence(list(row["contexts"])), row["question"])
    together = joint_support(found, judge.settings.support)
    assert row["faithfulness"] == pytest.approx(together, abs=1e-9)  # the statements taken together
    assert 0.3 <= row["faithfulness"] <= 0.6  # "painted blue" is not supported: well below a faithful answer
    assert row["context_recall"] >= 0.75  # the shipped base: the reference's words the contexts hold
    a, bananas, c = result.results[0]["context_precision"].details["verdicts"]  # each context, graded
    assert bananas <= 0.1 < 0.5 <= min(a, c)  # bananas at rank 2 are useless
    expected = (a * a + (a + c) / 3 * c) / (a + c)  # graded average precision: gold at ranks 1 and 3
    assert row["context_precision"] == pytest.approx(expected, abs=1e-3)
    assert 0 < row["context_relevance"] < 1
    assert 0.8 <= row["answer_relevancy"] <= 1  # a direct answer reads high (calibrated centred cosine + overlap)
    relevancy = result.results[0]["answer_relevancy"].details
    assert relevancy["base"] == "combined" and relevancy["best_unit"] == row["answer"]
    assert [s["support"] >= 0.5 for s in statements] == [True, True, False]
    assert statements[0]["support"] >= 0.95 and statements[2]["support"] <= 0.05


def test_changed_number_is_not_supported(embedder: Embedder) -> None:
    frame = pd.concat(
        [
            one_row(answer="The Eiffel Tower is in Paris. It was built in 1999."),
            one_row(answer="The Eiffel Tower is in Paris. It was built in 1889."),
        ],
        ignore_index=True,
    )
    result = evaluate_dataset(frame, metrics=["faithfulness"], embedder=embedder, show_progress=False)
    wrong, right = result.frame["faithfulness"].tolist()
    assert wrong <= 0.5 < 0.9 <= right  # 1999 contradicts 1889: the conflict keeps a tenth of its statement's share
    (_, changed) = result.results[0]["faithfulness"].details["statements"]
    assert changed["support"] <= 0.1


def test_output_frame_and_summary_structure(embedder: Embedder) -> None:
    frame = pd.concat([one_row(), one_row(answer="", contexts=[])], ignore_index=True)
    result = evaluate_dataset(frame, embedder=embedder, show_progress=False)
    assert list(result.frame.columns[:4]) == list(frame.columns)
    for name in FIVE:
        assert name in result.frame and f"{name}_reason" in result.frame
        for value, reason in zip(result.frame[name], result.frame[f"{name}_reason"], strict=True):
            assert value is None or (isinstance(value, float) and 0 <= value <= 1 and not math.isnan(value))
            assert isinstance(reason, str) and reason
        summary = result.summary[name]
        assert {"mean", "rows_scored", "rows_failed", "top_failure_reasons"} <= set(summary)
        assert {"ci_low", "ci_high", "confidence_level", "n"} <= set(summary)
        assert summary["rows_scored"] + summary["rows_failed"] == 2
    assert result.frame.loc[1, "faithfulness"] == 1.0 and result.frame.loc[1, "faithfulness_reason"] == (
        "empty answer: no claims"
    )
    assert result.frame.loc[1, "answer_relevancy"] == 0.0
    second = result.frame.iloc[1]
    assert second["context_recall"] == 0.0 and "no contexts" in second["context_recall_reason"]
    assert second["context_precision"] == 0.0
    assert second["context_relevance"] is None and second["context_relevance_reason"] == "no context sentences"


def test_refusal_answers(embedder: Embedder) -> None:
    result = evaluate_dataset(
        one_row(answer="I don't know."),
        metrics=["faithfulness", "answer_relevancy"],
        embedder=embedder,
        show_progress=False,
    )
    assert result.frame.loc[0, "faithfulness"] == 1.0
    assert result.frame.loc[0, "faithfulness_reason"] == "refusal: no claims"
    assert result.frame.loc[0, "answer_relevancy"] == 0.0


def test_rag_error_rows(embedder: Embedder) -> None:
    frame = pd.concat(
        [one_row(answer_error=None), one_row(answer="", answer_error="timeout after 30 s")], ignore_index=True
    )
    result = evaluate_dataset(frame, embedder=embedder, show_progress=False)
    failed = result.frame.iloc[1]
    assert failed["faithfulness"] is None and failed["faithfulness_reason"] == "RAG error: timeout after 30 s"
    assert failed["answer_relevancy"] is None
    assert failed["context_recall"] >= 0.75  # the contexts were retrieved before the RAG failed
    assert result.frame.iloc[0]["faithfulness"] is not None


def test_missing_columns_are_all_named() -> None:
    frame = pd.DataFrame([{"question": "q"}])
    with pytest.raises(MissingColumnsError) as info:
        evaluate_dataset(frame, show_progress=False)
    message = str(info.value)
    for needed in (
        "faithfulness needs answer, contexts",
        "context_recall needs contexts, ground_truth",
        "context_precision needs contexts, ground_truth (or answer)",
    ):
        assert needed in message


def test_unknown_judge_and_duplicate_metrics() -> None:
    with pytest.raises(RagtestError, match="unknown judge"):
        evaluate_dataset(one_row(), judge="oracle", show_progress=False)
    with pytest.raises(RagtestError, match="selected twice"):
        evaluate_dataset(one_row(), metrics=["faithfulness", "faithfulness"], show_progress=False)


def test_async_entry_point(embedder: Embedder) -> None:
    result = asyncio.run(
        aevaluate_dataset(one_row(), metrics=["context_recall"], embedder=embedder, show_progress=False)
    )
    assert result.frame.loc[0, "context_recall"] >= 0.75


def test_progress_bar(embedder: Embedder, capsys: pytest.CaptureFixture[str]) -> None:
    evaluate_dataset(one_row(), metrics=["context_recall"], embedder=embedder, show_progress=True)
    assert "scoring" in capsys.readouterr().err


def test_local_context_precision_without_ground_truth(embedder: Embedder) -> None:
    frame = pd.concat([one_row(ground_truth=""), one_row(ground_truth=math.nan)], ignore_index=True)
    result = evaluate_dataset(
        frame, metrics=["context_precision", "context_recall"], embedder=embedder, show_progress=False
    )
    for index in range(2):
        row = result.frame.iloc[index]
        assert row["context_precision"] is not None
        assert "reference: the answer" in row["context_precision_reason"]
        assert row["context_recall"] is None and row["context_recall_reason"] == "needs ground_truth"
    assert result.summary["context_recall"]["top_failure_reasons"] == [{"reason": "needs ground_truth", "count": 2}]


def test_partial_hedge_is_noncommittal_locally(embedder: Embedder) -> None:
    answer = "The Eiffel Tower is in Paris. I do not have information on when it was built."
    result = evaluate_dataset(
        one_row(answer=answer), metrics=["answer_relevancy", "faithfulness"], embedder=embedder, show_progress=False
    )
    assert result.frame.loc[0, "answer_relevancy"] == 0.0
    assert result.frame.loc[0, "faithfulness"] >= 0.95  # the hedge is not a statement; the other one is supported
