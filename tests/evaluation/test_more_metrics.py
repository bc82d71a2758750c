"""Answer correctness, citations (ALCE) and robustness: hand-computed formulas and the local judge."""

from __future__ import annotations

import pandas as pd
import pytest

from evaluation.engine import evaluate_dataset
from evaluation.metrics.citations import cited_statements, subsets_to_judge
from evaluation.scores import (
    CitationJudgement,
    answer_correctness_score,
    citation_precision_score,
    citation_recall_score,
    statement_f1,
)
from ragtest_core.embeddings import Embedder
from tests.evaluation.helpers import one_row

CONTEXTS = [
    "The Eiffel Tower is a wrought-iron lattice tower in Paris, France.",
    "Bananas are rich in potassium.",
    "The tower was built from 1887 to 1889 for the World's Fair.",
]


def test_answer_correctness_formula() -> None:
    assert statement_f1(2, 1, 1) == pytest.approx(2 / 3)  # 2 / (2 + 1)
    result = answer_correctness_score(2, 1, 1, similarity=0.8)
    assert result.value == pytest.approx(0.75 * 2 / 3 + 0.25 * 0.8)
    assert answer_correctness_score(2, 1, 1, 0.8, weights=(1.0, 0.0)).value == pytest.approx(2 / 3)
    assert answer_correctness_score(0, 0, 0, -0.2).value == 0.0
    with pytest.raises(ValueError):
        answer_correctness_score(1, 0, 0, 0.5, weights=(-1.0, 1.0))


def test_citation_formulas_follow_alce() -> None:
    judgements = [
        CitationJudgement((1,), supported=True),  # precise
        CitationJudgement((1, 3), supported=True, alone=(True, False), without=(False, True)),  # 3 irrelevant
        CitationJudgement((2, 3), supported=True, alone=(False, False), without=(False, False)),  # both needed
        CitationJudgement((2,), supported=False),  # imprecise
        CitationJudgement((), supported=False),  # uncited: unsupported
    ]
    recall = citation_recall_score(judgements)
    assert recall.value == pytest.approx(3 / 5) and "1 without a citation" in recall.reason
    assert citation_precision_score(judgements).value == pytest.approx(4 / 6)
    assert citation_precision_score([CitationJudgement((), False)]).value == 0.0
    assert citation_recall_score([]).value == 1.0


def test_citation_parsing() -> None:
    answer = "The tower is in Paris [1]. It was built in 1889 [1][3]. Bananas are yellow. [2, 4]"
    assert cited_statements(answer) == [
        ("The tower is in Paris.", (1,)),  # markers removed with the space before them
        ("It was built in 1889.", (1, 3)),
        ("Bananas are yellow.", (2, 4)),
    ]
    assert subsets_to_judge((1, 3)) == [(1, 3), (1,), (3,)]
    assert subsets_to_judge((1,)) == [(1,)]


def test_local_citations_on_a_real_row(embedder: Embedder) -> None:
    answer = "The Eiffel Tower is in Paris [1][2]. It was built in 1889 [3]. It is painted blue [1]. It is tall."
    frame = pd.concat([one_row(answer=answer), one_row(), one_row(answer="I don't know.")], ignore_index=True)
    result = evaluate_dataset(
        frame, metrics=["citation_recall", "citation_precision"], embedder=embedder, show_progress=False
    )
    row = result.frame.iloc[0]
    assert row["citation_recall"] == pytest.approx(2 / 4)  # blue is unsupported, "tall" is uncited
    assert row["citation_precision"] == pytest.approx(2 / 4)  # [2] is irrelevant, [1] does not support "blue"
    for name in ("citation_recall", "citation_precision"):
        assert result.frame.loc[1, name] == 0.0
        assert result.frame.loc[1, f"{name}_reason"] == "no citation markers in the answer"
        assert result.frame.loc[2, name] == 1.0 and "refusal" in result.frame.loc[2, f"{name}_reason"]


def test_local_answer_correctness(embedder: Embedder) -> None:
    frame = pd.concat([one_row(), one_row(answer="It is in Rome."), one_row(answer="I don't know.")], ignore_index=True)
    result = evaluate_dataset(frame, metrics=["answer_correctness"], embedder=embedder, show_progress=False)
    scores = result.frame["answer_correctness"].tolist()
    details = result.results[0]["answer_correctness"].details
    # graded counts: TP ~2 (Paris, 1889), FP ~1 (blue), FN ~0
    assert details["f1"] == pytest.approx(2 / (2 + 0.5), abs=0.01)
    assert scores[0] > scores[1] > scores[2] == 0.0
    assert result.frame.loc[2, "answer_correctness_reason"].startswith("refusal")


def test_robustness_metrics(embedder: Embedder) -> None:
    base = {
        "reference_context_ids": ["c1", "c3"],
        "ground_truth": "The Eiffel Tower is in Paris. It was built in 1889.",
    }
    frame = pd.concat(
        [
            one_row(question_type="unanswerable", answer="I don't know.", context_ids=["c1"], **base),
            one_row(question_type="unanswerable", context_ids=["c1"], **base),
            one_row(question_type="simple", context_ids=["c1", "c2", "c3"], **base),  # c2 is a distractor
            one_row(question_type="simple", context_ids=["c1", "c3"], **base),
        ],
        ignore_index=True,
    )
    result = evaluate_dataset(
        frame, metrics=["negative_rejection", "noise_robustness"], embedder=embedder, show_progress=False
    )
    out = result.frame
    assert out["negative_rejection"].tolist()[:2] == [1.0, 0.0]
    assert out.loc[2, "negative_rejection"] is None
    assert out.loc[2, "negative_rejection_reason"] == "not an unanswerable question"
    assert out.loc[0, "noise_robustness"] is None and "unanswerable" in out.loc[0, "noise_robustness_reason"]
    assert out.loc[2, "noise_robustness"] > 0.5
    assert out.loc[2, "noise_robustness_reason"].startswith("with 1 distracting context(s)")
    assert out.loc[3, "noise_robustness"] is None
    assert out.loc[3, "noise_robustness_reason"] == "no distracting context retrieved"
    summary = result.summary["negative_rejection"]
    assert summary["rows_scored"] == 2 and summary["by_question_type"]["unanswerable"]["mean"] == 0.5
