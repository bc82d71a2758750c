"""Agreement statistics between a judge's scores and human labels, and between two labellers, each with a seeded
bootstrap interval.

- ROC-AUC (yes/no labels): the chance that a row the humans said yes to scores higher than one they said no to
  (ties count one half), from average ranks (the Mann-Whitney U statistic);
- Spearman's rank correlation (graded labels: yes / partly / no, or values in [0, 1]), scipy.stats.spearmanr;
- Cohen's kappa at a threshold: judge score >= threshold against label >= threshold (`weighted_kappa` of the two
  yes/no sides);
- preference pairs (WikiEval's, the RAGAS paper's meta-evaluation): pairwise accuracy (`pairwise_accuracy`);
- between labellers: exact agreement and a distance-weighted kappa, 1 - mean|a - b| / mean over all pairs
  |a_i - b_j| (for yes/no labels this is Cohen's kappa; for yes / partly / no the linearly weighted kappa).

An interval is the percentile bootstrap over rows (2,000 seeded resamples; resamples where the statistic is
undefined, e.g. with one class only, are left out; when more than half are, the interval is undefined). An
undefined statistic is an `Undefined` value with its reason (one class, too few rows, constant input), never a
number and never NaN: kappa, for one, is undefined when either side holds one class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.intervals import CONFIDENCE_LEVEL, scipy_stats

AGREEMENT_RESAMPLES = 2000


@dataclass(frozen=True)
class Undefined:
    """A statistic that has no value on the data given, and why (one class, too few rows, constant input)."""

    reason: str


Outcome = float | Undefined
Statistic = Callable[[np.ndarray, np.ndarray], Outcome]


@dataclass(frozen=True)
class Estimate:
    """A statistic with its bootstrap interval and the rows behind it. An undefined statistic has no value and
    says why (`undefined`); a value without an interval says why it has none (`no_interval`)."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    undefined: str = ""
    no_interval: str = ""

    def text(self, digits: int = 2) -> str:
        if self.value is None:
            return f"undefined: {self.undefined or 'no value'} (n={self.n})"
        if self.ci_low is None or self.ci_high is None:
            return f"{self.value:.{digits}f} (n={self.n}; interval undefined: {self.no_interval or 'no interval'})"
        return f"{self.value:.{digits}f} [{self.ci_low:.{digits}f}, {self.ci_high:.{digits}f}] (n={self.n})"


def _one_class(values: np.ndarray, threshold: float, who: str) -> str:
    """Why a statistic is undefined when every value falls on one side of `threshold` (one class); else ""."""
    positive = int(np.sum(values >= threshold))
    return f"{who} {'yes' if positive else 'no'} on every row (one class)" if positive in (0, values.size) else ""


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> Outcome:
    """ROC-AUC of scores against yes/no labels (1 / 0); undefined without both classes."""
    if labels.size == 0:
        return Undefined("no labelled row has a judge score")
    if one_class := _one_class(labels, 0.5, "the humans said"):
        return Undefined(f"{one_class}: ROC-AUC needs both yes and no labels")
    positive = labels >= 0.5
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    ranks = scipy_stats().rankdata(scores)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def spearman(scores: np.ndarray, labels: np.ndarray) -> Outcome:
    """Spearman's rank correlation; undefined with fewer than 2 rows or constant input."""
    if scores.size < 2:
        return Undefined(f"{scores.size} labelled row(s) with a judge score: a correlation needs at least 2")
    if np.all(labels == labels[0]):
        return Undefined(f"every human label is {labels[0]:g}: a correlation needs labels that vary")
    if np.all(scores == scores[0]):
        return Undefined(f"the judge scored every labelled row {scores[0]:g}: a correlation needs scores that vary")
    value = float(scipy_stats().spearmanr(scores, labels).statistic)
    return value if np.isfinite(value) else Undefined("scipy gave no finite correlation")


