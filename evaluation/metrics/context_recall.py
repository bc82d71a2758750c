"""Context recall: the share of the reference answer's sentences attributable to the retrieved contexts.

The reference (`ground_truth`) is split with `ragtest_core.text.split_sentences`. Local judge
(`evaluation.local_scoring`, its base `LocalJudgeSettings.context_recall`; the other bases: docs/local-judge.md):
the share of the reference's content words that the retrieved contexts hold. Edge cases: no ground_truth ->
failed "needs ground_truth"; an unanswerable row (question_type "unanswerable", or a reference that only declines,
such as the generator's "The corpus does not contain this information.") -> no score, reason "unanswerable: ...":
there is nothing to attribute; no contexts -> 0.0, nothing is attributable.
"""

from __future__ import annotations

from typing import ClassVar

from evaluation import local_scoring
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric, judged_score
from evaluation.prompts import Attributions, context_recall_call
from evaluation.refusal import is_unanswerable_reference
from evaluation.sample import Sample
from evaluation.scores import context_recall_score
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import CONTEXTS, GROUND_TRUTH, QUESTION, MetricResult
from ragtest_core.text import sentences_of


class ContextRecall(Metric):
    name: ClassVar[str] = "context_recall"
    definition: ClassVar[str] = (
        "How much of the reference answer the retrieved contexts contain: 1 = every reference sentence is "
        "supported by them, 0 = none is."
    )
    scale_note: ClassVar[str] = (
        "Local judge: the share of the reference's content words found in the retrieved contexts (on the demo run, "
        "rows with every gold chunk retrieved read 0.86-1.00, median 1.00; unrelated contexts read near 0; a "
        "paraphrase in other words reads lower). LLM "
        "judge: the share of reference sentences the LLM attributes to the contexts (RAGAS). Both read near 1 when the "
        "gold chunks were retrieved."
    )
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, CONTEXTS, GROUND_TRUTH)
    needs_answer: ClassVar[bool] = False

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.ground_truth is None:
            return MetricResult.failed("needs ground_truth")
        if is_unanswerable_reference(sample.ground_truth, sample.question_type):
            return MetricResult.failed("unanswerable: the reference declines to answer, so nothing is to be recalled")
        if not sample.contexts:
            return MetricResult.ok(0.0, "no contexts retrieved: nothing is attributable")
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        return judge.similarity_texts(sample.ground_truth or "", sample.contexts, judge.settings.context_recall)

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return local_scoring.context_recall(sample, judge)

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """One call classifying every sentence of the reference."""
        sentences = sentences_of(sample.ground_truth or "")
        return [context_recall_call(sample.question or "", sample.contexts, sentences)]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        sentences = sentences_of(sample.ground_truth or "")
        (call,) = ContextRecall.llm_prompts(self, sample)
        judged = await judge.ask(call, Attributions)
        return judged_score([c.attributed for c in judged.classifications], len(sentences), context_recall_score)
