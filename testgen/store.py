"""The chunk store: a Chroma collection (on disk, or a Chroma server by URL) filled with our own embeddings.

Chroma never embeds anything (its default function would download a model): every vector comes from an
`Embedder`, and ids already stored are skipped. Distances are cosine distances (0 = same direction).

One corpus, one collection, named by `collection_for_ids` after its chunk ids (which hash the sources' texts and the
chunk settings) and the embedding model: runs on other sources or settings never see each other's chunks, and a
re-run on the same corpus embeds nothing. Every read is paged (Chroma fails on one `get()` of about 33,000
records), and `chunk_keys` draws roots without texts or vectors, so a corpus never sits in memory whole.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from ragtest_core.embedding_cache import CachedEmbeddings
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import RagtestError
from ragtest_core.schema import stable_id
from testgen.chunking import Chunk
from testgen.structure import EMBEDDING_FORM, embedding_text

DEFAULT_COLLECTION = "ragtest-chunks"
CORPUS_PREFIX = "ragtest-"
_ADD_BATCH = 1000
#: Records per whole-collection read (Chroma's `get()` fails from about 33,000 records at once).
PAGE_SIZE = 5000
#: Ids per read by id.
ID_BATCH = 1000


@dataclass(frozen=True)
class Hit:
    """One query result: the chunk id, its text, cosine distance and metadata."""

    id: str
    text: str
    distance: float
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChunkKey:
    """A stored chunk without its text: what drawing roots needs (a few hundred bytes a chunk)."""

    chunk_id: str
    doc_id: str
    source: str
    position: int
    section: str | None = None
    #: "Page title > Section > Subsection" for chunks of structured documents.
    heading_path: str | None = None


def collection_for_ids(chunk_ids: Iterable[str], embedding_model: str) -> str:
    """The collection name of a corpus: a hash of its chunk ids (sources, texts, chunk settings) and the model (a
    distributed ingest knows the ids without the texts)."""
    return CORPUS_PREFIX + stable_id(embedding_model, EMBEDDING_FORM, *sorted(set(chunk_ids)), length=20)


def corpus_description(
    chunks: Sequence[Chunk], embedding_model: str, sources: Iterable[str] | None = None, count: int | None = None
) -> dict[str, str | int]:
    """What a corpus collection holds, as Chroma collection metadata (for people listing a shared server); `sources`
    and `count` stand in for the chunks when only those are known."""
    names = sorted(set(sources) if sources is not None else {chunk.source for chunk in chunks})
    return {
        "ragtest_sources": "; ".join(names)[:1000],
        "ragtest_documents": len(names),
        "ragtest_chunks": len(chunks) if count is None else count,
        "ragtest_embedding_model": embedding_model,
    }


class ChunkStore:
    """Chunks in a Chroma collection (cosine space), embedded with `embedder`."""

    @classmethod
    def for_corpus(
        cls,
        path: str | Path | None,
        embedder: Embedder,
        chunks: Sequence[Chunk],
        url: str | None = None,
        cache: CachedEmbeddings | None = None,
    ) -> ChunkStore:
        """The store of exactly these chunks: their own collection (see `collection_for_ids`), filled (only the chunks
        not stored yet are added; `embedded` says how many were, and `cache`, when given, supplies the vectors it
        holds: `cache.reused` / `cache.computed` say how many it had and how many the model computed)."""
        name = collection_for_ids((chunk.chunk_id for chunk in chunks), embedder.model_name)
        store = cls(path, embedder, collection=name, url=url, metadata=corpus_description(chunks, embedder.model_name))
        store.cache = cache
        store.embedded = store.add(chunks)
        return store

    def __init__(
        self,
        path: str | Path | None,
        embedder: Embedder,
        collection: str = DEFAULT_COLLECTION,
        url: str | None = None,
        metadata: Mapping[str, str | int] | None = None,
        create: bool = True,
    ) -> None:
        import chromadb
        from chromadb.config import Settings

        if not 3 <= len(collection) <= 512:
            raise RagtestError(f"collection name {collection!r} must be 3-512 characters long")
        self.embedder = embedder
        self.path = Path(path) if path is not None else None
        self.url = url
        settings = Settings(anonymized_telemetry=False)
        if url:
            parsed = urlparse(url if "://" in url else f"http://{url}")
            self._client: Any = chromadb.HttpClient(
                host=parsed.hostname or "localhost",
                port=parsed.port or 8000,
                ssl=parsed.scheme == "https",
                settings=settings,
            )
        else:
            if self.path is None:
                raise RagtestError("a chunk store needs a folder path or a Chroma server URL")
            self._client = chromadb.PersistentClient(path=str(self.path), settings=settings)
        self.collection_name = collection
        self.embedded = 0
        #: The content-addressed embedding cache chunk vectors come from (None: the embedder alone).
        self.cache: CachedEmbeddings | None = None
        if not create and collection not in self.collection_names():
            raise RagtestError(
                f"the vector store {url or self.path} has no collection {collection!r}: generate the test set first "
                "(or point --store / --store-url at the store it was generated into)"
            )
        self._collection: Any = self._client.get_or_create_collection(
            collection, embedding_function=None, metadata={"hnsw:space": "cosine", **(metadata or {})}
        )

    def collection_names(self) -> list[str]:
        """The collections in this store (folder or server), sorted."""
        return sorted(str(getattr(c, "name", c)) for c in self._client.list_collections())

    def count(self) -> int:
        return int(self._collection.count())

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        return {i for page in self._by_ids(ids, []) for i in page["ids"]}

    def add(self, chunks: Iterable[Chunk]) -> int:
        """Store chunks not stored yet, `_ADD_BATCH` at a time (the input is read as a stream); returns how many were
        embedded (0 when all were there; a chunk given twice is stored once)."""
        added, stream = 0, iter(chunks)
        while batch := list(itertools.islice(stream, _ADD_BATCH)):
            added += self._add_new(list({chunk.chunk_id: chunk for chunk in batch}.values()))
        return added

    def _add_new(self, batch: Sequence[Chunk]) -> int:
        present = self.existing_ids([c.chunk_id for c in batch])
        if new := [c for c in batch if c.chunk_id not in present]:
            texts = [embedding_text(c.text) for c in new]
            vectors = self.cache.embed(texts) if self.cache is not None else self.embedder.embed(texts)
            self._write(new, vectors.tolist())
        return len(new)

    def write_embedded(self, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]) -> int:
        """Store chunks with vectors computed elsewhere (a distributed ingest), skipping ids already stored;
        returns how many were written."""
        present = self.existing_ids([c.chunk_id for c in chunks])
        keep = [i for i, c in enumerate(chunks) if c.chunk_id not in present]
        self._write([chunks[i] for i in keep], [vectors[i] for i in keep])
        return len(keep)

    def _write(self, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]) -> None:
        for start in range(0, len(chunks), _ADD_BATCH):
            part = range(start, min(start + _ADD_BATCH, len(chunks)))
            self._collection.add(
                ids=[chunks[i].chunk_id for i in part],
                documents=[chunks[i].text for i in part],
                embeddings=[list(map(float, vectors[i])) for i in part],
                metadatas=[chunks[i].to_metadata() for i in part],
            )

    def query(self, texts: Sequence[str], k: int) -> list[list[Hit]]:
        """The `k` nearest chunks for each text (one batched query), nearest first."""
        if not texts or k <= 0 or self.count() == 0:
            return [[] for _ in texts]
        return self._query_vectors(self.embedder.embed(list(texts)).tolist(), k)

    def neighbours_of(self, ids: Sequence[str], k: int) -> list[list[Hit]]:
        """The `k` nearest chunks to each stored chunk, from the stored embeddings (nothing is embedded again)."""
        if not ids or k <= 0 or self.count() == 0:
            return [[] for _ in ids]
        by_id = {
            i: list(map(float, e))
            for page in self._by_ids(ids, ["embeddings"])
            for i, e in zip(page["ids"], page["embeddings"], strict=True)
        }
        if missing := [i for i in ids if i not in by_id]:
            raise RagtestError(f"{len(missing)} chunk(s) are not in the store, e.g. {missing[0]}")
        return self._query_vectors([by_id[i] for i in ids], k)

    def vector_pages(self, ids: Sequence[str]) -> Iterator[tuple[list[str], np.ndarray]]:
        """The stored embeddings of these chunks, `ID_BATCH` at a time: (ids, float32 rows) per page."""
        for page in self._by_ids(ids, ["embeddings"]):
            yield list(page["ids"]), np.asarray(page["embeddings"], dtype=np.float32)

    def _query_vectors(self, vectors: list[list[float]], k: int) -> list[list[Hit]]:
        result = self._collection.query(
            query_embeddings=vectors, n_results=min(k, self.count()), include=["documents", "metadatas", "distances"]
        )
        rows = zip(result["ids"], result["documents"], result["metadatas"], result["distances"], strict=True)
        return [
            sorted(
                (Hit(i, d or "", float(dist), dict(m or {})) for i, d, m, dist in zip(*row, strict=True)),
                key=lambda h: (h.distance, h.id),
            )
            for row in rows
        ]

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks with these ids, in the order asked (unknown ids are left out)."""
        by_id = {i: c for page in self._by_ids(ids, ["documents", "metadatas"]) for i, c in _chunks_of(page).items()}
        return [by_id[i] for i in ids if i in by_id]

    def _by_ids(self, ids: Sequence[str], include: list[str]) -> Iterator[Mapping[str, Any]]:
        """The records with these ids (each read once), `ID_BATCH` ids a read."""
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), ID_BATCH):
            yield self._collection.get(ids=unique[start : start + ID_BATCH], include=include)

    def _pages(
        self, include: list[str], where: Mapping[str, Any] | None = None, where_document: Any = None
    ) -> Iterator[Mapping[str, Any]]:
        """The collection (or the records matching `where` and `where_document`), `PAGE_SIZE` records a read."""
        for offset in itertools.count(0, PAGE_SIZE):
            page = self._collection.get(
                limit=PAGE_SIZE,
                offset=offset,
                include=include,
                where=dict(where) if where else None,
                where_document=where_document,
            )
            if page["ids"]:
                yield page
            if len(page["ids"]) < PAGE_SIZE:
                return

    def chunk_keys(self) -> list[ChunkKey]:
        """Every stored chunk's id, document, source, position and section (no texts, no vectors), paged, ordered by
        source, document, position and id."""
        keys = [
            ChunkKey(i, m["doc_id"], m["source"], m["position"], m.get("section"), m.get("heading_path"))
            for page in self._pages(["metadatas"])
            for i, m in zip(page["ids"], page["metadatas"], strict=True)
        ]
        return sorted(keys, key=lambda k: (k.source, k.doc_id, k.position, k.chunk_id))

    def documents_containing(self, phrase: str) -> int:
        """How many documents have a chunk whose text holds `phrase` (case as written; Chroma's where_document
        filter, paged over ids and metadata only)."""
        pages = self._pages(["metadatas"], where_document={"$contains": phrase})
        return len({str((m or {}).get("doc_id", "")) for page in pages for m in page["metadatas"] or []})

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        """The stored chunks of one document, in position order (paged)."""
        chunks = [
            c for page in self._pages(["documents", "metadatas"], {"doc_id": doc_id}) for c in _chunks_of(page).values()
        ]
        return sorted(chunks, key=lambda c: (c.position, c.chunk_id))


def _chunks_of(result: Mapping[str, Any]) -> dict[str, Chunk]:
    """The chunks of one `get()` result, by id."""
    return {
        i: Chunk.from_record(i, d or "", m or {})
        for i, d, m in zip(result["ids"], result["documents"], result["metadatas"], strict=True)
    }
