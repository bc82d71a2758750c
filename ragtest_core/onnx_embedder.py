"""The ONNX Runtime embedding backend: the local sentence-transformers weights exported once into a user cache.

Why: the same float32 vectors as torch (docs/generation.md) without importing torch or sentence-transformers, and
less CPU per text. Only numpy, onnxruntime and tokenizers run here. Making the export needs torch, transformers and
the `onnx` package (extra `ragtest[fast]`); it is deterministic per torch version and written atomically to
`$RAGTEST_CACHE_DIR` or `$XDG_CACHE_HOME/ragtest` or `~/.cache/ragtest`, under `onnx/<model>-<key16>/model.onnx`
with a `meta.json` beside it (key = recipe, weights digest, torch version, opset).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import threading
import time
import warnings
from collections.abc import Sequence
from contextlib import suppress
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ragtest_core.files import atomic_path, write_json

CACHE_ENV = "RAGTEST_CACHE_DIR"
THREADS_ENV = "RAGTEST_EMBED_THREADS"
#: Bump when the exported graph changes (pooling, inputs, opset): old cache entries are then ignored.
RECIPE_VERSION = "1"
OPSET = 17
MAX_TOKENS = 256
#: Texts per forward pass: 16 beats 32 on sentences (less padding in sorted batches) and ties on chunks.
BATCH_SIZE = 16
#: Padded tokens per forward pass at most.
TOKEN_BUDGET = 4096
_EXPORT_LOCK = threading.Lock()


def cache_root() -> Path:
    """Where ragtest caches derived artefacts (exported models)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ragtest"


def runtime_available() -> bool:
    """Whether onnxruntime and tokenizers can be imported (checked without importing them)."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "tokenizers"))


def weights_digest(model_dir: Path) -> str:
    """A cheap content identity of the weights: name, size and first/last MiB of each weight file and config."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(model_dir)):
        path = model_dir / name
        weights = name.endswith((".safetensors", ".bin")) or name in ("config.json", "tokenizer.json")
        if not weights or not path.is_file():
            continue
        size = path.stat().st_size
        digest.update(f"{name}:{size}".encode())
        with path.open("rb") as handle:
            digest.update(handle.read(1 << 20))
            if size > 2 << 20:
                handle.seek(-(1 << 20), os.SEEK_END)
                digest.update(handle.read())
    return digest.hexdigest()


def export_dir(model_dir: Path, model_name: str) -> Path:
    """The cache folder of this model's export with this torch version."""
    torch_version = metadata.version("torch") if importlib.util.find_spec("torch") else "none"
    source = json.dumps([RECIPE_VERSION, weights_digest(model_dir), torch_version, OPSET])
    key = hashlib.sha256(source.encode()).hexdigest()[:16]
    return cache_root() / "onnx" / f"{model_name.replace('/', '--')}-{key}"


def find_cached(model_dir: Path, model_name: str) -> Path | None:
    """A cached export of these weights: this torch version's first, else one made by any torch version (so a
    machine without the `onnx` package still uses an export made elsewhere)."""
    exact = export_dir(model_dir, model_name) / "model.onnx"
    if exact.exists():
        return exact
    wanted = {"weights_digest": weights_digest(model_dir), "recipe": RECIPE_VERSION}
    for meta_path in sorted((cache_root() / "onnx").glob(f"{model_name.replace('/', '--')}-*/meta.json")):
        meta: dict[str, Any] = {}
        with suppress(OSError, ValueError):
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        candidate = meta_path.parent / "model.onnx"
        if wanted.items() <= meta.items() and candidate.exists() and candidate.stat().st_size == meta.get("size"):
            return candidate
    return None


def export(model_dir: Path, model_name: str) -> Path:
    """Export the transformer + mean pooling + L2 norm to ONNX (TorchScript exporter, opset 17), atomically."""
    import torch

    out_dir = export_dir(model_dir, model_name)
    target = out_dir / "model.onnx"
    started = time.perf_counter()
    dummy = torch.ones(2, 16, dtype=torch.long)
    with atomic_path(target) as tmp, torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer warnings about shapes that do not apply to this graph
        torch.onnx.export(
            _pooled_model(model_dir),
            (dummy, dummy),
            str(tmp),
            dynamo=False,
            opset_version=OPSET,
            input_names=["input_ids", "attention_mask"],
            output_names=["sentence_embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "seq"},
                "attention_mask": {0: "batch", 1: "seq"},
                "sentence_embedding": {0: "batch"},
            },
        )
    data = target.read_bytes()
    meta = {
        "recipe": RECIPE_VERSION,
        "model": model_name,
        "weights_digest": weights_digest(model_dir),
        "torch": metadata.version("torch"),
        "onnx": metadata.version("onnx"),
        "opset": OPSET,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "export_s": round(time.perf_counter() - started, 2),
    }
    write_json(meta, out_dir / "meta.json")
    return target


