"""classify_error: transient vs permanent, messages, and Retry-After parsing."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from types import SimpleNamespace
from typing import Any

import pytest

from ragtest_core.llm.errors import classify_error


class HTTPError(Exception):
    """Shaped like the openai SDK's APIStatusError: status_code plus a response with headers."""

    def __init__(self, status: int, text: str = "error", headers: dict[str, str] | None = None) -> None:
        super().__init__(f"Error code: {status} - {text}")
        self.status_code = status
        self.response = SimpleNamespace(status_code=status, headers=headers or {})


class APITimeoutError(Exception):
    pass


class APIConnectionError(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "permanent", "fragment"),
    [
        (asyncio.TimeoutError(), False, "timed out after 30 s"),
        (APITimeoutError("Request timed out."), False, "timed out"),
        (APIConnectionError("Connection error."), False, "connection failed"),
        (ConnectionResetError("reset"), False, "connection failed"),
        (HTTPError(500), False, "server error (500)"),
        (HTTPError(503), False, "server error (503)"),
        (HTTPError(429), False, "rate limited (429)"),
        (HTTPError(401, "Incorrect API key"), True, "OPENAI_API_KEY"),
        (HTTPError(403), True, "not allowed"),
        (HTTPError(404), True, "check the model name"),
        (HTTPError(400, "maximum context length is 8192 tokens"), True, "context window"),
        (HTTPError(400, "bad field"), True, "bad request (400)"),
        (json.JSONDecodeError("Expecting value", "{", 1), False, "not valid JSON"),
        (ValueError("bad argument"), True, "ValueError"),
        (RuntimeError("something odd"), False, "RuntimeError"),
    ],
)
def test_classification(exc: BaseException, permanent: bool, fragment: str) -> None:
    failure = classify_error(exc, timeout_s=30)
    assert failure.permanent is permanent
    assert fragment.lower() in failure.message.lower()


def test_a_decode_error_carrying_a_200_response_is_not_a_server_error() -> None:
    error: Any = json.JSONDecodeError("Unterminated string", '{"id": "x', 7)
    error.response = SimpleNamespace(status_code=200, headers={})
    failure = classify_error(error, timeout_s=1)
    assert not failure.permanent
    assert "(200)" not in failure.message


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert classify_error(HTTPError(429, headers=headers), timeout_s=1).retry_after_s == expected


def test_retry_after_as_http_date() -> None:
    when = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=5), usegmt=True)
    wait = classify_error(HTTPError(429, headers={"retry-after": when}), timeout_s=1).retry_after_s
    assert wait is not None and 3.0 <= wait <= 5.0


def test_503_retry_after_is_kept() -> None:
    assert classify_error(HTTPError(503, headers={"retry-after": "2"}), timeout_s=1).retry_after_s == 2.0
