"""Summary statistics: means with seeded bootstrap 95 % intervals, row counts, and breakdowns by group.

Every mean carries its interval and the number of rows behind it. Fewer than 2 scored rows: no interval
(ci_low/ci_high None); constant scores: the interval is the constant itself (the bootstrap has nothing to vary).
"""

from __future__ import annotations

import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import stats

from ragtest_core.schema import MetricResult

CONFIDENCE_LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
#: How many distinct failure reasons the summary lists per metric.
TOP_REASONS = 3


def bootstrap_ci(
    values: Sequence[float], level: float = CONFIDENCE_LEVEL, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> tuple[float | None, float | None]:
    """A bootstrap confidence interval of the mean (BCa, percentile when BCa is undefined); seeded."""
    data = np.asarray(values, dtype=float)
    if data.size < 2:
        return None, None
    if np.all(data == data[0]):
        return float(data[0]), float(data[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("BCa", "percentile"):
            result = stats.bootstrap(
                (data,),
                np.mean,
                confidence_level=level,
                n_resamples=resamples,
                method=method,
                rng=np.random.default_rng(seed),
            )
            low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
            if np.isfinite(low) and np.isfinite(high):
                return max(low, float(data.min())), min(high, float(data.max()))
    return None, None


def describe(values: Sequence[float], failed: int, seed: int = BOOTSTRAP_SEED) -> dict[str, Any]:
    """mean, ci_low, ci_high, confidence_level, rows_scored, rows_failed for one set of scores."""
    low, high = bootstrap_ci(values, seed=seed)
    return {
        "mean": float(np.mean(values)) if len(values) else None,
        "ci_low": low,
        "ci_high": high,
        "confidence_level": CONFIDENCE_LEVEL,
        "rows_scored": len(values),
        "rows_failed": failed,
    }


def summarise_metric(
    results: Sequence[MetricResult], groups: dict[str, Sequence[str | None]] | None = None
) -> dict[str, Any]:
    """The summary of one metric: overall statistics, top failure reasons and one breakdown per group column."""
    values = [r.value for r in results if r.value is not None]
    failures = Counter(r.reason[:160] for r in results if r.value is None)
    entry = describe(values, sum(failures.values()))
    entry["n"] = len(results)
    entry["top_failure_reasons"] = [
        {"reason": reason, "count": count} for reason, count in failures.most_common(TOP_REASONS)
    ]
    for column, labels in (groups or {}).items():
        if any(label is not None for label in labels):
            entry[f"by_{column}"] = breakdown(results, labels)
    return entry


def breakdown(results: Sequence[MetricResult], labels: Sequence[str | None]) -> dict[str, dict[str, Any]]:
    """Statistics per label (rows without one are grouped under "(none)"), labels sorted."""
    grouped: dict[str, list[MetricResult]] = defaultdict(list)
    for result, label in zip(results, labels, strict=True):
        grouped[label if label is not None else "(none)"].append(result)
    return {
        label: describe([r.value for r in rows if r.value is not None], sum(1 for r in rows if r.value is None))
        for label, rows in sorted(grouped.items())
    }


def summarise(
    names: Sequence[str],
    results: Sequence[dict[str, MetricResult]],
    groups: dict[str, Sequence[str | None]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per metric: mean with its bootstrap interval, rows scored/failed, top failure reasons, breakdowns."""
    return {name: summarise_metric([r[name] for r in results], groups) for name in names}


def format_interval(entry: dict[str, Any], digits: int = 3) -> str:
    """ "0.812 [0.770, 0.850] (n=30)" for a summary entry (or "n/a")."""
    mean = entry.get("mean")
    if mean is None:
        return "n/a"
    fmt: Callable[[float], str] = lambda x: f"{x:.{digits}f}"  # noqa: E731
    low, high = entry.get("ci_low"), entry.get("ci_high")
    interval = f" [{fmt(low)}, {fmt(high)}]" if low is not None and high is not None else ""
    return f"{fmt(mean)}{interval} (n={entry.get('rows_scored', 0)})"
