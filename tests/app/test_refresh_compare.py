"""compare on two versions of a refreshed test set: paired on the shared rows (kept and moved), the updated rows
compared apart, and how many of each kind there are."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ragtest.comparison import compare_runs
from ragtest.scored_runs import IncomparableRunsError, ScoredRun

Row = tuple[str, str, str, float, str | None]
SCORING = {"judge": "local", "embedding_model": "m", "metrics": ["faithfulness"]}


def run(rows: list[Row], label: str) -> ScoredRun:
    frame = pd.DataFrame(
        [
            {"sample_id": s, "question": q, "ground_truth": g, "faithfulness": f, "faithfulness_reason": ""}
            | ({"refresh_status": status} if status else {})
            for s, q, g, f, status in rows
        ]
    )
    return ScoredRun(label=label, path=Path(label), frame=frame, summary={"scoring": SCORING})


OLD: list[Row] = [
    ("s1", "What is a?", "A is 1.", 0.5, None),
    ("s2", "What is b?", "B is 2.", 0.5, None),
    ("s3", "What is c?", "C is 3.", 0.5, None),
    ("s4", "What is d?", "D is 4.", 0.5, None),
]
NEW: list[Row] = [
    ("s1", "What is a?", "A is 1.", 0.9, "kept"),
    ("s2", "What is b?", "B is 2.", 0.7, "moved"),
    ("s3", "What is c?", "C is 5.", 0.1, "updated"),
    ("s5", "What is e?", "E is 6.", 0.2, "new"),
]


def test_two_versions_pair_the_shared_rows_and_count_each_kind() -> None:
    comparison = compare_runs(run(OLD, "v1"), run(NEW, "v2"))
    assert comparison.matched == 2
    assert comparison.metrics["faithfulness"].base_scores == [0.5, 0.5]
    assert comparison.metrics["faithfulness"].new_scores == [0.9, 0.7]
    assert comparison.versions == {"shared": 2, "kept": 1, "moved": 1, "updated": 1, "only_base": 1, "only_new": 1}
    assert comparison.updated["faithfulness"].new_scores == [0.1]
    assert any("2 shared rows (1 kept, 1 moved); 1 updated" in note for note in comparison.notes)


def test_runs_on_one_refreshed_set_compare_as_usual() -> None:
    comparison = compare_runs(run(NEW, "a"), run(NEW, "b"))
    assert comparison.matched == 4 and not comparison.versions and not comparison.updated


def test_a_shared_row_whose_text_differs_is_still_refused() -> None:
    edited: list[Row] = [*NEW[:1], ("s2", "What is b, really?", "B is 2.", 0.7, "moved"), *NEW[2:]]
    with pytest.raises(IncomparableRunsError, match="different question or reference"):
        compare_runs(run(OLD, "v1"), run(edited, "v2"))
