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

from evaluation.intervals import CONFIDENCE_LEVEL, mean_ci
from ragtest_core.schema import MetricResult

#: How many distinct failure reasons the summary lists per metric.
TOP_REASONS = 3


def describe(results: Sequence[MetricResult]) -> dict[str, Any]:
    """mean, ci_low, ci_high, confidence_level, rows_scored, rows_failed for one set of results."""
    values = [r.value for r in results if r.value is not None]
    interval = mean_ci(values)
    return {
        "mean": float(np.mean(values)) if len(values) else None,
        "ci_low": interval.low,
        "ci_high": interval.high,
        "confidence_level": CONFIDENCE_LEVEL,
        "interval_method": interval.method,
        "rows_scored": len(values),
        "rows_failed": len(results) - len(values),
    }


def by_label(labels: Sequence[str | None]) -> dict[str, list[int]]:
    """The row positions of each label (rows without one under "(none)"), labels sorted."""
    grouped: dict[str, list[int]] = defaultdict(list)
    for index, label in enumerate(labels):
        grouped[label if label is not None else "(none)"].append(index)
    return dict(sorted(grouped.items()))


def summarise(
    names: Sequence[str], results: Sequence[dict[str, MetricResult]], groups: dict[str, Sequence[str | None]]
) -> dict[str, dict[str, Any]]:
    """Per metric: mean with its interval, rows scored/failed, top failure reasons, one breakdown per group column
    that has a label."""
    summary = {}
    for name in names:
        column = [r[name] for r in results]
        failures = Counter(r.reason[:160] for r in column if r.value is None)
        entry = describe(column)
        entry["n"] = len(column)
        entry["top_failure_reasons"] = [
            {"reason": text, "count": count} for text, count in failures.most_common(TOP_REASONS)
        ]
        for group, labels in groups.items():
            if any(label is not None for label in labels):
                entry[f"by_{group}"] = {
                    label: describe([column[i] for i in rows]) for label, rows in by_label(labels).items()
                }
        summary[name] = entry
    return summary
