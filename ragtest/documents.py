"""The run's documents: Wikipedia topics (each optionally pinned to a revision) and/or local files, as the config
names them, cut into chunks; with what was skipped and which revisions were used, for the manifest."""

from __future__ import annotations

import hashlib
import sys
from typing import Any

from langchain_core.documents import Document

import testgen
from ragtest.config import RunConfig
from ragtest_core.errors import RagtestError


class Sources(testgen.LoadedFiles):
    """The documents of a run (Wikipedia pages and files), the files skipped (path -> reason) and their warnings."""

    def described(self) -> list[dict[str, Any]]:
        """Per document: source, origin, revision, URL and a hash of its text (the manifest's record of the corpus)."""
        return [
            {
                "source": doc.metadata.get("source"),
                "origin": doc.metadata.get("origin") or "file",
                "revision_id": doc.metadata.get("revision_id"),
                "url": doc.metadata.get("url"),
                "text_sha256": hashlib.sha256(doc.page_content.encode("utf-8")).hexdigest()[:16],
            }
            for doc in self.documents
        ]

    def pinned_topics(self) -> list[str]:
        """`Title@revid` of each Wikipedia page (just `Title` when its revision is unknown)."""
        return [
            f"{doc.metadata['source']}@{doc.metadata['revision_id']}"
            if doc.metadata.get("revision_id")
            else str(doc.metadata["source"])
            for doc in self.documents
            if doc.metadata.get("origin") in ("live", "cache")
        ]


def topics_of(config: RunConfig) -> list[str]:
    """The Wikipedia topics asked for: `--topic` (with `--revision`, as `Title@revid`) and the `--topics` file."""
    sources = config.sources
    topics: list[str] = []
    if sources.topic:
        topics.append(f"{sources.topic}@{sources.revision}" if sources.revision else sources.topic)
    if sources.topics_file:
        topics.extend(testgen.read_topics(sources.topics_file))
    return topics


def load_sources(config: RunConfig) -> Sources:
    """The documents of `config.sources`; a clear error when none is named."""
    sources = config.sources
    if not sources.topic and not sources.source and not sources.topics_file:
        raise RagtestError(
            "nothing to build a test set from: pass --topic TITLE (Wikipedia), --topics FILE or --source PATH"
        )
    if sources.revision and not sources.topic:
        raise RagtestError("--revision pins the page of --topic: pass --topic TITLE too (or Title@revid in --topics)")
    loaded = Sources()
    for topic in topics_of(config):
        loaded.documents.extend(
            testgen.load_wikipedia(
                topic,
                cache_dir=sources.resolved_cache(),
                timeout_s=sources.wiki_timeout_s,
                offline=True if sources.offline else None,
            )
        )
    if sources.source:
        files = testgen.read_files(sources.source)
        loaded.documents.extend(files.documents)
        loaded.skipped.update(files.skipped)
    for warning in loaded.warnings():
        print(f"ragtest: warning: {warning}", file=sys.stderr)
    return loaded


def load_documents(config: RunConfig) -> list[Document]:
    """The documents of `config.sources` (skipped files are reported on stderr)."""
    return load_sources(config).documents


def load_chunks(config: RunConfig) -> list[testgen.Chunk]:
    """The chunks of the run's documents, cut as `config.generation` says."""
    return testgen.chunk_documents(load_documents(config), config.generation.chunking())
