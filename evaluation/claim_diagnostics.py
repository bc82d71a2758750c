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
verdicts (`diagnose`), so tests pin each definition by hand. The LLM judge's verdicts are 1/0 (RAGChecker's counts);
the local judge's are its graded support, so partial support counts partially, as in its faithfulness.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from evaluation.scores import count_text
from ragtest_core.schema import MetricResult


@dataclass(frozen=True)
class ClaimCheck:
    """The claims of one row and the judge's entailment verdicts (see the module docstring): 1/0 from the LLM judge,
    graded support in [0, 1] from the local judge."""

    answer_claims: tuple[str, ...]
    reference_claims: tuple[str, ...]
    correct: tuple[float, ...]
    in_answer: tuple[float, ...]
    answer_in_context: tuple[tuple[float, ...], ...]
    reference_in_context: tuple[tuple[float, ...], ...]
    #: The judge's notes (graded supports, LLM reasons), kept in each metric's details.
    notes: dict[str, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if len(self.correct) != len(self.answer_claims) or len(self.answer_in_context) != len(self.answer_claims):
            raise ValueError("one verdict per answer claim is needed")
        if len(self.in_answer) != len(self.reference_claims):
            raise ValueError("one verdict per reference claim is needed")
        if len(self.reference_in_context) != len(self.reference_claims):
            raise ValueError("one row of context verdicts per reference claim is needed")


def _ratio(count: float, total: float, what: str, undefined: str) -> MetricResult:
    if total <= 0:
        return MetricResult.failed(undefined)
    return MetricResult.ok(min(1.0, max(0.0, count / total)), f"{count_text(count)} of {count_text(total)} {what}")


def _f1(precision: MetricResult, recall: MetricResult) -> MetricResult:
    if precision.value is None or recall.value is None:
        return MetricResult.failed(precision.reason if precision.value is None else recall.reason)
    p, r = precision.value, recall.value
    value = 0.0 if p == 0 or r == 0 else 2 * p * r / (p + r)
    return MetricResult.ok(value, f"F1 of claim precision {p:.3f} and claim recall {r:.3f}")


def diagnose(check: ClaimCheck) -> dict[str, MetricResult]:
    """Every diagnostic metric of one row from its verdicts (RAGChecker's definitions). Graded verdicts combine as
    fuzzy logic (and = product, or / "at least one" = max, not = 1 - v), which is exact on 1/0 verdicts."""
    n_answer, n_reference = len(check.answer_claims), len(check.reference_claims)
    no_answer_claim = "the answer makes no claim to check"
    no_reference_claim = "the reference has no claim to check"
    # Per context: it is relevant when it entails at least one reference claim (the largest verdict).
    contexts = len((check.answer_in_context or check.reference_in_context or ((),))[0])
    relevant = [max((row[k] for row in check.reference_in_context), default=0.0) for k in range(contexts)]
    recalled = [max(row, default=0.0) for row in check.reference_in_context]
    entailed = [max(row, default=0.0) for row in check.answer_in_context]
    by_relevant = [max((v * relevant[k] for k, v in enumerate(row)), default=0.0) for row in check.answer_in_context]
    by_irrelevant = [
        max((v * (1.0 - relevant[k]) for k, v in enumerate(row)), default=0.0) * (1.0 - by_relevant[i])
        for i, row in enumerate(check.answer_in_context)
    ]
    correct = check.correct
    wrong = [1.0 - c for c in correct]

    def of_answer(values: Iterable[float], what: str) -> MetricResult:
        return _ratio(sum(values), n_answer, f"answer claims {what}", no_answer_claim)

    precision = of_answer(correct, "entailed by the reference")
    recall = _ratio(sum(check.in_answer), n_reference, "reference claims entailed by the answer", no_reference_claim)
    used = sum(r * a for r, a in zip(recalled, check.in_answer, strict=True))
    n_relevant = sum(1 for v in relevant if v >= 0.5)
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
        "noise_sensitivity_relevant": of_answer(
            (s * w for s, w in zip(by_relevant, wrong, strict=True)),
            f"are incorrect yet entailed by a relevant context ({n_relevant} relevant)",
        ),
        "noise_sensitivity_irrelevant": of_answer(
            (s * w for s, w in zip(by_irrelevant, wrong, strict=True)),
            f"are incorrect and entailed only by an irrelevant context ({len(relevant) - n_relevant} irrelevant)",
        ),
        "hallucination": of_answer(
            ((1.0 - e) * w for e, w in zip(entailed, wrong, strict=True)), "are incorrect and entailed by no context"
        ),
        "self_knowledge": of_answer(
            ((1.0 - e) * c for e, c in zip(entailed, correct, strict=True)), "are correct but entailed by no context"
        ),
    }


def verdict_table(check: ClaimCheck) -> dict[str, list[dict[str, object]]]:
    """The verdicts per claim, for a metric's details (contexts: 1-based ranks entailing it at >= 0.5)."""
    return {
        "answer_claims": [
            {"claim": c, "correct": round(ok, 4), "contexts": [k + 1 for k, v in enumerate(row) if v >= 0.5]}
            for c, ok, row in zip(check.answer_claims, check.correct, check.answer_in_context, strict=True)
        ],
        "reference_claims": [
            {"claim": c, "in_answer": round(ok, 4), "contexts": [k + 1 for k, v in enumerate(row) if v >= 0.5]}
            for c, ok, row in zip(check.reference_claims, check.in_answer, check.reference_in_context, strict=True)
        ],
    }


def verdicts(values: Sequence[object]) -> tuple[float, ...]:
    """Verdicts as floats in [0, 1] (True/False become 1.0/0.0)."""
    return tuple(min(1.0, max(0.0, float(v))) for v in values)  # type: ignore[arg-type]
