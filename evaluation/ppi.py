"""Prediction-powered inference (PPI) for a metric's mean: the judge's scores on every row plus human labels on a
random subset give an unbiased estimate of the mean the humans would give, with a valid interval.

Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, "Prediction-powered inference", Science 382 (2023); with the
power tuning of PPI++ (Angelopoulos, Duchi and Zrnic, arXiv:2311.01453):

    estimate = lam * mean(f(unlabelled)) + mean(Y - lam * f(labelled))
    se^2     = var(lam * f(unlabelled)) / N + var(Y - lam * f(labelled)) / n
    lam      = cov(Y, f(labelled)) / ((1 + n / N) * var(f(all rows))), clipped to [0, 1]

Y: the humans' values on the n labelled rows; f: the judge's scores; N: rows the judge scored that nobody
labelled. lam = 1 is plain PPI, lam = 0 the labels alone (the classical interval); the tuned lam is never worse
than either, asymptotically. The interval is the normal one, estimate +- z * se. The judge's bias cancels: the
rectifier mean(Y - lam f) measures it on the labelled rows. What must hold: the labelled rows are a random sample
of the rows (the review page's default seeded, stratified order gives that; rows picked where the judge was least
sure do not). `tests/evaluation/test_ppi.py` checks these numbers against the `ppi-python` package (1e-6) and by a
coverage simulation (`bench/ppi_coverage.py`).

Every function works on batches (arrays with the rows on the last axis), so the simulation runs the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.intervals import CONFIDENCE_LEVEL, z_value

#: Fewest labels behind a PPI interval.
MIN_LABELS = 2


def tuned_lambda(labels: np.ndarray, judged: np.ndarray, unlabelled: np.ndarray) -> np.ndarray:
    """PPI++'s power-tuning weight for a mean (one value per batch row), clipped to [0, 1]; 0 when the judge's
    scores do not vary (it then carries no information)."""
    n, big_n = labels.shape[-1], unlabelled.shape[-1]
    centred_y = labels - labels.mean(axis=-1, keepdims=True)
    centred_f = judged - judged.mean(axis=-1, keepdims=True)
    covariance = np.mean(centred_y * centred_f, axis=-1)
    variance = np.var(np.concatenate([judged, unlabelled], axis=-1), axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(variance > 0, covariance / ((1 + n / big_n) * variance), 0.0)
    return np.clip(lam, 0.0, 1.0)


def ppi_batch(
    labels: np.ndarray,
    judged: np.ndarray,
    unlabelled: np.ndarray,
    level: float = CONFIDENCE_LEVEL,
    lam: float | np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high, lam) per batch row. `labels` and `judged`: (..., n), the humans' values and the
    judge's scores on the labelled rows; `unlabelled`: (..., N >= 1), the judge's scores on the other rows.
    `lam`: None tunes it (PPI++); 1 is plain PPI; 0 the labels alone."""
    y, f, u = (np.asarray(a, dtype=float) for a in (labels, judged, unlabelled))
    n, big_n = y.shape[-1], u.shape[-1]
    weight = tuned_lambda(y, f, u) if lam is None else np.broadcast_to(np.asarray(lam, dtype=float), y.shape[:-1])
    w = weight[..., None]
    estimate = np.mean(w * u, axis=-1) + np.mean(y - w * f, axis=-1)
    se = np.sqrt(np.var(w * u, axis=-1) / big_n + np.var(y - w * f, axis=-1) / n)
    half = z_value(level) * se
    return estimate, estimate - half, estimate + half, weight


def classical_batch(labels: np.ndarray, level: float = CONFIDENCE_LEVEL) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The labels alone: mean +- z * sd / sqrt(n) (the CLT interval PPI is measured against)."""
    y = np.asarray(labels, dtype=float)
    mean = y.mean(axis=-1)
    half = z_value(level) * y.std(axis=-1) / np.sqrt(y.shape[-1])
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class PPIEstimate:
    """The PPI estimate of a mean with its interval, beside what the labels alone and the judge alone say."""

    mean: float
    ci_low: float
    ci_high: float
    n_labels: int
    n_unlabelled: int
    lam: float
    labels_mean: float
    labels_ci_low: float
    labels_ci_high: float
    #: The judge's mean on the labelled rows minus the labels' mean there (positive: the judge scores higher).
    judge_bias: float
    #: The standard error behind the interval (before clipping to the bounds).
    se: float = 0.0
    confidence_level: float = CONFIDENCE_LEVEL
    method: str = "PPI++ (power-tuned)"


def ppi_mean(
    labels: Sequence[float],
    judged: Sequence[float],
    unlabelled: Sequence[float],
    bounds: tuple[float, float] = (0.0, 1.0),
) -> PPIEstimate | None:
    """The PPI++ estimate of the humans' mean from n labels, the judge's scores on those n rows and on the N
    rows nobody labelled; None with fewer than `MIN_LABELS` labels. Estimate and bounds are clipped to `bounds`
    (scores live in [0, 1]; (-1, 1) for differences). With every row labelled (N = 0) it is the labels' mean."""
    y, f, u = (np.asarray(a, dtype=float) for a in (labels, judged, unlabelled))
    if y.shape != f.shape:
        raise ValueError(f"labels and judged need equal lengths, got {y.size} and {f.size}")
    if y.size < MIN_LABELS:
        return None
    labels_mean, labels_low, labels_high = (float(v) for v in classical_batch(y))
    if u.size == 0:
        estimate, low, high, weight = labels_mean, labels_low, labels_high, 0.0
    else:
        values = ppi_batch(y[None], f[None], u[None])
        estimate, low, high, weight = (float(v[0]) for v in values)
    lower, upper = bounds
    clip = lambda x: float(min(upper, max(lower, x)))  # noqa: E731
    return PPIEstimate(
        mean=clip(estimate),
        ci_low=clip(low),
        ci_high=clip(high),
        n_labels=int(y.size),
        n_unlabelled=int(u.size),
        lam=weight,
        labels_mean=labels_mean,
        labels_ci_low=clip(labels_low),
        labels_ci_high=clip(labels_high),
        judge_bias=float(f.mean() - y.mean()),
        se=(high - low) / (2 * z_value(CONFIDENCE_LEVEL)),
    )


def combined_difference(base: PPIEstimate, new: PPIEstimate) -> tuple[float, float, float]:
    """new - base from two independent PPI estimates (their labels on different rows): the difference with a
    normal interval whose variance is the sum of the two (conservative when the runs share rows)."""
    difference = new.mean - base.mean
    half = z_value(CONFIDENCE_LEVEL) * float(np.hypot(base.se, new.se))
    return difference, max(-1.0, difference - half), min(1.0, difference + half)
