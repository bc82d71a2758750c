"""A progress bar for one stage's LLM calls, fed by the UsageTracker: done/total, ETA, calls/s, tokens, retries."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tqdm.auto import tqdm

from ragtest_core.llm.usage import UsageTracker


@contextmanager
def llm_progress(usage: UsageTracker, phase: str, total: int | None, enabled: bool = True) -> Iterator[Any]:
    """Record usage under `phase` and show a bar (yielded) of its LLM calls while the block runs: the calls answered
    (by the provider or the cache) since it opened, of `total` (the dry-run estimate); the postfix shows tokens,
    retries (429s among them) and cache hits."""
    previous, usage.phase = usage.phase, phase
    start = usage.total()
    bar: Any = tqdm(total=total, desc=f"LLM {phase}", unit="call", disable=not enabled, leave=False)

    def refresh() -> None:
        now = usage.total()
        done = {name: value - getattr(start, name) for name, value in vars(now).items()}
        bar.n = done["calls"] + done["cache_hits"]
        bar.total = None if bar.total is None else max(bar.total, bar.n)
        bar.set_postfix(tokens=f"{done['input_tokens']}+{done['output_tokens']}", cached=done["cache_hits"],
                        retries=f"{done['retries']}({done['rate_limited']}x429)", refresh=False)  # fmt: skip
        bar.update(0)

    usage.listeners.append(refresh)
    try:
        yield bar
    finally:
        usage.listeners.remove(refresh)
        bar.close()
        usage.phase = previous
