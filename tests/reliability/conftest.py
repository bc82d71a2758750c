"""Reliability tests: the real pipeline (`ragtest run` through `ragtest.cli.main`) against the OpenAI stub server,
answered by the plausible responder, with faults, kills, bad keys and re-runs.

The module-wide server keeps one URL, so every run's model identity (and so its cache keys and `writer` column)
is the same. The Chroma store of the Python article is embedded once per session and copied into each run
directory, so a run spends its time on LLM calls, not on embedding.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragtest.cli import main
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder

TOPIC = "Python (programming language)"
SIZE = "4"
SEED = "3"
#: Files a finished run leaves; all but the manifest and the report (which hold timings) are deterministic.
FINAL_FILES = ("testset.jsonl", "answers.jsonl", "scores.jsonl", "summary.json")
#: About 20% of attempts faulted, of six kinds (1 - 0.963^6 ~ 0.2).
MIXED_FAULTS: dict[str, float] = {
    "rate_limit": 0.037,
    "server_error": 0.037,
    "malformed": 0.037,
    "truncate": 0.037,
    "empty": 0.037,
    "hang": 0.037,
}


def run_args(out: Path, wiki_dir: Path, url: str, *extra: str) -> list[str]:
    return [
        "--quiet", "run", "--topic", TOPIC, "--wiki-cache", str(wiki_dir), "--offline", "--size", SIZE,
        "--seed", SEED, "--out", str(out), "--llm-base-url", url, "--llm", "stub-model", "--llm-timeout", "1",
        "--llm-backoff", "0.05", *extra,
    ]  # fmt: skip


@pytest.fixture(scope="session")
def store_template(tmp_path_factory: pytest.TempPathFactory, wiki_dir: Path) -> Path:
    """The Python article's Chroma store, embedded once (an offline `generate` builds it)."""
    folder = tmp_path_factory.mktemp("store-template")
    args = ["--quiet", "generate", "--topic", TOPIC, "--wiki-cache", str(wiki_dir), "--offline", "--size", "1",
            "--output", str(folder / "t.jsonl")]  # fmt: skip
    assert main(args) == 0
    return folder / "chroma"


@pytest.fixture
def new_run_dir(tmp_path: Path, store_template: Path) -> Any:
    """A factory of run directories that already hold the embedded store."""
    counter = iter(range(1000))

    def make(name: str | None = None) -> Path:
        run_dir = tmp_path / (name or f"run{next(counter)}")
        shutil.copytree(store_template, run_dir / "chroma")
        return run_dir

    return make


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStubServer]:
    """One server for the module, with the plausible responder; faults drawn by content (order-independent)."""
    with OpenAIStubServer(
        responder=PlausibleResponder(chatty=True), fault_key="content", retry_after=0.1, hang_s=1.5,
        lifetime_s=600.0,
    ) as server:  # fmt: skip
        yield server


@pytest.fixture
def server(stub: OpenAIStubServer) -> Iterator[OpenAIStubServer]:
    """The module's server, clean: no faults, no latency, counts from zero."""
    stub.reset()
    stub.fault_rates.clear()
    stub.latency_ms = 0.0
    yield stub
    stub.fault_rates.clear()
    stub.latency_ms = 0.0


def read_final_files(run_dir: Path) -> dict[str, str]:
    """The deterministic final files, with the one timing column (answer_latency_s) blanked."""
    files = {}
    for name in FINAL_FILES:
        text = (run_dir / name).read_text(encoding="utf-8")
        if name.endswith(".jsonl"):
            rows = [json.loads(line) for line in text.splitlines()]
            for row in rows:
                row.pop("answer_latency_s", None)
            text = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
        files[name] = text
    return files


def manifest(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
