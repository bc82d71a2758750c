"""`compare` with human labels on both sides: the change of each labelled metric as prediction-powered estimates.

A run's labels are the file its summary names (`evaluate --labels`), else `labels.jsonl` beside its scores. For
a metric labelled in both runs:

- paired, when at least `MIN_PAIRED` matched rows are labelled (randomly chosen, scored) on both sides: PPI++ on
  the row differences, human (new - base) against judge (new - base), with the judge's differences on the other
  matched rows as the unlabelled part (`evaluation.ppi`, bounds [-1, 1]);
- otherwise, each run's own PPI estimate and the difference of the two, its variance the sum of theirs.

The verdict reads the interval: "better" or "worse" when it excludes 0. `compare --fail-if` judges a metric by
this interval when there is one (the labels correct the judge's bias, so it is the better-founded change).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from evaluation.compare_stats import BETTER, NO_CHANGE, WORSE, interval_direction
from evaluation.labelled import LabelledMetric, match_labels, ppi_for
from evaluation.ppi import combined_difference, ppi_mean
from evaluation.registry import higher_is_better
from ragtest.scored_runs import Matching, ScoredRun
from ragtest_core.labels import LABELS_FILE, LEAST_SURE, read_labels

#: Fewest rows labelled on both sides for the paired estimate.
MIN_PAIRED = 10


@dataclass(frozen=True)
class PPIChange:
    """A metric's change between two labelled runs, both means and the change as PPI estimates."""

    metric: str
    base_mean: float | None
    new_mean: float | None
    change: float | None
    ci_low: float | None
    ci_high: float | None
    paired: bool
    n_labels: int
    verdict: str
    note: str = ""


def labels_of(run: ScoredRun) -> tuple[list[dict[str, Any]], Path] | None:
    """The run's label rows and their file, or None when it has none."""
    recorded = (run.summary.get("labels") or {}).get("file")
    for candidate in (Path(recorded) if recorded else None, run.path.parent / LABELS_FILE):
        if candidate is not None and candidate.is_file():
            return read_labels(candidate), candidate
    return None


def _usable(entry: LabelledMetric) -> dict[int, tuple[float, float]]:
    """Row index -> (label, judge score) of the randomly chosen labelled rows the judge scored."""
    rows = zip(entry.rows, entry.labels, entry.scores, entry.selections, strict=True)
    return {row: (label, score) for row, label, score, how in rows if score is not None and how != LEAST_SURE}


def _verdict(low: float | None, high: float | None, change: float | None, metric: str) -> str:
    """Better or worse when the interval excludes 0 (a drop is better where lower is better), else no change."""
    if low is None or high is None or change is None:
        return "no estimate"
    direction = interval_direction(low, high)
    if direction:
        return BETTER if (direction > 0) == higher_is_better(metric) else WORSE
    return NO_CHANGE


def metric_change(
    base: ScoredRun,
    new: ScoredRun,
    matching: Matching,
    metric: str,
    labels: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> PPIChange | None:
    base_entry = match_labels(base.frame, labels[0], [metric]).get(metric)
    new_entry = match_labels(new.frame, labels[1], [metric]).get(metric)
    if base_entry is None or new_entry is None or not base_entry.labels or not new_entry.labels:
        return None
    base_ppi, new_ppi = ppi_for(base_entry), ppi_for(new_entry)
    left, right = _usable(base_entry), _usable(new_entry)
    base_scores, new_scores = (pd.to_numeric(run.frame[metric], errors="coerce") for run in (base, new))
    y, f, u = [], [], []
    for i, j in matching.pairs:
        if i in left and j in right:
            y.append(right[j][0] - left[i][0])
            f.append(right[j][1] - left[i][1])
        elif pd.notna(difference := new_scores.iloc[j] - base_scores.iloc[i]):
            u.append(float(difference))
    b_mean = base_ppi.estimate.mean if base_ppi.estimate else None
    n_mean = new_ppi.estimate.mean if new_ppi.estimate else None
    if len(y) >= MIN_PAIRED and (paired := ppi_mean(y, f, u, bounds=(-1.0, 1.0))) is not None:
        change, low, high = paired.mean, paired.ci_low, paired.ci_high
        return PPIChange(metric, b_mean, n_mean, change, low, high, True, len(y), _verdict(low, high, change, metric))
    if base_ppi.estimate is None or new_ppi.estimate is None:
        note = "; ".join(n for n in (base_ppi.note, new_ppi.note) if n) or "too few labels"
        return PPIChange(metric, b_mean, n_mean, None, None, None, False, 0, "no estimate", note)
    change, low, high = combined_difference(base_ppi.estimate, new_ppi.estimate)
    note = f"{len(y)} row(s) labelled on both sides (paired needs {MIN_PAIRED}): the two runs' estimates combined"
    labelled = base_ppi.estimate.n_labels + new_ppi.estimate.n_labels
    return PPIChange(
        metric, b_mean, n_mean, change, low, high, False, labelled, _verdict(low, high, change, metric), note
    )


def ppi_changes(
    base: ScoredRun, new: ScoredRun, matching: Matching, metrics: Sequence[str]
) -> tuple[dict[str, PPIChange], list[str]]:
    """Each metric's PPI change when both runs have labels (else nothing), and notes naming the label files."""
    base_labels, new_labels = labels_of(base), labels_of(new)
    if base_labels is None or new_labels is None:
        return {}, []
    labels = (base_labels[0], new_labels[0])
    found = {m: change for m in metrics if (change := metric_change(base, new, matching, m, labels)) is not None}
    notes = [f"human labels: {base_labels[1]} (base), {new_labels[1]} (new)"] if found else []
    return found, notes
