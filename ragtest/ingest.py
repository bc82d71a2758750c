"""Ingest: a run's sources loaded, chunked and embedded into the corpus's store collection.

In one process the corpus's chunks are in memory once, while they are embedded, and are let go
before generation starts (the generator reads the store page by page). With `--ray` the same public testgen
functions run as a Ray Data pipeline (`ragtest.distributed.ingest`) and the driver never holds the corpus.
"""

from __future__ import annotations

from pathlib import Path

import testgen
from ragtest.config import RunConfig
from ragtest.documents import Corpus, load_sources
from ragtest.run_state import RunState
from ragtest_core.embedding_cache import CachedEmbeddings, embedding_cache_enabled
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import RagtestError
from testgen.chunking import Chunk


def corpus_store(config: RunConfig, store_dir: Path, embedder: Embedder, chunks: list[Chunk]) -> testgen.ChunkStore:
    """The store of this run's corpus: its own collection (keyed by sources, chunk settings and model), filled; chunk
    vectors come from the user-level embedding cache when it holds them."""
    cache = CachedEmbeddings(embedder) if embedding_cache_enabled() else None
    return testgen.ChunkStore.for_corpus(store_dir, embedder, chunks, url=config.store_url, cache=cache)


def ingest(state: RunState, store_dir: Path, embedder: Embedder) -> Corpus:
    """The run's corpus in its store: on Ray when the run has a Ray address, else loaded, chunked and embedded in
    this process."""
    config = state.config
    if config.ray_address is not None:
        from ragtest.distributed import ingest_on_ray  # only with --ray: it imports Ray

        return ingest_on_ray(state, store_dir, embedder)
    with state.timed("load_sources"):
        sources = load_sources(config)
    with state.timed("chunk"):
        chunks = testgen.chunk_documents(sources.documents, config.generation)
    if not chunks:
        raise RagtestError("the sources hold no text to build a test set from")
    with state.timed("embed"):
        store = corpus_store(config, store_dir, embedder, chunks)
    return Corpus(store, len(sources.documents), len(chunks), store.embedded, sources.record())