def kappa_at(threshold: float) -> Statistic:
    """Cohen's kappa of judge score >= threshold against label >= threshold; undefined when either side holds
    one class (kappa is then 0 or 0/0 whatever the agreement, so it cannot tell agreement from chance)."""

    def statistic(scores: np.ndarray, labels: np.ndarray) -> Outcome:
        if scores.size == 0:
            return Undefined("no labelled row has a judge score")
        for values, who in ((labels, "the humans said"), (scores, "the judge said")):
            if one_class := _one_class(values, threshold, who):
                return Undefined(f"{one_class} at {threshold:g}: kappa cannot tell agreement from chance")
        return weighted_kappa((scores >= threshold).astype(float), (labels >= threshold).astype(float))

    return statistic


def weighted_kappa(first: np.ndarray, second: np.ndarray) -> Outcome:
    """1 - observed mean |a - b| / the mean |a_i - b_j| expected by chance; undefined when chance disagreement
    is 0 (both labellers gave one and the same label throughout)."""
    if first.size == 0:
        return Undefined("no row labelled by both")
    expected = float(np.mean(np.abs(first[:, None] - second[None, :])))
    if expected == 0.0:
        return Undefined(f"both labellers gave every row {first[0]:g}: kappa cannot tell agreement from chance")
    return 1.0 - float(np.mean(np.abs(first - second))) / expected


def pairwise_accuracy(
    preferred: Sequence[float | None] | np.ndarray, other: Sequence[float | None] | np.ndarray
) -> float | None:
    """Agreement with human preferences (meta-evaluation): the share of pairs where the human-preferred side scores
    higher; a tie counts one half, and a side without a score ranks below any score, so a failure never wins. No
    pair: None, never NaN."""
    if len(preferred) != len(other):
        raise ValueError("both sides need one score per pair")
    a, b = (np.array([-np.inf if v is None else v for v in side], dtype=float) for side in (preferred, other))
    return float(np.mean(np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0)))) if a.size else None


def exact_agreement(first: np.ndarray, second: np.ndarray) -> float | None:
    return float(np.mean(np.isclose(first, second))) if first.size else None


def bootstrap(
    statistic: Statistic, x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, seed: int = 0
) -> Estimate:
    """The statistic on (x, y) paired by row, with the percentile bootstrap interval over rows. Resamples where
    the statistic is undefined are left out; when more than half are, the interval is undefined, saying so."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = int(a.size)
    value = statistic(a, b)
    if isinstance(value, Undefined):
        return Estimate(None, None, None, n, undefined=value.reason)
    if n < 2:
        return Estimate(value, None, None, n, no_interval=f"{n} row: resampling needs at least 2")
    rng = np.random.default_rng(seed)
    resamples = AGREEMENT_RESAMPLES
    draws = [
        d for rows in rng.integers(0, n, (resamples, n)) if not isinstance(d := statistic(a[rows], b[rows]), Undefined)
    ]
    if len(draws) < resamples // 2:
        reason = (
            f"the statistic is undefined in {resamples - len(draws)} of {resamples} resamples of the {n} rows "
            "(too few rows of one class)"
        )
        return Estimate(value, None, None, n, no_interval=reason)
    low, high = np.quantile(draws, [0.5 - CONFIDENCE_LEVEL / 2, 0.5 + CONFIDENCE_LEVEL / 2])
    return Estimate(value, float(low), float(high), n)


def confusion(scores: Sequence[float], labels: Sequence[float], threshold: float) -> dict[str, int]:
    """Counts at the threshold: judge yes/no (score >= threshold) against human yes/no (label >= threshold)."""
    judge = np.asarray(scores, dtype=float) >= threshold
    human = np.asarray(labels, dtype=float) >= threshold
    sides = {"yes": True, "no": False}
    return {
        f"judge_{j}_human_{h}": int(np.sum((judge == sides[j]) & (human == sides[h]))) for j in sides for h in sides
    }


def is_binary(labels: Sequence[float]) -> bool:
    """True when every label is 0 or 1 (yes/no); graded otherwise."""
    return all(float(v) in (0.0, 1.0) for v in labels)
