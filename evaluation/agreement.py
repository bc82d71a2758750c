"""Agreement of metric scores with human judgements (meta-evaluation).

- preference pairs: pairwise accuracy, the share of pairs where the human-preferred side scores higher (a tie
  counts one half; a side without a score counts below any score, so a failure never wins);
- graded labels: Pearson, Spearman and Kendall (tau-b) correlations (scipy.stats), over rows with a score;
- binary labels: Cohen's kappa of scores thresholded at 0.5 (or given 0/1 predictions).
Undefined statistics (fewer than 2 rows, constant input) are None, never NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evaluation.intervals import scipy_stats

Score = float | None


def pairwise_accuracy(preferred: Sequence[Score], other: Sequence[Score]) -> float | None:
    """Share of pairs where `preferred` scores higher than `other` (tie = 1/2; None ranks lowest)."""
    if len(preferred) != len(other):
        raise ValueError("both sides need one score per pair")
    if not preferred:
        return None
    total = 0.0
    for a, b in zip(preferred, other, strict=True):
        left, right = (-math.inf if a is None else a), (-math.inf if b is None else b)
        total += 1.0 if left > right else 0.5 if left == right else 0.0
    return total / len(preferred)


def _paired(scores: Sequence[Score], labels: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    if len(scores) != len(labels):
        raise ValueError("scores and labels need the same length")
    kept = [(s, lab) for s, lab in zip(scores, labels, strict=True) if s is not None]
    return np.asarray([k[0] for k in kept], dtype=float), np.asarray([k[1] for k in kept], dtype=float)


def _defined(value: float) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def correlations(scores: Sequence[Score], labels: Sequence[float]) -> dict[str, float | None]:
    """Pearson, Spearman and Kendall correlations of scores with graded human labels, and the rows used."""
    x, y = _paired(scores, labels)
    result: dict[str, float | None] = {"pearson": None, "spearman": None, "kendall": None, "n": float(x.size)}
    if x.size < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return result
    result["pearson"] = _defined(scipy_stats().pearsonr(x, y).statistic)
    result["spearman"] = _defined(scipy_stats().spearmanr(x, y).statistic)
    result["kendall"] = _defined(scipy_stats().kendalltau(x, y).statistic)
    return result


def cohen_kappa(predicted: Sequence[Score], labels: Sequence[int | bool], threshold: float = 0.5) -> float | None:
    """Cohen's kappa between scores thresholded at `threshold` (>= is positive) and binary human labels; None
    when chance agreement is 1 (both sides one and the same class), as scikit-learn's NaN."""
    x, y = _paired(predicted, [float(v) for v in labels])
    if x.size == 0:
        return None
    a, b = (x >= threshold).astype(int), y.astype(int)
    observed = float(np.mean(a == b))
    p_a, p_b = float(a.mean()), float(b.mean())
    expected = p_a * p_b + (1 - p_a) * (1 - p_b)
    if expected >= 1.0:
        return None  # both sides hold one and the same class: kappa is 0/0, however well they agree
    return (observed - expected) / (1 - expected)
