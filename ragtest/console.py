"""What the command line prints: the summary table, the end-of-run description and the dry-run estimate."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragtest import dry_run
from ragtest.config import RunConfig
from ragtest.outputs import model_identity
from ragtest.report_explain import PPI_CORRECTS, interval, number
from ragtest.report_panels import ppi_rows
from ragtest.review.testset_review import reviewed_or_original
from ragtest.run_state import ANSWERS_FILE, SCORES_FILE, TESTSET_FILE, RunState
from ragtest_core.datasets import InputRepairWarning, read_dataset, read_rows, records
from ragtest_core.llm.usage import UsageTracker, load_prices


def format_summary(summary: dict[str, Any]) -> str:
    """The per-metric summary as an aligned text table: mean, its 95% bootstrap interval, rows scored/failed; with
    human labels (`--labels`), the prediction-powered means after it (`format_ppi`)."""
    width = max([22, *(len(name) for name in summary)])
    lines = [f"{'metric':<{width}} {'mean':>6} {'95% CI':>16} {'scored':>7} {'failed':>7}"]
    for name, entry in summary.items():
        span = interval(entry.get("ci_low"), entry.get("ci_high"))
        lines.append(
            f"{name:<{width}} {number(entry.get('mean')):>6} {span:>16} "
            f"{entry.get('rows_scored', 0):>7} {entry.get('rows_failed', 0):>7}"
        )
    return "\n".join([*lines, *format_ppi(summary)])


def format_ppi(summary: dict[str, Any]) -> list[str]:
    """Each labelled metric's prediction-powered mean beside the judge's, with one line on what it corrects; [] when
    no metric has labels."""
    rows = ppi_rows(summary)
    if not rows:
        return []
    width = max([22, *(len(row["metric"]) for row in rows)])
    lines = [
        "",
        "prediction-powered means (judge means corrected by human labels):",
        f"{'metric':<{width}} {'judge':>6} {'PPI':>6} {'PPI 95% CI':>16} {'labels':>7} {'judge bias':>10}",
    ]
    for row in rows:
        lines.append(
            f"{row['metric']:<{width}} {number(row['judge'].get('mean')):>6} {number(row['mean']):>6} "
            f"{interval(row['ci_low'], row['ci_high']):>16} {row['n_labels']:>7} {number(row['judge_bias'], True):>10}"
            + (f"  {row['note']}" if row["note"] else "")
        )
    return [*lines, PPI_CORRECTS]


def describe_run(state: RunState) -> str:
    """What a finished run wrote, its scores, time per stage and LLM usage: this run's own summary (the one it
    holds in memory), never whatever a summary file on disk says."""
    if state.summary is None:
        raise RuntimeError("describe_run needs a scored run (state.summary is None)")
    summary = state.summary
    timings = ", ".join(f"{stage} {seconds:.1f}s" for stage, seconds in state.timings.items())
    lines = [
        f"run directory: {state.run_dir}",
        f"questions: {summary['rows']}  (test set {TESTSET_FILE}, answers {ANSWERS_FILE}, scores {SCORES_FILE})",
        format_summary(summary["metrics"]),
        f"time: {timings}",
        f"report: {state.run_dir / 'report.html'} (and report.md beside it): what each metric measures and how its "
        "scale reads, the rows to look at",
        *(f"warning: {note}" for note in field_notes(summary)),
    ]
    if state.llm is not None:
        lines.append(state.llm.usage.report())
    return "\n".join(lines)


def field_notes(summary: dict[str, Any]) -> list[str]:
    """What the summary says about texts cut to the size limit before scoring (`fields_cut`), in words."""
    cut = summary.get("fields_cut") or {}
    if not cut.get("rows"):
        return []
    fields = ", ".join(f"{name} ({count})" for name, count in sorted((cut.get("fields") or {}).items()))
    return [
        f"{cut['rows']} row(s) had a text longer than {cut['limit']:,} characters ({fields}): scored on its first "
        f"{cut['limit']:,} characters, as each row's reasons say (--max-field-chars)"
    ]


@contextmanager
def input_warnings_shown() -> Iterator[None]:
    """Show each `InputRepairWarning` (a repair made while reading a user's dataset) as a plain
    "ragtest: warning: ..." line on stderr."""
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if issubclass(category, InputRepairWarning):
            print(f"ragtest: warning: {message}", file=sys.stderr)
        else:
            shown(message, category, *args, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("always", InputRepairWarning)
        warnings.showwarning = show
        yield


def dry_run_report(config: RunConfig, command: str, input_path: str | None = None) -> str:
    """What `--dry-run` prints: the estimated LLM calls, tokens and cost of the command (nothing is sent)."""
    if not config.llm.configured:
        return "dry run: no LLM configured (--llm / --llm-base-url): this command makes no LLM call"
    if command == "evaluate" and input_path:
        estimate = dry_run.RunEstimate()
        if config.resolved_judge() == "llm":
            rows = records(read_dataset(Path(input_path)))
            dry_run.estimate_evaluate(estimate, rows, dry_run.metric_names(config), config.repeats)
    elif command == "answer" and input_path:
        estimate = dry_run.RunEstimate()
        if not config.rag:
            questions, texts = dry_run.testset_questions(read_rows(Path(input_path)))
            dry_run.estimate_answer(estimate, questions, config.rag_k, texts)
    elif command == "run" and config.testset:
        estimate = dry_run.estimate_on_testset(config, read_rows(reviewed_or_original(Path(config.testset))))
    else:
        estimate = dry_run.estimate_run(config, generate_only=command == "generate")
    estimate.batch = config.llm.batch
    return estimate.report(usage_for_prices(config))


def usage_for_prices(config: RunConfig) -> UsageTracker:
    """An empty usage tracker for the configured model: what prices an estimate."""
    return UsageTracker(model_identity(config.llm.spec, config.llm.base_url), prices=load_prices(config.llm.prices))
