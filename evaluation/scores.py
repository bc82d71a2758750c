"""Pure score functions: the RAGAS formulas from judge verdicts to a `MetricResult`. No LLM, no model.

Every function returns a defined score with a reason, or a failed result with a reason; never NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragtest_core.schema import MetricResult

#: The small constant of RAGAS' context precision denominator.
PRECISION_EPSILON = 1e-10


def _binary(verdicts: Sequence[int | bool]) -> list[int]:
    values = [int(v) for v in verdicts]
    if any(v not in (0, 1) for v in values):
        raise ValueError(f"verdicts must be 0 or 1, got {values}")
    return values


def _share(verdicts: Sequence[int | bool], what: str, empty: MetricResult) -> MetricResult:
    """The share of 1 verdicts, the reason "<k> of <n> <what>"; `empty` when there is no verdict."""
    values = _binary(verdicts)
    return MetricResult.ok(sum(values) / len(values), f"{sum(values)} of {len(values)} {what}") if values else empty


def faithfulness_score(verdicts: Sequence[int | bool]) -> MetricResult:
    """Supported statements / all statements. No statements: 1.0, since the answer claims nothing unsupported."""
    empty = MetricResult.ok(1.0, "no claims: the answer makes no statement to check")
    return _share(verdicts, "statements supported by the contexts", empty)


def _graded(values: Sequence[float]) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)) or np.any((array < 0.0) | (array > 1.0)):
        raise ValueError(f"graded values must be finite and in [0, 1], got {list(values)}")
    return array


def joint_faithfulness_score(together: float, values: Sequence[float]) -> MetricResult:
    """The local judge's faithfulness: the support of the answer's statements taken together (`together`, see
    `ragtest_core.support.joint_support`), with each statement's own support (`values`) in the reason. No statements:
    1.0, as in `faithfulness_score`."""
    array = _graded(values)
    if array.size == 0:
        return MetricResult.ok(1.0, "no claims: the answer makes no statement to check")
    supported = int(np.sum(array >= 0.5))
    reason = (
        f"support of the {array.size} statement(s) together {together:.3f} ({supported} of {array.size} supported "
        f"at >= 0.5 on their own; mean {array.mean():.3f})"
    )
    return MetricResult.ok(float(together), reason)


def graded_mean_score(values: Sequence[float], empty: str, reason: str) -> MetricResult:
    """The mean of graded values (the local judge's context recall and context relevance); `reason` is formatted
    with the `mean`, the number `n` of values and the number `high` at >= 0.5. No values: failed with `empty`."""
    array = _graded(values)
    if array.size == 0:
        return MetricResult.failed(empty)
    mean = float(array.mean())
    return MetricResult.ok(mean, reason.format(mean=mean, n=array.size, high=int(np.sum(array >= 0.5))))


def answer_relevancy_score(similarities: Sequence[float], noncommittal: bool = False) -> MetricResult:
    """Mean cosine similarity between generated questions (or answer evidence) and the question, floored at 0.

    A noncommittal answer scores 0.0; no similarities at all is a failure (nothing to compare).
    """
    if noncommittal:
        return MetricResult.ok(0.0, "noncommittal answer: it evades or declines the question")
    if len(similarities) == 0:
        return MetricResult.failed("no generated questions to compare with the question")
    array = np.asarray(similarities, dtype=float)
    if not np.all(np.isfinite(array)):
        return MetricResult.failed("a similarity was not a finite number")
    value = float(np.clip(array.mean(), 0.0, 1.0))
    return MetricResult.ok(value, f"mean question similarity {value:.3f} over {len(array)} comparison(s)")


def context_relevance_score(relevant_sentences: int, total_sentences: int) -> MetricResult:
    """Relevant context sentences / all context sentences (capped at 1). No context sentences: failed."""
    if total_sentences <= 0:
        return MetricResult.failed("no context sentences")
    value = min(1.0, relevant_sentences / total_sentences)
    return MetricResult.ok(value, f"{relevant_sentences} of {total_sentences} context sentences relevant")


def average_precision(verdicts: Sequence[float], epsilon: float = PRECISION_EPSILON) -> float:
    """sum_k(precision@k * v_k) / (sum_k v_k + epsilon), contexts in rank order: RAGAS' context precision on 0/1
    verdicts; the local judge's whole-text bases pass graded verdicts (epsilon 0). 0.0 when no verdict is positive."""
    values = np.asarray(verdicts, dtype=float)
    if values.sum() <= 0:
        return 0.0
    return float((np.cumsum(values) / np.arange(1, values.size + 1) * values).sum() / (values.sum() + epsilon))


def context_precision_score(verdicts: Sequence[int | bool]) -> MetricResult:
    """RAGAS context precision (average precision of the useful contexts). No useful context: 0.0."""
    values = _binary(verdicts)
    if not values:
        return MetricResult.ok(0.0, "no contexts retrieved")
    if sum(values) == 0:
        return MetricResult.ok(0.0, "no relevant context", verdicts=values)
    value = min(1.0, average_precision(values))
    return MetricResult.ok(
        value,
        f"useful contexts at ranks {[i + 1 for i, v in enumerate(values) if v]} of {len(values)}",
        verdicts=values,
    )


def context_recall_score(verdicts: Sequence[int | bool]) -> MetricResult:
    """Reference sentences attributable to the contexts / all reference sentences. None: failed."""
    empty = MetricResult.failed("the reference answer has no sentences")
    return _share(verdicts, "reference sentences attributable to the contexts", empty)


# -- answer correctness -------------------------------------------------------------------------------------------

#: RAGAS' default blend of answer correctness: statement F1 and semantic similarity.
CORRECTNESS_WEIGHTS = (0.75, 0.25)


def statement_f1(tp: float, fp: float, fn: float) -> float:
    """TP / (TP + (FP + FN) / 2): the F1 of the answer's statements against the reference's."""
    if min(tp, fp, fn) < 0:
        raise ValueError("statement counts must not be negative")
    if tp + fp + fn == 0:
        return 0.0
    return tp / (tp + 0.5 * (fp + fn))


def count_text(value: float) -> str:
    """A count as text: whole counts as integers, graded sums with two decimals."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def answer_correctness_score(
    tp: float, fp: float, fn: float, similarity: float, weights: tuple[float, float] = CORRECTNESS_WEIGHTS
) -> MetricResult:
    """weights[0] * statement F1 + weights[1] * similarity (clipped to [0, 1]), weights normalised to sum 1.
    The counts are whole numbers for the LLM judge and graded sums for the local judge."""
    if min(weights) < 0 or sum(weights) <= 0:
        raise ValueError(f"weights must be non-negative with a positive sum, got {weights}")
    if not np.isfinite(similarity):
        return MetricResult.failed("the similarity was not a finite number")
    f1 = statement_f1(tp, fp, fn)
    sim = float(np.clip(similarity, 0.0, 1.0))
    value = (weights[0] * f1 + weights[1] * sim) / sum(weights)
    return MetricResult.ok(
        float(np.clip(value, 0.0, 1.0)),
        f"statements TP {count_text(tp)}, FP {count_text(fp)}, FN {count_text(fn)} (F1 {f1:.3f}); similarity {sim:.3f}",
        f1=f1,
        similarity=sim,
    )


# -- citations (ALCE) ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CitationJudgement:
    """One answer statement and its citations, with the judge's support verdicts.

    `supported`: the cited contexts together support the statement (False when nothing is cited).
    `alone[i]`: citation i alone supports it; `without[i]`: the other citations still support it without i.
    Both are only needed for statements with two or more citations.
    """

    citations: tuple[int, ...]
    supported: bool
    alone: tuple[bool, ...] = ()
    without: tuple[bool, ...] = ()

    def precise_citations(self) -> int:
        """ALCE: a lone citation is precise when it supports the statement; of several citations that together
        support it, one is irrelevant when it does not support it alone and the others still do."""
        if not self.citations or not self.supported:
            return 0
        if len(self.citations) == 1:
            return 1
        # alone and without need one verdict per citation (zip's strict check raises ValueError otherwise)
        return sum(1 for a, w, _ in zip(self.alone, self.without, self.citations, strict=True) if a or not w)


def citation_recall_score(judgements: Sequence[CitationJudgement]) -> MetricResult:
    """Statements fully supported by their cited contexts / all statements (uncited ones are unsupported)."""
    if not judgements:
        return MetricResult.ok(1.0, "no statements: nothing needs a citation")
    supported = sum(1 for j in judgements if j.supported)
    uncited = sum(1 for j in judgements if not j.citations)
    note = f"; {uncited} without a citation" if uncited else ""
    return MetricResult.ok(
        supported / len(judgements), f"{supported} of {len(judgements)} statements supported by their citations{note}"
    )


def citation_precision_score(judgements: Sequence[CitationJudgement]) -> MetricResult:
    """Precise citations / all citations (ALCE). No citation at all: 0.0 with a reason."""
    total = sum(len(j.citations) for j in judgements)
    if total == 0:
        return MetricResult.ok(0.0, "no citations in the answer")
    precise = sum(j.precise_citations() for j in judgements)
    return MetricResult.ok(precise / total, f"{precise} of {total} citations support their statement")
