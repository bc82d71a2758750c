"""Answer collection keeps every row: errors and timeouts are recorded, finished rows are not asked again."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest

from rag_under_test.collect import answer_samples
from rag_under_test.loader import load_adapter
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.datasets import read_jsonl
from ragtest_core.errors import RagtestError
from ragtest_core.schema import RAGAnswer


class FlakyRAG:
    """Raises on one question, hangs on another, answers the rest; counts calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def aanswer(self, question: str) -> RAGAnswer:
        self.calls.append(question)
        if "boom" in question:
            raise RuntimeError("index offline")
        if "slow" in question:
            await asyncio.sleep(5)
        return RAGAnswer(answer=f"answer to {question}", contexts=["ctx"], context_ids=["c1"])


SAMPLES = [
    {"sample_id": "a", "question": "first?"},
    {"sample_id": "b", "question": "boom?"},
    {"sample_id": "c", "question": "slow?"},
    {"sample_id": "d", "question": "last?"},
]


def test_errors_and_timeouts_keep_their_rows_in_input_order() -> None:
    rows = run_sync(answer_samples(SAMPLES, FlakyRAG(), timeout_s=0.3, show_progress=False))
    assert [r["sample_id"] for r in rows] == ["a", "b", "c", "d"]
    assert rows[0]["answer"] == "answer to first?" and rows[0]["answer_error"] is None
    assert rows[0]["contexts"] == ["ctx"] and rows[0]["context_ids"] == ["c1"]
    assert rows[1]["answer_error"] == "RuntimeError: index offline"
    assert rows[2]["answer_error"] == "timed out after 0.3 s"
    assert rows[3]["answer_error"] is None


def test_rerun_resumes_from_the_progress_file(tmp_path: Path) -> None:
    progress = tmp_path / "answers.partial.jsonl"
    first = FlakyRAG()
    run_sync(answer_samples(SAMPLES[:2], first, progress_path=progress, show_progress=False))
    # a run killed mid-write leaves a torn last line; it must be dropped, not crash the resume
    with progress.open("a", encoding="utf-8") as handle:
        handle.write('{"sample_id": "c", "quest')
    second = FlakyRAG()
    rows = run_sync(answer_samples(SAMPLES, second, timeout_s=0.3, progress_path=progress, show_progress=False))
    assert second.calls == ["boom?", "slow?", "last?"]  # "b" failed in the first run: it is asked again
    assert [r["sample_id"] for r in rows] == ["a", "b", "c", "d"]
    header, *saved = read_jsonl(progress)
    assert "ragtest_progress" in header  # the file records what answered
    assert sorted(r["sample_id"] for r in saved) == ["a", "b", "b", "c", "d"]


def test_sync_adapter_loaded_by_import_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_rag.py").write_text(
        textwrap.dedent("""
        from ragtest_core.schema import RAGAnswer

        class MyRAG:
            def __init__(self, prefix: str = "A:") -> None:
                self.prefix = prefix

            def answer(self, question: str) -> RAGAnswer:
                return RAGAnswer(answer=self.prefix + question, contexts=["doc"])

        def make_dict_rag():
            class DictRAG:
                def answer(self, question):
                    return {"response": "dict " + question, "retrieved_contexts": ["x", "y"]}
            return DictRAG()

        not_a_rag = 42
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    adapter = load_adapter("my_rag:MyRAG")
    rows = run_sync(answer_samples([{"question": "q?"}], adapter, show_progress=False))
    assert rows[0]["answer"] == "A:q?" and rows[0]["contexts"] == ["doc"] and rows[0]["context_ids"] is None
    rows = run_sync(answer_samples([{"question": "q?"}], load_adapter("my_rag:make_dict_rag"), show_progress=False))
    assert rows[0]["answer"] == "dict q?" and rows[0]["contexts"] == ["x", "y"]
    with pytest.raises(RagtestError, match="no answer"):
        load_adapter("my_rag:not_a_rag")
    with pytest.raises(RagtestError, match="cannot import"):
        load_adapter("no_such_module_xyz:Thing")
    with pytest.raises(RagtestError, match=r"module\.path:ClassOrFactory"):
        load_adapter("my_rag")


def test_progress_rows_are_json(tmp_path: Path) -> None:
    progress = tmp_path / "p.jsonl"
    run_sync(answer_samples(SAMPLES[:1], FlakyRAG(), progress_path=progress, show_progress=False))
    row = json.loads(progress.read_text().splitlines()[1])  # after the header line
    assert row["answer"] == "answer to first?"
