"""A real LlamaIndex RAG under test: a VectorStoreIndex over the shipped article (ragtest's MiniLM embeddings, a
scripted LLM) answers the demo test set through LlamaIndexAdapter, from Python and from `ragtest answer --rag`,
and the answers are scored with retrieval metrics against the gold chunks. It needs the `llamaindex` extra, which
`make install` installs: without it this module fails to import rather than skip, so CI cannot pass it silently."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.llms import CompletionResponse
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.response_synthesizers import get_response_synthesizer

import ragtest
from evaluation.engine import evaluate_dataset
from rag_under_test import LlamaIndexAdapter
from rag_under_test.collect import answer_samples
from rag_under_test.loader import load_adapter
from ragtest.cli import main
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.datasets import read_jsonl, records
from ragtest_core.text import split_sentences
from tests.rag_under_test import llamaindex_app as app

ROOT = Path(__file__).resolve().parents[2]
APP = "tests.rag_under_test.llamaindex_app"
TOPIC = "Python (programming language)"
SIZE = 6
METRICS = "hit_rate,mrr,context_recall,faithfulness"
NODE_ID = re.compile(r"python-\d+")


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's test set (`make demo` reads the same article), small."""
    path = tmp_path_factory.mktemp("llamaindex") / "testset.jsonl"
    source = ["--topic", TOPIC, "--wiki-cache", str(ROOT / "examples" / "wikipedia"), "--offline"]
    assert main(["generate", "--quiet", *source, "--size", str(SIZE), "--seed", "3", "--output", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def article() -> str:
    return app.ARTICLE.read_text(encoding="utf-8")


def check_answered(row: dict[str, Any], article: str, top_k: int = app.TOP_K) -> None:
    """An answer from the retrieved chunks, the chunks as the article's own text (no metadata), their node ids."""
    assert row["answer_error"] is None, row["answer_error"]
    assert len(row["contexts"]) == top_k and all(context in article for context in row["contexts"])
    assert len(row["context_ids"]) == top_k and all(NODE_ID.fullmatch(i) for i in row["context_ids"])
    assert any(row["answer"] in split_sentences(context) for context in row["contexts"]), row["answer"]


def test_a_query_engine_answers_the_demo_testset_sync_and_async(testset: Path, article: str) -> None:
    samples = read_jsonl(testset)
    adapter = LlamaIndexAdapter(app.query_engine())
    rows = run_sync(answer_samples(samples, adapter, show_progress=False))  # aanswer -> the engine's aquery
    assert len(rows) == SIZE
    for row in rows:
        check_answered(row, article)
    ranked = [hit.node.node_id for hit in app.retriever().retrieve(samples[0]["question"])]
    assert rows[0]["context_ids"] == ranked  # the source nodes in rank order
    for row in rows:  # answer -> the engine's query: the same answers and contexts
        sync = adapter.answer(row["question"])
        assert (sync.answer, sync.contexts, sync.context_ids) == (row["answer"], row["contexts"], row["context_ids"])


def test_the_python_api_answers_and_scores_against_the_gold_chunks(testset: Path, tmp_path: Path) -> None:
    config = ragtest.make_config(metrics=METRICS.split(","))
    answers = ragtest.answer(
        testset, config, tmp_path, adapter=LlamaIndexAdapter(app.query_engine()), show_progress=False
    )
    assert answers["answer_error"].isna().all() and answers["context_ids"].map(len).eq(app.TOP_K).all()
    scored = ragtest.evaluate(tmp_path / "answers.jsonl", config, show_progress=False).to_pandas()
    check_retrieval_scored(records(scored))


def check_retrieval_scored(rows: list[dict[str, Any]]) -> None:
    """LlamaIndex's own chunks are matched to the gold chunks by text: real hit rates and MRRs, not zeros."""
    assert all(isinstance(row["hit_rate"], float) and isinstance(row["mrr"], float) for row in rows)
    assert all("text" in row["hit_rate_reason"] for row in rows), [row["hit_rate_reason"] for row in rows]
    assert sum(row["hit_rate"] for row in rows) / len(rows) >= 0.5
    assert all(isinstance(row["faithfulness"], float) for row in rows)


def test_the_cli_wraps_a_query_engine_factory_and_scores_it(testset: Path, tmp_path: Path, article: str) -> None:
    answers, scores = tmp_path / "answers.jsonl", tmp_path / "scores.jsonl"
    rag = ["--rag", f"{APP}:query_engine", "--rag-arg", "top_k=3"]
    assert main(["answer", "--quiet", "--input", str(testset), "--output", str(answers), *rag]) == 0
    rows = read_jsonl(answers)
    for row in rows:
        check_answered(row, article, top_k=3)
    assert main(["evaluate", "--quiet", "--input", str(answers), "--metrics", METRICS, "--output", str(scores)]) == 0
    check_retrieval_scored(read_jsonl(scores))


def test_a_retriever_or_an_engine_object_is_wrapped(
    testset: Path, article: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter = load_adapter(f"{APP}:retriever", top_k=2)
    assert isinstance(adapter, LlamaIndexAdapter)
    question = read_jsonl(testset)[0]["question"]
    result = run_sync(adapter.aanswer(question))
    check_answered({**result.model_dump(), "answer_error": result.error}, article, top_k=2)
    (tmp_path / "li_rag.py").write_text(f"from {APP} import query_engine\nengine = query_engine(top_k=2)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    instance = load_adapter("li_rag:engine")  # an engine object, not a factory: wrapped as it is
    assert isinstance(instance, LlamaIndexAdapter) and len(instance.answer(question).contexts) == 2
    with_synthesizer = LlamaIndexAdapter(app.retriever(), synthesizer=get_response_synthesizer(llm=app.ExtractiveLLM()))
    engine = LlamaIndexAdapter(app.query_engine()).answer(question)
    assert with_synthesizer.answer(question) == engine  # retriever + synthesizer = the engine built from them


def test_a_streaming_engine_is_read_to_its_end(testset: Path) -> None:
    question = read_jsonl(testset)[0]["question"]
    expected = LlamaIndexAdapter(app.query_engine()).answer(question)
    streaming = LlamaIndexAdapter(app.query_engine(streaming=True))
    assert streaming.answer(question) == expected
    assert run_sync(streaming.aanswer(question)) == expected


class SilentLLM(app.ExtractiveLLM):
    """An LLM that says nothing: LlamaIndex's synthesizer answers "Empty Response" over the retrieved nodes."""

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text="")


class BrokenEngine(CustomQueryEngine):
    def custom_query(self, query_str: str) -> str:
        raise RuntimeError("vector store offline")


def test_a_failing_or_empty_engine_keeps_its_row_with_a_reason() -> None:
    empty_index = VectorStoreIndex([], embed_model=app.MiniLMEmbedding())
    empty = LlamaIndexAdapter(empty_index.as_query_engine(llm=app.ExtractiveLLM()))
    samples = [{"question": "What is CPython?", "reference_context_ids": ["g1"], "reference_contexts": ["CPython."]}]
    broken = run_sync(answer_samples(samples, LlamaIndexAdapter(BrokenEngine()), show_progress=False))[0]
    assert broken["answer"] == "" and broken["answer_error"] == "RuntimeError: vector store offline"
    nothing = run_sync(answer_samples(samples, empty, show_progress=False))[0]
    assert nothing["answer"] == "" and nothing["contexts"] == [] and nothing["context_ids"] == []
    assert "'Empty Response'" in nothing["answer_error"] and "retrieved nothing" in nothing["answer_error"]
    silent = LlamaIndexAdapter(app.index().as_query_engine(llm=SilentLLM(), similarity_top_k=2))
    unsaid = run_sync(answer_samples(samples, silent, show_progress=False))[0]
    assert unsaid["answer"] == "" and len(unsaid["contexts"]) == 2 and "2 source node(s)" in unsaid["answer_error"]
    frame = pd.DataFrame([broken, nothing, unsaid])
    scored = evaluate_dataset(frame, metrics=["hit_rate", "faithfulness"], show_progress=False)
    broken_row, nothing_row, unsaid_row = records(scored.frame)
    for row in (broken_row, nothing_row):  # no NaN: no score, and the RAG's reason
        assert row["hit_rate"] is None and row["faithfulness"] is None
        assert row["hit_rate_reason"].startswith("RAG error: ") and row["faithfulness_reason"].startswith("RAG error")
    assert isinstance(unsaid_row["hit_rate"], float)  # what it retrieved is still scored; the answer is not
    assert unsaid_row["faithfulness"] is None and unsaid_row["faithfulness_reason"].startswith("RAG error")
    with pytest.raises(ragtest.RagtestError, match="query engine or retriever"):
        LlamaIndexAdapter(object())


def test_without_the_extra_ragtest_runs_and_the_adapter_names_it() -> None:
    script = textwrap.dedent("""
        import sys
        sys.modules["llama_index"] = None  # llama-index-core not installed: every import of it fails
        import ragtest.cli, rag_under_test
        from rag_under_test import LlamaIndexAdapter
        from rag_under_test.loader import load_adapter
        assert isinstance(load_adapter("rag_under_test:HTTPAdapter", url="http://127.0.0.1:9/rag"),
                          rag_under_test.HTTPAdapter)
        try:
            LlamaIndexAdapter(object())
        except ragtest.RagtestError as exc:
            print(exc)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert 'pip install "ragtest[llamaindex]"' in done.stdout
