"""Answer correctness (RAGAS): statement-level F1 against the ground truth, blended with semantic similarity.

Score = w_f1 * TP / (TP + (FP + FN) / 2) + w_sim * cosine(answer, ground_truth), weights (0.75, 0.25) by default
(RAGAS), configurable: `AnswerCorrectness(weights=(1.0, 0.0))`. TP: answer statements the ground truth supports;
FP: answer statements it does not; FN: ground-truth statements the answer does not contain.
LLM judge: statements are extracted from both texts (the run's shared statement step: the answer's statements are
the ones faithfulness judges), then classified by the RAGAS prompt in one call. Local judge: the statements are the
sentences with content words (hedges dropped); TP, FP and FN are graded sums of the support function with the other
text as the evidence (`evaluation.local_scoring`). Edge cases: no ground_truth -> failed "needs ground_truth"; an
empty answer -> 0.0; a refusal -> 0.0 "refusal: the answer states nothing" (it gives none of the reference's facts).
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from evaluation import local_scoring
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric
from evaluation.metrics.text_overlap import cosine_similarity
from evaluation.prompts import CorrectnessClassification, correctness_call, statements_call
from evaluation.refusal import is_refusal
from evaluation.sample import Sample
from evaluation.scores import CORRECTNESS_WEIGHTS, answer_correctness_score
from evaluation.statements import plain_statements
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import ANSWER, GROUND_TRUTH, QUESTION, MetricResult
from ragtest_core.text import sentences_of


class AnswerCorrectness(Metric):
    name: ClassVar[str] = "answer_correctness"
    definition: ClassVar[str] = (
        "Does the answer state the reference answer's facts and no others: by default 0.75 x the F1 of its claims "
        "against the reference + 0.25 x the two texts' embedding similarity (RAGAS); 1 = the reference's facts, "
        "all of them."
    )
    scale_note: ClassVar[str] = (
        "Local judge: claim matches are graded support, so a paraphrase counts partly; LLM judge: the LLM sorts "
        "the claims into true and false positives and negatives (RAGAS). The similarity part keeps a wrong answer "
        "on the right topic above 0."
    )
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
            *judge.support_texts(judge.claims(answer), [reference]),
            *judge.support_texts(judge.statements(reference), [answer]),
        ]

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return local_scoring.answer_correctness(sample, judge, self.weights)

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """Both texts' statements (the shared step; sentences stand in for them), then one classification."""
        question, answer, reference = sample.question or "", sample.answer or "", sample.ground_truth or ""
        ours, theirs = plain_statements(sentences_of(answer)), plain_statements(sentences_of(reference))
        return [
            statements_call(question, answer),
            statements_call(question, reference),
            correctness_call(question, ours, theirs),
        ]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        question, answer, reference = sample.question or "", sample.answer or "", sample.ground_truth or ""
        ours, theirs = await asyncio.gather(judge.statements(question, answer), judge.statements(question, reference))
        call = correctness_call(question, plain_statements(ours), plain_statements(theirs))
        classified = await judge.ask(call, CorrectnessClassification)
        similarity = await judge.cpu.run(
            lambda: cosine_similarity(judge.embedder, answer, reference), embed=[answer, reference]
        )
        result = answer_correctness_score(
            len(classified.TP), len(classified.FP), len(classified.FN), similarity, self.weights
        )
        return result.model_copy(update={"details": {**result.details, **classified.model_dump()}})
