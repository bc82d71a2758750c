"""Every read of the store is paged: whole-collection reads, reads by id and neighbour lookups give the same chunks
with pages of a few records as in one read, and the generator draws the same roots from keys as from chunks."""

from __future__ import annotations

from pathlib import Path

import pytest

import testgen.store as store_module
from ragtest_core.embeddings import Embedder
from testgen import ChunkStore, ExtractiveWriter, GenerationSettings, TestsetGenerator, chunk_documents, load_wikipedia
from testgen.chunking import ChunkingConfig
from testgen.contexts import draw_roots
from tests.testgen.whole_corpus import all_chunks, prepare


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory, wiki_dir: Path, embedder: Embedder) -> ChunkStore:
    docs = load_wikipedia("Polar bear", cache_dir=wiki_dir, prefer_cache=True)
    docs += load_wikipedia("Java (programming language)", cache_dir=wiki_dir, prefer_cache=True)
    store = ChunkStore(tmp_path_factory.mktemp("paged"), embedder)
    store.add(chunk_documents(docs, ChunkingConfig(chunk_size=300, chunk_overlap=50)))
    return store


def test_paged_reads_equal_one_read(small_store: ChunkStore, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = all_chunks(small_store)
    keys = small_store.chunk_keys()
    assert len(whole) == small_store.count() > 100
    monkeypatch.setattr(store_module, "PAGE_SIZE", 7)
    monkeypatch.setattr(store_module, "ID_BATCH", 5)
    calls: list[int | None] = []
    original = small_store._collection.get

    def counting_get(*args: object, **kwargs: object) -> object:
        limit = kwargs.get("limit")
        ids = kwargs.get("ids")
        calls.append(len(ids) if isinstance(ids, list) else limit)  # type: ignore[arg-type]
        return original(*args, **kwargs)

    monkeypatch.setattr(small_store._collection, "get", counting_get)
    assert all_chunks(small_store) == whole
    assert small_store.chunk_keys() == keys
    assert all(n is not None and n <= 7 for n in calls)  # never an unbounded read
    assert len(calls) > len(whole) // 7
    ids = [c.chunk_id for c in whole[::3]]
    assert [c.chunk_id for c in small_store.get(ids)] == ids
    assert small_store.existing_ids([*ids, "missing"]) == set(ids)
    doc = whole[0].doc_id
    assert small_store.document_chunks(doc) == [c for c in whole if c.doc_id == doc]
    neighbours = small_store.neighbours_of(ids[:12], k=3)
    assert [row[0].id for row in neighbours] == ids[:12]  # each chunk is its own nearest
    assert max(n for n in calls if n is not None) <= 7


def test_keys_draw_the_roots_chunks_draw(small_store: ChunkStore) -> None:
    chunks = all_chunks(small_store)
    keys = small_store.chunk_keys()
    assert [k.chunk_id for k in keys] == [c.chunk_id for c in chunks]
    assert [k.chunk_id for k in draw_roots(keys, seed=3)] == [c.chunk_id for c in draw_roots(chunks, seed=3)]


def test_writer_reading_documents_on_demand_writes_what_the_whole_corpus_gives(small_store: ChunkStore) -> None:
    """The offline writer's casing from one document at a time equals the casing learnt from every chunk."""

    class WholeCorpusWriter(ExtractiveWriter):
        def learn(self, store: ChunkStore) -> None:
            prepare(self, all_chunks(store))

    settings = GenerationSettings(critic="offline", size=6, seed=5)
    on_demand = TestsetGenerator(small_store, ExtractiveWriter(seed=1), settings).generate()
    whole = TestsetGenerator(small_store, WholeCorpusWriter(seed=1), settings).generate()
    assert [s.question for s in on_demand] == [s.question for s in whole]
    assert [s.reference_context_ids for s in on_demand] == [s.reference_context_ids for s in whole]
