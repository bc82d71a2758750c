"""What `compare` shows: the text table the CLI prints, and compare.json, compare.md and compare.html; and
`compare()` itself (the public `ragtest.compare`): two scored runs loaded, compared and, with `out_dir`, written.

compare.html: the conclusion, the change per metric, the groups whose change is significant, the plots, short
breakdown tables (small groups pooled by `ragtest.breakdowns`' rule) and the changed rows, both answers side by side.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluation.compare_stats import BETTER, BORDERLINE, WORSE, PairedStats, paired_stats
from evaluation.registry import higher_is_better, metric_explanation
from ragtest import plots
from ragtest.breakdowns import GroupRow, min_group_rows, plan_groups
from ragtest.comparison import Comparison, MetricComparison, compare_runs
from ragtest.gates import GateResult
from ragtest.report import render
from ragtest.report_explain import JUDGE_SETTINGS_ID, PPI_CHANGE, interval, number
from ragtest.report_rows import SHOWN_DIGITS, shown_score
from ragtest.scored_runs import load_scored
from ragtest_core.files import write_json

COMPARE_STEM = "compare"


#: The verdicts a reader should see without unfolding anything.
NOTEWORTHY = (BETTER, WORSE, BORDERLINE)


@dataclass
class PairedBreakdown:
    """A paired breakdown: short (small groups pooled), its noteworthy cells, and every group per metric."""

    title: str
    metrics: list[str]
    short: list[GroupRow[PairedStats]]
    full: list[tuple[str, str, PairedStats]]

    matched: int = 0

    @property
    def noteworthy(self) -> list[tuple[GroupRow[PairedStats], list[tuple[str, PairedStats]]]]:
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


def compare(
    base: str | Path,
    new: str | Path,
    *,
    allow_different: bool = False,
    metrics: Sequence[str] | None = None,
    seed: int = 0,
    out_dir: str | Path | None = None,
) -> Comparison:
    """Compare two scored runs of one test set (run directories or scored files), metric by metric: both means,
    the paired change with its 95% interval, a paired permutation test, wins/losses/ties and a verdict, overall,
    by question type and by source; the rows that changed most. Rows are matched by sample_id, else by question;
    rows on one side only are named in `only_base`/`only_new`. `metrics` limits the comparison (default: every
    metric both runs scored). With `out_dir`, also writes compare.json, compare.md and compare.html there. Raises
    `IncomparableRunsError` (a RagtestError) when the test sets or the scoring settings differ, unless
    `allow_different=True`. Gate it with `ragtest.testing.assert_no_regression` or `ragtest.gates.check_fail_if`."""
    loaded = load_scored(base), load_scored(new)
    comparison = compare_runs(*loaded, allow_different=allow_different, metrics=metrics, seed=seed)
    if out_dir is not None:
        write_compare_report(Path(out_dir), comparison)
    return comparison


def paired_breakdown_of(comparison: Comparison, attribute: str, title: str, plural: str) -> PairedBreakdown | None:
    """The breakdown by `attribute` ("question_types" or "sources") of every compared metric; None when the runs
    have a single group (or none)."""
    metrics = [m for m in comparison.metrics.values() if getattr(m, attribute)]
    counts: Counter[str] = Counter()
    for metric in metrics:
        counts |= Counter(_labels(metric, attribute))  # each group's largest count over the metrics
    if len(counts) < 2:
        return None
    shown, ordered, pooled = plan_groups(counts)
    rows: dict[str, GroupRow[PairedStats]] = {
        label: GroupRow(shown[label], label, counts[label]) for label in ordered if label not in pooled
    }
    other: GroupRow[PairedStats] | None = None
    if pooled:
        other = GroupRow(f"{len(pooled)} other {plural}", "; ".join(pooled), 0, len(pooled))
    full = []
    attr = "by_question_type" if attribute == "question_types" else "by_source"
    for metric in metrics:
        groups: dict[str, PairedStats] = getattr(metric, attr)
        for label, row in rows.items():  # in `ordered`'s order
            if label in groups:
                row.cells[metric.metric] = groups[label]
        full += [(metric.metric, shown.get(g, g), groups[g]) for g in sorted(groups, key=lambda g: shown.get(g, g))]
        if other is not None:
            inside = [i for i, label in enumerate(_labels(metric, attribute)) if label in pooled]
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


def format_comparison(comparison: Comparison, rows: int = 3) -> str:
    """The comparison as the terminal shows it: one line per metric, the conclusion, the rows that moved most."""
    lines = [
        f"base: {comparison.base}   new: {comparison.new}   "
        f"{comparison.matched} rows matched by {comparison.matched_by}",
        *(f"note: {note}" for note in comparison.notes),
        f"{'metric':<22} {'base':>6} {'new':>6} {'change':>7} {'95% interval':>18} {'p':>6} {'W/L/T':>9}  verdict",
    ]
    for name, metric in comparison.metrics.items():
        s = metric.overall
        span = interval(s.ci_low, s.ci_high, sign=True)
        p = f"{s.p_value:.3f}" if s.p_value is not None else "-"
        lines.append(
            f"{name:<22} {number(s.base_mean):>6} {number(s.new_mean):>6} {number(s.difference, True):>7} {span:>18} "
            f"{p:>6} {f'{s.wins}/{s.losses}/{s.ties}':>9}  {s.verdict}"
        )
    lines += ppi_lines(comparison)
    if comparison.ppi:
        lines.append(PPI_CHANGE)
    lines.append(comparison.conclusion())
    for side, names in (("base", comparison.only_base), ("new", comparison.only_new)):
        if names:
            lines.append(f"{len(names)} row(s) only in {side}: " + "; ".join(names[:5]))
    moved = sorted((r for rs in comparison.changed.values() for r in rs), key=lambda r: -abs(r.difference))
    if moved and rows:
        lines.append("rows that changed most:")
    for row in moved[:rows]:
        lines.append(f"  {row.metric} {shown_score(row.base_score)} -> {shown_score(row.new_score)}: {row.question}")
        lines += [f"    base: {row.base_answer[:150]}", f"    new:  {row.new_answer[:150]}"]
    return "\n".join(lines)


def ppi_lines(comparison: Comparison) -> list[str]:
    """With human labels on both sides: each labelled metric's change as PPI estimates."""
    if not comparison.ppi:
        return []
    lines = [f"{'with human labels (PPI)':<22} {'base':>6} {'new':>6} {'change':>7} {'95% interval':>18} {'labels':>6}"]
    for name, c in comparison.ppi.items():
        span = interval(c.ci_low, c.ci_high, sign=True)
        kind = "paired" if c.paired else "unpaired"
        lines.append(
            f"{name:<22} {number(c.base_mean):>6} {number(c.new_mean):>6} {number(c.change, True):>7} {span:>18} "
            f"{c.n_labels:>6}  {c.verdict} ({kind})"
        )
    return lines


