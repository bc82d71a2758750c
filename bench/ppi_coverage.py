"""Coverage and width of prediction-powered intervals (PPI++) with a judge biased by a known amount, by simulation.

    python -m bench.ppi_coverage [--repetitions 4000] [--labels 50,100,200] [--unlabelled 1000] [--bias 0.1]

For yes/no and graded (yes / partly / no) human labels and each number of labels, prints the share of seeded
repetitions whose 95% interval holds the humans' true mean: PPI++, the labels alone (classical interval) and the
judge alone (its bootstrap-free CLT interval, which its bias keeps off the truth); then the mean widths, the share
of repetitions where PPI is narrower than the labels alone, and the mean power-tuning weight lambda.
See evaluation.ppi_sim for the model; tests/evaluation/test_ppi.py pins 50 and 200 labels.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from evaluation.ppi_sim import simulate


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
