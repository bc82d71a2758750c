from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragtest_core.datasets import write_dataset
from ragtest_core.embeddings import Embedder
from ragtest_core.llm import LLMClient
from testgen import (
    ChunkStore,
    ExtractiveWriter,
    GenerationSettings,
    LLMWriter,
    TestsetGenerator,
    chunk_documents,
    load_wikipedia,
)
from testgen.contexts import build_contexts, draw_roots
from testgen.critic import OfflineCritic
from testgen.sources import make_document
from testgen.stopping import ShortfallError
from tests.stubs.scripted import ScriptedChatModel
from tests.testgen.whole_corpus import all_chunks

PYTHON = "Python (programming language)"


class CountingEmbedder:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.embedded = 0

    def embed(self, texts: Any) -> Any:
        self.embedded += len(texts)
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def python_store(tmp_path_factory: pytest.TempPathFactory, wiki_dir: Path, embedder: Embedder) -> ChunkStore:
    docs = load_wikipedia(PYTHON, cache_dir=wiki_dir, prefer_cache=True)
    store = ChunkStore(tmp_path_factory.mktemp("store"), embedder)
    assert store.add(chunk_documents(docs)) == store.count() > 100
    return store


def test_second_add_embeds_nothing(tmp_path: Path, wiki_dir: Path, embedder: Embedder) -> None:
    chunks = chunk_documents(load_wikipedia("Brown bear", cache_dir=wiki_dir, prefer_cache=True))[:20]
    counting = CountingEmbedder(embedder)
    store = ChunkStore(tmp_path / "s", counting)  # type: ignore[arg-type]
    assert store.add(chunks) == 20 and counting.embedded == 20
    reopened = ChunkStore(tmp_path / "s", counting)  # type: ignore[arg-type]
    assert reopened.add(chunks) == 0 and counting.embedded == 20
    assert reopened.count() == 20
    assert all_chunks(reopened) == sorted(chunks, key=lambda c: c.position)
    assert reopened.get([chunks[3].chunk_id, "missing"]) == [chunks[3]]


def test_batched_query_finds_the_chunk_itself(python_store: ChunkStore) -> None:
    chunks = all_chunks(python_store)
    hits = python_store.query([chunks[0].text, chunks[50].text], k=3)
    assert [row[0].id for row in hits] == [chunks[0].chunk_id, chunks[50].chunk_id]
    assert hits[0][0].distance < 0.01 and hits[0][0].distance <= hits[0][1].distance
    assert hits[0][0].metadata["source"] == PYTHON


def test_contexts_exclude_root_and_adjacent_chunks(python_store: ChunkStore) -> None:
    roots = draw_roots(all_chunks(python_store), seed=7)[:10]
    for context in build_contexts(python_store, roots, k_neighbours=3):
        assert len(context.neighbours) == 3
        for chunk in context.neighbours:
            assert chunk.chunk_id != context.root.chunk_id and abs(chunk.position - context.root.position) > 1
        assert context.render().startswith(f"[1] {context.root.text}")


def test_extractive_generation_on_the_python_article(python_store: ChunkStore, tmp_path: Path) -> None:
    settings = GenerationSettings(question_types="simple", size=10, seed=42)
    generator = TestsetGenerator(python_store, ExtractiveWriter(seed=42), settings)
    samples = generator.generate()
    assert len(samples) == 10
    stored = {c.chunk_id for c in all_chunks(python_store)}
    for sample in samples:
        assert sample.question.endswith("?")
        assert sample.reference_context_ids and set(sample.reference_context_ids) <= stored
        assert sample.answer_span and sample.answer_span in " ".join(sample.reference_contexts[0].split())
        assert sample.ground_truth.endswith(".") and sample.answer_span in sample.ground_truth
        assert sample.writer == "extractive" and sample.source == PYTHON and sample.question_type == "simple"
        assert sample.source_url == "https://en.wikipedia.org/wiki/Python_(programming_language)"
    assert len({s.question.lower() for s in samples}) == 10
    stats = generator.stats.to_dict()
    assert stats["accepted"] == 10 and stats["writer"]["turned"] > 0
    fresh = ChunkStore(tmp_path / "fresh", python_store.embedder)  # a second store built from the same source
    fresh.add(all_chunks(python_store))
    again = TestsetGenerator(fresh, ExtractiveWriter(seed=42), settings).generate()
    first_file = write_dataset([s.model_dump() for s in samples], tmp_path / "a.jsonl")
    second_file = write_dataset([s.model_dump() for s in again], tmp_path / "b.jsonl")
    assert first_file.read_bytes() == second_file.read_bytes()


