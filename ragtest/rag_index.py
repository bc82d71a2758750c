"""The reference RAG's index: the test set's own store, or an index of its own over the test set's documents.

A test set's store was built with its generation settings (chunk size, overlap, separators) and embedding model,
as its manifest records them. The reference RAG's settings that mirror those (`--rag-chunk-size` mirrors
`--chunk-size`, `--rag-embedding-model` mirrors `--embedding-model`: `Opt.mirrors`) default to the test set's
values. When one differs, the reference RAG re-reads the test set's documents (the sources its manifest names, the
Wikipedia pages pinned to their revisions, each checked against the text hash the manifest recorded), cuts them with
its own chunking and embeds them into a collection of its own (the run's store folder, or the Chroma server), every
vector from the content-addressed embedding cache when it holds it. Otherwise it reads the test set's store.

What the reference RAG needs to know of a test set's store travels in the manifests as `stats.testset_store`
(`TestsetStore`): written by `generate`, carried into every manifest of a stage that starts from the test set, so a
run on a copied test set still finds the documents and the store it came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rag_under_test
import testgen
from rag_under_test.reference import Passage
from ragtest.config import RunConfig
from ragtest.documents import describe_document, load_sources
from ragtest.ingest import corpus_store
from ragtest.run_state import STORE_DIR, RunState
from ragtest.settings import Setting, flag_of, iter_settings, settings_by_keyword, settings_record
from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.errors import RagtestError
from ragtest_core.schema import CORPUS_ID

#: The manifest's `stats` entry that describes the test set's store (`TestsetStore.record`).
TESTSET_STORE_KEY = "testset_store"
#: The sections of a test set's settings that decide its store: where its documents came from, how they were cut,
#: the model that embedded them.
_STORE_SECTIONS = ("sources", "generation", "embedding_model")
#: The source settings that name files or folders.
_PATH_SETTINGS = ("source", "topics_file", "wiki_cache")


@dataclass(frozen=True)
class TestsetStore:
    """What the reference RAG knows of the store a test set was generated into."""

    __test__ = False  # not a pytest test class

    #: The test set's settings (sources, generation, embedding model) as its manifest recorded them.
    config: RunConfig
    #: The text hashes of the test set's documents (`ragtest.documents.describe_document`).
    documents: tuple[str, ...] = ()
    #: The topics file pinning the test set's Wikipedia pages to their revisions.
    topics_file: str | None = None
    #: The store folder, once a stage has answered the test set from it (a copied test set's store is its origin's).
    store_dir: str | None = None

    @classmethod
    def of_run(cls, state: RunState) -> TestsetStore:
        """The store this run's `generate` just built (its source paths made absolute: a later run may start
        elsewhere)."""
        documents = tuple(str(doc.get("text_sha256")) for doc in state.stats.get("sources") or [])
        topics = state.stats.get("topics_file")
        sources = state.config.sources
        paths = {name: str(Path(value).resolve()) for name in _PATH_SETTINGS if (value := getattr(sources, name))}
        config = state.config.model_copy(update={"sources": sources.model_copy(update=paths)})
        return cls(config, documents, str(Path(topics).resolve()) if topics else None)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> TestsetStore:
        recorded = record.get("config") or {}
        return cls(
            config=RunConfig.model_validate({key: recorded[key] for key in _STORE_SECTIONS if key in recorded}),
            documents=tuple(str(h) for h in record.get("documents") or [] if h),
            topics_file=record.get("topics_file"),
            store_dir=record.get("store_dir"),
        )

    def record(self) -> dict[str, Any]:
        config = settings_record(self.config, lambda setting: setting.path[0] in _STORE_SECTIONS)
        return {
            "config": config,
            "documents": list(self.documents),
            "topics_file": self.topics_file,
            "store_dir": self.store_dir,
        }


def choose_index(config: RunConfig, testset: TestsetStore | None) -> tuple[RunConfig, tuple[Setting, ...]]:
    """The index the reference RAG reads: the test set's settings with each RAG setting that mirrors one
    (`Opt.mirrors`) in its place when given; and the RAG settings whose value differs from the test set's (none: the
    test set's store serves). A RAG setting given for a test set whose store is unknown (no manifest) is an error:
    its documents are unknown."""
    known = settings_by_keyword(RunConfig)
    mirroring = [s for s in iter_settings(RunConfig) if s.opt.mirrors and s.value_in(config) is not None]
    if testset is None:
        if mirroring:
            raise RagtestError(
                f"{', '.join(s.flag for s in mirroring)} builds the reference RAG's own index over the test set's "
                "documents, but the test set has no manifest saying where they came from (its .manifest.json, or "
                "the run folder's manifest.json, beside it): generate the test set with ragtest first"
            )
        return config, ()
    values = {known[s.opt.mirrors or ""].path: s.value_in(config) for s in mirroring}
    differing = tuple(s for s in mirroring if known[s.opt.mirrors or ""].value_in(testset.config) != s.value_in(config))
    gen = testset.config.generation
    size = config.rag_chunk_size or gen.chunk_size
    overlap = gen.chunk_overlap if config.rag_chunk_overlap is None else config.rag_chunk_overlap
    if overlap >= size:
        whose = ", the test set's" if config.rag_chunk_overlap is None else ""
        names = flag_of(RunConfig, "rag_chunk_overlap"), flag_of(RunConfig, "rag_chunk_size")
        raise RagtestError(f"{names[0]} ({overlap}{whose}) must be smaller than {names[1]} ({size})")
    return _with_values(testset.config, values), differing


def index_record(config: RunConfig) -> dict[str, Any]:
    """An index's chunking and embedding model, as the answers' identity and the manifest record it."""
    gen = config.generation
    return {"chunk_size": gen.chunk_size, "chunk_overlap": gen.chunk_overlap, "embedding_model": config.embedding_model}


@dataclass
class StoreRetriever:
    """The reference RAG's view of a Chroma store (testgen's public store API): the test set's, or (with `index`,
    its chunking and model) one of its own."""

    store: testgen.ChunkStore
    index: dict[str, Any] | None = None

    @property
    def description(self) -> str:
        if not self.index:
            return "the test set's store"
        own = "its own index: {chunk_size}-character chunks, {chunk_overlap} overlap, {embedding_model}"
        return own.format_map(self.index)

    def retrieve(self, question: str, k: int) -> list[Passage]:
        hits = self.store.query([question], k=k)[0]
        return [Passage(id=hit.id, text=hit.text) for hit in hits]


def test_set_store(
    config: RunConfig, store_dir: Path, embedder: Embedder, samples: list[dict[str, Any]]
) -> testgen.ChunkStore:
    """The store collection a test set was generated into (its `corpus_id` column)."""
    corpora = sorted({str(s[CORPUS_ID]) for s in samples if s.get(CORPUS_ID)})
    if len(corpora) != 1:
        raise RagtestError(f"the test set names {len(corpora)} corpora in {CORPUS_ID} {corpora}: answer one at a time")
    return testgen.ChunkStore(store_dir, embedder, collection=corpora[0], url=config.store_url, create=False)


def reference_rag(state: RunState, store_dir: Path, samples: list[dict[str, Any]]) -> rag_under_test.ReferenceRAG:
    """The reference RAG on the test set's store, or on an index of its own when its settings differ."""
    testset = TestsetStore.from_record(state.stats[TESTSET_STORE_KEY]) if TESTSET_STORE_KEY in state.stats else None
    index, differing = choose_index(state.config, testset)
    embedder = get_embedder(index.embedding_model)
    if differing and testset is not None:
        retriever = StoreRetriever(own_index(state, testset, index, differing, embedder), index_record(index))
    else:
        store = test_set_store(state.config, store_dir, embedder, samples)
        if store.count() == 0:
            raise RagtestError(f"the reference RAG needs the test set's vector store, but {store_dir} is empty")
        retriever = StoreRetriever(store)
    return rag_under_test.ReferenceRAG(retriever, k=state.config.rag_k, llm=state.llm, embedder=embedder)


