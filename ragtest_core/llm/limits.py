"""Flow control for model calls: adaptive concurrency (AIMD) and a tokens-per-minute bucket.

Both are used only from the LLM I/O loop (ragtest_core.llm.loop), so an asyncio.Condition is safe here. The
requests-per-second limit is LangChain's `InMemoryRateLimiter` (see `RateLimits`).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from langchain_core.rate_limiters import InMemoryRateLimiter


class AdaptiveConcurrency:
    """A bound on calls in flight that adapts to the provider: AIMD, as TCP does.

    On a rate-limit reply the limit is multiplied by `decrease` (at most once per round trip: 429s from calls
    that started before the last cut do not cut again), and no new call starts until the server's Retry-After
    has passed (calls sent into a window known to be full would only collect more 429s); each success adds
    `1 / limit`, so a full window of successes raises it by one. The limit stays within [floor, ceiling].
    """

    def __init__(
        self, ceiling: int, floor: int = 1, decrease: float = 0.5, increase: float = 1.0, start: int | None = None
    ) -> None:
        self.ceiling = max(1, ceiling)
        self.floor = max(1, min(floor, self.ceiling))
        self.decrease = decrease
        self.increase = increase
        self.limit = float(start if start is not None else self.ceiling)
        self.in_flight = 0
        self.cuts = 0
        self.lowest = self.limit
        self._epoch = 0  # bumped on every cut
        self.paused_until = 0.0  # time.monotonic() before which no call starts
        self._condition: asyncio.Condition | None = None

    @property
    def allowed(self) -> int:
        return max(self.floor, int(self.limit))

    def _cond(self) -> asyncio.Condition:
        if self._condition is None:
            self._condition = asyncio.Condition()
        return self._condition

    async def acquire(self) -> int:
        """Wait for a slot; returns the epoch the call started in (pass it to `on_rate_limited`)."""
        condition = self._cond()
        while True:
            pause = self.paused_until - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)
            async with condition:
                await condition.wait_for(lambda: self.in_flight < self.allowed)
                if self.paused_until <= time.monotonic():
                    self.in_flight += 1
                    return self._epoch

    async def release(self) -> None:
        condition = self._cond()
        async with condition:
            self.in_flight -= 1
            condition.notify_all()

    def on_success(self) -> None:
        self.limit = min(float(self.ceiling), self.limit + self.increase / max(1.0, self.limit))

    def on_rate_limited(self, epoch: int, retry_after_s: float | None = None) -> None:
        if retry_after_s:
            self.paused_until = max(self.paused_until, time.monotonic() + retry_after_s)
        if epoch != self._epoch:  # this call started before the last cut: that cut already answered it
            return
        self._epoch += 1
        self.cuts += 1
        self.limit = max(float(self.floor), self.limit * self.decrease)
        self.lowest = min(self.lowest, self.limit)


class TokenBucket:
    """At most `per_minute` tokens a minute, refilled continuously; a request larger than the bucket waits for
    a full bucket (it is never refused)."""

    def __init__(self, per_minute: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.tokens = float(per_minute)
        self._stamp = time.monotonic()
        self._lock: asyncio.Lock | None = None
        self.waited_s = 0.0

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    async def acquire(self, tokens: int) -> None:
        if self._lock is None:
            self._lock = asyncio.Lock()
        need = min(float(tokens), self.capacity)
        async with self._lock:  # first come, first served: a large request is not starved by small ones
            self._refill()
            while self.tokens < need:
                delay = (need - self.tokens) / self.rate
                self.waited_s += delay
                await asyncio.sleep(delay)
                self._refill()
            self.tokens -= need


@dataclass
class RateLimits:
    """The limits of one model: requests per second (LangChain's InMemoryRateLimiter) and tokens per minute."""

    requests: InMemoryRateLimiter | None = None
    tokens: TokenBucket | None = None

    @classmethod
    def make(cls, requests_per_second: float | None, tokens_per_minute: float | None) -> RateLimits:
        requests = (
            InMemoryRateLimiter(
                requests_per_second=requests_per_second,
                check_every_n_seconds=0.01,
                max_bucket_size=max(1.0, requests_per_second),
            )
            if requests_per_second
            else None
        )
        return cls(requests=requests, tokens=TokenBucket(tokens_per_minute) if tokens_per_minute else None)

    async def acquire(self, prompt_tokens: int) -> None:
        if self.tokens is not None:
            await self.tokens.acquire(prompt_tokens)
        if self.requests is not None:
            await self.requests.aacquire()
