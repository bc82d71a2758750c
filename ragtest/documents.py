"""The run's documents: Wikipedia topics (each optionally pinned to a revision) and/or local files, as the config
names them, cut into chunks; with what was skipped and which revisions were used, for the manifest."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from typing import Any

from langchain_core.documents import Document

import testgen
from ragtest.config import RunConfig
from ragtest_core.errors import RagtestError
from testgen.files import LoadedFiles, read_files
from testgen.wikipedia_source import read_topics


def describe_document(doc: Document) -> dict[str, Any]:
    """A document's source, origin, revision, URL and a hash of its text (the manifest's record of it)."""
    return {
        "source": doc.metadata.get("source"),
        "origin": doc.metadata.get("origin") or "file",
        "revision_id": doc.metadata.get("revision_id"),
        "url": doc.metadata.get("url"),
        "text_sha256": hashlib.sha256(doc.page_content.encode("utf-8")).hexdigest()[:16],
    }


@dataclass
class SourceRecord:
    """What the manifest keeps of a corpus once its texts are gone: each document described, the files skipped."""

    documents: list[dict[str, Any]] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    #: Files loaded by type and markers dropped (`testgen.LoadedFiles.files_record`; empty when not known).
    files: dict[str, Any] = field(default_factory=dict)

    def pinned_topics(self) -> list[str]:
        """`Title@revid` of each Wikipedia page (just `Title` when its revision is unknown)."""
        pages = [doc for doc in self.documents if doc.get("origin") in ("live", "cache")]
        return [f"{d['source']}@{d['revision_id']}" if d.get("revision_id") else str(d["source"]) for d in pages]


@dataclass
class Corpus:
    """What an ingest leaves: the filled store and counts, and the record of the sources for the manifest."""

    store: testgen.ChunkStore
    documents: int
    chunks: int
    embedded: int
    sources: SourceRecord


class Sources(LoadedFiles):
    """The documents of a run (Wikipedia pages and files), the files skipped (path -> reason) and their warnings."""

    def record(self) -> SourceRecord:
        described = [describe_document(doc) for doc in self.documents]
        return SourceRecord(described, dict(self.skipped), self.files_record())


def check_sources(config: RunConfig) -> None:
    """A clear error when the config names nothing to load, or a revision without its page."""
    sources = config.sources
    if not sources.topic and not sources.source and not sources.topics_file:
        raise RagtestError(
            "nothing to build a test set from: pass --topic TITLE (Wikipedia), --topics FILE or --source PATH"
        )
    if sources.revision and not sources.topic:
        raise RagtestError("--revision pins the page of --topic: pass --topic TITLE too (or Title@revid in --topics)")


def load_topic_pages(config: RunConfig) -> list[Document]:
    """The Wikipedia pages of `config.sources`, each a document: `--topic` (with `--revision`, as `Title@revid`) and
    the `--topics` file's."""
    sources = config.sources
    topics = [f"{sources.topic}@{sources.revision}" if sources.revision else sources.topic] if sources.topic else []
    topics += read_topics(sources.topics_file) if sources.topics_file else []
    offline = True if sources.offline else None
    return [
        page
        for topic in topics
        for page in testgen.load_wikipedia(topic, sources.wiki_cache, sources.wiki_timeout_s, offline=offline)
    ]


def load_sources(config: RunConfig) -> Sources:
    """The documents of `config.sources`; a clear error when none is named."""
    check_sources(config)
    sources = config.sources
    loaded = Sources()
    loaded.documents.extend(load_topic_pages(config))
    if sources.source:
        files = read_files(sources.source)
        loaded.documents.extend(files.documents)
        loaded.skipped.update(files.skipped)
    for warning in loaded.warnings():
        print(f"ragtest: warning: {warning}", file=sys.stderr)
    return loaded
