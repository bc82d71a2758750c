"""Paired statistics of two runs: the verdict needs the interval and the permutation test to agree."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from evaluation.compare_stats import (
    BETTER,
    NO_CHANGE,
    TOO_FEW,
    UNCHANGED,
    WORSE,
    changed_p_value,
    paired_breakdown,
    paired_stats,
    ties_as_zero,
)


def exact_sign_flip(differences: np.ndarray) -> float:
    """Every sign assignment enumerated: the share with |mean| at least the observed one."""
    observed = abs(differences.mean())
    means = [
        abs(np.mean(differences * np.array(signs))) for signs in itertools.product((1, -1), repeat=differences.size)
    ]
    return float(np.mean(np.array(means) >= observed - 1e-12))


def test_a_clear_drop_is_worse_with_counts() -> None:
    base = [1.0] * 12 + [0.5, 0.5, 0.0]
    new = [0.0] * 9 + [1.0] * 3 + [0.5, 0.5, 0.0]
    stats = paired_stats(base, new)
    assert stats.verdict == WORSE
    assert (stats.wins, stats.losses, stats.ties) == (0, 9, 6) and stats.n == 15
    assert stats.difference == pytest.approx(-9 / 15) and stats.ci_high < 0 and stats.p_value < 0.01
    flipped = paired_stats(new, base)
    assert flipped.verdict == BETTER and flipped.ci_low > 0


def test_p_value_matches_exact_enumeration() -> None:
    rng = np.random.default_rng(4)
    base, new = rng.random(10), rng.random(10)
    assert changed_p_value(ties_as_zero(new - base)) == pytest.approx(exact_sign_flip(new - base), abs=1e-9)


def test_small_or_no_change_says_nothing_can_be_concluded() -> None:
    few = paired_stats([1.0] * 15, [0.0] * 3 + [1.0] * 12)
    assert few.verdict == TOO_FEW and "p would be 0.25" in few.note
    same = paired_stats([0.3, 0.7, 1.0], [0.3, 0.7, 1.0])
    assert same.verdict == UNCHANGED and same.changed == 0 and same.ci_low is not None and same.ci_low < 0
    noise = paired_stats(np.linspace(0, 1, 20), np.linspace(0, 1, 20)[::-1])
    assert noise.verdict == NO_CHANGE and noise.p_value > 0.5
    assert paired_stats([], []).n == 0


def test_breakdown_by_label() -> None:
    groups = paired_breakdown([1.0, 1.0, 0.0], [0.0, 1.0, 1.0], ["simple", None, "simple"])
    assert list(groups) == ["(none)", "simple"]
    assert groups["simple"].wins == 1 and groups["simple"].losses == 1 and groups["(none)"].ties == 1


def test_a_drop_is_better_for_a_metric_where_lower_is_better() -> None:
    from evaluation.compare_stats import paired_stats
    from evaluation.registry import higher_is_better

    base, new = [0.6] * 12, [0.1] * 12  # hallucination fell on every row
    assert not higher_is_better("hallucination") and higher_is_better("faithfulness")
    turned = paired_stats(base, new, higher_is_better=False)
    assert turned.verdict == "better" and turned.wins == 12 and turned.losses == 0
    assert paired_stats(base, new).verdict == "worse"


def test_floating_point_noise_is_a_tie_everywhere() -> None:
    rng = np.random.default_rng(7)
    base = rng.random(30)
    noise = paired_stats(base, base + rng.choice([-1, 1], 30) * 1e-10)
    assert noise.verdict == UNCHANGED and noise.changed == 0 and noise.p_value is None and noise.difference == 0.0
    # six real drops among 24 noisy ties: the p-value is the exact one over the six, as if the ties were exact
    new = base + rng.choice([-1, 1], 30) * 1e-10
    new[:6] -= 0.3
    mixed = paired_stats(base, new)
    assert (mixed.wins, mixed.losses, mixed.ties) == (0, 6, 24)
    assert mixed.p_value == pytest.approx(exact_sign_flip(np.full(6, -0.3))) == pytest.approx(2 / 64)
    assert mixed.p_value == paired_stats(base, np.where(np.arange(30) < 6, new, base)).p_value
