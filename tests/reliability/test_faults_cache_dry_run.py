"""A full `ragtest run` with the LLM on the stub server: faults lose nothing, a re-run calls nothing, --no-cache
really disables the cache, and --dry-run predicts the calls and tokens."""

from __future__ import annotations

import re
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl
from tests.reliability.conftest import MIXED_FAULTS, SIZE, manifest, read_final_files, run_args
from tests.stubs.openai_server import OpenAIStubServer, StubRequest
from tests.stubs.responder import original_prompt


@dataclass
class CleanRun:
    run_dir: Path
    requests: int
    files: dict[str, str]
    usage: dict[str, Any]


@pytest.fixture(scope="module")
def clean_run(
    stub: OpenAIStubServer, store_template: Path, wiki_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> CleanRun:
    """A fault-free run, the reference the other runs are compared with."""
    stub.reset()
    stub.fault_rates.clear()
    run_dir = tmp_path_factory.mktemp("clean")
    shutil.copytree(store_template, run_dir / "chroma")
    assert main(run_args(run_dir, wiki_dir, stub.url)) == 0
    return CleanRun(run_dir, stub.request_count, read_final_files(run_dir), manifest(run_dir)["llm_usage"])


def test_clean_run_uses_every_llm_stage(clean_run: CleanRun) -> None:
    usage = clean_run.usage
    assert set(usage["phases"]) == {"generate", "answer", "evaluate"}
    five = {"faithfulness", "answer_relevancy", "context_relevance", "context_precision", "context_recall"}
    assert five | {"statements"} == set(usage["metrics"])  # the statement step is shared, so it has its own line
    assert usage["total"]["calls"] == clean_run.requests > 30
    assert usage["total"]["failures"] == 0 and usage["total"]["estimated_calls"] == 0
    scores = clean_run.files["scores.jsonl"]
    assert '"faithfulness": null' not in scores and "LLM judge failed" not in scores


def test_second_run_makes_zero_llm_calls(clean_run: CleanRun, server: OpenAIStubServer, wiki_dir: Path) -> None:
    assert main(run_args(clean_run.run_dir, wiki_dir, server.url)) == 0

    assert server.request_count == 0
    total = manifest(clean_run.run_dir)["llm_usage"]["total"]
    assert total["calls"] == 0 and total["cache_hits"] == clean_run.requests
    assert read_final_files(clean_run.run_dir) == clean_run.files


def test_faulted_run_loses_no_row_and_scores_like_a_clean_run(
    clean_run: CleanRun, server: OpenAIStubServer, new_run_dir, wiki_dir: Path
) -> None:
    server.fault_rates.update(MIXED_FAULTS)
    run_dir = new_run_dir()

    assert main(run_args(run_dir, wiki_dir, server.url)) == 0

    faulted = [r for r in server.chat_requests if r.faults]
    assert len({f for r in faulted for f in r.faults}) >= 4  # mixed kinds really happened
    assert len(faulted) / server.request_count > 0.1
    assert read_final_files(run_dir) == clean_run.files  # same rows, same answers, same scores
    total = manifest(run_dir)["llm_usage"]["total"]
    assert total["retries"] >= len(faulted) - 2 and total["failures"] == 0


def test_no_cache_neither_reads_nor_writes(
    clean_run: CleanRun, server: OpenAIStubServer, new_run_dir, wiki_dir: Path
) -> None:
    fresh = new_run_dir()
    assert main(run_args(fresh, wiki_dir, server.url, "--no-cache")) == 0
    assert server.request_count == clean_run.requests  # no reads within the run either
    assert not list(fresh.glob("*.sqlite*"))  # no writes

    cache = clean_run.run_dir / "llm_cache.sqlite"
    rows_before = sqlite3.connect(cache).execute("SELECT COUNT(*) FROM replies").fetchone()[0]
    server.reset()
    assert main(run_args(clean_run.run_dir, wiki_dir, server.url, "--no-cache")) == 0
    assert server.request_count == clean_run.requests  # the full cache beside it was not read
    assert sqlite3.connect(cache).execute("SELECT COUNT(*) FROM replies").fetchone()[0] == rows_before
    assert read_final_files(fresh) == clean_run.files


def test_cache_dir_from_the_environment(
    clean_run: CleanRun, server: OpenAIStubServer, new_run_dir, wiki_dir: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    shared = tmp_path / "user-cache"
    monkeypatch.setenv("RAGTEST_CACHE_DIR", str(shared))
    first, second = new_run_dir(), new_run_dir()

    assert main(run_args(first, wiki_dir, server.url)) == 0
    assert main(run_args(second, wiki_dir, server.url)) == 0

    assert (shared / "llm_cache.sqlite").is_file() and not (first / "llm_cache.sqlite").exists()
    assert server.request_count == clean_run.requests  # the second run dir was answered from the shared cache


def test_dry_run_estimate_is_within_25_percent(
    clean_run: CleanRun, server: OpenAIStubServer, wiki_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "never-written"
    assert main(run_args(out, wiki_dir, server.url, "--dry-run")) == 0

    printed = capsys.readouterr().out
    assert server.request_count == 0 and not out.exists()
    match = re.search(r"^\s*total\s+calls=(\d+)\s+in=(\d+)\s+out=(\d+)", printed, re.MULTILINE)
    assert match, printed
    estimated = dict(zip(("calls", "input_tokens", "output_tokens"), map(int, match.groups()), strict=True))
    actual = {key: clean_run.usage["total"][key] for key in estimated}
    for key, value in estimated.items():
        assert abs(value - actual[key]) <= 0.25 * actual[key], (key, value, actual[key], printed)


def test_an_unusable_judgement_becomes_a_reason_on_the_row(
    server: OpenAIStubServer, new_run_dir, wiki_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A weak model that never answers the verdict prompt with JSON, even after the repair round."""
    plausible = server.responder
    assert plausible is not None

    def stubborn(request: StubRequest) -> str | None:
        if "Judge the faithfulness of a series of statements" in original_prompt(request):
            return "I think these statements are mostly fine, honestly."
        return plausible(request)

    monkeypatch.setattr(server, "responder", stubborn)
    run_dir = new_run_dir()

    assert main(run_args(run_dir, wiki_dir, server.url)) == 0

    rows = read_jsonl(run_dir / "scores.jsonl")
    assert len(rows) == int(SIZE)
    for row in rows:
        assert row["faithfulness"] is None
        assert row["faithfulness_reason"].startswith("LLM judge failed: unparseable judgement after one repair")
        assert row["context_recall"] is not None  # the other metrics are unaffected
    summary = manifest(run_dir)["llm_usage"]["stages"]["faithfulness.verdicts"]
    assert summary["calls"] == 2 * int(SIZE) and summary["failures"] == int(SIZE)  # first reply + one repair each
