"""Sentence splitting is thread-safe: the LLM runtime runs scripted and local models in executor threads, and a
shared pysbd Segmenter mixed up the sentences of texts split at the same time (a flaky test set)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ragtest_core.text import split_sentences


def test_threads_split_like_one_thread(wiki_dir: Path) -> None:
    text = (wiki_dir / "Brown_bear.txt").read_text(encoding="utf-8")
    paragraphs = [p for p in text.split("\n") if len(p) > 400][:60]
    serial = [split_sentences(p, "en") for p in paragraphs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            assert list(pool.map(lambda p: split_sentences(p, "en"), paragraphs)) == serial
