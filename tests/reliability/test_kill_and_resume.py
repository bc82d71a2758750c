"""SIGKILL a real `python -m ragtest.cli run` mid-way, run the same command again: no completed call is repeated,
no row is lost or duplicated, and the final files equal an uninterrupted run's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl
from ragtest_core.llm.cache import LLMCache, cache_key
from tests.reliability.conftest import FINAL_FILES, SIZE, read_final_files, run_args
from tests.stubs.openai_server import OpenAIStubServer, StubRequest

ROOT = Path(__file__).resolve().parents[2]
_ROLES = {"user": "human", "assistant": "ai", "system": "system"}


def request_key(server: OpenAIStubServer, request: StubRequest) -> str:
    """The runtime's cache key of a request (default temperature, no max_tokens: a fault-free run; a native
    structured-output request's `response_format` is part of it)."""
    messages = [{"role": _ROLES[m["role"]], "content": m["content"]} for m in request.messages]
    params: dict[str, object] = {"temperature": 0.0, "max_tokens": None}
    if request.body.get("response_format"):
        params["format"] = {"response_format": request.body["response_format"]}
    return cache_key(f"{server.url}#stub-model", messages, params)


def run_and_kill(args: list[str], server: OpenAIStubServer, after_requests: int, timeout_s: float = 90) -> None:
    process = subprocess.Popen([sys.executable, "-m", "ragtest.cli", *args], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + timeout_s
    try:
        while server.request_count < after_requests:
            if process.poll() is not None:
                pytest.fail(f"the run ended before it was killed: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                pytest.fail("the run made too few requests in time")
            time.sleep(0.002)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
        assert process.stderr is not None
        process.stderr.close()
    assert process.returncode == -signal.SIGKILL


def check_kill_and_resume(
    server: OpenAIStubServer, run_dir: Path, reference_dir: Path, wiki_dir: Path, kill_after: int
) -> None:
    server.latency_ms = 60  # calls take long enough for the kill to land mid-stage
    run_and_kill(run_args(run_dir, wiki_dir, server.url), server, kill_after)
    time.sleep(0.3)  # let the killed client's in-flight requests reach the server
    answered = {request_key(server, r) for r in server.chat_requests if r.status == 200}
    cache = LLMCache(run_dir / "llm_cache.sqlite")
    completed = {key for key in answered if cache.get(key) is not None}
    cache.close()
    assert completed, "nothing was completed before the kill"
    for name in FINAL_FILES:  # a final file is there whole, or not at all
        if (run_dir / name).exists() and name == "testset.jsonl":
            assert len(read_jsonl(run_dir / name)) == int(SIZE)
    partial = run_dir / "answers.partial.jsonl"
    # ragtest's own progress file: a torn tail after the kill is expected; its first line records the adapter
    partial_rows = read_jsonl(partial, torn_tail="skip")[1:] if partial.exists() else []

    server.reset()
    assert main(run_args(run_dir, wiki_dir, server.url)) == 0

    repeated = [r for r in server.chat_requests if request_key(server, r) in completed]
    assert repeated == [], f"{len(repeated)} completed calls were sent again"
    assert len(answered - completed) <= 8  # lost: at most the calls in flight (--llm-concurrency 8)
    assert read_final_files(run_dir) == read_final_files(reference_dir)
    answers = read_jsonl(run_dir / "answers.jsonl")
    assert len(answers) == int(SIZE) and len({a["sample_id"] for a in answers}) == int(SIZE)
    for row in partial_rows:  # rows saved before the kill are kept as they were
        assert next(a for a in answers if a["sample_id"] == row["sample_id"]) == row
    assert not partial.exists()


@pytest.fixture
def reference_dir(server: OpenAIStubServer, new_run_dir, wiki_dir: Path) -> Path:
    """An uninterrupted run; its request count (`.calls` file) places the kills."""
    run_dir = new_run_dir("uninterrupted")
    assert main(run_args(run_dir, wiki_dir, server.url)) == 0
    (run_dir.parent / "reference.calls").write_text(str(server.request_count))
    server.reset()
    return run_dir


def kill_point(reference_dir: Path, fraction: float) -> int:
    return max(2, int(int((reference_dir.parent / "reference.calls").read_text()) * fraction))


def test_kill_during_evaluation_then_resume(
    server: OpenAIStubServer, new_run_dir, reference_dir: Path, wiki_dir: Path
) -> None:
    check_kill_and_resume(server, new_run_dir("killed"), reference_dir, wiki_dir, kill_point(reference_dir, 0.6))


@pytest.mark.slow
@pytest.mark.parametrize("fraction", [0.12, 0.3, 0.45, 0.9])
def test_kill_at_any_point_then_resume(
    server: OpenAIStubServer, new_run_dir, reference_dir: Path, wiki_dir: Path, fraction: float
) -> None:
    """Killed while writing questions, answering, starting to score, or nearly done."""
    check_kill_and_resume(server, new_run_dir("killed"), reference_dir, wiki_dir, kill_point(reference_dir, fraction))
