"""Answer correctness (RAGAS): statement-level F1 against the ground truth, blended with semantic similarity.

Score = w_f1 * TP / (TP + (FP + FN) / 2) + w_sim * cosine(answer, ground_truth), weights (0.75, 0.25) by default
(RAGAS), configurable: `AnswerCorrectness(weights=(1.0, 0.0))`. TP: answer statements the ground truth supports;
FP: answer statements it does not; FN: ground-truth statements the answer does not contain.
LLM judge: statements are extracted from both texts, then classified by the RAGAS prompt. Local judge: the
statements are the sentences with content words (hedges dropped); TP, FP and FN are graded sums of the support
function with the other text as the evidence (`evaluation.local_scoring`). Edge cases: no ground_truth -> failed
"needs ground_truth"; an empty answer -> 0.0; a refusal -> 0.0 "refusal: the answer states nothing" (it gives none
of the reference's facts).
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from evaluation import local_scoring
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric
from evaluation.metrics.text_overlap import cosine_similarity
from evaluation.prompts import CorrectnessClassification, Statements, correctness_prompt, statements_prompt
from evaluation.refusal import is_refusal
from evaluation.sample import Sample
from evaluation.scores import CORRECTNESS_WEIGHTS, answer_correctness_score
from ragtest_core.schema import ANSWER, GROUND_TRUTH, QUESTION, MetricResult


class AnswerCorrectness(Metric):
    name: ClassVar[str] = "answer_correctness"
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, ANSWER, GROUND_TRUTH)

    def __init__(self, weights: tuple[float, float] = CORRECTNESS_WEIGHTS) -> None:
        if min(weights) < 0 or sum(weights) <= 0:
            raise ValueError(f"weights must be non-negative with a positive sum, got {weights}")
        self.weights = weights

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.ground_truth is None:
            return MetricResult.failed("needs ground_truth")
        if sample.answer is None:
            return MetricResult.ok(0.0, "empty answer")
        if is_refusal(sample.answer):
            return MetricResult.ok(0.0, "refusal: the answer states nothing")
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        answer, reference = sample.answer or "", sample.ground_truth or ""
        return [
            answer,
            reference,
            *judge.claims(answer),
            *judge.statements(reference),
            *judge.evidence_texts([reference]),
            *judge.evidence_texts([answer]),
        ]

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return local_scoring.answer_correctness(sample, judge, self.weights)

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        question, answer, reference = sample.question or "", sample.answer or "", sample.ground_truth or ""
        ours, theirs = await asyncio.gather(
            judge.llm.structured(statements_prompt(question, answer), Statements, stage="answer_correctness.answer"),
            judge.llm.structured(
                statements_prompt(question, reference), Statements, stage="answer_correctness.reference"
            ),
        )
        classified = await judge.llm.structured(
            correctness_prompt(question, ours.statements, theirs.statements),
            CorrectnessClassification,
            stage="answer_correctness.classify",
        )
        similarity = cosine_similarity(judge.embedder, answer, reference)
        result = answer_correctness_score(
            len(classified.TP), len(classified.FP), len(classified.FN), similarity, self.weights
        )
        return result.model_copy(update={"details": {**result.details, **classified.model_dump()}})
