"""Coverage of the PPI interval by simulation (seeded): a judge biased by a known amount, human labels on a random
subset, many repetitions; the interval covers when it holds the humans' true mean.

Each row has a latent quality q ~ 0.85 * Beta(3, 2) (true mean 0.51). The human label is yes/no (Bernoulli(q)) or
graded (yes / partly / no: q plus noise, rounded to 0, 0.5 or 1). The judge scores q + bias + N(0, noise) (clipped
to [0, 1]; with q <= 0.85 the clipping hardly moves the bias), so it correlates with the labels and is off by
`bias` on average. The judge-only mean misses the truth by the bias; the labels alone cover but are wide; PPI
should cover at the nominal level and be narrower than the labels alone.

`python -m bench.ppi_coverage` prints the table; tests/evaluation/test_ppi.py pins it (50 and 200 labels).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaluation.intervals import CONFIDENCE_LEVEL
from evaluation.ppi import classical_batch, ppi_batch

QUALITY_SCALE = 0.85
QUALITY_A, QUALITY_B = 3.0, 2.0


def true_mean(graded: bool) -> float:
    """The humans' mean label over the population (computed once by a large seeded draw for graded labels)."""
    scale_mean = QUALITY_SCALE * QUALITY_A / (QUALITY_A + QUALITY_B)
    if not graded:
        return scale_mean
    rng = np.random.default_rng(12345)
    q = QUALITY_SCALE * rng.beta(QUALITY_A, QUALITY_B, 4_000_000)
    return float(_graded_label(rng, q).mean())


def _graded_label(rng: np.random.Generator, q: np.ndarray) -> np.ndarray:
    return np.clip(np.round(2 * (q + rng.normal(0.0, 0.15, q.shape))) / 2, 0.0, 1.0)


@dataclass(frozen=True)
class CoverageResult:
    labels: int
    unlabelled: int
    graded: bool
    bias: float
    repetitions: int
    ppi_coverage: float
    labels_coverage: float
    judge_coverage: float
    ppi_width: float
    labels_width: float
    #: Share of repetitions where the PPI interval is narrower than the labels-only one.
    ppi_narrower: float
    mean_lambda: float
    measured_bias: float


def simulate(
    labels: int,
    unlabelled: int = 1000,
    bias: float = 0.1,
    noise: float = 0.1,
    graded: bool = False,
    repetitions: int = 4000,
    seed: int = 0,
    level: float = CONFIDENCE_LEVEL,
) -> CoverageResult:
    """Coverage and widths of the PPI, labels-only and judge-only intervals over `repetitions` seeded draws."""
    rng = np.random.default_rng(seed)
    total = labels + unlabelled
    q = QUALITY_SCALE * rng.beta(QUALITY_A, QUALITY_B, (repetitions, total))
    human = _graded_label(rng, q) if graded else (rng.random(q.shape) < q).astype(float)
    judge = np.clip(q + bias + rng.normal(0.0, noise, q.shape), 0.0, 1.0)
    truth = true_mean(graded)
    y, f, u = human[:, :labels], judge[:, :labels], judge[:, labels:]
    _, low, high, lam = ppi_batch(y, f, u, level)
    _, labels_low, labels_high = classical_batch(y, level)
    _, judge_low, judge_high = classical_batch(judge, level)
    return CoverageResult(
        labels=labels,
        unlabelled=unlabelled,
        graded=graded,
        bias=bias,
        repetitions=repetitions,
        ppi_coverage=float(np.mean((low <= truth) & (truth <= high))),
        labels_coverage=float(np.mean((labels_low <= truth) & (truth <= labels_high))),
        judge_coverage=float(np.mean((judge_low <= truth) & (truth <= judge_high))),
        ppi_width=float(np.mean(high - low)),
        labels_width=float(np.mean(labels_high - labels_low)),
        ppi_narrower=float(np.mean((high - low) < (labels_high - labels_low))),
        mean_lambda=float(np.mean(lam)),
        measured_bias=float(judge.mean() - truth),
    )
