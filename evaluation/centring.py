"""Anisotropy correction: cosine similarity of embeddings centred on the mean of a reference sample.

Sentence embeddings share a common direction, so any two texts have a high raw cosine (with all-MiniLM-L6-v2,
unrelated sentences of one domain often reach 0.3-0.6): RAGAS' answer relevancy rarely drops below ~0.6 for that
reason. Subtracting the mean embedding of a reference sample before taking the cosine removes the shared
direction (Ethayarajh 2019; Su et al. 2021 "whitening"). The reference sample is the run's own retrieved context
sentences (at most `REFERENCE_SAMPLE_SIZE`, evenly spaced, so the mean is deterministic), taken before any score:
it is independent of the answers being judged. With fewer than `MIN_REFERENCE_TEXTS` sentences, questions and
answers are added; with none at all, no centring happens and the reason says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from evaluation.sample import Sample
from ragtest_core.embeddings import Embedder
from ragtest_core.text import sentences_of

REFERENCE_SAMPLE_SIZE = 256
MIN_REFERENCE_TEXTS = 16
#: Texts per `embed` call (the model batches further inside a call and sorts by length).
EMBED_BATCH = 4096


class HasReferenceMean(Protocol):
    embedder: Embedder
    reference_mean: np.ndarray | None


def embed_in_batches(embedder: Embedder, texts: Iterable[str], batch: int = EMBED_BATCH) -> None:
    """Embed every distinct non-empty text once, in as few `embed` calls as possible (fills the embedder's memo)."""
    unique = sorted({t for t in texts if t}, key=len)
    for start in range(0, len(unique), batch):
        embedder.embed(unique[start : start + batch])


def reference_texts(samples: Sequence[Sample], limit: int = REFERENCE_SAMPLE_SIZE) -> list[str]:
    """The reference sample: distinct context sentences of the run, evenly subsampled to `limit`."""
    texts = list(dict.fromkeys(s for sample in samples for c in sample.contexts for s in sentences_of(c)))
    if len(texts) < MIN_REFERENCE_TEXTS:
        extra = [t for sample in samples for t in (sample.question, sample.answer) if t]
        texts = list(dict.fromkeys([*texts, *extra]))
    if len(texts) > limit:
        picks = np.linspace(0, len(texts) - 1, limit).round().astype(int)
        texts = [texts[i] for i in dict.fromkeys(picks.tolist())]
    return texts


def reference_mean(embedder: Embedder, texts: Sequence[str]) -> np.ndarray | None:
    if not texts:
        return None
    embed_in_batches(embedder, texts)
    return np.asarray(embedder.embed(list(texts)).mean(axis=0), dtype=np.float32)


def attach_reference_mean(judge: HasReferenceMean, samples: Sequence[Sample]) -> None:
    judge.reference_mean = reference_mean(judge.embedder, reference_texts(samples))


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
