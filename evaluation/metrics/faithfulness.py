"""Faithfulness: the share of the answer's statements that the retrieved contexts support.

Edge cases: an answer that only refuses ("I don't know") -> 1.0 "refusal: no claims": faithfulness measures
unsupported claims and a refusal makes none (answer_relevancy, answer_correctness and negative_rejection judge
whether refusing was right); an empty answer likewise -> 1.0 "empty answer: no claims"; no contexts -> 0.0, no
statement can be supported. Refusal sentences inside a longer answer are not statements. The local judge takes
each remaining answer sentence as one statement and scores the mean of their graded support
(`evaluation.local_scoring`: partial support counts partially, a contradicted entity, number or date counts
little); the LLM judge keeps RAGAS' binary verdicts.
"""

from __future__ import annotations

from typing import ClassVar

from evaluation import local_scoring
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric, align_verdicts, with_note
from evaluation.prompts import Statements, StatementVerdicts, faithfulness_prompt, statements_prompt
from evaluation.refusal import is_refusal
from evaluation.sample import Sample
from evaluation.scores import faithfulness_score
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import ANSWER, CONTEXTS, QUESTION, MetricResult
from ragtest_core.text import sentences_of


def statements_call(sample: Sample) -> PlannedCall:
    """The first judge call: the answer broken into statements (the reply restates the answer)."""
    answer = sample.answer or ""
    prompt = statements_prompt(sample.question or "", answer)
    return PlannedCall("faithfulness.statements", prompt, Statements, echo=(answer,))


def verdicts_call(sample: Sample, statements: list[str]) -> PlannedCall:
    """The second judge call: one verdict per statement against the contexts."""
    prompt = faithfulness_prompt(sample.contexts, statements)
    return PlannedCall(
        "faithfulness.verdicts", prompt, StatementVerdicts, echo=tuple(statements), items=len(statements)
    )


class Faithfulness(Metric):
    name: ClassVar[str] = "faithfulness"
    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, ANSWER, CONTEXTS)

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.answer is None:
            return MetricResult.ok(1.0, "empty answer: no claims")
        if is_refusal(sample.answer):
            return MetricResult.ok(1.0, "refusal: no claims")
        if not sample.contexts:
            return MetricResult.ok(0.0, "no contexts retrieved: no statement can be supported")
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        return [*judge.claims(sample.answer or ""), *judge.evidence_texts(sample.contexts)]

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return local_scoring.faithfulness(sample, judge)

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        answer = sample.answer or ""
        return [statements_call(sample), verdicts_call(sample, sentences_of(answer) or [answer])]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        first = statements_call(sample)
        extracted = await judge.llm.structured(first.prompt, Statements, stage=first.stage)
        statements = [s.strip() for s in extracted.statements if s.strip()]
        if not statements:
            return faithfulness_score([])
        second = verdicts_call(sample, statements)
        judged = await judge.llm.structured(second.prompt, StatementVerdicts, stage=second.stage)
        if not judged.verdicts:
            return MetricResult.failed("the judge returned no verdicts")
        verdicts, note = align_verdicts([v.verdict for v in judged.verdicts], len(statements))
        result = with_note(faithfulness_score(verdicts), note)
        details = [
            {"statement": s, "verdict": v.verdict, "reason": v.reason}
            for s, v in zip(statements, judged.verdicts, strict=False)
        ]
        return result.model_copy(update={"details": {"statements": details}})
