"""Memory stays bounded as a dataset grows: the embedder keeps the vectors of its last `memo_size` texts, the local
judge scores in partitions whose texts fit half of that, and the scores equal those of an unbounded run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from evaluation.engine import evaluate_dataset
from ragtest_core.datasets import read_dataset
from ragtest_core.embeddings import Embedder

METRICS = ["faithfulness", "answer_relevancy", "context_precision", "context_recall"]


class SmallMemo(Embedder):
    """The session's model behind a memo of `memo_size` texts, recording the memo's size after every call."""

    def __init__(self, base: Embedder, memo_size: int) -> None:
        base.embed(["warm up"])  # resolves the backend
        super().__init__(base.model_name, memo_size=memo_size, backend=base.backend)
        self._model, self._onnx = base._model, base._onnx
        self.sizes: list[int] = []
        self.computed: list[int] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.computed.append(len({t for t in texts if t not in self._memo}))
        vectors = super().embed(texts)
        self.sizes.append(len(self._memo))
        return vectors


def test_the_memo_keeps_the_last_texts_and_gives_the_same_vectors(embedder: Embedder) -> None:
    small = SmallMemo(embedder, memo_size=5)
    texts = [f"Sentence number {i} about bears." for i in range(12)]
    vectors = small.embed(texts)
    assert len(small._memo) == 5 and list(small._memo) == texts[-5:]
    assert np.allclose(vectors, embedder.embed(texts), atol=1e-6)
    small.embed([texts[7]])  # a hit moves to the end; the oldest goes first
    small.embed(["a new text"])
    assert list(small._memo) == [*texts[9:], texts[7], "a new text"]


def test_partitions_keep_memory_bounded_and_score_alike(test_data: Path, embedder: Embedder) -> None:
    frame = read_dataset(test_data / "fiqa" / "fiqa.jsonl")
    frame = pd.concat([frame, frame.assign(question=frame["question"] + " Explain.")], ignore_index=True)
    whole = evaluate_dataset(frame, metrics=METRICS, embedder=embedder, show_progress=False)
    small = SmallMemo(embedder, memo_size=40)  # the local judge embeds two texts a row for these metrics
    bounded = evaluate_dataset(frame, metrics=METRICS, embedder=small, show_progress=False)
    assert max(small.sizes) <= 40
    assert sum(1 for n in small.computed if n) > 2  # several partitions, each embedded before it is scored
    for name in METRICS:
        left, right = whole.frame[name].tolist(), bounded.frame[name].tolist()
        assert [v is None for v in left] == [v is None for v in right]
        assert np.allclose([v for v in left if v is not None], [v for v in right if v is not None], atol=1e-6)
