"""`ragtest meta-eval`: how far the judge agrees with human labels, a team's own (`--labels LABELS SCORED`) or
WikiEval's (`--wikieval FILE`, the RAGAS paper's table; `--export DIR` writes it as a scored file plus a labels
file, which `--labels` reads back to the same agreement)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evaluation.label_agreement import format_label_agreement, label_agreement
from evaluation.meta_eval import format_table, run_wikieval, wikieval_labelled
from ragtest.config import RunConfig, parse_metric_list
from ragtest.outputs import locate_scored
from ragtest.run_state import open_run
from ragtest_core.datasets import read_dataset, write_dataset
from ragtest_core.errors import RagtestError
from ragtest_core.labels import LABELS_FILE, read_labels, write_labels

EXPORTED_SCORES = "scored.jsonl"


def run_meta_eval(args: argparse.Namespace, config: RunConfig) -> int:
    if args.labels:
        return own_labels(args)
    if args.scored:
        raise RagtestError("a scored run goes with --labels LABELS (meta-eval --labels LABELS SCORED)")
    return wikieval(args, config)


def own_labels(args: argparse.Namespace) -> int:
    """Agreement of a scored run with the team's labels, per labelled metric."""
    if not args.scored:
        raise RagtestError("meta-eval --labels LABELS needs the scored run too: meta-eval --labels LABELS SCORED")
    frame = read_dataset(locate_scored(args.scored).scores)
    report = label_agreement(frame, read_labels(args.labels), parse_metric_list(args.metrics), seed=args.seed)
    if not report.metrics:
        unscored = (
            f" (it labels {', '.join(report.not_scored)}, which have no scores there)" if report.not_scored else ""
        )
        raise RagtestError(f"{args.labels} labels none of the metrics scored in {args.scored}{unscored}")
    print(json.dumps(report.as_dict(), indent=2) if args.json else format_label_agreement(report))
    return 0


def wikieval(args: argparse.Namespace, config: RunConfig) -> int:
    """WikiEval agreement of the chosen judge, as the RAGAS paper's table (or JSON)."""
    if args.judge == "llm" and not config.llm.configured:
        raise RagtestError("--judge llm needs --llm SPEC or --llm-base-url URL")
    with open_run(config, args.out, show_progress=not args.quiet) as state:
        table = run_wikieval(
            args.wikieval, judge=args.judge, llm=state.llm, limit=args.limit, show_progress=not args.quiet
        )
        print(json.dumps(table.as_dict(), indent=2) if args.json else format_table(table))
        if args.export:  # WikiEval's scored sides and human preferences as files a team's own data would be
            frame, rows = wikieval_labelled(Path(args.wikieval), table)
            scored = write_dataset(frame, Path(args.export) / EXPORTED_SCORES)
            labels = write_labels(rows, Path(args.export) / LABELS_FILE)
            print(f"wrote {scored} and {labels}: ragtest meta-eval --labels {labels} {scored}")
        if state.llm is not None:
            print(state.llm.usage.report())
    return 0
