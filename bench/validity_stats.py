"""Statistics of the judge validity bench: ROC-AUC, pairwise accuracy, seeded bootstrap intervals, calibration error.

Each figure comes with a 95% percentile-bootstrap interval (pairs resampled; for ROC-AUC, positives and negatives
resampled apart), and the judge's margin over the better baseline with its own paired interval: the same resamples
score the judge and both baselines, so the margin's interval is the one to read ("at or above both baselines" means
a margin >= 0; a margin whose interval holds 0 is a tie within the noise).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Score = float | None
RESAMPLES = 1000
SEED = 0


def _filled(scores: Sequence[Score]) -> np.ndarray:
    """Scores as floats; a missing score ranks below any score."""
    return np.asarray([-math.inf if s is None else s for s in scores], dtype=float)


def auc(scores: Sequence[Score], labels: Sequence[int]) -> float:
    """ROC-AUC with ties counted one half (Mann-Whitney); a missing score ranks lowest."""
    s, y = _filled(scores), np.asarray(labels)
    return _auc(s[y == 1], s[y == 0])


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    greater = (pos[:, None] > neg[None, :]).sum()
    equal = (pos[:, None] == neg[None, :]).sum()
    return float((greater + 0.5 * equal) / (len(pos) * len(neg)))


def pair_outcomes(preferred: Sequence[Score], other: Sequence[Score]) -> np.ndarray:
    """Per pair: 1 when the preferred side scores higher, 0.5 on a tie, 0 otherwise (pairwise accuracy's terms)."""
    a, b = _filled(preferred), _filled(other)
    return np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0))


@dataclass(frozen=True)
class Measured:
    """The judge's figure with its interval, the baselines' figures, and the margin over the better baseline."""

    judge: float
    judge_low: float
    judge_high: float
    baselines: tuple[float, ...]
    margin: float | None
    margin_low: float | None
    margin_high: float | None


def _summary(point: np.ndarray, draws: np.ndarray) -> Measured:
    """point[0] and draws[:, 0] are the judge; the rest the baselines (may be none)."""
    low, high = np.percentile(draws[:, 0], [2.5, 97.5])
    if point.size == 1:
        return Measured(float(point[0]), float(low), float(high), (), None, None, None)
    best = 1 + int(np.argmax(point[1:]))
    margins = draws[:, 0] - draws[:, best]
    m_low, m_high = np.percentile(margins, [2.5, 97.5])
    return Measured(
        float(point[0]),
        float(low),
        float(high),
        tuple(float(v) for v in point[1:]),
        float(point[0] - point[best]),
        float(m_low),
        float(m_high),
    )


def measure_pairs(outcomes: Sequence[np.ndarray], resamples: int = RESAMPLES, seed: int = SEED) -> Measured:
    """Pairwise accuracy of the judge (outcomes[0]) and the baselines, with bootstrap intervals over pairs."""
    table = np.vstack(outcomes)  # scorers x pairs
    rng = np.random.default_rng(seed)
    index = rng.integers(0, table.shape[1], size=(resamples, table.shape[1]))
    draws = table[:, index].mean(axis=2).T  # resamples x scorers
    return _summary(table.mean(axis=1), draws)


def measure_auc(
    scores: Sequence[Sequence[Score]], labels: Sequence[int], resamples: int = RESAMPLES // 2, seed: int = SEED
) -> Measured:
    """ROC-AUC of the judge (scores[0]) and the baselines, with a stratified bootstrap (positives and negatives
    resampled apart)."""
    y = np.asarray(labels)
    filled = [_filled(s) for s in scores]
    pos_i, neg_i = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    rng = np.random.default_rng(seed)
    draws = np.empty((resamples, len(filled)))
    for r in range(resamples):
        p, n = rng.choice(pos_i, pos_i.size), rng.choice(neg_i, neg_i.size)
        draws[r] = [_auc(s[p], s[n]) for s in filled]
    point = np.asarray([_auc(s[pos_i], s[neg_i]) for s in filled])
    return _summary(point, draws)


def expected_calibration_error(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Sum over equal-width bins of (share of rows in the bin) x |mean prediction - mean label|."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    return float(sum(np.mean(index == b) * abs(p[index == b].mean() - y[index == b].mean()) for b in set(index)))
