"""A circuit breaker for a model that cannot be reached: stop after a few connection failures in a row.

Without it an unreachable server costs every planned call its full retry schedule before the run fails.
`UNREACHABLE_AFTER` attempts in a row that could not connect, with no call getting through in between, trip the
breaker: the client's calls then fail at once with a permanent error naming the model, its URL and the last error.
"""

from __future__ import annotations

import threading
from typing import Any

from ragtest_core.errors import LLMPermanentError

#: Attempts in a row (no call got through in between) that could not connect, after which the model is unreachable.
UNREACHABLE_AFTER = 4
_CONNECTION = "connection failed"


def endpoint_of(model: Any) -> str:
    """Where a LangChain chat model is served (its base URL), or the provider's default."""
    names = ("openai_api_base", "base_url", "api_base", "endpoint")
    return next((str(value) for name in names if (value := getattr(model, name, None))), "the provider's default URL")


class UnreachableBreaker:
    """Counts attempts in a row that could not connect; trips after `UNREACHABLE_AFTER` of them."""

    def __init__(self, model_id: str, endpoint: str) -> None:
        self.model_id = model_id
        self.endpoint = endpoint
        self.in_a_row = 0
        self._lock = threading.Lock()

    def succeeded(self) -> None:
        with self._lock:
            self.in_a_row = 0

    def failed(self, message: str) -> LLMPermanentError | None:
        """Count a failed attempt (`message` from `classify_error`); the error to stop with once tripped."""
        with self._lock:
            self.in_a_row = self.in_a_row + 1 if message.startswith(_CONNECTION) else 0
            if self.in_a_row < UNREACHABLE_AFTER:
                return None
            return LLMPermanentError(
                f"the LLM is unreachable: {self.in_a_row} attempts in a row to model {self.model_id!r} at "
                f"{self.endpoint} could not connect; last error: {message.rstrip('.')}. Check that the model is "
                "served at that URL (--llm, --llm-base-url) and reachable."
            )
