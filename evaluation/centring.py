"""Anisotropy correction and batched embedding helpers.

Sentence embeddings share a common direction, so any two texts have a high raw cosine (with all-MiniLM-L6-v2,
unrelated sentences of one domain often reach 0.3-0.6): RAGAS' answer relevancy rarely drops below ~0.6 for that
reason. Subtracting a mean embedding before taking the cosine removes the shared direction (Ethayarajh 2019; Su et
al. 2021 "whitening"). The mean is FIXED: the one shipped with the package (`ragtest_core.relevance`, built from
seven Wikipedia articles), never one taken from the rows being scored, so a row's score does not depend on the
other rows of its run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ragtest_core.embeddings import Embedder

#: Texts per `embed` call (the model batches further inside a call and sorts by length).
EMBED_BATCH = 4096


def embed_in_batches(embedder: Embedder, texts: Iterable[str], batch: int = EMBED_BATCH) -> None:
    """Embed every distinct non-empty text once, in as few `embed` calls as possible (fills the embedder's memo)."""
    unique = sorted({t for t in texts if t}, key=len)
    for start in range(0, len(unique), batch):
        embedder.embed(unique[start : start + batch])


def centred_similarity(
    embedder: Embedder, left: Sequence[str], right: Sequence[str], mean: np.ndarray | None
) -> np.ndarray:
    """Cosine similarity (len(left) x len(right)) after subtracting `mean` (plain cosine when it is None)."""
    if mean is None or not left or not right:
        return embedder.similarity(left, right)
    a = embedder.embed(list(left)) - mean
    b = embedder.embed(list(right)) - mean
    a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b /= np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return np.asarray(a @ b.T, dtype=np.float32)
