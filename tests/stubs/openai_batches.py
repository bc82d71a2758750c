"""The OpenAI files and batches endpoints for the stub server: uploads, batches that complete after a delay, output
and error files, and some lines that fail.

    POST /v1/files (multipart: purpose, file)        -> a file object
    GET  /v1/files/{id}, GET /v1/files/{id}/content   -> its metadata, its bytes
    POST /v1/batches {input_file_id, endpoint, completion_window, metadata}
    GET  /v1/batches/{id}, GET /v1/batches?limit=N, POST /v1/batches/{id}/cancel

A batch is "in_progress" until `delay_s` after its creation; the first poll after that answers every line with the
server's own chat completion logic (the same responder, so a batch reply equals the online reply to the same
request), writes the output file and the error file, and reports "completed". `fail_lines(custom_id)` picks lines
that fail the first time they are seen (status 500 in the error file), so a line sent again, online or in a later
batch, succeeds (`every_nth_line(n)` picks every n-th line seen). Records: `created` (every batch created, in
order), `polls`, `files`.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import default as default_policy
from typing import TYPE_CHECKING, Any

from tests.stubs.openai_wire import StubRequest, error_body

if TYPE_CHECKING:
    from tests.stubs.openai_server import OpenAIStubServer


def every_nth_line(n: int) -> Callable[[str], bool]:
    """A `fail_lines` that fails the 1st, (n+1)th, (2n+1)th, ... line the stub sees (a line keeps its verdict). Not a
    hash of `custom_id`: that is the call's cache key, which holds the stub's random port, so a hash could pick no
    line at all (8 lines miss a one-in-three hash 4% of the time)."""
    seen: dict[str, int] = {}

    def pick(custom_id: str) -> bool:
        return seen.setdefault(custom_id, len(seen)) % n == 0

    return pick


@dataclass
class StubFile:
    id: str
    filename: str
    purpose: str
    data: bytes
    created_at: int = field(default_factory=lambda: int(time.time()))

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.data),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
        }


@dataclass
class StubBatch:
    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    metadata: dict[str, str]
    lines: int
    created_at: float = field(default_factory=time.time)
    status: str = "in_progress"
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "errors": None,
            "input_file_id": self.input_file_id,
            "completion_window": self.completion_window,
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": int(self.created_at),
            "in_progress_at": int(self.created_at),
            "expires_at": int(self.created_at) + 86400,
            "completed_at": None if self.status != "completed" else int(time.time()),
            "request_counts": {"total": self.lines, "completed": self.completed, "failed": self.failed},
            "metadata": self.metadata,
        }


class BatchEndpoints:
    """The files and batches of one stub server."""

    def __init__(
        self, server: OpenAIStubServer, delay_s: float = 0.5, fail_lines: Callable[[str], bool] | None = None
    ) -> None:
        self.server = server
        self.delay_s = delay_s
        self.fail_lines = fail_lines or (lambda custom_id: False)
        self.files: dict[str, StubFile] = {}
        self.batches: dict[str, StubBatch] = {}
        self.created: list[StubBatch] = []
        self.polls = 0
        self._failed_once: set[str] = set()
        self._lock = threading.Lock()

    # -- routing -------------------------------------------------------------------------------------------------
    def handles(self, path: str) -> bool:
        route = path.split("?", 1)[0].rstrip("/")
        return "/files" in route or "/batches" in route

    def get(self, path: str) -> tuple[int, Any]:
        route = path.split("?", 1)[0].rstrip("/")
        parts = route.split("/")
        if route.endswith("/content") and parts[-2] in self.files:
            return 200, self.files[parts[-2]].data
        if "/files/" in route and parts[-1] in self.files:
            return 200, self.files[parts[-1]].as_dict()
        if route.endswith("/batches"):
            data = [b.as_dict() for b in reversed(self.created)]
            return 200, {"object": "list", "data": data, "has_more": False}
        if "/batches/" in route and parts[-1] in self.batches:
            return 200, self.poll(parts[-1]).as_dict()
        return 404, error_body(f"no such object: {route}", "invalid_request_error", None)

    def post(self, path: str, content_type: str, raw: bytes) -> tuple[int, Any]:
        route = path.split("?", 1)[0].rstrip("/")
        if route.endswith("/files"):
            return self.upload(content_type, raw)
        if route.endswith("/batches"):
            return self.create(json.loads(raw or b"{}"))
        if route.endswith("/cancel") and route.split("/")[-2] in self.batches:
            batch = self.batches[route.split("/")[-2]]
            batch.status = "cancelled"
            return 200, batch.as_dict()
        return 404, error_body(f"no route POST {route}", "invalid_request_error", None)

    # -- files and batches ---------------------------------------------------------------------------------------
    def upload(self, content_type: str, raw: bytes) -> tuple[int, Any]:
        message = BytesParser(policy=default_policy).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            fields[str(name)] = (part.get_filename(), payload if isinstance(payload, bytes) else b"")
        if "file" not in fields:
            return 400, error_body("'file' is required", "invalid_request_error", None)
        filename, data = fields["file"]
        purpose = fields.get("purpose", (None, b""))[1].decode()
        stub = StubFile(f"file-{uuid.uuid4().hex[:24]}", filename or "upload.jsonl", purpose, data)
        with self._lock:
            self.files[stub.id] = stub
        return 200, stub.as_dict()

    def create(self, body: dict[str, Any]) -> tuple[int, Any]:
        source = self.files.get(str(body.get("input_file_id")))
        if source is None:
            return 404, error_body("No such File object", "invalid_request_error", None)
        if body.get("completion_window") != "24h":
            return 400, error_body("completion_window must be 24h", "invalid_request_error", None)
        lines = [json.loads(line) for line in source.data.decode().splitlines() if line.strip()]
        ids = [line.get("custom_id") for line in lines]
        if len(set(ids)) != len(ids):
            return 400, error_body("custom_id values must be unique", "invalid_request_error", None)
        batch = StubBatch(
            f"batch_{uuid.uuid4().hex[:24]}",
            source.id,
            str(body.get("endpoint")),
            str(body.get("completion_window")),
            dict(body.get("metadata") or {}),
            len(lines),
        )
        with self._lock:
            self.batches[batch.id] = batch
            self.created.append(batch)
        return 200, batch.as_dict()

    def poll(self, batch_id: str) -> StubBatch:
        with self._lock:
            self.polls += 1
            batch = self.batches[batch_id]
            if batch.status == "in_progress" and time.time() - batch.created_at >= self.delay_s:
                self._run(batch)
            return batch

    def _run(self, batch: StubBatch) -> None:
        """Answer every line (the server's chat logic); lines picked by `fail_lines` fail their first time."""
        output, errors = [], []
        for line in self.files[batch.input_file_id].data.decode().splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            custom_id = str(item["custom_id"])
            request_id = f"req_{uuid.uuid4().hex[:12]}"
            if custom_id not in self._failed_once and self.fail_lines(custom_id):
                self._failed_once.add(custom_id)
                body = error_body("The server had an error processing this request", "server_error", None)
                response = {"status_code": 500, "request_id": request_id, "body": body}
                errors.append({"id": request_id, "custom_id": custom_id, "response": response, "error": None})
                continue
            request = StubRequest(-1, "POST", item["url"], {}, item["body"], time.monotonic())
            completion = self.server._completion(request, [])
            response = {"status_code": 200, "request_id": request_id, "body": completion}
            output.append({"id": request_id, "custom_id": custom_id, "response": response, "error": None})
        batch.completed, batch.failed = len(output), len(errors)
        batch.output_file_id = self._store(f"{batch.id}_output.jsonl", output) if output else None
        batch.error_file_id = self._store(f"{batch.id}_error.jsonl", errors) if errors else None
        batch.status = "completed"

    def _store(self, filename: str, lines: list[dict[str, Any]]) -> str:
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        stub = StubFile(f"file-{uuid.uuid4().hex[:24]}", filename, "batch_output", data)
        self.files[stub.id] = stub
        return stub.id
