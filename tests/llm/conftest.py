"""Fixtures for the LLM runtime tests: the local OpenAI-compatible server and a client pointed at it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragtest_core.llm import LLMClient, LLMConfig, build_client
from tests.stubs.openai_server import OpenAIStubServer, openai_server  # noqa: F401  (fixture)

ClientFactory = Callable[..., LLMClient]


@pytest.fixture
def make_client(openai_server: OpenAIStubServer, tmp_path: Path) -> ClientFactory:  # noqa: F811
    """Build an LLMClient on the stub server through the real ChatOpenAI, with fast retries."""

    def make(cache: bool = True, **overrides: Any) -> LLMClient:
        settings: dict[str, Any] = {"timeout": 2.0, "retries": 3, "backoff": 0.01}
        settings.update(overrides)
        client = build_client(
            "stub-model",
            base_url=openai_server.url,
            cache_path=tmp_path / "cache.sqlite" if cache else None,
            config=LLMConfig(**settings),
        )
        assert client is not None
        return client

    return make
