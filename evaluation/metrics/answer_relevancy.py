"""Answer relevancy: does the answer address the question (completely and without digression)?

LLM judge (RAGAS): generate 3 questions from the answer; the score is their mean cosine similarity to the real
question; a noncommittal answer scores 0. Local judge (it cannot generate questions): RAGAS' answer relevancy
penalises incomplete answers, so the question is split into its parts ("When did X start, and what does it
pass?" has two) and each part must be addressed by some answer sentence; the score is the mean over the parts of
the best cosine similarity between the part and an answer sentence (all-MiniLM-L6-v2 was trained on
question-answer pairs). An answer containing a refusal or hedge phrase is noncommittal and scores 0.
Edge cases: no answer -> failed "empty answer"; no question -> failed "empty question".
"""

from __future__ import annotations

import re
from typing import ClassVar

from evaluation import thresholds as th
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric
from evaluation.prompts import GeneratedQuestions, question_generation_prompt
from evaluation.refusal import is_noncommittal
from evaluation.sample import Sample, sentences_of
from evaluation.scores import answer_relevancy_score
from ragtest.schema import ANSWER, QUESTION, MetricResult
from ragtest.text import content_tokens

_OPENER = r"(?:what|how|when|where|who|whom|whose|why|which|is|are|was|were|does|do|did|can|could|has|have|had)"
#: Where a question splits into parts: "..., and <wh-word or auxiliary> ...", a question mark, a semicolon.
_PART_BOUNDARY = re.compile(rf",?\s+and\s+(?={_OPENER}\b)|\?\s*|;\s*", re.IGNORECASE)


def question_parts(question: str) -> list[str]:
    """The sub-questions of a compound question (the whole question when it has one part)."""
    parts = [p.strip() for p in _PART_BOUNDARY.split(question) if p and content_tokens(p)]
    return parts or [question]


class AnswerRelevancy(Metric):
    name: ClassVar[str] = "answer_relevancy"
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, ANSWER)

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.answer is None:
            return MetricResult.failed("empty answer")
        if sample.question is None:
            return MetricResult.failed("empty question")
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        return [*question_parts(sample.question or ""), *sentences_of(sample.answer or "")]

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        question, answer = sample.question or "", sample.answer or ""
        if is_noncommittal(answer):
            return answer_relevancy_score([], noncommittal=True)
        parts = question_parts(question)
        best = judge.cosine(parts, sentences_of(answer) or [answer]).max(axis=1)
        result = answer_relevancy_score([max(float(b), th.ANSWER_RELEVANCY_FLOOR) for b in best])
        return result.model_copy(
            update={
                "reason": f"{result.reason} (question parts: {len(parts)})",
                "details": {"question_parts": parts, "best_similarity": [round(float(b), 3) for b in best]},
            }
        )

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        generated = await judge.llm.structured(
            question_generation_prompt(sample.answer or "", sample.contexts),
            GeneratedQuestions,
            stage="answer_relevancy.questions",
        )
        questions = [q.strip() for q in generated.questions if q.strip()]
        if generated.noncommittal:
            return answer_relevancy_score([], noncommittal=True)
        if not questions:
            return MetricResult.failed("the judge generated no questions")
        similarities = judge.embedder.similarity(questions, [sample.question or ""])[:, 0]
        result = answer_relevancy_score([float(s) for s in similarities])
        return result.model_copy(update={"details": {"generated_questions": questions}})
