"""Fixtures shared by the whole suite: the real data folder and the real MiniLM embedder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("RAGTEST_SHARED_DATA", ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data: real articles, WikiEval and FiQA (read-only)."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"shared data folder not found at {SHARED_DATA}; set RAGTEST_SHARED_DATA")
    return SHARED_DATA


@pytest.fixture(scope="session")
def wiki_dir(shared_data: Path) -> Path:
    return shared_data / "wikipedia"


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    """The real all-MiniLM-L6-v2 embedder, loaded once for the whole session."""
    from ragtest_core.embeddings import get_embedder

    return get_embedder()
