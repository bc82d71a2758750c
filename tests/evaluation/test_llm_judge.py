"""The LLM judge with a scripted chat model: the same verdicts give the RAGAS formulas' scores; failures are
failed results with reasons, never NaN."""

from __future__ import annotations

import json
import math

import pytest

from evaluation.engine import evaluate_dataset
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import LLMPermanentError, MissingColumnsError, RagtestError
from tests.evaluation.helpers import MakeClient, one_row

QUESTION = "Where is the Eiffel Tower and when was it built?"


def judge_replies(prompt: str) -> str:
    """Reply by content, as a real judge would for the row in `one_row`."""
    if "break down each sentence" in prompt:
        return json.dumps(
            {
                "statements": [
                    "The Eiffel Tower is in Paris.",
                    "The Eiffel Tower was built in 1889.",
                    "The Eiffel Tower is painted blue.",
                ]
            }
        )
    if "faithfulness of a series of statements" in prompt:
        return json.dumps(
            {
                "verdicts": [
                    {"statement": "s1", "reason": "stated", "verdict": 1},
                    {"statement": "s2", "reason": "stated", "verdict": 1},
                    {"statement": "s3", "reason": "not stated", "verdict": 0},
                ]
            }
        )
    if "questions that the given answer answers" in prompt:
        return json.dumps({"questions": [QUESTION, QUESTION, QUESTION], "noncommittal": 0})
    if "Extract the sentences of the context" in prompt:
        return json.dumps({"sentences": ["The Eiffel Tower is a wrought-iron lattice tower in Paris, France."]})
    if "verify for each context whether it was useful" in prompt:
        contexts = prompt.split("contexts:\n")[-1].split("\n\n")
        return json.dumps({"verdicts": [{"reason": "checked", "verdict": int("Bananas" not in c)} for c in contexts]})
    if "classify each sentence" in prompt:
        return (
            "```json\n"
            + json.dumps(
                {
                    "classifications": [
                        {"sentence": "a", "reason": "yes", "attributed": 1},
                        {"sentence": "b", "reason": "no", "attributed": 0},
                    ]
                }
            )
            + "\n```"
        )
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


def test_llm_judge_scores_follow_the_ragas_formulas(scripted_client: MakeClient, embedder: Embedder) -> None:
    client, model = scripted_client(judge_replies)
    result = evaluate_dataset(one_row(), judge="llm", llm=client, embedder=embedder, show_progress=False)
    row = result.frame.iloc[0]
    assert row["faithfulness"] == pytest.approx(2 / 3)
    assert row["answer_relevancy"] == pytest.approx(1.0, abs=1e-5)
    assert row["context_relevance"] == pytest.approx(1 / 3)  # 1 of 3 context sentences
    assert row["context_precision"] == pytest.approx((1 + 2 / 3) / 2)  # verdicts [1, 0, 1]
    assert row["context_recall"] == pytest.approx(0.5)
    assert "2 of 3" in row["faithfulness_reason"]
    # faithfulness 2 (statements, verdicts), answer_relevancy 1, context_relevance 1, context_precision 1 (all
    # contexts in one call), context_recall 1
    assert len(model.prompts) == 2 + 1 + 1 + 1 + 1


def test_noncommittal_flag_scores_zero(scripted_client: MakeClient, embedder: Embedder) -> None:
    client, _ = scripted_client(lambda prompt: json.dumps({"questions": ["What?"], "noncommittal": 1}))
    result = evaluate_dataset(
        one_row(), metrics=["answer_relevancy"], judge="llm", llm=client, embedder=embedder, show_progress=False
    )
    assert result.frame.loc[0, "answer_relevancy"] == 0.0
    assert "noncommittal" in result.frame.loc[0, "answer_relevancy_reason"]


def test_unparseable_judgement_is_a_failure_with_reason(scripted_client: MakeClient, embedder: Embedder) -> None:
    client, model = scripted_client(lambda prompt: "I think the answer is mostly fine.")
    result = evaluate_dataset(one_row(), judge="llm", llm=client, embedder=embedder, show_progress=False)
    for name in ("faithfulness", "answer_relevancy", "context_relevance", "context_precision", "context_recall"):
        assert result.frame.loc[0, name] is None
        assert "unparseable" in result.frame.loc[0, f"{name}_reason"]
        assert result.summary[name]["rows_failed"] == 1
        assert result.summary[name]["mean"] is None
    assert not any(isinstance(v, float) and math.isnan(v) for v in result.frame.iloc[0].tolist())
    assert len(model.prompts) >= 2  # the client tried one repair


