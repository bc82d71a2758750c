"""The ONNX Runtime embedding backend: the same vectors as torch on real data, a cached export, backend choice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ragtest_core.embeddings import Embedder, resolve_model_path
from ragtest_core.errors import RagtestError
from ragtest_core.onnx_embedder import cache_root, find_cached, length_batches, runtime_available
from ragtest_core.text import split_sentences

ROOT = Path(__file__).resolve().parents[2]


def _real_texts(test_data: Path) -> list[str]:
    """Sentences and whole contexts from WikiEval and FiQA, and paragraphs of a Wikipedia article."""
    texts: list[str] = []
    with (test_data / "wikieval" / "wikieval.jsonl").open(encoding="utf-8") as handle:
        for line in list(handle)[:12]:
            row = json.loads(line)
            texts.append(row["question"].removeprefix("Question: "))
            texts.extend(split_sentences(row["answer"].removeprefix("Answer: ")))
            texts.extend(row["context_v1"])
    with (test_data / "fiqa" / "fiqa.jsonl").open(encoding="utf-8") as handle:
        for line in list(handle)[:8]:
            row = json.loads(line)
            texts.append(row["user_input"])
            texts.extend(split_sentences(row["response"]))
    article = (test_data / "wikipedia" / "Brown_bear.txt").read_text(encoding="utf-8")
    texts.extend([p for p in article.split("\n") if len(p) > 40][:30])
    return list(dict.fromkeys(t for t in texts if t.strip()))


@pytest.fixture(scope="module")
def onnx_embedder() -> Embedder:
    if not runtime_available():
        pytest.fail("onnxruntime and tokenizers are dependencies of chromadb and transformers: both must be here")
    embedder = Embedder(backend="onnx")
    embedder.embed(["warm up"])
    return embedder


def test_onnx_matches_torch_on_real_texts(test_data: Path, onnx_embedder: Embedder) -> None:
    texts = _real_texts(test_data)
    assert len(texts) > 120
    fast = onnx_embedder.embed(texts)
    slow = Embedder(backend="torch").embed(texts)
    assert onnx_embedder.backend == "onnx"
    assert fast.dtype == np.float32 and fast.shape == slow.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    cosines = (fast * slow).sum(axis=1)
    assert float(cosines.min()) >= 0.999  # measured: 0.9999998 (float32 rounding only)
    # order and batching do not change a text's vector
    again = Embedder(backend="onnx").embed(list(reversed(texts[:40])))
    assert np.allclose(again[::-1], fast[:40], atol=1e-5)


def test_export_is_cached_with_its_metadata(onnx_embedder: Embedder) -> None:
    path = find_cached(Path(resolve_model_path(onnx_embedder.model_name)), onnx_embedder.model_name)
    assert path is not None and path.parent.parent == cache_root() / "onnx"
    meta = json.loads((path.parent / "meta.json").read_text(encoding="utf-8"))
    assert meta["size"] == path.stat().st_size and meta["opset"] == 17 and len(meta["sha256"]) == 64
    assert onnx_embedder.dimension == 384


def test_backend_choice(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with pytest.raises(RagtestError, match="unknown embedding backend"):
        Embedder(backend="tensorrt")
    with pytest.raises(RagtestError, match="float32 only"):
        Embedder(backend="onnx", dtype="bfloat16")
    assert Embedder(dtype="bfloat16").backend == "torch"
    monkeypatch.setenv("RAGTEST_EMBED_BACKEND", "torch")
    assert Embedder().backend == "torch"
    # a model that is not a local folder cannot be exported: "onnx" says so, "auto" falls back to torch quietly
    monkeypatch.setenv("RAGTEST_CACHE_DIR", str(tmp_path))
    with pytest.raises(RagtestError, match="ONNX embedding backend could not load"):
        Embedder("no-such-model-anywhere", backend="onnx").embed(["x"])
    fallback = Embedder("no-such-model-anywhere", backend="auto")
    assert fallback._onnx_encoder() is None and fallback.backend == "torch"


def test_length_batches_keep_long_texts_from_padding_short_ones() -> None:
    lengths = [200, 13, 20, 45, 15, 14, 190, 30]
    batches = length_batches(lengths, max_batch=16)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    assert batches[0] == [0, 6]  # the two long texts together, longest first
    for batch in batches:
        assert max(lengths[i] for i in batch) <= 2 * min(lengths[i] for i in batch)
    assert all(len(b) <= 2 for b in length_batches([10] * 5, max_batch=2))
    assert length_batches([]) == []


def test_light_imports() -> None:
    """`import ragtest` and the CLI module load none of the heavy libraries: each stage imports its own on use."""
    code = (
        "import sys, ragtest, ragtest.cli, evaluation, testgen, rag_under_test, ragtest_core.embeddings; "
        "heavy = ('torch', 'sentence_transformers', 'transformers', 'scipy.stats', 'chromadb', 'nltk', "
        "'rouge_score', 'langchain_core.language_models.chat_models', 'matplotlib', 'onnxruntime'); "
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""
