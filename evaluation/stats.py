"""Summary statistics: means with seeded 95 % intervals, row counts, and breakdowns by group.

Every mean carries its interval, the method that gave it (`evaluation.intervals`: Wilson for 0/1 scores, an
all-equal bound for constant scores, the expanded percentile bootstrap otherwise) and the number of rows behind
it. Fewer than 2 scored rows: no interval (ci_low/ci_high None).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from evaluation.intervals import BOOTSTRAP_SEED, CONFIDENCE_LEVEL, mean_ci
from ragtest_core.schema import MetricResult

#: How many distinct failure reasons the summary lists per metric.
TOP_REASONS = 3


def describe(values: Sequence[float], failed: int, seed: int = BOOTSTRAP_SEED) -> dict[str, Any]:
    """mean, ci_low, ci_high, confidence_level, rows_scored, rows_failed for one set of scores."""
    interval = mean_ci(np.asarray(values, dtype=float), seed=seed)
    return {
        "mean": float(np.mean(values)) if len(values) else None,
        "ci_low": interval.low,
        "ci_high": interval.high,
        "confidence_level": CONFIDENCE_LEVEL,
        "interval_method": interval.method,
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
