"""Claim-level diagnostics after RAGChecker (Ru et al., "RAGChecker: A Fine-grained Framework for Diagnosing
Retrieval-Augmented Generation", NeurIPS 2024): which part of the RAG failed, from the claims a judge extracts.

Inputs (a `ClaimCheck`, built by either judge): the answer's claims, the reference's claims, and four entailment
verdicts: each answer claim against the reference (`correct`), each reference claim against the answer
(`in_answer`), and each claim of either side against each retrieved context alone (`answer_in_context`,
`reference_in_context`). A context is *relevant* when it entails at least one reference claim.

- `answer_claim_precision`: correct answer claims / answer claims (overall);
- `answer_claim_recall`: reference claims the answer entails / reference claims (overall);
- `answer_claim_f1`: their harmonic mean, 0 when either is 0 (overall);
- `context_claim_recall`: reference claims entailed by at least one context / reference claims (low: retrieval);
- `context_utilization`: of the reference claims some context entails, the share the answer entails too (low: the
  generator leaves retrieved facts unused);
- `noise_sensitivity_relevant`: incorrect answer claims entailed by a relevant context / answer claims (high: noise
  inside useful chunks misleads the generator);
- `noise_sensitivity_irrelevant`: incorrect answer claims entailed by an irrelevant context and by no relevant one /
  answer claims (high: irrelevant chunks mislead it);
- `hallucination`: incorrect answer claims no context entails / answer claims (high: the generator invents);
- `self_knowledge`: correct answer claims no context entails / answer claims (the model's own knowledge).

A ratio whose denominator is empty is undefined and never a number: the metric fails with a reason (no claim in the
answer, no reference claim, no reference claim found in any context). The formulas are pure functions of the
verdicts (`diagnose`), so tests pin each definition by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ragtest_core.schema import MetricResult

#: The diagnostic metrics, in the order the summary lists them.
DIAGNOSTIC_METRICS: tuple[str, ...] = (
    "answer_claim_precision",
    "answer_claim_recall",
    "answer_claim_f1",
    "context_claim_recall",
    "context_utilization",
    "noise_sensitivity_relevant",
    "noise_sensitivity_irrelevant",
    "hallucination",
    "self_knowledge",
)


@dataclass(frozen=True)
class ClaimCheck:
    """The claims of one row and the judge's entailment verdicts (see the module docstring)."""

    answer_claims: tuple[str, ...]
    reference_claims: tuple[str, ...]
    correct: tuple[bool, ...]
    in_answer: tuple[bool, ...]
    answer_in_context: tuple[tuple[bool, ...], ...]
    reference_in_context: tuple[tuple[bool, ...], ...]
    #: The judge's notes (graded supports, LLM reasons), kept in each metric's details.
    notes: dict[str, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if len(self.correct) != len(self.answer_claims) or len(self.answer_in_context) != len(self.answer_claims):
            raise ValueError("one verdict per answer claim is needed")
        if len(self.in_answer) != len(self.reference_claims):
            raise ValueError("one verdict per reference claim is needed")
        if len(self.reference_in_context) != len(self.reference_claims):
            raise ValueError("one row of context verdicts per reference claim is needed")

    @property
    def contexts(self) -> int:
        rows = self.answer_in_context or self.reference_in_context
        return len(rows[0]) if rows else 0

    def relevant_contexts(self) -> list[bool]:
        """Per context: it entails at least one reference claim."""
        return [any(row[k] for row in self.reference_in_context) for k in range(self.contexts)]


def _ratio(count: int, total: int, what: str, undefined: str) -> MetricResult:
    if total == 0:
        return MetricResult.failed(undefined)
    return MetricResult.ok(count / total, f"{count} of {total} {what}")


def _f1(precision: MetricResult, recall: MetricResult) -> MetricResult:
    if precision.value is None or recall.value is None:
        return MetricResult.failed(precision.reason if precision.value is None else recall.reason)
    p, r = precision.value, recall.value
    value = 0.0 if p == 0 or r == 0 else 2 * p * r / (p + r)
    return MetricResult.ok(value, f"F1 of claim precision {p:.3f} and claim recall {r:.3f}")


def diagnose(check: ClaimCheck) -> dict[str, MetricResult]:
    """Every diagnostic metric of one row from its verdicts (RAGChecker's definitions)."""
    n_answer, n_reference = len(check.answer_claims), len(check.reference_claims)
    no_answer_claim = "the answer makes no claim to check"
    no_reference_claim = "the reference has no claim to check"
    relevant = check.relevant_contexts()
    recalled = [any(row) for row in check.reference_in_context]
    entailed = [any(row) for row in check.answer_in_context]
    by_relevant = [any(v and relevant[k] for k, v in enumerate(row)) for row in check.answer_in_context]
    by_irrelevant = [
        any(v and not relevant[k] for k, v in enumerate(row)) and not by_relevant[i]
        for i, row in enumerate(check.answer_in_context)
    ]
    correct, wrong = check.correct, [not c for c in check.correct]
    precision = _ratio(sum(correct), n_answer, "answer claims entailed by the reference", no_answer_claim)
    recall = _ratio(sum(check.in_answer), n_reference, "reference claims entailed by the answer", no_reference_claim)
    used = sum(1 for r, a in zip(recalled, check.in_answer, strict=True) if r and a)
    return {
        "answer_claim_precision": precision,
        "answer_claim_recall": recall,
        "answer_claim_f1": _f1(precision, recall),
        "context_claim_recall": _ratio(
            sum(recalled), n_reference, "reference claims found in at least one context", no_reference_claim
        ),
        "context_utilization": _ratio(
            used,
            sum(recalled),
            "reference claims found in the contexts are in the answer",
            "no reference claim is in any retrieved context" if n_reference else no_reference_claim,
        ),
        "noise_sensitivity_relevant": _ratio(
            sum(1 for s, w in zip(by_relevant, wrong, strict=True) if s and w),
            n_answer,
            f"answer claims are incorrect yet entailed by a relevant context ({sum(relevant)} relevant)",
            no_answer_claim,
        ),
        "noise_sensitivity_irrelevant": _ratio(
            sum(1 for s, w in zip(by_irrelevant, wrong, strict=True) if s and w),
            n_answer,
            "answer claims are incorrect and entailed only by an irrelevant context "
            f"({len(relevant) - sum(relevant)} irrelevant)",
            no_answer_claim,
        ),
        "hallucination": _ratio(
            sum(1 for e, w in zip(entailed, wrong, strict=True) if not e and w),
            n_answer,
            "answer claims are incorrect and entailed by no context",
            no_answer_claim,
        ),
        "self_knowledge": _ratio(
            sum(1 for e, c in zip(entailed, correct, strict=True) if not e and c),
            n_answer,
            "answer claims are correct but entailed by no context",
            no_answer_claim,
        ),
    }


def verdict_table(check: ClaimCheck) -> dict[str, list[dict[str, object]]]:
    """The verdicts per claim, for a metric's details."""
    return {
        "answer_claims": [
            {"claim": c, "correct": ok, "contexts": [k + 1 for k, v in enumerate(row) if v]}
            for c, ok, row in zip(check.answer_claims, check.correct, check.answer_in_context, strict=True)
        ],
        "reference_claims": [
            {"claim": c, "in_answer": ok, "contexts": [k + 1 for k, v in enumerate(row) if v]}
            for c, ok, row in zip(check.reference_claims, check.in_answer, check.reference_in_context, strict=True)
        ],
    }


def bools(values: Sequence[object]) -> tuple[bool, ...]:
    return tuple(bool(v) for v in values)
