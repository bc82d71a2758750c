"""Flow control for model calls: adaptive concurrency (AIMD) with one priority queue, and a tokens-per-minute bucket.

Both are used only from the LLM I/O loop (ragtest_core.llm.loop), so plain asyncio futures are safe here. The
requests-per-second limit is LangChain's `InMemoryRateLimiter` (see `RateLimits`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from dataclasses import dataclass
from typing import Protocol

from langchain_core.rate_limiters import InMemoryRateLimiter

from ragtest_core.llm.config import LLMConfig

#: Sort key of a waiting call: (-priority, order) of its `LLMRequest`; ties go first come, first served.
QueueKey = tuple[int, int]


class ConcurrencyLimit(Protocol):
    """What a client needs of its limit on calls in flight: `AdaptiveConcurrency`, or one shared by the workers of
    a distributed run (one budget, however many processes send)."""

    limit: float
    lowest: float
    cuts: int

    async def acquire(self, key: QueueKey = (0, 0)) -> int: ...
    async def release(self) -> None: ...
    def on_success(self) -> None: ...
    def on_rate_limited(self, epoch: int, retry_after_s: float | None = None) -> None: ...


class RequestLimits(Protocol):
    """What a client needs of its rate limits: `RateLimits`, or shared ones."""

    async def acquire(self, prompt_tokens: int) -> None: ...


class AdaptiveConcurrency:
    """A bound on calls in flight that adapts to the provider (AIMD, as TCP does), with one priority queue.

    On a rate-limit reply the limit is halved (at most once per round trip: 429s from calls
    that started before the last cut do not cut again), and no new call starts until the server's Retry-After
    has passed (calls sent into a window known to be full would only collect more 429s); each success adds
    `1 / limit`, so a full window of successes raises it by one. The limit stays within [floor, ceiling].

    Every call of a client waits in one queue: a freed slot goes to the waiting call with the smallest key
    (`-priority`, then `order`, of its `LLMRequest`), then to the one that came first. A call that others wait
    for (a statement extraction before its verdicts) asks with a higher priority, so chains finish early and the
    last wave of a run is full of independent calls.
    """

    def __init__(self, ceiling: int, floor: int = 1) -> None:
        self.ceiling = max(1, ceiling)
        self.floor = max(1, min(floor, self.ceiling))
        self.limit = float(self.ceiling)
        self.in_flight = 0
        self.cuts = 0
        self.lowest = self.limit
        self._epoch = 0  # bumped on every cut
        self.paused_until = 0.0  # time.monotonic() before which no call starts
        self._waiters: list[tuple[QueueKey, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    @property
    def allowed(self) -> int:
        return max(self.floor, int(self.limit))

    async def acquire(self, key: QueueKey = (0, 0)) -> int:
        """Wait for a slot; returns the epoch the call started in (pass it to `on_rate_limited`)."""
        if not self._waiters and self._can_start():
            self.in_flight += 1
            return self._epoch
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (key, next(self._arrivals), future))
        self._wake()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # the slot was handed over as the caller was cancelled
                self.in_flight -= 1
                self._wake()
            raise
        return self._epoch

    async def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _can_start(self) -> bool:
        return self.in_flight < self.allowed and self.paused_until <= time.monotonic()

    def _wake(self) -> None:
        """Hand free slots to the best waiting calls; while paused, look again when the pause ends."""
        while self._waiters and self.in_flight < self.allowed:
            pause = self.paused_until - time.monotonic()
            if pause > 0:
                if self._timer is None:
                    self._timer = asyncio.get_running_loop().call_later(pause, self._resume)
                return
            _, _, future = heapq.heappop(self._waiters)
            if future.done():  # cancelled while waiting
                continue
            self.in_flight += 1
            future.set_result(None)

    def _resume(self) -> None:
        self._timer = None
        self._wake()

    def on_success(self) -> None:
        self.limit = min(float(self.ceiling), self.limit + 1.0 / max(1.0, self.limit))
        if self._waiters:
            self._wake()

    def on_rate_limited(self, epoch: int, retry_after_s: float | None = None) -> None:
        if retry_after_s:
            self.paused_until = max(self.paused_until, time.monotonic() + retry_after_s)
        if epoch != self._epoch:  # this call started before the last cut: that cut already answered it
            return
        self._epoch += 1
        self.cuts += 1
        self.limit = max(float(self.floor), self.limit * 0.5)
        self.lowest = min(self.lowest, self.limit)


def concurrency_of(config: LLMConfig) -> AdaptiveConcurrency:
    """The limit on calls in flight `config` sets: adaptive between one and `config.concurrency`, or fixed."""
    return AdaptiveConcurrency(config.concurrency, floor=config.concurrency if config.fixed_concurrency else 1)


class TokenBucket:
    """At most `per_minute` tokens a minute, refilled continuously; a request larger than the bucket waits for
    a full bucket (it is never refused)."""

    def __init__(self, per_minute: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.tokens = float(per_minute)
        self._stamp = time.monotonic()
        self._lock = asyncio.Lock()  # bound to a loop on first use (Python 3.10+)

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    async def acquire(self, tokens: int) -> None:
        need = min(float(tokens), self.capacity)
        async with self._lock:  # first come, first served: a large request is not starved by small ones
            self._refill()
            while self.tokens < need:
                await asyncio.sleep((need - self.tokens) / self.rate)
                self._refill()
            self.tokens -= need


@dataclass
class RateLimits:
    """The limits of one model: requests per second (LangChain's InMemoryRateLimiter) and tokens per minute."""

    requests: InMemoryRateLimiter | None = None
    tokens: TokenBucket | None = None

    @classmethod
    def of(cls, config: LLMConfig) -> RateLimits:
        """The limits `config.rps` and `config.tpm` set (none when unset)."""
        requests = (
            InMemoryRateLimiter(
                requests_per_second=config.rps, check_every_n_seconds=0.01, max_bucket_size=max(1.0, config.rps)
            )
            if config.rps
            else None
        )
        return cls(requests=requests, tokens=TokenBucket(config.tpm) if config.tpm else None)

    async def acquire(self, prompt_tokens: int) -> None:
        if self.tokens is not None:
            await self.tokens.acquire(prompt_tokens)
        if self.requests is not None:
            await self.requests.aacquire()
