"""Case 9: nothing is coerced silently. A null or list question is an error (it used to be asked as "None" or
"['a', 'b']"); contexts that are objects are an error (they used to be scored as their repr), from a file or from
an adapter; a CSV written by pandas' default to_csv (lists as Python reprs) is read as lists, and says so; an empty
input file is an error, not "wrote 0 answers"."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl

ROWS = [
    {"question": "Where do brown bears live?", "answer": "Brown bears live in Eurasia and North America.",
     "contexts": ["The brown bear is native to Eurasia and North America.", "Bears eat salmon."],
     "ground_truth": "Eurasia and North America."},
    {"question": "What do bears eat?", "answer": "Bears eat salmon.",
     "contexts": ["Bears eat salmon and berries.", "The brown bear is large."],
     "ground_truth": "Salmon and berries."},
]  # fmt: skip
HTTP_RAG = ["--rag", "rag_under_test:HTTPAdapter", "--rag-arg", "url=http://127.0.0.1:9/rag"]


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("question", "words"), [(None, "the question is null"), (["a", "b"], "the question must be text, got a list")]
)
def test_answer_refuses_a_null_or_list_question(
    question: object, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = jsonl(tmp_path / "t.jsonl", [{"question": "Fine?"}, {"question": question}])
    args = ["answer", "--quiet", "--input", str(source), "--output", str(tmp_path / "a.jsonl"), *HTTP_RAG]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{source}:2: column 'question': {words}" in err and "Traceback" not in err
    assert not (tmp_path / "a.jsonl").exists()


def test_contexts_that_are_objects_are_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [ROWS[0], {**ROWS[1], "contexts": [{"text": "Bears eat salmon."}, "The brown bear is large."]}]
    source = jsonl(tmp_path / "d.jsonl", rows)
    args = ["evaluate", "--quiet", "--input", str(source), "--output", str(tmp_path / "s.jsonl")]
    assert main([*args, "--metrics", "faithfulness"]) == 2
    err = capsys.readouterr().err
    assert f"{source}:2: column 'contexts', item 0: must be text, got an object" in err


def test_contexts_as_one_text_in_jsonl_are_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = jsonl(tmp_path / "d.jsonl", [{**ROWS[0], "contexts": "Bears eat salmon."}])
    args = ["evaluate", "--quiet", "--input", str(source), "--output", str(tmp_path / "s.jsonl")]
    assert main([*args, "--metrics", "faithfulness"]) == 2
    assert "column 'contexts': must be a list of texts, got text" in capsys.readouterr().err


def test_an_adapter_returning_context_objects_records_an_error(user_folder: Path) -> None:
    (user_folder / "objrag.py").write_text(
        "class ObjRAG:\n    def answer(self, q):\n        return {'answer': 'yes', 'contexts': [{'text': 'a'}]}\n"
    )
    source = jsonl(user_folder / "t.jsonl", [{"question": "Fine?"}])
    output = user_folder / "a.jsonl"
    assert main(["answer", "--quiet", "--input", str(source), "--output", str(output), "--rag", "objrag:ObjRAG"]) == 1
    row = read_jsonl(output)[0]
    assert row["contexts"] == [] and "context 0 is dict, not text" in row["answer_error"]


def test_a_csv_from_pandas_to_csv_is_read_as_lists_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "pandas.csv"
    pd.DataFrame(ROWS).to_csv(csv, index=False)  # lists written as Python reprs: "['The brown bear ...', ...]"
    assert "['The brown bear" in csv.read_text()
    reference = jsonl(tmp_path / "same.jsonl", ROWS)
    metrics = ["--metrics", "faithfulness,context_recall"]
    assert main(["evaluate", "--quiet", "--input", str(csv), "--output", str(tmp_path / "a.jsonl"), *metrics]) == 0
    err = capsys.readouterr().err
    assert "column 'contexts' holds Python lists (as pandas' default to_csv writes them) in 2 row(s)" in err
    assert (
        main(["evaluate", "--quiet", "--input", str(reference), "--output", str(tmp_path / "b.jsonl"), *metrics]) == 0
    )
    from_csv, from_jsonl = read_jsonl(tmp_path / "a.jsonl"), read_jsonl(tmp_path / "b.jsonl")
    assert [r["contexts"] for r in from_csv] == [r["contexts"] for r in ROWS]  # two contexts each, not one
    assert [r["faithfulness"] for r in from_csv] == [r["faithfulness"] for r in from_jsonl]


def test_an_empty_input_is_an_error_not_zero_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "t.jsonl"
    source.write_text("\n")
    args = ["answer", "--quiet", "--input", str(source), "--output", str(tmp_path / "a.jsonl"), *HTTP_RAG]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert "is empty: a dataset needs at least one row" in captured.err and "wrote 0 answers" not in captured.out
