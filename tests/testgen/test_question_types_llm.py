"""The LLM writer on scripted replies: every question type in the asked-for distribution, filtered and judged."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragtest_core.datasets import write_dataset
from ragtest_core.embeddings import Embedder
from ragtest_core.llm import LLMClient, build_client
from testgen import ChunkStore, GenerationSettings, LLMWriter, TestsetGenerator, chunk_documents, load_wikipedia
from testgen.question_types import allocate, refusal
from testgen.writers.llm import TASKS
from tests.stubs.openai_server import OpenAIStubServer, openai_server  # noqa: F401  (fixture)
from tests.stubs.scripted import ScriptedChatModel
from tests.testgen.scripted_llm import ANSWERABLE_MARK, CRITIC_MARK, numbered, respond

DISTRIBUTION = {
    "simple": 0.3,
    "reasoning": 0.1,
    "multi_context": 0.2,
    "conditional": 0.1,
    "unanswerable": 0.2,
    "distracting": 0.1,
}
MIX = ",".join(f"{kind}={weight}" for kind, weight in DISTRIBUTION.items())


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, wiki_dir: Path, embedder: Embedder) -> ChunkStore:
    docs = load_wikipedia("Python (programming language)", cache_dir=wiki_dir, prefer_cache=True)
    store = ChunkStore(tmp_path_factory.mktemp("types"), embedder)
    store.add(chunk_documents(docs))
    return store


def test_every_type_in_the_asked_distribution(store: ChunkStore) -> None:
    model = ScriptedChatModel(responder=respond)
    writer = LLMWriter(LLMClient(model, model_id="scripted"))
    settings = GenerationSettings(question_types=MIX, size=20, seed=5, k_neighbours=2)
    generator = TestsetGenerator(store, writer, settings)
    samples = generator.generate()
    assert len(samples) == 20
    assert Counter(s.question_type for s in samples) == allocate(20, DISTRIBUTION)
    for sample in samples:
        if sample.question_type == "multi_context":
            assert len(set(sample.reference_context_ids)) == 2 and sample.reference_context_ids[0] == sample.root_id
        elif sample.question_type == "unanswerable":
            assert sample.ground_truth == refusal("en") and sample.reference_context_ids == []
        else:
            assert sample.reference_context_ids == [sample.root_id]
    for kind, task in TASKS.items():  # each type is its own prompt
        assert any(task in prompt for prompt in model.prompts), kind
    stats = generator.stats.to_dict()
    assert stats["critic"] == "llm" and stats["produced_types"] == allocate(20, DISTRIBUTION)
    # llm_calls counts the generator's calls; identical calls in flight at once share one request (LLMClient),
    # so the model may see fewer prompts than that, never more.
    assert 0 < len(model.prompts) <= stats["llm_calls"]
    assert stats["writer"]["calls"] < stats["llm_calls"]
    assert stats["rejections"].get("too_long", 0) > 0  # the scripted writer sometimes breaks the word limit


def test_llm_critic_rejections_are_counted(store: ChunkStore) -> None:
    def stingy(prompt: str) -> str:
        if CRITIC_MARK in prompt:  # supported only when the pair's answer names 2008
            answers = re.findall(r"^\s+answer: (.*)$", prompt.split("\npairs:\n", 1)[1], re.MULTILINE)
            verdicts = [{"pair": n, "supported": "2008" in a} for n, a in enumerate(answers, start=1)]
            return json.dumps({"verdicts": verdicts})
        if ANSWERABLE_MARK in prompt:
            return json.dumps(
                {"verdicts": [{"question": n, "answerable": True} for n in numbered(prompt, "questions:")]}
            )
        return respond(prompt)

    writer = LLMWriter(LLMClient(ScriptedChatModel(responder=stingy), model_id="stingy"))
    settings = GenerationSettings(question_types="simple=1,unanswerable=1", size=12, seed=2)
    generator = TestsetGenerator(store, writer, settings)
    generator.generate(allow_fewer=True)
    rejections = generator.stats.rejections
    assert rejections["not_grounded"] > 0 and rejections["answerable"] > 0


def test_replies_in_any_order_give_the_same_test_set(store: ChunkStore, tmp_path: Path) -> None:
    """Replies that arrive in a different order (each delayed by a per-prompt amount) change nothing."""
    files = []
    for salt in ("a", "b", "c"):

        def late(prompt: str, salt: str = salt) -> str:
            time.sleep(hashlib.sha256(f"{salt}{prompt}".encode()).digest()[0] / 255 * 0.03)
            return respond(prompt)

        model = ScriptedChatModel(responder=late)
        settings = GenerationSettings(question_types=MIX, size=10, seed=3)
        samples = TestsetGenerator(store, LLMWriter(LLMClient(model, model_id="scripted")), settings).generate()
        files.append(write_dataset([s.model_dump() for s in samples], tmp_path / f"{salt}.jsonl").read_bytes())
    assert files[0] == files[1] == files[2]


@pytest.fixture
def stub(openai_server: OpenAIStubServer) -> Iterator[OpenAIStubServer]:  # noqa: F811
    openai_server.responder = lambda request: respond(request.prompt)
    yield openai_server


def test_stub_server_run_is_reproducible_from_the_cache(
    store: ChunkStore, stub: OpenAIStubServer, tmp_path: Path
) -> None:
    files = []
    for attempt in range(2):
        client = build_client("stub-model", base_url=stub.url, cache_path=tmp_path / "cache.sqlite")
        assert client is not None
        settings = GenerationSettings(question_types="simple=0.5,multi_context=0.5", size=6, seed=9, k_neighbours=2)
        samples = TestsetGenerator(store, LLMWriter(client), settings).generate()
        files.append(write_dataset([s.model_dump() for s in samples], tmp_path / f"run{attempt}.jsonl").read_bytes())
        if attempt == 0:
            first_requests = stub.request_count
    assert files[0] == files[1]
    assert stub.request_count == first_requests  # the second run came from the cache
