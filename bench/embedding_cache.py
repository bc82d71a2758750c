"""A disk cache of sentence vectors for benchmarks and fits: re-running an ablation embeds nothing twice.

    embedder = cached_embedder()          # $RAGTEST_BENCH_EMBED_CACHE, else /tmp/ragtest-bench-embeddings/<model>.npz
    ... embedder.embed(texts) ...
    save(embedder)                        # writes the vectors of every text embedded so far

The vectors are the embedder's own (the same model, precision and backend); the cache only preloads its per-process
memo, so scores are the same with or without it. The file lives outside the repository and is never committed.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ragtest_core.embeddings import DEFAULT_MODEL, Embedder, get_embedder

CACHE_ENV = "RAGTEST_BENCH_EMBED_CACHE"


def cache_path(embedder: Embedder) -> Path:
    """One file per model and precision (the precision the embedder computes in, on whatever device it runs)."""
    folder = Path(os.environ.get(CACHE_ENV) or "/tmp/ragtest-bench-embeddings")
    return folder / f"{embedder.model_name.replace('/', '_')}-{embedder.precision}.npz"


def cached_embedder(model_name: str = DEFAULT_MODEL) -> Embedder:
    """The process-wide embedder with every vector the cache file holds already in its memo."""
    embedder = get_embedder(model_name)
    path = cache_path(embedder)
    if path.exists():
        with np.load(path, allow_pickle=False) as data:
            texts, vectors = data["texts"], data["vectors"]
        for text, vector in zip(texts.tolist(), vectors, strict=True):
            embedder._memo.setdefault(str(text), np.asarray(vector, dtype=np.float32))
    return embedder


def save(embedder: Embedder) -> Path:
    """Write every vector the embedder holds to the cache file (atomically)."""
    path = cache_path(embedder)
    path.parent.mkdir(parents=True, exist_ok=True)
    texts = list(embedder._memo)
    vectors = np.stack([embedder._memo[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, texts=np.asarray(texts, dtype=str), vectors=vectors)
    tmp.replace(path)
    return path
