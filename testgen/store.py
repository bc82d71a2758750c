"""The chunk store: a Chroma collection (on disk, or a Chroma server by URL) filled with our own embeddings.

Chroma never embeds anything itself (its default function would try to download a model): every vector comes
from a `ragtest_core.embeddings.Embedder`. Adding the same chunks again embeds nothing, since ids already stored
are skipped. Distances are cosine distances (0 = same direction).

One corpus, one collection: `collection_for_ids` names a collection after the corpus (its chunk ids, which hash the
sources' texts, positions and so the chunk settings, and the embedding model), and `ChunkStore.for_corpus` opens
it. Runs on other sources or settings in the same folder (or on the same Chroma server) get collections of their
own and never see each other's chunks; a re-run on the same corpus finds its collection full and embeds nothing.

Every read is paged: Chroma fails on one `get()` of more than about 32,000 records ("too many SQL variables"), so
whole-collection reads go `PAGE_SIZE` records at a time (`iter_chunks`, `chunk_keys`) and reads by id go
`ID_BATCH` ids at a time. `chunk_keys` gives what the generator needs to draw roots (ids, documents, sections,
positions: no texts, no vectors), so a corpus never has to sit in memory whole.
"""

from __future__ import annotations

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

    @property
    def score(self) -> float:
        """Cosine similarity (1 - distance)."""
        return 1.0 - self.distance

    def to_chunk(self) -> Chunk:
        return Chunk.from_record(self.id, self.text, self.metadata)


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

    @classmethod
    def from_metadata(cls, chunk_id: str, metadata: Mapping[str, Any]) -> ChunkKey:
        section, path = metadata.get("section"), metadata.get("heading_path")
        return cls(
            chunk_id=chunk_id,
            doc_id=str(metadata.get("doc_id", "")),
            source=str(metadata.get("source", "")),
            position=int(metadata.get("position", 0)),
            section=str(section) if section is not None else None,
            heading_path=str(path) if path is not None else None,
        )


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
        embedded (0 when all were there)."""
        seen: set[str] = set()
        added = 0
        batch: list[Chunk] = []
        for chunk in chunks:
            if chunk.chunk_id in seen:
                continue
            seen.add(chunk.chunk_id)
            batch.append(chunk)
            if len(batch) == _ADD_BATCH:
                added += self._add_new(batch)
                batch = []
        return added + self._add_new(batch)

    def _add_new(self, batch: Sequence[Chunk]) -> int:
        present = self.existing_ids([c.chunk_id for c in batch])
        new = [c for c in batch if c.chunk_id not in present]
        if new:
            texts = [embedding_text(c.text) for c in new]
            vectors = self.cache.embed(texts) if self.cache is not None else self.embedder.embed(texts)
            self._write(new, vectors.tolist())
        return len(new)

    def write_embedded(self, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]) -> int:
        """Store chunks with vectors computed elsewhere (a distributed ingest), skipping ids already stored;
        returns how many were written. Chunk ids hash the text, document and position, so writing a chunk twice
        writes nothing new."""
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
        by_id = {
            i: list(map(float, e))
            for page in self._by_ids(ids, ["embeddings"])
            for i, e in zip(page["ids"], page["embeddings"], strict=True)
        }
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise RagtestError(f"{len(missing)} chunk(s) are not in the store, e.g. {missing[0]}")
        return self._query_vectors([by_id[i] for i in ids], k, None)

    def vector_pages(self, ids: Sequence[str]) -> Iterator[tuple[list[str], np.ndarray]]:
        """The stored embeddings of these chunks, `ID_BATCH` at a time: (ids, float32 rows) per page."""
        for page in self._by_ids(ids, ["embeddings"]):
            yield list(page["ids"]), np.asarray(page["embeddings"], dtype=np.float32)

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
        offset = 0
        while True:
            page = self._collection.get(
                limit=PAGE_SIZE,
                offset=offset,
                include=include,
                where=dict(where) if where else None,
                where_document=where_document,
            )
            if not page["ids"]:
                return
            yield page
            offset += len(page["ids"])
            if len(page["ids"]) < PAGE_SIZE:
                return

    def iter_chunks(self) -> Iterator[Chunk]:
        """Every stored chunk, read page by page (in the store's order)."""
        for page in self._pages(["documents", "metadatas"]):
            yield from _chunks_of(page).values()

    def all_chunks(self) -> list[Chunk]:
        """Every stored chunk, ordered by source, document, position and id (the whole corpus in memory: for small
        stores and tests; the generator reads `chunk_keys` and fetches texts as it goes)."""
        return sorted(self.iter_chunks(), key=lambda c: (c.source, c.doc_id, c.position, c.chunk_id))

    def chunk_keys(self) -> list[ChunkKey]:
        """Every stored chunk's id, document, source, position and section (no texts, no vectors), paged, ordered by
        source, document, position and id."""
        keys = [
            ChunkKey.from_metadata(i, m or {})
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
