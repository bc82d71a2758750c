"""Case 3: a torn last line in a file the user gave is an error naming the file, line and column (`evaluate` and
`answer` used to read 5 lines, write 4 rows and say nothing); in ragtest's own progress file after a crash it is
expected and dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl
from ragtest_core.progress import Identity, ProgressWriter, read_progress


def torn_file(path: Path) -> Path:
    rows = [
        {"question": f"What is {i}?", "answer": f"{i} is a number.", "contexts": [f"{i} is a number."],
         "ground_truth": f"{i} is a number."}
        for i in range(5)
    ]  # fmt: skip
    text = "".join(json.dumps(row) + "\n" for row in rows)
    path.write_text(text[: -len('number."}\n') - 3], encoding="utf-8")  # the last line cut mid-string
    return path


@pytest.mark.parametrize("command", ["evaluate", "answer"])
def test_a_torn_last_line_is_an_error(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = torn_file(tmp_path / "data.jsonl")
    args = [command, "--quiet", "--input", str(source), "--output", str(tmp_path / "out" / "x.jsonl")]
    if command == "evaluate":
        args += ["--metrics", "token_f1"]
    else:
        args += ["--rag", "rag_under_test:HTTPAdapter", "--rag-arg", "url=http://127.0.0.1:9/rag"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{source}:5:" in err and "not valid JSON" in err and "torn line" in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "x.jsonl").exists()


def test_a_torn_tail_of_ragtest_own_progress_file_is_dropped(tmp_path: Path) -> None:
    identity = Identity({"adapter": "a"}, {})
    path = tmp_path / "answers.partial.jsonl"
    with ProgressWriter(path, identity) as writer:
        writer.append({"sample_id": "1", "answer": "x"})
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"sample_id": "2", "ans')  # killed mid-write
    assert read_progress(path, identity) == [{"sample_id": "1", "answer": "x"}]
    with pytest.raises(Exception, match="not valid JSON"):
        read_jsonl(path)  # the same bytes as a user's file: an error


def test_a_torn_csv_line_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "data.csv"
    source.write_text('question,answer,ground_truth\n"What is 1?","1 is a number.","1."\n"What is 2?","2 is')
    args = ["evaluate", "--quiet", "--input", str(source), "--output", str(tmp_path / "s.jsonl")]
    assert main([*args, "--metrics", "token_f1"]) == 2
    assert f"{source}" in capsys.readouterr().err
    source.write_text('question,answer,ground_truth\n"What is 1?","1 is a number.","1."\n"What is 2?","2 is"\n')
    assert main([*args, "--metrics", "token_f1"]) == 2
    assert f"{source}:3: 2 field(s) where the header has 3 (a torn or broken line)" in capsys.readouterr().err
