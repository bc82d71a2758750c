"""Usage per phase and per metric, price tables from files, the LLM progress bar, atomic dataset writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtest_core.datasets import read_dataset, write_dataset
from ragtest_core.errors import RagtestError
from ragtest_core.llm.progress import llm_progress
from ragtest_core.llm.usage import UsageTracker, load_prices


def test_usage_by_phase_and_metric() -> None:
    usage = UsageTracker("openai:gpt-4o-mini")
    usage.phase = "generate"
    usage.record_call("testgen", 100, 10, estimated=False)
    usage.phase = "evaluate"
    usage.record_call("faithfulness.statements", 50, 5, estimated=False)
    usage.record_call("faithfulness.verdicts", 70, 7, estimated=True)
    usage.count("faithfulness.verdicts", retries=1, rate_limited=1)
    usage.count("context_recall.attribution", cache_hits=1)

    data = usage.as_dict()
    assert data["phases"]["generate"]["input_tokens"] == 100
    assert data["phases"]["evaluate"]["calls"] == 2 and data["phases"]["evaluate"]["rate_limited"] == 1
    assert data["metrics"]["faithfulness"]["input_tokens"] == 120
    assert data["metrics"]["context_recall"]["cache_hits"] == 1
    assert data["total"]["cost_usd"] == pytest.approx((220 * 0.15 + 22 * 0.60) / 1e6)
    assert "phase evaluate" in usage.report()


def test_utilisation_is_busy_time_over_what_the_limit_allows() -> None:
    usage = UsageTracker("http://h/v1#openai:gpt-4o-mini", concurrency=4)
    usage.phase = "evaluate"
    for start in (0.0, 0.0, 0.0, 0.0, 0.5, 0.5):  # six 0.5 s requests over 1.0 s with 4 allowed in flight
        usage.record_request(start, start + 0.5)
    phase = usage.as_dict()["phases"]["evaluate"]
    # 6 requests/s achieved / (4 / 0.5 s) possible = 0.75 = 3.0 busy seconds / (1.0 s * 4)
    assert phase["utilisation"] == pytest.approx(0.75) and phase["requests_per_s"] == 6.0
    assert phase["mean_latency_s"] == 0.5 and usage.utilisation("evaluate") == pytest.approx(0.75)
    assert "utilisation=0.75" in usage.report()
    assert usage.cost_usd(usage.total()) is not None  # priced without the URL and the provider prefix


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("prices.json", json.dumps({"stub-model": [1.0, 2.0], "gpt-4o-mini": {"input": 9, "output": 9}})),
        ("prices.toml", '[prices]\n"stub-model" = [1.0, 2.0]\n\n[prices.gpt-4o-mini]\ninput = 9\noutput = 9\n'),
    ],
)
def test_price_table_from_a_file(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    prices = load_prices(path)
    assert prices["stub-model"] == (1.0, 2.0) and prices["gpt-4o-mini"] == (9.0, 9.0)
    assert prices["gpt-4o"] == (2.50, 10.00)  # the defaults stay
    usage = UsageTracker("http://127.0.0.1:8000/v1#stub-model", prices=prices)
    usage.record_call("s", 1_000_000, 1_000_000, estimated=False)
    assert usage.as_dict()["total"]["cost_usd"] == 3.0


def test_price_table_from_the_environment_and_bad_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"my-model": [3, 4]}')
    monkeypatch.setenv("RAGTEST_PRICES", str(path))
    assert load_prices()["my-model"] == (3.0, 4.0)
    path.write_text('{"my-model": "cheap"}')
    with pytest.raises(RagtestError, match="must be \\[input, output\\]"):
        load_prices(path)


def test_llm_progress_counts_calls_and_cache_hits() -> None:
    usage = UsageTracker("m")
    usage.record_call("before", 1, 1, estimated=False)  # not this stage's
    with llm_progress(usage, "evaluate", total=3, enabled=True) as bar:
        usage.record_call("a", 10, 2, estimated=False)
        usage.count("a", retries=1, rate_limited=1)
        usage.count("b", cache_hits=1)
        assert bar.n == 2
        assert bar.postfix and "1(1x429)" in bar.postfix
    assert usage.phase is None and not usage.listeners
    assert usage.phases["evaluate"].calls == 1


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet", ".csv"])
def test_dataset_writes_are_atomic(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"rows{suffix}"
    write_dataset([{"question": "q?", "contexts": ["a", "b"]}], path)
    assert read_dataset(path)["contexts"].tolist() == [["a", "b"]]
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind
