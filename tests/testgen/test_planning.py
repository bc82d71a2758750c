"""The public planning API (`testgen.planning.plan_types`, `plan_batch`, `plan_llm_calls`): what a generation run
will send,
planned without a client by the code that sends it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import testgen
import testgen.planning
from ragtest_core.embeddings import Embedder
from ragtest_core.llm import LLMClient, PlannedCall
from testgen import ChunkStore, GenerationSettings, LLMWriter, TestsetGenerator, chunk_documents, load_wikipedia
from testgen.chunking import Chunk
from testgen.contexts import Context
from testgen.critic import Answerabilities, LLMCritic, grounded_call
from testgen.writers import Draft
from testgen.writers.llm import writer_call
from tests.stubs.scripted import ScriptedChatModel
from tests.testgen.scripted_llm import respond
from tests.testgen.whole_corpus import all_chunks

WRITER_MARK = "question/answer pair(s) from the given context"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, wiki_dir: Path, embedder: Embedder) -> ChunkStore:
    docs = load_wikipedia("Python (programming language)", cache_dir=wiki_dir, prefer_cache=True)
    store = ChunkStore(tmp_path_factory.mktemp("planning"), embedder)
    store.add(chunk_documents(docs))
    return store


def test_plan_types_is_the_first_batch_per_type() -> None:
    assert testgen.planning.plan_types(4) == {"simple": 2, "reasoning": 1, "multi_context": 1}
    assert testgen.planning.plan_types(10, questions_per_context=3, question_types="simple=1") == {"simple": 4}
    assert testgen.planning.plan_types(0) == {}


def test_plan_batch_walks_the_seeded_roots_per_type(store: ChunkStore) -> None:
    chunks = all_chunks(store)
    pairs = testgen.planning.plan_batch(chunks, size=6, seed=3, question_types={"simple": 1, "multi_context": 1})
    assert [kind for _, kind in pairs] == ["simple"] * 3 + ["multi_context"] * 3
    assert len({root.chunk_id for root, _ in pairs}) == 6
    assert pairs == testgen.planning.plan_batch(
        chunks, size=6, seed=3, question_types={"simple": 1, "multi_context": 1}
    )
    assert testgen.planning.plan_batch([], size=6) == []


def test_planned_writer_calls_are_what_the_generator_sends(store: ChunkStore) -> None:
    """With the store, the planned writer prompts are exactly the first batch's prompts (schema included)."""
    types = {"simple": 0.5, "multi_context": 0.25, "unanswerable": 0.25}
    planned = testgen.planning.plan_llm_calls(
        all_chunks(store), size=8, seed=4, k_neighbours=2, question_types=types, store=store
    )
    writes = [call for call in planned if call.stage == "testgen"]
    critics = [call for call in planned if call.stage == "testgen_critic"]
    # the multi-hop check asks each cited block of a multi-context draft alone (testgen.hop_critic)
    alone = [c for c in critics if c.question_type == "multi_context" and c.schema is Answerabilities]
    assert len(alone) == 2 * [c.question_type for c in writes].count("multi_context") > 0
    critics = [c for c in critics if c not in alone]
    # the LLM writer asks two questions of each context; the critic judges a context's questions in one call
    assert (
        len(writes)
        == len(critics)
        == sum(testgen.planning.plan_types(8, questions_per_context=2, question_types=types).values())
    )
    assert all(isinstance(c, PlannedCall) for c in planned) and len(writes) == 4
    assert all(call.schema is not None and call.items == 2 for call in writes + critics)
    assert [c.question_type for c in critics].count("unanswerable") == 1

    model = ScriptedChatModel(responder=respond)
    mix = ",".join(f"{kind}={weight}" for kind, weight in types.items())
    settings = GenerationSettings(question_types=mix, size=8, seed=4, k_neighbours=2)
    TestsetGenerator(store, LLMWriter(LLMClient(model, model_id="scripted")), settings).generate()
    sent = [prompt for prompt in model.prompts if WRITER_MARK in prompt]
    assert sorted(sent[: len(writes)]) == sorted(call.text() for call in writes)


def test_plan_without_a_store_or_critic(store: ChunkStore) -> None:
    chunks = all_chunks(store)
    calls = testgen.planning.plan_llm_calls(chunks, size=5, questions_per_context=2, k_neighbours=3, critic=False)
    assert {call.stage for call in calls} == {"testgen"}
    assert sum(call.items for call in calls) >= 5 and all(call.items == 2 for call in calls)
    assert all("[4] " in call.prompt for call in calls)  # root + three stand-in neighbours
    with_critic = testgen.planning.plan_llm_calls(chunks, size=5, questions_per_context=2, k_neighbours=3)
    multi = [call.question_type for call in calls].count("multi_context")
    # one critic call per context, for both its questions; a multi-context one's two blocks are also asked alone
    assert len(with_critic) == len(calls) * 2 + 2 * multi


def test_writer_and_critic_build_their_calls_with_the_planning_functions() -> None:
    chunk = Chunk(chunk_id="c0", text="Python 3.0 was released in 2008.", doc_id="d", source="Python", position=0)
    context = Context(root=chunk)
    writer_model = ScriptedChatModel(responses=['{"pairs": []}'])
    writer = LLMWriter(LLMClient(writer_model, model_id="scripted"), max_words=12)
    asyncio.run(writer.write(context, 2, "reasoning"))
    call = writer_call(context, 2, "reasoning", max_words=12)
    assert call.items == 2 and call.text().startswith(call.prompt) and '"pairs"' in call.text()
    assert call.prompt in writer_model.prompts[0]

    model = ScriptedChatModel(
        responses=['{"verdicts": [{"pair": 1, "supported": true}, {"pair": 2, "supported": false}]}']
    )
    critic = LLMCritic(LLMClient(model, model_id="scripted"))
    drafts = [
        Draft("When was Python 3.0 released?", "Python 3.0 was released in 2008.", (1,), "simple"),
        Draft("Who released Python 3.0?", "Python 3.0 was released by Oracle.", (1,), "simple"),
    ]
    assert asyncio.run(critic.grounded_many(drafts, [chunk.text])) == [None, "not_grounded"]
    pairs = [(d.question, d.answer, d.blocks) for d in drafts]
    assert model.prompts == [grounded_call(pairs, [chunk.text]).text()]  # both drafts, one call
