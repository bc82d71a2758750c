"""A progress bar for one stage's LLM calls, fed by the UsageTracker: done/total, ETA, calls/s, tokens, retries."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tqdm.auto import tqdm

from ragtest_core.llm.usage import StageUsage, UsageTracker


class LLMProgress:
    """Counts the calls answered (by the provider or the cache) since the bar opened; the postfix shows tokens,
    retries (429s among them) and cache hits. `total` is the dry-run estimate of the stage's calls."""

    def __init__(self, usage: UsageTracker, desc: str, total: int | None, enabled: bool = True) -> None:
        self.usage = usage
        self.start = usage.total()
        self.bar: Any = tqdm(total=total, desc=f"LLM {desc}", unit="call", disable=not enabled, leave=False)
        usage.listeners.append(self.refresh)

    def delta(self) -> StageUsage:
        now = self.usage.total()
        return StageUsage(**{name: getattr(now, name) - getattr(self.start, name) for name in vars(now)})

    def refresh(self) -> None:
        done = self.delta()
        answered = done.calls + done.cache_hits
        if self.bar.total is not None and answered > self.bar.total:
            self.bar.total = answered
        self.bar.n = answered
        self.bar.set_postfix(
            tokens=f"{done.input_tokens}+{done.output_tokens}",
            retries=f"{done.retries}({done.rate_limited}x429)",
            cached=done.cache_hits,
            refresh=False,
        )
        self.bar.update(0)

    def close(self) -> None:
        if self.refresh in self.usage.listeners:
            self.usage.listeners.remove(self.refresh)
        self.bar.close()


@contextmanager
def llm_progress(usage: UsageTracker, phase: str, total: int | None, enabled: bool = True) -> Iterator[LLMProgress]:
    """Record usage under `phase` and show a bar of its LLM calls while the block runs."""
    previous = usage.phase
    usage.phase = phase
    progress = LLMProgress(usage, phase, total, enabled)
    try:
        yield progress
    finally:
        progress.close()
        usage.phase = previous
