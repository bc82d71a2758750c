"""The scripted chat model behind the runtime, and turning specs into chat models and clients."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_core.messages import SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr

from ragtest_core.asyncio_utils import run_sync
from ragtest_core.errors import LLMOutputError, RagtestError
from ragtest_core.llm import LLMClient, LLMConfig, build_client, make_chat_model
from ragtest_core.llm.spec import model_identity
from tests.stubs.scripted import ScriptedChatModel


class Verdict(BaseModel):
    verdict: int
    reason: str


def test_scripted_model_answers_by_content_under_concurrency(tmp_path: Path) -> None:
    model = ScriptedChatModel(responder=lambda prompt: f"answer to {prompt.splitlines()[0]}")
    client = build_client(None, model=model, cache_path=tmp_path / "c.sqlite", config=LLMConfig(concurrency=3))
    assert client is not None

    async def ask() -> list[str]:
        return await asyncio.gather(*(client.text(f"q{i}", stage="s") for i in range(10)))

    assert run_sync(ask()) == [f"answer to q{i}" for i in range(10)]
    assert run_sync(ask()) == [f"answer to q{i}" for i in range(10)]  # a second loop, served from the cache
    assert len(model.prompts) == 10
    assert client.usage.stages["s"].cache_hits == 10


def test_scripted_model_structured_with_repair() -> None:
    model = ScriptedChatModel(responses=["no idea", "```json\n{'verdict': 1, 'reason': 'supported',}\n```"])
    client = LLMClient(model, model_id="scripted")

    verdict = run_sync(client.structured("Is it supported?", Verdict, stage="judge"))

    assert verdict == Verdict(verdict=1, reason="supported")
    assert len(model.prompts) == 2
    assert client.usage.stages["judge"].input_tokens > 0
    assert client.usage.stages["judge"].estimated_calls == 0


def test_scripted_model_structured_failure_is_an_output_error() -> None:
    client = LLMClient(ScriptedChatModel(responses=["still prose"]), model_id="scripted")
    with pytest.raises(LLMOutputError, match="after one repair"):
        run_sync(client.structured("Is it supported?", Verdict, stage="judge"))
    assert client.usage.stages["judge"].failures == 1


def test_schema_instructions_do_not_rewrite_a_system_message() -> None:
    model = ScriptedChatModel(responses=['{"verdict": 0, "reason": "r"}'])
    client = LLMClient(model, model_id="scripted")
    run_sync(client.structured([SystemMessage(content="You are a judge.")], Verdict, stage="judge"))
    assert model.prompts[0].startswith("You are a judge.\nRespond with one JSON object")


def test_scripted_model_needs_a_script() -> None:
    client = LLMClient(ScriptedChatModel(), model_id="scripted", config=LLMConfig(retries=0))
    with pytest.raises(RagtestError, match="responses or a responder"):
        run_sync(client.text("hi", stage="s"))


def test_openai_spec_gets_timeout_and_no_provider_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = make_chat_model("openai:gpt-4o-mini", config=LLMConfig(timeout=7.5, temperature=0.0))
    assert isinstance(model, ChatOpenAI)
    assert model.max_retries == 0
    assert model.request_timeout == 7.5
    assert model.model_name == "gpt-4o-mini"
    assert model.root_async_client.max_retries == 0


def test_base_url_spec_builds_an_openai_compatible_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("RAGTEST_LLM_API_KEY", "local-key")
    model = make_chat_model("llama3", base_url="http://127.0.0.1:9/v1", config=LLMConfig(timeout=3))
    assert isinstance(model, ChatOpenAI)
    assert (model.model_name, model.openai_api_base, model.max_retries) == ("llama3", "http://127.0.0.1:9/v1", 0)
    assert isinstance(model.openai_api_key, SecretStr) and model.openai_api_key.get_secret_value() == "local-key"


@pytest.mark.parametrize(
    ("spec", "sent"),
    [("openai:gpt-4o-mini", "gpt-4o-mini"), ("ollama:llama3.1:8b", "llama3.1:8b"), ("llama3.1:8b", "llama3.1:8b")],
)
def test_base_url_sends_the_model_name_without_the_provider_prefix(spec: str, sent: str) -> None:
    from tests.stubs.openai_server import OpenAIStubServer

    with OpenAIStubServer(replies=["hello"]) as server:
        client = build_client(spec, base_url=server.url, config=LLMConfig(retries=0, timeout=5))
        assert client is not None and client.model_id == f"{server.url}#{spec}"
        assert run_sync(client.text("hi", stage="s")) == "hello"
        assert server.chat_requests[0].body["model"] == sent


def test_unknown_provider_is_a_ragtest_error() -> None:
    with pytest.raises(RagtestError, match="no-such-provider"):
        make_chat_model("no-such-provider:model")


def test_no_llm_configured() -> None:
    assert build_client(None) is None
    with pytest.raises(RagtestError, match="no LLM configured"):
        make_chat_model(None)


def test_model_identity() -> None:
    assert model_identity("openai:gpt-4o-mini", None) == "openai:gpt-4o-mini"
    assert model_identity("llama3", "http://h/v1") == "http://h/v1#llama3"
    assert model_identity("http://h/v1", None) == "http://h/v1#default"


def test_missing_provider_package_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import langchain.chat_models

    def missing(*args: object, **kwargs: object) -> None:
        raise ImportError("No module named 'langchain_ollama'")

    monkeypatch.setattr(langchain.chat_models, "init_chat_model", missing)
    with pytest.raises(RagtestError, match=r"pip install 'ragtest\[ollama\]' or langchain-ollama"):
        make_chat_model("ollama:llama3.1")


def test_content_block_replies_become_plain_text() -> None:
    from langchain_core.messages import AIMessage

    from ragtest_core.llm.client import reply_text

    blocks = AIMessage(content=[{"type": "text", "text": "hello "}, {"type": "text", "text": "world"}])
    assert reply_text(blocks) == "hello world"
    assert reply_text(AIMessage(content="plain")) == "plain"
