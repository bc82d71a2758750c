"""The corpus graph, multi-hop questions along its edges, the critic that rejects a multi-hop draft one context
answers alone, and the retrieval metric that needs every gold context."""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

import testgen.graph
from evaluation.metrics.retrieval import all_hit
from evaluation.registry import available_metrics
from ragtest.breakdowns import hops_breakdown
from ragtest_core.embeddings import Embedder
from ragtest_core.llm import LLMClient
from ragtest_core.schema import HOPS
from testgen import ChunkStore, ExtractiveWriter, GenerationSettings, LLMWriter, TestsetGenerator, chunk_documents
from testgen.chunking import Chunk
from testgen.critic import LLMCritic, OfflineCritic
from testgen.files import read_files
from testgen.graph import build_graph, key_terms, mentions
from testgen.hop_critic import ONE_CONTEXT
from testgen.writers.base import Draft
from testgen.writers.extractive import MOST_COMPARED
from testgen.writers.llm.prompt import MULTI_HOP_TASKS
from testgen.writers.multihop.shapes import Claim, hop_drafts
from tests.stubs.scripted import ScriptedChatModel
from tests.testgen.scripted_llm import ANSWERABLE_MARK, numbered, respond

HTTPX_DEFINES = "§ Httpx > Dependencies\n`httpcore` is the underlying transport implementation for `httpx`."
HTTPX_USES = "§ HTTP/2\n`httpcore` negotiates HTTP/2 with the server through ALPN during the TLS handshake."


