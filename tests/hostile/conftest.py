"""The hostile-user cases of issue 22, each tried the way a user would meet it: through the command line, on real
files, with real subprocesses where two runs or a kill are involved.

Helpers: a user's RAG module written into a folder, a small test set, and running `ragtest` as a process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: A user's RAG module: two systems that answer differently, slowly when asked to.
RAG_MODULE = """
import time


class SlowRAG:
    name = "slow"

    def __init__(self, delay=0.0, api_key=None, headers=None):
        self.delay = delay

    def answer(self, question):
        time.sleep(self.delay)
        return {"answer": f"{self.name} says: {question}", "contexts": [f"{self.name} context for {question}"]}


class OtherRAG(SlowRAG):
    name = "other"
"""


def write_testset(path: Path, size: int = 20) -> Path:
    """`size` questions with reference answers, as a test set file."""
    rows = [
        {"sample_id": f"s{i:02d}", "question": f"What is fact number {i}?", "ground_truth": f"Fact {i} is true."}
        for i in range(size)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A user's working folder holding `userrag.py`, made the current folder (and forgotten afterwards)."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "userrag.py").write_text(RAG_MODULE, encoding="utf-8")
    monkeypatch.chdir(folder)
    yield folder
    sys.modules.pop("userrag", None)


def ragtest_process(args: list[str], cwd: Path, **kwargs: object) -> subprocess.Popen[str]:
    """`python -m ragtest.cli ARGS` started in `cwd` (stdout and stderr captured as text)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.Popen(
        [sys.executable, "-m", "ragtest.cli", *args], cwd=cwd, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs,  # type: ignore[call-overload]
    )  # fmt: skip


def kill_when(process: subprocess.Popen[str], ready: Callable[[], bool], timeout_s: float = 120) -> None:
    """SIGKILL `process` as soon as `ready()` holds (fail if it ends or times out first)."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if process.poll() is not None:
            pytest.fail(f"the run ended before it was killed: {process.communicate()[1][-2000:]}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("the run did not reach the kill point in time")
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL


def lines_in(path: Path) -> int:
    """Complete lines in a file (0 when it does not exist)."""
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0
