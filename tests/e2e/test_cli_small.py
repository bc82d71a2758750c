"""The small things the trial hit: --quiet anywhere, make_config covers every CLI option, --rag-arg, exit codes
when every row failed, sync adapters one at a time, the Python evaluate writing its files."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest

import ragtest
from rag_under_test import HTTPAdapter
from rag_under_test.collect import answer_samples, default_concurrency
from ragtest.cli import main
from ragtest.cli_args import build_parser
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.datasets import read_jsonl
from ragtest_core.schema import RAGAnswer

QUESTIONS = [{"sample_id": f"s{i}", "question": f"What is item {i}?", "ground_truth": f"Item {i}."} for i in range(3)]


def write_testset(path: Path) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in QUESTIONS))
    return path


def test_quiet_works_before_and_after_the_subcommand() -> None:
    parser = build_parser()
    assert parser.parse_args(["evaluate", "--quiet", "--input", "x"]).quiet is True
    assert parser.parse_args(["--quiet", "evaluate", "--input", "x"]).quiet is True
    assert parser.parse_args(["evaluate", "--input", "x"]).quiet is False
    assert parser.parse_args(["compare", "a", "b", "--quiet"]).quiet is True


@pytest.fixture()
def endpoint() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            payload = {"answer": f"echo {body['question']}", "contexts": ["c"], "context_ids": ["c1"]}
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(payload).encode())

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/rag"
    server.shutdown()
    server.server_close()


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/rag"


def test_http_adapter_by_flag(endpoint: str, tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "t.jsonl")
    out = tmp_path / "a.jsonl"
    args = ["answer", "--quiet", "--input", str(testset), "--output", str(out)]
    assert (
        main([*args, "--rag", "rag_under_test:HTTPAdapter", "--rag-arg", f"url={endpoint}", "--rag-arg", "timeout_s=5"])
        == 0
    )
    rows = read_jsonl(out)
    assert [r["answer"] for r in rows] == [f"echo What is item {i}?" for i in range(3)]
    manifest = json.loads((tmp_path / "a.manifest.json").read_text())
    assert (
        "HTTPAdapter(url=" in manifest["stats"]["rag_adapter"]
        and "1 question(s) at a time" in manifest["stats"]["rag_adapter"]
    )


def test_missing_adapter_argument_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    testset = write_testset(tmp_path / "t.jsonl")
    code = main(
        [
            "answer",
            "--input",
            str(testset),
            "--output",
            str(tmp_path / "a.jsonl"),
            "--rag",
            "rag_under_test:HTTPAdapter",
        ]
    )
    error = capsys.readouterr().err
    assert code == 2 and "--rag-arg url=" in error and "Traceback" not in error


def test_answer_exits_1_when_every_question_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    testset = write_testset(tmp_path / "t.jsonl")
    rag = ["--rag", "rag_under_test:HTTPAdapter", "--rag-arg", f"url={closed_port_url()}"]
    assert main(["answer", "--quiet", "--input", str(testset), "--output", str(tmp_path / "a.jsonl"), *rag]) == 1
    assert "every question failed" in capsys.readouterr().err
    rows = read_jsonl(tmp_path / "a.jsonl")
    assert len(rows) == 3 and all(r["answer_error"] for r in rows)  # the rows are kept, with their errors

    scores = tmp_path / "s.jsonl"
    assert main(["evaluate", "--quiet", "--input", str(tmp_path / "a.jsonl"), "--output", str(scores)]) == 1
    assert "every row failed" in capsys.readouterr().err
    assert all(
        r["faithfulness"] is None and r["faithfulness_reason"].startswith("RAG error") for r in read_jsonl(scores)
    )


class CountingSyncRAG:
    """A synchronous adapter that records how many of its calls overlap."""

    def __init__(self, barrier: threading.Barrier | None = None) -> None:
        self.active = self.most = 0
        self.lock = threading.Lock()
        self.barrier = barrier

    def answer(self, question: str) -> RAGAnswer:
        with self.lock:
            self.active += 1
            self.most = max(self.most, self.active)
        if self.barrier is not None:
            self.barrier.wait(timeout=10)  # returns only once two calls are in flight together
        else:
            time.sleep(0.02)
        with self.lock:
            self.active -= 1
        return RAGAnswer(answer="a", contexts=["c"])


def test_sync_adapters_run_one_at_a_time_unless_raised() -> None:
    assert default_concurrency(HTTPAdapter("http://x")) == 1 and default_concurrency(CountingSyncRAG()) == 1
    alone = CountingSyncRAG()
    run_sync(answer_samples(QUESTIONS * 2, alone, show_progress=False))
    assert alone.most == 1
    together = CountingSyncRAG(threading.Barrier(2))
    rows = run_sync(answer_samples(QUESTIONS[:2], together, concurrency=2, show_progress=False))
    assert together.most == 2 and all(r["answer_error"] is None for r in rows)


def test_python_evaluate_writes_its_files(test_data: Path, tmp_path: Path) -> None:
    frame = pd.read_json(test_data / "fiqa" / "fiqa.jsonl", lines=True).head(4)
    config = ragtest.make_config(metrics=["token_f1", "exact_match"])
    result = ragtest.evaluate(frame, config, tmp_path / "out", show_progress=False)
    for name in ("scores.jsonl", "summary.json", "manifest.json", "report.md", "report.html"):
        assert (tmp_path / "out" / name).is_file(), name
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["rows"] == 4 and summary["metrics"]["token_f1"]["mean"] == result.metrics["token_f1"].mean
    assert summary["scoring"]["metrics"] == ["token_f1", "exact_match"] and summary["testset"]["rows"] == 4
    before = set(Path.cwd().iterdir())
    ragtest.evaluate(frame, config, show_progress=False)  # no run_dir: nothing written
    assert set(Path.cwd().iterdir()) == before


@pytest.mark.parametrize("unbuffered", [False, True])
@pytest.mark.parametrize("argv", [["--help"], ["evaluate", "--input", "missing.jsonl", "--dry-run"]])
def test_a_closed_pipe_ends_quietly(argv: list[str], unbuffered: bool, tmp_path: Path) -> None:
    """`ragtest ... | head`: the reader goes away; no BrokenPipeError traceback, the exit status of SIGPIPE.

    Both ways stdout can be: block-buffered (a new user's shell, where the closed pipe shows only when the buffer
    is flushed; Python's own flush at exit would end in 120) and unbuffered (PYTHONUNBUFFERED=1)."""
    import os
    import subprocess
    import sys

    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    process = subprocess.Popen(
        [sys.executable, "-m", "ragtest.cli", *argv],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the first line is written
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) in (0, 2, 141)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
