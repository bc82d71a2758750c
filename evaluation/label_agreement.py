"""How far a judge agrees with a team's own human labels (`ragtest meta-eval --labels LABELS SCORED`), metric by
metric: what is reported, and how it reads, is on docs/trust.md ("Agreement"); the statistics are
`evaluation.label_stats`.
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
    pairwise_accuracy,
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


def disagreeing_rows(frame: pd.DataFrame, entry: LabelledMetric, threshold: float) -> list[DisagreeingRow]:
    """The labelled rows where judge and humans disagree at `threshold` (fall on different sides of it: the
    off-diagonal cells of the confusion table), the judge's score farthest from the humans' value first."""
    rows = records(frame)
    found = []
    for score, label, i in zip(*entry.scored_pairs(), strict=True):
        if (score >= threshold) != (label >= threshold):
            row = rows[entry.rows[i]]
            question, answer, reason = (_text(row, c) for c in (QUESTION, ANSWER, reason_column(entry.metric)))
            found.append(DisagreeingRow(entry.sample_ids[i], question, answer, score, label, reason))
    return sorted(found, key=lambda r: -abs(r.gap))[:DISAGREEING_ROWS]


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
    found = pairwise_accuracy(preferred, other)
    return Undefined("no preference pair") if found is None else found


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
    pairs = [sorted(s, key=lambda side: -side[0]) for s in groups.values() if len(s) == 2 and s[0][0] != s[1][0]]
    return [high[1] for high, _ in pairs], [low[1] for _, low in pairs]


def metric_agreement(
    frame: pd.DataFrame, label_rows: Sequence[Mapping[str, Any]], entry: LabelledMetric, seed: int = 0
) -> MetricAgreement:
    scores, labels, _ = entry.scored_pairs()
    threshold = metric_threshold(entry.metric)
    kind = YES_NO if is_binary(entry.labels) else GRADED
    preferred, other = preference_pairs(frame, label_rows, entry.metric)
    return MetricAgreement(
        metric=entry.metric,
        kind=kind,
        threshold=threshold,
        n_labelled=len(entry.labels),
        roc_auc=bootstrap(roc_auc, scores, labels, seed) if kind == YES_NO else None,
        spearman=bootstrap(spearman, scores, labels, seed) if kind == GRADED else None,
        kappa=bootstrap(kappa_at(threshold), scores, labels, seed),
        confusion=confusion(scores, labels, threshold),
        pairwise_accuracy=bootstrap(_pairwise, preferred, other, seed) if preferred else None,
        disagreeing=disagreeing_rows(frame, entry, threshold),
        labellers=labeller_agreement(entry, seed),
        unscored=len(entry.labels) - len(scores),
        stale=entry.stale,
        unmatched=entry.unmatched,
    )


def unscored_labels(
    frame: pd.DataFrame, label_rows: Sequence[Mapping[str, Any]], metrics: Sequence[str] | None
) -> dict[str, int]:
    """Metrics with labels (of those asked for) that the frame has no score for, each with its number of labels."""
    return {
        metric: sum(1 for row in label_rows if row.get(metric) is not None)
        for metric in labelled_metrics(label_rows)
        if (not metrics or metric in metrics)
        and (metric not in frame.columns or pd.to_numeric(frame[metric], errors="coerce").isna().all())
    }


def label_agreement(
    frame: pd.DataFrame, label_rows: Sequence[Mapping[str, Any]], metrics: Sequence[str] | None = None, seed: int = 0
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


def _short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _metric_lines(entry: MetricAgreement) -> list[str]:
    lines = [f"{entry.metric} ({entry.kind} labels, {entry.n_labelled} labelled rows, threshold {entry.threshold:g})"]
    for label, estimate, note in (
        ("ROC-AUC", entry.roc_auc, ""),
        ("Spearman", entry.spearman, ""),
        ("Cohen's kappa", entry.kappa, ""),
        ("pairwise accuracy", entry.pairwise_accuracy, " (preference pairs; tie = 1/2)"),
    ):
        lines += [f"  {label:<19}{estimate.text()}{note}"] if estimate is not None else []
    c = entry.confusion
    lines += [
        f"  at {entry.threshold:g}:            human yes  human no",
        f"    judge yes         {c['judge_yes_human_yes']:>9}  {c['judge_yes_human_no']:>8}",
        f"    judge no          {c['judge_no_human_yes']:>9}  {c['judge_no_human_no']:>8}",
    ]
    for pair in entry.labellers:
        exact = "undefined (no row labelled by both)" if pair.exact is None else f"{pair.exact:.2f}"
        lines.append(f"  labellers {pair.first} / {pair.second}: exact agreement {exact}, kappa {pair.kappa.text()}")
    left_out = (
        (entry.unscored, "labelled row(s) the judge did not score"),
        (entry.stale, "stale label(s): the answer changed since"),
        (entry.unmatched, "label(s) naming no row of the scored file"),
    )
    if any(count for count, _ in left_out):
        lines.append("  left out: " + "; ".join(f"{count} {words}" for count, words in left_out if count))
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
