"""Redaction (`ragtest_core.redact`): credentials in URLs, secret-named values, header values, bearer tokens."""

from __future__ import annotations

import pytest

from ragtest_core.redact import (
    REDACTED,
    is_secret_name,
    redact_text,
    redact_url,
    redact_value,
    scrub,
    secret_values,
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://user:PASSWORD@host:8000/v1", f"http://{REDACTED}@host:8000/v1"),
        ("https://TOKEN@github.com/x", f"https://{REDACTED}@github.com/x"),
        ("http://h/rag?api_key=K1&lang=en", f"http://h/rag?api_key={REDACTED}&lang=en"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("http://h/search?q=bears&page=2", "http://h/search?q=bears&page=2"),
    ],
)
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected


@pytest.mark.parametrize(
    "name", ["api_key", "apiKey", "openaiApiKey", "X-Api-Key", "token", "access_token", "password", "client_secret",
             "Authorization", "cookie", "AWS_SECRET_ACCESS_KEY", "key"],
)  # fmt: skip
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["url", "timeout_s", "collection", "top_k", "monkey", "author", "passage", "keys_file"]
)
def test_names_that_are_not_secrets(name: str) -> None:
    assert not is_secret_name(name)


def test_redact_value_by_name_headers_and_urls() -> None:
    args = {
        "url": "http://u:pw@h/rag",
        "api_key": "sk-123",
        "headers": {"Authorization": "Bearer abc", "Content-Type": "application/json"},
        "timeout_s": 30,
        "options": {"token": "t0k", "depth": 2},
    }
    assert redact_value(args) == {
        "url": f"http://{REDACTED}@h/rag",
        "api_key": REDACTED,
        "headers": {"Authorization": REDACTED, "Content-Type": REDACTED},
        "timeout_s": 30,
        "options": {"token": REDACTED, "depth": 2},
    }
    assert sorted(secret_values(args)) == sorted(["u:pw", "pw", "sk-123", "Bearer abc", "application/json", "t0k"])


def test_redact_text_and_scrub() -> None:
    text = "ConnectError: http://alice:s3cret@10.0.0.1/v1 refused; sent Authorization: Bearer abcdefgh12345"
    assert redact_text(text) == (
        f"ConnectError: http://{REDACTED}@10.0.0.1/v1 refused; sent Authorization: Bearer {REDACTED}"
    )
    assert scrub("the server said: key sk-live-999 is revoked", ["sk-live-999"]) == (
        f"the server said: key {REDACTED} is revoked"
    )


def test_a_url_urlsplit_rejects_is_still_redacted() -> None:
    message = "cannot reach http://user:PASSWORD@[::1 with Bearer abcdefgh12345678"
    assert scrub(message, []) == f"cannot reach http://{REDACTED}@[::1 with Bearer {REDACTED}"
    assert redact_url("http://[::1") == "http://[::1"
