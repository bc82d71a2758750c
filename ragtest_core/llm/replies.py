"""Reading a chat model's reply: its text, why it stopped, its cache identity, and a stage's own reader."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from langchain_core.messages import AIMessage, BaseMessage

from ragtest_core.llm.errors import CallFailure

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


def message_from_finish_error(exc: BaseException) -> AIMessage | None:
    """The reply an OpenAI SDK structured-output call raised instead of returning: a cut reply
    (`LengthFinishReasonError`: finish_reason "length", so the client asks again with more tokens) or a content
    filter stop (a refusal). None for any other exception."""
    name = type(exc).__name__
    if name == "ContentFilterFinishReasonError":
        return AIMessage(content="", additional_kwargs={"refusal": "stopped by the provider's content filter"})
    if name != "LengthFinishReasonError":
        return None
    completion = getattr(exc, "completion", None)
    choices = getattr(completion, "choices", None) or []
    content = getattr(getattr(choices[0], "message", None), "content", None) if choices else None
    usage = getattr(completion, "usage", None)
    metadata = None
    if usage is not None:
        prompt, output = int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)
        metadata = {"input_tokens": prompt, "output_tokens": output, "total_tokens": prompt + output}
    return AIMessage(content=str(content or ""), usage_metadata=metadata, response_metadata={"finish_reason": "length"})
