"""Case 1: a resumed `answer` never mixes two RAG systems. `answers.partial.jsonl` records the adapter and its
arguments; a run with another adapter (or other arguments) stops and names the difference, a run with the same one
resumes, and another --output in the same folder has a progress file of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl
from tests.hostile.conftest import kill_when, lines_in, ragtest_process, write_testset


def killed_after_eight_answers(folder: Path) -> tuple[Path, Path, list[dict]]:
    """`ragtest answer --rag userrag:SlowRAG` killed (SIGKILL) once 8 answers are saved."""
    testset = write_testset(folder / "testset.jsonl")
    output = folder / "out" / "answers.jsonl"
    partial = folder / "out" / "answers.partial.jsonl"
    args = ["answer", "--quiet", "--input", str(testset), "--output", str(output), "--rag", "userrag:SlowRAG"]
    process = ragtest_process([*args, "--rag-arg", "delay=0.25"], cwd=folder)
    kill_when(process, lambda: lines_in(partial) >= 9)  # the header line and 8 answers
    header, *saved = read_jsonl(partial)
    assert header["identity"]["adapter"] == "userrag:SlowRAG" and len(saved) >= 8
    assert not output.exists()
    return testset, output, saved


def test_another_rag_on_a_killed_answer_run_is_refused_then_the_same_rag_resumes(
    user_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    testset, output, saved = killed_after_eight_answers(user_folder)
    base = ["answer", "--quiet", "--input", str(testset), "--output", str(output)]

    assert main([*base, "--rag", "userrag:OtherRAG", "--rag-arg", "delay=0.25"]) == 2
    message = capsys.readouterr().err
    assert "answers.partial.jsonl" in message and "from another configuration" in message
    assert "'userrag:SlowRAG' there, 'userrag:OtherRAG' now" in message
    assert not output.exists(), "nothing was written from a mix"

    assert main([*base, "--rag", "userrag:SlowRAG", "--rag-arg", "delay=0.5"]) == 2  # other arguments: refused too
    assert "rag_args" in capsys.readouterr().err

    assert main([*base, "--rag", "userrag:SlowRAG", "--rag-arg", "delay=0.25"]) == 0  # the same RAG resumes
    assert "wrote 20 answers to" in capsys.readouterr().out
    rows = read_jsonl(output)
    assert len(rows) == 20 and all(row["answer"].startswith("slow says:") for row in rows)
    by_id = {row["sample_id"]: row for row in rows}
    assert all(by_id[row["sample_id"]] == row for row in saved)  # the saved answers were reused as they were
    assert not output.with_name("answers.partial.jsonl").exists()


def test_another_output_in_the_same_folder_has_its_own_progress_file(user_folder: Path) -> None:
    testset, output, _ = killed_after_eight_answers(user_folder)
    other = output.with_name("other.jsonl")
    args = ["answer", "--quiet", "--input", str(testset), "--output", str(other), "--rag", "userrag:OtherRAG"]
    assert main(args) == 0
    rows = read_jsonl(other)
    assert len(rows) == 20 and all(row["answer"].startswith("other says:") for row in rows)
    assert lines_in(output.with_name("answers.partial.jsonl")) >= 9  # the killed run's rows are left for it


def test_a_resumed_answer_is_reused_only_for_the_same_question(user_folder: Path) -> None:
    """Another test set reusing sample ids for other questions: nothing saved is taken for it."""
    testset, output, _ = killed_after_eight_answers(user_folder)
    rows = read_jsonl(testset)
    for row in rows:
        row["question"] = row["question"].replace("fact", "claim")
    changed = user_folder / "changed.jsonl"
    changed.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ["answer", "--quiet", "--input", str(changed), "--output", str(output), "--rag", "userrag:SlowRAG"]
    assert main([*args, "--rag-arg", "delay=0.25"]) == 0
    assert all("claim number" in row["answer"] for row in read_jsonl(output))
