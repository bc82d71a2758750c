"""The labels file: validated rows, one per sample and labeller, rewritten atomically on every change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtest_core.errors import RagtestError
from ragtest_core.labels import (
    LabelStore,
    answer_id,
    label_value,
    labelled_metrics,
    read_labels,
    write_labels,
)


def test_store_keeps_one_row_per_sample_and_labeller(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    store = LabelStore(path)
    store.put({"sample_id": "a", "labeller": "ana", "faithfulness": "yes", "answer_correctness": "partly"})
    store.put({"sample_id": "b", "labeller": "ana", "faithfulness": 0})
    store.put({"sample_id": "a", "labeller": "ben", "faithfulness": "no"})
    store.put({"sample_id": "a", "labeller": "ana", "faithfulness": "partly", "answer_correctness": 1})  # changed
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 3 and all(line["time"] for line in lines)
    assert not list(tmp_path.glob("*.tmp"))  # written through a temporary file, renamed into place
    again = LabelStore(path)  # reopening resumes
    assert again.get("a", "ana") == {**store.get("a", "ana")}  # type: ignore[dict-item]
    assert again.labelled("ana") == {"a", "b"} and again.labelled("ben") == {"a"}
    rows = read_labels(path)
    assert labelled_metrics(rows) == ["answer_correctness", "faithfulness"]


def test_values_are_checked() -> None:
    assert [label_value(v) for v in ("yes", "partly", "no", True, 0.25, None)] == [1.0, 0.5, 0.0, 1.0, 0.25, None]
    for bad in ("maybe", 2, -0.1):
        with pytest.raises(RagtestError):
            label_value(bad)
    with pytest.raises(RagtestError, match="labeller"):
        write_labels([{"sample_id": "a", "faithfulness": 1}], Path("/nonexistent/x.jsonl"))
    with pytest.raises(RagtestError, match="selection"):
        write_labels([{"sample_id": "a", "labeller": "x", "selection": "mine"}], Path("/nonexistent/x.jsonl"))


def test_answer_id_follows_what_was_labelled() -> None:
    row = {"question": "Q?", "answer": "A.", "contexts": ["c1", "c2"]}
    assert answer_id(row) == answer_id(dict(row))
    assert answer_id(row) != answer_id({**row, "answer": "B."})
    assert answer_id(row) != answer_id({**row, "contexts": ["c2", "c1"]})
