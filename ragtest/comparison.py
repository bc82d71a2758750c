"""`ragtest compare BASE NEW`: is the new run better, on which metrics, by how much, and how sure are we?

For every metric both runs scored, overall, by question type and by source: the paired statistics and verdict of
`evaluation.compare_stats`, and the rows that changed most, with both answers (`compare_runs()` -> `Comparison`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import pandas as pd

from evaluation.compare_stats import (
    BETTER,
    TIE_TOLERANCE,
    TOO_FEW,
    UNCHANGED,
    WORSE,
    PairedStats,
    paired_breakdown,
    paired_stats,
)
from evaluation.registry import higher_is_better
from ragtest.compare_ppi import PPIChange, ppi_changes
from ragtest.report_rows import shown, shown_score
from ragtest.scored_runs import Matching, ScoredRun, check_comparable, match_rows
from ragtest_core.datasets import as_str_list, cell_text
from ragtest_core.errors import RagtestError
from ragtest_core.schema import QUESTION_TYPE, SOURCE, reason_column

CHANGED_ROWS = 5


@dataclass
class MetricComparison:
    """One metric, on the rows both runs scored: overall and by group."""

    metric: str
    overall: PairedStats
    by_question_type: dict[str, PairedStats] = field(default_factory=dict)
    by_source: dict[str, PairedStats] = field(default_factory=dict)
    #: Matched rows where only one side has a score (the other failed, with a reason).
    scored_one_side: int = 0
    #: The paired scores behind `overall`, in test-set order.
    base_scores: list[float] = field(default_factory=list)
    new_scores: list[float] = field(default_factory=list)
    #: Each paired row's question type and source (None where it has none), in the same order.
    question_types: list[str | None] = field(default_factory=list)
    sources: list[str | None] = field(default_factory=list)
    #: Rows whose two scores show differently (`SHOWN_DIGITS`), higher and lower in new.
    shown_up: int = 0
    shown_down: int = 0


@dataclass
class ChangedRow:
    """A row whose score moved, with both runs' answers side by side."""

    metric: str
    question: str
    question_type: str
    source: str
    base_score: float
    new_score: float
    base_answer: str
    new_answer: str
    base_reason: str
    new_reason: str
    base_contexts: list[str]
    new_contexts: list[str]

    @property
    def difference(self) -> float:
        return self.new_score - self.base_score


@dataclass
class Comparison:
    """Two scored runs of one test set, compared metric by metric."""

    base: str
    new: str
    matched: int
    matched_by: str
    only_base: list[str]
    only_new: list[str]
    metrics: dict[str, MetricComparison]
    metrics_only_base: list[str]
    metrics_only_new: list[str]
    changed: dict[str, list[ChangedRow]]
    notes: list[str]
    settings: dict[str, Any]
    #: The seed of every interval and test (the report's pooled groups use it too).
    seed: int = 0
    #: With human labels on both sides: each labelled metric's change as prediction-powered estimates.
    ppi: dict[str, PPIChange] = field(default_factory=dict)
    #: Two versions of a refreshed test set (`Matching.versions`): how many rows are shared (kept, moved), updated,
    #: only in base (retired) and only in new (new); the updated rows' own comparison, by metric.
    versions: dict[str, int] = field(default_factory=dict)
    updated: dict[str, MetricComparison] = field(default_factory=dict)

    def with_verdict(self, *verdicts: str) -> list[str]:
        return [name for name, m in self.metrics.items() if m.overall.verdict in verdicts]

    @property
    def better(self) -> list[str]:
        return self.with_verdict(BETTER)

    @property
    def worse(self) -> list[str]:
        return self.with_verdict(WORSE)

    def conclusion(self) -> str:
        """B is better on X, worse on Y, unchanged on Z: the comparison in one sentence."""
        named = {n: n if (d := m.overall.difference) is None else f"{n} ({d:+.3f})" for n, m in self.metrics.items()}
        unchanged, unsure = self.with_verdict(UNCHANGED), self.with_verdict(TOO_FEW)
        rest = [n for n in self.metrics if n not in self.better + self.worse + unchanged + unsure]
        groups = (
            ("better on", [named[n] for n in self.better]),
            ("worse on", [named[n] for n in self.worse]),
            ("no significant change on", rest),
            ("no row changed on", unchanged),
            ("too few changed rows to conclude on", unsure),
        )
        parts = [f"{words} {', '.join(names)}" for words, names in groups if names]
        return f"new vs base ({self.matched} paired rows): " + ("; ".join(parts) or "no metric in common") + "."

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["conclusion"] = self.conclusion()
        return data


def scored_pairs(base: ScoredRun, new: ScoredRun, matching: Matching, metric: str) -> list[tuple[int, int]]:
    """The matched row pairs where both sides have a score for `metric`."""
    left = pd.to_numeric(base.frame[metric], errors="coerce")
    right = pd.to_numeric(new.frame[metric], errors="coerce")
    return [(i, j) for i, j in matching.pairs if pd.notna(left.iloc[i]) and pd.notna(right.iloc[j])]


