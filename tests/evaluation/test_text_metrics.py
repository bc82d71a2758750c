"""Reference-based text metrics: hand cases, Chinese and Japanese tokenisation, edge cases."""

from __future__ import annotations

import pandas as pd
import pytest

from evaluation.engine import evaluate_dataset
from evaluation.metrics.text_overlap import bleu, exact_match, rouge_l, token_f1
from ragtest_core.embeddings import Embedder

TEXT = ["exact_match", "token_f1", "rouge_l", "bleu", "semantic_similarity"]


def test_english_hand_cases() -> None:
    assert exact_match("The Eiffel Tower.", "eiffel tower") == 1.0
    assert exact_match("Paris", "Lyon") == 0.0
    # tokens: [paris, is, capital] vs [capital, is, paris, france]: 3 common, P = 1, R = 3/4
    assert token_f1("Paris is the capital", "The capital is Paris, France") == pytest.approx(2 * 0.75 / 1.75)
    # LCS of [a, b, c, d] and [a, c, d, e] = 3 -> P = R = 3/4
    assert rouge_l("a b c d", "a c d e") == pytest.approx(0.75)
    assert bleu("the cat sat on the mat", "the cat sat on the mat") == pytest.approx(1.0)
    assert 0.0 < bleu("the cat sat on a mat", "the cat sat on the mat") < 1.0


def test_chinese_and_japanese_are_tokenised_per_character() -> None:
    # 操作系统是软件 vs 操作系统是程序: 5 of 7 characters in common
    assert token_f1("操作系统是软件", "操作系统是程序") == pytest.approx(5 / 7)
    assert rouge_l("操作系统是软件", "操作系统是程序") == pytest.approx(5 / 7)
    assert 0.0 < bleu("操作系统是软件", "操作系统是程序") < 1.0
    assert exact_match("人工知能。", "人工知能") == 1.0
    assert rouge_l("人工知能は研究分野です", "人工知能は研究分野である") > 0.7


def test_engine_edge_cases(embedder: Embedder) -> None:
    frame = pd.DataFrame(
        {
            "question": ["q", "q", "q"],
            "answer": ["The tower is in Paris.", "", "Paris"],
            "ground_truth": ["The tower is in Paris.", "Paris", None],
        }
    )
    result = evaluate_dataset(frame, metrics=TEXT, embedder=embedder, show_progress=False)
    for name in TEXT:
        assert result.frame.loc[0, name] == pytest.approx(1.0, abs=1e-5)
        assert result.frame.loc[1, name] == 0.0 and result.frame.loc[1, f"{name}_reason"] == "empty answer"
        assert result.frame.loc[2, name] is None and result.frame.loc[2, f"{name}_reason"] == "needs ground_truth"
