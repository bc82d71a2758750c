"""Adaptive concurrency (AIMD), the tokens-per-minute bucket, per-call parameters and sticky permanent errors."""

from __future__ import annotations

import asyncio
import time

import pytest

from ragtest_core.asyncio_utils import run_sync
from ragtest_core.errors import LLMPermanentError
from ragtest_core.llm import LLMConfig, build_client
from ragtest_core.llm.client import backoff_s
from ragtest_core.llm.limits import AdaptiveConcurrency, TokenBucket
from tests.llm.conftest import ClientFactory
from tests.stubs.openai_server import OpenAIStubServer


def test_aimd_cuts_once_per_round_trip_and_grows_back() -> None:
    limiter = AdaptiveConcurrency(ceiling=16)

    async def scenario() -> None:
        epochs = [await limiter.acquire() for _ in range(8)]
        for epoch in epochs:  # eight 429s from calls that all started before the first cut
            limiter.on_rate_limited(epoch)
        assert limiter.limit == 8 and limiter.cuts == 1
        for _ in range(8):
            await limiter.release()
        limiter.on_rate_limited(await limiter.acquire())  # a call started after the cut: cut again
        await limiter.release()
        assert limiter.limit == 4
        for _ in range(4 + 5 + 6 + 7):  # a window of successes adds one each time
            limiter.on_success()
        assert 7.5 <= limiter.limit <= 8.0

    asyncio.run(scenario())


def test_aimd_floor_and_ceiling() -> None:
    limiter = AdaptiveConcurrency(ceiling=4, floor=1)
    for _ in range(10):
        limiter.on_rate_limited(limiter._epoch)
    assert limiter.allowed == 1
    for _ in range(200):
        limiter.on_success()
    assert limiter.allowed == 4


def test_backoff_honours_retry_after_up_to_its_cap_and_doubles_otherwise() -> None:
    config = LLMConfig(backoff=1.0)
    assert 5.0 <= backoff_s(config, 1, 5.0) <= 5.1 and 300.0 <= backoff_s(config, 1, 600.0) <= 300.1
    waits = {attempt: [backoff_s(config, attempt, None) for _ in range(50)] for attempt in (1, 2, 3, 6, 9)}
    for attempt, ceiling in ((1, 1.0), (2, 2.0), (3, 4.0), (6, 32.0), (9, 60.0)):  # jittered in [ceiling / 2, ceiling]
        assert all(ceiling / 2 <= wait <= ceiling for wait in waits[attempt])
    assert len(set(waits[6])) > 1


def test_token_bucket_waits_for_tokens() -> None:
    bucket = TokenBucket(per_minute=600)  # 10 tokens a second

    async def scenario() -> float:
        await bucket.acquire(600)  # the full bucket at once
        started = time.monotonic()
        await bucket.acquire(5)  # half a second of refill
        return time.monotonic() - started

    assert 0.4 <= asyncio.run(scenario()) < 1.0


def test_tokens_per_minute_limit_through_the_client(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    prompt = "word " * 396  # ~500 estimated tokens a call
    client = make_client(tpm=60_000, cache=False)  # 1000 tokens/s: the bucket holds 120 calls

    async def many() -> list[str]:
        return await asyncio.gather(*(client.text(f"{prompt}{i}", stage="s") for i in range(124)))

    started = time.monotonic()
    run_sync(many())
    assert 1.0 <= time.monotonic() - started < 6.0  # the last calls waited for ~2000 tokens of refill


def test_aimd_keeps_429s_low_against_a_rate_limited_server() -> None:
    with OpenAIStubServer(rate_limit_rps=20, latency_ms=100) as server:
        config = LLMConfig(concurrency=16, timeout=5, backoff=0.05)
        client = build_client("stub-model", base_url=server.url, config=config)
        assert client is not None

        async def many() -> list[str]:
            return await asyncio.gather(*(client.text(f"q{i}", stage="s") for i in range(60)))

        assert len(run_sync(many())) == 60
        rejected = server.window.rejected  # type: ignore[union-attr]
    assert client.concurrency.cuts >= 1 and client.concurrency.lowest <= 8
    assert rejected <= 30  # the first burst over the limit, then few: not a 429 storm
    assert client.usage.stages["s"].rate_limited == rejected


def test_per_call_parameters_never_touch_the_shared_model(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    """ragas sets n/temperature on a shared model and races; here they travel with each call only."""
    openai_server.latency_ms = 50
    client = make_client(cache=False, concurrency=8)
    before = client.model.model_dump()

    async def mixed() -> None:
        await asyncio.gather(
            *(client.text(f"call {i}", stage="s", max_tokens=100 + i, temperature=i / 10) for i in range(8))
        )

    run_sync(mixed())
    sent = {r.last_user: (r.max_tokens, r.body.get("temperature")) for r in openai_server.chat_requests}
    assert sent == {f"call {i}": (100 + i, pytest.approx(i / 10)) for i in range(8)}
    assert client.model.model_dump() == before  # the model object was never mutated


def test_a_permanent_error_is_sticky(openai_server: OpenAIStubServer, make_client: ClientFactory) -> None:
    openai_server.inject(0, "unauthorized")
    client = make_client()

    with pytest.raises(LLMPermanentError, match="401"):
        run_sync(client.text("one", stage="s"))
    with pytest.raises(LLMPermanentError, match="401"):
        run_sync(client.text("two", stage="s"))
    assert openai_server.request_count == 1  # the second call failed without a request


def test_identical_concurrent_calls_share_one_request(
    openai_server: OpenAIStubServer, make_client: ClientFactory
) -> None:
    openai_server.latency_ms = 100
    client = make_client()

    async def same() -> list[str]:
        return await asyncio.gather(*(client.text("the same prompt", stage="s") for _ in range(5)))

    assert run_sync(same()) == ["ok"] * 5
    assert openai_server.request_count == 1
    assert client.usage.stages["s"].calls == 1 and client.usage.stages["s"].cache_hits == 4
