"""Reading a chat model's reply: its text, why it stopped, its cache identity, and a stage's own reader."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from langchain_core.messages import AIMessage, BaseMessage

from ragtest_core.llm.errors import CallFailure
from ragtest_core.llm.usage import estimate_tokens

T = TypeVar("T")


def is_rate_limit(failure: CallFailure) -> bool:
    return failure.message.startswith("rate limited")


def read_with(fallback: Callable[[str], T | None] | None, *replies: str) -> T | None:
    """The first reply a stage's own reader makes sense of, or None."""
    if fallback is None:
        return None
    for reply in replies:
        value = fallback(reply)
        if value is not None:
            return value
    return None


def message_dict(message: BaseMessage) -> dict[str, str]:
    return {"role": message.type, "content": str(message.content)}


def reply_text(message: AIMessage) -> str:
    """The reply's text; content-block replies (Anthropic, reasoning models) are joined, not repr'd."""
    content = message.content
    return content if isinstance(content, str) else str(message.text)


def finish_reason(message: AIMessage) -> str | None:
    meta = message.response_metadata or {}
    value = meta.get("finish_reason") or meta.get("stop_reason") or meta.get("done_reason")
    return str(value) if value is not None else None


def reply_usage(messages: list[BaseMessage], message: AIMessage, reply: str) -> tuple[dict[str, int], bool]:
    """The call's input and output tokens as the provider reported them, else estimated (then True)."""
    meta = message.usage_metadata
    if meta:
        inputs, outputs, estimated = int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)), False
    else:
        inputs = sum(estimate_tokens(str(m.content)) for m in messages)
        outputs, estimated = estimate_tokens(reply), True
    return {"input_tokens": inputs, "output_tokens": outputs}, estimated
