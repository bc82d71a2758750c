"""A local OpenAI-compatible chat server for tests: scripted replies, fault injection, and a log of every request.

    with OpenAIStubServer(replies=["first", "second"], faults={0: "rate_limit"}) as server:
        ...  # point a client at server.url; then: assert server.request_count == 3

Replies: a queued reply (`replies=` / `server.script(...)`) is used first, then `responder(request)` (a function
of the `StubRequest`: `.last_user`, `.prompt`, `.body`), then `default_reply`. A reply is consumed only by a request
that returns it whole: a 429, 500, hang, malformed body, 401, empty or truncated reply leaves it for the retry.

Faults (`FaultKind`): "latency", "rate_limit" (429 + Retry-After), "server_error" (500), "hang" (no answer for
`hang_s`, then the connection is closed), "malformed" (200 with a broken JSON body), "truncate" (content cut,
finish_reason "length"), "empty" (content ""), "unauthorized" (401 invalid key), "refusal" (content null and a
`refusal` text, as OpenAI's structured output declines). Give them per request index
(0-based, in order of arrival, over chat completion requests only): `faults={1: "server_error",
2: Fault("rate_limit", retry_after=0.3)}` or `server.inject(1, "hang")`; or by probability with a seeded RNG:
`fault_rates={"server_error": 0.2}, seed=7` (the draw for request i depends only on seed and i; with
`fault_key="content"` it depends on seed, the messages and how often they were sent before, so concurrent clients
get the same faults whatever the arrival order). `rate_limit_rps=R` enforces a real limit: a request beyond R in
any one-second window gets a 429 with the Retry-After that would have let it through. `fault_when(request)`
gives a fault kind (or None) by content. Usage: tokens are counted like a tokenizer would (words and punctuation
marks), unless `usage=(prompt, completion)` fixes them. Records: `requests` (every `StubRequest`, with body,
status, response and faults), `chat_requests`, `request_count` (chat completion attempts), `max_in_flight`. Also:
`n` choices, `stream` (SSE chunks), GET /v1/models.

Native structured output: a request with `response_format` {"type": "json_schema", ...} (`request.response_schema`)
is answered like any other, its reply checked against the schema (`request.schema_errors`: what a constrained
decoder would have prevented; empty when the reply conforms), and the schema's tokens counted as prompt tokens, as
providers bill them. `reject_response_format=True` answers such requests with the 400 that servers without
structured output send, so clients must fall back to the schema in the prompt. The files and batches endpoints of
the Batch API are `server.batch` (`tests.stubs.openai_batches`): batches complete `batch_delay_s` after creation,
and lines picked by `batch_fail_lines(custom_id)` fail once. The `openai_server` pytest fixture
(import it into a conftest) stops the server at teardown; every server stops itself after `lifetime_s`. Its HTTP
handler is `tests.stubs.openai_handler.StubHandler`.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from http.server import ThreadingHTTPServer
from typing import Any, Literal, cast

import pytest

from tests.stubs.openai_batches import BatchEndpoints
from tests.stubs.openai_handler import StubHandler
from tests.stubs.openai_wire import (
    FAULT_KINDS,
    Fault,
    FaultKind,
    FaultSpec,
    QuietServer,
    RequestWindow,
    Responder,
    StubRequest,
    count_tokens,
    schema_errors,
)

__all__ = [
    "FAULT_KINDS",
    "Fault",
    "FaultKind",
    "FaultSpec",
    "OpenAIStubServer",
    "Responder",
    "StubRequest",
    "openai_server",
]


class OpenAIStubServer:
    """An OpenAI-compatible HTTP server on 127.0.0.1 (random port) in a daemon thread."""

    def __init__(
        self,
        *,
        replies: Iterable[str] = (),
        responder: Responder | None = None,
        default_reply: str = "ok",
        faults: Mapping[int, FaultSpec | Sequence[FaultSpec]] | None = None,
        fault_rates: Mapping[FaultKind, float] | None = None,
        seed: int = 0,
        latency_ms: float = 0.0,
        retry_after: float | str = 1,
        hang_s: float = 5.0,
        usage: tuple[int, int] | None = None,
        model: str = "stub-model",
        lifetime_s: float = 300.0,
        fault_key: Literal["index", "content"] = "index",
        rate_limit_rps: float | None = None,
        fault_when: Callable[[StubRequest], FaultKind | None] | None = None,
        reject_response_format: bool = False,
        batch_delay_s: float = 0.5,
        batch_fail_lines: Callable[[str], bool] | None = None,
    ) -> None:
        self.default_reply = default_reply
        self.responder = responder
        self.fault_rates = dict(fault_rates or {})
        self.seed = seed
        self.latency_ms = latency_ms
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.usage = usage  # fixed (prompt_tokens, completion_tokens); default: word counts
        self.model = model
        self.lifetime_s = lifetime_s
        self.fault_key = fault_key
        self.fault_when = fault_when
        self.reject_response_format = reject_response_format
        self.window = RequestWindow(rate_limit_rps) if rate_limit_rps else None
        self.batch = BatchEndpoints(self, delay_s=batch_delay_s, fail_lines=batch_fail_lines)
        self._sent: dict[str, int] = {}  # messages digest -> times sent (for fault_key="content")
        self.requests: list[StubRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._replies: deque[str] = deque(replies)
        self._faults: dict[int, list[Fault]] = {}
        for index, spec in (faults or {}).items():
            for item in [spec] if isinstance(spec, (str, Fault)) else spec:
                self.inject(index, item)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._chat_count = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    # -- scripting -------------------------------------------------------------------------------------------
    def script(self, *replies: str) -> None:
        """Queue replies, used in order by the next successful requests."""
        with self._lock:
            self._replies.extend(replies)

    def inject(self, index: int, fault: FaultSpec, **options: Any) -> None:
        """Inject a fault into the chat completion request with this 0-based index."""
        item = Fault(fault, **options) if isinstance(fault, str) else fault
        if item.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {item.kind!r}; choose from {FAULT_KINDS}")
        self._faults.setdefault(index, []).append(item)

    @property
    def request_count(self) -> int:
        """Chat completion requests received (every attempt counts, faulted or not)."""
        with self._lock:
            return self._chat_count

    @property
    def chat_requests(self) -> list[StubRequest]:
        with self._lock:
            return [r for r in self.requests if r.index >= 0]

    def reset(self) -> None:
        """Forget recorded requests, queued replies and injected faults (the request index restarts at 0)."""
        with self._lock:
            self.requests.clear()
            self._replies.clear()
            self._faults.clear()
            self._sent.clear()
            self._chat_count = 0
            self.max_in_flight = self.in_flight

    # -- lifecycle -------------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The base URL to give an OpenAI client, e.g. http://127.0.0.1:PORT/v1."""
        if self._httpd is None:
            raise RuntimeError("the stub server is not running")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> OpenAIStubServer:
        handler = type("Handler", (StubHandler,), {"stub": self})
        self._httpd = QuietServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="openai-stub", daemon=True
        )
        self._thread.start()
        self._timer = threading.Timer(self.lifetime_s, self.stop)  # hard cap: never outlive a test run
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port; hanging handlers are woken and close their connections."""
        self._stopping.set()
        with self._lock:
            httpd, self._httpd = self._httpd, None
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIStubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- request handling (called from handler threads) ------------------------------------------------------
    def _register(self, request: StubRequest) -> list[Fault]:
        with self._lock:
            if request.path.rstrip("/").endswith("/chat/completions"):
                request.index = self._chat_count
                self._chat_count += 1
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        if request.index < 0:
            return []
        faults = list(self._faults.get(request.index, []))
        rng = random.Random(f"{self.seed}:{self._draw_key(request)}")
        faults += [Fault(kind) for kind in FAULT_KINDS if rng.random() < self.fault_rates.get(kind, 0.0)]
        if self.fault_when is not None and (kind := self.fault_when(request)) is not None:
            faults.append(Fault(kind))
        request.faults = [f.kind for f in faults]
        return faults

    def _draw_key(self, request: StubRequest) -> str:
        if self.fault_key == "index":
            return str(request.index)
        digest = hashlib.sha256(json.dumps(request.messages, sort_keys=True).encode("utf-8")).hexdigest()
        with self._lock:
            attempt = self._sent.get(digest, 0)
            self._sent[digest] = attempt + 1
        return f"{digest}:{attempt}"

    def _done(self, request: StubRequest) -> None:
        request.finished_at = time.monotonic()
        with self._lock:
            self.in_flight -= 1

    def _next_reply(self, request: StubRequest, consume: bool) -> str:
        with self._lock:
            if self._replies:
                return self._replies.popleft() if consume else self._replies[0]
        if self.responder is not None:
            reply = self.responder(request)
            if reply is not None:
                return reply
        return self.default_reply

    def _completion(self, request: StubRequest, faults: list[Fault]) -> dict[str, Any]:
        body = cast(dict[str, Any], request.body)
        kinds = {f.kind for f in faults}
        whole = not kinds & {"truncate", "empty", "malformed", "refusal"}
        contents = [self._next_reply(request, consume=whole) for _ in range(max(1, int(body.get("n") or 1)))]
        finish = "stop"
        if "empty" in kinds:
            contents = ["" for _ in contents]
        elif "truncate" in kinds:
            keep = next(f.keep_chars for f in faults if f.kind == "truncate")
            contents = [c[: len(c) // 2 if keep is None else keep] for c in contents]
            finish = "length"
        schema = request.response_schema
        if schema is not None:
            request.schema_errors = [error for c in contents for error in schema_errors(c, schema)]
        if self.usage is not None:
            prompt_tokens, completion_tokens = self.usage
        else:
            schema_tokens = count_tokens(json.dumps(schema)) if schema is not None else 0
            prompt_tokens = max(1, count_tokens(request.prompt) + schema_tokens)
            completion_tokens = sum(count_tokens(c) for c in contents)
        return {
            "id": f"chatcmpl-stub-{request.index}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model") or self.model),
            "choices": [
                {"index": i, "message": message(c, "refusal" in kinds), "logprobs": None, "finish_reason": finish}
                for i, c in enumerate(contents)
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def message(content: str, refused: bool) -> dict[str, Any]:
    if refused:
        return {"role": "assistant", "content": None, "refusal": "I'm sorry, I cannot help with that request."}
    return {"role": "assistant", "content": content}


@pytest.fixture
def openai_server() -> Iterator[OpenAIStubServer]:
    """A running stub server, stopped at teardown. Script it in the test: `openai_server.script("reply")`."""
    with OpenAIStubServer(lifetime_s=120.0) as server:
        yield server
