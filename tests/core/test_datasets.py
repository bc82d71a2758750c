"""Datasets round-trip in every format; `.json` is one JSON array, as pandas users expect; writes are atomic."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragtest_core.dataset_checks import DatasetError, InputRepairWarning
from ragtest_core.datasets import normalise_columns, read_dataset, write_dataset
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


def test_a_ragas_csv_is_named_by_its_own_columns(tmp_path: Path) -> None:
    """ragas' names (user_input, response, retrieved_contexts, reference) in a CSV from pandas' to_csv: the repair
    warning and a bad cell's problem name `retrieved_contexts`, as the file does; the rows read under our names."""
    rows = [
        {"user_input": q, "response": "An answer.", "retrieved_contexts": ["first", "second"], "reference": "Ref."}
        for q in ("Who?", "When?")
    ]
    path = tmp_path / "ragas.csv"
    pd.DataFrame(rows).to_csv(path, index=False)  # lists written as Python reprs: "['first', 'second']"
    with pytest.warns(InputRepairWarning) as caught:
        frame = read_dataset(path)
    (message,) = [str(w.message) for w in caught]
    assert "column 'retrieved_contexts' holds Python lists" in message and "'contexts'" not in message
    assert [list(c) for c in frame["contexts"]] == [["first", "second"]] * 2
    assert list(frame["question"]) == ["Who?", "When?"] and "retrieved_contexts" not in frame.columns

    pd.DataFrame([{**rows[0], "retrieved_contexts": "[not a list"}]).to_csv(path, index=False)
    with pytest.raises(DatasetError, match="column 'retrieved_contexts': starts with"):
        read_dataset(path)
    broken = pd.DataFrame([{**rows[0], "retrieved_contexts": [1, 2]}])
    with pytest.raises(DatasetError, match=r"column 'retrieved_contexts', item 0: must be text"):
        normalise_columns(broken, text_cells=False)
