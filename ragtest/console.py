"""What the command line prints: the summary table, the end-of-run description and the dry-run estimate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragtest import dry_run
from ragtest.config import RunConfig
from ragtest.review.testset_review import reviewed_or_original
from ragtest.run_state import ANSWERS_FILE, SCORES_FILE, SUMMARY_FILE, TESTSET_FILE, RunState
from ragtest_core.datasets import read_dataset, read_rows, records
from ragtest_core.llm.usage import UsageTracker, load_prices


def format_summary(summary: dict[str, Any]) -> str:
    """The per-metric summary as an aligned text table: mean, its 95% bootstrap interval, rows scored/failed."""
    width = max([22, *(len(name) for name in summary)])
    lines = [f"{'metric':<{width}} {'mean':>6} {'95% CI':>16} {'scored':>7} {'failed':>7}"]
    for name, entry in summary.items():
        mean, low, high = entry.get("mean"), entry.get("ci_low"), entry.get("ci_high")
        interval = f"[{low:.3f}, {high:.3f}]" if low is not None and high is not None else "-"
        lines.append(
            f"{name:<{width}} {'n/a' if mean is None else f'{mean:.3f}':>6} {interval:>16} "
            f"{entry.get('rows_scored', 0):>7} {entry.get('rows_failed', 0):>7}"
        )
    return "\n".join(lines)


def describe_run(state: RunState) -> str:
    """What a finished run wrote, its scores, time per stage and LLM usage."""
    summary = json.loads((state.run_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
    timings = ", ".join(f"{stage} {seconds:.1f}s" for stage, seconds in state.timings.items())
    lines = [
        f"run directory: {state.run_dir}",
        f"questions: {summary['rows']}  (test set {TESTSET_FILE}, answers {ANSWERS_FILE}, scores {SCORES_FILE})",
        format_summary(summary["metrics"]),
        f"time: {timings}",
        f"report: {state.run_dir / 'report.html'} (and report.md beside it)",
    ]
    if state.llm is not None:
        lines.append(state.llm.usage.report())
    return "\n".join(lines)


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
            dry_run.estimate_answer_rows(estimate, read_rows(Path(input_path)), config.rag_k)
    elif command == "run" and config.testset:
        estimate = dry_run.estimate_on_testset(config, read_rows(reviewed_or_original(Path(config.testset))))
    else:
        estimate = dry_run.estimate_run(config, phases=("generate",) if command == "generate" else None)
    estimate.batch = config.llm.batch
    return estimate.report(usage_for_prices(config))


def usage_for_prices(config: RunConfig) -> UsageTracker:
    """An empty usage tracker for the configured model: what prices an estimate."""
    from ragtest_core.llm.spec import model_identity  # here: the module imports LangChain (seconds)

    model_id = model_identity(config.llm.spec, config.llm.base_url)
    return UsageTracker(model_id, prices=load_prices(config.llm.prices_file))
