"""Robustness after RGB (Chen et al. 2024, "Benchmarking LLMs in Retrieval-Augmented Generation").

negative_rejection: on rows whose question_type is "unanswerable" (the corpus holds no answer), 1.0 when the RAG
declines (a refusal or hedge phrase, see `evaluation.refusal`; an empty answer counts as declining: it asserts
nothing) and 0.0 when it answers anyway. LLM judge: a rejection prompt decides. Other rows: failed with reason
"not an unanswerable question" (never NaN; the summary counts them apart).

noise_robustness: the answer's correctness (`answer_correctness`, same judge and weights) on rows whose retrieval
contains distracting contexts: a retrieved context that is not gold. Gold is decided, in order, by ids
(context_ids vs reference_context_ids), by text (contexts vs reference_contexts), or by question_type
"distracting" (the row was built with distractors). Rows with only gold contexts: failed "no distracting context
retrieved"; rows where gold cannot be told apart: failed with a reason; unanswerable rows: failed (see
negative_rejection).
"""

from __future__ import annotations

from typing import ClassVar

from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import BINARY, Metric
from evaluation.metrics.answer_correctness import AnswerCorrectness
from evaluation.prompts import RejectionVerdict, rejection_call
from evaluation.refusal import is_noncommittal
from evaluation.sample import Sample
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import ANSWER, CONTEXTS, GROUND_TRUTH, QUESTION, QUESTION_TYPE, MetricResult

UNANSWERABLE = "unanswerable"
DISTRACTING = "distracting"


def is_unanswerable(sample: Sample) -> bool:
    return (sample.question_type or "").strip().lower() == UNANSWERABLE


class NegativeRejection(Metric):
    name: ClassVar[str] = "negative_rejection"
    definition: ClassVar[str] = (
        "On unanswerable questions (the corpus holds no answer): 1 when the RAG declines to answer, 0 when it "
        "answers anyway; other rows get no score."
    )
    scale_note: ClassVar[str] = (
        "Local judge: a refusal or hedge phrase in the answer; LLM judge: the LLM's verdict on whether it declined."
    )
    scale: ClassVar[str] = BINARY
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, ANSWER, QUESTION_TYPE)

    def precheck(self, sample: Sample) -> MetricResult | None:
        if not is_unanswerable(sample):
            return MetricResult.failed("not an unanswerable question")
        if sample.answer is None:
            return MetricResult.ok(1.0, "empty answer: nothing asserted, counted as declining")
        return None

    @staticmethod
    def _verdict(declined: bool, reason: str = "") -> MetricResult:
        said = f"{'declined' if declined else 'answered'} an unanswerable question: {reason}"
        return MetricResult.ok(float(declined), said.rstrip(": "))

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return self._verdict(is_noncommittal(sample.answer or ""))

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        return [rejection_call(f"{self.name}.verdict", sample.question or "", sample.answer or "")]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        (call,) = NegativeRejection.llm_prompts(self, sample)
        reply = await judge.ask(call, RejectionVerdict)
        return self._verdict(bool(reply.rejected), reply.reason)


def distractors(sample: Sample) -> int | None:
    """How many retrieved contexts are not gold; None when gold cannot be told apart from the rest."""
    if sample.context_ids and sample.reference_context_ids:
        return len(set(sample.context_ids) - set(sample.reference_context_ids))
    if sample.contexts and sample.reference_contexts:
        return sum(c not in sample.reference_contexts for c in sample.contexts)
    if (sample.question_type or "").strip().lower() == DISTRACTING:
        return max(1, len(sample.contexts))
    return None


class NoiseRobustness(Metric):
    name: ClassVar[str] = "noise_robustness"
    definition: ClassVar[str] = (
        "answer_correctness on the rows whose retrieved contexts include a chunk that is not gold (a distractor); "
        "other rows get no score."
    )
    scale_note: ClassVar[str] = "Reads as answer_correctness does, under the same judge."
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, ANSWER, CONTEXTS, GROUND_TRUTH)
    correctness: ClassVar[AnswerCorrectness] = AnswerCorrectness()

    def precheck(self, sample: Sample) -> MetricResult | None:
        if is_unanswerable(sample):
            return MetricResult.failed("unanswerable question: see negative_rejection")
        noise = distractors(sample)
        if noise is None:
            return MetricResult.failed(
                "cannot tell gold from distracting contexts (needs context_ids and reference_context_ids, "
                "reference_contexts, or question_type 'distracting')"
            )
        if noise == 0:
            return MetricResult.failed("no distracting context retrieved")
        decided = self.correctness.precheck(sample)
        return None if decided is None else self._note(decided, noise)

    @staticmethod
    def _note(result: MetricResult, noise: int) -> MetricResult:
        if result.value is None:
            return result
        return result.model_copy(update={"reason": f"with {noise} distracting context(s): {result.reason}"})

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        return self.correctness.local_texts(sample, judge)

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return self._note(self.correctness.score_local(sample, judge), distractors(sample) or 0)

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """answer_correctness' calls (shared with it when both are selected)."""
        return self.correctness.llm_prompts(sample)

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        return self._note(await self.correctness.score_llm(sample, judge), distractors(sample) or 0)
