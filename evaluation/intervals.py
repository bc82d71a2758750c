"""Confidence intervals for a mean score in [0, 1] and for a mean paired difference in [-1, 1].

Every method works on a batch of samples at once (a 2-D array, one sample per row), so the coverage simulation
(`bench/interval_coverage.py`, pinned by tests/evaluation/test_intervals.py) measures exactly the code the summaries
and comparisons run. The rule ragtest uses (`ragtest_rule`), chosen on that simulation against the usual methods:

- a sample whose scores are all 0 or 1 (hit rate, exact match, a one-sentence recall): the Wilson score interval
  for a proportion;
- a sample whose values are all equal (every row 1.0, or every pair tied): the Wilson bound for "none of the n rows
  differs", i.e. the mean could still lie a share z^2 / (n + z^2) of the way to either end of the range (0.20 at
  n = 15); a bootstrap would give the zero-width interval [c, c] here, whatever n;
- anything else: the percentile bootstrap (scipy.stats.bootstrap, seeded) at Hesterberg's expanded level, which
  corrects the percentile interval's known narrowness at small n (Hesterberg 2015, "What teachers should know
  about the bootstrap"): the tail probability a/2 becomes Phi(-sqrt(n / (n - 1)) * t_{1-a/2, n-1}).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

import numpy as np

CONFIDENCE_LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
#: Resamples held in memory at once by scipy.stats.bootstrap (per sample row).
BOOTSTRAP_BATCH = 500

#: What each interval in a summary is called (the `interval_method` field).
WILSON = "wilson"
ALL_EQUAL = "all-equal bound"
EXPANDED = "expanded percentile bootstrap"


def scipy_stats() -> ModuleType:
    """scipy.stats, imported on first use: it costs 1-3 s of start-up that most commands never need."""
    from scipy import stats

    return stats


@dataclass(frozen=True)
class Interval:
    """A confidence interval and the method that gave it (low/high None when there are fewer than 2 values)."""

    low: float | None
    high: float | None
    method: str


def z_value(level: float) -> float:
    """The two-sided normal quantile of a confidence level (1.96 at 0.95)."""
    return float(scipy_stats().norm.ppf(0.5 + level / 2))


def expanded_level(n: int, level: float = CONFIDENCE_LEVEL) -> float:
    """The confidence level at which a percentile interval of n values covers about `level` (Hesterberg)."""
    return float(1 - 2 * scipy_stats().norm.sf(np.sqrt(n / (n - 1)) * scipy_stats().t.ppf(1 - (1 - level) / 2, n - 1)))


def scipy_bootstrap(
    data: np.ndarray, method: str, level: float, seed: int = BOOTSTRAP_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """scipy.stats.bootstrap of the mean of every row of `data` ('percentile', 'basic' or 'BCa'); NaN where the
    method is undefined (BCa on a constant row)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = scipy_stats().bootstrap(
            (data,),
            np.mean,
            axis=-1,
            vectorized=True,
            method=method,
            n_resamples=BOOTSTRAP_RESAMPLES,
            confidence_level=level,
            batch=BOOTSTRAP_BATCH,
            rng=np.random.default_rng(seed),
        )
    return np.atleast_1d(result.confidence_interval.low), np.atleast_1d(result.confidence_interval.high)


def wilson(data: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of a proportion, taking each row's mean as the share of 1s (exact for 0/1 rows;
    for other rows it treats the scores as if they were 0/1, which overstates their spread)."""
    n = data.shape[1]
    share = np.clip(data.mean(axis=1), 0.0, 1.0)
    z2 = z_value(level) ** 2
    centre = (share + z2 / (2 * n)) / (1 + z2 / n)
    half = np.sqrt(z2) / (1 + z2 / n) * np.sqrt(share * (1 - share) / n + z2 / (4 * n * n))
    return centre - half, centre + half


def ragtest_rule(
    data: np.ndarray, bounds: tuple[float, float], level: float = CONFIDENCE_LEVEL, seed: int = BOOTSTRAP_SEED
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The chosen rule on every row of `data`, whose values lie within `bounds` ((0, 1) for scores, (-1, 1) for
    paired differences): low, high and the method used per row, clipped to the bounds."""
    data = np.asarray(data, dtype=float)
    n = data.shape[1]
    lower, upper = bounds
    low, high = scipy_bootstrap(data, "percentile", expanded_level(n, level), seed=seed)
    constant = np.all(data == data[:, :1], axis=1)
    binary = np.all((data == 0) | (data == 1), axis=1) & (lower == 0.0) & (upper == 1.0)
    wilson_low, wilson_high = wilson(data, level)
    share = z_value(level) ** 2 / (n + z_value(level) ** 2)
    first = data[:, 0]
    low = np.where(binary, wilson_low, np.where(constant, first - share * (first - lower), low))
    high = np.where(binary, wilson_high, np.where(constant, first + share * (upper - first), high))
    methods = [WILSON if b else ALL_EQUAL if c else EXPANDED for b, c in zip(binary, constant, strict=True)]
    return np.clip(low, lower, upper), np.clip(high, lower, upper), methods


def mean_cis(
    samples: Sequence[Sequence[float] | np.ndarray],
    bounds: tuple[float, float] = (0.0, 1.0),
    seed: int = BOOTSTRAP_SEED,
) -> list[Interval]:
    """The interval of each sample's mean (the rule above, values within `bounds`; seeded, so the same values give
    the same interval), the samples of one length in one batch (the same intervals, many times faster for the
    report's hundreds of groups)."""
    by_length: dict[int, list[int]] = defaultdict(list)
    for index, sample in enumerate(samples):
        by_length[len(sample)].append(index)
    found = {}
    for length, indices in by_length.items():
        if length < 2:
            found.update({i: Interval(None, None, "fewer than 2 values") for i in indices})
            continue
        low, high, methods = ragtest_rule(np.asarray([samples[i] for i in indices], dtype=float), bounds, seed=seed)
        rows = zip(indices, low, high, methods, strict=True)
        found.update({i: Interval(float(lo), float(hi), m) for i, lo, hi, m in rows})
    return [found[i] for i in range(len(samples))]


def mean_ci(values: Sequence[float] | np.ndarray, seed: int = BOOTSTRAP_SEED) -> Interval:
    """The interval of the mean of scores in [0, 1]."""
    return mean_cis([values], seed=seed)[0]


def difference_ci(differences: Sequence[float] | np.ndarray, seed: int = BOOTSTRAP_SEED) -> Interval:
    """The interval of the mean of paired differences (new - base) of scores in [0, 1]."""
    return mean_cis([differences], (-1.0, 1.0), seed)[0]
