"""`ragtest compare BASE NEW [--fail-if ...]`: the subcommand's arguments and what it does."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragtest.compare_report import compare, format_comparison, write_compare_report
from ragtest.gates import EXIT_OK, check_fail_if, format_gate, gate_exit_code, parse_fail_if

DEFAULT_OUT = "ragtest-compare"


def add_compare_parser(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    cmp = sub.add_parser(
        "compare",
        parents=parents,
        help="compare two scored runs of one test set (run directories or scored files)",
        description="Compare two scored runs of one test set, metric by metric, with paired 95%% intervals and a "
        "paired permutation test. Exit codes: 0 = done (gate passed), 1 = a --fail-if rule failed, 2 = usage or "
        "input error (e.g. the runs have different test sets or judge settings).",
    )
    cmp.add_argument("base", help="the baseline: a run directory or a scored file (scores.jsonl, ...)")
    cmp.add_argument("new", help="the run to judge against the baseline")
    cmp.add_argument(
        "--fail-if",
        help='exit 1 when a change is a significant drop, e.g. "faithfulness<-0.02,context_recall<-0.05": a rule '
        "fails when the upper bound of the 95%% interval of the change (new - base) is below its threshold "
        "(default: no gate)",
    )
    cmp.add_argument(
        "--metrics", help="compare only these metrics, comma-separated (default: every metric both runs scored)"
    )
    cmp.add_argument(
        "--allow-different",
        action="store_true",
        help="compare even when the test sets or scoring settings differ (the matched rows only, with a note)",
    )
    cmp.add_argument("--out", default=DEFAULT_OUT, help=f"folder for compare.json/.md/.html (default: {DEFAULT_OUT})")
    cmp.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and permutation test (default: 0)")
    cmp.add_argument("--rows", type=int, default=3, help="changed rows to print; the report lists more (default: 3)")


def run_compare(args: argparse.Namespace) -> int:
    metrics = [m.strip() for m in (args.metrics or "").split(",") if m.strip()] or None
    rules = parse_fail_if(args.fail_if) if args.fail_if else []
    comparison = compare(args.base, args.new, allow_different=args.allow_different, metrics=metrics, seed=args.seed)
    gate = check_fail_if(comparison, rules) if rules else []
    paths = write_compare_report(Path(args.out), comparison, gate)
    print(format_comparison(comparison, rows=args.rows))
    print(f"report: {paths[-1]} (and {paths[0].name}, {paths[1].name})")
    if gate:
        print(format_gate(gate))
        return gate_exit_code(gate)
    return EXIT_OK
