"""The pure RAGAS formulas against hand-computed values: no model, no LLM."""

from __future__ import annotations

import math

import pytest

from evaluation.scores import (
    answer_relevancy_score,
    average_precision,
    context_precision_score,
    context_recall_score,
    context_relevance_score,
    faithfulness_score,
)


def test_context_precision_hand_case_all_useful_first() -> None:
    # precision@1 = 1, precision@2 = 1 -> numerator 2.0, two relevant -> 2.0 / (2 + 1e-10)
    assert average_precision([1, 1, 0]) == pytest.approx(2.0 / (2 + 1e-10))
    assert context_precision_score([1, 1, 0]).value == pytest.approx(1.0)


def test_context_precision_hand_case_gap() -> None:
    # precision@1 = 1, precision@3 = 2/3 -> numerator 1.6667 -> / 2
    expected = (1 + 2 / 3) / (2 + 1e-10)
    result = context_precision_score([1, 0, 1])
    assert result.value == pytest.approx(expected)
    assert result.value == pytest.approx(0.8333, abs=1e-4)


def test_context_precision_late_hit_and_zero_relevant() -> None:
    assert context_precision_score([0, 0, 1]).value == pytest.approx(1 / 3)
    zero = context_precision_score([0, 0, 0])
    assert zero.value == 0.0
    assert zero.reason == "no relevant context"
    empty = context_precision_score([])
    assert empty.value == 0.0 and empty.reason == "no contexts retrieved"


def test_faithfulness_two_of_three() -> None:
    result = faithfulness_score([1, 1, 0])
    assert result.value == pytest.approx(2 / 3)
    assert "2 of 3" in result.reason


def test_faithfulness_no_statements_is_defined() -> None:
    result = faithfulness_score([])
    assert result.value == 1.0
    assert "no claims" in result.reason


def test_answer_relevancy_mean_noncommittal_and_floor() -> None:
    assert answer_relevancy_score([0.9, 0.8, 0.7]).value == pytest.approx(0.8)
    assert answer_relevancy_score([-0.5, -0.1]).value == 0.0
    noncommittal = answer_relevancy_score([0.9], noncommittal=True)
    assert noncommittal.value == 0.0 and "noncommittal" in noncommittal.reason
    nothing = answer_relevancy_score([])
    assert nothing.value is None and nothing.reason
    nan = answer_relevancy_score([math.nan])
    assert nan.value is None and nan.reason


def test_context_relevance_ratio_and_no_sentences() -> None:
    assert context_relevance_score(1, 4).value == pytest.approx(0.25)
    assert context_relevance_score(5, 4).value == 1.0  # an LLM may over-extract: capped
    failed = context_relevance_score(0, 0)
    assert failed.value is None and failed.reason == "no context sentences"


def test_context_recall_ratio_and_empty() -> None:
    assert context_recall_score([1, 0, 1, 1]).value == pytest.approx(0.75)
    failed = context_recall_score([])
    assert failed.value is None and failed.reason


def test_verdicts_must_be_binary() -> None:
    with pytest.raises(ValueError):
        faithfulness_score([2])
    assert faithfulness_score([True, False]).value == 0.5
