"""Native structured output (OpenAI `response_format` json_schema, Ollama `format`), the fallback to the schema in
the prompt when a server rejects it (remembered per model, in the cache db too), refusals, and the early stop when
a prompt kind's first replies are all unusable."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import BaseModel, Field

from ragtest_core.asyncio_utils import run_sync
from ragtest_core.errors import LLMError, LLMOutputError, LLMPermanentError
from ragtest_core.llm import LLMClient, LLMConfig, ModelUnfitError
from ragtest_core.llm.formats import native_kwargs
from tests.llm.conftest import ClientFactory
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.scripted import ScriptedChatModel


class Verdict(BaseModel):
    reason: str = ""
    verdict: int = Field(ge=0, le=1)


def answer_by_schema(request: Any) -> str:
    return json.dumps({"reason": "stated", "verdict": 1})


def test_native_request_carries_the_strict_schema_and_no_schema_text(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.responder = answer_by_schema
    client = make_client()

    result = run_sync(client.structured("Is the sky blue?", Verdict, stage="judge"))

    assert result == Verdict(reason="stated", verdict=1)
    (request,) = openai_server.chat_requests
    response_format = request.body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "Verdict" and response_format["json_schema"]["strict"] is True
    schema = request.response_schema
    assert schema is not None and schema["required"] == ["reason", "verdict"]
    assert schema["additionalProperties"] is False
    assert request.last_user == "Is the sky blue?"  # the schema travels as a parameter, not as prompt text
    assert request.schema_errors == []
    assert client.structured_mode == "native"


def test_rejected_native_output_falls_back_and_is_remembered(tmp_path: Path) -> None:
    with OpenAIStubServer(responder=answer_by_schema, reject_response_format=True) as server:
        config = LLMConfig(retries=0, timeout=5)
        cache = tmp_path / "cache.sqlite"
        from ragtest_core.llm import build_client

        client = build_client("stub-model", base_url=server.url, cache_path=cache, config=config)
        assert client is not None and client.structured_mode == "native"

        first = run_sync(client.structured("Is the sky blue?", Verdict, stage="judge"))
        rejected, accepted = server.chat_requests
        assert rejected.status == 400 and rejected.response_schema is not None
        assert accepted.status == 200 and accepted.response_schema is None
        assert "conforms to this JSON schema" in accepted.last_user
        assert first.verdict == 1 and client.structured_mode == "prompt" and client.fatal is None

        run_sync(client.structured("Is grass green?", Verdict, stage="judge"))
        assert server.request_count == 3  # straight to the prompt: no second rejection
        again = build_client("stub-model", base_url=server.url, cache_path=cache, config=config)
        assert again is not None and again.structured_mode == "prompt"  # remembered in the cache db


def test_prompt_mode_when_configured_or_without_a_native_parameter(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.responder = answer_by_schema
    client = make_client(structured_output="prompt")
    run_sync(client.structured("Is the sky blue?", Verdict, stage="judge"))
    assert openai_server.chat_requests[0].response_schema is None
    scripted = LLMClient(ScriptedChatModel(responses=['{"verdict": 0}']), model_id="scripted")
    assert scripted.structured_mode == "prompt"
    assert run_sync(scripted.structured("q", Verdict, stage="judge")).verdict == 0


class ChatOllama(ScriptedChatModel):
    """Stands in for langchain-ollama's ChatOllama (not installed here): records the invoke keywords."""

    seen: list[dict[str, Any]] = Field(default_factory=list)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.seen.append(kwargs)
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_ollama_gets_the_schema_as_format() -> None:
    model = ChatOllama(responses=['{"reason": "r", "verdict": 1}'])
    kwargs = native_kwargs(model, Verdict)
    assert kwargs is not None and kwargs["format"]["properties"]["verdict"]["maximum"] == 1
    client = LLMClient(model, model_id="ollama:llama3.1")
    assert run_sync(client.structured("q", Verdict, stage="judge")).verdict == 1
    assert model.seen[0]["format"] == kwargs["format"] and "JSON schema" not in model.prompts[0]


