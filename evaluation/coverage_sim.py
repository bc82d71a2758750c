"""Coverage of the interval methods on score shapes that RAG metrics produce, by simulation (seeded).

A scenario draws many samples of n scores from a known distribution; an interval method covers when its interval
holds the distribution's true mean. Coverage near 0.95 is well calibrated; the two one-sided miss rates say where
a method fails (`above`: the interval lies entirely above the truth; `below`: entirely below). For a regression
gate, which fails when a difference's upper bound is below a threshold, `below` is the false-alarm side.

`python -m bench.interval_coverage` prints the full table; tests/evaluation/test_intervals.py pins the chosen rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.intervals import CONFIDENCE_LEVEL, METHODS, Method, ragtest_rule, raw_interval

Draw = Callable[[np.random.Generator, int, int], np.ndarray]


@dataclass(frozen=True)
class Scenario:
    """A distribution of scores (or of paired differences) with its true mean."""

    name: str
    draw: Draw
    true_mean: float
    paired: bool = False

    @property
    def bounds(self) -> tuple[float, float]:
        return (-1.0, 1.0) if self.paired else (0.0, 1.0)


def _binary(p: float) -> Draw:
    return lambda rng, rows, n: (rng.random((rows, n)) < p).astype(float)


def _faithfulness_like(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """55% exactly 1.0, 15% exactly 0.0, the rest Beta(4, 2): what a faithfulness column looks like."""
    u = rng.random((rows, n))
    return np.where(u < 0.55, 1.0, np.where(u < 0.70, 0.0, rng.beta(4, 2, (rows, n))))


_THIRDS = np.array([0.0, 1 / 3, 2 / 3, 1.0])
_THIRDS_P = np.array([0.1, 0.1, 0.2, 0.6])


def _thirds(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """Recall over three reference sentences: 0, 1/3, 2/3 or 1, mostly 1."""
    return rng.choice(_THIRDS, (rows, n), p=_THIRDS_P)


def _skewed(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    return rng.beta(2, 5, (rows, n))


def _paired_binary(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """A 0/1 metric, new - base: 15% of rows lost (-1), 5% won (+1), the rest tied."""
    u = rng.random((rows, n))
    return np.where(u < 0.15, -1.0, np.where(u < 0.20, 1.0, 0.0))


def _paired_ties(shift: float) -> Draw:
    """60% of rows tied; the others changed by N(shift, 0.2) (clipped to [-1, 1], which moves the mean < 1e-5)."""

    def draw(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
        changed = np.clip(rng.normal(shift, 0.2, (rows, n)), -1.0, 1.0)
        return np.where(rng.random((rows, n)) < 0.6, 0.0, changed)

    return draw


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("binary p=0.07 (about one 1 in 15)", _binary(0.07), 0.07),
    Scenario("binary p=0.3", _binary(0.3), 0.3),
    Scenario("faithfulness-like: 55% 1.0, 15% 0.0, rest Beta(4,2)", _faithfulness_like, 0.55 + 0.30 * 4 / 6),
    Scenario("recall over 3 sentences: 0,1/3,2/3,1", _thirds, float(_THIRDS @ _THIRDS_P)),
    Scenario("skewed continuous: Beta(2,5)", _skewed, 2 / 7),
    Scenario("paired 0/1: 15% lost, 5% won", _paired_binary, -0.10, paired=True),
    Scenario("paired, 60% tied, others N(-0.08,0.2)", _paired_ties(-0.08), 0.4 * -0.08, paired=True),
    Scenario("paired, 60% tied, others N(0,0.2)", _paired_ties(0.0), 0.0, paired=True),
)


@dataclass(frozen=True)
class Coverage:
    scenario: str
    method: str
    n: int
    coverage: float
    above: float
    below: float
    width: float


def intervals_for(
    scenario: Scenario, method: Method, data: np.ndarray, level: float = CONFIDENCE_LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """Every row's interval by `method`; the plain methods give a constant sample the zero-width [c, c]."""
    if method == "ragtest":
        low, high, _ = ragtest_rule(data, scenario.bounds, level)
        return low, high
    low, high = raw_interval(data, method, level)
    constant = np.all(data == data[:, :1], axis=1)
    if method != "wilson":
        low, high = np.where(constant, data[:, 0], low), np.where(constant, data[:, 0], high)
    return np.nan_to_num(low, nan=-np.inf), np.nan_to_num(high, nan=np.inf)


def coverage(
    scenario: Scenario, method: Method, n: int, repeats: int = 1000, seed: int = 0, level: float = CONFIDENCE_LEVEL
) -> Coverage:
    """How often `method`'s interval holds the true mean over `repeats` samples of size n (seeded)."""
    data = scenario.draw(np.random.default_rng(seed), repeats, n)
    low, high = intervals_for(scenario, method, data, level)
    truth = scenario.true_mean
    tol = 1e-12
    return Coverage(
        scenario=scenario.name,
        method=method,
        n=n,
        coverage=float(np.mean((low <= truth + tol) & (truth - tol <= high))),
        above=float(np.mean(low > truth + tol)),
        below=float(np.mean(high < truth - tol)),
        width=float(np.mean(np.clip(high, *scenario.bounds) - np.clip(low, *scenario.bounds))),
    )


def coverage_table(
    sizes: Sequence[int] = (8, 15, 30, 60),
    methods: Sequence[Method] = METHODS,
    scenarios: Sequence[Scenario] = SCENARIOS,
    repeats: int = 1000,
) -> list[Coverage]:
    """Coverage of every method on every scenario and sample size (the same samples for every method)."""
    rows = []
    for index, scenario in enumerate(scenarios):
        for n in sizes:
            for method in methods:
                if method == "wilson" and scenario.paired:
                    continue
                rows.append(coverage(scenario, method, n, repeats, seed=1000 * index + n))
    return rows
