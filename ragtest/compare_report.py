"""What `compare` shows: the text table the CLI prints, and compare.json, compare.md and compare.html.

compare.html: the conclusion, the change per metric, the groups (question type, source) whose change is
significant, the plots, short breakdown tables (small groups pooled; full tables folded) and, folded per metric,
the rows whose score shows a change, with both answers side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ragtest import plots
from ragtest.breakdowns import min_group_rows
from ragtest.compare_groups import paired_breakdowns
from ragtest.comparison import Comparison
from ragtest.gates import GateResult
from ragtest.report import render
from ragtest.report_explain import JUDGE_SETTINGS_ID, PPI_CHANGE, metric_explanations
from ragtest.report_rows import SHOWN_DIGITS, shown_score
from ragtest_core.files import write_json

COMPARE_STEM = "compare"


def _num(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:+.3f}" if sign else f"{value:.3f}"


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
        interval = f"[{_num(s.ci_low, True)}, {_num(s.ci_high, True)}]" if s.ci_low is not None else "-"
        p = f"{s.p_value:.3f}" if s.p_value is not None else "-"
        lines.append(
            f"{name:<22} {_num(s.base_mean):>6} {_num(s.new_mean):>6} {_num(s.difference, True):>7} {interval:>18} "
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
            lines.append(
                f"  {row.metric} {shown_score(row.base_score)} -> {shown_score(row.new_score)}: {row.question}"
            )
            lines.append(f"    base: {row.base_answer[:150]}")
            lines.append(f"    new:  {row.new_answer[:150]}")
    return "\n".join(lines)


def ppi_lines(comparison: Comparison) -> list[str]:
    """With human labels on both sides: each labelled metric's change as PPI estimates."""
    if not comparison.ppi:
        return []
    lines = [f"{'with human labels (PPI)':<22} {'base':>6} {'new':>6} {'change':>7} {'95% interval':>18} {'labels':>6}"]
    for name, c in comparison.ppi.items():
        interval = f"[{_num(c.ci_low, True)}, {_num(c.ci_high, True)}]" if c.ci_low is not None else "-"
        kind = "paired" if c.paired else "unpaired"
        lines.append(
            f"{name:<22} {_num(c.base_mean):>6} {_num(c.new_mean):>6} {_num(c.change, True):>7} {interval:>18} "
            f"{c.n_labels:>6}  {c.verdict} ({kind})"
        )
    return lines


def compare_plots(comparison: Comparison) -> dict[str, Any]:
    pairs = {name: (m.base_scores, m.new_scores) for name, m in comparison.metrics.items()}
    intervals = {name: (m.overall.ci_low, m.overall.ci_high) for name, m in comparison.metrics.items()}
    before_after = plots.before_after(pairs)
    differences = plots.paired_differences(pairs, intervals)
    return {
        "before_after": Markup(before_after) if before_after else None,
        "differences": Markup(differences) if differences else None,
    }


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
    context = {
        "c": comparison,
        "gate": list(gate),
        "plots": compare_plots(comparison),
        "groups": groups,
        "noteworthy": sorted(
            ((table.title, row, changes) for table in groups for row, changes in table.noteworthy),
            key=lambda group: -abs(group[2][0][1].difference or 0.0),
        ),
        "min_rows": min_group_rows(),
        "shown_digits": SHOWN_DIGITS,
        "explained": metric_explanations(comparison.metrics),
        "judge_id": JUDGE_SETTINGS_ID,
        "ppi_change": PPI_CHANGE,
    }
    templates = (("compare.md.j2", ".md"), ("compare.html.j2", ".html"))
    return paths + render(out_dir / COMPARE_STEM, templates, context)
