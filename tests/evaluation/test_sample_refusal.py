"""Rows become clean samples; refusals and hedges are recognised."""

from __future__ import annotations

import math

import pytest

from evaluation.refusal import is_noncommittal, is_refusal
from evaluation.sample import Sample
from ragtest_core.relevance import question_parts


def test_sample_from_row_cleans_missing_values() -> None:
    sample = Sample.from_row(
        {
            "question": " What? ",
            "answer": math.nan,
            "contexts": ["a", " ", ""],
            "ground_truth": ["x", "y"],
            "answer_error": None,
        }
    )
    assert sample.question == "What?"
    assert sample.answer is None
    assert sample.contexts == ("a",)
    assert sample.ground_truth == "x\ny"
    assert sample.answer_error is None


def test_sample_from_row_with_json_contexts_and_blank_answer() -> None:
    sample = Sample.from_row({"question": "q", "answer": "   ", "contexts": '["c1", "c2"]'})
    assert sample.answer is None
    assert sample.contexts == ("c1", "c2")


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know.",
        "I do not know the answer to that question.",
        "The context does not provide any information about this.",
        "The launch date has not been provided.",
        "I cannot answer this question.",
    ],
)
def test_refusals(answer: str) -> None:
    assert is_refusal(answer)
    assert is_noncommittal(answer)


def test_partial_hedge_is_noncommittal_but_not_a_refusal() -> None:
    answer = "The rebellion was caused by unrest. However, I do not have information on how it ended."
    assert is_noncommittal(answer)
    assert not is_refusal(answer)


def test_plain_answer_is_committal() -> None:
    answer = "Paris is the capital of France. It has about two million inhabitants."
    assert not is_noncommittal(answer)
    assert not is_refusal(answer)


def test_question_parts() -> None:
    parts = question_parts("When did Route 20 start its operations, and what landmarks does it pass by?")
    assert parts == ["When did Route 20 start its operations", "what landmarks does it pass by"]
    assert question_parts("What are salt and pepper?") == ["What are salt and pepper"]