def _labels(frame: pd.DataFrame, rows: Sequence[int], column: str) -> list[str | None]:
    return [cell_text(frame.iloc[i].get(column)) or None for i in rows]


def compare_metric(base: ScoredRun, new: ScoredRun, matching: Matching, metric: str, seed: int) -> MetricComparison:
    pairs = scored_pairs(base, new, matching, metric)
    left = [float(base.frame[metric].iloc[i]) for i, _ in pairs]
    right = [float(new.frame[metric].iloc[j]) for _, j in pairs]
    rows = [i for i, _ in pairs]
    types, sources = _labels(base.frame, rows, QUESTION_TYPE), _labels(base.frame, rows, SOURCE)
    upward = higher_is_better(metric)
    return MetricComparison(
        metric=metric,
        overall=paired_stats(left, right, seed, upward),
        by_question_type=paired_breakdown(left, right, types, seed, upward) if any(types) else {},
        by_source=paired_breakdown(left, right, sources, seed, upward) if any(sources) else {},
        scored_one_side=len(matching.pairs) - len(pairs),
        base_scores=left,
        new_scores=right,
        question_types=types,
        sources=sources,
        shown_up=sum(1 for b, n in zip(left, right, strict=True) if shows_changed(b, n) and n > b),
        shown_down=sum(1 for b, n in zip(left, right, strict=True) if shows_changed(b, n) and n < b),
    )


def shows_changed(before: float, after: float) -> bool:
    """True when the row changed as a reader sees it: the two scores show differently at the reports' precision
    (`shown_score`) and differ by more than floating-point noise (`TIE_TOLERANCE`, a tie everywhere)."""
    return abs(after - before) > TIE_TOLERANCE and shown_score(before) != shown_score(after)


def changed_rows(base: ScoredRun, new: ScoredRun, matching: Matching, metric: str) -> list[ChangedRow]:
    """The rows whose `metric` moved most (largest absolute change first; ties keep the test set's order). Only rows
    whose scores show differently are listed: a change too small to show is no row to read."""
    rows = []
    for i, j in scored_pairs(base, new, matching, metric):
        before, after = float(base.frame[metric].iloc[i]), float(new.frame[metric].iloc[j])
        if not shows_changed(before, after):
            continue
        b, n = base.frame.iloc[i], new.frame.iloc[j]
        rows.append(
            ChangedRow(
                metric=metric,
                question=cell_text(b.get("question")),
                question_type=cell_text(b.get(QUESTION_TYPE)),
                source=cell_text(b.get(SOURCE)),
                base_score=before,
                new_score=after,
                base_answer=shown(cell_text(b.get("answer"))),
                new_answer=shown(cell_text(n.get("answer"))),
                base_reason=cell_text(b.get(reason_column(metric))),
                new_reason=cell_text(n.get(reason_column(metric))),
                base_contexts=[shown(c) for c in as_str_list(b.get("contexts"))],
                new_contexts=[shown(c) for c in as_str_list(n.get("contexts"))],
            )
        )
    return sorted(rows, key=lambda row: -abs(row.difference))[:CHANGED_ROWS]


def compare_runs(
    base: ScoredRun,
    new: ScoredRun,
    *,
    allow_different: bool = False,
    metrics: Sequence[str] | None = None,
    seed: int = 0,
) -> Comparison:
    """Compare two loaded runs (see `compare`)."""
    matching = match_rows(base.frame, new.frame)
    notes = check_comparable(base, new, matching, allow_different)
    common = [m for m in base.metrics if m in new.metrics]
    selected = list(metrics) if metrics else common
    missing = [m for m in selected if m not in common]
    if missing:
        raise RagtestError(f"metric(s) {', '.join(missing)} not scored in both runs; both have: {', '.join(common)}")
    ppi, label_notes = ppi_changes(base, new, matching, selected)
    updated = replace(matching, pairs=matching.updated)
    return Comparison(
        base=base.label,
        new=new.label,
        matched=len(matching.pairs),
        matched_by=matching.by,
        only_base=matching.only_base,
        only_new=matching.only_new,
        metrics={m: compare_metric(base, new, matching, m, seed) for m in selected},
        metrics_only_base=[m for m in base.metrics if m not in new.metrics],
        metrics_only_new=[m for m in new.metrics if m not in base.metrics],
        changed={m: changed_rows(base, new, matching, m) for m in selected},
        notes=[*notes, *label_notes, *version_notes(matching.versions)],
        settings={"base": base.scoring, "new": new.scoring},
        seed=seed,
        ppi=ppi,
        versions=matching.versions,
        updated={m: compare_metric(base, new, updated, m, seed) for m in selected} if matching.updated else {},
    )


def version_notes(versions: dict[str, int]) -> list[str]:
    if not versions:
        return []
    return [
        f"two versions of a refreshed test set: compared on {versions['shared']} shared rows ({versions['kept']} "
        f"kept, {versions['moved']} moved); {versions['updated']} updated rows compared apart; "
        f"{versions['only_base']} rows only in base (retired), {versions['only_new']} only in new (new)"
    ]
