"""How LLM calls are made (`LLMConfig`), in a module of its own: the app's configuration reads these defaults without
importing LangChain's chat models, which `ragtest_core.llm.client` needs (seconds of start-up)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal, cast

from ragtest_core.errors import RagtestError

#: How structured calls ask for JSON (see `LLMConfig.structured_output`).
StructuredOutput = Literal["auto", "native", "prompt"]
#: How a client asks for structured output: "auto" (native where the provider has it, else in the prompt),
#: "native" or "prompt".
STRUCTURED_OUTPUT_MODES: tuple[str, ...] = ("auto", "native", "prompt")


def structured_output_mode(value: str) -> StructuredOutput:
    """`value` checked as a structured-output mode (a `RagtestError` names the choices)."""
    if value in STRUCTURED_OUTPUT_MODES:
        return cast(StructuredOutput, value)
    raise RagtestError(f"unknown structured output mode {value!r}; use one of {', '.join(STRUCTURED_OUTPUT_MODES)}")


@dataclass(frozen=True)
class LLMConfig:
    """How calls are made. Every field has a safe default for hosted providers."""

    max_concurrency: int = 8  # the ceiling of the adaptive limit
    adaptive: bool = True  # AIMD: halve the calls in flight on a 429, add one per window of successes
    min_concurrency: int = 1
    timeout_s: float = 60.0
    max_retries: int = 6
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    retry_after_max_s: float = 300.0  # a server's Retry-After is honoured up to this long
    requests_per_second: float | None = None
    tokens_per_minute: float | None = None  # estimated prompt tokens, by a token bucket
    temperature: float = 0.0
    max_tokens: int | None = None
    truncation_max_tokens: int = 4096
    #: "auto": the provider's native structured output where it has one (falling back to the schema in the
    #: prompt when the server rejects it), "native" (no fallback) or "prompt" (always the schema as text).
    structured_output: StructuredOutput = "auto"
    #: Batch mode (`--llm-batch`): calls go through the provider's Batch API at about half the price, within its
    #: completion window (`ragtest_core.llm.batch`); failed lines are sent online ("online") or in the next batch
    #: first ("batch"). Polls start `batch_poll_s` apart and grow to `batch_poll_max_s`.
    batch: bool = False
    batch_poll_s: float = 10.0
    batch_poll_max_s: float = 300.0
    batch_window: str = "24h"
    batch_retry: Literal["online", "batch"] = "online"

    def backoff_s(self, attempt: int, retry_after_s: float | None) -> float:
        """How long to wait before retry `attempt` (1, 2, ...): the server's Retry-After (capped), else a jittered
        exponential backoff."""
        if retry_after_s is not None:
            return min(self.retry_after_max_s, retry_after_s) + random.uniform(0, 0.1)
        ceiling = min(self.backoff_max_s, self.backoff_base_s * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)
