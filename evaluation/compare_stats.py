"""Paired statistics for two runs of one test set: the change of a metric's mean, row by row.

For each metric, on the rows both runs scored:
- both means and the mean paired difference (new - base) with its 95% interval (`evaluation.intervals`: the
  expanded percentile bootstrap of the differences via scipy.stats.bootstrap, seeded; an all-equal bound when
  every pair ties);
- a paired sign-flip permutation test of the mean difference (scipy.stats.permutation_test; exact up to 14 changed
  rows, else 20,000 seeded resamples), two-sided p-value;
- wins, losses and ties (a tie: the scores differ by less than `TIE_TOLERANCE`);
- a verdict. "better"/"worse" need both the interval to exclude 0 and p < 0.05; when only one of them says so the
  verdict is "borderline". With fewer than `MIN_CHANGED` changed rows no verdict is possible at all: even if every
  changed row moved the same way, the exact p-value would be 2^(1 - changed) >= 0.0625 ("too few changed rows";
  "no row changed" when every pair ties).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from evaluation.intervals import BOOTSTRAP_SEED, CONFIDENCE_LEVEL, difference_ci, scipy_stats

TIE_TOLERANCE = 1e-9
#: The fewest changed rows with which a two-sided sign-flip test can reach p < 0.05 (2^(1-6) = 0.031).
MIN_CHANGED = 6
SIGNIFICANCE = 1 - CONFIDENCE_LEVEL
PERMUTATION_RESAMPLES = 20_000

BETTER = "better"
WORSE = "worse"
NO_CHANGE = "no significant change"
BORDERLINE = "borderline"
TOO_FEW = "too few changed rows"
UNCHANGED = "no row changed"
NO_ROWS = "no rows scored on both sides"


@dataclass(frozen=True)
class PairedStats:
    """The paired comparison of one metric on the rows both runs scored."""

    n: int
    base_mean: float | None
    new_mean: float | None
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    interval_method: str
    p_value: float | None
    wins: int
    losses: int
    ties: int
    verdict: str
    note: str = ""

    @property
    def changed(self) -> int:
        return self.wins + self.losses

    @property
    def significant(self) -> bool:
        return self.verdict in (BETTER, WORSE)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def sign_flip_p_value(base: np.ndarray, new: np.ndarray, seed: int = BOOTSTRAP_SEED) -> float:
    """Two-sided p-value of the mean paired difference: each pair's two scores swapped at random (seeded)."""

    def mean_difference(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
        return np.mean(y - x, axis=axis)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = scipy_stats().permutation_test(
            (base, new),
            mean_difference,
            permutation_type="samples",
            alternative="two-sided",
            vectorized=True,
            n_resamples=PERMUTATION_RESAMPLES,
            rng=np.random.default_rng(seed),
        )
    return float(min(1.0, result.pvalue))


def verdict_of(
    difference: float,
    low: float | None,
    high: float | None,
    p_value: float,
    changed: int,
    higher_is_better: bool = True,
) -> str:
    if changed == 0:
        return UNCHANGED
    if changed < MIN_CHANGED:
        return TOO_FEW
    interval_says = low is not None and high is not None and (low > 0 or high < 0)
    test_says = p_value < SIGNIFICANCE
    if interval_says and test_says:
        return BETTER if (difference > 0) == higher_is_better else WORSE
    return BORDERLINE if interval_says or test_says else NO_CHANGE


def paired_stats(
    base: Sequence[float], new: Sequence[float], seed: int = BOOTSTRAP_SEED, higher_is_better: bool = True
) -> PairedStats:
    """Compare two runs' scores of one metric, given pair by pair (same length, no missing values). A win is a row
    that got better: a higher score, or a lower one for a metric where lower is better (`higher_is_better`)."""
    b = np.asarray(base, dtype=float)
    a = np.asarray(new, dtype=float)
    if b.shape != a.shape:
        raise ValueError(f"paired scores need equal lengths, got {b.size} and {a.size}")
    if b.size == 0:
        return PairedStats(0, None, None, None, None, None, "", None, 0, 0, 0, NO_ROWS)
    differences = a - b
    better = differences if higher_is_better else -differences
    wins = int(np.sum(better > TIE_TOLERANCE))
    losses = int(np.sum(better < -TIE_TOLERANCE))
    interval = difference_ci(differences, seed=seed)
    p_value = sign_flip_p_value(b, a, seed) if b.size >= 2 else 1.0
    difference = float(differences.mean())
    verdict = verdict_of(difference, interval.low, interval.high, p_value, wins + losses, higher_is_better)
    note = ""
    if verdict == TOO_FEW:
        note = (
            f"only {wins + losses} of {b.size} rows changed: even if all had moved the same way, p would be "
            f"{min(1.0, 2.0 ** (1 - (wins + losses))):.3g}, so nothing can be concluded"
        )
    elif verdict == UNCHANGED:
        note = f"every one of the {b.size} rows scores the same in both runs"
    return PairedStats(
        n=int(b.size),
        base_mean=float(b.mean()),
        new_mean=float(a.mean()),
        difference=difference,
        ci_low=interval.low,
        ci_high=interval.high,
        interval_method=interval.method,
        p_value=p_value,
        wins=wins,
        losses=losses,
        ties=int(b.size) - wins - losses,
        verdict=verdict,
        note=note,
    )


def paired_breakdown(
    base: Sequence[float],
    new: Sequence[float],
    labels: Sequence[str | None],
    seed: int = BOOTSTRAP_SEED,
    higher_is_better: bool = True,
) -> dict[str, PairedStats]:
    """`paired_stats` per label (rows without one under "(none)"), labels sorted."""
    grouped: dict[str, list[int]] = defaultdict(list)
    for index, label in enumerate(labels):
        grouped[label if label is not None else "(none)"].append(index)
    return {
        label: paired_stats([base[i] for i in rows], [new[i] for i in rows], seed, higher_is_better)
        for label, rows in sorted(grouped.items())
    }
