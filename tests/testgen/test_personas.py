"""Personas and query styles on real documentation: offline, each persona's questions come from the parts of the
httpx docs its description names; with the scripted LLM, the persona and style prompts run end to end."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from ragtest_core.embeddings import Embedder
from ragtest_core.errors import RagtestError
from ragtest_core.llm import LLMClient
from testgen import ChunkStore, ExtractiveWriter, GenerationSettings, LLMWriter, TestsetGenerator, chunk_documents
from testgen.files import load_files
from testgen.personas import PERSONA_PROMPT, load_personas
from testgen.styles import LENGTH_TASKS, STYLE_TASKS
from tests.stubs.scripted import ScriptedChatModel
from tests.testgen.scripted_llm import respond

#: Two personas whose descriptions name different parts of the httpx docs, and the pages of each part.
PERSONAS = [
    {
        "name": "network admin",
        "description": "Runs HTTPX behind corporate networks and configures proxies, SSL certificates and "
        "verification, timeouts, connection pool resource limits and environment variables such as HTTP_PROXY.",
    },
    {
        "name": "async developer",
        "description": "Writes asyncio and trio applications with AsyncClient, streams responses asynchronously, "
        "enables HTTP/2 and uses event hooks and transport extensions.",
    },
]
PARTS = {
    "network admin": {"proxies.md", "ssl.md", "timeouts.md", "resource-limits.md", "environment_variables.md"},
    "async developer": {"async.md", "http2.md", "event-hooks.md", "extensions.md"},
}
#: Pages of neither part, asked about by neither persona if steering works.
OTHERS = {"quickstart.md", "authentication.md", "clients.md", "api.md", "exceptions.md"}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, test_data: Path, embedder: Embedder) -> ChunkStore:
    docs = [
        doc
        for doc in load_files(test_data / "docs" / "httpx")
        if Path(doc.metadata["source"]).name in {*OTHERS, *PARTS["network admin"], *PARTS["async developer"]}
    ]
    store = ChunkStore(tmp_path_factory.mktemp("personas"), embedder)
    store.add(chunk_documents(docs))
    return store


@pytest.fixture
def personas_file(tmp_path: Path) -> Path:
    path = tmp_path / "personas.yaml"
    path.write_text(
        "".join(f"- name: {p['name']}\n  description: {p['description']}\n" for p in PERSONAS), encoding="utf-8"
    )
    return path


def test_personas_files_in_yaml_or_json(personas_file: Path, tmp_path: Path) -> None:
    as_json = tmp_path / "personas.json"
    as_json.write_text(json.dumps(PERSONAS), encoding="utf-8")
    assert load_personas(personas_file) == load_personas(as_json)
    assert [p.name for p in load_personas(as_json)] == ["network admin", "async developer"]
    bad = tmp_path / "bad.yaml"
    for text, why in [("name: x\n", "non-empty list"), ("- name: x\n", "description"), ("- [", "cannot read")]:
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(RagtestError, match=why):
            load_personas(bad)
    bad.write_text(json.dumps([PERSONAS[0], PERSONAS[0]]), encoding="utf-8")
    with pytest.raises(RagtestError, match="unique"):
        load_personas(bad)


def test_each_persona_asks_about_its_parts(store: ChunkStore, personas_file: Path) -> None:
    settings = GenerationSettings(size=12, seed=3, personas=str(personas_file), query_styles="web,misspelled")
    generator = TestsetGenerator(store, ExtractiveWriter(seed=3), settings)
    samples = generator.generate()
    rows = [sample.model_dump() for sample in samples]
    asked = Counter(row["persona"] for row in rows)
    assert set(asked) == set(PARTS) and generator.stats.to_dict()["personas"] == dict(asked)
    for persona, pages in PARTS.items():
        own = [row for row in rows if row["persona"] == persona]
        share = sum(Path(row["source"]).name in pages for row in own) / len(own)
        assert share >= 0.6, (persona, share, [(row["source"], row["canonical_question"]) for row in own])
    styles = Counter(row["query_style"] for row in rows)
    assert styles == {"web": 6, "misspelled": 6}
    assert all(row["question"] != row["canonical_question"] for row in rows)


def test_default_rows_carry_no_persona_or_style(store: ChunkStore) -> None:
    samples = TestsetGenerator(store, ExtractiveWriter(seed=3), GenerationSettings(size=3, seed=3)).generate()
    for row in (sample.model_dump() for sample in samples):
        assert not {"persona", "query_style", "query_length", "canonical_question"} & set(row)


def _rewrite(prompt: str) -> str:
    """A model's rewrite of the question in the restyle prompt, marked so the test can find it."""
    question = re.search(r"^question: (.*)$", prompt, re.MULTILINE)
    assert question is not None
    return json.dumps({"question": f"{question.group(1).rstrip('?').lower()} (rewritten)"})


