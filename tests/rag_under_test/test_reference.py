"""The reference RAG's offline extractive reader on real article text with the real MiniLM model."""

from __future__ import annotations

from pathlib import Path

from rag_under_test import ReferenceRAG
from rag_under_test.reference import REFUSAL, Passage
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.embeddings import Embedder


class ListRetriever:
    """Ranks a fixed list of passages by shared words (a stand-in for the store, which testgen tests)."""

    def __init__(self, passages: list[Passage]) -> None:
        self.passages = passages

    def retrieve(self, question: str, k: int) -> list[Passage]:
        words = set(question.lower().split())
        ranked = sorted(self.passages, key=lambda p: -len(words & set(p.text.lower().split())))
        return ranked[:k]


def _python_passages(wiki_dir: Path) -> list[Passage]:
    text = (wiki_dir / "Python_(programming_language).txt").read_text(encoding="utf-8")
    paragraphs = [p for p in text.split("\n") if len(p) > 200][:30]
    return [Passage(id=f"p{i}", text=p) for i, p in enumerate(paragraphs)]


def test_extractive_answer_contains_the_fact(wiki_dir: Path, embedder: Embedder) -> None:
    rag = ReferenceRAG(ListRetriever(_python_passages(wiki_dir)), k=4, embedder=embedder)
    result = run_sync(rag.aanswer("Who created Python?"))
    assert "Guido van Rossum" in result.answer
    assert len(result.contexts) == 4 and result.context_ids is not None and len(result.context_ids) == 4
    assert all(sentence in " ".join(result.contexts) for sentence in result.answer.split(" Guido")[:1])


def test_extractive_reader_refuses_when_nothing_fits(wiki_dir: Path, embedder: Embedder) -> None:
    rag = ReferenceRAG(ListRetriever(_python_passages(wiki_dir)), k=3, embedder=embedder)
    assert rag.extract_answer("What is the boiling point of liquid nitrogen?", []) == REFUSAL
    result = run_sync(rag.aanswer("Which recipe uses saffron and lobster bisque?"))
    assert result.answer == REFUSAL
