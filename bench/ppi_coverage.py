"""Coverage and width of prediction-powered intervals (PPI++) with a judge biased by a known amount, by simulation.

    python -m bench.ppi_coverage [--repetitions 4000] [--labels 50,100,200] [--unlabelled 1000] [--bias 0.1]

For yes/no and graded (yes / partly / no) human labels and each number of labels, prints the share of seeded
repetitions whose 95% interval holds the humans' true mean: PPI++, the labels alone (classical interval) and the
judge alone (its bootstrap-free CLT interval, which its bias keeps off the truth); then the mean widths, the share
of repetitions where PPI is narrower than the labels alone, and the mean power-tuning weight lambda.
tests/evaluation/test_ppi.py pins 50 and 200 labels.

The model: each row has a latent quality q ~ 0.85 * Beta(3, 2) (true mean 0.51). The human label is yes/no
(Bernoulli(q)) or graded (yes / partly / no: q plus noise, rounded to 0, 0.5 or 1). The judge scores q + bias +
N(0, noise) (clipped to [0, 1]; with q <= 0.85 the clipping hardly moves the bias), so it correlates with the labels
and is off by `bias` on average. The judge-only mean misses the truth by the bias; the labels alone cover but are
wide; PPI should cover at the nominal level and be narrower than the labels alone.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.intervals import CONFIDENCE_LEVEL
from evaluation.ppi import classical_batch, ppi_batch

QUALITY_SCALE = 0.85
QUALITY_A, QUALITY_B = 3.0, 2.0


def true_mean(graded: bool) -> float:
    """The humans' mean label over the population (computed once by a large seeded draw for graded labels)."""
    scale_mean = QUALITY_SCALE * QUALITY_A / (QUALITY_A + QUALITY_B)
    if not graded:
        return scale_mean
    rng = np.random.default_rng(12345)
    q = QUALITY_SCALE * rng.beta(QUALITY_A, QUALITY_B, 4_000_000)
    return float(_graded_label(rng, q).mean())


def _graded_label(rng: np.random.Generator, q: np.ndarray) -> np.ndarray:
    return np.clip(np.round(2 * (q + rng.normal(0.0, 0.15, q.shape))) / 2, 0.0, 1.0)


@dataclass(frozen=True)
class CoverageResult:
    labels: int
    unlabelled: int
    graded: bool
    bias: float
    repetitions: int
    ppi_coverage: float
    labels_coverage: float
    judge_coverage: float
    ppi_width: float
    labels_width: float
    #: Share of repetitions where the PPI interval is narrower than the labels-only one.
    ppi_narrower: float
    mean_lambda: float
    measured_bias: float


def simulate(
    labels: int,
    unlabelled: int = 1000,
    bias: float = 0.1,
    noise: float = 0.1,
    graded: bool = False,
    repetitions: int = 4000,
    seed: int = 0,
    level: float = CONFIDENCE_LEVEL,
) -> CoverageResult:
    """Coverage and widths of the PPI, labels-only and judge-only intervals over `repetitions` seeded draws."""
    rng = np.random.default_rng(seed)
    total = labels + unlabelled
    q = QUALITY_SCALE * rng.beta(QUALITY_A, QUALITY_B, (repetitions, total))
    human = _graded_label(rng, q) if graded else (rng.random(q.shape) < q).astype(float)
    judge = np.clip(q + bias + rng.normal(0.0, noise, q.shape), 0.0, 1.0)
    truth = true_mean(graded)
    y, f, u = human[:, :labels], judge[:, :labels], judge[:, labels:]
    _, low, high, lam = ppi_batch(y, f, u, level)
    _, labels_low, labels_high = classical_batch(y, level)
    _, judge_low, judge_high = classical_batch(judge, level)
    return CoverageResult(
        labels=labels,
        unlabelled=unlabelled,
        graded=graded,
        bias=bias,
        repetitions=repetitions,
        ppi_coverage=float(np.mean((low <= truth) & (truth <= high))),
        labels_coverage=float(np.mean((labels_low <= truth) & (truth <= labels_high))),
        judge_coverage=float(np.mean((judge_low <= truth) & (truth <= judge_high))),
        ppi_width=float(np.mean(high - low)),
        labels_width=float(np.mean(labels_high - labels_low)),
        ppi_narrower=float(np.mean((high - low) < (labels_high - labels_low))),
        mean_lambda=float(np.mean(lam)),
        measured_bias=float(judge.mean() - truth),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ppi_coverage", description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=4000)
    parser.add_argument("--labels", default="50,100,200")
    parser.add_argument("--unlabelled", type=int, default=1000)
    parser.add_argument("--bias", type=float, default=0.1)
    parser.add_argument("--noise", type=float, default=0.1)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    header = (
        f"{'labels':<7} {'n':>4} {'PPI cover':>9} {'labels cover':>12} {'judge cover':>11} {'PPI width':>9} "
        f"{'labels width':>12} {'width ratio':>11} {'PPI narrower':>12} {'lambda':>6} {'bias':>6}"
    )
    print(f"judge biased by {args.bias:+.2f} (noise sd {args.noise}), {args.unlabelled} unlabelled rows, "
          f"{args.repetitions} repetitions, nominal 0.95")  # fmt: skip
    print(header)
    print("-" * len(header))
    for graded in (False, True):
        for n in (int(v) for v in args.labels.split(",")):
            r = simulate(n, args.unlabelled, args.bias, args.noise, graded, args.repetitions, seed=1)
            print(
                f"{'graded' if graded else 'yes/no':<7} {n:>4} {r.ppi_coverage:>9.3f} {r.labels_coverage:>12.3f} "
                f"{r.judge_coverage:>11.3f} {r.ppi_width:>9.3f} {r.labels_width:>12.3f} "
                f"{r.ppi_width / r.labels_width:>11.3f} {r.ppi_narrower:>12.3f} {r.mean_lambda:>6.2f} "
                f"{r.measured_bias:>+6.3f}"
            )
    print(f"time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
