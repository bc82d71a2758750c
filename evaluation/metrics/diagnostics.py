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
from typing import Any, ClassVar
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


def local_check(sample: Sample, judge: LocalJudge) -> ClaimCheck:
    """The row's claims and entailment verdicts under the local judge (memoised for the row's other metrics)."""
    kept = _LOCAL.setdefault(judge, OrderedDict())
    key = (sample.question, sample.answer, sample.ground_truth, sample.contexts)
    if key in kept:
        return kept[key]
    answer, reference, question = sample.answer or "", sample.ground_truth or "", sample.question
    ours, theirs = judge.claims(answer), judge.statements(reference)
    evidence = judge.evidence(sample.contexts)
    correct, in_answer, *by_context = (
        [s.value for s in judge.support(claims, found, question)]
        for claims, found in (
            (ours, judge.evidence([reference])),
            (theirs, judge.evidence([answer])),
            *(([*ours, *theirs], evidence.subset([k])) for k in range(len(sample.contexts))),
        )
    )
    kept[key] = claim_check(ours, theirs, correct, in_answer, by_context)
    while len(kept) > _KEPT:
        kept.popitem(last=False)
    return kept[key]


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
    return claim_check(ours, theirs, correct, in_answer, by_context)


def claim_check(ours: list[str], theirs: list[str], correct: Any, in_answer: Any, by_context: Any) -> ClaimCheck:
    """The check from the verdicts (`by_context[k]`: context k's on the answer's claims, then the reference's)."""
    columns = [verdicts(c) for c in zip(*by_context, strict=True)] or [()] * (len(ours) + len(theirs))
    n = len(ours)
    return ClaimCheck(
        tuple(ours), tuple(theirs), verdicts(correct), verdicts(in_answer), (*columns[:n],), (*columns[n:],)
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


#: Each diagnostic's definition; its class is the name in CamelCase.
_DEFINITIONS = {
    "answer_claim_precision": "The share of the answer's claims that the reference answer entails (correct claims / "
    "answer claims).",
    "answer_claim_recall": "The share of the reference answer's claims that the answer entails.",
    "answer_claim_f1": "The harmonic mean of answer_claim_precision and answer_claim_recall (0 when either is 0).",
    "context_claim_recall": "The share of the reference answer's claims that some retrieved context entails (low: "
    "retrieval missed the facts).",
    "context_utilization": "Of the reference claims some retrieved context entails, the share the answer entails "
    "too (low: the generator leaves retrieved facts unused).",
    "noise_sensitivity_relevant": "The share of the answer's claims that are wrong yet entailed by a relevant "
    "retrieved context (noise inside useful chunks misled the generator).",
    "noise_sensitivity_irrelevant": "The share of the answer's claims that are wrong and entailed only by irrelevant "
    "retrieved contexts (irrelevant chunks misled the generator).",
    "hallucination": "The share of the answer's claims that are wrong and in no retrieved context (the generator "
    "invents).",
    "self_knowledge": "The share of the answer's claims that are correct but in no retrieved context: they come "
    "from the model's own knowledge.",
}
_LOWER_IS_BETTER = ("noise_sensitivity_relevant", "noise_sensitivity_irrelevant", "hallucination", "self_knowledge")
DIAGNOSTIC_CLASSES: tuple[type[ClaimDiagnostic], ...] = tuple(
    type(
        name.title().replace("_", ""),
        (ClaimDiagnostic,),
        {"name": name, "definition": text, "higher_is_better": name not in _LOWER_IS_BETTER, "__module__": __name__},
    )
    for name, text in _DEFINITIONS.items()
)
# Each class by its name in this module, as pickling (a Ray worker's copy of a metric) looks it up.
globals().update({metric_class.__name__: metric_class for metric_class in DIAGNOSTIC_CLASSES})
