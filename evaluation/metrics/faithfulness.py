"""Faithfulness: the share of the answer's statements that the retrieved contexts support.

Edge cases: an answer that only refuses ("I don't know") -> 1.0 "refusal: no claims": faithfulness measures
unsupported claims and a refusal makes none (answer_relevancy, answer_correctness and negative_rejection judge
whether refusing was right); an empty answer likewise -> 1.0 "empty answer: no claims"; no contexts -> 0.0, no
statement can be supported. Refusal sentences inside a longer answer are not statements. The local judge takes
each remaining answer sentence as one statement and scores their graded support taken together
(`evaluation.local_scoring`: lexical alignment with the contexts, partial support counts partially, a contradicted
entity, number or date counts little; how the components were chosen: docs/local-judge.md). LLM judge (RAGAS,
binary verdicts): the answer's statements (the run's shared statement step, `LLMJudge.statements`, citation markers
removed), then one call with a verdict per statement.
"""

from __future__ import annotations

from typing import ClassVar

from evaluation import local_scoring
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric, judged_score
from evaluation.prompts import StatementVerdicts, entailment_call, statements_call
from evaluation.refusal import is_refusal
from evaluation.sample import Sample
from evaluation.scores import faithfulness_score
from evaluation.statements import plain_statements
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import ANSWER, CONTEXTS, QUESTION, MetricResult
from ragtest_core.text import sentences_of


class Faithfulness(Metric):
    name: ClassVar[str] = "faithfulness"
    definition: ClassVar[str] = (
        "How far the retrieved contexts back the answer's claims: 1 = every claim is supported by them, 0 = none "
        "is (a refusal or an empty answer makes no claim and scores 1)."
    )
    scale_note: ClassVar[str] = (
        "Local judge: the graded support of the answer's sentences taken together, from their words found in the "
        "contexts (partial support counts partly; a swapped name, number or date costs most of it): answers "
        "quoting or closely restating their contexts read 0.9-1.0, ungrounded ones near 0, a paraphrase in other "
        "words in between. "
        "LLM judge: the share of the answer's statements the LLM finds supported (RAGAS)."
    )
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
        return judge.support_texts(judge.claims(sample.answer or ""), sample.contexts)

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return local_scoring.faithfulness(sample, judge)

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """The shared statement step, then the verdicts (the answer's sentences stand in for its statements)."""
        answer = sample.answer or ""
        stand_in = plain_statements(sentences_of(answer) or [answer])
        return [
            statements_call(sample.question or "", answer),
            entailment_call("faithfulness.verdicts", sample.contexts, stand_in),
        ]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        statements = plain_statements(await judge.statements(sample.question or "", sample.answer or ""))
        if not statements:
            return faithfulness_score([])
        judged = await judge.ask(
            entailment_call("faithfulness.verdicts", sample.contexts, statements), StatementVerdicts
        )
        result = judged_score([v.verdict for v in judged.verdicts], len(statements), faithfulness_score)
        if result.value is None:
            return result
        details = [
            {"statement": s, "verdict": v.verdict, "reason": v.reason}
            for s, v in zip(statements, judged.verdicts, strict=False)
        ]
        return result.model_copy(update={"details": {"statements": details}})
