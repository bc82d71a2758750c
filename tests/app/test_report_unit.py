"""The run report's pieces: which rows it lists per metric (0/1 metrics: every miss; never a row at the top value),
the short breakdown tables (small sources pooled), the weak spots at the top, and a page that fetches nothing."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaluation.intervals import mean_ci
from ragtest import report_panels
from ragtest.breakdowns import breakdown, min_group_rows, short_labels
from ragtest.report import write_run_report
from ragtest.report_rows import TOP_BAND, TOP_VALUE, gold_marks, weak_rows
from ragtest.weak_spots import weak_spots


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question": [f"Q{i}?" for i in range(6)],
            "ground_truth": [f"G{i}." for i in range(6)],
            "answer": [f"A{i}" for i in range(6)],
            "contexts": [[f"context {i}"] for i in range(6)],
            "question_type": ["simple", "simple", "simple", "multi_context", "multi_context", "simple"],
            "faithfulness": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            "faithfulness_reason": ["ok"] * 6,
            "context_recall": [1.0, 0.5, None, 0.0, 1.0, 1.0],
            "context_recall_reason": ["r"] * 2 + ["needs ground_truth"] + ["r"] * 3,
        }
    )


def retrieval_run(rows: int = 40, misses: int = 24, sources: list[str] | None = None) -> pd.DataFrame:
    """`rows` questions, the first `misses` of which retrieved none of their gold chunk (hit_rate 0)."""
    gold = [f"gold chunk {i}: the passage that answers question {i}." for i in range(rows)]
    retrieved = [
        [f"unrelated passage {i}.{k}" for k in range(4)] if i < misses else [gold[i], f"other passage {i}"]
        for i in range(rows)
    ]
    return pd.DataFrame(
        {
            "question": [f"What is thing {i}?" for i in range(rows)],
            "ground_truth": [f"Thing {i} is a thing." for i in range(rows)],
            "answer": [f"Answer {i}" for i in range(rows)],
            "reference_contexts": [[g] for g in gold],
            "reference_context_ids": [[f"g{i}"] for i in range(rows)],
            "contexts": retrieved,
            "context_ids": [
                [f"r{i}.{k}" for k in range(len(c))] if i < misses else [f"g{i}", "x"] for i, c in enumerate(retrieved)
            ],
            "question_type": ["simple"] * rows,
            "source": sources or [f"docs/page{i}.md" for i in range(rows)],
            "hit_rate": [0.0] * misses + [1.0] * (rows - misses),
            "hit_rate_reason": ["hit@5: no gold id retrieved"] * misses
            + ["hit@5: gold ids at ranks [1]"] * (rows - misses),
            "faithfulness": [0.99, 0.96] + [1.0] * (rows - 3) + [0.4],
            "faithfulness_reason": ["judged"] * rows,
        }
    )


def summary_of(run: pd.DataFrame, metrics: list[str]) -> dict:
    out = {}
    for metric in metrics:
        values = run[metric].dropna().tolist()
        interval = mean_ci(values)
        out[metric] = {
            "mean": float(np.mean(values)),
            "ci_low": interval.low,
            "ci_high": interval.high,
            "interval_method": interval.method,
            "rows_scored": len(values),
            "rows_failed": 0,
        }
    return out


# -- which rows ------------------------------------------------------------------------------------------------


def test_a_0_1_metric_lists_every_miss_even_when_the_median_is_0() -> None:
    """24 misses of 40: the median is 0, and the old rule ("below the median") listed none of them."""
    weak = weak_rows(retrieval_run(), "hit_rate")
    assert weak.scale == "binary" and weak.median == 0.0
    assert weak.positions == tuple(range(24)) and weak.misses == 24 and weak.describe() == "24 misses"


def test_a_metric_whose_scores_are_all_0_or_1_counts_as_0_1() -> None:
    run = pd.DataFrame({"my_check": [1.0, 0.0, 1.0, 0.0, 0.0], "question": list("abcde")})
    weak = weak_rows(run, "my_check")  # not a registered metric: judged by its scores
    assert weak.scale == "binary" and weak.positions == (1, 3, 4)
    exact = weak_rows(pd.DataFrame({"exact_match": [1.0, 0.0, 1.0]}), "exact_match")
    assert exact.scale == "binary" and exact.positions == (1,)


def test_rank_metrics_list_misses_then_lower_hits_never_the_top() -> None:
    run = pd.DataFrame({"mrr": [1.0, 0.5, 0.0, 1.0, 0.25, 0.0, 1.0]})
    weak = weak_rows(run, "mrr")
    assert weak.scale == "rank" and weak.positions == (2, 5, 4, 1)
    assert weak.describe() == "2 misses, 2 lower hits"


def test_graded_metrics_never_list_rows_at_or_near_the_top_value() -> None:
    """faithfulness 1.00 on most rows: 0.99 and 0.96 are at the top, 0.40 is a row to look at."""
    weak = weak_rows(retrieval_run(), "faithfulness")
    assert weak.scale == "graded" and weak.positions == (39,)
    weak = weak_rows(frame(), "faithfulness")
    assert weak.positions == () and weak.describe() == "none"
    weak = weak_rows(frame(), "context_recall")  # median 1.0: rows below 0.95, lowest first; the failed row is out
    assert weak.positions == (3, 1)


def test_graded_metrics_list_rows_below_their_median() -> None:
    run = pd.DataFrame({"answer_relevancy": [0.1, 0.3, 0.2, 0.5, 0.4, 0.9, 1.0]})
    weak = weak_rows(run, "answer_relevancy")
    assert weak.median == 0.4 and weak.positions == (0, 2, 1)


@pytest.mark.parametrize("seed", range(5))
def test_no_listed_row_is_ever_at_the_top_value(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = np.where(rng.random(60) < 0.5, 1.0, rng.random(60))
    for metric in ("hit_rate", "mrr", "faithfulness", "custom"):
        run = pd.DataFrame({metric: np.round(values) if metric == "hit_rate" else values})
        weak = weak_rows(run, metric)
        listed = run[metric].to_numpy()[list(weak.positions)]
        assert np.all(listed < TOP_VALUE)
        if weak.scale == "graded":
            assert np.all(listed < TOP_VALUE - TOP_BAND)


def test_gold_chunks_are_marked_among_the_retrieved_contexts() -> None:
    run = retrieval_run(rows=4, misses=2)
    assert gold_marks(run.iloc[0]) == [False] * 4 and gold_marks(run.iloc[3]) == [True, False]
    by_text = run.iloc[3].copy()
    by_text["context_ids"] = ["own-1", "own-2"]  # a user's RAG with its own ids: matched by text
    assert gold_marks(by_text) == [True, False]
    by_text["mapped_context_ids"] = ["own-1", "g3"]  # the retrieval metrics' own mapping wins when they ran
    assert gold_marks(by_text) == [False, True]


# -- short tables ----------------------------------------------------------------------------------------------


def test_min_group_rows_follows_the_interval_rule() -> None:
    n = min_group_rows()
    assert mean_ci([0.0] * n).high < 0.5 <= mean_ci([0.0] * (n - 1)).high
    assert n == 4


def test_sources_with_too_few_rows_are_pooled() -> None:
    sources = ["wiki/a.txt"] * 10 + ["wiki/b.txt"] * 6 + [f"wiki/small{i}.txt" for i in range(24)]
    run = retrieval_run(sources=sources)
    table = breakdown(run, ["hit_rate", "faithfulness"], "source", "source document", "sources")
    assert table is not None and table.folded
    assert [(row.label, row.rows, row.pooled) for row in table.short] == [
        ("a.txt", 10, 0),
        ("b.txt", 6, 0),
        ("24 other sources", 24, 24),
    ]
    assert len(table.full) == 26 and sum(row.rows for row in table.full) == 40
    pooled = table.short[-1].cells["hit_rate"]
    assert pooled.scored == 24 and pooled.mean == pytest.approx(run["hit_rate"].iloc[16:].mean())
    assert pooled.low is not None and pooled.high is not None and pooled.low <= pooled.mean <= pooled.high


def test_a_single_small_source_keeps_its_own_line() -> None:
    run = retrieval_run(rows=12, misses=4, sources=["a.txt"] * 6 + ["b.txt"] * 5 + ["c.txt"])
    table = breakdown(run, ["hit_rate"], "source", "source document", "sources")
    assert table is not None and [row.label for row in table.short] == ["a.txt", "b.txt", "c.txt"]
    assert breakdown(run, ["hit_rate"], "question_type", "question type", "question types") is None  # one type


def test_short_labels_drop_the_shared_folder() -> None:
    assert short_labels(["../data/wiki/A.txt", "../data/wiki/sub/B.txt"]) == {
        "../data/wiki/A.txt": "A.txt",
        "../data/wiki/sub/B.txt": "sub/B.txt",
    }
    assert short_labels(["Polar bear", "Brown bear"]) == {"Polar bear": "Polar bear", "Brown bear": "Brown bear"}


# -- where the run is weakest ----------------------------------------------------------------------------------


def spotted_run() -> pd.DataFrame:
    """40 rows: source bad.txt (8 rows) misses every gold chunk, two.txt (2 rows) misses both, the rest hit 26/30."""
    sources = ["bad.txt"] * 8 + ["two.txt"] * 2 + [f"ok{i % 6}.txt" for i in range(30)]
    run = retrieval_run(misses=10, sources=sources)
    run.loc[10:13, "hit_rate"] = 0.0  # four misses spread over the good sources
    run.loc[:, "question_type"] = ["simple", "multi_context"] * 20
    return run


def test_a_source_below_the_rest_is_a_weak_spot() -> None:
    spots = weak_spots(spotted_run(), ["hit_rate", "faithfulness"])
    assert [(s.grouping, s.labels) for s in spots] == [("source", ("bad.txt",))]
    finding = spots[0].findings[0]
    assert finding.metric == "hit_rate" and finding.mean == 0.0 and finding.rest_rows == 32
    assert finding.interval.high is not None and finding.rest_interval.low is not None
    assert finding.interval.high < finding.rest_interval.low


def test_small_or_ordinary_groups_are_no_weak_spot() -> None:
    """two.txt misses both its rows, but two rows cannot say so; an even mix is no spot at all."""
    run = retrieval_run(misses=20)
    run.loc[:, "hit_rate"] = [0.0, 1.0] * 20
    run.loc[:, "source"] = [f"{'abcd'[i // 10]}.txt" for i in range(40)]  # five hits and five misses each
    assert weak_spots(run, ["hit_rate"]) == []
    spots = weak_spots(spotted_run(), ["hit_rate"])
    assert all(s.labels != ("two.txt",) for s in spots)


# -- the page --------------------------------------------------------------------------------------------------


def render(tmp_path: Path, run: pd.DataFrame, metrics: list[str]) -> tuple[str, str]:
    document = {"metrics": summary_of(run, metrics), "scoring": {"judge": "local"}, "run": {}}
    md, html = write_run_report(tmp_path / "report", run, document, {}, {"embed": 1.0, "total": 1.5})
    return html.read_text(), md.read_text()


def test_the_page_lists_retrieval_misses_with_gold_and_retrieved_contexts(tmp_path: Path) -> None:
    html, md = render(tmp_path, retrieval_run(), ["hit_rate", "faithfulness"])
    assert "No row scores below the median" not in html
    misses = re.findall(r'<div class="row" id="hit_rate-row-(\d+)">', html)
    assert misses == [str(i) for i in range(1, 11)]  # ten shown in full, lowest first
    assert "and 14 more (rows 11, 12, 13" in html and "24 misses" in html
    first = html[html.index('id="hit_rate-row-1"') : html.index('id="hit_rate-row-2"')]
    assert "gold chunk: not retrieved" in first and "gold chunk 0: the passage" in first
    assert first.count('<div class="context">') == 4 and "unrelated passage 0.3" in first
    assert 'id="faithfulness-row-40"' in html and 'id="faithfulness-row-1"' not in html  # 0.40 yes, 0.99 no
    assert "### hit_rate: 24 misses of 40" in md and "gold chunk, not retrieved: gold chunk 0" in md


def test_the_weakest_section_comes_first_and_its_links_resolve(tmp_path: Path) -> None:
    html, md = render(tmp_path, spotted_run(), ["hit_rate", "faithfulness"])
    assert html.index("Where the run is weakest") < html.index("<h2>Scores</h2>") < html.index("Rows to look at")
    section = html[html.index('id="weakest"') : html.index("<h2>Scores</h2>")]
    assert "source bad.txt" in section and "(8 rows)" in section
    links = re.findall(r'href="#([^"]+)"', html)
    assert [f"hit_rate-row-{i}" for i in range(1, 6)] == links[:5] and "rows-hit_rate" in links  # 5, then "3 more"
    assert "3 more</a>" in section
    ids = set(re.findall(r'id="([^"]+)"', html))
    assert set(links) <= ids  # every link lands on a row or section of the page
    assert "**source bad.txt** (8 rows): hit_rate 0.00" in md


def test_linked_rows_beyond_the_first_shown_are_shown_in_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_panels, "SHOWN_ROWS", 2)
    run = spotted_run()
    order = [*range(10, 40), *range(10)]  # the weak source's rows come after four other misses
    html, _ = render(tmp_path, run.iloc[order].reset_index(drop=True), ["hit_rate"])
    cards = re.findall(r'<div class="row" id="hit_rate-row-(\d+)">', html)
    assert cards == ["1", "2", "31", "32", "33", "34", "35"]  # the first two, then the five the weak spot links to
    assert set(re.findall(r'href="#([^"]+)"', html)) <= set(re.findall(r'id="([^"]+)"', html))
    assert "and 7 more (rows 3, 4, 36, 37, 38, 39, 40" in html


def test_everything_from_the_data_is_escaped(tmp_path: Path) -> None:
    run = spotted_run()
    run.loc[:, "source"] = run["source"].str.replace("bad.txt", "<b>bad</b>.txt")
    run.loc[0, "question"] = '<script>alert("q")</script>'
    run.loc[0, "reference_contexts"] = ["<img src=x onerror=alert(1)>"]
    html, _ = render(tmp_path, run, ["hit_rate"])
    assert "<script" not in html.lower() and "<b>bad" not in html and "<img" not in html
    assert "&lt;b&gt;bad&lt;/b&gt;.txt" in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_run_report_has_plots_and_no_remote_resource(tmp_path: Path) -> None:
    by_type = {
        "simple": {"mean": 1.0, "ci_low": 0.7, "ci_high": 1.0, "rows_scored": 4},
        "multi_context": {"mean": 1.0, "ci_low": 0.3, "ci_high": 1.0, "rows_scored": 4},
    }
    summary = {
        "faithfulness": {"mean": 1.0, "ci_low": 0.8, "ci_high": 1.0, "rows_scored": 6, "rows_failed": 0},
        "context_recall": {"mean": 0.7, "ci_low": 0.3, "ci_high": 0.9, "rows_scored": 5, "rows_failed": 1},
    }
    summary["faithfulness"]["by_question_type"] = by_type
    document = {
        "metrics": summary,
        "scoring": {"judge": "local"},
        "run": {"generation_warnings": ["types renormalised"]},
    }
    html_path = write_run_report(tmp_path / "report", frame(), document, {}, {})[1]
    html = html_path.read_text()
    assert html.count("<svg") == 2 and "http" not in html.replace("http-equiv", "")
    assert "faithfulness</strong>: no row to look at" in html and "types renormalised" in html and "Q3?" in html


def test_too_few_rows_or_groups_draw_no_plot(tmp_path: Path) -> None:
    """Four rows make no histogram and one question type no by-type chart: the tables say it all."""
    small = frame().head(4)
    summary = {"faithfulness": {"mean": 1.0, "ci_low": 0.5, "ci_high": 1.0, "rows_scored": 4, "rows_failed": 0}}
    summary["faithfulness"]["by_question_type"] = {
        "simple": {"mean": 1.0, "ci_low": 0.5, "ci_high": 1.0, "rows_scored": 3}
    }
    html_path = write_run_report(tmp_path / "report", small, {"metrics": summary, "scoring": {}, "run": {}}, {}, {})[1]
    assert "<svg" not in html_path.read_text()


def test_rows_to_look_at_turn_round_for_a_metric_where_lower_is_better() -> None:
    from ragtest.report_rows import weak_rows

    frame = pd.DataFrame({"hallucination": [0.0, 0.0, 0.0, 0.6, 0.9, 0.0, 0.3]})
    weak = weak_rows(frame, "hallucination")
    assert list(weak.positions) == [4, 3, 6]  # the highest first; a row at 0 (the best value) never listed
    assert weak.describe() == "3 rows above 0.05" and "lower is better" in weak.rule()
