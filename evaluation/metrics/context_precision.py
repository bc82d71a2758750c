"""Context precision: are the contexts useful for the reference answer ranked high? (RAGAS average precision.)

Each retrieved context, in rank order, gets a verdict "useful for arriving at the reference answer" (1/0); the
score is sum_k(precision@k * v_k) / (number of useful contexts + 1e-10). The reference is `ground_truth`; when a
row has none, the answer is the reference (as ragas' context precision without reference) and the reason says so.
LLM judge: one call judges all of a row's contexts and returns one verdict per context, in rank order (RAGAS asks
once per context; the verdicts and the formula are the same). Local judge (`evaluation.local_scoring`, its base
`LocalJudgeSettings.context_precision`; the other bases and why: docs/local-judge.md): each context's verdict is
graded, the share of the reference's content words it holds, in the same average precision with graded verdicts.
Edge cases: no contexts -> 0.0 "no contexts retrieved"; no useful context -> 0.0 "no relevant context";
neither ground_truth nor answer -> failed; an unanswerable row (its reference declines to answer) -> no score,
reason "unanswerable: ...": no context can be useful for a refusal.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar

from evaluation import local_scoring
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric, judged_score, with_note
from evaluation.prompts import ContextVerdicts, context_precision_call
from evaluation.refusal import is_unanswerable_reference
from evaluation.sample import Sample
from evaluation.scores import context_precision_score
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import ANSWER, CONTEXTS, GROUND_TRUTH, QUESTION, MetricResult

_ANSWER_NOTE = " (reference: the answer, since the row has no ground_truth)"


def reference_of(sample: Sample) -> tuple[str | None, str]:
    """The reference text and a note for the reason ('' when it is the ground truth)."""
    if sample.ground_truth is not None:
        return sample.ground_truth, ""
    if sample.answer is not None:
        return sample.answer, _ANSWER_NOTE
    return None, ""


class ContextPrecision(Metric):
    name: ClassVar[str] = "context_precision"
    definition: ClassVar[str] = (
        "Are the contexts useful for the reference answer ranked first: average precision over the ranks (1 = "
        "every useful context above every other one, 0 = no useful context retrieved)."
    )
    scale_note: ClassVar[str] = (
        "The same formula under both judges (RAGAS); only the verdicts differ. Local judge: each context's verdict is "
        "the share of the reference's words it holds, graded: the one chunk holding the reference, at rank 1, reads "
        "1.0; a reference split over two chunks gives each part credit (both ranked first read about 0.5; on the demo "
        "run, rows with every gold chunk retrieved read 0.44-1.00, median 0.78); LLM "
        "judge: the LLM's useful/not verdict per context, a gold chunk at rank 1 reads 1.0."
    )
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, CONTEXTS)
    needs_answer: ClassVar[bool] = False

    def missing_columns(self, columns: Collection[str]) -> list[str]:
        missing = super().missing_columns(columns)
        if GROUND_TRUTH not in columns and ANSWER not in columns:
            missing.append(f"{GROUND_TRUTH} (or {ANSWER})")
        return missing

    def rag_failure(self, sample: Sample) -> MetricResult | None:
        if sample.answer_error is not None and sample.ground_truth is None:
            return MetricResult.failed(f"RAG error: {sample.answer_error}")
        return super().rag_failure(sample)

    def precheck(self, sample: Sample) -> MetricResult | None:
        reference, note = reference_of(sample)
        if reference is None:
            return MetricResult.failed("needs ground_truth (or an answer to use as the reference)")
        if is_unanswerable_reference(reference, sample.question_type):
            return with_note(MetricResult.failed("unanswerable: the reference declines to answer"), note)
        if not sample.contexts:
            return with_note(MetricResult.ok(0.0, "no contexts retrieved"), note)
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        reference, _ = reference_of(sample)
        return judge.similarity_texts(reference or "", sample.contexts, judge.settings.context_precision)

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        reference, note = reference_of(sample)
        return with_note(local_scoring.context_precision(reference or "", sample, judge), note)

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """One call with every retrieved context, in rank order."""
        reference, note = reference_of(sample)
        return [context_precision_call(sample.question or "", reference or "", sample.contexts, bool(note))]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        _, note = reference_of(sample)
        (call,) = ContextPrecision.llm_prompts(self, sample)
        judged = await judge.ask(call, ContextVerdicts)
        verdicts = [v.verdict for v in judged.verdicts]
        result = judged_score(verdicts, len(sample.contexts), lambda v: with_note(context_precision_score(v), note))
        if result.value is None:
            return result
        details = [{"verdict": v.verdict, "reason": v.reason} for v in judged.verdicts[: len(sample.contexts)]]
        return result.model_copy(update={"details": {"verdicts": details}})
