"""The interval rule of summaries and comparisons, and its coverage on 0/1-heavy scores at n = 15 (simulation).

The full table (every method, n = 8..60) is `python -m bench.interval_coverage`; this pins the chosen rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from bench.interval_coverage import SCENARIOS, coverage
from evaluation.intervals import ALL_EQUAL, EXPANDED, WILSON, difference_ci, expanded_level, mean_ci, mean_cis

REPEATS = 400


def test_the_issue_example_fourteen_zeros_and_a_one_gets_wilson() -> None:
    interval = mean_ci([0.0] * 14 + [1.0])
    assert interval.method == WILSON
    assert (interval.low, interval.high) == (pytest.approx(0.0119, abs=1e-4), pytest.approx(0.2982, abs=1e-4))


def test_constant_scores_are_not_a_zero_width_interval() -> None:
    perfect = mean_ci([1.0] * 15)
    assert perfect.method == WILSON and perfect.high == 1.0 and perfect.low == pytest.approx(0.796, abs=1e-3)
    flat = mean_ci([0.5] * 15)  # not 0/1: the all-equal bound, a share z^2/(n+z^2) of the way to either end
    assert flat.method == ALL_EQUAL and flat.low == pytest.approx(0.5 - 0.204 * 0.5, abs=1e-3)
    tied = difference_ci([0.0] * 15)
    assert tied.method == ALL_EQUAL and (tied.low, tied.high) == (
        pytest.approx(-0.204, abs=1e-3),
        pytest.approx(0.204, abs=1e-3),
    )


def test_continuous_scores_use_the_seeded_expanded_bootstrap() -> None:
    values = [0.2, 0.5, 0.9, 1, 1, 1, 0.7, 0.3, 0.8, 1, 1, 0.6, 0.9, 1, 0.4]
    interval = mean_ci(values)
    assert interval.method == EXPANDED and interval.low < np.mean(values) < interval.high
    assert mean_ci(values) == interval
    assert mean_ci([0.3]).low is None and difference_ci([]).high is None
    assert 0.97 < expanded_level(15) < 0.98 and expanded_level(1000) == pytest.approx(0.95, abs=1e-3)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name.split(":")[0])
def test_the_rule_is_calibrated_at_n15(scenario) -> None:  # type: ignore[no-untyped-def]
    result = coverage(scenario, "ragtest", n=15, repeats=REPEATS, seed=15)
    assert 0.88 <= result.coverage <= 0.99, result
    if scenario.paired:  # a gate fails when the upper bound is below the truth: that side must stay rare
        assert result.below <= 0.045, result


def test_the_rule_beats_bca_where_bca_fails() -> None:
    scenario = SCENARIOS[0]  # binary p = 0.07: a third of the samples are all zeros, where BCa gives [0, 0]
    bca = coverage(scenario, "bca", n=15, repeats=REPEATS, seed=15)
    ours = coverage(scenario, "ragtest", n=15, repeats=REPEATS, seed=15)
    assert bca.coverage < 0.75 < 0.88 < ours.coverage


def test_batched_intervals_equal_one_at_a_time() -> None:
    """The report computes hundreds of group intervals in batches of one length: the same numbers as mean_ci."""
    rng = np.random.default_rng(4)
    samples = [rng.random(n).tolist() for n in (3, 5, 3, 7, 5)] + [[0.0, 1.0, 1.0], [1.0] * 4, [0.5]]
    assert mean_cis(samples) == [mean_ci(sample) for sample in samples]
