"""Token and cost accounting per stage, from the provider's usage metadata (estimated when it is missing)."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any

#: USD per million tokens (input, output). Configurable: pass your own table to UsageTracker.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-sonnet-4": (3.00, 15.00),
}


def estimate_tokens(text: str) -> int:
    """About four characters a token: the usual estimate when a provider reports no usage."""
    return max(1, (len(text) + 3) // 4)


@dataclass
class StageUsage:
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    estimated_calls: int = 0


@dataclass
class UsageTracker:
    """Counts calls, cache hits, retries and tokens per stage; prices them from a table."""

    model_id: str = ""
    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    stages: dict[str, StageUsage] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _stage(self, stage: str) -> StageUsage:
        return self.stages.setdefault(stage, StageUsage())

    def record_call(self, stage: str, input_tokens: int, output_tokens: int, estimated: bool) -> None:
        with self._lock:
            usage = self._stage(stage)
            usage.calls += 1
            usage.input_tokens += input_tokens
            usage.output_tokens += output_tokens
            usage.estimated_calls += int(estimated)

    def record_cache_hit(self, stage: str) -> None:
        with self._lock:
            self._stage(stage).cache_hits += 1

    def record_retry(self, stage: str) -> None:
        with self._lock:
            self._stage(stage).retries += 1

    def record_failure(self, stage: str) -> None:
        with self._lock:
            self._stage(stage).failures += 1

    @property
    def total_calls(self) -> int:
        return sum(s.calls for s in self.stages.values())

    def cost_usd(self, usage: StageUsage) -> float | None:
        price = self._price()
        if price is None:
            return None
        return (usage.input_tokens * price[0] + usage.output_tokens * price[1]) / 1_000_000

    def _price(self) -> tuple[float, float] | None:
        name = self.model_id.split(":", 1)[-1]
        for key in sorted(self.prices, key=len, reverse=True):
            if name.startswith(key):
                return self.prices[key]
        return None

    def as_dict(self) -> dict[str, Any]:
        stages = {name: {**asdict(u), "cost_usd": self.cost_usd(u)} for name, u in sorted(self.stages.items())}
        total = StageUsage()
        for usage in self.stages.values():
            for key, value in asdict(usage).items():
                setattr(total, key, getattr(total, key) + value)
        return {"model": self.model_id, "stages": stages, "total": {**asdict(total), "cost_usd": self.cost_usd(total)}}

    def report(self) -> str:
        """A short human-readable table of the counts."""
        data = self.as_dict()
        lines = [f"LLM usage ({data['model'] or 'no LLM'}):"]
        for name, usage in [*data["stages"].items(), ("total", data["total"])]:
            cost = usage["cost_usd"]
            lines.append(
                f"  {name:<28} calls={usage['calls']:<5} cached={usage['cache_hits']:<5} retries={usage['retries']:<4}"
                f" in={usage['input_tokens']:<8} out={usage['output_tokens']:<7}"
                f" cost={'n/a' if cost is None else f'${cost:.4f}'}"
            )
        return "\n".join(lines)
