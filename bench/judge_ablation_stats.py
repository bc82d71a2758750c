"""Accuracy of a scorer on a development set with its 95% bootstrap interval (scipy.stats.bootstrap, percentile,
seeded), and the paired interval of the gain of one scorer over another on the same resamples.

ROC-AUC for labelled rows (ties count one half; a missing score ranks lowest), pairwise accuracy for preference
pairs (a tie counts one half): `bench.validity_stats`' definitions.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from bench.judge_ablation_scorers import Variant
from bench.judge_ablation_sets import DevSet
from bench.validity_stats import pair_outcomes

Score = float | None
RESAMPLES = 2000
SEED = 20261127


@dataclass(frozen=True)
class Accuracy:
    value: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def _filled(scores: Sequence[Score]) -> np.ndarray:
    return np.asarray([-np.inf if s is None else s for s in scores], dtype=float)


def rank_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC-AUC by ranks (Mann-Whitney U with average ranks for ties)."""
    from scipy.stats import rankdata

    pos = labels == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if not n_pos or not n_neg:
        return float("nan")
    ranks = rankdata(np.where(np.isinf(scores), -1e300, scores))
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _interval(data: tuple[np.ndarray, ...], statistic: Callable[..., float], point: float) -> Accuracy:
    from scipy.stats import bootstrap

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant statistic (every pair won) is a degenerate, exact interval
        found = bootstrap(
            data,
            statistic,
            paired=True,
            vectorized=False,
            n_resamples=RESAMPLES,
            method="percentile",
            random_state=np.random.default_rng(SEED),
        )
    low, high = found.confidence_interval
    low = point if np.isnan(low) else float(low)
    high = point if np.isnan(high) else float(high)
    return Accuracy(point, min(low, point), max(high, point))


@dataclass(frozen=True)
class Scored:
    """A scorer's scores on one set: per labelled row, or per pair (preferred side, other side)."""

    rows: tuple[Score, ...] = ()
    preferred: tuple[Score, ...] = ()
    other: tuple[Score, ...] = ()


def outcomes(dev: DevSet, scored: Scored) -> np.ndarray:
    return pair_outcomes(list(scored.preferred), list(scored.other))


def accuracy(dev: DevSet, scored: Scored) -> Accuracy:
    if dev.kind == "auc":
        s, y = _filled(scored.rows), np.asarray([r["label"] for r in dev.rows])
        return _interval((s, y), rank_auc, rank_auc(s, y))
    won = outcomes(dev, scored)
    return _interval((won,), np.mean, float(won.mean()))


def gain(dev: DevSet, candidate: Scored, current: Scored) -> Accuracy:
    """The candidate's accuracy minus the current one's, with the paired bootstrap interval of the difference."""
    if dev.kind == "auc":
        a, b = _filled(candidate.rows), _filled(current.rows)
        y = np.asarray([r["label"] for r in dev.rows])

        def diff(x: np.ndarray, z: np.ndarray, labels: np.ndarray) -> float:
            return rank_auc(x, labels) - rank_auc(z, labels)

        return _interval((a, b, y), diff, diff(a, b, y))
    delta = outcomes(dev, candidate) - outcomes(dev, current)
    return _interval((delta,), np.mean, float(delta.mean()))


@dataclass
class Measured:
    """One variant measured: its accuracy on each set, the scores behind it, its speed, and (a ladder step) whether
    it was added and its gains over the variant it extends."""

    variant: Variant
    label: str
    accuracy: list[Accuracy]
    scored: list[Scored]
    rows_per_s: float
    #: The encoder's short sentences/s measured closest to this variant's timing (the load of that moment).
    encoder_rate: float
    admitted: bool | None = None
    gains: list[Accuracy] = field(default_factory=list)

    @property
    def cost(self) -> float:
        """Encoder-sentence equivalents per row: the encoder's rate over the variant's rows/s (load cancels)."""
        return self.encoder_rate / self.rows_per_s

    @property
    def size(self) -> tuple[bool, int]:
        """How big a judge is: whether it embeds anything (the dominant cost), then how many components it has."""
        return self.variant.embeds, len(self.variant.components)


#: A row of a metric's table: the step (baseline, ladder from a base, default) and the variant measured.
Step = tuple[str, Measured]
