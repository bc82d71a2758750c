"""`ragtest review PATH`: the subcommand's arguments and what it does (the page itself: `ragtest.review`)."""

from __future__ import annotations

import argparse
import contextlib

from ragtest.gates import EXIT_OK
from ragtest_core.labels import LEAST_SURE, RANDOM


def add_review_parser(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    review = sub.add_parser(
        "review",
        parents=parents,
        help="review a test set and label answers on a local page (127.0.0.1 only)",
        description="Serve a local page to review a generated test set (accept, edit or reject each question, by "
        "keyboard; the reviewed test set is what `ragtest answer` then uses) and to label a run's answers "
        "(faithfulness, correctness, relevant contexts; saved to labels.jsonl as you go, resumable, one or more "
        "labellers). The page binds 127.0.0.1 only and answers only the browser that opened the printed URL.",
    )
    review.add_argument("path", help="a test set file, a scored (or answered) file, or a run folder")
    review.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one, printed)")
    review.add_argument("--no-browser", action="store_true", help="print the URL only; do not open a browser")
    review.add_argument(
        "--sample",
        choices=(RANDOM, LEAST_SURE.replace("_", "-")),
        default=RANDOM,
        help="the order rows are offered for labelling: seeded random, stratified by question type (the labels "
        "then support prediction-powered intervals), or where the judge was least sure first (default: random)",
    )
    review.add_argument("--seed", type=int, default=0, help="seed of the random order (default: 0)")
    review.add_argument(
        "--rows", type=int, default=None, metavar="N", help="offer only the first N rows of the order (default: all)"
    )
    review.add_argument("--reviewer", default="", help="name recorded with test-set decisions (default: none)")


def run_review(args: argparse.Namespace) -> int:
    """Serve the page until Ctrl+C."""
    from ragtest.review import Labelling, ReviewServer, resolve  # starlette and uvicorn: only for this command

    workspace = resolve(args.path)
    labelling = None
    if workspace.rows is not None and workspace.labels is not None:
        rule = args.sample.replace("-", "_")
        labelling = Labelling(workspace.rows, workspace.labels, rule=rule, seed=args.seed, limit=args.rows)
    server = ReviewServer(workspace, labelling, port=args.port, reviewer=args.reviewer)
    things = [
        f"test set {workspace.testset}" if workspace.testset else "",
        f"answers in {workspace.rows} (labels: {workspace.labels})" if labelling else "",
    ]
    print("ragtest review: " + "; ".join(t for t in things if t))
    print(f"open {server.url}  (Ctrl+C stops the page)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C is how the page is meant to stop
        server.serve(open_browser=not args.no_browser)
    print("ragtest review: stopped; every decision and label given is saved", flush=True)
    return EXIT_OK
