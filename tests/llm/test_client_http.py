"""LLMClient through the real langchain-openai ChatOpenAI against the local OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import time

import pytest
from pydantic import BaseModel

from ragtest_core.asyncio_utils import run_sync
from ragtest_core.errors import LLMError, LLMOutputError, LLMPermanentError
from ragtest_core.llm import build_client
from tests.llm.conftest import ClientFactory
from tests.stubs.openai_server import Fault, OpenAIStubServer


class Answer(BaseModel):
    answer: str
    score: float


def test_plain_text_call(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.script("Paris is the capital of France.")
    client = make_client()

    reply = run_sync(client.text("What is the capital of France?", stage="qa"))

    assert reply == "Paris is the capital of France."
    assert openai_server.request_count == 1
    request = openai_server.chat_requests[0]
    assert request.last_user == "What is the capital of France?"
    assert request.body["model"] == "stub-model"


def test_structured_parses_fenced_chatty_json(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.script('Sure! Here it is:\n```json\n{"answer": "Paris", "score": 0.9,}\n```\nHope that helps.')
    client = make_client(structured_output="prompt")

    result = run_sync(client.structured("Capital of France?", Answer, stage="judge"))

    assert result == Answer(answer="Paris", score=0.9)
    assert openai_server.request_count == 1
    request = openai_server.chat_requests[0]
    assert "JSON schema" in request.last_user and request.response_schema is None


def test_structured_repairs_a_malformed_first_reply(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.script("I believe the answer is Paris.", '{"answer": "Paris", "score": 1}')
    client = make_client()

    result = run_sync(client.structured("Capital of France?", Answer, stage="judge"))

    assert result == Answer(answer="Paris", score=1.0)
    assert openai_server.request_count == 2
    repair = openai_server.chat_requests[1].messages
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    assert repair[1]["content"] == "I believe the answer is Paris."
    assert "could not be used" in repair[2]["content"]


def test_429_retry_after_is_honoured(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.inject(0, "rate_limit", retry_after=0.6)
    openai_server.script("done")
    client = make_client()

    reply = run_sync(client.text("hello", stage="s"))

    assert reply == "done"
    first, second = openai_server.chat_requests
    assert first.status == 429 and second.status == 200
    assert second.received_at - first.received_at >= 0.6  # the backoff is 0.01 s: Retry-After wins
    assert client.usage.stages["s"].retries == 1


def test_429_with_integer_retry_after_header(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.inject(0, Fault("rate_limit", retry_after="1"))
    client = make_client()

    run_sync(client.text("hello", stage="s"))

    first, second = openai_server.chat_requests
    assert second.received_at - first.received_at >= 1.0


def test_500_is_retried(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.inject(0, "server_error")
    openai_server.inject(1, "server_error")
    openai_server.script("recovered")
    client = make_client()

    assert run_sync(client.text("hello", stage="s")) == "recovered"
    assert [r.status for r in openai_server.chat_requests] == [500, 500, 200]
    assert client.usage.stages["s"].retries == 2


def test_retries_give_up_with_a_reason(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.fault_rates["server_error"] = 1.0
    client = make_client(retries=2)

    with pytest.raises(LLMError, match=r"server error \(500\).*gave up after 3 attempts") as info:
        run_sync(client.text("hello", stage="s"))

    assert not isinstance(info.value, LLMPermanentError)
    assert openai_server.request_count == 3
    assert client.usage.stages["s"].failures == 1


def test_malformed_body_is_retried(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.inject(0, "malformed")
    openai_server.script("clean")
    client = make_client()

    assert run_sync(client.text("hello", stage="s")) == "clean"
    assert openai_server.request_count == 2


def test_hanging_connection_times_out_and_is_retried(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.inject(0, "hang", hang_s=5)
    openai_server.script("after the hang")
    client = make_client(timeout=0.5)

    started = time.monotonic()
    reply = run_sync(client.text("hello", stage="s"))
    elapsed = time.monotonic() - started

    assert reply == "after the hang"
    assert openai_server.request_count == 2
    assert 0.5 <= elapsed < 4.0


def test_401_fails_at_once_with_an_actionable_message(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.fault_rates["unauthorized"] = 1.0
    client = make_client(retries=5)

    with pytest.raises(LLMPermanentError, match="OPENAI_API_KEY") as info:
        run_sync(client.text("hello", stage="s"))

    assert "authentication failed (401)" in str(info.value)
    assert openai_server.request_count == 1
    assert client.usage.stages["s"].retries == 0


def test_truncated_reply_is_retried_with_more_tokens(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.inject(0, "truncate")
    openai_server.script('{"answer": "a long and complete answer", "score": 0.5}')
    client = make_client()

    result = run_sync(client.structured("question", Answer, stage="s"))

    assert result.answer == "a long and complete answer"
    first, second = openai_server.chat_requests
    assert first.response["choices"][0]["finish_reason"] == "length"
    assert first.max_tokens is None  # ChatOpenAI sends invoke-time max_tokens as max_completion_tokens
    assert second.max_tokens == 4096  # at least TRUNCATION_MAX_TOKENS
    assert client.usage.stages["s"].retries == 1 and client.usage.stages["s"].calls == 2


def test_a_truncated_text_reply_gets_twice_the_tokens_under_the_same_key(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.inject(0, "truncate")
    openai_server.script("the whole reply", "must not be used")
    client = make_client()

    assert run_sync(client.text("question", stage="s", max_tokens=3000)) == "the whole reply"
    assert run_sync(client.text("question", stage="s", max_tokens=3000)) == "the whole reply"  # cached
    assert [r.max_tokens for r in openai_server.chat_requests] == [3000, 6000]


def test_empty_reply_is_an_output_error_for_structured(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.fault_rates["empty"] = 1.0
    client = make_client(retries=1)

    with pytest.raises(LLMOutputError, match="empty reply"):
        run_sync(client.structured("question", Answer, stage="s"))

    assert openai_server.request_count == 4  # (the first reply + one retry) and the same for the repair round
    assert client.usage.stages["s"].failures == 1
    assert client.usage.stages["s"].retries == 2


def test_empty_reply_is_retried(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.inject(0, "empty")
    client = make_client()

    assert run_sync(client.text("hello", stage="s")) == "ok"
    assert openai_server.request_count == 2
    assert client.usage.stages["s"].retries == 1


def test_empty_text_reply_after_every_retry_is_returned_but_not_cached(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.inject(0, "empty")
    openai_server.inject(1, "empty")
    client = make_client(retries=1)

    assert run_sync(client.text("hello", stage="s")) == ""
    assert run_sync(client.text("hello", stage="s")) == "ok"
    assert openai_server.request_count == 3


def test_cache_serves_repeats_and_survives_a_new_client(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.script("cached reply", "must not be used")
    client = make_client()

    assert run_sync(client.text("same prompt", stage="s")) == "cached reply"
    assert run_sync(client.text("same prompt", stage="s")) == "cached reply"
    assert openai_server.request_count == 1

    fresh = make_client()
    assert run_sync(fresh.text("same prompt", stage="s")) == "cached reply"
    assert openai_server.request_count == 1
    assert fresh.usage.stages["s"].cache_hits == 1
    assert fresh.usage.stages["s"].calls == 0


def test_usage_comes_from_the_server(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.usage = (11, 7)
    client = make_client(cache=False)

    run_sync(client.text("one", stage="s"))
    run_sync(client.text("two", stage="s"))

    stage = client.usage.stages["s"]
    assert (stage.calls, stage.input_tokens, stage.output_tokens, stage.estimated_calls) == (2, 22, 14, 0)


def test_concurrency_is_bounded(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.latency_ms = 200
    client = make_client(concurrency=2, cache=False)

    async def many() -> list[str]:
        return await asyncio.gather(*(client.text(f"question {i}", stage="s") for i in range(6)))

    assert len(run_sync(many())) == 6
    assert openai_server.request_count == 6
    assert openai_server.max_in_flight == 2


def test_requests_per_second_is_respected(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    client = make_client(rps=5, concurrency=16, cache=False)

    async def for_one_second() -> int:
        tasks = [asyncio.create_task(client.text(f"q{i}", stage="s")) for i in range(30)]
        await asyncio.sleep(1.0)
        sent = openai_server.request_count
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return sent

    sent = run_sync(for_one_second())
    assert 2 <= sent <= 8  # 5 per second, with slack for scheduling and the bucket
    settled = openai_server.request_count
    time.sleep(0.5)
    assert openai_server.request_count == settled  # cancelling the callers cancelled their calls on the I/O loop


def test_one_client_across_several_event_loops(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    """Each run_sync makes a new loop; pooled keep-alive connections must not break the next stage's calls."""
    openai_server.latency_ms = 20
    client = make_client(concurrency=2, cache=False)

    async def stage(name: str) -> list[str]:
        return await asyncio.gather(*(client.text(f"{name} {i}", stage=name) for i in range(4)))

    for name in ("first", "second", "third"):
        assert run_sync(stage(name)) == ["ok"] * 4

    assert openai_server.request_count == 12  # no attempt wasted on a connection from a closed loop
    assert sum(s.retries for s in client.usage.stages.values()) == 0
    assert openai_server.max_in_flight <= 2


def test_run_sync_inside_a_running_loop(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    client = make_client(cache=False)

    async def notebook_cell() -> str:
        return run_sync(client.text("from jupyter", stage="s"))

    assert asyncio.run(notebook_cell()) == "ok"


def test_base_url_without_model_name(openai_server: OpenAIStubServer) -> None:
    client = build_client(openai_server.url)
    assert client is not None
    assert run_sync(client.text("hi", stage="s")) == "ok"
    assert openai_server.chat_requests[0].body["model"] == "default"
