"""Human labels matched to a scored dataset, metric by metric: which rows are labelled, by whom, with what, and
what the judge scored there and on the rows nobody labelled. Agreement (`evaluation.label_agreement`) and
prediction-powered means (`evaluation.ppi`) both start here.

A label row matches a scored row by `sample_id` (else by the question's text). A label whose `answer_id` differs
from the scored row's (the RAG has answered differently since) is stale: left out and counted. With two or more
labellers, a sample's human value is the mean of theirs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from evaluation.ppi import PPIEstimate, ppi_mean
from ragtest_core.datasets import records
from ragtest_core.labels import ANSWER_ID, LABELLER, LEAST_SURE, SELECTION, answer_id, labelled_metrics, row_key
from ragtest_core.schema import SAMPLE_ID

#: Below this many labels the interval's normal approximation is rough (the coverage simulation starts at 50).
FEW_LABELS = 30


def _score(value: Any) -> float | None:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


@dataclass
class LabelledMetric:
    """One metric: the human value and judge score of every labelled row, and the judge's other scores."""

    metric: str
    sample_ids: list[str] = field(default_factory=list)
    labels: list[float] = field(default_factory=list)
    #: The judge's score on each labelled row (None where the judge gave none).
    scores: list[float | None] = field(default_factory=list)
    #: Row index in the scored frame of each labelled row.
    rows: list[int] = field(default_factory=list)
    #: How each labelled row was chosen ("random", "least_sure"; None when the file does not say).
    selections: list[str | None] = field(default_factory=list)
    #: The judge's scores on the rows nobody labelled for this metric.
    unlabelled: list[float] = field(default_factory=list)
    #: Per labeller: sample_id -> value (for agreement between labellers).
    by_labeller: dict[str, dict[str, float]] = field(default_factory=dict)
    stale: int = 0
    unmatched: int = 0

    def scored_pairs(self) -> tuple[list[float], list[float], list[int]]:
        """(judge scores, labels, positions) of the labelled rows the judge scored."""
        kept = [(s, y, i) for i, (s, y) in enumerate(zip(self.scores, self.labels, strict=True)) if s is not None]
        return [k[0] for k in kept], [k[1] for k in kept], [k[2] for k in kept]


def match_labels(
    frame: pd.DataFrame, label_rows: Sequence[Mapping[str, Any]], metrics: Sequence[str] | None = None
) -> dict[str, LabelledMetric]:
    """Every labelled metric that the frame scored (or the ones named), matched row by row."""
    rows = records(frame)
    index = {row_key(row): i for i, row in enumerate(rows)}
    fingerprints = [answer_id(row) for row in rows]
    wanted = [m for m in (metrics or labelled_metrics(label_rows)) if m in frame.columns]
    matched: dict[str, LabelledMetric] = {}
    for metric in wanted:
        entry = LabelledMetric(metric)
        values: dict[str, list[float]] = {}
        selection: dict[str, str | None] = {}
        for label in label_rows:
            value = label.get(metric)
            if value is None:
                continue
            position = index.get(str(label[SAMPLE_ID]))
            if position is None:
                entry.unmatched += 1
                continue
            if label.get(ANSWER_ID) and label[ANSWER_ID] != fingerprints[position]:
                entry.stale += 1
                continue
            key = str(label[SAMPLE_ID])
            values.setdefault(key, []).append(float(value))
            entry.by_labeller.setdefault(str(label[LABELLER]), {})[key] = float(value)
            chosen = label.get(SELECTION)
            selection[key] = LEAST_SURE if LEAST_SURE in (chosen, selection.get(key)) else chosen
        entry.sample_ids, entry.rows = list(values), [index[key] for key in values]
        entry.labels = [sum(given) / len(given) for given in values.values()]
        entry.scores = [_score(rows[position].get(metric)) for position in entry.rows]
        entry.selections = [selection.get(key) for key in values]
        labelled = set(entry.rows)
        entry.unlabelled = [
            score for i, row in enumerate(rows) if i not in labelled and (score := _score(row.get(metric))) is not None
        ]
        matched[metric] = entry
    return matched


@dataclass(frozen=True)
class PPIResult:
    """The PPI estimate of one metric, or why there is none, with what was left out."""

    metric: str
    estimate: PPIEstimate | None
    #: The labels the estimate could use (random rows the judge scored).
    n_labels: int = 0
    note: str = ""

    def summary(self) -> dict[str, Any]:
        """The summary's `ppi` entry (mean and bounds None when there is no estimate, with the note saying why)."""
        if (e := self.estimate) is None:
            entry: dict[str, Any] = {"mean": None, "ci_low": None, "ci_high": None, "n_labels": self.n_labels}
        else:
            entry = {
                "mean": e.mean,
                "ci_low": e.ci_low,
                "ci_high": e.ci_high,
                "n_labels": e.n_labels,
                "n_unlabelled": e.n_unlabelled,
                "lam": e.lam,
                "labels_only": {"mean": e.labels_mean, "ci_low": e.labels_ci_low, "ci_high": e.labels_ci_high},
                "judge_bias": e.judge_bias,
                "confidence_level": e.confidence_level,
                "method": e.method,
            }
        if self.note:
            entry["note"] = self.note
        return entry


def ppi_for(entry: LabelledMetric) -> PPIResult:
    """PPI on the randomly chosen labelled rows the judge scored (rows picked as least sure are left out: they are
    no random sample); labelled rows the judge could not score are left out too, with a note."""
    scores, labels, positions = entry.scored_pairs()
    random_rows = [i for i, p in enumerate(positions) if entry.selections[p] != LEAST_SURE]
    notes = []
    if len(random_rows) < len(positions):
        notes.append(f"{len(positions) - len(random_rows)} label(s) on rows chosen as least sure left out")
    if len(positions) < len(entry.labels):
        notes.append(f"{len(entry.labels) - len(positions)} labelled row(s) without a judge score left out")
    if entry.stale:
        notes.append(f"{entry.stale} stale label(s) (the answer changed since) left out")
    estimate = ppi_mean([labels[i] for i in random_rows], [scores[i] for i in random_rows], entry.unlabelled)
    if estimate is not None and estimate.n_labels < FEW_LABELS:
        notes.append(f"only {estimate.n_labels} labels: the normal interval may be too narrow below {FEW_LABELS}")
    if estimate is None:
        notes.insert(0, f"{len(random_rows)} usable label(s): PPI needs at least 2")
    return PPIResult(entry.metric, estimate, len(random_rows), "; ".join(notes))


def ppi_summaries(
    frame: pd.DataFrame, label_rows: Sequence[Mapping[str, Any]], metrics: Sequence[str]
) -> dict[str, PPIResult]:
    """The PPI result of every metric in `metrics` that has labels."""
    return {m: ppi_for(entry) for m, entry in match_labels(frame, label_rows, metrics).items() if entry.labels}
