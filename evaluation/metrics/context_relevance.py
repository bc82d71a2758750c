"""Context relevance: the share of the retrieved context sentences that are relevant to the question.

LLM judge (RAGAS): the model extracts the relevant sentences (counted with `ragtest_core.text.split_sentences`).
Local judge (`evaluation.local_relevance`; its recipe and the others measured: docs/local-judge.md): per context
sentence (cut by `ragtest_core.quick_sentences`), the share of the question's content tokens it holds; the score is
the mean over the sentences, a graded share of relevant sentences that depends on nothing but the row.
Edge cases: no question -> failed "empty question"; no contexts or no sentences -> failed "no context sentences".
"""

from __future__ import annotations

from typing import ClassVar

from evaluation import local_relevance
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric
from evaluation.prompts import RelevantSentences, context_relevance_call
from evaluation.sample import Sample
from evaluation.scores import context_relevance_score
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import CONTEXTS, QUESTION, MetricResult
from ragtest_core.text import sentences_of

#: What an LLM writes when it finds nothing relevant (RAGAS' convention), not a sentence of the context.
_NOTHING_RELEVANT = "insufficient information"


class ContextRelevance(Metric):
    name: ClassVar[str] = "context_relevance"
    definition: ClassVar[str] = (
        "How much of the retrieved text is about the question: the share of the context sentences relevant to it "
        "(1 = every sentence is, 0 = none is)."
    )
    scale_note: ClassVar[str] = (
        "Reads low by design: a retrieval that holds the answer in 1 or 2 of its 10-40 sentences scores low even "
        "when it is right (measured on the demo run: rows whose contexts hold the whole reference answer read "
        "0.04-0.65, median 0.18). Local judge: the mean over the context sentences of the share of the question's "
        "words each one holds; LLM judge: the share of sentences the LLM extracts as relevant (RAGAS). Compare it "
        "between runs, not with 1; context_recall says whether the answer was retrieved."
    )
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, CONTEXTS)
    needs_answer: ClassVar[bool] = False

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.question is None:
            return MetricResult.failed("empty question")
        if not any(context.strip() for context in sample.contexts):
            return MetricResult.failed("no context sentences")
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        base = judge.settings.context_relevance.base
        return judge.similarity_texts(sample.question or "", local_relevance.context_units(sample, judge), base)

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return local_relevance.context_relevance(sample, judge)

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """One call extracting the relevant sentences of all the contexts."""
        return [context_relevance_call(sample.question or "", sample.contexts)]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        total = sum(len(sentences_of(context)) for context in sample.contexts)
        (call,) = ContextRelevance.llm_prompts(self, sample)
        extracted = await judge.ask(call, RelevantSentences)
        kept = [s for s in extracted.sentences if s.strip() and s.strip().lower().rstrip(".") != _NOTHING_RELEVANT]
        relevant = sum(len(sentences_of(s)) for s in kept)
        result = context_relevance_score(relevant, total)
        return result.model_copy(update={"details": {"relevant_sentences": kept}})
