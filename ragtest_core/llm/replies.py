"""Reading a chat model's reply: its text and why it stopped."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from ragtest_core.llm.errors import CallFailure


def is_rate_limit(failure: CallFailure) -> bool:
    return failure.message.startswith("rate limited")


def reply_text(message: AIMessage) -> str:
    """The reply's text; content-block replies (Anthropic, reasoning models) are joined, not repr'd."""
    content = message.content
    return content if isinstance(content, str) else str(message.text)


def finish_reason(message: AIMessage) -> str | None:
    meta = message.response_metadata or {}
    value = meta.get("finish_reason") or meta.get("stop_reason") or meta.get("done_reason")
    return str(value) if value is not None else None
