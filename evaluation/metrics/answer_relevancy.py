"""Answer relevancy: does the answer address the question (completely and without digression)?

LLM judge (RAGAS): generate 3 questions from the answer alone (one call); the score is their mean cosine
similarity to the real question (computed in the judge's CPU worker); a noncommittal answer scores 0. Local judge
(it cannot generate questions): RAGAS' answer relevancy
penalises incomplete answers, so the question is split into its parts ("When did X start, and what does it
pass?" has two) and each part must be addressed by some answer sentence; the score is the mean over the parts of
the best cosine similarity between the part and what an answer sentence adds to the question (the sentence without
the words it shares with the question: a restatement of the question adds nothing; all-MiniLM-L6-v2 was trained
on question-answer pairs). An answer containing a refusal or hedge phrase is noncommittal and scores 0.0 (reason
"noncommittal answer").

Cosines are anisotropy-corrected (`evaluation.centring`: embeddings centred on the mean of the run's context
sentences), so unrelated texts score near 0 instead of ~0.6; the raw cosine is in the reason and the details, and
`answer_relevancy_raw` scores with it (RAGAS' published definition). Edge cases: no question -> failed
"empty question"; an empty answer -> 0.0 "empty answer".
"""

from __future__ import annotations

import re
from typing import ClassVar

import numpy as np

from evaluation import thresholds as th
from evaluation.centring import centred_similarity
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric
from evaluation.prompts import GeneratedQuestions, question_generation_call
from evaluation.refusal import is_noncommittal
from evaluation.sample import Sample
from evaluation.scores import answer_relevancy_score
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import ANSWER, QUESTION, MetricResult
from ragtest_core.text import content_tokens, sentences_of

_OPENER = r"(?:what|how|when|where|who|whom|whose|why|which|is|are|was|were|does|do|did|can|could|has|have|had)"
#: Where a question splits into parts: "..., and <wh-word or auxiliary> ...", a question mark, a semicolon.
_PART_BOUNDARY = re.compile(rf",?\s+and\s+(?={_OPENER}\b)|\?\s*|;\s*", re.IGNORECASE)


def question_parts(question: str) -> list[str]:
    """The sub-questions of a compound question (the whole question when it has one part)."""
    parts = [p.strip() for p in _PART_BOUNDARY.split(question) if p and content_tokens(p)]
    return parts or [question]


def answer_additions(judge: LocalJudge, question: str, answer: str) -> list[str]:
    """Each answer sentence without the words it shares with the question: what the answer adds. A restatement of
    the question adds nothing, so it cannot make an answer look relevant."""
    asked = judge.tokens(question)
    additions = []
    for sentence in sentences_of(answer) or [answer]:
        kept = [w for w in sentence.split() if not (judge.tokens(w) and judge.tokens(w) <= asked)]
        if any(judge.tokens(w) for w in kept):
            additions.append(" ".join(kept))
    return list(dict.fromkeys(additions))


class AnswerRelevancy(Metric):
    name: ClassVar[str] = "answer_relevancy"
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, ANSWER)
    #: Score with the centred (anisotropy-corrected) cosine; the raw cosine is always in the details.
    centred: ClassVar[bool] = True
    uses_reference_mean: ClassVar[bool] = True

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.question is None:
            return MetricResult.failed("empty question")
        if sample.answer is None:
            return MetricResult.ok(0.0, "empty answer: it addresses nothing")
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        question = sample.question or ""
        return [*question_parts(question), *answer_additions(judge, question, sample.answer or "")]

    def _result(self, raw: np.ndarray, centred: np.ndarray, mean: np.ndarray | None, what: str) -> MetricResult:
        chosen = centred if self.centred and mean is not None else raw
        result = answer_relevancy_score([max(float(v), th.ANSWER_RELEVANCY_FLOOR) for v in chosen])
        if result.value is None:
            return result
        raw_mean, centred_mean = float(np.clip(raw.mean(), 0, 1)), float(np.clip(centred.mean(), 0, 1))
        label = "centred" if chosen is centred else "raw"
        note = "" if mean is not None or not self.centred else " (no reference sample: not centred)"
        return result.model_copy(
            update={
                "reason": f"{label} {what} similarity {result.value:.3f} (raw {raw_mean:.3f}, "
                f"centred {centred_mean:.3f}){note}",
                "details": {"raw": raw_mean, "centred": centred_mean, "scored_with": label},
            }
        )

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        question, answer = sample.question or "", sample.answer or ""
        if is_noncommittal(answer):
            return answer_relevancy_score([], noncommittal=True)
        parts = question_parts(question)
        additions = answer_additions(judge, question, answer)
        if not additions:
            return MetricResult.ok(0.0, "the answer only repeats the question")
        raw = judge.cosine(parts, additions).max(axis=1)
        centred = centred_similarity(judge.embedder, parts, additions, judge.reference_mean).max(axis=1)
        result = self._result(raw, centred, judge.reference_mean, f"question-part/answer ({len(parts)} part(s))")
        return result.model_copy(update={"details": {**result.details, "question_parts": parts}})

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
        question = [sample.question or ""]

        def similarities() -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
            raw = judge.embedder.similarity(questions, question)[:, 0]
            centred = centred_similarity(judge.embedder, questions, question, judge.reference_mean)[:, 0]
            return raw, centred, judge.reference_mean

        raw, centred, mean = await judge.cpu.run(similarities, embed=[*questions, *question])
        result = self._result(raw, centred, mean, "generated-question")
        return result.model_copy(update={"details": {**result.details, "generated_questions": questions}})


class AnswerRelevancyRaw(AnswerRelevancy):
    """RAGAS' answer relevancy as published: the raw cosine, comparable with ragas' numbers."""

    name: ClassVar[str] = "answer_relevancy_raw"
    centred: ClassVar[bool] = False
    uses_reference_mean: ClassVar[bool] = True
