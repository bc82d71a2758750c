"""Agreement statistics between a judge's scores and human labels, and between two labellers, each with a seeded
bootstrap interval.

- ROC-AUC (yes/no labels): the chance that a row the humans said yes to scores higher than one they said no to
  (ties count one half), from average ranks (the Mann-Whitney U statistic);
- Spearman's rank correlation (graded labels: yes / partly / no, or values in [0, 1]), scipy.stats.spearmanr;
- Cohen's kappa at a threshold: judge score >= threshold against label >= threshold (`evaluation.agreement`);
- between labellers: exact agreement and a distance-weighted kappa, 1 - mean|a - b| / mean over all pairs
  |a_i - b_j| (for yes/no labels this is Cohen's kappa; for yes / partly / no the linearly weighted kappa).

An interval is the percentile bootstrap over rows (2,000 seeded resamples; resamples where the statistic is
undefined, e.g. with one class only, are left out). Undefined statistics are None, never NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from evaluation.agreement import cohen_kappa
from evaluation.intervals import CONFIDENCE_LEVEL, scipy_stats

AGREEMENT_RESAMPLES = 2000
Statistic = Callable[[np.ndarray, np.ndarray], float | None]


@dataclass(frozen=True)
class Estimate:
    """A statistic with its bootstrap interval and the rows behind it."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def text(self, digits: int = 2) -> str:
        if self.value is None:
            return f"n/a (n={self.n})"
        interval = ""
        if self.ci_low is not None and self.ci_high is not None:
            interval = f" [{self.ci_low:.{digits}f}, {self.ci_high:.{digits}f}]"
        return f"{self.value:.{digits}f}{interval} (n={self.n})"


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> float | None:
    """ROC-AUC of scores against yes/no labels (1 / 0); None without both classes."""
    positive = labels >= 0.5
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = scipy_stats().rankdata(scores)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def spearman(scores: np.ndarray, labels: np.ndarray) -> float | None:
    """Spearman's rank correlation; None with fewer than 2 rows or constant input."""
    if scores.size < 2 or np.all(scores == scores[0]) or np.all(labels == labels[0]):
        return None
    value = float(scipy_stats().spearmanr(scores, labels).statistic)
    return value if np.isfinite(value) else None


def kappa_at(threshold: float) -> Statistic:
    """Cohen's kappa of judge score >= threshold against label >= threshold."""

    def statistic(scores: np.ndarray, labels: np.ndarray) -> float | None:
        if scores.size == 0:
            return None
        return cohen_kappa(list(map(float, scores)), [int(v >= threshold) for v in labels], threshold)

    return statistic


def weighted_kappa(first: np.ndarray, second: np.ndarray) -> float | None:
    """1 - observed mean |a - b| / the mean |a_i - b_j| expected by chance; None when chance disagreement is 0."""
    if first.size == 0:
        return None
    expected = float(np.mean(np.abs(first[:, None] - second[None, :])))
    if expected == 0.0:
        return None
    return 1.0 - float(np.mean(np.abs(first - second))) / expected


def exact_agreement(first: np.ndarray, second: np.ndarray) -> float | None:
    return float(np.mean(np.isclose(first, second))) if first.size else None


def bootstrap(
    statistic: Statistic,
    x: Sequence[float] | np.ndarray,
    y: Sequence[float] | np.ndarray,
    seed: int = 0,
    resamples: int = AGREEMENT_RESAMPLES,
    level: float = CONFIDENCE_LEVEL,
) -> Estimate:
    """The statistic on (x, y) paired by row, with the percentile bootstrap interval over rows."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    value = statistic(a, b) if a.size else None
    if value is None or a.size < 2:
        return Estimate(value, None, None, int(a.size))
    rng = np.random.default_rng(seed)
    draws = []
    for rows in rng.integers(0, a.size, (resamples, a.size)):
        drawn = statistic(a[rows], b[rows])
        if drawn is not None:
            draws.append(drawn)
    if len(draws) < resamples // 2:
        return Estimate(value, None, None, int(a.size))
    low, high = np.quantile(draws, [0.5 - level / 2, 0.5 + level / 2])
    return Estimate(value, float(low), float(high), int(a.size))


def confusion(scores: Sequence[float], labels: Sequence[float], threshold: float) -> dict[str, int]:
    """Counts at the threshold: judge yes/no (score >= threshold) against human yes/no (label >= threshold)."""
    judge = np.asarray(scores, dtype=float) >= threshold
    human = np.asarray(labels, dtype=float) >= threshold
    return {
        "judge_yes_human_yes": int(np.sum(judge & human)),
        "judge_yes_human_no": int(np.sum(judge & ~human)),
        "judge_no_human_yes": int(np.sum(~judge & human)),
        "judge_no_human_no": int(np.sum(~judge & ~human)),
    }


def is_binary(labels: Sequence[float]) -> bool:
    """True when every label is 0 or 1 (yes/no); graded otherwise."""
    return all(float(v) in (0.0, 1.0) for v in labels)