def write_compare_report(
    out_dir: Path,
    comparison: Comparison,
    gate: Sequence[GateResult] = (),
) -> list[Path]:
    """compare.json (everything), compare.md and compare.html (self-contained, inline SVG plots) in `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = comparison.as_dict()
    data["gate"] = [{"metric": r.rule.metric, "threshold": r.rule.threshold, "passed": r.passed} for r in gate]
    paths = [write_json(data, out_dir / f"{COMPARE_STEM}.json")]
    groups = paired_breakdowns(comparison)
    pairs = {name: (m.base_scores, m.new_scores) for name, m in comparison.metrics.items()}
    intervals = {name: (m.overall.ci_low, m.overall.ci_high) for name, m in comparison.metrics.items()}
    context = {
        "c": comparison,
        "gate": list(gate),
        "plots": {"before_after": plots.before_after(pairs), "differences": plots.paired_differences(pairs, intervals)},
        "groups": groups,
        "noteworthy": sorted(
            ((table.title, row, changes) for table in groups for row, changes in table.noteworthy),
            key=lambda group: -abs(group[2][0][1].difference or 0.0),
        ),
        "min_rows": min_group_rows(),
        "shown_digits": SHOWN_DIGITS,
        "explained": {name: metric_explanation(name) for name in comparison.metrics},
        "judge_id": JUDGE_SETTINGS_ID,
        "ppi_change": PPI_CHANGE,
    }
    return paths + render(out_dir / COMPARE_STEM, "compare", context)
