"""`repeats`: each row judged N times by the LLM judge, every repeat its own calls (past the cache), the mean kept,
and each metric's stability (rows whose verdict changed, spread per row) in the summary."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pandas as pd
import pytest

from evaluation.engine import evaluate_dataset
from evaluation.stability import repeats_column, spread_column
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import RagtestError
from ragtest_core.llm.cache import LLMCache
from ragtest_core.llm.client import LLMClient, LLMConfig
from tests.evaluation.helpers import one_row
from tests.stubs.scripted import ScriptedChatModel


def frame(rows: int = 4) -> pd.DataFrame:
    return pd.concat([one_row(question=f"Where is the Eiffel Tower ({i})?") for i in range(rows)], ignore_index=True)


class FlipFlop:
    """A judge that says 'supported' to every other verdict call: repeats of one row disagree."""

    def __init__(self, steady: bool = False) -> None:
        self.verdicts = itertools.count()
        self.steady = steady

    def __call__(self, prompt: str) -> str:
        if "break down each sentence" in prompt:
            return json.dumps({"statements": ["The Eiffel Tower is in Paris.", "It was built in 1889."]})
        verdict = 1 if self.steady else next(self.verdicts) % 2
        return json.dumps({"verdicts": [{"statement": "s", "reason": "r", "verdict": verdict}] * 2})


def client(tmp_path: Path, responder: FlipFlop) -> tuple[LLMClient, ScriptedChatModel]:
    model = ScriptedChatModel(responder=responder)
    cache = LLMCache(tmp_path / "llm_cache.sqlite")
    return LLMClient(model, "scripted", config=LLMConfig(retries=0, concurrency=4), cache=cache), model


def test_repeats_ask_again_and_report_stability(tmp_path: Path, embedder: Embedder) -> None:
    llm, model = client(tmp_path, FlipFlop())
    result = evaluate_dataset(
        frame(), metrics=["faithfulness"], judge="llm", llm=llm, embedder=embedder, show_progress=False, repeats=3
    )
    # the statements of one answer are extracted once per repeat; one verdict call per row and repeat
    assert len(model.prompts) == 3 * (1 + 4)
    stability = result.summary["faithfulness"]["stability"]
    assert stability["repeats"] == 3 and stability["rows"] == 4
    assert stability["rows_verdict_changed"] >= 1 and 0 < stability["share_verdict_changed"] <= 1
    assert stability["max_spread"] == 1.0
    for _, row in result.frame.iterrows():
        values = row[repeats_column("faithfulness")]
        assert len(values) == 3 and row["faithfulness"] == pytest.approx(sum(values) / 3)
        assert row[spread_column("faithfulness")] == max(values) - min(values)
        assert "mean of 3 of 3 repeats" in row["faithfulness_reason"]
    flagged = {item["row"] for item in stability["unstable_rows"]}
    assert flagged == {i for i, row in result.frame.iterrows() if row[spread_column("faithfulness")] > 0}

    # a re-run of the same command repeats no paid call: each repeat has its own cache entry
    again, model_again = client(tmp_path, FlipFlop())
    rerun = evaluate_dataset(
        frame(), metrics=["faithfulness"], judge="llm", llm=again, embedder=embedder, show_progress=False, repeats=3
    )
    assert model_again.prompts == []
    assert list(rerun.frame["faithfulness"]) == list(result.frame["faithfulness"])


def test_a_steady_judge_is_stable(tmp_path: Path, embedder: Embedder) -> None:
    llm, _ = client(tmp_path, FlipFlop(steady=True))
    result = evaluate_dataset(
        frame(2), metrics=["faithfulness"], judge="llm", llm=llm, embedder=embedder, show_progress=False, repeats=2
    )
    stability = result.summary["faithfulness"]["stability"]
    assert stability["share_verdict_changed"] == 0.0 and stability["mean_spread"] == 0.0
    assert stability["unstable_rows"] == []


def test_repeats_need_the_llm_judge(embedder: Embedder) -> None:
    with pytest.raises(RagtestError, match="LLM judge"):
        evaluate_dataset(
            frame(1), metrics=["faithfulness"], judge="local", embedder=embedder, show_progress=False, repeats=2
        )
