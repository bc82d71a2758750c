"""Two variants of a RAG scored on one test set (the reference RAG and a degraded copy), built once per session
through the command line, for the compare, gate and report tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl

TOPIC = "Python (programming language)"
METRICS = (
    "faithfulness,answer_relevancy,context_relevance,context_precision,context_recall,hit_rate,mrr,answer_correctness"
)
SIZE = 15


@dataclass(frozen=True)
class TwoVariants:
    root: Path
    testset: Path
    base: Path  # scored file of the reference RAG
    new: Path  # scored file of the degraded RAG (it answers from the wrong chunks)

    def answers(self, side: str) -> Path:
        return self.root / side / "answers.jsonl"


@pytest.fixture(scope="session")
def two_variants(tmp_path_factory: pytest.TempPathFactory, wiki_dir: Path) -> TwoVariants:
    root = tmp_path_factory.mktemp("variants")
    testset = root / "testset.jsonl"
    source = ["--topic", TOPIC, "--wiki-cache", str(wiki_dir), "--offline"]
    assert main(["generate", "--quiet", *source, "--size", str(SIZE), "--seed", "3", "--output", str(testset)]) == 0
    corpus = read_jsonl(testset)[0]["corpus_id"]  # the store collection the test set was generated into
    degraded = ["--rag", "tests.e2e.degraded_rag:DropBestContext", "--rag-arg", f"store={root / 'chroma'}"]
    degraded += ["--rag-arg", f"collection={corpus}"]
    for side, rag in (("base", []), ("new", [*degraded, "--rag-arg", "skip=4"])):
        answers = root / side / "answers.jsonl"
        assert main(["answer", "--quiet", "--input", str(testset), "--output", str(answers), *rag]) == 0
        scores = root / side / "scores.jsonl"
        assert (
            main(["evaluate", "--quiet", "--input", str(answers), "--metrics", METRICS, "--output", str(scores)]) == 0
        )
    return TwoVariants(root, testset, root / "base" / "scores.jsonl", root / "new" / "scores.jsonl")
