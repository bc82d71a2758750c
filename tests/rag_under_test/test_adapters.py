"""The ready adapters against real counterparts: an HTTP endpoint on loopback and a LangChain runnable."""

from __future__ import annotations

import json
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda

from rag_under_test import HTTPAdapter, RunnableAdapter
from rag_under_test.collect import answer_samples
from rag_under_test.loader import load_adapter
from ragtest_core.asyncio_utils import run_sync


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body["question"] == "fail?":
            self.send_response(500)
            self.end_headers()
            return
        payload = json.dumps({"answer": "echo " + body["question"], "contexts": ["c1 text"], "context_ids": ["c1"]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/rag"
    server.shutdown()
    server.server_close()


def test_http_adapter(endpoint: str) -> None:
    rows = run_sync(
        answer_samples([{"question": "hi?"}, {"question": "fail?"}], HTTPAdapter(endpoint), show_progress=False)
    )
    assert rows[0]["answer"] == "echo hi?" and rows[0]["context_ids"] == ["c1"] and rows[0]["answer_error"] is None
    assert "500" in rows[1]["answer_error"]


def test_runnable_adapter_with_documents() -> None:
    def chain(inputs: dict[str, str]) -> dict[str, object]:
        docs = [Document(page_content="Paris is the capital of France.", id="d1")]
        return {"answer": "Paris", "context": docs, "input": inputs["input"]}

    adapter = RunnableAdapter(RunnableLambda(chain), input_key="input")
    rows = run_sync(answer_samples([{"question": "Capital of France?"}], adapter, show_progress=False))
    assert rows[0]["answer"] == "Paris"
    assert rows[0]["contexts"] == ["Paris is the capital of France."] and rows[0]["context_ids"] == ["d1"]


def test_a_runnable_given_to_rag_is_wrapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--rag my_chain:chain` (a LangChain runnable, or a factory returning one) needs no adapter code."""
    (tmp_path / "my_chain.py").write_text(
        textwrap.dedent("""
        from langchain_core.documents import Document
        from langchain_core.runnables import RunnableLambda

        def _rag(question):
            docs = [Document(page_content="Paris is the capital of France.", id="d1")]
            return {"answer": "Paris, for " + question, "context": docs}

        chain = RunnableLambda(_rag)

        def make_chain():
            return chain
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for path in ("my_chain:chain", "my_chain:make_chain"):
        adapter = load_adapter(path)
        assert isinstance(adapter, RunnableAdapter)
        [row] = run_sync(answer_samples([{"question": "Capital of France?"}], adapter, show_progress=False))
        assert row["answer"] == "Paris, for Capital of France?" and row["context_ids"] == ["d1"]
