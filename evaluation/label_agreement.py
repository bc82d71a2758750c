"""How far a judge agrees with a team's own human labels (`ragtest meta-eval --labels LABELS SCORED`).

Per labelled metric: ROC-AUC when the labels are yes/no, Spearman's correlation when they are graded, Cohen's
kappa at the metric's threshold, each with its bootstrap interval and n (`evaluation.label_stats`); the confusion
table at the threshold; the rows where judge and humans disagree (opposite sides of the threshold), largest gap
first; the labelled metrics the scored file has no scores for, named; agreement between labellers when two or
more labelled the same rows; and, for preference pairs (rows sharing a `pair_id`, as WikiEval's), the pairwise
accuracy of the RAGAS paper (the human-preferred side scores higher; a tie counts one half; a side the judge
could not score ranks lowest).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from evaluation.label_stats import (
    Estimate,
    Outcome,
    Undefined,
    bootstrap,
    confusion,
    exact_agreement,
    is_binary,
    kappa_at,
    roc_auc,
    spearman,
    weighted_kappa,
)
from evaluation.labelled import LabelledMetric, match_labels
from evaluation.registry import metric_threshold
from ragtest_core.datasets import records
from ragtest_core.labels import PAIR_ID, labelled_metrics, labellers, row_key
from ragtest_core.schema import ANSWER, QUESTION, SAMPLE_ID, reason_column

DISAGREEING_ROWS = 5
YES_NO = "yes/no"
GRADED = "graded"


@dataclass(frozen=True)
class DisagreeingRow:
    sample_id: str
    question: str
    answer: str
    score: float
    label: float
    reason: str

    @property
    def gap(self) -> float:
        return self.score - self.label


@dataclass(frozen=True)
class LabellerAgreement:
    """Two labellers on the rows both labelled."""

    first: str
    second: str
    exact: float | None
    kappa: Estimate


@dataclass
class MetricAgreement:
    metric: str
    kind: str
    threshold: float
    n_labelled: int
    roc_auc: Estimate | None = None
    spearman: Estimate | None = None
    kappa: Estimate | None = None
    confusion: dict[str, int] = field(default_factory=dict)
    pairwise_accuracy: Estimate | None = None
    disagreeing: list[DisagreeingRow] = field(default_factory=list)
    labellers: list[LabellerAgreement] = field(default_factory=list)
    #: Labelled rows the judge could not score; labels whose row changed since; labels naming no row.
    unscored: int = 0
    stale: int = 0
    unmatched: int = 0


@dataclass
class LabelAgreement:
    rows: int
    labellers: list[str]
    metrics: dict[str, MetricAgreement]
    #: Labelled metrics the scored file has no scores for (no column, or no row scored), with their label count.
    not_scored: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for name, entry in self.metrics.items():
            data["metrics"][name]["headline"] = "roc_auc" if entry.kind == YES_NO else "spearman"
        return data


def _text(row: Mapping[str, Any], column: str) -> str:
    value = row.get(column)
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def disagrees(score: float, label: float, threshold: float) -> bool:
    """Judge and humans disagree on a row when they fall on different sides of the metric's threshold (the
    off-diagonal cells of the confusion table)."""
    return (score >= threshold) != (label >= threshold)


def disagreeing_rows(
    frame: pd.DataFrame, entry: LabelledMetric, threshold: float, limit: int = DISAGREEING_ROWS
) -> list[DisagreeingRow]:
    """The labelled rows where judge and humans disagree at `threshold`, the judge's score farthest from the
    humans' value first; rows where they agree are never listed."""
    rows = records(frame)
    found = []
    for score, label, i in zip(*entry.scored_pairs(), strict=True):
        if not disagrees(score, label, threshold):
            continue
        row = rows[entry.rows[i]]
        found.append(
            DisagreeingRow(
                sample_id=entry.sample_ids[i],
                question=_text(row, QUESTION),
                answer=_text(row, ANSWER),
                score=score,
                label=label,
                reason=_text(row, reason_column(entry.metric)),
            )
        )
    return sorted(found, key=lambda r: -abs(r.gap))[:limit]


def labeller_agreement(entry: LabelledMetric, seed: int) -> list[LabellerAgreement]:
    """Each pair of labellers on the samples both labelled for this metric."""
    found = []
    for first, second in itertools.combinations(sorted(entry.by_labeller), 2):
        a, b = entry.by_labeller[first], entry.by_labeller[second]
        common = sorted(set(a) & set(b))
        x, y = np.array([a[s] for s in common]), np.array([b[s] for s in common])
        found.append(LabellerAgreement(first, second, exact_agreement(x, y), bootstrap(weighted_kappa, x, y, seed)))
    return found


def _pairwise(preferred: np.ndarray, other: np.ndarray) -> Outcome:
    if preferred.size == 0:
        return Undefined("no preference pair")
    return float(np.mean(np.where(preferred > other, 1.0, np.where(preferred == other, 0.5, 0.0))))


def preference_pairs(
    frame: pd.DataFrame, label_rows: Sequence[Mapping[str, Any]], metric: str
) -> tuple[list[float], list[float]]:
    """(preferred side's score, other side's score) for every pair of label rows sharing a `pair_id` whose labels
    differ; a side the judge could not score gets -inf (it ranks lowest)."""
    index = {row_key(row): i for i, row in enumerate(records(frame))}
    column = pd.to_numeric(frame[metric], errors="coerce")
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for label in label_rows:
        pair, value = label.get(PAIR_ID), label.get(metric)
        position = index.get(str(label[SAMPLE_ID]))
        if pair is None or value is None or position is None:
            continue
        score = column.iloc[position]
        groups[str(pair)].append((float(value), float(score) if pd.notna(score) else -np.inf))
    preferred, other = [], []
    for sides in groups.values():
        if len(sides) != 2 or sides[0][0] == sides[1][0]:
            continue
        high, low = sorted(sides, key=lambda side: -side[0])
        preferred.append(high[1])
        other.append(low[1])
    return preferred, other


