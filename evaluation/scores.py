"""Pure score functions: the RAGAS formulas from judge verdicts to a `MetricResult`. No LLM, no model.

Every function returns a defined score with a reason, or a failed result with a reason; never NaN.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragtest.schema import MetricResult

#: The small constant of RAGAS' context precision denominator.
PRECISION_EPSILON = 1e-10


def _binary(verdicts: Sequence[int | bool]) -> list[int]:
    values = [int(v) for v in verdicts]
    if any(v not in (0, 1) for v in values):
        raise ValueError(f"verdicts must be 0 or 1, got {values}")
    return values


def faithfulness_score(verdicts: Sequence[int | bool]) -> MetricResult:
    """Supported statements / all statements. No statements: 1.0, since the answer claims nothing unsupported."""
    values = _binary(verdicts)
    if not values:
        return MetricResult.ok(1.0, "no claims: the answer makes no statement to check")
    supported = sum(values)
    reason = f"{supported} of {len(values)} statements supported by the contexts"
    return MetricResult.ok(supported / len(values), reason)


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
    if relevant_sentences < 0:
        raise ValueError("relevant_sentences must not be negative")
    value = min(1.0, relevant_sentences / total_sentences)
    return MetricResult.ok(value, f"{relevant_sentences} of {total_sentences} context sentences relevant")


def average_precision(verdicts: Sequence[int | bool]) -> float:
    """sum_k(precision@k * v_k) / (number of relevant + 1e-10), contexts in rank order."""
    values = np.asarray(_binary(verdicts), dtype=float)
    if values.size == 0:
        return 0.0
    precision_at_k = np.cumsum(values) / np.arange(1, values.size + 1)
    return float(np.sum(precision_at_k * values) / (values.sum() + PRECISION_EPSILON))


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
    values = _binary(verdicts)
    if not values:
        return MetricResult.failed("the reference answer has no sentences")
    attributed = sum(values)
    return MetricResult.ok(
        attributed / len(values), f"{attributed} of {len(values)} reference sentences attributable to the contexts"
    )
