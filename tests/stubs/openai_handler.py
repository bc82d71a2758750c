"""The stub server's HTTP handler (`tests.stubs.openai_server`): records each request, answers chat completions
with the faults the server drew for it (latency, hang, 401, 429, 500, malformed, streamed), GET /v1/models, and the
Batch API's files and batches routes."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from tests.stubs.openai_wire import Fault, StubRequest, error_body, sse_body

if TYPE_CHECKING:
    from tests.stubs.openai_server import OpenAIStubServer


class StubHandler(BaseHTTPRequestHandler):
    """Routes one connection's requests: chat completions (with the server's faults), models, the Batch API."""

    stub: OpenAIStubServer
    protocol_version = "HTTP/1.1"  # keep-alive, like real providers
    #: TCP_NODELAY, like real servers: a reply goes out in two writes (headers, then body), and with Nagle's
    #: algorithm the body waited for the client's delayed ACK of the headers, about 40 ms more on every call
    #: (measured: 53 ms a call at latency 0, 2.7 ms with it), so `latency_ms` was not the latency clients saw.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # silence the default stderr log
        pass

    def do_GET(self) -> None:
        request = self._record(None)
        try:
            if self.path.rstrip("/").endswith("/models"):
                data = [{"id": self.stub.model, "object": "model", "created": 0, "owned_by": "ragtest-stub"}]
                self._send_json(request, 200, {"object": "list", "data": data})
            elif self.stub.batch.handles(self.path):
                status, payload = self.stub.batch.get(self.path)
                if isinstance(payload, bytes):
                    request.status = status
                    self._send_raw(status, payload, content_type="application/octet-stream")
                else:
                    self._send_json(request, status, payload)
            else:
                self._send_json(request, 404, error_body(f"no route GET {self.path}", "invalid_request_error", None))
        finally:
            self.stub._done(request)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        request = self._record(body)
        try:
            faults = self.stub._register(request)
            if request.index >= 0:
                self._answer_chat(request, faults)
            elif self.stub.batch.handles(self.path):
                self._send_json(request, *self.stub.batch.post(self.path, self.headers.get("Content-Type", ""), raw))
            else:
                self._send_json(request, 404, error_body(f"no route POST {self.path}", "invalid_request_error", None))
        finally:
            self.stub._done(request)

    def _record(self, body: Any) -> StubRequest:
        request = StubRequest(
            index=-1,
            method=self.command,
            path=self.path,
            headers=dict(self.headers.items()),
            body=body,
            received_at=time.monotonic(),
        )
        if self.command == "GET":
            self.stub._register(request)
        return request

    def _answer_chat(self, request: StubRequest, faults: list[Fault]) -> None:
        stub = self.stub
        wait_s = stub.window.admit() if stub.window is not None else None
        if wait_s is not None:
            return self._send_json(
                request,
                429,
                error_body("Rate limit reached for requests", "requests", "rate_limit_exceeded"),
                headers={"Retry-After": f"{wait_s:.3f}"},
            )
        delay_ms = stub.latency_ms + sum(
            (f.latency_ms if f.latency_ms is not None else 100.0) for f in faults if f.kind == "latency"
        )
        if delay_ms > 0 and stub._stopping.wait(delay_ms / 1000.0):
            return self._close()
        kinds = {f.kind: f for f in faults}
        if "hang" in kinds:
            hang = kinds["hang"].hang_s
            stub._stopping.wait(stub.hang_s if hang is None else hang)
            return self._close()
        if "unauthorized" in kinds:
            return self._send_json(
                request,
                401,
                error_body(
                    "Incorrect API key provided: sk-stub***. You can find your API key at "
                    "https://platform.openai.com/account/api-keys.",
                    "invalid_request_error",
                    "invalid_api_key",
                ),
            )
        if "rate_limit" in kinds:
            after = kinds["rate_limit"].retry_after
            return self._send_json(
                request,
                429,
                error_body("Rate limit reached for requests", "requests", "rate_limit_exceeded"),
                headers={"Retry-After": str(stub.retry_after if after is None else after)},
            )
        if "server_error" in kinds:
            return self._send_json(request, 500, error_body("The server had an error", "server_error", None))
        if not isinstance(request.body, dict) or not isinstance(request.body.get("messages"), list):
            return self._send_json(request, 400, error_body("'messages' is required", "invalid_request_error", None))
        if stub.reject_response_format and request.body.get("response_format"):
            message = "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
            return self._send_json(request, 400, error_body(message, "invalid_request_error", None))
        completion = stub._completion(request, faults)
        if "malformed" in kinds:
            request.status = 200
            return self._send_raw(200, json.dumps(completion)[:40].encode("utf-8"))
        if request.body.get("stream"):
            request.status, request.response = 200, completion
            return self._send_raw(200, sse_body(completion, request.body), content_type="text/event-stream")
        self._send_json(request, 200, completion)

    def _send_json(
        self, request: StubRequest, status: int, payload: Any, headers: Mapping[str, str] | None = None
    ) -> None:
        request.status, request.response = status, payload
        self._send_raw(status, json.dumps(payload).encode("utf-8"), headers)

    def _send_raw(
        self,
        status: int,
        data: bytes,
        headers: Mapping[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (e.g. timed out)
            self.close_connection = True

    def _close(self) -> None:
        self.close_connection = True