def metric_agreement(
    frame: pd.DataFrame, label_rows: Sequence[Mapping[str, Any]], entry: LabelledMetric, seed: int = 0
) -> MetricAgreement:
    scores, labels, _ = entry.scored_pairs()
    threshold = metric_threshold(entry.metric)
    kind = YES_NO if is_binary(entry.labels) else GRADED
    result = MetricAgreement(
        metric=entry.metric,
        kind=kind,
        threshold=threshold,
        n_labelled=len(entry.labels),
        kappa=bootstrap(kappa_at(threshold), scores, labels, seed),
        confusion=confusion(scores, labels, threshold),
        disagreeing=disagreeing_rows(frame, entry, threshold),
        labellers=labeller_agreement(entry, seed),
        unscored=len(entry.labels) - len(scores),
        stale=entry.stale,
        unmatched=entry.unmatched,
    )
    if kind == YES_NO:
        result.roc_auc = bootstrap(roc_auc, scores, labels, seed)
    else:
        result.spearman = bootstrap(spearman, scores, labels, seed)
    preferred, other = preference_pairs(frame, label_rows, entry.metric)
    if preferred:
        result.pairwise_accuracy = bootstrap(_pairwise, preferred, other, seed)
    return result


def unscored_labels(
    frame: pd.DataFrame, label_rows: Sequence[Mapping[str, Any]], metrics: Sequence[str] | None
) -> dict[str, int]:
    """Metrics with labels (of those asked for) that the frame has no score for, each with its number of labels."""
    found = {}
    for metric in labelled_metrics(label_rows):
        if metrics and metric not in metrics:
            continue
        if metric not in frame.columns or pd.to_numeric(frame[metric], errors="coerce").isna().all():
            found[metric] = sum(1 for row in label_rows if row.get(metric) is not None)
    return found


def label_agreement(
    frame: pd.DataFrame,
    label_rows: Sequence[Mapping[str, Any]],
    metrics: Sequence[str] | None = None,
    seed: int = 0,
) -> LabelAgreement:
    """Agreement of every labelled metric the frame scored (or those named) with the labels; labelled metrics
    without scores are named in `not_scored`. A row that holds no label (a skip) names no labeller."""
    not_scored = unscored_labels(frame, label_rows, metrics)
    matched = match_labels(frame, label_rows, metrics)
    return LabelAgreement(
        rows=len(frame),
        labellers=labellers(row for row in label_rows if labelled_metrics([row])),
        metrics={
            name: metric_agreement(frame, label_rows, entry, seed)
            for name, entry in matched.items()
            if entry.labels and name not in not_scored
        },
        not_scored=not_scored,
    )


def _short(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _metric_lines(entry: MetricAgreement) -> list[str]:
    lines = [f"{entry.metric} ({entry.kind} labels, {entry.n_labelled} labelled rows, threshold {entry.threshold:g})"]
    if entry.roc_auc is not None:
        lines.append(f"  ROC-AUC            {entry.roc_auc.text()}")
    if entry.spearman is not None:
        lines.append(f"  Spearman           {entry.spearman.text()}")
    if entry.kappa is not None:
        lines.append(f"  Cohen's kappa      {entry.kappa.text()}")
    if entry.pairwise_accuracy is not None:
        lines.append(f"  pairwise accuracy  {entry.pairwise_accuracy.text()} (preference pairs; tie = 1/2)")
    c = entry.confusion
    lines += [
        f"  at {entry.threshold:g}:            human yes  human no",
        f"    judge yes         {c['judge_yes_human_yes']:>9}  {c['judge_yes_human_no']:>8}",
        f"    judge no          {c['judge_no_human_yes']:>9}  {c['judge_no_human_no']:>8}",
    ]
    for pair in entry.labellers:
        exact = "undefined (no row labelled by both)" if pair.exact is None else f"{pair.exact:.2f}"
        lines.append(f"  labellers {pair.first} / {pair.second}: exact agreement {exact}, kappa {pair.kappa.text()}")
    left_out = [
        f"{count} {words}"
        for count, words in (
            (entry.unscored, "labelled row(s) the judge did not score"),
            (entry.stale, "stale label(s): the answer changed since"),
            (entry.unmatched, "label(s) naming no row of the scored file"),
        )
        if count
    ]
    if left_out:
        lines.append("  left out: " + "; ".join(left_out))
    if entry.disagreeing:
        lines.append(f"  most disagreeing rows (judge score vs human label, on opposite sides of {entry.threshold:g}):")
        lines += [
            f"    {row.score:.2f} vs {row.label:.2f}  {_short(row.question, 60)!r} -> {_short(row.answer, 50)!r}"
            for row in entry.disagreeing
        ]
    elif sum(entry.confusion.values()):
        lines.append(f"  no disagreeing row: judge and humans agree at {entry.threshold:g} on every labelled row")
    return lines


def format_label_agreement(report: LabelAgreement) -> str:
    """The agreement as a plain-text table, metric by metric."""
    who = ", ".join(report.labellers) or "nobody"
    lines = [f"agreement with human labels ({report.rows} scored rows; labellers: {who}; 95% bootstrap intervals)"]
    if not report.metrics:
        lines.append("no metric of the scored file has labels")
    for entry in report.metrics.values():
        lines += ["", *_metric_lines(entry)]
    if report.not_scored:
        named = ", ".join(f"{metric} ({count} label(s))" for metric, count in report.not_scored.items())
        lines += ["", f"labels left out, for metric(s) the scored file has no scores for: {named}"]
    return "\n".join(lines)