def test_transient_llm_failure_is_a_failure_with_reason(scripted_client: MakeClient) -> None:
    def broken(prompt: str) -> str:
        raise ConnectionError("provider unreachable")

    client, _ = scripted_client(broken)
    result = evaluate_dataset(one_row(), metrics=["faithfulness"], judge="llm", llm=client, show_progress=False)
    assert result.frame.loc[0, "faithfulness"] is None
    assert result.frame.loc[0, "faithfulness_reason"].startswith("LLM judge failed")


def test_permanent_llm_error_stops_the_run(scripted_client: MakeClient) -> None:
    def bad_request(prompt: str) -> str:
        raise ValueError("unknown model")

    client, _ = scripted_client(bad_request)
    with pytest.raises(LLMPermanentError):
        evaluate_dataset(one_row(), metrics=["faithfulness"], judge="llm", llm=client, show_progress=False)


def test_wrong_verdict_count_is_noted(scripted_client: MakeClient) -> None:
    def replies(prompt: str) -> str:
        if "break down each sentence" in prompt:
            return json.dumps({"statements": ["a", "b", "c"]})
        return json.dumps({"verdicts": [{"verdict": 1}, {"verdict": 0}]})

    client, _ = scripted_client(replies)
    result = evaluate_dataset(one_row(), metrics=["faithfulness"], judge="llm", llm=client, show_progress=False)
    assert result.frame.loc[0, "faithfulness"] == pytest.approx(0.5)
    assert "2 verdicts for 3 items" in result.frame.loc[0, "faithfulness_reason"]


def test_no_statements_means_no_claims(scripted_client: MakeClient) -> None:
    client, _ = scripted_client(lambda prompt: json.dumps({"statements": []}))
    result = evaluate_dataset(one_row(), metrics=["faithfulness"], judge="llm", llm=client, show_progress=False)
    assert result.frame.loc[0, "faithfulness"] == 1.0


def test_refusal_is_decided_without_an_llm_call(scripted_client: MakeClient) -> None:
    client, model = scripted_client(judge_replies)
    frame = one_row(answer="I don't know.")
    result = evaluate_dataset(frame, metrics=["faithfulness"], judge="llm", llm=client, show_progress=False)
    assert result.frame.loc[0, "faithfulness"] == 1.0
    assert result.frame.loc[0, "faithfulness_reason"] == "refusal: no claims"
    assert model.prompts == []


def test_missing_columns_raise_before_any_llm_call(scripted_client: MakeClient) -> None:
    client, model = scripted_client(judge_replies)
    frame = one_row().drop(columns=["ground_truth"])
    with pytest.raises(MissingColumnsError, match="context_recall needs ground_truth"):
        evaluate_dataset(frame, judge="llm", llm=client, show_progress=False)
    assert model.prompts == []


def test_llm_judge_needs_a_client() -> None:
    with pytest.raises(RagtestError, match="needs an LLM client"):
        evaluate_dataset(one_row(), judge="llm", show_progress=False)


def test_context_precision_without_ground_truth_uses_the_answer(scripted_client: MakeClient) -> None:
    client, model = scripted_client(judge_replies)
    frame = one_row(ground_truth=None)
    result = evaluate_dataset(
        frame, metrics=["context_precision", "context_recall"], judge="llm", llm=client, show_progress=False
    )
    assert result.frame.loc[0, "context_precision"] == pytest.approx((1 + 2 / 3) / 2)
    assert "reference: the answer" in result.frame.loc[0, "context_precision_reason"]
    assert result.frame.loc[0, "context_recall"] is None
    assert result.frame.loc[0, "context_recall_reason"] == "needs ground_truth"
    assert all("answer: The Eiffel Tower is in Paris." in p for p in model.prompts)


def test_insufficient_information_extracts_nothing(scripted_client: MakeClient) -> None:
    client, _ = scripted_client(lambda prompt: json.dumps({"sentences": ["Insufficient Information."]}))
    result = evaluate_dataset(one_row(), metrics=["context_relevance"], judge="llm", llm=client, show_progress=False)
    assert result.frame.loc[0, "context_relevance"] == 0.0
