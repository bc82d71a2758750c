"""The `ragtest` command: generate, answer, evaluate, run (all three into one run directory), and compare.

Exit codes: 0 = done (and every gate passed); 1 = a gate failed (--fail-if, --fail-under) or every row failed
(answer, evaluate); 2 = a usage or input error (bad flags, missing file or column, runs that cannot be compared), or a
test set short of --size (its questions written and marked partial: --allow-fewer accepts them); 130 = interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragtest import console, steps
from ragtest.cli_args import build_parser, config_from_args
from ragtest.cli_compare import run_compare
from ragtest.cli_meta_eval import run_meta_eval
from ragtest.cli_review import run_review
from ragtest.config import RunConfig
from ragtest.dry_run import metric_names
from ragtest.gates import (
    EXIT_GATE_FAILED,
    EXIT_USAGE,
    GateRule,
    check_fail_under,
    check_rule_metrics,
    format_gate,
    gate_exit_code,
    parse_fail_under,
)
from ragtest.manifest import stage_manifest_path, write_manifest
from ragtest.outputs import OutputPaths, input_manifest, write_scored
from ragtest.refresh.command import run_refresh
from ragtest.run_state import RunState, open_run
from ragtest.settings import config_secrets
from ragtest_core.datasets import input_file, output_file, read_dataset, read_rows
from ragtest_core.errors import RagtestError
from ragtest_core.redact import scrub

EXIT_INTERRUPTED = 130
#: A reader closed the pipe (`ragtest ... | head`): what a shell reports for a command ended by SIGPIPE.
EXIT_BROKEN_PIPE = 141


def _command(args: argparse.Namespace, secrets: list[str]) -> int:
    if args.command == "compare":
        return run_compare(args)
    if args.command == "review":
        return run_review(args)
    config = config_from_args(args)
    secrets.extend(config_secrets(config))
    if args.command == "meta-eval":
        return run_meta_eval(args, config)
    if args.command == "refresh":
        return run_refresh(args, config)
    if args.dry_run:
        print(console.dry_run_report(config, args.command, getattr(args, "input", None)))
        return 0
    gate = parse_fail_under(args.fail_under) if getattr(args, "fail_under", None) else []
    check_rule_metrics(gate, metric_names(config), "--fail-under")
    if args.command == "run":
        state = steps.run(config, args.out, show_progress=not args.quiet, columns=args.columns)
        print(console.describe_run(state))
        return _finish_scoring(state.summary or {}, gate)
    if args.command == "generate":
        return _generate(args, config)
    if args.command == "answer":
        return _answer(args, config)
    return _evaluate(args, config, gate)


def _generate(args: argparse.Namespace, config: RunConfig) -> int:
    output = output_file(args.output)
    with open_run(config, output.parent, show_progress=not args.quiet) as state:
        try:  # the store: --store, else 'chroma' beside the output
            samples = steps.generate_testset(state, output=output, store_dir=Path(args.store) if args.store else None)
        except RagtestError as exc:  # a failed generate still records what it tried: candidates, rejections
            state.stats["error"] = str(exc)
            path = write_manifest(state, stage_manifest_path(output))
            raise RagtestError(f"{exc} (the run's manifest: {path})") from exc
        print(f"wrote {len(samples)} questions to {output}")
        _finish_stage(state, output)
    return 0


def _evaluate(args: argparse.Namespace, config: RunConfig, gate: list[GateRule]) -> int:
    source, output = input_file(args.input), output_file(args.output)
    with open_run(config, output.parent, show_progress=not args.quiet) as state:
        result = steps.evaluate_frame(state, read_dataset(source))  # ragtest's or ragas' column names
        # the report takes the adapter, seed and generation warnings from the input's manifest
        paths = OutputPaths.beside(output)
        document = write_scored(state, result, paths, args.columns, input_manifest(source))
        print(f"wrote {document['rows']} scored rows to {output} (report: {paths.report_html})")
        print(console.format_summary(document["metrics"]))
        for note in console.field_notes(document):
            print(f"ragtest: warning: {note}", file=sys.stderr)
        _finish_stage(state, output)
    return _finish_scoring(document, gate)


def _answer(args: argparse.Namespace, config: RunConfig) -> int:
    """`answer`: every question through the RAG under test; exit 1 when every one of them failed."""
    source = steps.testset_to_answer(input_file(args.input))
    output = output_file(args.output)
    samples = read_rows(source, required=("question",))
    with open_run(config, output.parent, show_progress=not args.quiet) as state:
        store_dir = steps.inherit_testset(state, source, Path(args.store) if args.store else None)
        rows = steps.answer_testset(state, samples, output=output, store_dir=store_dir, columns=args.columns)
        errors = [row["answer_error"] for row in rows if row.get("answer_error")]
        print(f"wrote {len(rows)} answers to {output} ({len(errors)} with errors)")
        _finish_stage(state, output)
    if rows and len(errors) == len(rows):
        print(f"ragtest: every question failed in the RAG under test; the first error: {errors[0]}", file=sys.stderr)
        return EXIT_GATE_FAILED
    return 0


def _finish_stage(state: RunState, output: Path) -> None:
    """The stage's manifest beside its output, then the LLM usage when an LLM was used."""
    write_manifest(state, stage_manifest_path(output))
    if state.llm is not None:
        print(state.llm.usage.report())


def _finish_scoring(document: dict[str, Any], gate: list[GateRule]) -> int:
    """After scoring: exit 1 when no row got any score, else the --fail-under gate's verdict."""
    rows, unscored = document.get("rows", 0), document.get("rows_without_any_score", 0)
    if rows and unscored == rows:
        print(f"ragtest: every row failed: none of the {rows} rows got a score (see the reasons)", file=sys.stderr)
        return EXIT_GATE_FAILED
    if gate:
        results = check_fail_under(document.get("metrics") or {}, gate)
        print(format_gate(results))
        return gate_exit_code(results)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a reader that closed the pipe (`ragtest ... | head`) ends it quietly with 141.

    Piped stdout is block-buffered unless PYTHONUNBUFFERED is set, so a closed pipe often shows only when the buffer
    is flushed: stdout is flushed here, before returning (and before `--help`'s SystemExit leaves), so that the
    BrokenPipeError comes while it can be handled, not in Python's own flush at exit (which would exit 120).
    """
    try:
        try:
            return _parse_and_run(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        # the reader is gone: stop quietly, and keep Python's own flush at exit from raising again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _parse_and_run(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    secrets: list[str] = []  # the run's secret values, kept out of every message
    try:
        with console.input_warnings_shown():
            return _command(args, secrets)
    except RagtestError as exc:
        print(f"ragtest: error: {scrub(str(exc), secrets)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ragtest: interrupted; re-run the same command to resume", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
