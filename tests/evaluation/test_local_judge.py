"""The local judge on real data: FiQA RAG outputs and WikiEval's human preferences."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaluation.engine import evaluate_dataset
from evaluation.local_judge import LocalJudge, LocalJudgeSettings
from ragtest_core.datasets import read_dataset
from ragtest_core.embeddings import Embedder
from tests.evaluation.helpers import one_row

FIVE = ["faithfulness", "answer_relevancy", "context_relevance", "context_precision", "context_recall"]


class CountingEmbedder(Embedder):
    """The session's model, with a record of how many new texts each `embed` call computed."""

    def __init__(self, base: Embedder) -> None:
        super().__init__(base.model_name)
        self._model = base.model
        self.computed: list[int] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.computed.append(len({t for t in texts if t not in self._memo}))
        return super().embed(texts)


def test_support_evidence(embedder: Embedder) -> None:
    judge = LocalJudge(embedder)
    contexts = ["The tower was built from 1887 to 1889. It is 330 metres tall.", "Bananas are yellow."]
    evidence = judge.evidence(contexts)
    found = judge.support(["The tower was built in 1889.", "The tower is 500 metres tall.", "Cats purr."], evidence)
    assert [s.supported for s in found] == [True, False, False]
    assert found[0].lexical == 1.0 and found[0].semantic is None  # the shipped support model is lexical
    assert [(c.claim_token, c.competitor) for c in found[1].conflicts] == [("500", "330")]  # a contradicted number
    assert found[0].value >= 0.9 and found[1].value < 0.1 and found[2].value < 0.1
    assert found[1].value == pytest.approx(found[1].base * 0.1)  # the contradicted slot keeps a tenth
    assert evidence.vectors is None and len(evidence.sentences) == 3  # nothing is embedded for support
    (nothing,) = judge.support(["anything"], judge.evidence([]))
    assert nothing.value == 0.0 and not nothing.supported
    semantic = LocalJudgeSettings(support=replace(judge.settings.support, b_sem=1.0))
    assert LocalJudge(embedder, semantic).evidence(contexts).vectors is not None  # the setting embeds again


def test_local_judge_embeds_a_run_in_one_batch(embedder: Embedder) -> None:
    counting = CountingEmbedder(embedder)
    frame = pd.concat([one_row(), one_row(question="Who designed the Eiffel Tower?")], ignore_index=True)
    evaluate_dataset(frame, embedder=counting, show_progress=False)
    assert counting.computed[0] > 0
    assert sum(counting.computed) == len(counting._memo)  # every distinct text embedded exactly once
    busy = [i for i, n in enumerate(counting.computed) if n]
    assert busy == [0]  # all embedding happens up front, in one batch, before scoring (no reference sample)


def test_fiqa_all_metrics_defined(test_data: Path, embedder: Embedder) -> None:
    frame = read_dataset(test_data / "fiqa" / "fiqa.jsonl")
    result = evaluate_dataset(frame, embedder=embedder, show_progress=False)
    assert len(result.frame) == len(frame) == 30
    for name in FIVE:
        for value, reason in zip(result.frame[name], result.frame[f"{name}_reason"], strict=True):
            assert value is None or (0.0 <= value <= 1.0 and not math.isnan(value))
            assert isinstance(reason, str) and reason
        summary = result.summary[name]
        assert summary["rows_scored"] + summary["rows_failed"] == 30
        assert summary["mean"] is None or 0.0 <= summary["mean"] <= 1.0
    assert result.summary["faithfulness"]["rows_scored"] == 30


