"""Coverage of 95% interval methods for a mean score and a mean paired difference, by simulation (seeded).

    python -m bench.interval_coverage [--repeats 1000] [--sizes 8,15,30,60]

A scenario draws many samples of n scores from a known distribution (`SCENARIOS`: score shapes that RAG metrics
produce); an interval method covers when its interval holds the distribution's true mean. For each scenario and
sample size n, prints the share of seeded samples whose interval holds the true mean, per method: percentile, basic
and BCa (scipy.stats.bootstrap), expanded percentile (Hesterberg), studentized bootstrap-t, Student t, Wilson (0/1
shapes only) and ragtest's rule (`evaluation.intervals.ragtest_rule`, what summaries and comparisons use). Then,
for ragtest's rule, the one-sided miss rates and the mean width. 0.95 is well calibrated; `above`: the interval
lies entirely above the truth, `below`: entirely below (for a regression gate, which fails when a difference's
upper bound is below a threshold, `below` is the false-alarm side). tests/evaluation/test_intervals.py pins the
chosen rule.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from evaluation.intervals import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONFIDENCE_LEVEL,
    expanded_level,
    ragtest_rule,
    scipy_bootstrap,
    scipy_stats,
    wilson,
)

Method = Literal["percentile", "basic", "bca", "expanded", "studentized", "t", "wilson", "ragtest"]
METHODS: tuple[Method, ...] = ("percentile", "basic", "bca", "expanded", "studentized", "t", "wilson", "ragtest")


def studentized(
    data: np.ndarray, level: float, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """The bootstrap-t interval (scipy has none): quantiles of (mean* - mean) / se* around the sample mean.
    A resample without spread counts as an infinite t in the direction it moved."""
    rng = np.random.default_rng(seed)
    rows, n = data.shape
    means = data.mean(axis=1)
    errors = data.std(axis=1, ddof=1) / np.sqrt(n)
    low, high = np.empty(rows), np.empty(rows)
    tails = [0.5 + level / 2, 0.5 - level / 2]
    for i in range(rows):
        resampled = data[i][rng.integers(0, n, (resamples, n))]
        boot_means = resampled.mean(axis=1)
        boot_errors = resampled.std(axis=1, ddof=1) / np.sqrt(n)
        shift = boot_means - means[i]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(boot_errors > 0, shift / boot_errors, np.sign(shift) * np.inf)
        upper_t, lower_t = np.quantile(np.nan_to_num(t, nan=0.0), tails)
        low[i] = means[i] - upper_t * errors[i]
        high[i] = means[i] - lower_t * errors[i]
    return low, high


def student_t(data: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The classic t interval: mean +- t_{n-1} * s / sqrt(n)."""
    n = data.shape[1]
    means = data.mean(axis=1)
    half = scipy_stats().t.ppf(0.5 + level / 2, n - 1) * data.std(axis=1, ddof=1) / np.sqrt(n)
    return means - half, means + half


def raw_interval(
    data: np.ndarray, method: Method, level: float = CONFIDENCE_LEVEL, seed: int = BOOTSTRAP_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """One method on every row of `data` (shape rows x n, n >= 2), as it comes: no rule for special samples."""
    if method in ("percentile", "basic"):
        return scipy_bootstrap(data, method, level, seed=seed)
    if method == "bca":
        return scipy_bootstrap(data, "BCa", level, seed=seed)
    if method == "expanded":
        return scipy_bootstrap(data, "percentile", expanded_level(data.shape[1], level), seed=seed)
    if method == "studentized":
        return studentized(data, level, seed=seed)
    if method == "t":
        return student_t(data, level)
    if method == "wilson":
        return wilson(data, level)
    if method == "ragtest":
        low, high, _ = ragtest_rule(data, (0.0, 1.0), level, seed)
        return low, high
    raise ValueError(f"unknown interval method {method!r}; use one of {', '.join(METHODS)}")


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


def format_table(rows: Sequence[Coverage]) -> str:
    by_cell: dict[tuple[str, int], dict[str, Coverage]] = defaultdict(dict)
    for row in rows:
        by_cell[(row.scenario, row.n)][row.method] = row
    header = f"{'scenario':<52} {'n':>3} " + " ".join(f"{m:>11}" for m in METHODS)
    lines = [header, "-" * len(header)]
    for (scenario, n), cells in by_cell.items():
        values = " ".join(f"{cells[m].coverage:>11.3f}" if m in cells else f"{'-':>11}" for m in METHODS)
        lines.append(f"{scenario:<52} {n:>3} {values}")
    lines += ["", f"ragtest's rule: {'scenario':<43} {'n':>3} {'coverage':>9} {'above':>7} {'below':>7} {'width':>7}"]
    for row in rows:
        if row.method == "ragtest":
            lines.append(
                f"{'':16}{row.scenario:<43} {row.n:>3} {row.coverage:>9.3f} {row.above:>7.3f} "
                f"{row.below:>7.3f} {row.width:>7.3f}"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=1000, help="samples per scenario and size (1000)")
    parser.add_argument("--sizes", default="8,15,30,60", help="sample sizes (8,15,30,60)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    started = time.perf_counter()
    rows = coverage_table(sizes=sizes, repeats=args.repeats)
    print(format_table(rows))
    seconds = time.perf_counter() - started
    print(f"\n{len(SCENARIOS)} scenarios x {len(sizes)} sizes x {args.repeats} samples in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
