"""Chunk embeddings cached by content under the user's cache directory, so a corpus is embedded once per model.

LangChain's `CacheBackedEmbeddings` over a `LocalFileStore` does the caching: the key is a SHA-256 of the text in
a namespace naming the model and its precision (`cache_namespace`), the value the vector, so float16 and float32
vectors never mix. The device and backend are not in the key: float32 vectors differ between them by rounding
only, so they are shared. `computed` and `reused` count the vectors of this process, for the manifest.

The cache lives in `$RAGTEST_CACHE_DIR/embeddings` (else `$XDG_CACHE_HOME/ragtest/embeddings`, else
`~/.cache/ragtest/embeddings`); `RAGTEST_EMBEDDING_CACHE=off` turns it off.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from ragtest_core.embeddings import Embedder
from ragtest_core.onnx_embedder import cache_root

CACHE_SWITCH_ENV = "RAGTEST_EMBEDDING_CACHE"


def embedding_cache_enabled() -> bool:
    return os.environ.get(CACHE_SWITCH_ENV, "").strip().lower() not in ("off", "0", "false", "no")


class CachedEmbeddings:
    """`embed(texts)` like `Embedder.embed`, reading and writing the content-addressed cache."""

    def __init__(self, embedder: Embedder, root: str | Path | None = None) -> None:
        from langchain_classic.embeddings import CacheBackedEmbeddings
        from langchain_classic.storage import LocalFileStore

        self.embedder = embedder
        self.path = Path(root) if root is not None else cache_root() / "embeddings"
        self.path.mkdir(parents=True, exist_ok=True)
        self.computed = 0
        self.reused = 0
        self.namespace = cache_namespace(embedder)
        self._backed = CacheBackedEmbeddings.from_bytes_store(
            _Counting(self), LocalFileStore(self.path), namespace=self.namespace, key_encoder="sha256"
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors (float32 rows) for `texts`: from the cache where stored, else computed and stored."""
        if not texts:
            return np.zeros((0, self.embedder.dimension), dtype=np.float32)
        before = self.computed
        vectors = self._backed.embed_documents(list(texts))
        self.reused += len(texts) - (self.computed - before)
        return np.asarray(vectors, dtype=np.float32)


class _Counting(Embeddings):
    """The `Embeddings` interface LangChain's cache calls for the texts it does not hold."""

    def __init__(self, owner: CachedEmbeddings) -> None:
        self.owner = owner

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.owner.computed += len(texts)
        return [[float(x) for x in row] for row in self.owner.embedder.embed(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def cache_namespace(embedder: Embedder) -> str:
    """The part of a cached vector's key that names what changes the vectors: the model and the precision used."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{embedder.model_name}-{embedder.precision}") + "/"