def _pooled_model(model_dir: Path) -> Any:
    """The Hugging Face model wrapped so its output is the sentence embedding (mean pooling, L2 norm)."""
    import torch
    from transformers import AutoModel

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return pooled / pooled.norm(dim=1, keepdim=True).clamp(min=1e-12)

    return Pooled().eval()


def load_or_export(model_dir: Path, model_name: str) -> Path:
    """The cached export's path, exporting it first when there is none (RuntimeError when that is impossible)."""
    with _EXPORT_LOCK:
        path = find_cached(model_dir, model_name)
        if path is not None:
            return path
        if not all(importlib.util.find_spec(name) for name in ("torch", "transformers", "onnx")):
            raise RuntimeError("no cached ONNX export, and exporting one needs the `onnx` package (ragtest[fast])")
        return export(model_dir, model_name)


class OnnxEncoder:
    """Sentence embeddings through ONNX Runtime: fast tokenizer, length-sorted batches, pooling inside the graph."""

    def __init__(self, onnx_path: Path, model_dir: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.onnx_path = onnx_path
        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = default_threads(), 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # no busy-waiting between calls: the judge embeds small sporadic batches beside an event loop
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        self.dimension = int(self.session.get_outputs()[0].shape[-1])
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=_max_tokens(model_dir))
        self.tokenizer.no_padding()

    @classmethod
    def load(cls, model_dir: str | Path, model_name: str) -> OnnxEncoder:
        model_dir = Path(model_dir)
        if not (model_dir / "tokenizer.json").exists():
            raise RuntimeError(f"{model_dir} is not a local model folder with a tokenizer.json")
        return cls(load_or_export(model_dir, model_name), model_dir)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Float32 unit vectors (len(texts) x dimension)."""
        ids = [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]
        out = np.empty((len(ids), self.dimension), dtype=np.float32)
        for batch in length_batches([len(row) for row in ids]):
            width = len(ids[batch[0]])  # the longest first: the others padded with zeros to its length
            input_ids = np.array([ids[i] + [0] * (width - len(ids[i])) for i in batch], dtype=np.int64)
            mask = (np.arange(width) < np.array([[len(ids[i])] for i in batch])).astype(np.int64)
            out[batch] = self.session.run(None, {"input_ids": input_ids, "attention_mask": mask})[0]
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def _max_tokens(model_dir: Path) -> int:
    """The sentence-transformers max_seq_length of the model folder (256 for all-MiniLM-L6-v2)."""
    with suppress(OSError, ValueError):
        config = json.loads((model_dir / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(config.get("max_seq_length", MAX_TOKENS))
    return MAX_TOKENS


def length_batches(
    lengths: Sequence[int], max_batch: int = BATCH_SIZE, max_tokens: int = TOKEN_BUDGET, max_ratio: float = 2.0
) -> list[list[int]]:
    """Indices in batches, longest first. A batch closes at `max_batch` texts, at `max_tokens` padded tokens, or
    when the next text is shorter than 1/`max_ratio` of the batch's longest, so one long text does not pad many
    short ones (a one-row faithfulness call padded 20 texts of 13-45 tokens to 197 and cost 3.6x the CPU)."""
    order = sorted(range(len(lengths)), key=lambda index: -lengths[index])
    batches: list[list[int]] = []
    for index in order:
        if batches:
            batch = batches[-1]
            width = lengths[batch[0]]
            fits = len(batch) < max_batch and (len(batch) + 1) * width <= max_tokens
            if fits and lengths[index] * max_ratio >= width:
                batch.append(index)
                continue
        batches.append([index])
    return batches


def default_threads() -> int:
    """RAGTEST_EMBED_THREADS, else the usable cores, at most 4 (MiniLM batches are small)."""
    if os.environ.get(THREADS_ENV):
        return max(1, int(os.environ[THREADS_ENV]))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(4, cores))