@pytest.fixture(scope="module")
def httpx_store(test_data: Path, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> ChunkStore:
    # Chunk ids hash each page's path as given: a relative path keeps the roots drawn the same wherever the
    # checkout lives (CI runs in a fresh clone).
    cwd = Path.cwd()
    os.chdir(test_data)
    try:
        chunks = chunk_documents(read_files(Path("docs/httpx")).documents)
    finally:
        os.chdir(cwd)
    return ChunkStore.for_corpus(tmp_path_factory.mktemp("store"), embedder, chunks)


def test_key_terms_and_the_words_a_link_shows() -> None:
    text = "Use `httpx.Client()` with follow_redirects and an AsyncClient; see Timeouts. It is fast."
    assert key_terms(text) == ["asyncclient", "follow_redirects", "httpx.client"]
    assert mentions(text) == ["timeouts"]


def test_graph_on_real_docs_has_every_kind_of_edge_and_grows_incrementally(
    httpx_store: ChunkStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "graph.json"
    graph = build_graph(httpx_store, path)
    summary = graph.summary()
    assert set(summary["edges"]) == {"link", "term", "similar", "sibling"} and min(summary["edges"].values()) > 0
    assert summary["chunks"] == httpx_store.count() and summary["sections"] > 100
    assert summary["components"] < summary["sections"] and summary["pages_joined"]
    for edge in graph.edges:  # every edge joins two sections, with a kind and a weight
        assert graph.facts[edge.source].section != graph.facts[edge.target].section and edge.weight > 0
    root = next(i for i in sorted(graph.facts) if graph.partners(i))
    assert all(graph.facts[p].section != graph.facts[root].section for p in graph.partners(root))
    computed: list[str] = []
    original = testgen.graph.chunk_facts

    def counted(chunk: Chunk) -> testgen.graph.ChunkFacts:
        computed.append(chunk.chunk_id)
        return original(chunk)

    monkeypatch.setattr(testgen.graph, "chunk_facts", counted)
    stored = json.loads(path.read_text(encoding="utf-8"))
    dropped = sorted(stored["chunks"])[:5]
    for chunk_id in dropped:
        del stored["chunks"][chunk_id]
    path.write_text(json.dumps(stored), encoding="utf-8")
    again = build_graph(httpx_store, path)
    assert sorted(computed) == dropped  # only the chunks the file lacked were read again
    assert again.summary() == summary


def test_multihop_shapes_compare_and_bridge() -> None:
    claims = [
        Claim(1, "What is `httpcore`?", "The underlying transport implementation for `httpx`",
              "`httpcore` is the underlying transport implementation for `httpx`.", "concept", "`httpcore`"),
        Claim(2, "What does `httpcore` negotiate?", "HTTP/2", HTTPX_USES.split("\n")[1], "instruction", "`httpcore`"),
        Claim(2, "What is `h11`?", "A pure-Python HTTP/1.1 implementation",
              "`h11` is a pure-Python HTTP/1.1 implementation.", "concept", "`h11`"),
    ]  # fmt: skip
    drafts = {d.question: d for d in hop_drafts(claims, [HTTPX_DEFINES, HTTPX_USES], 30)}
    assert set(drafts) == {
        "How do `h11` and `httpcore` differ?",
        "What does the underlying transport implementation for `httpx` negotiate?",
    }
    assert all(d.blocks == (1, 2) and d.question_type == "multi_context" for d in drafts.values())


def test_offline_critic_rejects_a_multi_hop_draft_one_context_answers(embedder: Embedder) -> None:
    critic = OfflineCritic(embedder)
    honest = Draft(
        "What does the underlying transport implementation for `httpx` negotiate?",
        "`httpcore` is the underlying transport implementation for `httpx`. " + HTTPX_USES.split("\n")[1],
        (1, 2),
        "multi_context",
        evidence=(HTTPX_DEFINES.split("\n")[1], HTTPX_USES.split("\n")[1]),
    )
    assert critic.grounded_one(honest, [HTTPX_DEFINES, HTTPX_USES]) is None
    both = HTTPX_DEFINES + " " + HTTPX_USES.split("\n")[1]  # the planted draft: block 1 says all of it
    assert critic.grounded_one(honest, [both, HTTPX_USES]) == ONE_CONTEXT
    single = Draft(honest.question, honest.answer, (1,), "simple", evidence=honest.evidence)
    assert critic.grounded_one(single, [both]) is None  # a single-context question is no multi-hop draft


def test_llm_critic_asks_each_context_alone_and_rejects_the_one_that_answers() -> None:
    asked: list[str] = []

    def judge(prompt: str) -> str:
        if ANSWERABLE_MARK not in prompt:
            return respond(prompt)
        asked.append(prompt)
        passage = prompt.split("passages:", 1)[1]
        verdicts = [{"question": n, "answerable": "ALPN" in passage and "transport" in passage}
                    for n in numbered(prompt, "questions:")]  # fmt: skip
        return json.dumps({"verdicts": verdicts})

    critic = LLMCritic(LLMClient(ScriptedChatModel(responder=judge), model_id="judge"))
    draft = Draft("What does the underlying transport implementation for `httpx` negotiate?", "HTTP/2.", (1, 2),
                  "multi_context")  # fmt: skip
    assert asyncio.run(critic.grounded_many([draft], [HTTPX_DEFINES, HTTPX_USES])) == [None]
    assert len(asked) == 2  # each cited block on its own
    planted = [HTTPX_DEFINES + " " + HTTPX_USES, HTTPX_USES]
    assert asyncio.run(critic.grounded_many([draft], planted)) == [ONE_CONTEXT]


def test_offline_multi_hop_questions_on_httpx_keep_both_sections(httpx_store: ChunkStore) -> None:
    settings = GenerationSettings(size=2, seed=42, question_types="multi_context", page_share=1.0)
    generator = TestsetGenerator(httpx_store, ExtractiveWriter(seed=42), settings)
    samples = generator.generate(allow_fewer=True)
    hops = [s for s in samples if (s.model_extra or {}).get(HOPS) == 2]
    assert hops, generator.stats.to_dict()
    for sample in hops:
        headings = {text.split("\n")[0] for text in sample.reference_contexts}
        assert len(sample.reference_context_ids) == 2 and len(headings) == 2


def test_an_offline_set_of_40_on_httpx_holds_six_multi_hop_comparisons_of_one_kind(httpx_store: ChunkStore) -> None:
    samples = TestsetGenerator(httpx_store, ExtractiveWriter(seed=42), GenerationSettings(size=40, seed=42)).generate()
    hops = [s for s in samples if (s.model_extra or {}).get(HOPS) == 2]
    assert len(samples) == 40 and len(hops) >= 6, [s.question for s in hops]
    for sample in hops:
        assert len({text.split("\n")[0] for text in sample.reference_contexts}) == 2
        assert sample.question.startswith("How do ") and len(sample.question.split()) <= 10
    compared = Counter(name for s in hops for name in s.question[7:-8].split(" and "))
    assert max(compared.values()) <= MOST_COMPARED  # a thing takes part in few comparisons of one set


def _definition(block: int, name: str, definition: str, heading: str = "") -> Claim:
    return Claim(block, f"What is {name}?", definition, f"{name} is {definition}.", "definition", name, heading)


def test_sibling_sections_compare_their_names_and_shared_words_are_said_once() -> None:
    hishel = _definition(1, "Hishel", "an elegant HTTP Cache implementation", "Packages > Plugins > Hishel")
    sse = _definition(2, "httpx-sse", "allows consuming Server-Sent Events", "Packages > Plugins > httpx-sse")
    cousin = replace(sse, heading="Packages > Gists > httpx-sse")
    assert [d.question for d in hop_drafts([hishel, sse], ["", ""], 10)] == ["How do Hishel and httpx-sse differ?"]
    assert hop_drafts([hishel, cousin], ["", ""], 10) == []  # not siblings, and no head noun in common
    basic = _definition(1, "HTTP basic authentication", "an unencrypted authentication scheme")
    digest = _definition(2, "HTTP digest authentication", "a challenge-response authentication scheme")
    assert [d.question for d in hop_drafts([basic, digest], ["", ""], 10)] == [
        "How do HTTP basic and digest authentication differ?"
    ]


def test_scripted_llm_writes_multi_hop_questions_end_to_end(httpx_store: ChunkStore) -> None:
    prompts: list[str] = []

    def recording(prompt: str) -> str:
        prompts.append(prompt)
        return respond(prompt)

    writer = LLMWriter(LLMClient(ScriptedChatModel(responder=recording), model_id="scripted"))
    # seed 3: its first roots give the scripted model facts in two blocks (at seeds 42 and 5 it finds none)
    settings = GenerationSettings(size=3, seed=3, question_types="multi_context")
    samples = TestsetGenerator(httpx_store, writer, settings).generate(allow_fewer=True)
    written = [p for p in prompts if any(task in p for task in MULTI_HOP_TASKS.values())]
    assert {kind for kind, task in MULTI_HOP_TASKS.items() if any(task in p for p in written)} == {
        "specific",
        "abstract",
    }
    assert any(ANSWERABLE_MARK in p and p.count("\n[") == 1 for p in prompts)  # each context alone
    assert samples and all((s.model_extra or {}).get(HOPS, 1) >= 2 for s in samples)
    for sample in samples:
        assert len({text.split("\n")[0] for text in sample.reference_contexts}) >= 2


def test_all_gold_hit_needs_every_gold_context_and_reports_break_down_by_hops() -> None:
    assert all_hit(["a", "b", "c"], ["a", "c"]) == 1.0
    assert all_hit(["a", "b", "c"], ["a", "c"], k=2) == 0.0
    assert all_hit(["a"], ["a", "b"]) == 0.0 and all_hit(["a"], []) == 0.0
    assert "all_gold_hit" in available_metrics()
    frame = pd.DataFrame(
        {"reference_context_ids": [["a"]] * 4 + [["a", "b"]] * 4, "all_gold_hit": [1.0] * 4 + [0.0, 1.0, 0.0, 0.0]}
    )
    table = hops_breakdown(frame, ["all_gold_hit"])
    assert table is not None
    assert {row.label: row.cells["all_gold_hit"].mean for row in table.full} == {"1": 1.0, "2": 0.25}