def wikieval(test_data: Path) -> list[dict[str, object]]:
    lines = (test_data / "wikieval" / "wikieval.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    for row in rows:
        row["question"] = str(row["question"]).removeprefix("Question: ").strip()
        row["answer"] = str(row["answer"]).removeprefix("Answer: ").strip()
    return rows


def scores(rows: list[dict[str, object]], answer: str, contexts: str, metric: str, embedder: Embedder) -> list:
    frame = pd.DataFrame(
        {
            "question": [r["question"] for r in rows],
            "answer": [r[answer] for r in rows],
            "contexts": [r[contexts] for r in rows],
        }
    )
    return list(evaluate_dataset(frame, metrics=[metric], embedder=embedder, show_progress=False).frame[metric])


def pairwise_agreement(preferred: list, other: list) -> float:
    """Share of rows where the preferred side scores higher; a tie counts one half; no score counts lowest."""
    total = 0.0
    for a, b in zip(preferred, other, strict=True):
        a, b = (-1.0 if a is None else a), (-1.0 if b is None else b)
        total += 1.0 if a > b else 0.5 if a == b else 0.0
    return total / len(preferred)


def test_wikieval_faithfulness_prefers_grounded_answers(test_data: Path, embedder: Embedder) -> None:
    rows = wikieval(test_data)[:20]  # the first 20 rows keep the fast suite fast; the slow test runs all 50
    grounded = scores(rows, "answer", "context_v1", "faithfulness", embedder)
    ungrounded = scores(rows, "ungrounded_answer", "context_v1", "faithfulness", embedder)
    assert pairwise_agreement(grounded, ungrounded) >= 0.9


@pytest.mark.slow
def test_wikieval_pairwise_agreement_report(test_data: Path, embedder: Embedder) -> None:
    """The three agreements of the RAGAS paper's Table 1 (the paper: 0.95 / 0.78 / 0.70 with gpt-3.5)."""
    rows = wikieval(test_data)
    agreement = {
        "faithfulness": pairwise_agreement(
            scores(rows, "answer", "context_v1", "faithfulness", embedder),
            scores(rows, "ungrounded_answer", "context_v1", "faithfulness", embedder),
        ),
        "answer_relevancy": pairwise_agreement(
            scores(rows, "answer", "context_v1", "answer_relevancy", embedder),
            scores(rows, "poor_answer", "context_v1", "answer_relevancy", embedder),
        ),
        "context_relevance": pairwise_agreement(
            scores(rows, "answer", "context_v1", "context_relevance", embedder),
            scores(rows, "answer", "context_v2", "context_relevance", embedder),
        ),
    }
    print("WikiEval pairwise agreement (local judge):", agreement)
    assert agreement["faithfulness"] >= 0.9
    assert agreement["answer_relevancy"] > 0.5
    assert agreement["context_relevance"] > 0.5


def test_judge_settings_name_every_parameter_and_shipped_file() -> None:
    from evaluation.identity import judge_settings
    from evaluation.local_judge import sha256_of
    from ragtest_core.relevance import ANSWER_MAP_FILE, CENTRING_MEAN_FILE
    from ragtest_core.support import JUDGE_SUPPORT_FILE

    local = judge_settings("local")
    settings = local["settings"]
    local_part = settings["local"]
    assert local_part["files"] == {
        p.name: sha256_of(p) for p in (JUDGE_SUPPORT_FILE, CENTRING_MEAN_FILE, ANSWER_MAP_FILE)
    }
    assert local_part["support"]["b0"] < 0 < local_part["support"]["b_window"]
    assert local_part["support"]["b_sem"] == 0.0 and local_part["evidence_splitter"] in ("pysbd", "rules")
    assert local_part["answer_relevancy"]["base"] == "combined" and local_part["context_relevance"]["base"] == "overlap"
    assert settings["params"]["supported_at"] == 0.5 and settings["params"]["own_share"] == 0.25
    assert settings["embedding_model"] == "all-MiniLM-L6-v2" and local_part["calibrated_for_this_mean"]
    assert judge_settings("local") == local  # deterministic
    other = judge_settings("local", LocalJudgeSettings(centring_source="my corpus"))
    assert other["fingerprint"] != local["fingerprint"] and not other["settings"]["local"]["calibrated_for_this_mean"]
    assert judge_settings("llm")["fingerprint"] != local["fingerprint"]


def test_judge_settings_follow_the_word_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """The filler list decides which capitalised words are names: changing it changes the fingerprint, so runs
    scored before and after are never compared as alike."""
    from evaluation.identity import judge_settings
    from ragtest_core import textunits

    before = judge_settings("local")
    assert "yeah" in before["settings"]["word_lists"]["fillers"]
    monkeypatch.setattr(textunits, "FILLERS", textunits.FILLERS - {"yeah"})
    assert judge_settings("local")["fingerprint"] != before["fingerprint"]


def test_the_fingerprint_follows_every_parameter_of_the_one_settings_object(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from evaluation.identity import judge_settings
    from ragtest_core import judge_params

    before = judge_settings("local")["fingerprint"]
    for field in dataclasses.fields(judge_params.JudgeParams):
        value = getattr(judge_params.PARAMS, field.name)
        changed = value | {"x"} if isinstance(value, frozenset) else value + 1
        monkeypatch.setattr(judge_params, "PARAMS", dataclasses.replace(judge_params.PARAMS, **{field.name: changed}))
        assert judge_settings("local")["fingerprint"] != before, field.name
        monkeypatch.undo()
    assert judge_settings("local")["fingerprint"] == before
