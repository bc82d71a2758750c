"""The claim-level diagnostics (RAGChecker, Ru et al. 2024; definitions in `evaluation.claim_diagnostics`), one
metric per diagnostic, for both judges. Not in the default five: select them with `--metrics`, e.g.
`--metrics answer_claim_precision,context_claim_recall,context_utilization,hallucination`.

Both judges build one `ClaimCheck` per row from the claims they already extract:
- local judge: the answer's claims (`LocalJudge.claims`, as faithfulness and answer_correctness) and the reference's
  statements (`LocalJudge.statements`, as context_recall); each verdict is the claim's graded support
  (`ragtest_core.support`) by the other text, or by each retrieved context alone (its own sentences), so partial
  support counts partially (the details list the contexts that support a claim at >= 0.5);
- LLM judge: the run's shared statement step for the answer and for the reference, then one verdict call per
  direction (answer claims against the reference; reference claims against the answer) and one per retrieved context
  (both sides' claims against that context alone), with the faithfulness instructions.

The verdicts of a row are computed once and shared by all nine metrics (the local judge keeps the last rows'
checks; the LLM judge sends each distinct prompt once per run). Edge cases: no ground_truth -> failed "needs
ground_truth"; an unanswerable reference -> failed "unanswerable"; a ratio with an empty denominator -> failed with
the reason (for example a refusal: "the answer makes no claim to check").
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from typing import ClassVar
from weakref import WeakKeyDictionary

from evaluation.claim_diagnostics import ClaimCheck, diagnose, verdict_table, verdicts
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric
from evaluation.prompts import StatementVerdicts, entailment_call, statements_call
from evaluation.refusal import is_unanswerable_reference
from evaluation.sample import Sample
from evaluation.statements import plain_statements
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import ANSWER, CONTEXTS, GROUND_TRUTH, QUESTION, MetricResult
from ragtest_core.text import sentences_of

#: How many rows' checks the local judge keeps (the nine metrics of one row share one check).
_KEPT = 64
_LOCAL: WeakKeyDictionary[LocalJudge, OrderedDict[tuple[object, ...], ClaimCheck]] = WeakKeyDictionary()
STAGE_CORRECT = "claim_diagnostics.answer_vs_reference"
STAGE_IN_ANSWER = "claim_diagnostics.reference_vs_answer"
STAGE_CONTEXT = "claim_diagnostics.context"


def _key(sample: Sample) -> tuple[object, ...]:
    return (sample.question, sample.answer, sample.ground_truth, tuple(sample.contexts))


def local_check(sample: Sample, judge: LocalJudge) -> ClaimCheck:
    """The row's claims and entailment verdicts under the local judge (memoised for the row's other metrics)."""
    kept = _LOCAL.setdefault(judge, OrderedDict())
    key = _key(sample)
    if key not in kept:
        kept[key] = _local_check(sample, judge)
        while len(kept) > _KEPT:
            kept.popitem(last=False)
    return kept[key]


def _local_check(sample: Sample, judge: LocalJudge) -> ClaimCheck:
    answer, reference, question = sample.answer or "", sample.ground_truth or "", sample.question
    ours, theirs = judge.claims(answer), judge.statements(reference)
    correct = judge.support(ours, judge.evidence([reference]), question)
    in_answer = judge.support(theirs, judge.evidence([answer]), question)
    evidence = judge.evidence(sample.contexts)
    alone = [evidence.subset([k]) for k in range(len(sample.contexts))]
    ours_by = [[s.value for s in judge.support(ours, sub, question)] for sub in alone]
    theirs_by = [[s.value for s in judge.support(theirs, sub, question)] for sub in alone]
    return ClaimCheck(
        tuple(ours),
        tuple(theirs),
        verdicts([s.value for s in correct]),
        verdicts([s.value for s in in_answer]),
        tuple(verdicts([ours_by[k][i] for k in range(len(alone))]) for i in range(len(ours))),
        tuple(verdicts([theirs_by[k][j] for k in range(len(alone))]) for j in range(len(theirs))),
    )


async def _verdicts(judge: LLMJudge, stage: str, texts: Sequence[str], statements: Sequence[str]) -> list[bool]:
    """One verdict per statement (a missing verdict counts as not entailed)."""
    if not statements:
        return []
    reply = await judge.ask(entailment_call(stage, texts, statements), StatementVerdicts)
    found = [bool(v.verdict) for v in reply.verdicts[: len(statements)]]
    return found + [False] * (len(statements) - len(found))


async def llm_check(sample: Sample, judge: LLMJudge) -> ClaimCheck:
    """The row's claims (the shared statement step) and the LLM's entailment verdicts."""
    question, answer, reference = sample.question or "", sample.answer or "", sample.ground_truth or ""
    ours_raw, theirs_raw = await asyncio.gather(
        judge.statements(question, answer), judge.statements(question, reference)
    )
    ours, theirs = plain_statements(ours_raw), plain_statements(theirs_raw)
    both = [*ours, *theirs]
    correct, in_answer, *by_context = await asyncio.gather(
        _verdicts(judge, STAGE_CORRECT, [reference], ours),
        _verdicts(judge, STAGE_IN_ANSWER, [answer], theirs),
        *(_verdicts(judge, STAGE_CONTEXT, [context], both) for context in sample.contexts),
    )
    k_range = range(len(sample.contexts))
    return ClaimCheck(
        tuple(ours),
        tuple(theirs),
        verdicts(correct),
        verdicts(in_answer),
        tuple(verdicts([by_context[k][i] for k in k_range]) for i in range(len(ours))),
        tuple(verdicts([by_context[k][len(ours) + j] for k in k_range]) for j in range(len(theirs))),
    )


class ClaimDiagnostic(Metric):
    """One of the RAGChecker diagnostics (see `evaluation.claim_diagnostics`); subclasses set `name`."""

    required_columns: ClassVar[tuple[str, ...]] = (QUESTION, ANSWER, CONTEXTS, GROUND_TRUTH)
    scale_note: ClassVar[str] = (
        "Claim-level diagnostic (RAGChecker). Local judge: each claim's graded support, so partial support counts "
        "partly; LLM judge: 1/0 entailment verdicts, as RAGChecker counts them."
    )

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.ground_truth is None:
            return MetricResult.failed("needs ground_truth")
        if is_unanswerable_reference(sample.ground_truth, sample.question_type):
            return MetricResult.failed("unanswerable: the reference declines to answer, so no claim is to be found")
        return None

    def _result(self, check: ClaimCheck) -> MetricResult:
        result = diagnose(check)[self.name]
        return result.model_copy(update={"details": {**verdict_table(check), **check.notes}})

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        answer, reference = sample.answer or "", sample.ground_truth or ""
        claims, statements = judge.claims(answer), judge.statements(reference)
        return [
            *judge.support_texts(claims, [reference]),
            *judge.support_texts(statements, [answer]),
            *judge.support_texts([*claims, *statements], sample.contexts),
        ]

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return self._result(local_check(sample, judge))

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """Both statement steps, then the verdict calls (the texts' sentences stand in for their statements)."""
        question, answer, reference = sample.question or "", sample.answer or "", sample.ground_truth or ""
        ours, theirs = plain_statements(sentences_of(answer)), plain_statements(sentences_of(reference))
        calls = [statements_call(question, answer), statements_call(question, reference)]
        if ours:
            calls.append(entailment_call(STAGE_CORRECT, [reference], ours))
        if theirs:
            calls.append(entailment_call(STAGE_IN_ANSWER, [answer], theirs))
        if ours or theirs:
            calls += [entailment_call(STAGE_CONTEXT, [c], [*ours, *theirs]) for c in sample.contexts]
        return calls

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        return self._result(await llm_check(sample, judge))


class AnswerClaimPrecision(ClaimDiagnostic):
    """Correct answer claims (entailed by the reference) / answer claims."""

    name: ClassVar[str] = "answer_claim_precision"
    definition: ClassVar[str] = (
        "The share of the answer's claims that the reference answer entails (correct claims / answer claims)."
    )


class AnswerClaimRecall(ClaimDiagnostic):
    """Reference claims the answer entails / reference claims."""

    name: ClassVar[str] = "answer_claim_recall"
    definition: ClassVar[str] = "The share of the reference answer's claims that the answer entails."


class AnswerClaimF1(ClaimDiagnostic):
    """The harmonic mean of answer claim precision and recall."""

    name: ClassVar[str] = "answer_claim_f1"
    definition: ClassVar[str] = (
        "The harmonic mean of answer_claim_precision and answer_claim_recall (0 when either is 0)."
    )


class ContextClaimRecall(ClaimDiagnostic):
    """Reference claims entailed by at least one retrieved context / reference claims."""

    name: ClassVar[str] = "context_claim_recall"
    definition: ClassVar[str] = (
        "The share of the reference answer's claims that some retrieved context entails (low: retrieval missed the "
        "facts)."
    )


class ContextUtilization(ClaimDiagnostic):
    """Of the reference claims some context entails, the share the answer entails."""

    name: ClassVar[str] = "context_utilization"
    definition: ClassVar[str] = (
        "Of the reference claims some retrieved context entails, the share the answer entails too (low: the "
        "generator leaves retrieved facts unused)."
    )


class NoiseSensitivityRelevant(ClaimDiagnostic):
    """Incorrect answer claims a relevant context entails / answer claims."""

    name: ClassVar[str] = "noise_sensitivity_relevant"
    definition: ClassVar[str] = (
        "The share of the answer's claims that are wrong yet entailed by a relevant retrieved context (noise "
        "inside useful chunks misled the generator)."
    )
    higher_is_better: ClassVar[bool] = False


class NoiseSensitivityIrrelevant(ClaimDiagnostic):
    """Incorrect answer claims only an irrelevant context entails / answer claims."""

    name: ClassVar[str] = "noise_sensitivity_irrelevant"
    definition: ClassVar[str] = (
        "The share of the answer's claims that are wrong and entailed only by irrelevant retrieved contexts "
        "(irrelevant chunks misled the generator)."
    )
    higher_is_better: ClassVar[bool] = False


class Hallucination(ClaimDiagnostic):
    """Incorrect answer claims no context entails / answer claims."""

    name: ClassVar[str] = "hallucination"
    definition: ClassVar[str] = (
        "The share of the answer's claims that are wrong and in no retrieved context (the generator invents)."
    )
    higher_is_better: ClassVar[bool] = False


class SelfKnowledge(ClaimDiagnostic):
    """Correct answer claims no context entails / answer claims."""

    name: ClassVar[str] = "self_knowledge"
    definition: ClassVar[str] = (
        "The share of the answer's claims that are correct but in no retrieved context: they come from the model's "
        "own knowledge."
    )
    higher_is_better: ClassVar[bool] = False


DIAGNOSTIC_CLASSES: tuple[type[ClaimDiagnostic], ...] = (
    AnswerClaimPrecision,
    AnswerClaimRecall,
    AnswerClaimF1,
    ContextClaimRecall,
    ContextUtilization,
    NoiseSensitivityRelevant,
    NoiseSensitivityIrrelevant,
    Hallucination,
    SelfKnowledge,
)
