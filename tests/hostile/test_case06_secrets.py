"""Case 6: secrets stay off disk and off the console. A password inside --llm-base-url, a bearer token in a
--rag-arg headers object, a key in a URL's query and an adapter argument named api_key are used (the run works
against real HTTP servers on loopback), and no byte of them is written to any file of the run (manifest, summary,
reports, the LLM cache, the lock's holder file, ...) or printed."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from ragtest.cli import main
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder

PASSWORD = "Pw-LLM-4817"
TOKEN = "Tok-RAG-9921"
QUERY_KEY = "Qk-5530"
API_KEY = "Ak-7764"
HEADER_KEY = "Hk-3109"
SECRETS = (PASSWORD, TOKEN, QUERY_KEY, API_KEY, HEADER_KEY)


class _RAGHandler(BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(self.headers.get("Authorization", ""))
        reply = {
            "answer": f"Brown bears live in Alaska ({body['question']})",
            "contexts": ["Brown bears live in Alaska."],
        }
        payload = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def rag_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RAGHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/rag"
    server.shutdown()
    server.server_close()


def leaks(folder: Path, printed: str) -> list[str]:
    found = [f"printed: {s}" for s in SECRETS if s in printed]
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.relative_to(folder)}: {s}" for s in SECRETS if s.encode() in data]
    return found


def test_no_secret_reaches_a_file_or_the_console(
    wiki_dir: Path, tmp_path: Path, rag_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAIStubServer(responder=PlausibleResponder(), lifetime_s=240) as llm:
        base_url = llm.url.replace("http://", f"http://ragtest:{PASSWORD}@")
        out = tmp_path / "run"
        args = ["--quiet", "run", "--topic", "Brown bear", "--wiki-cache", str(wiki_dir), "--offline", "--size", "2",
                "--metrics", "faithfulness,answer_relevancy", "--llm-base-url", base_url, "--llm", "stub-model",
                "--rag", "rag_under_test:HTTPAdapter", "--rag-arg", f"url={rag_url}?api_key={QUERY_KEY}",
                "--rag-arg", json.dumps({"Authorization": f"Bearer {TOKEN}"}).join(("headers=", "")),
                "--out", str(out)]  # fmt: skip
        assert main(args) == 0
        assert llm.chat_requests, "the LLM was used"
    assert _RAGHandler.seen and all(seen == f"Bearer {TOKEN}" for seen in _RAGHandler.seen)  # the token was used
    captured = capsys.readouterr()
    assert leaks(out, captured.out + captured.err) == []
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["llm"]["base_url"].startswith("http://<redacted>@127.0.0.1:")
    assert manifest["config"]["rag_args"]["headers"] == {"Authorization": "<redacted>"}
    assert manifest["config"]["rag_args"]["url"].endswith("/rag?api_key=<redacted>")
    assert "<redacted>@" in manifest["stats"]["reproduce"]
    assert (out / "llm_cache.sqlite").is_file()


def test_adapter_arguments_named_like_keys_are_redacted(user_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    testset = user_folder / "t.jsonl"
    testset.write_text(json.dumps({"question": "Where do bears live?", "ground_truth": "Alaska."}) + "\n")
    out = user_folder / "out"
    args = ["answer", "--quiet", "--input", str(testset), "--output", str(out / "answers.jsonl"),
            "--rag", "userrag:SlowRAG", "--rag-arg", f"api_key={API_KEY}",
            "--rag-arg", json.dumps({"X-Api-Key": HEADER_KEY}).join(("headers=", ""))]  # fmt: skip
    assert main(args) == 0
    captured = capsys.readouterr()
    assert leaks(out, captured.out + captured.err) == []
    manifest = json.loads((out / "answers.manifest.json").read_text())
    assert "api_key='<redacted>'" in manifest["stats"]["rag_adapter"]
    assert manifest["config"]["rag_args"] == {"api_key": "<redacted>", "headers": {"X-Api-Key": "<redacted>"}}


def test_an_error_message_does_not_print_the_password(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "d.jsonl"
    source.write_text(json.dumps({"question": "Q?", "answer": "A.", "contexts": ["A."], "ground_truth": "A."}) + "\n")
    args = ["evaluate", "--quiet", "--input", str(source), "--output", str(tmp_path / "s.jsonl"), "--metrics",
            "faithfulness", "--llm-base-url", f"http://ragtest:{PASSWORD}@127.0.0.1:9/v1", "--llm", "m",
            "--llm-retries", "0", "--llm-timeout", "2"]  # fmt: skip
    main(args)
    captured = capsys.readouterr()
    assert PASSWORD not in captured.out + captured.err
    assert leaks(tmp_path, "") == []
