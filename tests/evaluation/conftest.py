"""Fixtures for the evaluation tests: a scripted LLM client."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ragtest_core.llm.client import LLMClient, LLMConfig
from tests.evaluation.helpers import MakeClient
from tests.stubs.scripted import ScriptedChatModel


@pytest.fixture
def scripted_client() -> MakeClient:
    """Build an LLMClient over a ScriptedChatModel answering with `responder(prompt)`; no retries."""

    def make(responder: Callable[[str], str]) -> tuple[LLMClient, ScriptedChatModel]:
        model = ScriptedChatModel(responder=responder)
        client = LLMClient(model, "scripted", config=LLMConfig(retries=0, concurrency=4))
        return client, model

    return make
