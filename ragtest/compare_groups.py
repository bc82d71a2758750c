"""compare's breakdowns kept short: one line per group (question type, source) and one column per metric, groups
with too few rows to say anything pooled into one "other" line (the rule of the run report, `ragtest.breakdowns`),
and the significant changes picked out; the full tables fold away."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from evaluation.compare_stats import BETTER, BORDERLINE, WORSE, PairedStats, paired_stats
from evaluation.registry import higher_is_better
from ragtest.breakdowns import min_group_rows, short_labels
from ragtest.comparison import Comparison, MetricComparison

#: The verdicts a reader should see without unfolding anything.
NOTEWORTHY = (BETTER, WORSE, BORDERLINE)


@dataclass
class PairedRow:
    """One group (or several small ones pooled) and its paired change per metric."""

    label: str
    title: str
    rows: int
    pooled: int = 0
    cells: dict[str, PairedStats] = field(default_factory=dict)


@dataclass
class PairedBreakdown:
    """A paired breakdown: short (small groups pooled), its noteworthy cells, and every group per metric."""

    title: str
    metrics: list[str]
    short: list[PairedRow]
    full: list[tuple[str, str, PairedStats]]

    matched: int = 0

    @property
    def noteworthy(self) -> list[tuple[PairedRow, list[tuple[str, PairedStats]]]]:
        """Groups of the short table with a better, worse or borderline change on some metric, and those changes,
        largest first. A group that holds nearly the whole run (fewer than `min_group_rows()` rows outside it)
        says nothing the per-metric table does not."""
        found = []
        for row in self.short:
            if self.matched - row.rows < min_group_rows():
                continue
            changes = [(m, s) for m, s in row.cells.items() if s.verdict in NOTEWORTHY and s.difference is not None]
            if changes:
                changes.sort(key=lambda change: -abs(change[1].difference or 0.0))
                found.append((row, changes))
        return sorted(found, key=lambda group: -abs(group[1][0][1].difference or 0.0))


def _labels(metric: MetricComparison, attribute: str) -> list[str]:
    labels: list[str | None] = getattr(metric, attribute)
    return ["(none)" if label is None else label for label in labels]


def paired_breakdown_of(comparison: Comparison, attribute: str, title: str, plural: str) -> PairedBreakdown | None:
    """The breakdown by `attribute` ("question_types" or "sources") of every compared metric; None when the runs
    have a single group (or none)."""
    metrics = [m for m in comparison.metrics.values() if getattr(m, attribute)]
    counts: Counter[str] = Counter()
    for metric in metrics:
        for label, n in Counter(_labels(metric, attribute)).items():
            counts[label] = max(counts[label], n)
    if len(counts) < 2:
        return None
    shown = short_labels(sorted(counts))
    ordered = sorted(counts, key=lambda label: (-counts[label], shown[label]))
    small = [label for label in ordered if counts[label] < min_group_rows()]
    pooled = small if len(small) >= 2 else []
    rows = {label: PairedRow(shown[label], label, counts[label]) for label in ordered if label not in pooled}
    other = PairedRow(f"{len(pooled)} other {plural}", "; ".join(pooled), 0, len(pooled)) if pooled else None
    full = []
    attr = "by_question_type" if attribute == "question_types" else "by_source"
    for metric in metrics:
        labels = _labels(metric, attribute)
        for label in ordered:
            if label in rows and label in getattr(metric, attr):
                rows[label].cells[metric.metric] = getattr(metric, attr)[label]
        for label in sorted(getattr(metric, attr), key=lambda label: shown.get(label, label)):
            full.append((metric.metric, shown.get(label, label), getattr(metric, attr)[label]))
        if other is not None:
            inside = [i for i, label in enumerate(labels) if label in pooled]
            other.rows = max(other.rows, len(inside))
            other.cells[metric.metric] = paired_stats(
                [metric.base_scores[i] for i in inside],
                [metric.new_scores[i] for i in inside],
                comparison.seed,
                higher_is_better(metric.metric),
            )
    short = [*rows.values(), *([other] if other is not None else [])]
    return PairedBreakdown(title, [m.metric for m in metrics], short, full, comparison.matched)


def paired_breakdowns(comparison: Comparison) -> list[PairedBreakdown]:
    """By question type and by source document, where the runs have more than one of them."""
    found = (
        paired_breakdown_of(comparison, "question_types", "question type", "question types"),
        paired_breakdown_of(comparison, "sources", "source document", "sources"),
    )
    return [table for table in found if table is not None]
