"""The embedding device setting (RAGTEST_EMBED_DEVICE): on a machine where torch sees no GPU the default is the CPU
as before (float32, batch 32, the same vectors), an explicit GPU is a clear error, a GPU's precision is float16, and
the embedding cache keeps precisions apart. Where torch does see a GPU, the tests that pin the CPU's behaviour hide
it (`no_gpu`); tests/core/test_embedding_gpu.py runs on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ragtest_core.embedding_device as embedding_device
from ragtest_core.embedding_cache import CachedEmbeddings, cache_namespace
from ragtest_core.embedding_device import BATCH_ENV, DEVICE_ENV, gpu_may_be_present, resolve_device
from ragtest_core.embeddings import DTYPE_ENV, Embedder, get_embedder, resolve_model_path
from ragtest_core.errors import RagtestError

ROOT = Path(__file__).resolve().parents[2]


def _texts(test_data: Path, rows: int = 6) -> list[str]:
    """WikiEval questions, answers and context passages (real text of every length up to a few hundred words)."""
    texts: list[str] = []
    with (test_data / "wikieval" / "wikieval.jsonl").open(encoding="utf-8") as handle:
        for line in list(handle)[:rows]:
            row = json.loads(line)
            texts += [row["question"].removeprefix("Question: "), row["answer"].removeprefix("Answer: ")]
            texts += row["context_v1"][:1]
    return texts


@pytest.fixture
def no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as torch sees it, less any GPU (a no-op where torch sees none), and no device, precision or
    batch size from the environment."""
    for name in (DEVICE_ENV, DTYPE_ENV, BATCH_ENV, "RAGTEST_EMBED_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    if embedding_device.torch_sees("cuda") or embedding_device.torch_sees("mps"):
        monkeypatch.setattr(embedding_device, "torch_sees", lambda kind: False)


def test_default_on_a_cpu_machine_is_unchanged(no_gpu: None, test_data: Path) -> None:
    embedder = Embedder()
    assert (embedder.device, embedder.precision, embedder.batch_size) == ("cpu", "float32", 32)
    assert resolve_device("auto") == resolve_device(None) == "cpu"
    texts = _texts(test_data)
    # the default backend as before: ONNX Runtime in float32, the same vectors as an explicit "cpu"
    default = embedder.embed(texts)
    assert embedder.backend == "onnx"
    assert np.allclose(default, Embedder(device="cpu").embed(texts), atol=1e-6)
    # the torch backend as before GPUs were used: sentence-transformers on the CPU in float32, to 1e-6
    from sentence_transformers import SentenceTransformer

    before = SentenceTransformer(resolve_model_path("all-MiniLM-L6-v2"), device="cpu")
    expected = before.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    now = Embedder(backend="torch")
    assert now.device == "cpu" and str(now.model.device) == "cpu"
    assert np.allclose(now.embed(texts), expected, atol=1e-6)
    assert get_embedder() is get_embedder(device="cpu", dtype="float32")  # one shared model, not two


def test_auto_does_not_import_torch_without_a_gpu_driver() -> None:
    """`auto` looks for a GPU driver before importing torch: on a machine without one, the ONNX backend still starts
    without torch."""
    code = "import sys; from ragtest_core.embeddings import Embedder; print(Embedder().device, 'torch' in sys.modules)"
    env = {key: value for key, value in os.environ.items() if key != DEVICE_ENV} | {"PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    device, imported = out.stdout.split()
    assert imported == str(gpu_may_be_present())
    if not gpu_may_be_present():
        assert device == "cpu"


def test_a_gpu_that_torch_does_not_see_is_a_clear_error(no_gpu: None, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(RagtestError, match=r"RAGTEST_EMBED_DEVICE=cuda, but torch .* sees no CUDA GPU: use "):
        Embedder(device="cuda")
    monkeypatch.setenv(DEVICE_ENV, "cuda")
    with pytest.raises(RagtestError, match=r"RAGTEST_EMBED_DEVICE=cuda"):
        get_embedder()
    monkeypatch.setenv(DEVICE_ENV, "mps")
    with pytest.raises(RagtestError, match=r"RAGTEST_EMBED_DEVICE=mps, but torch .* sees no MPS device"):
        Embedder()
    monkeypatch.setenv(DEVICE_ENV, "tpu")
    with pytest.raises(RagtestError, match=r"unknown embedding device 'tpu' \(RAGTEST_EMBED_DEVICE\)"):
        Embedder()
    monkeypatch.setenv(DEVICE_ENV, "CPU")  # case does not matter
    assert Embedder().device == "cpu"


@pytest.mark.parametrize(("seen", "batch"), [("cuda", 512), ("mps", 128)])
def test_auto_takes_the_gpu_torch_sees_in_float16(seen: str, batch: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """How `auto` chooses where torch reports a GPU (the choice only: no model is loaded here)."""
    for name in (DEVICE_ENV, DTYPE_ENV, BATCH_ENV, "RAGTEST_EMBED_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(embedding_device, "gpu_may_be_present", lambda: True)
    monkeypatch.setattr(embedding_device, "torch_sees", lambda kind: kind == seen)
    gpu = Embedder()
    assert (gpu.device, gpu.precision, gpu.batch_size, gpu.backend) == (seen, "float16", batch, "torch")
    assert Embedder(dtype="auto").precision == "float16"
    assert Embedder(dtype="float32").precision == "float32"  # an explicit precision holds on a GPU too
    assert Embedder(device="cpu").precision == "float32" and Embedder(device="cpu").batch_size == 32
    with pytest.raises(RagtestError, match="float32 only, on the CPU"):
        Embedder(backend="onnx")
    monkeypatch.setenv(BATCH_ENV, "64")
    assert Embedder().batch_size == 64 and Embedder(batch_size=8).batch_size == 8
    monkeypatch.setattr(embedding_device, "gpu_may_be_present", lambda: False)  # no driver: the CPU, torch unasked
    assert Embedder().device == "cpu"


def test_batch_size_setting(no_gpu: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BATCH_ENV, "16")
    assert Embedder().batch_size == 16
    assert get_embedder().batch_size == 16
    monkeypatch.setenv(BATCH_ENV, "0")
    with pytest.raises(RagtestError, match=r"RAGTEST_EMBED_BATCH_SIZE.*at least 1, got '0'"):
        Embedder()


def test_cache_keys_keep_precisions_apart(no_gpu: None, test_data: Path, tmp_path: Path) -> None:
    """float16 vectors (a GPU's default) are close to float32 ones but never read in their place, nor the reverse."""
    texts = _texts(test_data, rows=2)
    full = Embedder(dtype="float32", backend="torch")
    half = Embedder(dtype="float16")  # float16 runs on the CPU too (slowly): the same conversion as on a GPU
    assert cache_namespace(full) != cache_namespace(half)
    assert "float16" in cache_namespace(half) and "float32" in cache_namespace(full)
    first = CachedEmbeddings(full, root=tmp_path)
    stored = first.embed(texts)
    assert (first.computed, first.reused) == (len(texts), 0)
    other = CachedEmbeddings(half, root=tmp_path)
    halves = other.embed(texts)
    assert (other.computed, other.reused) == (len(texts), 0)  # nothing of float32's was read
    assert not np.array_equal(halves, stored)
    assert float((halves * stored).sum(axis=1).min()) >= 0.9998
    again = CachedEmbeddings(Embedder(dtype="float32", backend="torch"), root=tmp_path)
    assert np.allclose(again.embed(texts), stored, atol=1e-7) and again.reused == len(texts)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [cache_namespace(full).rstrip("/"), cache_namespace(half).rstrip("/")]
    )
