"""The run's documents: a Wikipedia topic and/or local files, as the config names them, cut into chunks."""

from __future__ import annotations

from langchain_core.documents import Document

import testgen
from ragtest.config import RunConfig
from ragtest_core.errors import RagtestError


def load_documents(config: RunConfig) -> list[Document]:
    """The documents of `config.sources`; a clear error when none is named."""
    sources = config.sources
    if not sources.topic and not sources.source:
        raise RagtestError("nothing to build a test set from: pass --topic TITLE (Wikipedia) or --source PATH")
    documents: list[Document] = []
    if sources.topic:
        documents.extend(
            testgen.load_wikipedia(
                sources.topic,
                cache_dir=sources.resolved_cache(),
                timeout_s=sources.wiki_timeout_s,
                prefer_cache=True if sources.offline else None,
            )
        )
    if sources.source:
        documents.extend(testgen.load_files(sources.source))
    return documents


def load_chunks(config: RunConfig) -> list[testgen.Chunk]:
    """The chunks of the run's documents, cut as `config.generation` says."""
    return testgen.chunk_documents(load_documents(config), config.generation.chunking())
