"""One LLM call as the runtime sends it (`LLMRequest`), and exactly what enters its cache key.

`LLMClient.text` and `LLMClient.structured` build a request; it passes, unchanged, through the client's cache
lookup and its one retry loop (a truncated reply is asked again as a copy with more room, under the same key). A
per-run value that must change the key (the repeat of a judgement) is a field here: nothing else, no context
variable and no setting of the runtime, changes a key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage

from ragtest_core.llm.cache import cache_key
from ragtest_core.llm.usage import estimate_tokens


@dataclass(frozen=True)
class LLMRequest:
    """Everything one call needs: what is sent, where it waits, and which cache entry holds its reply."""

    messages: tuple[BaseMessage, ...]
    #: The call label (e.g. "faithfulness.verdicts"): usage and the fitness guard count under it.
    stage: str
    #: Model parameters of this call, sent as invoke keywords (the shared chat model is never mutated); None: the
    #: model's own (built from `LLMConfig.temperature`), no limit on the reply's tokens.
    temperature: float | None = None
    max_tokens: int | None = None
    #: Invoke keywords that ask the provider for the reply's schema natively (`formats.native_kwargs`); None: a
    #: text call, or the schema is in the messages.
    native: Mapping[str, Any] | None = None
    #: Where the call waits in the client's queue: a higher priority first (a call that others wait for), then a
    #: lower order (the row a call serves: a row's dependent calls follow its first ones), then first come.
    priority: int = 0
    order: int = 0
    #: Which repeat of a judgement the call is (`--repeats N`): repeat r > 0 has its own cache entry, so N repeats
    #: ask the model N times, and running the same command again repeats no paid call.
    repeat: int = 0

    def cache_key(self, model_id: str, default_temperature: float) -> str:
        """The key of the reply in the cache: the model's identity, each message's role and text, the temperature
        (`default_temperature` when the call sets none), `max_tokens`, the native format asked for, and the repeat
        when it is above 0. Nothing else: not the label, the priority, the order, or a retry's larger max_tokens."""
        temperature = default_temperature if self.temperature is None else self.temperature
        params: dict[str, Any] = {"temperature": temperature, "max_tokens": self.max_tokens}
        if self.native:  # the format asked for, whatever carries it to the provider
            carried = self.native.get("extra_body", self.native)
            params["format"] = {name: carried[name] for name in ("response_format", "format") if name in carried}
        if self.repeat:
            params["repeat"] = self.repeat
        return cache_key(model_id, [{"role": m.type, "content": str(m.content)} for m in self.messages], params)

    def invoke_kwargs(self) -> dict[str, Any]:
        """The keywords the chat model is invoked with (and a batch line's body is built from)."""
        given = {"temperature": self.temperature, **(self.native or {}), "max_tokens": self.max_tokens}
        return {name: value for name, value in given.items() if value is not None}

    def prompt_tokens(self) -> int:
        """The prompt's tokens, estimated (for the tokens-per-minute limit)."""
        return sum(estimate_tokens(str(m.content)) for m in self.messages)