def test_size_beyond_the_corpus_fails_with_counts(tmp_path: Path, embedder: Embedder) -> None:
    doc = make_document("Python is a programming language. Java was designed by James Gosling.", source="tiny")
    store = ChunkStore(tmp_path / "tiny", embedder)
    store.add(chunk_documents([doc]))
    with pytest.raises(ShortfallError, match=r"only 2 of the 5 requested samples") as info:
        TestsetGenerator(
            store, ExtractiveWriter(), GenerationSettings(size=5, seed=1, questions_per_context=3)
        ).generate()
    assert "candidate questions" in str(info.value) and len(info.value.samples) == 2  # the samples made, kept
    generator = TestsetGenerator(store, ExtractiveWriter(), GenerationSettings(size=5, seed=1, questions_per_context=3))
    fewer = generator.generate(allow_fewer=True)
    assert [s.question for s in fewer] == [s.question for s in info.value.samples]
    assert generator.shortfall is not None and generator.shortfall.made == 2 and generator.shortfall.size == 5


def test_llm_generation_filters_and_marks_multi_context(python_store: ChunkStore) -> None:
    replies = [
        {"pairs": [{"question": "When was Python 3.0 released?", "answer": "2008", "blocks": [1, 2]}]},
        {"pairs": [{"question": "According to the passage, what is Python?", "answer": "a language"}]},
        {"pairs": [{"question": "When was Python 3.0 released", "answer": "2008"}]},
        {"pairs": [{"question": "When was python 3.0 released?", "answer": "2008"}]},
        {"pairs": [{"question": "What is one very long question that goes on for many more words?", "answer": "x"}]},
    ]
    roots = draw_roots(all_chunks(python_store), seed=1)[:5]
    by_root = {root.text: reply for root, reply in zip(roots, replies, strict=True)}

    def responder(prompt: str) -> str:  # calls run concurrently: answer by the root shown as block [1]
        return json.dumps(next((reply for text, reply in by_root.items() if f"[1] {text}" in prompt), {"pairs": []}))

    model = ScriptedChatModel(responder=responder)
    writer = LLMWriter(LLMClient(model, model_id="m"))
    # five questions asked: the first batch writes the first five roots (the scripted replies); later roots give none
    settings = GenerationSettings(question_types="simple", size=5, seed=1, questions_per_context=1, k_neighbours=2)
    generator = TestsetGenerator(python_store, writer, settings, critic=AcceptAll())
    samples = generator.generate(allow_fewer=True)
    assert [s.question for s in samples] == ["When was Python 3.0 released?"], str(generator.stats.to_dict())
    [sample] = samples
    assert sample.question_type == "simple" and len(sample.reference_context_ids) == 2  # both cited blocks
    assert sample.reference_context_ids[0] == sample.root_id and sample.writer == "llm:m"
    assert generator.stats.rejections == {
        "mentions_context": 1,
        "no_question_mark": 1,
        "duplicate": 1,
        "too_long": 1,
    }


class AcceptAll(OfflineCritic):
    """A critic that accepts everything: this test is about the question rules."""

    name = "accept-all"

    async def grounded_many(self, drafts: Any, blocks: Any) -> list[str | None]:
        return [None for _ in drafts]

    async def unanswerable_many(self, drafts: Any, passages: Any) -> list[str | None]:
        return [None for _ in drafts]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[str]:
    """A real `chroma run` server on loopback; stopped at teardown."""
    executable = Path(sys.executable).with_name("chroma")
    if not executable.exists():
        pytest.skip("the chroma command is not installed next to this Python")
    port = _free_port()
    process = subprocess.Popen(
        [
            str(executable),
            "run",
            "--path",
            str(tmp_path / "server"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("chroma server did not start")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_store_on_a_chroma_server(chroma_server: str, embedder: Embedder) -> None:
    doc = make_document("Python is a programming language. Java was designed by James Gosling.", source="tiny")
    chunks = chunk_documents([doc])
    store = ChunkStore(None, embedder, collection="server-chunks", url=chroma_server)
    assert store.add(chunks) == len(chunks)
    assert store.add(chunks) == 0
    assert store.query(["Who designed Java?"], k=1)[0][0].id == chunks[0].chunk_id


def test_corpora_get_their_own_collections_on_a_chroma_server(chroma_server: str, embedder: Embedder) -> None:
    python = chunk_documents([make_document("Python is a programming language. It was created in 1991.", source="a")])
    java = chunk_documents([make_document("Java was designed by James Gosling at Sun Microsystems.", source="b")])
    first = ChunkStore.for_corpus(None, embedder, python, url=chroma_server)
    second = ChunkStore.for_corpus(None, embedder, java, url=chroma_server)
    assert first.collection_name != second.collection_name
    assert {c.source for c in all_chunks(first)} == {"a"} and {c.source for c in all_chunks(second)} == {"b"}
    again = ChunkStore.for_corpus(None, embedder, python, url=chroma_server)
    assert again.collection_name == first.collection_name and again.embedded == 0 and first.embedded == len(python)
    assert set(first.collection_names()) >= {first.collection_name, second.collection_name}
