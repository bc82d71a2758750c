"""Embeddings on a CUDA GPU match the CPU's: `auto` takes the GPU in float16 with a GPU's batch, its vectors within
cosine 0.9998 of the CPU's float32 ones (measured on an H200: >= 0.99986), float32 on the GPU within 0.99999, and the
cache keeps the GPU's float16 vectors apart. Marked `gpu`: it runs where torch sees a CUDA GPU and is skipped,
saying so, elsewhere (CI is CPU-only)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragtest_core.embedding_cache import cache_namespace
from ragtest_core.embedding_device import DEVICE_ENV
from ragtest_core.embeddings import DTYPE_ENV, Embedder, get_embedder
from ragtest_core.text import split_sentences

pytestmark = pytest.mark.gpu
#: float16 on a GPU against float32 on the CPU (the issue's bound; an H200 measured >= 0.99986).
FLOAT16_COSINE = 0.9998
#: float32 on a GPU against float32 on the CPU: rounding only.
FLOAT32_COSINE = 0.99999


@pytest.fixture(scope="module")
def cuda() -> None:
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU: torch.cuda.is_available() is False on this machine (CI is CPU-only)")


def _real_texts(test_data: Path) -> list[str]:
    """WikiEval and FiQA questions, answer sentences and whole contexts, Wikipedia paragraphs (hundreds of texts)."""
    texts: list[str] = []
    for line in (test_data / "wikieval" / "wikieval.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [row["question"].removeprefix("Question: "), *split_sentences(row["answer"]), *row["context_v1"]]
    for line in (test_data / "fiqa" / "fiqa.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts += [row["user_input"], *split_sentences(row["response"])]
    article = (test_data / "wikipedia" / "Brown_bear.txt").read_text(encoding="utf-8")
    texts += [p for p in article.split("\n") if len(p) > 40]
    return list(dict.fromkeys(t for t in texts if t.strip()))


def test_cuda_embeddings_match_the_cpu(cuda: None, test_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEVICE_ENV, raising=False)
    monkeypatch.delenv(DTYPE_ENV, raising=False)
    texts = _real_texts(test_data)
    assert len(texts) > 300
    cpu = Embedder(device="cpu", dtype="float32", backend="torch").embed(texts)
    gpu = Embedder()  # auto
    assert (gpu.device, gpu.precision, gpu.batch_size, gpu.backend) == ("cuda", "float16", 512, "torch")
    assert str(gpu.model.device).startswith("cuda")
    half = gpu.embed(texts)
    assert half.dtype == np.float32 and half.shape == cpu.shape
    assert np.allclose(np.linalg.norm(half, axis=1), 1.0, atol=1e-5)  # normalised in float32
    cosines = (half * cpu).sum(axis=1)
    assert float(cosines.min()) >= FLOAT16_COSINE, float(cosines.min())
    full = Embedder(device="cuda", dtype="float32").embed(texts)
    assert float((full * cpu).sum(axis=1).min()) >= FLOAT32_COSINE
    # another order and batching of the texts give each text its own vector again
    again = Embedder(device="cuda").embed(list(reversed(texts[:64])))
    assert float((again[::-1] * half[:64]).sum(axis=1).min()) >= FLOAT16_COSINE
    assert cache_namespace(gpu) != cache_namespace(get_embedder(device="cpu"))
    assert get_embedder() is get_embedder(device="cuda", dtype="float16")
