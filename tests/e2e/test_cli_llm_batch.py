"""`ragtest evaluate --judge llm --llm-batch` against the stub server's Batch API: the same scores as online, the
cost report at the batch price, failed lines sent online, multi-step metrics as successive batches, and a kill -9
while polling followed by the same command: the same batch is resumed, nothing is submitted twice."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluation.meta_eval import load_wikieval
from ragtest.cli import main
from tests.stubs.openai_batches import every_nth_line
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder

METRICS = "faithfulness,answer_relevancy,context_precision,context_recall"
SUPPORT = re.compile(r"Does the premise fully support|Does the answer decline|classify them: TP")
CLI = "import sys\nfrom ragtest.cli import main\nsys.exit(main(sys.argv[1:]))\n"


@pytest.fixture
def server() -> Iterator[OpenAIStubServer]:
    responder = PlausibleResponder()

    def reply(request: Any) -> str | None:
        if SUPPORT.search(getattr(request, "prompt", "")):
            return json.dumps({"reason": "r", "verdict": 1, "rejected": 0, "TP": [], "FP": [], "FN": []})
        return responder(request)

    fail = every_nth_line(5)
    with OpenAIStubServer(responder=reply, batch_delay_s=0.3, batch_fail_lines=fail, lifetime_s=280) as stub:
        yield stub


@pytest.fixture
def dataset(test_data: Path, tmp_path: Path) -> Path:
    rows = load_wikieval(test_data / "wikieval" / "wikieval.jsonl")[3:7]
    path = tmp_path / "wikieval4.jsonl"
    records = [
        {
            "question": r["question"],
            "answer": r["answer"],
            "contexts": list(r["context_v1"]),
            "ground_truth": r["answer"],
        }
        for r in rows
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"stub-model": [1.0, 2.0]}))
    return path


def arguments(server: OpenAIStubServer, dataset: Path, out: Path, prices: Path, *extra: str) -> list[str]:
    return [
        "--quiet", "evaluate", "--input", str(dataset), "--output", str(out / "scores.jsonl"), "--metrics", METRICS,
        "--judge", "llm", "--llm", "openai:stub-model", "--llm-base-url", server.url, "--prices", str(prices),
        "--llm-batch-poll", "0.2", "--llm-batch-poll-max", "0.5", *extra,
    ]  # fmt: skip


def scores(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    return [{name: row[name] for name in METRICS.split(",")} for row in rows]


def assert_close(left: list[dict[str, Any]], right: list[dict[str, Any]]) -> None:
    assert len(left) == len(right)
    for a, b in zip(left, right, strict=True):
        assert a.keys() == b.keys()
        assert all(a[k] == b[k] or (a[k] is not None and abs(a[k] - b[k]) <= 1e-6) for k in a), (a, b)


def usage(out: Path) -> dict[str, Any]:
    manifest = json.loads((out / "scores.manifest.json").read_text())
    total: dict[str, Any] = manifest["llm_usage"]["total"]
    return total


def test_batch_scores_equal_online_and_the_cost_report_shows_the_batch_price(
    server: OpenAIStubServer, dataset: Path, prices: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    online, batched = tmp_path / "online", tmp_path / "batch"
    assert main(arguments(server, dataset, online, prices)) == 0
    online_requests = server.request_count
    assert main(arguments(server, dataset, batched, prices, "--llm-batch")) == 0
    printed = capsys.readouterr().out
    assert scores(batched) == scores(online)
    first, second = server.batch.created  # statements (and the one-step metrics), then faithfulness's verdicts
    assert first.lines > second.lines > 0
    failed = first.failed + second.failed
    assert failed > 0 and server.request_count - online_requests == failed  # failed lines went online
    total, full = usage(batched), usage(online)
    assert total["batch_calls"] == total["calls"] - failed and total["batch_failed_lines"] == failed
    assert total["input_tokens"] == full["input_tokens"] and total["cost_usd"] < full["cost_usd"]
    batch_share = total["batch_input_tokens"] * 1.0 + total["batch_output_tokens"] * 2.0
    assert total["cost_usd"] == pytest.approx(full["cost_usd"] - 0.5 * batch_share / 1e6)
    assert "through the provider's Batch API at the batch price (50% of online)" in printed

    assert main(arguments(server, dataset, tmp_path / "dry", prices, "--llm-batch", "--dry-run")) == 0
    report = capsys.readouterr().out
    planned = re.search(r"^\s+total .* cost=\$([0-9.]+)", report, re.MULTILINE)
    online_planned = re.search(r"priced at 50% of online \(online: \$([0-9.]+)\)", report)
    assert planned and online_planned
    assert float(planned.group(1)) == pytest.approx(float(online_planned.group(1)) / 2, abs=1e-4)


def test_kill_while_polling_then_the_same_command_resumes_the_same_batch(
    server: OpenAIStubServer, dataset: Path, prices: Path, tmp_path: Path
) -> None:
    reference = tmp_path / "online"
    assert main(arguments(server, dataset, reference, prices)) == 0
    server.batch.delay_s = 600.0
    out = tmp_path / "batch"
    command = [sys.executable, "-c", CLI, *arguments(server, dataset, out, prices, "--llm-batch")]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (server.batch.created and server.batch.polls >= 2) and time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        time.sleep(0.1)
    assert server.batch.created, "no batch was submitted"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    (first,) = server.batch.created
    journal = [json.loads(line) for line in (out / "llm_batches.jsonl").read_text().splitlines()]
    assert [e["event"] for e in journal] == ["uploaded", "created"] and journal[1]["batch_id"] == first.id

    server.batch.delay_s = 0.2
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr[-3000:]
    assert server.batch.created[0] is first and len(server.batch.created) == 2  # resumed, then the verdicts' batch
    assert first.status == "completed"
    events = [json.loads(line) for line in (out / "llm_batches.jsonl").read_text().splitlines()]
    assert sum(1 for e in events if e["event"] == "uploaded") == 2
    assert {e["batch_id"] for e in events if e["event"] == "finished"} == {b.id for b in server.batch.created}
    assert_close(scores(out), scores(reference))  # another process: embeddings agree to float rounding
