"""Sorting LLM call failures into transient (retry, maybe after Retry-After) and permanent (stop now)."""

from __future__ import annotations

import asyncio
import json
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from ragtest_core.errors import LLMError, LLMOutputError

_PERMANENT_STATUS = {
    401: "authentication failed",
    403: "permission denied",
    404: "model or endpoint not found",
    422: "request rejected",
}
_HINTS = {
    401: "Check the API key: set OPENAI_API_KEY (or the provider's key variable), or RAGTEST_LLM_API_KEY for an "
    "OpenAI-compatible --llm-base-url server",
    403: "The key is not allowed to use this model",
    404: "Check the model name in --llm and the --llm-base-url",
}


@dataclass(frozen=True)
class CallFailure:
    message: str
    permanent: bool
    retry_after_s: float | None = None


class EmptyReplyError(Exception):
    """A 200 whose content is empty: a provider glitch, retried."""


class RefusalError(LLMOutputError):
    """The model declined to answer (a structured-output refusal): asking again would get the same."""

    def __init__(self, refusal: str) -> None:
        super().__init__(f"the model refused: {refusal[:200]}")
        self.refusal = refusal


class FormatRejectedError(LLMError):
    """The provider rejected the native structured-output parameter: ask again with the schema in the prompt."""


def classify_error(exc: BaseException, timeout_s: float) -> CallFailure:
    """What went wrong, whether retrying can help, and how long the server asked us to wait."""
    if isinstance(exc, EmptyReplyError):
        return CallFailure("the model returned an empty reply", permanent=False)
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) or "Timeout" in type(exc).__name__:
        return CallFailure(f"timed out after {timeout_s:g} s", permanent=False)
    text = str(exc)
    if isinstance(exc, json.JSONDecodeError):  # a 200 whose body is cut or garbled (proxy, overloaded server)
        return CallFailure(f"the server's reply was not valid JSON: {text[:200]}", permanent=False)
    status = _status_code(exc)
    if status == 400 and "context" in text.lower() and "length" in text.lower():
        return CallFailure(f"prompt longer than the model's context window: {text[:200]}", permanent=True)
    if status == 429:
        return CallFailure("rate limited (429)", permanent=False, retry_after_s=_retry_after(exc))
    if status == 400:
        return CallFailure(f"bad request (400): {text[:200]}", permanent=True)
    if status in _PERMANENT_STATUS:
        detail = text[:200].rstrip(". ")
        return CallFailure(f"{_PERMANENT_STATUS[status]} ({status}): {detail}. {_HINTS.get(status, '')}".strip(), True)
    if status is not None:
        return CallFailure(f"server error ({status}): {text[:200]}", permanent=False, retry_after_s=_retry_after(exc))
    if "Connection" in type(exc).__name__ or isinstance(exc, (ConnectionError, OSError)):
        return CallFailure(f"connection failed: {text[:200]}", permanent=False)
    permanent = isinstance(exc, (ValueError, TypeError, KeyError, AttributeError, NotImplementedError))
    return CallFailure(f"{type(exc).__name__}: {text[:200]}", permanent=permanent)


def _status_code(exc: BaseException) -> int | None:
    for attr in ("status_code", "status", "http_status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    value = getattr(getattr(exc, "response", None), "status_code", None)
    return value if isinstance(value, int) and value >= 400 else None


def _retry_after(exc: BaseException) -> float | None:
    """The wait a 429 or 5xx asks for: Retry-After-Ms, else Retry-After in seconds or as an HTTP date."""
    headers: Any = getattr(getattr(exc, "response", None), "headers", None) or {}
    with suppress(ValueError):
        if (milliseconds := headers.get("retry-after-ms")) is not None:
            return float(milliseconds) / 1000.0
    raw = headers.get("retry-after")
    with suppress(TypeError, ValueError):
        return None if raw is None else max(0.0, float(raw))
    with suppress(TypeError, ValueError):
        return max(0.0, (parsedate_to_datetime(raw) - datetime.now(timezone.utc)).total_seconds())
    return None
