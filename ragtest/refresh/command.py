"""`ragtest refresh --testset OLD --source NEW --output NEW_SET`: the subcommand's arguments and what it does."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragtest.config import RunConfig
from ragtest.refresh.pipeline import dry_run_report, plan, refresh
from ragtest.run_state import STORE_DIR
from ragtest_core.datasets import output_file


def add_refresh_parser(
    sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]
) -> argparse.ArgumentParser:
    cmd = sub.add_parser(
        "refresh",
        parents=parents,
        help="carry a test set onto new versions of its sources: keep, move, update or retire each row, fill to size",
        description="Refresh a test set when its documents change. Each row's gold evidence is looked for by content "
        "in the new sources (read with the settings the old set's manifest records): kept, moved (ids remapped), "
        "updated (the writer answers the question again from the new text, the critic checks it) or retired; new "
        "questions fill the set back to its size. Writes the new set, <stem>.changelog.json and .changelog.md, "
        "and carries review decisions on kept and moved rows.",
    )
    cmd.add_argument(
        "--testset",
        required=True,
        metavar="FILE",
        help="the old test set (its manifest beside it); without --source or --topic(s), its own sources are read "
        "again",
    )
    cmd.add_argument("--output", required=True, help="the refreshed test set: .jsonl, .csv or .parquet")
    cmd.add_argument("--store", metavar="DIR", help="vector store folder (default: 'chroma' beside the output)")
    cmd.add_argument(
        "--dry-run", action="store_true", help="say what would change and what it would cost; write nothing"
    )
    return cmd


def run_refresh(args: argparse.Namespace, config: RunConfig) -> int:
    planned = plan(config, Path(args.testset))
    if args.dry_run:
        print(dry_run_report(planned))
        return 0
    output = output_file(args.output)
    store_dir = Path(args.store) if args.store else output.parent / STORE_DIR
    refresh(planned, output, store_dir, show_progress=not args.quiet)
    return 0