def own_index(
    state: RunState, testset: TestsetStore, index: RunConfig, differing: tuple[Setting, ...], embedder: Embedder
) -> testgen.ChunkStore:
    """The test set's documents re-read, cut with the RAG's chunking and embedded into a collection of their own
    (keyed by content: a second run with the same settings finds it, or finds its vectors in the embedding cache)."""
    with state.timed("rag_index"):
        documents = testset_documents(testset)
        chunks = testgen.chunk_documents(documents, index.generation)
        if not chunks:
            raise RagtestError("the test set's documents hold no text for the reference RAG's own index")
        store = corpus_store(state.config, state.run_dir / STORE_DIR, embedder, chunks)
    cache = store.cache
    state.stats["rag_index"] = {
        **index_record(index),
        "settings": {s.keyword: s.value_in(state.config) for s in differing},
        "store": store.url or str(store.path),
        "collection": store.collection_name,
        "documents": len(documents),
        "chunks": len(chunks),
        "vectors_embedded": store.embedded,
        "vectors_reused": cache.reused if cache is not None else 0,
        "vectors_computed": cache.computed if cache is not None else store.embedded,
    }
    return store


def testset_documents(testset: TestsetStore) -> list[Any]:
    """The documents the test set was built from: its sources read again (Wikipedia pages from its pinned topics
    file when it has one), kept when their text hash is one the manifest recorded; an error names any that is gone
    or changed."""
    config = testset.config
    if testset.topics_file and Path(testset.topics_file).is_file():
        pinned = {"topic": None, "revision": None, "topics_file": testset.topics_file}
        config = config.model_copy(update={"sources": config.sources.model_copy(update=pinned)})
    try:
        documents = load_sources(config).documents
    except RagtestError as exc:
        raise RagtestError(f"the reference RAG's own index re-reads the test set's documents: {exc}") from exc
    if not testset.documents:
        return list(documents)
    wanted = set(testset.documents)
    hashes = [describe_document(doc)["text_sha256"] for doc in documents]
    missing = wanted - set(hashes)
    if missing:
        sources = [str(x) for x in (config.sources.source, config.sources.topic, config.sources.topics_file) if x]
        raise RagtestError(
            f"the reference RAG's own index needs the documents the test set was built from, but {len(missing)} of "
            f"its {len(wanted)} document(s) are gone or changed since (read from "
            f"{', '.join(sources) or 'the recorded sources'}); "
            "answer with the test set's own chunking (no --rag-chunk-size, --rag-chunk-overlap or "
            "--rag-embedding-model), or generate a new test set"
        )
    return [doc for doc, digest in zip(documents, hashes, strict=True) if digest in wanted]


def _with_values(config: RunConfig, values: Mapping[tuple[str, ...], Any]) -> RunConfig:
    """`config` with the settings at these paths set (validated again)."""
    data = config.model_dump()
    for path, value in values.items():
        target = data
        for name in path[:-1]:
            target = target[name]
        target[path[-1]] = value
    return RunConfig.model_validate(data)
