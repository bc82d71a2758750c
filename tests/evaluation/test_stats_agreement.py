"""Bootstrap intervals, breakdowns and agreement statistics."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.intervals import mean_ci
from evaluation.label_stats import Undefined, kappa_at, pairwise_accuracy
from evaluation.stats import summarise
from ragtest_core.schema import MetricResult


def bounds(values: list[float]) -> tuple[float | None, float | None]:
    interval = mean_ci(values)
    return interval.low, interval.high


def test_bootstrap_interval_is_seeded_and_contains_the_mean() -> None:
    values = [0.1, 0.4, 0.5, 0.9, 0.7, 0.3, 0.8, 0.2]
    low, high = bounds(values)
    assert low is not None and high is not None and low < sum(values) / len(values) < high
    assert bounds(values) == (low, high)
    assert bounds([0.5]) == (None, None) and bounds([]) == (None, None)
    # all-equal and 0/1 scores: Wilson intervals (evaluation.intervals), never the zero-width [1.0, 1.0]
    low3, high3 = bounds([1.0, 1.0, 1.0])
    assert high3 == 1.0 and low3 == pytest.approx(1 - 1.96**2 / (3 + 1.96**2), abs=1e-3)
    assert bounds([0.0, 1.0]) == (pytest.approx(0.0945, abs=1e-3), pytest.approx(0.9055, abs=1e-3))


def test_summary_has_intervals_counts_and_breakdowns() -> None:
    results = [
        {"m": MetricResult.ok(1.0)},
        {"m": MetricResult.ok(0.0)},
        {"m": MetricResult.failed("nope")},
        {"m": MetricResult.ok(0.5)},
    ]
    groups = {"question_type": ["simple", "simple", "reasoning", None], "source": [None] * 4}
    entry = summarise(["m"], results, groups)["m"]
    assert entry["mean"] == pytest.approx(0.5) and entry["rows_scored"] == 3 and entry["rows_failed"] == 1
    assert entry["ci_low"] <= 0.5 <= entry["ci_high"] and entry["confidence_level"] == 0.95
    assert entry["interval_method"] == "expanded percentile bootstrap"
    assert entry["top_failure_reasons"] == [{"reason": "nope", "count": 1}]
    by_type = entry["by_question_type"]
    assert list(by_type) == ["(none)", "reasoning", "simple"]
    assert by_type["reasoning"]["mean"] is None and by_type["reasoning"]["rows_failed"] == 1
    assert by_type["simple"]["mean"] == 0.5 and by_type["simple"]["rows_scored"] == 2
    assert "by_source" not in entry  # no row has a source


def test_pairwise_accuracy_ties_and_failures() -> None:
    assert pairwise_accuracy([0.9, 0.5, 0.2, None], [0.1, 0.5, 0.3, 0.0]) == pytest.approx((1 + 0.5 + 0 + 0) / 4)
    assert pairwise_accuracy([0.1], [None]) == 1.0
    assert pairwise_accuracy([], []) is None


def test_kappa() -> None:
    # predictions [1, 1, 0, 0] vs labels [1, 0, 0, 0]: po = 3/4, pe = 1/2 * 1/4 + 1/2 * 3/4 = 1/2 -> kappa 1/2
    assert kappa_at(0.5)(np.array([0.9, 0.6, 0.1, 0.2]), np.array([1.0, 0, 0, 0])) == pytest.approx(0.5)
    assert isinstance(kappa_at(0.5)(np.array([0.9, 0.9]), np.array([1.0, 1])), Undefined)  # 0/0, sklearn's NaN
