"""A 50-sample set from the seven Wikipedia articles: exact size, no near-duplicates, coverage, rules, same bytes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragtest_core.datasets import write_dataset
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import RagtestError
from ragtest_core.schema import TestSample
from testgen import (
    ChunkingConfig,
    ChunkStore,
    ExtractiveWriter,
    GenerationSettings,
    TestsetGenerator,
    chunk_documents,
    load_files,
)
from testgen.filters import QuestionRules, is_compound, is_specific
from testgen.sources import make_document
from tests.testgen.whole_corpus import all_chunks

SIZE = 50
THRESHOLD = 0.9
#: the fast version reads the first 15,000 characters of each article (lead and early sections): embedding all
#: 360 kB takes about 25 s on two cores, so the whole articles are the slow version.
FAST_PREFIX = 15_000


def _store(root: Path, wiki_dir: Path, embedder: Embedder, prefix: int | None = None) -> ChunkStore:
    documents = load_files(wiki_dir)
    if prefix is not None:
        documents = [make_document(d.page_content[:prefix], source=d.metadata["source"]) for d in documents]
    store = ChunkStore(root, embedder)
    store.add(chunk_documents(documents, ChunkingConfig()))
    return store


@pytest.fixture(scope="module")
def fast_store(tmp_path_factory: pytest.TempPathFactory, wiki_dir: Path, embedder: Embedder) -> ChunkStore:
    return _store(tmp_path_factory.mktemp("seven"), wiki_dir, embedder, FAST_PREFIX)


def _check_set(samples: list[TestSample], generator: TestsetGenerator, store: ChunkStore) -> None:
    assert len(samples) == SIZE
    vectors = store.embedder.embed([s.question for s in samples])
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, 0.0)
    assert float(similarity.max()) <= THRESHOLD
    sources = {chunk.source for chunk in all_chunks(store)}
    assert {s.source for s in samples} == sources and len(sources) == 7
    rules = QuestionRules()
    chunks = {chunk.chunk_id: chunk for chunk in all_chunks(store)}
    for sample in samples:
        contexts = sample.reference_contexts
        assert rules.reason(sample.question, sample.ground_truth, language="en", contexts=contexts) is None
        assert sample.question.endswith("?") and is_specific(sample.question)
        assert not is_compound(sample.question, contexts), sample.question
        assert sample.ground_truth[:1].isupper() and sample.ground_truth.endswith("."), sample.ground_truth
        assert sample.reference_context_ids[0] == sample.root_id
        assert all(
            chunks[i].text == t for i, t in zip(sample.reference_context_ids, sample.reference_contexts, strict=True)
        )
        assert sample.answer_span and sample.answer_span in sample.ground_truth
        if sample.question_type == "simple":
            assert sample.answer_span in " ".join(sample.reference_contexts[0].split())
        else:
            assert sample.question_type == "multi_context" and len(sample.reference_context_ids) == 2
    stats = generator.stats.to_dict()
    assert stats["accepted"] == SIZE and sum(stats["coverage"].values()) == SIZE
    mix = GenerationSettings(question_types="simple=0.5,reasoning=0.5", size=4, seed=42)
    asked = TestsetGenerator(generator.store, ExtractiveWriter(seed=42), mix)
    asked.generate()
    assert any("'reasoning' is not supported by this writer" in w for w in asked.stats.warnings)
    assert stats["documents_without_samples"] == []
    # nobody asked for reasoning or conditional questions: the default mix is what the writer can do, no warning
    assert not any("not supported by this writer" in w for w in stats["warnings"])
    assert set(stats["distribution"]) == {"simple", "multi_context"}


def _multi_context_said(generator: TestsetGenerator) -> None:
    """The offline writer writes multi_context questions only as bridges or comparisons; short of them, it says so."""
    stats = generator.stats
    made, asked = stats.produced_types.get("multi_context", 0), stats.requested_types["multi_context"]
    if made < asked:
        assert any(w.startswith("question type 'multi_context'") for w in stats.warnings), stats.warnings


def test_fifty_samples_from_seven_articles(fast_store: ChunkStore, tmp_path: Path) -> None:
    generator = TestsetGenerator(fast_store, ExtractiveWriter(seed=42), GenerationSettings(size=SIZE, seed=42))
    samples = generator.generate()
    _check_set(samples, generator, fast_store)
    _multi_context_said(generator)
    again = TestsetGenerator(fast_store, ExtractiveWriter(seed=42), GenerationSettings(size=SIZE, seed=42)).generate()
    first = write_dataset([s.model_dump() for s in samples], tmp_path / "a.jsonl").read_bytes()
    second = write_dataset([s.model_dump() for s in again], tmp_path / "b.jsonl").read_bytes()
    assert first == second
    other_seed = TestsetGenerator(
        fast_store, ExtractiveWriter(seed=7), GenerationSettings(size=SIZE, seed=7)
    ).generate()
    assert [s.question for s in other_seed] != [s.question for s in samples]


def test_too_large_a_size_fails_with_the_counts(fast_store: ChunkStore) -> None:
    settings = GenerationSettings(question_types="multi_context", strict_types=True, size=400, seed=1)
    generator = TestsetGenerator(fast_store, ExtractiveWriter(seed=1), settings)
    with pytest.raises(RagtestError, match=r"supplied only \d+ of the 400 requested samples") as info:
        generator.generate()
    assert "rejected" in str(info.value) and "multi_context" in str(info.value)


@pytest.mark.slow
def test_fifty_samples_with_default_chunking(tmp_path: Path, wiki_dir: Path, embedder: Embedder) -> None:
    store = _store(tmp_path / "store", wiki_dir, embedder)
    generator = TestsetGenerator(store, ExtractiveWriter(seed=42), GenerationSettings(size=SIZE, seed=42))
    samples = generator.generate()
    _check_set(samples, generator, store)
    _multi_context_said(generator)
    again = TestsetGenerator(store, ExtractiveWriter(seed=42), GenerationSettings(size=SIZE, seed=42)).generate()
    assert [s.model_dump() for s in samples] == [s.model_dump() for s in again]
