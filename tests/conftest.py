"""Fixtures shared by the whole suite: the data the tests read (tests/data) and the real MiniLM embedder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

#: Everything the tests read ships here, each source with its licence (see tests/data/README.md).
TEST_DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def test_data() -> Path:
    """tests/data: real Wikipedia articles, WikiEval, FiQA rows, product docs, CJK text (read-only)."""
    return TEST_DATA


@pytest.fixture(scope="session")
def wiki_dir(test_data: Path) -> Path:
    """The seven English Wikipedia articles, one plain-text file per page (also the offline page cache)."""
    return test_data / "wikipedia"


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    """The real all-MiniLM-L6-v2 embedder, loaded once for the whole session."""
    from ragtest_core.embeddings import get_embedder

    return get_embedder()
