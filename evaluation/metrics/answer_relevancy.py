"""Answer relevancy: does the answer address the question (completely and without digression)?

LLM judge (RAGAS): generate 3 questions from the answer alone (one call); the score is their mean cosine
similarity to the real question (computed in the judge's CPU worker); a noncommittal answer scores 0. Local judge:
`evaluation.local_relevance` (its recipe and why: docs/local-judge.md).

Cosines are anisotropy-corrected (`ragtest_core.relevance`: embeddings centred on a fixed mean shipped with the
package, never one from the run), so unrelated texts score near 0 instead of ~0.6; `answer_relevancy_raw` scores
with the raw cosine (RAGAS' published definition). Edge cases: no question -> failed "empty question"; an empty
answer -> 0.0 "empty answer".
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from evaluation import local_relevance
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric
from evaluation.prompts import GeneratedQuestions, question_generation_call
from evaluation.sample import Sample
from evaluation.scores import answer_relevancy_score
from ragtest_core import judge_params
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.relevance import centred_cosine
from ragtest_core.schema import ANSWER, QUESTION, MetricResult


class AnswerRelevancy(Metric):
    name: ClassVar[str] = "answer_relevancy"
    definition: ClassVar[str] = (
        "Does the answer address the question, directly and completely: 1 = a direct answer to every part of it, "
        "0 = off-topic, noncommittal or a refusal."
    )
    scale_note: ClassVar[str] = (
        "Local judge: the mean of the question's word share in the answer and the calibrated relevance of the "
        "answer: a direct answer reads 0.9-1.0, an off-topic one about 0, an answer that only restates the question "
        "high. LLM judge: the centred cosine between questions the LLM writes from the answer alone and the real "
        "question (RAGAS)."
    )
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, ANSWER)
    #: Score with the centred (anisotropy-corrected) cosine; the raw cosine is always in the details.
    centred: ClassVar[bool] = True

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.question is None:
            return MetricResult.failed("empty question")
        if sample.answer is None:
            return MetricResult.ok(0.0, "empty answer: it addresses nothing")
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        question, answer = sample.question or "", sample.answer or ""
        claims = judge.claims(answer)
        if not self.centred:
            return [question, *claims]
        rules = judge.settings.answer_relevancy
        return judge.similarity_texts(
            question, local_relevance.answer_units(question, answer, claims, rules), rules.base
        )

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        if self.centred:
            return local_relevance.answer_relevancy(sample, judge)
        return local_relevance.answer_relevancy_raw(sample, judge)

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        return [question_generation_call(sample.answer or "")]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        (call,) = AnswerRelevancy.llm_prompts(self, sample)
        generated = await judge.ask(call, GeneratedQuestions)
        questions = [q.strip() for q in generated.questions if q.strip()]
        if generated.noncommittal:
            return answer_relevancy_score([], noncommittal=True)
        if not questions:
            return MetricResult.failed("the judge generated no questions")
        question, mean = [sample.question or ""], judge.reference_mean

        def similarities() -> tuple[np.ndarray, np.ndarray]:
            raw = judge.embedder.similarity(questions, question)[:, 0]
            if mean is None:
                return raw, raw
            return raw, centred_cosine(judge.embedder.embed(questions), judge.embedder.embed(question), mean)[:, 0]

        raw, centred = await judge.cpu.run(similarities, embed=[*questions, *question])
        label = "centred" if self.centred and mean is not None else "raw"
        floor = judge_params.PARAMS.answer_relevancy_floor
        result = answer_relevancy_score([max(float(v), floor) for v in (centred if label == "centred" else raw)])
        if result.value is not None:
            raw_mean, centred_mean = float(np.clip(raw.mean(), 0, 1)), float(np.clip(centred.mean(), 0, 1))
            note = " (no reference sample: not centred)" if self.centred and mean is None else ""
            reason = (
                f"{label} generated-question similarity {result.value:.3f} (raw {raw_mean:.3f}, "
                f"centred {centred_mean:.3f}){note}"
            )
            details = {"raw": raw_mean, "centred": centred_mean, "scored_with": label}
            result = result.model_copy(update={"reason": reason, "details": details})
        return result.model_copy(update={"details": {**result.details, "generated_questions": questions}})


class AnswerRelevancyRaw(AnswerRelevancy):
    """RAGAS' answer relevancy as published: the raw cosine, comparable with ragas' numbers."""

    name: ClassVar[str] = "answer_relevancy_raw"
    definition: ClassVar[str] = (
        "answer_relevancy on the raw embedding cosine, as RAGAS publishes it: how close the answer (local judge) or "
        "questions written from it (LLM judge) are to the real question."
    )
    scale_note: ClassVar[str] = (
        "Uncentred and uncalibrated under both judges: texts on the same topic read well above 0 even when they do "
        "not answer, so read it against ragas' numbers, not as a share; answer_relevancy is the calibrated one."
    )
    centred: ClassVar[bool] = False
