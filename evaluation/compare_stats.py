"""Paired statistics for two runs of one test set: the change of a metric's mean, row by row, and compare's one
decision rule.

For each metric, on the rows both runs scored:
- pairs whose scores differ by at most `TIE_TOLERANCE` (floating-point noise) are ties: their difference counts as
  exactly 0 everywhere below, so noise is never a changed row and never drives a p-value;
- both means and the mean paired difference (new - base) with its 95% interval (`evaluation.intervals`: the
  expanded percentile bootstrap of the differences via scipy.stats.bootstrap, seeded; an all-equal bound when
  every pair ties);
- a sign-flip permutation test of the mean difference over the changed rows (scipy.stats.permutation_test; exact
  up to 14 changed rows, else 20,000 seeded resamples), two-sided p-value; none when no row changed;
- wins, losses and ties;
- a verdict. The one decision rule (`significant_direction`), which `compare`'s table and its gate both apply: a
  change is significant when at least `MIN_CHANGED` rows changed, the interval excludes 0 and p < 0.05. With fewer
  changed rows no verdict is possible at all: even if every changed row moved the same way, the exact p-value
  would be 2^(1 - changed) >= 0.0625 ("too few changed rows"; "no row changed" when every pair ties). When only
  the interval or only the test says so, the verdict is "borderline".
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.intervals import BOOTSTRAP_SEED, CONFIDENCE_LEVEL, difference_ci, scipy_stats
from evaluation.stats import by_label

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
    def direction(self) -> int:
        """The decision rule's reading (`significant_direction`): +1 a significant rise, -1 a drop, 0 neither."""
        return significant_direction(self.ci_low, self.ci_high, self.p_value, self.changed)


def ties_as_zero(differences: np.ndarray) -> np.ndarray:
    """The paired differences with floating-point noise (|d| <= `TIE_TOLERANCE`) set to exactly 0."""
    return np.where(np.abs(differences) <= TIE_TOLERANCE, 0.0, differences)


def changed_p_value(differences: np.ndarray, seed: int = BOOTSTRAP_SEED) -> float | None:
    """Two-sided sign-flip p-value of the mean of the nonzero differences (each one's sign flipped at random;
    exact up to 14 of them); None when none is nonzero: ties carry no evidence either way."""
    changed = differences[differences != 0.0]
    if changed.size == 0:
        return None
    if changed.size == 1:
        return 1.0  # both signs give the same |mean|

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = scipy_stats().permutation_test(
            (changed,),
            np.mean,
            permutation_type="samples",
            alternative="two-sided",
            vectorized=True,
            n_resamples=PERMUTATION_RESAMPLES,
            rng=np.random.default_rng(seed),
        )
    return float(min(1.0, result.pvalue))


def interval_direction(low: float | None, high: float | None) -> int:
    """+1 when the interval lies wholly above 0, -1 wholly below, 0 when it holds 0 (or there is none)."""
    if low is None or high is None:
        return 0
    return 1 if low > 0 else -1 if high < 0 else 0


def significant_direction(low: float | None, high: float | None, p_value: float | None, changed: int) -> int:
    """compare's one decision rule, for its table and its gate alike: +1 for a significant rise of the mean, -1
    for a significant drop, 0 when the data cannot tell. Significant: at least `MIN_CHANGED` changed rows, the
    interval excludes 0 and the permutation test gives p < `SIGNIFICANCE`."""
    if changed < MIN_CHANGED or p_value is None or p_value >= SIGNIFICANCE:
        return 0
    return interval_direction(low, high)


def verdict_of(low: float | None, high: float | None, p_value: float | None, changed: int, upward: bool = True) -> str:
    """The verdict of a change (the module docstring); `upward`: a higher score is better."""
    if changed == 0:
        return UNCHANGED
    if changed < MIN_CHANGED:
        return TOO_FEW
    direction = significant_direction(low, high, p_value, changed)
    if direction:
        return BETTER if (direction > 0) == upward else WORSE
    test_says = p_value is not None and p_value < SIGNIFICANCE
    return BORDERLINE if interval_direction(low, high) or test_says else NO_CHANGE


def passes_gate(direction: int, low: float, high: float, threshold: float, guards_rise: bool) -> bool:
    """A `--fail-if` rule on a change: it fails only on a change the decision rule calls significant (`direction`,
    from `significant_direction`) in the guarded direction whose interval also lies wholly past `threshold` (a
    drop: the upper bound below it; a rise: the lower bound above it)."""
    if guards_rise:
        return not (direction > 0 and low > threshold)
    return not (direction < 0 and high < threshold)


def paired_stats(
    base: Sequence[float], new: Sequence[float], seed: int = BOOTSTRAP_SEED, higher_is_better: bool = True
) -> PairedStats:
    """Compare two runs' scores of one metric, given pair by pair (same length, no missing values). A win is a row
    that got better: a higher score, or a lower one for a metric where lower is better (`higher_is_better`)."""
    b, a = np.asarray(base, dtype=float), np.asarray(new, dtype=float)
    if b.shape != a.shape:
        raise ValueError(f"paired scores need equal lengths, got {b.size} and {a.size}")
    if b.size == 0:
        return PairedStats(0, None, None, None, None, None, "", None, 0, 0, 0, NO_ROWS)
    differences = ties_as_zero(a - b)
    better = differences if higher_is_better else -differences
    wins, losses = int(np.sum(better > 0)), int(np.sum(better < 0))
    interval = difference_ci(differences, seed=seed)
    p_value = changed_p_value(differences, seed)
    verdict = verdict_of(interval.low, interval.high, p_value, wins + losses, higher_is_better)
    note = ""
    if verdict == TOO_FEW:
        note = (
            f"only {wins + losses} of {b.size} rows changed: even if all had moved the same way, p would be "
            f"{min(1.0, 2.0 ** (1 - (wins + losses))):.3g}, so nothing can be concluded"
        )
    elif verdict == UNCHANGED:
        note = f"every one of the {b.size} rows scores the same in both runs (to within {TIE_TOLERANCE:g})"
    return PairedStats(
        n=int(b.size),
        base_mean=float(b.mean()),
        new_mean=float(a.mean()),
        difference=float(differences.mean()),
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
    """`paired_stats` per label (`evaluation.stats.by_label`)."""
    return {
        label: paired_stats([base[i] for i in rows], [new[i] for i in rows], seed, higher_is_better)
        for label, rows in by_label(labels).items()
    }
