"""The chunk store: a Chroma collection (on disk, or a Chroma server by URL) filled with our own embeddings.

Chroma never embeds anything itself (its default function would try to download a model): every vector comes
from a `ragtest_core.embeddings.Embedder`. Adding the same chunks again embeds nothing, since ids already stored
are skipped. Distances are cosine distances (0 = same direction).

One corpus, one collection: `corpus_collection` names a collection after the corpus (its chunk ids, which hash the
sources' texts, positions and so the chunk settings, and the embedding model), and `ChunkStore.for_corpus` opens
it. Runs on other sources or settings in the same folder (or on the same Chroma server) get collections of their
own and never see each other's chunks; a re-run on the same corpus finds its collection full and embeds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ragtest_core.embedding_cache import CachedEmbeddings
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import RagtestError
from ragtest_core.schema import stable_id
from testgen.chunking import Chunk
from testgen.structure import EMBEDDING_FORM, embedding_text

DEFAULT_COLLECTION = "ragtest-chunks"
CORPUS_PREFIX = "ragtest-"
_ADD_BATCH = 1000


@dataclass(frozen=True)
class Hit:
    """One query result: the chunk id, its text, cosine distance and metadata."""

    id: str
    text: str
    distance: float
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """Cosine similarity (1 - distance)."""
        return 1.0 - self.distance

    def to_chunk(self) -> Chunk:
        return Chunk.from_record(self.id, self.text, self.metadata)


def corpus_collection(chunks: Iterable[Chunk], embedding_model: str) -> str:
    """The collection name of a corpus: a hash of its chunk ids (sources, texts, chunk settings) and the model."""
    ids = sorted({chunk.chunk_id for chunk in chunks})
    return CORPUS_PREFIX + stable_id(embedding_model, EMBEDDING_FORM, *ids, length=20)


def corpus_description(chunks: Sequence[Chunk], embedding_model: str) -> dict[str, str | int]:
    """What a corpus collection holds, as Chroma collection metadata (for people listing a shared server)."""
    sources = sorted({chunk.source for chunk in chunks})
    return {
        "ragtest_sources": "; ".join(sources)[:1000],
        "ragtest_documents": len(sources),
        "ragtest_chunks": len(chunks),
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
        """The store of exactly these chunks: their own collection (see `corpus_collection`), filled (only the chunks
        not stored yet are added; `embedded` says how many were, and `cache`, when given, supplies the vectors it
        holds: `cache.reused` / `cache.computed` say how many it had and how many the model computed)."""
        name = corpus_collection(chunks, embedder.model_name)
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
        found: set[str] = set()
        for start in range(0, len(ids), _ADD_BATCH):
            batch = list(ids[start : start + _ADD_BATCH])
            found.update(self._collection.get(ids=batch, include=[])["ids"])
        return found

    def add(self, chunks: Iterable[Chunk]) -> int:
        """Store chunks not stored yet; returns how many were embedded (0 when all were there)."""
        unique = list({chunk.chunk_id: chunk for chunk in chunks}.values())
        present = self.existing_ids([c.chunk_id for c in unique])
        new = [c for c in unique if c.chunk_id not in present]
        for start in range(0, len(new), _ADD_BATCH):
            batch = new[start : start + _ADD_BATCH]
            texts = [embedding_text(c.text) for c in batch]
            vectors = self.cache.embed(texts) if self.cache is not None else self.embedder.embed(texts)
            self._collection.add(
                ids=[c.chunk_id for c in batch],
                documents=[c.text for c in batch],
                embeddings=vectors.tolist(),
                metadatas=[c.to_metadata() for c in batch],
            )
        return len(new)

    def query(self, texts: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> list[list[Hit]]:
        """The `k` nearest chunks for each text (one batched query), nearest first."""
        if not texts:
            return []
        if self.count() == 0 or k <= 0:
            return [[] for _ in texts]
        return self._query_vectors(self.embedder.embed(list(texts)).tolist(), k, where)

    def neighbours_of(self, ids: Sequence[str], k: int) -> list[list[Hit]]:
        """The `k` nearest chunks to each stored chunk, from the stored embeddings (nothing is embedded again)."""
        if not ids:
            return []
        if self.count() == 0 or k <= 0:
            return [[] for _ in ids]
        result = self._collection.get(ids=list(dict.fromkeys(ids)), include=["embeddings"])
        by_id = {i: list(map(float, e)) for i, e in zip(result["ids"], result["embeddings"], strict=True)}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise RagtestError(f"{len(missing)} chunk(s) are not in the store, e.g. {missing[0]}")
        return self._query_vectors([by_id[i] for i in ids], k, None)

    def _query_vectors(self, vectors: list[list[float]], k: int, where: Mapping[str, Any] | None) -> list[list[Hit]]:
        total = self.count()
        result = self._collection.query(
            query_embeddings=vectors,
            n_results=min(k, total),
            where=dict(where) if where else None,
            include=["documents", "metadatas", "distances"],
        )
        hits: list[list[Hit]] = []
        for ids, docs, metas, dists in zip(
            result["ids"], result["documents"], result["metadatas"], result["distances"], strict=True
        ):
            row = [
                Hit(id=i, text=d or "", distance=float(dist), metadata=dict(m or {}))
                for i, d, m, dist in zip(ids, docs, metas, dists, strict=True)
            ]
            hits.append(sorted(row, key=lambda h: (h.distance, h.id)))
        return hits

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks with these ids, in the order asked (unknown ids are left out)."""
        if not ids:
            return []
        result = self._collection.get(ids=list(ids), include=["documents", "metadatas"])
        by_id = {
            i: Chunk.from_record(i, d or "", m or {})
            for i, d, m in zip(result["ids"], result["documents"], result["metadatas"], strict=True)
        }
        return [by_id[i] for i in ids if i in by_id]

    def all_chunks(self) -> list[Chunk]:
        """Every stored chunk, ordered by source, document, position and id."""
        result = self._collection.get(include=["documents", "metadatas"])
        chunks = [
            Chunk.from_record(i, d or "", m or {})
            for i, d, m in zip(result["ids"], result["documents"], result["metadatas"], strict=True)
        ]
        return sorted(chunks, key=lambda c: (c.source, c.doc_id, c.position, c.chunk_id))
