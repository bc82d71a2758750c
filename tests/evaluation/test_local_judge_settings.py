"""The local judge's declared components (`LocalJudgeSettings`): the shipped choice of the ablation, each component a
setting that changes the fingerprint, the rules that cut contexts into sentences, and what the default embeds."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evaluation.engine import evaluate_dataset, score_samples
from evaluation.identity import judge_settings
from evaluation.local_judge import (
    ANSWER_RELEVANCY,
    CONTEXT_RELEVANCE,
    RELEVANCE_FILE,
    LocalJudge,
    LocalJudgeSettings,
    RelevanceSettings,
)
from evaluation.registry import resolve_metrics
from evaluation.sample import Sample
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.datasets import records
from ragtest_core.embeddings import Embedder
from ragtest_core.quick_sentences import quick_sentences
from ragtest_core.support import JUDGE_SUPPORT_FILE
from ragtest_core.textunits import sentences
from tests.evaluation.helpers import one_row


class CountingEmbedder(Embedder):
    """The session's model, counting the texts it is asked to embed."""

    def __init__(self, base: Embedder) -> None:
        base.embed(["warm up"])
        super().__init__(base.model_name, backend=base.backend)
        self._model, self._onnx = base._model, base._onnx
        self.asked: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.asked.extend(texts)
        return super().embed(texts)


def test_the_shipped_files_record_the_ablations_choice() -> None:
    support = json.loads(JUDGE_SUPPORT_FILE.read_text(encoding="utf-8"))
    assert support["chosen_by"].startswith("bench/judge_ablation.py") and support["n"] > 500
    assert "semantic" not in support["features"] and support.get("b_sem", 0.0) == 0.0
    relevance = json.loads(RELEVANCE_FILE.read_text(encoding="utf-8"))
    assert RelevanceSettings(**relevance["answer_relevancy"]) == ANSWER_RELEVANCY
    assert RelevanceSettings(**relevance["context_relevance"]) == CONTEXT_RELEVANCE
    settings = LocalJudgeSettings()
    assert (settings.context_recall, settings.context_precision) == (
        relevance["context_recall"]["base"],
        relevance["context_precision"]["base"],
    )
    assert settings.evidence_splitter == support["evidence_splitter"]
    assert settings.support.conflicts == support["conflicts"] and not settings.support.uses_vectors


def test_every_component_is_a_setting_in_the_fingerprint() -> None:
    shipped = judge_settings("local")
    assert shipped["settings"]["local"]["answer_relevancy"] == ANSWER_RELEVANCY.as_dict()
    for name in ("sentences", "centring", "readings", "parts", "noncommittal", "restates"):
        change: dict[str, Any] = {name: not getattr(ANSWER_RELEVANCY, name)}
        flipped = replace(ANSWER_RELEVANCY, **change)
        other = judge_settings("local", LocalJudgeSettings(answer_relevancy=flipped))
        assert other["fingerprint"] != shipped["fingerprint"], name
    splitter = "pysbd" if LocalJudgeSettings().evidence_splitter == "rules" else "rules"
    assert (
        judge_settings("local", LocalJudgeSettings(evidence_splitter=splitter))["fingerprint"] != shipped["fingerprint"]
    )
    for name in ("context_recall", "context_precision"):
        other_base: dict[str, Any] = {name: "overlap" if getattr(LocalJudgeSettings(), name) != "overlap" else "cosine"}
        assert judge_settings("local", LocalJudgeSettings(**other_base))["fingerprint"] != shipped["fingerprint"]
        with pytest.raises(ValueError, match=name):
            LocalJudgeSettings(**{name: "bm25"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="base"):
        RelevanceSettings(base="bm25")
    with pytest.raises(ValueError, match="splitter"):
        LocalJudgeSettings(evidence_splitter="nltk")


def test_support_and_lexical_relevance_embed_nothing(embedder: Embedder) -> None:
    counting = CountingEmbedder(embedder)
    lexical = LocalJudgeSettings(
        context_relevance=RelevanceSettings(base="overlap", centring=False),
        context_recall="support",
        context_precision="support",
    )
    metrics = ["faithfulness", "context_recall", "context_precision", "context_relevance"]
    frame = pd.concat([one_row(), one_row(answer="The Eiffel Tower is in Rome.")], ignore_index=True)
    samples = [Sample.from_row(row) for row in records(frame)]
    found = run_sync(score_samples(resolve_metrics(metrics), LocalJudge(counting, lexical), samples, None))
    assert counting.asked == []  # the model is never asked for a vector
    assert found[0]["faithfulness"].value is not None and found[1]["faithfulness"].value is not None
    assert found[0]["faithfulness"].value > found[1]["faithfulness"].value  # Rome is not in the contexts
    embedding = evaluate_dataset(frame, metrics=["answer_relevancy"], embedder=counting, show_progress=False)
    assert counting.asked and embedding.frame["answer_relevancy"].notna().all()


def test_the_rules_cut_sentences_where_pysbd_does(test_data: Path) -> None:
    assert quick_sentences("J. K. Rowling wrote it. It sold well.") == ("J. K. Rowling wrote it.", "It sold well.")
    assert quick_sentences("The U.S. Army and Dr. Smith came. No. 5 left.") == (
        "The U.S. Army and Dr. Smith came.",
        "No. 5 left.",
    )
    assert quick_sentences("It hit the crisis.Sri Lanka fell (in 2009). Then\nit rose!") == (
        "It hit the crisis.",
        "Sri Lanka fell (in 2009).",
        "Then",
        "it rose!",
    )
    assert quick_sentences("它很大。它很小！") == ("它很大。", "它很小！")
    lines = (test_data / "wikieval" / "wikieval.jsonl").read_text(encoding="utf-8").splitlines()
    contexts = [c for line in lines for c in json.loads(line)["context_v1"]]
    ours = [quick_sentences(c) for c in contexts]
    theirs = [sentences(c) for c in contexts]
    same = sum(len(set(a) & set(b)) for a, b in zip(ours, theirs, strict=True))
    assert same / sum(len(b) for b in theirs) >= 0.95  # 96.6% of pysbd's sentences, measured
