"""compare's report kept short: only rows whose score shows a change are listed, small sources are pooled, the
significant groups are picked out and the full tables fold away."""

from __future__ import annotations

import json
from pathlib import Path

from ragtest.compare_report import compare, format_comparison, paired_breakdowns, write_compare_report
from ragtest.comparison import shows_changed


def scored(path: Path, scores: list[float], sources: list[str]) -> Path:
    rows = [
        {
            "sample_id": f"s{i}",
            "question": f"Question {i}?",
            "ground_truth": f"Answer {i}.",
            "answer": f"A{i}",
            "contexts": [f"context {i}"],
            "question_type": "simple" if i % 2 else "multi_context",
            "source": source,
            "m": value,
            "m_reason": "judged",
        }
        for i, (value, source) in enumerate(zip(scores, sources, strict=True))
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


SOURCES = ["big.txt"] * 12 + [f"small{i}.txt" for i in range(8)]


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    """20 rows: big.txt's 12 rows drop from 1.0 to 0.0 (one only from 0.998 to 1.0), the small sources stay."""
    base = [1.0] * 11 + [0.998] + [0.5] * 8
    new = [0.0] * 11 + [1.0] + [0.5] * 7 + [0.7]
    return scored(tmp_path / "a" / "s.jsonl", base, SOURCES), scored(tmp_path / "b" / "s.jsonl", new, SOURCES)


def test_only_rows_whose_scores_show_a_change_are_listed(tmp_path: Path) -> None:
    comparison = compare(*two_runs(tmp_path), allow_different=True)  # no summaries: no settings to check
    metric = comparison.metrics["m"]
    assert metric.overall.wins == 2 and metric.overall.losses == 11  # 0.998 -> 1.0 is a win in W/L/T ...
    assert (metric.shown_up, metric.shown_down) == (1, 11)  # ... but shows as 1.00 -> 1.00
    listed = comparison.changed["m"]
    assert len(listed) == 5 and all(shows_changed(r.base_score, r.new_score) for r in listed)
    assert "Question 11?" not in [r.question for r in listed]
    text = format_comparison(comparison, rows=20)
    assert "1.00 -> 1.00" not in text and "1.00 -> 0.00" in text
    html = (write_compare_report(tmp_path / "cmp", comparison)[2]).read_text()
    assert "1.00 → 1.00" not in html and "1 higher, 11 lower in new; the 5 that moved most" in html


def test_small_sources_are_pooled_and_significant_groups_picked_out(tmp_path: Path) -> None:
    comparison = compare(*two_runs(tmp_path), allow_different=True)  # no summaries: no settings to check
    tables = {table.title: table for table in paired_breakdowns(comparison)}
    sources = tables["source document"]
    assert [(row.label, row.rows, row.pooled) for row in sources.short] == [
        ("big.txt", 12, 0),
        ("8 other sources", 8, 8),
    ]
    pooled = sources.short[1].cells["m"]
    assert pooled.n == 8 and pooled.wins == 1 and pooled.losses == 0
    assert len(sources.full) == 9  # every source, folded in the page
    assert [(row.label, [(m, s.verdict) for m, s in changes]) for row, changes in sources.noteworthy] == [
        ("big.txt", [("m", "worse")])
    ]
    html = write_compare_report(tmp_path / "cmp", comparison)[2].read_text()
    where = html[html.index("<h2>Where it changed</h2>") : html.index("<h2>By question type</h2>")]
    assert 'source document big.txt</strong> <span class="muted">(12 rows)</span>: m <span class="bad"' in where
    assert "every source document and metric" in html and "<details" in html
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "## Where it changed\n\n- **source document big.txt** (12 rows): m -0.916" in md  # largest first


def test_a_group_holding_nearly_the_whole_run_is_not_picked_out(tmp_path: Path) -> None:
    """Every source but one row is big.txt: its change is the run's, already in the per-metric table."""
    base, new = two_runs(tmp_path)
    comparison = compare(base, new, allow_different=True)
    for metric in comparison.metrics.values():
        metric.sources = ["big.txt"] * 18 + ["a.txt", "b.txt"]
    (sources,) = [t for t in paired_breakdowns(comparison) if t.title == "source document"]
    assert sources.short[0].rows == 18 and sources.noteworthy == []


def test_a_row_that_changed_never_shows_minus_zero(tmp_path: Path) -> None:
    """A score a hair below 0 (-0.001: another scorer's rounding) that rose to 0.9 reads "0.00 -> 0.90"."""
    sources = ["a.txt"] * 6
    base = scored(tmp_path / "a" / "s.jsonl", [-0.001] + [0.5] * 5, sources)
    new = scored(tmp_path / "b" / "s.jsonl", [0.9] + [0.5] * 5, sources)
    text = format_comparison(compare(base, new, allow_different=True))
    assert "m 0.00 -> 0.90: Question 0?" in text and "-0.00" not in text
