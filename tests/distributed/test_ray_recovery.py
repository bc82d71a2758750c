"""Ray's recovery, on the two-node cluster (slow): a driver killed while scoring resumes from its progress file,
a worker lost mid-partition loses no row, and LLM-judge workers keep one budget (concurrency and cache)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import evaluation
import ragtest
import ragtest.distributed.scoring as ray_scoring
from evaluation.engine import evaluate_dataset
from evaluation.sample import Sample
from ragtest.cli import main
from ragtest.run_state import open_run
from ragtest_core.datasets import read_dataset
from ragtest_core.schema import MetricResult
from tests.distributed.test_ray_pipeline import assert_same_scores, read
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder

pytestmark = pytest.mark.slow
CLI = "import sys\nfrom ragtest.cli import main\nsys.exit(main(sys.argv[1:]))\n"
FOUR = ["faithfulness", "answer_relevancy", "context_precision", "context_recall"]


def bigger_fiqa(test_data: Path, folder: Path, copies: int) -> Path:
    frame = read_dataset(test_data / "fiqa" / "fiqa.jsonl")
    parts = [frame.assign(question=frame["question"] + f" (variant {i})") for i in range(copies)]
    path = folder / "fiqa_big.jsonl"
    pd.concat(parts, ignore_index=True).to_json(path, orient="records", lines=True)
    return path


def test_a_killed_driver_resumes_from_its_progress(ray_cluster: str, test_data: Path, tmp_path: Path) -> None:
    dataset = bigger_fiqa(test_data, tmp_path, 12)  # 360 rows: 12 partitions of 32
    out = tmp_path / "ray" / "scores.jsonl"
    args = ["--quiet", "evaluate", "--input", str(dataset), "--output", str(out), "--ray", ray_cluster]
    args += ["--metrics", ",".join(FOUR)]
    progress = out.parent / "scores.partial.jsonl"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    driver = subprocess.Popen([sys.executable, "-c", CLI, *args], env=env, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 400
    while time.monotonic() < deadline and driver.poll() is None:
        if progress.exists() and progress.read_text().strip():  # a first partition is in: kill the driver
            break
        time.sleep(0.2)
    assert driver.poll() is None, (driver.stderr.read().decode() if driver.stderr else "")[-2000:]
    driver.send_signal(signal.SIGKILL)
    driver.wait(timeout=30)
    kept = len({json.loads(line)["key"] for line in progress.read_text().splitlines() if line.endswith("}")})
    assert 1 <= kept < 360
    assert main(args) == 0
    manifest = json.loads(out.with_name("scores.manifest.json").read_text())
    assert manifest["stats"]["rows_resumed"] == kept  # the rows the killed driver had were not scored again
    here = tmp_path / "here" / "scores.jsonl"
    assert (
        main(["--quiet", "evaluate", "--input", str(dataset), "--output", str(here), "--metrics", ",".join(FOUR)]) == 0
    )
    assert_same_scores(read(out), read(here), FOUR)


class CrashOnce(evaluation.Metric):
    """Kills the worker scoring it the first time any worker scores it (a marker file says it happened)."""

    name = "crash_once"
    needs_answer = False

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def score_local(self, sample: Sample, judge: Any) -> MetricResult:
        if not self.marker.exists():
            self.marker.write_text("crashed")
            os._exit(1)
        return MetricResult.ok(0.5, "scored after the crash")


def test_a_lost_worker_loses_no_row(ray_cluster: str, test_data: Path, tmp_path: Path, monkeypatch: Any) -> None:
    import ray.cloudpickle

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    monkeypatch.setattr(ray_scoring, "ROWS_PER_PARTITION", 8)
    frame = read_dataset(test_data / "fiqa" / "fiqa.jsonl")
    state = open_run(ragtest.make_config(ray_address=ray_cluster), tmp_path / "run", show_progress=False)
    metrics: list[Any] = [CrashOnce(tmp_path / "crashed"), "faithfulness"]
    scorer = ray_scoring.ray_row_scorer(state, tmp_path / "run" / "scores.partial.jsonl")
    on_ray = evaluate_dataset(frame, metrics=metrics, row_scorer=scorer, show_progress=False)
    assert (tmp_path / "crashed").exists()  # a worker did die
    assert on_ray.frame["crash_once"].tolist() == [0.5] * len(frame)
    here = evaluate_dataset(frame, metrics=["faithfulness"], show_progress=False)
    assert on_ray.frame["faithfulness"].tolist() == pytest.approx(here.frame["faithfulness"].tolist(), abs=1e-6)


def test_llm_judge_workers_keep_one_budget(ray_cluster: str, test_data: Path, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(ray_scoring, "ROWS_PER_PARTITION", 4)
    dataset = tmp_path / "fiqa12.jsonl"
    read_dataset(test_data / "fiqa" / "fiqa.jsonl").head(12).to_json(dataset, orient="records", lines=True)
    with OpenAIStubServer(responder=PlausibleResponder(), latency_ms=150, lifetime_s=400) as server:
        llm = ["--judge", "llm", "--llm", "stub-model", "--llm-base-url", server.url, "--metrics", ",".join(FOUR)]
        llm += ["--llm-concurrency", "2", "--llm-fixed-concurrency"]
        out = tmp_path / "ray" / "scores.jsonl"
        assert (
            main(["--quiet", "evaluate", "--input", str(dataset), "--output", str(out), "--ray", ray_cluster, *llm])
            == 0
        )
        sent = server.request_count
        assert sent > 12 and server.max_in_flight == 2  # two workers, each with calls to make: never more than 2
        usage = json.loads(out.with_name("scores.manifest.json").read_text())["llm_usage"]["total"]
        assert usage["calls"] == sent and usage["input_tokens"] > 0  # the workers' usage reached the driver
        assert (
            main(["--quiet", "evaluate", "--input", str(dataset), "--output", str(out), "--ray", ray_cluster, *llm])
            == 0
        )
        assert server.request_count == sent  # every reply came from the run's one cache
        here = tmp_path / "here" / "scores.jsonl"
        assert main(["--quiet", "evaluate", "--input", str(dataset), "--output", str(here), *llm]) == 0
        assert_same_scores(read(out), read(here), FOUR)