def test_refusal_is_an_output_error_without_retries(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.fault_rates["refusal"] = 1.0
    client = make_client(retries=3)
    with pytest.raises(LLMOutputError, match="refused"):
        run_sync(client.structured("Tell me something harmful.", Verdict, stage="judge"))
    assert openai_server.request_count == 1
    assert client.usage.stages["judge"].failures == 1


def test_twenty_refusals_stop_the_prompt_kind(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.fault_rates["refusal"] = 1.0
    client = make_client()
    for index in range(19):
        with pytest.raises(LLMOutputError, match="refused"):
            run_sync(client.structured(f"q{index}", Verdict, stage="judge"))
    with pytest.raises(ModelUnfitError, match=r"stub-model.*refused.*cannot help"):
        run_sync(client.structured("q19", Verdict, stage="judge"))
    assert openai_server.request_count == 20  # no repair round for a refusal, nothing after the stop


def test_reasoning_preamble_and_comments_in_a_native_reply(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.script('<think>Maybe {"verdict": 0}? No.</think>\n{"reason": "ok", // why\n "verdict": 1}')
    client = make_client()
    assert run_sync(client.structured("q", Verdict, stage="judge")).verdict == 1
    assert openai_server.request_count == 1


def test_a_model_that_never_returns_json_is_stopped_after_twenty_calls() -> None:
    model = ScriptedChatModel(responder=lambda prompt: "I would rather write a poem about the sea.")
    client = LLMClient(model, model_id="tiny-model", config=LLMConfig(concurrency=4, retries=0))
    errors = []
    for index in range(25):  # a stage asking one call after another, as a generator loop does
        with pytest.raises(LLMError) as info:
            run_sync(client.structured(f"q{index}", Verdict, stage="critic"))
        errors.append(info.value)
    assert [type(e) for e in errors] == [LLMOutputError] * 19 + [ModelUnfitError] * 6
    assert len(model.prompts) == 2 * 20  # 20 calls and their repair rounds; then nothing more is sent
    message = str(errors[19])
    assert "tiny-model" in message and "'critic'" in message and "poem about the sea" in message
    assert isinstance(errors[19], LLMPermanentError)

    async def ask(count: int) -> list[BaseException | Verdict]:
        return await asyncio.gather(
            *(client.structured(f"r{i}", Verdict, stage="critic") for i in range(count)), return_exceptions=True
        )

    assert all(isinstance(r, ModelUnfitError) for r in run_sync(ask(10)))
    assert len(model.prompts) == 40
    with pytest.raises(LLMOutputError) as other:  # the guard stops a label, not the client
        run_sync(client.structured("q", Verdict, stage="writer"))
    assert not isinstance(other.value, ModelUnfitError)


def test_one_usable_reply_disarms_the_guard() -> None:
    replies = iter(['{"verdict": 1}'] + ["no json"] * 100)
    model = ScriptedChatModel(responder=lambda prompt: next(replies))
    client = LLMClient(model, model_id="m", config=LLMConfig(concurrency=1, retries=0))
    assert run_sync(client.structured("q0", Verdict, stage="judge")).verdict == 1
    for index in range(25):
        with pytest.raises(LLMOutputError) as info:
            run_sync(client.structured(f"q{index + 1}", Verdict, stage="judge"))
        assert not isinstance(info.value, ModelUnfitError)


def test_a_stage_reader_rescues_a_reply_that_is_not_json() -> None:
    model = ScriptedChatModel(responses=["verdict: yes"])
    client = LLMClient(model, model_id="m", config=LLMConfig(retries=0))

    def read(reply: str) -> Verdict | None:
        return Verdict(verdict=1) if "yes" in reply else None

    assert run_sync(client.structured("q", Verdict, stage="s", fallback=read)).verdict == 1
    assert len(model.prompts) == 2  # the repair round comes first: JSON is preferred
    assert client.guard.usable == {"s"}
