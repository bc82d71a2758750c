"""Trust on a team's own data, where the pipeline meets it: human labels turned into prediction-powered means in
the summary (`evaluate --labels`, `run --labels`), and a run that starts from an existing, reviewed test set
(`run --testset`).

summary.json gains, per labelled metric, `ppi: {mean, ci_low, ci_high, n_labels, n_unlabelled, lam, labels_only,
judge_bias, note}` (`evaluation.ppi`), and at the top `labels: {file, labellers, rows, metrics}`, which `compare`
reads to find each run's labels. A row of the labels file that gives no metric a value (a row skipped on the review
page: `ragtest.review.labelling.is_label`) is no label: it counts in neither `rows` nor `labellers`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evaluation.engine import EvaluationResult
from evaluation.labelled import ppi_summaries
from ragtest.review.labelling import is_label
from ragtest.run_state import RunState
from ragtest_core.labels import labelled_metrics, labellers, read_labels


def attach_ppi(state: RunState, result: EvaluationResult) -> None:
    """Add the PPI estimate of every labelled metric to `result.summary` (and the labels' record to the stats)."""
    if not state.config.labels:
        return
    path = Path(state.config.labels).resolve()
    rows = [row for row in read_labels(path) if is_label(row)]  # a skipped row labels nothing
    found = ppi_summaries(result.frame, rows, result.metric_names)
    for metric, ppi in found.items():
        result.summary[metric]["ppi"] = ppi.summary()
    state.stats["labels"] = {
        "file": str(path),
        "labellers": labellers(rows),
        "rows": len(rows),
        "metrics": sorted(found),
    }
    unmatched = [m for m in labelled_metrics(rows) if m not in result.summary]
    if not found:
        print(f"ragtest: note: {path} labels none of the metrics scored here", file=sys.stderr)
    elif unmatched:
        print(f"ragtest: note: labels of metrics not scored here are left out: {', '.join(unmatched)}", file=sys.stderr)
