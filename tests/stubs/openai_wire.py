"""Wire-level pieces of the OpenAI stub server: fault descriptions, recorded requests, response bodies."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any, Literal

FaultKind = Literal[
    "latency", "rate_limit", "server_error", "hang", "malformed", "truncate", "empty", "unauthorized", "refusal"
]
FAULT_KINDS: tuple[FaultKind, ...] = (
    "latency",
    "rate_limit",
    "server_error",
    "hang",
    "malformed",
    "truncate",
    "empty",
    "unauthorized",
    "refusal",
)


@dataclass(frozen=True)
class Fault:
    """One injected fault. Unset options fall back to the server's defaults."""

    kind: FaultKind
    latency_ms: float | None = None  # "latency": extra delay before answering
    retry_after: float | str | None = None  # "rate_limit": the Retry-After header value
    hang_s: float | None = None  # "hang": how long to hold the connection before closing it
    keep_chars: int | None = None  # "truncate": characters kept (default: half the reply)


FaultSpec = Fault | FaultKind


@dataclass
class StubRequest:
    """One recorded request."""

    index: int  # position among chat completion requests (-1 for other endpoints)
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body (None when there was none or it was not JSON)
    received_at: float
    faults: list[FaultKind] = field(default_factory=list)
    status: int | None = None
    response: Any = None  # the JSON sent back, when one was sent
    finished_at: float | None = None  # time.monotonic() when the handler was done with it
    schema_errors: list[str] = field(default_factory=list)  # a native request's reply against its schema

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("messages", [])) if isinstance(self.body, dict) else []

    @property
    def last_user(self) -> str:
        """The content of the last user message."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return content_text(message.get("content"))
        return ""

    @property
    def prompt(self) -> str:
        """All message contents joined by newlines."""
        return "\n".join(content_text(m.get("content")) for m in self.messages)

    @property
    def response_schema(self) -> dict[str, Any] | None:
        """The JSON schema of a `response_format` json_schema request (native structured output), else None."""
        body = self.body if isinstance(self.body, dict) else {}
        response_format = body.get("response_format") or {}
        if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
            return None
        schema = (response_format.get("json_schema") or {}).get("schema")
        return schema if isinstance(schema, dict) else None

    @property
    def max_tokens(self) -> int | None:
        body = self.body if isinstance(self.body, dict) else {}
        value = body.get("max_completion_tokens", body.get("max_tokens"))
        return int(value) if value is not None else None


Responder = Callable[[StubRequest], "str | None"]


def content_text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def sse_body(completion: dict[str, Any], body: dict[str, Any]) -> bytes:
    """The completion as server-sent chat.completion.chunk events (one content chunk per choice)."""
    base = {key: completion[key] for key in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    events: list[dict[str, Any]] = []
    for choice in completion["choices"]:
        delta = {"role": "assistant", "content": choice["message"]["content"]}
        events.append(base | {"choices": [{"index": choice["index"], "delta": delta, "finish_reason": None}]})
        done = {"index": choice["index"], "delta": {}, "finish_reason": choice["finish_reason"]}
        events.append(base | {"choices": [done]})
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append(base | {"choices": [], "usage": completion["usage"]})
    lines = [f"data: {json.dumps(event)}\n\n" for event in events] + ["data: [DONE]\n\n"]
    return "".join(lines).encode("utf-8")


def schema_errors(reply: str, schema: dict[str, Any]) -> list[str]:
    """Why `reply` is not one JSON value valid against `schema` (empty when it is)."""
    import jsonschema

    try:
        value = json.loads(reply)
    except json.JSONDecodeError as exc:
        return [f"not JSON: {exc.msg}"]
    return [error.message for error in jsonschema.Draft202012Validator(schema).iter_errors(value)]


def error_body(message: str, kind: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """A tokenizer-like count: words and punctuation marks (close to a BPE count for English prose and JSON)."""
    return len(_TOKEN.findall(text))


class RequestWindow:
    """Server-side rate limit: at most `rps` accepted requests in any sliding one-second window."""

    def __init__(self, rps: float) -> None:
        self.rps = rps
        self._times: deque[float] = deque()
        self._lock = threading.Lock()
        self.rejected = 0

    def admit(self) -> float | None:
        """None when the request may proceed, else the seconds until it would (for Retry-After)."""
        now = time.monotonic()
        with self._lock:
            while self._times and now - self._times[0] >= 1.0:
                self._times.popleft()
            if len(self._times) < self.rps:
                self._times.append(now)
                return None
            self.rejected += 1
            return max(0.01, 1.0 - (now - self._times[0]))


class QuietServer(ThreadingHTTPServer):
    #: A listen backlog like a real server's: socketserver's default of 5 resets connections when 16 concurrent
    #: clients connect while the test machine is busy, which reads as an unreachable server (it failed
    #: test_aimd_keeps_429s_low_against_a_rate_limited_server once during a full run).
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that drop a kept-alive connection (a timeout, a closed event loop) are normal here."""
        error = sys.exc_info()[1]
        if not isinstance(error, (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)
