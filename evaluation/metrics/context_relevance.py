"""Context relevance: the share of the retrieved context sentences that are relevant to the question.

Sentences are counted with `ragtest_core.text.split_sentences`. LLM judge (RAGAS): the model extracts the relevant
sentences. Local judge: a sentence is relevant when its centred cosine similarity to the question (embeddings
centred on the run's reference mean, `evaluation.centring`) reaches `CONTEXT_RELEVANT_COSINE`, or it holds
`CONTEXT_RELEVANT_QUESTION_RECALL` of the question's content tokens weighted by their IDF within the row's context
sentences (so the entity name that every sentence repeats, e.g. in a disambiguation line, weighs little).
Edge cases: no question -> failed "empty question"; no contexts or no sentences -> failed "no context sentences".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from evaluation import thresholds as th
from evaluation.centring import centred_similarity
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


def context_sentences(sample: Sample) -> list[str]:
    return [s for context in sample.contexts for s in sentences_of(context)]


def idf_recalls(judge: LocalJudge, question: str, sentences: Sequence[str]) -> list[float]:
    """Per sentence: the IDF-weighted share of the question's content tokens it contains (IDF over `sentences`)."""
    wanted = judge.tokens(question)
    if not wanted:
        return [0.0 for _ in sentences]
    held = [judge.tokens(s) & wanted for s in sentences]
    total = len(sentences)
    weights = {t: math.log((total + 1) / (sum(t in h for h in held) + 0.5)) for t in wanted}
    norm = sum(weights.values())
    return [sum(weights[t] for t in h) / norm for h in held]


class ContextRelevance(Metric):
    name: ClassVar[str] = "context_relevance"
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, CONTEXTS)
    needs_answer: ClassVar[bool] = False
    uses_reference_mean: ClassVar[bool] = True

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.question is None:
            return MetricResult.failed("empty question")
        if not context_sentences(sample):
            return MetricResult.failed("no context sentences")
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        return [sample.question or "", *context_sentences(sample)]

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        question = sample.question or ""
        sentences = context_sentences(sample)
        cosines = centred_similarity(judge.embedder, [question], sentences, judge.reference_mean)[0]
        recalls = idf_recalls(judge, question, sentences)
        relevant = [
            float(cos) >= th.CONTEXT_RELEVANT_COSINE or recall >= th.CONTEXT_RELEVANT_QUESTION_RECALL
            for cos, recall in zip(cosines, recalls, strict=True)
        ]
        result = context_relevance_score(sum(relevant), len(sentences))
        return result.model_copy(
            update={"details": {"relevant_sentences": [s for s, r in zip(sentences, relevant, strict=True) if r]}}
        )

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """One call extracting the relevant sentences of all the contexts."""
        return [context_relevance_call(sample.question or "", sample.contexts)]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        total = len(context_sentences(sample))
        (call,) = ContextRelevance.llm_prompts(self, sample)
        extracted = await judge.ask(call, RelevantSentences)
        kept = [s for s in extracted.sentences if s.strip() and s.strip().lower().rstrip(".") != _NOTHING_RELEVANT]
        relevant = sum(len(sentences_of(s)) for s in kept)
        result = context_relevance_score(relevant, total)
        return result.model_copy(update={"details": {"relevant_sentences": kept}})
