"""Scores by persona and by query style: the summary's breakdowns and the report's tables, each style read against
the questions as written ("perfect")."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evaluation.engine import groups_of
from evaluation.sample import Sample
from ragtest.breakdowns import style_breakdown
from tests.app.test_report_unit import render, retrieval_run

STYLES = ["perfect", "web", "misspelled"]


def styled_run() -> pd.DataFrame:
    """39 rows in turn perfect, web, misspelled; the misspelled ones (a typo in "thing") retrieve nothing."""
    run = retrieval_run(rows=39, misses=0)
    run["query_style"] = [STYLES[i % 3] for i in range(39)]
    run["persona"] = ["admin" if i < 20 else "developer" for i in range(39)]
    run["canonical_question"] = run["question"]
    misspelled = run["query_style"] == "misspelled"
    run.loc[misspelled, "hit_rate"] = 0.0
    run.loc[misspelled, "question"] = run.loc[misspelled, "question"].str.replace("thing", "thnig")
    return run


def test_styles_read_against_perfect() -> None:
    table = style_breakdown(styled_run(), ["hit_rate"])
    assert table is not None and table.baseline == "perfect"
    shifts = {row.title: table.shift(row, "hit_rate") for row in table.full}
    assert shifts == {"perfect": None, "web": pytest.approx(0.0), "misspelled": pytest.approx(-1.0)}
    without = styled_run()
    without = without[without["query_style"] != "perfect"]
    table = style_breakdown(without, ["hit_rate"])
    assert table is not None and table.baseline is None


def test_the_report_shows_scores_by_persona_and_by_style(tmp_path: Path) -> None:
    html, md = render(tmp_path, styled_run(), ["hit_rate"])
    assert "<h2>By persona</h2>" in html and "<h2>By query style</h2>" in html
    assert "-1.00 vs perfect" in html and "+0.00 vs perfect" in html
    assert "| misspelled | 13 | 0.00" in md and "(-1.00)" in md and "## By persona" in md
    assert "What is thnig 2?" in html and "as written: What is thing 2?" in html  # a weak row, typed badly


def test_the_summary_breaks_scores_down_by_persona_style_and_length() -> None:
    rows = [{"question": "Q?", "persona": "admin", "query_style": "web", "query_length": "long"}, {"question": "Q?"}]
    groups = groups_of([Sample.from_row(row) for row in rows])
    assert groups["persona"] == ["admin", None] and groups["query_style"] == ["web", None]
    assert groups["query_length"] == ["long", None]
