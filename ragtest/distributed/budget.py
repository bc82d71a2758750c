"""One LLM budget for every Ray worker of a run: a named actor on the driver's node holds the concurrency limit
(adaptive, with its one priority queue), the rate limits and the reply cache; each worker's `LLMClient` uses
proxies to it instead of its own. However many workers send, no more calls are in flight than `--llm-concurrency`
allows, no faster than `--llm-rps` / `--llm-tpm`, and a reply one worker got is a cache hit for every other (and
for the next run: the actor writes the run's own cache file).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, cast

from ragtest_core.llm.cache import LLMCache
from ragtest_core.llm.config import LLMConfig
from ragtest_core.llm.limits import QueueKey, RateLimits, concurrency_of

#: Calls that may wait on the actor at once (each waiting call holds one of its concurrency slots).
ACTOR_CONCURRENCY = 10_000


class LLMBudget:
    """The shared state (run as a Ray actor, every call async on its one event loop)."""

    def __init__(self, config: LLMConfig, cache_path: str | None) -> None:
        self.concurrency = concurrency_of(config)
        self.limits = RateLimits.of(config)
        self.cache = LLMCache(cache_path) if cache_path else None

    async def call(self, part: str, method: str, *args: Any) -> Any:
        """`self.<part>.<method>(*args)`, awaited when it is a coroutine."""
        result = getattr(getattr(self, part), method)(*args)
        return await result if inspect.isawaitable(result) else result


def start_budget(ray: Any, name: str, config: LLMConfig, cache_path: Path | None) -> Any:
    """The run's budget actor, on the driver's node (where the run's cache file is)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    actor = ray.remote(LLMBudget).options(
        name=name,
        num_cpus=0,
        max_concurrency=ACTOR_CONCURRENCY,
        scheduling_strategy=NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False),
    )
    return actor.remote(config, str(cache_path) if cache_path else None)


class SharedConcurrency:
    """`ConcurrencyLimit` of a worker's client: the budget actor's."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor
        self.limit = self.lowest = 0.0
        self.cuts = 0

    async def acquire(self, key: QueueKey = (0, 0)) -> int:
        return cast(int, await self.actor.call.remote("concurrency", "acquire", key))

    async def release(self) -> None:
        await self.actor.call.remote("concurrency", "release")

    def on_success(self) -> None:
        self.actor.call.remote("concurrency", "on_success")

    def on_rate_limited(self, epoch: int, retry_after_s: float | None = None) -> None:
        self.actor.call.remote("concurrency", "on_rate_limited", epoch, retry_after_s)


class SharedLimits:
    """`RequestLimits` of a worker's client: the budget actor's."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def acquire(self, prompt_tokens: int) -> None:
        await self.actor.call.remote("limits", "acquire", prompt_tokens)


class SharedCache:
    """`ReplyCache` of a worker's client: the budget actor's (the run's cache file); each call waits for its reply,
    so a reply is stored before its row is reported done."""

    def __init__(self, actor: Any, path: Path) -> None:
        self.actor = actor
        self.path = path

    def _call(self, method: str, *args: Any) -> Any:
        import ray

        return ray.get(self.actor.call.remote("cache", method, *args))

    def get(self, key: str) -> tuple[str, dict[str, int]] | None:
        return cast(tuple[str, dict[str, int]] | None, self._call("get", key))

    def put(self, key: str, model_id: str, reply: str, usage: dict[str, int]) -> None:
        self._call("put", key, model_id, reply, usage)

    def get_setting(self, model_id: str, name: str) -> str | None:
        return cast(str | None, self._call("get_setting", model_id, name))

    def put_setting(self, model_id: str, name: str, value: str) -> None:
        self._call("put_setting", model_id, name, value)
