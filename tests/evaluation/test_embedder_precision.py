"""The embedder's precision option: bfloat16 where the CPU makes it fast, and close to float32 everywhere."""

from __future__ import annotations

import numpy as np
import pytest

from ragtest_core.embeddings import Embedder, get_embedder, has_bfloat16_matmul, resolve_precision
from ragtest_core.errors import RagtestError

SENTENCES = [
    "The Eiffel Tower was built from 1887 to 1889 as the entrance arch to the 1889 World's Fair.",
    "An index fund tracks a market index such as the S&P 500 at a low cost.",
    "Bananas are yellow.",
    "You can deduct mortgage interest on a second home if you itemise deductions, up to the usual limits, but "
    "not the interest on a home equity loan used for anything other than buying or improving the home.",
]


def test_precision_is_resolved() -> None:
    assert resolve_precision("float32") == "float32"
    assert resolve_precision("bfloat16") == "bfloat16"
    assert resolve_precision("auto") == ("bfloat16" if has_bfloat16_matmul() else "float32")
    assert Embedder(dtype="float32").precision == "float32"
    with pytest.raises(RagtestError, match="unknown embedding dtype"):
        Embedder(dtype="int8")


def test_bfloat16_embeddings_match_float32() -> None:
    full = get_embedder(dtype="float32").embed(SENTENCES)
    half = Embedder(dtype="bfloat16")
    vectors = half.embed(SENTENCES)
    assert vectors.dtype == np.float32 and vectors.shape == full.shape
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)  # normalised in float32
    assert float((vectors * full).sum(axis=1).min()) >= 0.999
    assert half.embed([SENTENCES[2]])[0].shape == (full.shape[1],)


def test_default_precision_is_float32_and_env_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGTEST_EMBED_DTYPE", raising=False)
    assert Embedder().precision == "float32"
    assert get_embedder() is get_embedder(dtype="float32")  # one shared model, not two
    monkeypatch.setenv("RAGTEST_EMBED_DTYPE", "bfloat16")
    assert Embedder().precision == "bfloat16"
