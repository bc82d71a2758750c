"""One LLM budget for every Ray worker of a run: a named actor on the driver's node holds the concurrency limit
(adaptive, with its one priority queue), the rate limits and the reply cache; each worker's `LLMClient` uses
proxies to it instead of its own. However many workers send, no more calls are in flight than `--llm-concurrency`
allows, no faster than `--llm-rps` / `--llm-tpm`, and a reply one worker got is a cache hit for every other (and
for the next run: the actor writes the run's own cache file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtest_core.llm.cache import LLMCache
from ragtest_core.llm.config import LLMConfig
from ragtest_core.llm.limits import QueueKey, RateLimits, concurrency_of

#: Calls that may wait on the actor at once (each waiting call holds one of its concurrency slots).
ACTOR_CONCURRENCY = 10_000


class LLMBudget:
    """The shared state (run as a Ray actor, every method async on its one event loop)."""

    def __init__(self, config: LLMConfig, cache_path: str | None) -> None:
        self.concurrency = concurrency_of(config)
        self.limits = RateLimits.of(config)
        self.cache = LLMCache(cache_path) if cache_path else None
        self.peak_in_flight = 0

    async def acquire(self, priority: int, order: int) -> int:
        epoch = await self.concurrency.acquire((priority, order))
        self.peak_in_flight = max(self.peak_in_flight, self.concurrency.in_flight)
        return epoch

    async def release(self) -> None:
        await self.concurrency.release()

    async def on_success(self) -> None:
        self.concurrency.on_success()

    async def on_rate_limited(self, epoch: int, retry_after_s: float | None) -> None:
        self.concurrency.on_rate_limited(epoch, retry_after_s)

    async def rate_limit(self, prompt_tokens: int) -> None:
        await self.limits.acquire(prompt_tokens)

    async def state(self) -> dict[str, float]:
        c = self.concurrency
        return {"limit": c.limit, "lowest": c.lowest, "cuts": c.cuts, "peak_in_flight": self.peak_in_flight}

    async def cache_get(self, key: str) -> tuple[str, dict[str, int]] | None:
        return None if self.cache is None else self.cache.get(key)

    async def cache_put(self, key: str, model_id: str, reply: str, usage: dict[str, int]) -> None:
        if self.cache is not None:
            self.cache.put(key, model_id, reply, usage)

    async def get_setting(self, model_id: str, name: str) -> str | None:
        return None if self.cache is None else self.cache.get_setting(model_id, name)

    async def put_setting(self, model_id: str, name: str, value: str) -> None:
        if self.cache is not None:
            self.cache.put_setting(model_id, name, value)


def start_budget(ray: Any, name: str, config: LLMConfig, cache_path: Path | None) -> Any:
    """The run's budget actor, on the driver's node (where the run's cache file is)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node = ray.get_runtime_context().get_node_id()
    actor = ray.remote(LLMBudget).options(
        name=name,
        num_cpus=0,
        max_concurrency=ACTOR_CONCURRENCY,
        scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False),
    )
    return actor.remote(config, str(cache_path) if cache_path else None)


class SharedConcurrency:
    """`ConcurrencyLimit` of a worker's client: the budget actor's."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor
        self.limit = self.lowest = 0.0
        self.cuts = 0

    async def acquire(self, key: QueueKey = (0, 0)) -> int:
        epoch: int = await self.actor.acquire.remote(*key)
        return epoch

    async def release(self) -> None:
        await self.actor.release.remote()

    def on_success(self) -> None:
        self.actor.on_success.remote()

    def on_rate_limited(self, epoch: int, retry_after_s: float | None = None) -> None:
        self.actor.on_rate_limited.remote(epoch, retry_after_s)


class SharedLimits:
    """`RequestLimits` of a worker's client: the budget actor's."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def acquire(self, prompt_tokens: int) -> None:
        await self.actor.rate_limit.remote(prompt_tokens)


class SharedCache:
    """`ReplyCache` of a worker's client: the budget actor's (the run's cache file)."""

    def __init__(self, actor: Any, path: Path) -> None:
        self.actor = actor
        self.path = path

    def get(self, key: str) -> tuple[str, dict[str, int]] | None:
        import ray

        found: tuple[str, dict[str, int]] | None = ray.get(self.actor.cache_get.remote(key))
        return found

    def put(self, key: str, model_id: str, reply: str, usage: dict[str, int]) -> None:
        import ray

        ray.get(self.actor.cache_put.remote(key, model_id, reply, usage))  # stored before the row is reported done

    def get_setting(self, model_id: str, name: str) -> str | None:
        import ray

        value: str | None = ray.get(self.actor.get_setting.remote(model_id, name))
        return value

    def put_setting(self, model_id: str, name: str, value: str) -> None:
        import ray

        ray.get(self.actor.put_setting.remote(model_id, name, value))
