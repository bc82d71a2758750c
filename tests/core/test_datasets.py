"""Datasets round-trip in every format; `.json` is one JSON array, as pandas users expect; writes are atomic."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragtest_core.datasets import read_dataset, write_dataset
from ragtest_core.errors import RagtestError
from ragtest_core.files import atomic_write

ROWS = [
    {"question": "Who created Python?", "answer": "Guido van Rossum.", "contexts": ["a", "b"], "faithfulness": 1.0},
    {"question": "When?", "answer": "1991.", "contexts": [], "faithfulness": None},
]


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".parquet", ".csv"])
def test_round_trip(tmp_path: Path, suffix: str) -> None:
    path = write_dataset(ROWS, tmp_path / f"data{suffix}")
    frame = read_dataset(path)
    assert list(frame["question"]) == [r["question"] for r in ROWS]
    assert [list(c) for c in frame["contexts"]] == [r["contexts"] for r in ROWS]
    assert frame["faithfulness"].iloc[0] == 1.0 and pd.isna(frame["faithfulness"].iloc[1])


def test_json_is_one_array_that_pandas_reads(tmp_path: Path) -> None:
    path = write_dataset(ROWS, tmp_path / "x.json")
    assert isinstance(json.loads(path.read_text(encoding="utf-8")), list)
    assert list(pd.read_json(path)["answer"]) == ["Guido van Rossum.", "1991."]
    pd.DataFrame(ROWS).to_json(tmp_path / "pandas.json", orient="records")
    assert list(read_dataset(tmp_path / "pandas.json")["answer"]) == ["Guido van Rossum.", "1991."]


def test_json_that_is_not_rows_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('"just a string"', encoding="utf-8")
    with pytest.raises(RagtestError, match="array of row objects"):
        read_dataset(tmp_path / "bad.json")


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text("old\n", encoding="utf-8")

    def explode(handle: object) -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(path, explode)
    assert path.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
