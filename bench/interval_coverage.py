"""Coverage of 95% interval methods for a mean score and a mean paired difference, by simulation.

    python -m bench.interval_coverage [--repeats 1000] [--sizes 8,15,30,60]

For each score shape (evaluation.coverage_sim.SCENARIOS) and sample size n, prints the share of seeded samples whose
interval holds the true mean, per method: percentile, basic and BCa (scipy.stats.bootstrap), expanded percentile
(Hesterberg), studentized bootstrap-t, Student t, Wilson (0/1 shapes only) and ragtest's rule. Then, for ragtest's
rule, the one-sided miss rates and the mean width. 0.95 is well calibrated.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Sequence

from evaluation.coverage_sim import SCENARIOS, Coverage, coverage_table
from evaluation.intervals import METHODS


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
