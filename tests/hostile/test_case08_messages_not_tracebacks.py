"""Case 8: inputs that used to end in a traceback get one message naming the file, the line and the column: a JSONL
row that is a list, bytes that are not UTF-8 (evaluate, answer, compare), an empty CSV, a 0-byte Parquet file,
and a folder given as --input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtest.cli import main

ROW = {"question": "What is two?", "answer": "Two is a number.", "contexts": ["Two is a number."],
       "ground_truth": "Two is a number."}  # fmt: skip


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("ragtest: error: ") and "Traceback" not in err, err
    return err


def command(name: str, source: Path, tmp_path: Path) -> list[str]:
    args = [name, "--quiet", "--input", str(source), "--output", str(tmp_path / "out" / "x.jsonl")]
    if name == "answer":
        return [*args, "--rag", "rag_under_test:HTTPAdapter", "--rag-arg", "url=http://127.0.0.1:9/rag"]
    return [*args, "--metrics", "token_f1"]


@pytest.mark.parametrize("name", ["evaluate", "answer"])
def test_a_row_that_is_a_list(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(ROW) + "\n" + json.dumps(["What is two?", "Two."]) + "\n", encoding="utf-8")
    err = run(command(name, source, tmp_path), capsys)
    assert f"{source}:2: a row must be a JSON object" in err and "got a list" in err


@pytest.mark.parametrize("name", ["evaluate", "answer"])
def test_bytes_that_are_not_utf8(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "latin1.jsonl"
    source.write_bytes(
        (json.dumps(ROW) + "\n").encode() + json.dumps({**ROW, "question": "Où?"}, ensure_ascii=False).encode("latin-1")
    )
    err = run(command(name, source, tmp_path), capsys)
    assert f"{source}:2:16: not UTF-8 (byte 0xf9)" in err


def test_compare_with_bytes_that_are_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "base.jsonl"
    good.write_text(json.dumps({**ROW, "token_f1": 1.0}) + "\n", encoding="utf-8")
    bad = tmp_path / "new.jsonl"
    bad.write_bytes(
        json.dumps({**ROW, "token_f1": 1.0, "answer": "Deux é"}, ensure_ascii=False).encode("latin-1") + b"\n"
    )
    err = run(["compare", str(good), str(bad), "--out", str(tmp_path / "cmp")], capsys)
    assert f"{bad}:1:" in err and "not UTF-8" in err


@pytest.mark.parametrize("name", ["evaluate", "answer"])
@pytest.mark.parametrize(
    ("file_name", "content", "expected"),
    [
        ("empty.csv", b"", "is empty"),
        ("blank.csv", b"\n\n", "is empty"),
        ("empty.parquet", b"", "is empty"),
        ("broken.parquet", b"PAR1 not really", "not a readable Parquet file"),
        ("empty.jsonl", b"", "is empty"),
        ("header-only.csv", b"question,answer,contexts\n", "holds no rows"),
        ("empty-array.json", b"[]", "holds no rows"),
    ],
)
def test_empty_and_broken_files(
    name: str, file_name: str, content: bytes, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / file_name
    source.write_bytes(content)
    err = run(command(name, source, tmp_path), capsys)
    assert str(source) in err and expected in err


@pytest.mark.parametrize("name", ["evaluate", "answer"])
def test_a_folder_as_input(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "a-folder.jsonl"
    folder.mkdir()
    err = run(command(name, folder, tmp_path), capsys)
    assert f"{folder} is a folder, not a dataset file" in err


def test_a_folder_as_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    (tmp_path / "scores.jsonl").mkdir()
    args = ["evaluate", "--quiet", "--input", str(source), "--output", str(tmp_path / "scores.jsonl")]
    assert "is a folder: --output names the file" in run([*args, "--metrics", "token_f1"], capsys)
