"""Gate rules, row matching and the comparability checks of `compare`, on small scored files."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragtest.cli import main
from ragtest.compare_report import compare
from ragtest.gates import GateRule, check_fail_under, parse_fail_if, parse_fail_under
from ragtest.outputs import locate_scored, ragas_columns, write_rows
from ragtest.scored_runs import IncomparableRunsError, match_rows
from ragtest.testing import assert_min_scores, assert_no_regression
from ragtest_core.datasets import read_dataset
from ragtest_core.errors import RagtestError


def test_parse_rules() -> None:
    assert parse_fail_if("faithfulness<-0.02, context_recall < -0.05") == [
        GateRule("faithfulness", -0.02),
        GateRule("context_recall", -0.05),
    ]
    assert parse_fail_under("faithfulness=0.8,ndcg@10>=0.5") == [
        GateRule("faithfulness", 0.8),
        GateRule("ndcg@10", 0.5),
    ]
    assert parse_fail_if("hallucination>0.02") == [GateRule("hallucination", 0.02, ">")]
    for bad in ("faithfulness=0.1", "faithfulness", ""):
        with pytest.raises(RagtestError):
            parse_fail_if(bad)


def test_fail_under_uses_the_upper_bound() -> None:
    summary = {
        "low": {"mean": 0.6, "ci_low": 0.5, "ci_high": 0.79, "rows_scored": 20},
        "close": {"mean": 0.75, "ci_low": 0.6, "ci_high": 0.85, "rows_scored": 20},
        "empty": {"mean": None, "ci_low": None, "ci_high": None, "rows_scored": 0},
    }
    results = check_fail_under(summary, parse_fail_under("low=0.8,close=0.8,empty=0.1"))
    assert [r.passed for r in results] == [False, True, False]
    assert "significantly below 0.8" in results[0].message and "only 0 row(s)" in results[2].message
    with pytest.raises(RagtestError, match="no scores for"):
        check_fail_under(summary, parse_fail_under("other=0.5"))


def scored(path: Path, scores: list[float], ids: bool = True, questions: list[str] | None = None) -> Path:
    rows = []
    for i, value in enumerate(scores):
        row: dict[str, object] = {"question": questions[i] if questions else f"Question {i}?"}
        if ids:
            row["sample_id"] = f"s{i}"
        row.update({"ground_truth": f"Answer {i}.", "answer": f"A{i}", "m": value, "m_reason": "judged"})
        rows.append(row)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rows_match_by_question_when_ids_are_missing(tmp_path: Path) -> None:
    base = read_dataset(scored(tmp_path / "a.jsonl", [1.0, 0.0, 1.0]))
    new = read_dataset(scored(tmp_path / "b.jsonl", [1.0, 1.0], ids=False)).iloc[::-1].reset_index(drop=True)
    matching = match_rows(base, new)
    assert matching.by == "question" and sorted(matching.pairs) == [(0, 1), (1, 0)]
    assert matching.only_base == ["Question 2?"] and matching.only_new == []


def test_compare_files_without_summaries(tmp_path: Path) -> None:
    base = scored(tmp_path / "a" / "s.jsonl", [1.0] * 10 + [0.5] * 5)
    new = scored(tmp_path / "b" / "s.jsonl", [0.0] * 8 + [1.0] * 2 + [0.5] * 5)
    with pytest.raises(IncomparableRunsError, match="no scoring settings recorded"):
        compare(base, new)  # the scoring-settings check always runs: without summaries it cannot pass
    comparison = compare(base, new, allow_different=True)
    assert comparison.matched == 15 and comparison.worse == ["m"]
    assert any("no scoring settings recorded" in note for note in comparison.notes)
    with pytest.raises(AssertionError, match="gate: FAILED"):
        assert_no_regression(base, new, fail_if="m<-0.1", allow_different=True)
    assert assert_no_regression(new, base, fail_if="m<-0.1", allow_different=True).better == ["m"]
    changed = scored(tmp_path / "c" / "s.jsonl", [1.0] * 15)
    rows = [json.loads(line) for line in changed.read_text().splitlines()]
    rows[0]["ground_truth"] = "Another reference."
    changed.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(IncomparableRunsError, match="different question or reference answer"):
        compare(base, changed)


def test_assert_min_scores_reads_the_summary(tmp_path: Path) -> None:
    scores = scored(tmp_path / "s.jsonl", [1.0, 0.0])
    with pytest.raises(RagtestError, match="no summary"):
        assert_min_scores(scores, "m=0.5")
    summary = {"metrics": {"m": {"mean": 0.1, "ci_low": 0.0, "ci_high": 0.3, "rows_scored": 30}}}
    scores.with_name("s.summary.json").write_text(json.dumps(summary))
    with pytest.raises(AssertionError, match=r"significantly below 0\.5"):
        assert_min_scores(scores, "m=0.5")
    assert_min_scores(scores, "m=0.2")


def test_ragas_columns_round_trip(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        [{"question": "q?", "answer": "a", "contexts": ["c"], "context_ids": ["1"], "ground_truth": "g", "m": 0.5}]
    )
    assert list(ragas_columns(frame).columns) == [
        "user_input", "response", "retrieved_contexts", "retrieved_context_ids", "reference", "m",
    ]  # fmt: skip
    path = write_rows(frame, tmp_path / "r.csv", columns="ragas")
    assert list(read_dataset(path).columns) == ["question", "answer", "contexts", "context_ids", "ground_truth", "m"]


def evaluated(folder: Path, name: str) -> Path:
    """Scored by `ragtest evaluate --output FOLDER/NAME` (exact match and token F1: no model needed)."""
    answers = folder / "answers.jsonl"
    rows = [
        {"sample_id": f"s{i}", "question": f"Q{i}?", "ground_truth": f"Answer {i}.", "answer": f"Answer {i % 3}.",
         "contexts": [f"Answer {i}."]}
        for i in range(8)
    ]  # fmt: skip
    write_rows(rows, answers)
    output = folder / name
    assert main(["evaluate", "--quiet", "--input", str(answers), "--metrics", "exact_match,token_f1",
                 "--output", str(output)]) == 0  # fmt: skip
    return output


def test_run_folders_are_found_whatever_the_scored_file_is_called(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = evaluated(tmp_path / "v1", "scores.jsonl"), evaluated(tmp_path / "v2", "mine.jsonl")
    assert (tmp_path / "v1" / "summary.json").is_file() and (tmp_path / "v1" / "report.html").is_file()
    assert str(tmp_path / "v1" / "report.html") in capsys.readouterr().out  # a path the user can open
    assert locate_scored(tmp_path / "v1").scores == first and locate_scored(tmp_path / "v2").scores == second
    assert main(["compare", "--quiet", str(tmp_path / "v1"), str(tmp_path / "v2"), "--out", str(tmp_path / "c")]) == 0
    assert_min_scores(tmp_path / "v2", "token_f1=0.1")

    summary_path = locate_scored(second).summary
    summary = json.loads(summary_path.read_text())
    summary["scoring"]["embedding_precision"] = "bfloat16"  # v2 scored under other settings
    summary_path.write_text(json.dumps(summary))
    for base, new in ((tmp_path / "v1", tmp_path / "v2"), (first, second)):
        assert main(["compare", "--quiet", str(base), str(new), "--out", str(tmp_path / "c")]) == 2
        assert "different embedding precision" in capsys.readouterr().err

    (tmp_path / "v2" / "mine.jsonl").rename(tmp_path / "v2" / "mine.csv")
    write_rows(read_dataset(tmp_path / "v2" / "mine.csv"), tmp_path / "v2" / "other.jsonl")
    (tmp_path / "v2" / "other.summary.json").write_text(json.dumps(summary))
    with pytest.raises(RagtestError, match="holds 2 scored datasets"):
        locate_scored(tmp_path / "v2")


def test_rules_for_metrics_where_lower_is_better() -> None:
    [rise] = parse_fail_if("hallucination>0.02")
    assert rise.upward and rise.op == ">"
    [ceiling] = parse_fail_under("hallucination<=0.1")
    summary = {"hallucination": {"mean": 0.3, "ci_low": 0.2, "ci_high": 0.4, "rows_scored": 30}}
    [result] = check_fail_under(summary, [ceiling])
    assert not result.passed and "significantly above 0.1" in result.message
    [result] = check_fail_under(summary, parse_fail_under("hallucination<=0.3"))
    assert result.passed