def test_persona_and_style_prompts_with_the_scripted_llm(store: ChunkStore, personas_file: Path) -> None:
    model = ScriptedChatModel(
        responder=lambda prompt: _rewrite(prompt) if prompt.startswith("Rewrite the question") else respond(prompt)
    )
    writer = LLMWriter(LLMClient(model, model_id="scripted"))
    settings = GenerationSettings(
        size=6, seed=5, personas=str(personas_file), query_styles="perfect,web", query_lengths="long"
    )
    generator = TestsetGenerator(store, writer, settings)
    samples = [sample.model_dump() for sample in generator.generate()]
    assert len(samples) == 6 and {row["persona"] for row in samples} <= set(PARTS)
    writes = [p for p in model.prompts if p.startswith("Your task is to write exactly")]
    assert writes and all("Write each question as " in p and " would ask it" in p for p in writes)
    rewrites = [p for p in model.prompts if p.startswith("Rewrite the question")]
    assert len(rewrites) == 6  # every row: a long question (perfect or web)
    assert all(LENGTH_TASKS["long"] in p and "The asker is " in p for p in rewrites)
    assert sum(STYLE_TASKS["web"] in p for p in rewrites) == 3
    for row in samples:
        assert row["question"] == f"{row['canonical_question'].rstrip('?').lower()} (rewritten)"
        assert row["query_length"] == "long" and row["query_style"] in {"perfect", "web"}
    assert generator.stats.to_dict()["query_styles"]["rewrite_calls"] == 6


def _describe(prompt: str) -> str:
    """A model's persona for the passages of a persona prompt: named after the first passage's heading."""
    heading = re.search(r"^\[1\] § ([^>\n]+)", prompt, re.MULTILINE)
    topic = heading.group(1).strip() if heading else "docs"
    return json.dumps({"name": f"{topic} reader", "description": f"Reads about {topic} and asks how to use it."})


def test_personas_derived_from_clusters_of_the_corpus(store: ChunkStore) -> None:
    head = PERSONA_PROMPT.split("\n", 1)[0]
    model = ScriptedChatModel(responder=lambda p: _describe(p) if p.startswith(head) else respond(p))
    writer = LLMWriter(LLMClient(model, model_id="scripted"))
    generator = TestsetGenerator(store, writer, GenerationSettings(size=4, seed=2, personas="auto"))
    samples = [sample.model_dump() for sample in generator.generate()]
    asked = [p for p in model.prompts if p.startswith(head)]
    assert len(asked) == 3 and all(p.count("\n[") == 5 for p in asked)  # five passages nearest each centre
    names = [persona.name for persona in generator.personas]
    assert len(set(names)) == 3 and all(name.endswith("reader") or name.endswith(")") for name in names)
    assert {row["persona"] for row in samples} <= set(names)
    assert generator.stats.to_dict()["llm_calls"] >= 3
    with pytest.raises(RagtestError, match="needs an LLM"):
        TestsetGenerator(store, ExtractiveWriter(), GenerationSettings(size=2, personas="auto")).generate()
